// libFuzzer target for a whole evaluation on fuzzed data: the bytes are split at the first 0xFF
// byte into a confidential and a synthetic CSV file (the same bytes for both when there is
// none), read like any input, evaluated with a small set of metrics from every family that
// runs without options (marginals, tables, correlations, a propensity model, disclosure by keys
// and by distance), and rendered as results.tsv, Markdown and the HTML report. The first byte
// picks the thread count and whether the first two columns are disclosure keys. InputError is
// the only acceptable outcome besides success (a metric that does not apply becomes a warning in
// the document). Built and run by scripts/run-fuzz.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "engine/evaluate.hpp"
#include "io/csv.hpp"
#include "report/report.hpp"
#include "result/document.hpp"
#include "scratch_folder.hpp"
#include "spec/spec.hpp"
#include "synthaudit/synthaudit.hpp"

using namespace synthaudit;

namespace {

const std::string& folder() {
  return fuzz::scratch_folder("end_to_end_fuzz");  // the inputs are written per run
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto split = bytes.find('\xff');
  const std::string conf = split == std::string::npos ? bytes : bytes.substr(0, split);
  const std::string syn = split == std::string::npos ? bytes : bytes.substr(split + 1);
  EvaluationSpec spec;
  spec.confidential = folder() + "/conf.csv";
  spec.candidates = {{"fuzz", {folder() + "/syn.csv"}}};
  fuzz::write_text(spec.confidential, conf);
  fuzz::write_text(spec.candidates[0].replicates[0], syn);
  spec.metrics = {"ks_distance",           "total_variation",           "table_utility",
                  "correlation_fit",       "propensity_logistic",       "column_summaries",
                  "coverage_and_validity", "distance_to_closest_record"};
  spec.context.threads = (mode & 1) ? 2 : 1;
  spec.baseline_draws = 0;
  try {
    if (mode & 2) {
      // The first two columns as keys and the third as target, when the file has them.
      const CsvFile file = CsvFile::open(spec.confidential, spec.read.csv);
      if (file.columns() >= 3) {
        spec.context.scenarios = {{{file.header()[0], file.header()[1]}, {file.header()[2]}}};
        spec.metrics.push_back("correct_attribution_probability");
      }
    }
    validate_spec(spec);
    const EvaluationData evaluation_data = load_evaluation_data(spec);
    const nlohmann::json document = audit(spec, evaluation_data);
    (void)results_tsv(document);
    (void)render_markdown(document);
    (void)render_html(document);
  } catch (const InputError&) {
  }
  return 0;
}
