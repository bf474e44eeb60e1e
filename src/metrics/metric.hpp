#pragma once
// The metric contract. A metric is a MetricSpec (name, family, documentation, typed parameters,
// declared once) plus a compute function. Every front end (CLI list-metrics/describe, the report,
// later the Python and R bindings) is generated from these declarations; nothing outside
// src/metrics/ names a specific metric.
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "metrics/params.hpp"
#include "table/table.hpp"

namespace synthaudit {

// Families double as --metrics selectors.
enum class MetricFamily { kGeneral, kPropensity, kSpecific, kKeyDisclosure, kDistanceDisclosure };
const char* to_string(MetricFamily family);
std::optional<MetricFamily> family_from_string(std::string_view name);

enum class SynthesisType { kFull, kPartial };
const char* to_string(SynthesisType type);

// One declared analysis for specific utility, e.g. {name: "wage_model", kind: "lm",
// formula: "log(wage) ~ age + factor(region)"} or {kind: "mean", column: "income"}.
struct AnalysisSpec {
  std::string name;
  std::string kind;          // mean | proportion | quantile | total | lm | glm_logit
  std::string formula;       // lm / glm_logit
  std::string column;        // mean / proportion / quantile / total
  double probability = 0.5;  // quantile
};

// One disclosure scenario: what the intruder knows (keys) and wants to learn (targets).
struct DisclosureScenario {
  std::vector<std::string> keys;
  std::vector<std::string> targets;
};

// Evaluation-wide settings a metric may read (from the spec or the CLI).
struct EvaluationContext {
  SynthesisType synthesis = SynthesisType::kFull;
  std::uint64_t seed = 1;
  int threads = 0;  // 0 = all cores
  std::vector<DisclosureScenario> scenarios;
  std::vector<AnalysisSpec> analyses;
};

// What a metric sees. Per-replicate metrics get exactly one synthetic table; per-candidate
// metrics (combining rules across replicates) get all m replicates of one candidate.
// The engine guarantees that every synthetic table and the holdout have the confidential
// table's columns, in the same order and of the same kind, with shared dictionaries: column i of
// one is column i of the others.
struct MetricInput {
  const Table& confidential;
  std::vector<const Table*> synthetic;
  const Table* holdout = nullptr;  // optional
  const EvaluationContext& context;
  std::string candidate;
  // Seed for this (metric, candidate, replicate); derived by the engine from context.seed so that
  // results do not depend on the order or thread count in which metrics run.
  std::uint64_t seed = 1;

  const Table& first_synthetic() const { return *synthetic.front(); }
};

// One number of a result: becomes one row of results.tsv.
struct MetricValue {
  std::string statistic;  // e.g. "S_pMSE", "ks_distance"
  std::string scope;      // "all", a column "age", a pair "age:income", "keys=a,b;target=t"
  double value;           // NaN prints as NA
};

// Plot data convention. details["plots"] is an array of plot objects that the report renders
// with a fixed Vega-Lite template per kind; metrics never emit presentation specs.
//   {"kind": K, "title": "...", "x_label": "...", "y_label": "...", "scope": "age",
//    "data": [records]}
// Kinds and their record fields (dataset is "confidential", "synthetic" or "holdout"):
//   histogram {bin_start, bin_end, dataset, density}   density {x, dataset, density}
//   ecdf      {x, dataset, cdf}                          qq      {confidential, synthetic}
//   bars      {level, dataset, share}                    heatmap {row, column, value}
//   contour   {x, y, dataset, density} on a grid         roc     {fpr, tpr}
//   scatter   {x, y}                                     line    {x, y, series}
//   forest    {estimand, dataset, estimate, lower, upper}
// Keep plots summarised (binned, at most a few thousand records each).
nlohmann::json make_plot(const std::string& kind, const std::string& title,
                         const std::string& x_label, const std::string& y_label,
                         const std::string& scope = "all");

struct MetricResult {
  std::vector<MetricValue> values;
  // Tables and plot data for the report: a JSON object; plots go in details["plots"] (above).
  // Keep it summarised (binned), never per-record beyond what a parameter asks for.
  nlohmann::json details = nlohmann::json::object();
  std::vector<std::string> warnings;

  void add(std::string statistic, std::string scope, double value) {
    values.push_back({std::move(statistic), std::move(scope), value});
  }
};

enum class MetricGranularity {
  kPerReplicate,  // computed per synthetic replicate; the engine adds the mean over replicates
  kPerCandidate,  // computed once from all replicates of a candidate ("combined")
};

enum class Better { kLower, kHigher };
const char* to_string(Better better);

// A statistic the scorecard and the risk–utility map show for every candidate (its mean over
// replicates, or the combined value), with a plain-language reading and which direction is good.
struct Headline {
  std::string statistic;
  std::string scope = "all";
  Better better = Better::kLower;
  std::string reading;           // e.g. "share of synthetic records copied from a real person"
  std::string axis = "utility";  // "utility" or "risk": which axis of the risk–utility map
};

using ComputeFn = std::function<MetricResult(const MetricInput&, const Params&)>;

struct MetricSpec {
  std::string name;  // registry key, snake_case, e.g. "ks_distance"
  MetricFamily family;
  std::string summary;  // one line
  std::string doc;      // formula, how to read it, reference (Markdown)
  std::vector<ParamSpec> params;
  MetricGranularity granularity = MetricGranularity::kPerReplicate;
  bool needs_holdout = false;             // skipped with a warning when no holdout is given
  bool needs_row_correspondence = false;  // only for partial synthesis
  bool needs_scenarios = false;           // needs disclosure keys/targets
  bool needs_analyses = false;            // needs declared analyses
  std::vector<Headline> headlines;        // at most two or three per metric
  ComputeFn compute;
};

}  // namespace synthaudit
