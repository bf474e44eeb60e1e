#pragma once
// synthaudit as a library: run any set of metrics over tables a host program holds in memory and
// get back the "synthaudit/1" results document that `synthaudit evaluate` writes to results.json,
// with no file read or written. The command line is one caller of the same entry point: it reads
// files into tables and calls evaluate(spec, data) below.
//
// - Bad input (a missing column, an unknown metric or parameter, a code outside its levels...)
//   throws InputError with the command line's one-line message. Anything else escaping is a bug.
// - Each call runs on its own thread count (Evaluation::threads): the OpenMP settings of the
//   calling thread (omp_get_max_threads, omp_get_dynamic) are left as they were, and calls from
//   several host threads at once, each with its own count, do not affect one another.
// - Results depend only on the data, the options and the seed: not on the thread count.
//
// docs/architecture.md ("Using synthaudit as a library") has a complete example, which the build
// compiles and runs (examples/library_example.cpp).
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "engine/evaluate.hpp"
#include "engine/safe_output.hpp"
#include "metrics/metric.hpp"
#include "metrics/registry_docs.hpp"
#include "metrics/registry_json.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "result/document.hpp"
#include "result/output_files.hpp"
#include "result/verdict.hpp"
#include "spec/options.hpp"
#include "spec/spec.hpp"

namespace synthaudit {

// A categorical column given as codes into a list of levels, as pandas' Categorical (codes 0-based,
// -1 missing) holds it; any negative code is missing. Only the levels that occur become levels of
// the evaluation, as when the same data are read from a file.
struct CodedLevels {
  std::vector<std::int32_t> codes;
  std::vector<std::string> levels;
};

// One column of a table held in memory: numbers (NaN is missing), text (std::nullopt is
// missing, and so is text spelt as the option missing_values spells a missing value: by
// default "", NA, NaN and null, as in a file) or codes with levels. The confidential
// table's columns fix each column's kind; the same column must have the same kind in every table.
struct InputColumn {
  std::string name;
  std::variant<std::vector<double>, std::vector<std::optional<std::string>>, CodedLevels> values;

  static InputColumn numeric(std::string name, std::vector<double> values);
  static InputColumn categorical(std::string name, std::vector<std::optional<std::string>> values);
  static InputColumn categorical(std::string name, std::vector<std::int32_t> codes,
                                 std::vector<std::string> levels);
};

// A table: its columns, all of one length. Synthetic and holdout tables may order their columns
// differently from the confidential table; columns the confidential table lacks are ignored (with
// a warning in the document).
using InputTable = std::vector<InputColumn>;

// One synthesis method's output: m replicates (m >= 1).
struct InputCandidate {
  std::string name;
  std::vector<InputTable> replicates;
};

// One evaluation: the tables and the options.
struct Evaluation {
  InputTable confidential;
  std::vector<InputCandidate> candidates;
  std::optional<InputTable> holdout;  // records not used to synthesise, for the metrics needing it
  // The options by the names the Python and R packages give them (`synthaudit options --json`,
  // binding_argument; docs/options.md): e.g. {"metrics": "general", "seed": 7, "keys": [...],
  // "targets": [...], "safe_output": true}. A spec file named by "spec" applies first (every
  // option it holds, its limits, policy and safe_output included; its file names are not read),
  // then each option given here overrides it. A null value is not given. Each value is checked
  // by the option's declaration (spec/options.hpp), as a flag or a spec key is.
  nlohmann::json options = nlohmann::json::object();
  // Prefix of error messages about these options (a binding names itself here).
  std::string origin = "synthaudit";
};

// Runs the evaluation: make_spec, then make_evaluation_data, then evaluate(spec, data, progress).
// The columns are moved out of `evaluation` (pass std::move(e) to avoid copying the data).
nlohmann::json evaluate(Evaluation evaluation, const ProgressFn& progress = {});

// The evaluation proper, for callers that already hold a spec and encoded tables (the command
// line): the metrics, then the verdict of spec.policy, then, with spec.safe_output, output
// checking (engine/safe_output.hpp; output_check_log() writes its log). evaluate(Evaluation)
// ends here too.
// `sinks` receives what is not in the document: done/total of long steps and the per-record
// outputs (record_level) as a side table (engine/evaluate.hpp; records_tsv() writes it).
nlohmann::json audit(const EvaluationSpec& spec, const EvaluationData& data,
                     const ProgressFn& progress = {}, const EvaluationSinks& sinks = {});

// The options of `evaluation` as a validated spec (its tables are named, not read).
EvaluationSpec make_spec(const Evaluation& evaluation);

// The tables of `evaluation`, encoded with one schema taken from the confidential table, as
// load_evaluation_data encodes files: the spec's missing-value spellings and missing codes apply
// to text and coded columns as to the fields of a file. Moves the columns out of `evaluation`.
EvaluationData make_evaluation_data(Evaluation&& evaluation, const EvaluationSpec& spec);

// The results.tsv rows of a document: result_rows() (result/document.hpp). Its report:
// render_html() (the self-contained report.html), render_markdown() (report/report.hpp) and the
// terminal summary render_summary() (report/summary.hpp). A file written whole or not at all:
// write_file_atomic() (result/output_files.hpp).

// Every metric, in the registry's order.
const std::vector<MetricSpec>& list_metrics();
// The metric named `name`, or else the one metric whose acronym (cap, dcr), statistic (DiSCO,
// repU) or statistic's first word `name` is, case-insensitively; InputError listing the metrics
// when several fit, with a did-you-mean hint when none does.
const MetricSpec& describe(const std::string& name);
// A declaration as JSON: metric_to_json(), and the whole registry: registry_to_json()
// (metrics/registry_json.hpp); in words: describe_text() (metrics/registry_docs.hpp).

}  // namespace synthaudit
