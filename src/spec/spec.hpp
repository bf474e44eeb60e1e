#pragma once
// The evaluation spec: what to read, which candidates to compare, which metrics to run with
// which parameters. Built from a YAML file (docs/config.md) and/or command-line flags.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/load.hpp"
#include "metrics/metric.hpp"

namespace synthaudit {

struct CandidateSpec {
  std::string name;
  std::vector<std::string> replicates;  // one file per synthetic replicate
};

struct EvaluationSpec {
  std::string confidential;
  std::optional<std::string> holdout;
  std::vector<CandidateSpec> candidates;
  ReadSettings read;
  std::string metadata;  // optional SDV metadata JSON with column kinds
  std::vector<std::string> metrics = {"all"};
  // metric name -> its parameters as given (validated against the declaration before running)
  std::map<std::string, nlohmann::json> parameters;
  EvaluationContext context;
  std::string output_dir;
  // Which replicates keep their plot data in results.json: first (default; the report shows the
  // first replicate's plots), all, or none.
  std::string plots = "first";
  std::string origin = "command line";  // spec file path, for error messages
};

// Reads a YAML spec. Relative paths are resolved against the spec file's folder. Unknown keys
// and wrong types are InputErrors naming the file and the key, with a did-you-mean hint.
EvaluationSpec load_spec(const std::string& path);

// "[name=]kind: body", e.g. "lm: y ~ x1 + x2", "wage=lm: log(wage) ~ age", "mean: income".
AnalysisSpec parse_analysis(const std::string& text, std::size_t index, const std::string& where);

// Parses "name=file1,file2" from --synthetic.
CandidateSpec parse_candidate(const std::string& text);

// Applies one "METRIC.NAME=VALUE" (--param) to spec.parameters. VALUE is read as JSON (a number,
// true/false, a quoted string, a list) and otherwise taken as a bare string.
void add_param_assignment(EvaluationSpec& spec, const std::string& assignment);

// Checks cross-field consistency (at least one candidate, names unique, metric parameters name
// registered metrics). Throws InputError.
void validate_spec(const EvaluationSpec& spec);

nlohmann::json spec_to_json(const EvaluationSpec& spec);

// A starter spec (YAML text) for a confidential file, with its inferred column kinds. Names are
// YAML-quoted where needed; the confidential path is written relative to the folder of
// `spec_path` (where the spec will be written; empty = the current folder), because load_spec
// resolves relative paths against the spec's folder.
std::string starter_spec(const std::string& confidential_path, const ReadSettings& settings,
                         const std::string& spec_path = "");

}  // namespace synthaudit
