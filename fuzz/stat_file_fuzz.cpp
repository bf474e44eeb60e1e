// libFuzzer target for the Stata, SPSS and SAS reader (io/readstat.cpp, through ReadStat) and
// the typed loading after it: StatFile::parse, infer_schema, encode_table (as confidential and
// as synthetic with the same schema) and finalize_dictionaries. The first byte picks the format
// (Stata, SPSS, SPSS portable, SAS, SAS transport), the value-label mode and the thread count;
// the rest is the file. InputError is the only acceptable outcome besides success; any other
// exception, a crash, a leak, undefined behaviour or a broken invariant is a bug.
// Built and run by scripts/run-fuzz; seeds: tests/data/stat/ with a leading options byte.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "io/load.hpp"
#include "io/readstat.hpp"

using namespace synthaudit;

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "stat_file_fuzz: invariant broken: %s\n", what);
  std::abort();
}

void check_table(const Table& t, const DataFile& f) {
  if (t.rows() != f.rows()) broken("table rows != file rows");
  for (const Column& c : t.columns()) {
    if (c.size() != t.rows()) broken("column length != rows");
    if (c.is_numeric()) {
      for (double v : c.numeric)
        if (std::isinf(v)) broken("infinite value in a numeric column");
    } else {
      for (auto code : c.codes)
        if (code != kMissingCode && code >= c.dictionary->size()) broken("code out of range");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  static const DataFormat formats[] = {DataFormat::kStata, DataFormat::kSpss,
                                       DataFormat::kSpssPortable, DataFormat::kSas,
                                       DataFormat::kSasTransport};
  StatReadOptions options;
  options.value_labels = (mode & 8) ? ValueLabels::kCodes : ValueLabels::kLabels;
  options.threads = (mode & 16) ? 2 : 1;
  options.max_input_bytes = 1 << 22;
  options.max_field_bytes = 1 << 16;
  options.max_columns = 200;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const StatFile file = StatFile::parse(bytes, formats[(mode & 7) % 5], "fuzz", "", options);
    if (file.columns() == 0 || file.rows() == 0) broken("a file without columns or rows parsed");
    if (file.metadata().size() != file.columns()) broken("metadata per column");
    ReadSettings settings;
    settings.csv.threads = options.threads;
    if (mode & 32) settings.missing_text_codes[file.header()[0]] = {"a", "1"};
    Schema schema = infer_schema(file, settings);
    Table conf = encode_table(file, schema, settings, "confidential");
    Table syn = encode_table(file, schema, settings, "synthetic");
    finalize_dictionaries(schema, {&conf, &syn});
    check_table(conf, file);
    check_table(syn, file);
  } catch (const InputError&) {
  }
  return 0;
}
