// libFuzzer target for the CSV reader and typed loading: CsvFile::from_bytes, infer_schema,
// encode_table (twice, as confidential and as synthetic with the same schema) and
// finalize_dictionaries. InputError is the only acceptable outcome besides success; any other
// exception, a crash, a leak, undefined behaviour or a broken invariant is a bug.
// Built and run by scripts/run-fuzz.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "io/csv.hpp"
#include "io/load.hpp"

using namespace synthaudit;

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "csv_fuzz: invariant broken: %s\n", what);
  std::abort();
}

void check_table(const Table& t, const CsvFile& f) {
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

const std::string& temp_path() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::atexit([] { std::remove(temp_path().c_str()); });
    return std::string(tmp ? tmp : "/tmp") + "/synthaudit_csv_fuzz_" + std::to_string(::getpid()) +
           ".csv";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks the options; the rest is the file.
  const std::uint8_t mode = data[0];
  static const char delimiters[] = {',', ';', '\t', '|'};
  ReadSettings settings;
  settings.csv.delimiter = delimiters[mode & 3];
  settings.csv.threads = (mode & 4) ? 2 : 1;
  if (mode & 8) settings.missing_values = {"", ".", "-9"};
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    // Mode bit 128: through a temporary file and CsvFile::open (memory map, page release, gzip
    // detection); otherwise from memory.
    auto open = [&] {
      if (!(mode & 128)) return CsvFile::from_bytes(bytes, "fuzz.csv", settings.csv);
      {
        std::FILE* out = std::fopen(temp_path().c_str(), "wb");
        if (!out) std::abort();
        std::fwrite(bytes.data(), 1, bytes.size(), out);
        std::fclose(out);
      }
      return CsvFile::open(temp_path(), settings.csv);
    };
    const CsvFile file = open();
    if (file.columns() == 0 || file.rows() == 0) broken("a file without columns or rows opened");
    const std::string& first = file.header()[0];
    if (mode & 16) settings.kinds[first] = ColumnKind::kNumeric;
    if (mode & 32) settings.kinds[first] = ColumnKind::kCategorical;
    if (mode & 64) settings.missing_codes[file.header().back()] = {-8, 0};
    Schema schema = infer_schema(file, settings);
    Table conf = encode_table(file, schema, settings, "confidential");
    check_table(conf, file);
    // The same bytes again as a synthetic file: the shared dictionaries must give equal codes.
    Table syn = encode_table(file, schema, settings, "synthetic");
    std::vector<Table*> all = {&conf, &syn};
    finalize_dictionaries(schema, all);
    check_table(conf, file);
    for (std::size_t c = 0; c < conf.column_count(); ++c)
      if (conf.column(c).is_categorical() && conf.column(c).codes != syn.column(c).codes)
        broken("same bytes gave different codes");
  } catch (const InputError&) {
  }
  return 0;
}
