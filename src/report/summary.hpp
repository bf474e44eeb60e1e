#pragma once
// The executive summary of a results document: the verdict, each candidate's status and reasons,
// and the headline numbers with their ideal and baseline. The terminal summary that `evaluate`
// prints and the opening of the Markdown report are two renderings of the same view. Like the
// rest of the report layer it reads only the document and names no metric.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace synthaudit {

// Plain notation for people: at most four significant digits, no exponent (16,384 rather than
// 1.638e+04; whole numbers in full, with thousands separators), "NA" for a missing value.
std::string plain_number(double value);

// A headline value in its unit: "share" (0-1) as a percentage ("48.1 %"), "percent" with a
// percent sign, anything else as a plain number.
std::string value_in_unit(double value, const std::string& unit);

// The unit a metric's headline declares ("share", "percent", "number"); "" when the document
// was written before units were declared, and its values are then shown as plain numbers.
std::string headline_unit(const nlohmann::json& document, const std::string& metric,
                          const std::string& statistic, const std::string& scope);

struct ExecutiveView {
  struct Candidate {
    std::string name;
    std::string status;  // pass | review | fail, or "" when the document has no verdict
    std::vector<std::string> reasons;
    // One line each: categorical levels a candidate has that the confidential data lack (or the
    // reverse), summarised from the document's warnings.
    std::vector<std::string> level_findings;
    // The checks before the metrics that concern this candidate (it is the confidential data,
    // or copies its rows), when the verdict does not already give them as reasons.
    std::vector<std::string> data_findings;
    // With subgroups (by:): the subgroup farthest from its own baseline, with how many of the
    // subgroup comparisons lie beyond the review margin (result/verdict.hpp: judge_subgroups);
    // "" without subgroups.
    std::string worst_subgroup;
  };
  struct Headline {
    std::string label;            // statistic [scope], with the metric where two share it
    std::string statistic_label;  // statistic [scope]
    std::string metric;
    std::string axis;         // utility | risk
    std::string ideal_short;  // "lower", "higher", "near 0.5", "near 1 (ratio)"
    std::string ideal_text;   // the scorecard's phrase
    std::string reading;
    std::vector<std::string> values;  // per candidate, in the document's order
    std::string baseline_name;        // "" when the headline has no baseline
    std::string baseline_value;
    std::string baseline_note;
    // When the baseline is a holdout smaller than the synthetic data, the verdict compares it
    // with each candidate scored on subsamples of the holdout's size: those values, shown on a
    // row of their own beside the baseline ("" for a candidate without one), and the size.
    std::vector<std::string> compared_values;
    std::string compared_rows;
  };
  std::string tool_line;  // version, candidates, metrics, sizes, time
  bool has_verdict = false;
  std::string recommended;    // "" when none
  std::string policy_source;  // default | spec | a policy file
  // Metrics whose default risk checks could not be made (not selected, or skipped).
  std::vector<std::string> checks_not_run;
  std::vector<std::string> ranking_lines;  // without a verdict: each candidate's ranks
  std::vector<Candidate> candidates;
  // The checks before the metrics that concern the data as a whole (a value that looks like an
  // undeclared missing code, a holdout that is part of the confidential data).
  std::vector<std::string> data_findings;
  // What was read as missing by a declared code or by a file's own declaration: one line per
  // file, "path (role): column code ×count, ...".
  std::vector<std::string> missing_lines;
  std::vector<Headline> headlines;     // risk first, then utility; document order within each
  std::vector<std::string> baselines;  // "holdout: what it is (N rows)"
  std::size_t data_warnings = 0;       // the evaluation's own warnings
  std::size_t metric_warnings = 0;     // warnings of metric results
  std::size_t skipped_metrics = 0;
};

ExecutiveView executive_view(const nlohmann::json& document);

struct OutputPaths {
  std::string results_json, results_tsv, report_html;
};

// What `evaluate` prints at the end: the verdict, the headlines with ideal and baseline, the
// warning count and where to read them, and the output paths. Short enough for a terminal.
std::string render_summary(const nlohmann::json& document, const OutputPaths& paths);

}  // namespace synthaudit
