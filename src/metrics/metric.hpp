#pragma once
// The metric contract. A metric is a MetricSpec (name, family, documentation, typed parameters,
// declared once) plus a compute function. Every front end (CLI list-metrics/describe, the report,
// later the Python and R bindings) is generated from these declarations; nothing outside
// src/metrics/ names a specific metric.
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/limits.hpp"
#include "metrics/params.hpp"
#include "stats/edit_rule.hpp"
#include "stats/survey_design_spec.hpp"
#include "table/table.hpp"

namespace synthaudit {

namespace stats {
class NeighbourCache;  // stats/neighbour_cache.hpp
}
class ProgressSink;  // core/progress.hpp
class Communicator;  // core/communicator.hpp
class MetricMemo;    // metrics/metric_memo.hpp

// Families double as --metrics selectors.
// The families a user selects with --metrics: attack-disclosure holds the attacks against a
// control set (singling out, linkability, inference); sdc-risk the statistical disclosure
// control measures computed on the confidential data and each synthetic replicate alike.
enum class MetricFamily {
  kGeneral,
  kPropensity,
  kSpecific,
  kKeyDisclosure,
  kDistanceDisclosure,
  kAttackDisclosure,
  kSdcRisk
};
const char* to_string(MetricFamily family);
std::optional<MetricFamily> family_from_string(std::string_view name);

enum class SynthesisType { kFull, kPartial };
const char* to_string(SynthesisType type);

// One declared analysis for specific utility, e.g. {name: "wage_model", kind: "lm",
// formula: "log(wage) ~ age + factor(region)"} or {kind: "mean", column: "income"}.
struct AnalysisSpec {
  std::string name;
  // mean | proportion | quantile | total | lm | glm_logit | glm_probit | glm_cloglog |
  // glm_poisson | glm_gaussian | multinom | polr
  std::string kind;
  std::string formula;       // the models (lm, glm_*, multinom, polr)
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
  int threads = 0;        // 0 = all cores
  ResourceLimits limits;  // docs/limits.md: formulas and design matrices are checked against it
  std::vector<DisclosureScenario> scenarios;
  std::vector<AnalysisSpec> analyses;
  // Survey design columns of the confidential data (empty = not declared): the sampling weight
  // (numeric, finite, >= 0, not missing; checked before metrics run) and a household identifier.
  // They are design variables, not data to compare: metrics that use them say so in their docs.
  std::string weights;
  std::string household;
  // The sampling design beyond the weights (the spec's `design:`): strata, clusters and fpc, or
  // replicate weights; its columns are design variables too. Declared only with weights.
  stats::SurveyDesignSpec design;
  // Edit rules (the spec's `rules:`): checked against the confidential data's columns before any
  // metric runs (engine/data_checks.hpp), counted by the edit_rules metric.
  std::vector<stats::EditRuleSpec> rules;
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
  // The evaluation's shared nearest-neighbour searches (null: every search runs directly).
  stats::NeighbourCache* neighbours = nullptr;
  // Where long steps report done/total (null: nowhere).
  ProgressSink* progress = nullptr;
  // Work shared between this metric's calls on the same confidential table (null: none shared;
  // metrics/metric_memo.hpp).
  MetricMemo* memo = nullptr;
  // Whether the engine keeps this result's plot data (the `plots` setting; baseline draws and
  // size-matched subsamples never keep it). When false a metric may skip work that only feeds
  // details["plots"]; whatever plot data it still returns is dropped.
  bool plots = true;

  const Table& first_synthetic() const { return *synthetic.front(); }
};

// One number of a result: becomes one row of results.tsv.
struct MetricValue {
  std::string statistic;  // e.g. "S_pMSE", "ks_distance"
  std::string scope;      // "all", a column "age", a pair "age:income", "keys=a,b;target=t"
  double value;           // NaN prints as NA
  // For a share or rate of confidential (or holdout) records: how many records it counts, its
  // numerator. A share with a known denominator reveals that count (0.01 of 300 rows is 3
  // records), so output checking treats it as the count; results.json lists it as "records".
  // NaN for every other number.
  double records = NAN;
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
//   roc_log   {fpr, tpr} with both rates > 0, drawn on log-log axes (low false-positive rates);
//             with {series} one curve per series (several attacks overlaid)
// Keep plots summarised (binned, at most a few thousand records each). A plot record that stands
// for several data records carries their number in "count" (output checking drops records with
// fewer than its threshold); scatter, qq and ecdf records are taken to be individual values, and
// x/y/bin_start/bin_end/confidential/synthetic positions on the axis of the plot's scope
// columns to be data values (output checking keeps only those inside the data's safe range).
// Table convention. details["tables"] is an array of tables the reports render as they are (the
// HTML report under the metric, `report --format md` in its section), for results a reader wants
// laid out, e.g. one analysis's coefficients:
//   {"title": "...", "scope": "wage", "columns": ["estimand", ...], "rows": [[cells], ...]}
// A cell is text, a number, true/false, or an interval [lower, upper]. Keep them narrow (about ten
// short columns) and summarised; a metric that emits tables declares "tables" among its
// aggregate_details only when every cell is an aggregate (safe output withholds them otherwise).
nlohmann::json make_plot(const std::string& kind, const std::string& title,
                         const std::string& x_label, const std::string& y_label,
                         const std::string& scope = "all");

// Per-record output a parameter asked for (record_level): named values for every record of one
// data set, in file order. Kept out of the document (a million rows); front ends write it beside
// results.tsv (records.tsv, one line per record and field).
struct RecordValues {
  // What the values are about: a distance direction ("syn_to_conf": each synthetic record's
  // nearest confidential record) or a scenario's keys ("keys=a,b").
  std::string scope;
  std::string data;  // whose records: "confidential", "synthetic" or "holdout"
  // Values computed from the confidential data alone, the same for every candidate and
  // replicate: kept once.
  bool confidential_only = false;
  std::vector<std::string> fields;          // e.g. "nearest_row" (a 1-based row), "distance"
  std::vector<std::vector<double>> values;  // values[field][record]; NaN prints as NA

  void add_field(std::string name, std::vector<double> per_record) {
    fields.push_back(std::move(name));
    values.push_back(std::move(per_record));
  }
};

struct MetricResult {
  std::vector<MetricValue> values;
  std::vector<RecordValues> records;
  // Tables and plot data for the report: a JSON object; plots go in details["plots"] (above).
  // Keep it summarised (binned), never per-record beyond what a parameter asks for.
  nlohmann::json details = nlohmann::json::object();
  std::vector<std::string> warnings;

  void add(std::string statistic, std::string scope, double value) {
    values.push_back({std::move(statistic), std::move(scope), value});
  }
  // A number computed from `records` confidential (or holdout) records that reveals how many
  // (a weighted share, a ratio to a released share): MetricValue::records.
  void add(std::string statistic, std::string scope, double value, double records) {
    values.push_back({std::move(statistic), std::move(scope), value, records});
  }
  // A share of confidential (or holdout) records: `records` of `denominator`, times `scale`
  // (100 for a percentage); NaN when the denominator is 0.
  void add_share(std::string statistic, std::string scope, double records, double denominator,
                 double scale = 1.0) {
    values.push_back({std::move(statistic), std::move(scope),
                      denominator > 0 ? records / denominator * scale : NAN, records});
  }
};

enum class MetricGranularity {
  kPerReplicate,  // computed per synthetic replicate; the engine adds the mean over replicates
  kPerCandidate,  // computed once from all replicates of a candidate ("combined")
};

// Which value of a statistic is good. Most statistics are better the lower (a distance, a risk
// share) or the higher (an overlap, a coverage). Some have a target instead: a pMSE ratio of 1 is
// what a correct synthesis scores, and a value far below it means the synthetic data are closer
// to the real records than a fresh sample would be (a near-copy); an AUC of 0.5 is chance, and
// 0.3 is as distinguishable as 0.7. Ranking such a statistic "lower is better" would put a
// near-copy first, so candidates are ranked by their distance to the ideal.
enum class IdealKind { kLower, kHigher, kTarget };
// kTarget: how distance to the target is measured. kLinear: |value - target|. kRatio:
// |log(value / target)|, for ratios where 0.5 and 2 are equally far from 1.
enum class TargetScale { kLinear, kRatio };

struct Ideal {
  IdealKind kind = IdealKind::kLower;
  double target = 0.0;
  TargetScale scale = TargetScale::kLinear;

  static constexpr Ideal lower() { return {IdealKind::kLower, 0.0, TargetScale::kLinear}; }
  static constexpr Ideal higher() { return {IdealKind::kHigher, 0.0, TargetScale::kLinear}; }
  static constexpr Ideal at(double target, TargetScale scale = TargetScale::kLinear) {
    return {IdealKind::kTarget, target, scale};
  }
  // How far `value` is from ideal, smaller is better: value for lower, -value for higher, the
  // distance to the target otherwise (infinity for a ratio <= 0, which cannot be on the scale).
  double badness(double value) const;
};
const char* to_string(IdealKind kind);
const char* to_string(TargetScale scale);
// {"kind": "lower"|"higher"|"target", "target": t, "scale": "linear"|"ratio"} (the last two only
// for a target), and a plain-language phrase for people ("closer to 1 is better (ratio scale)").
nlohmann::json to_json(const Ideal& ideal);
// The inverse of to_json; a missing or malformed object reads as "lower" (documents written
// before ideals were declared carried only "better": "lower"|"higher", which `legacy_better`
// takes).
Ideal ideal_from_json(const nlohmann::json& object, const std::string& legacy_better = "lower");
std::string describe_ideal(const Ideal& ideal);

// What a headline value is compared with: what data that carry no synthesis at all score.
//   kHoldout:   the engine runs the metric with the holdout (a fresh real sample of the same
//               population) in place of the synthetic data, subsampled without replacement to the
//               synthetic size when the holdout is larger; for risk, what releasing real people
//               who were not in the confidential data would disclose.
//   kResample:  the engine runs the metric with resamples (with replacement) of the confidential
//               data of the synthetic size in place of the synthetic data: the utility a perfect
//               synthesiser reaches, which differs from the confidential data by sampling noise
//               only (the subsample-equivalence idea of NIST CRC's SDNist).
//   kStatistic: a statistic the metric itself computes against the holdout (`statistic`, same
//               scope), e.g. the holdout's own exact-copy share; used where the metric needs the
//               holdout as an input and cannot be re-run with it as the synthetic data.
//   kAnalytic:  a value theory gives (`value`), e.g. an AUC of 0.5 when there is no signal.
// The baseline's own sampling noise (a standard deviation) comes from the engine's replicate
// draws (kHoldout, kResample) or from a statistic the metric computes (`noise_statistic`).
// The plain-language notes of the two engine baselines, shared by every headline that uses them.
inline constexpr const char* kHoldoutNote =
    "the metric run with the holdout, a fresh real sample of the same population, in place of the "
    "synthetic data: what releasing real people who were not in the confidential data scores";
inline constexpr const char* kResampleNote =
    "the metric run with resamples of the confidential data of the synthetic size in place of the "
    "synthetic data: the value that sampling noise alone gives";

enum class BaselineKind { kNone, kHoldout, kResample, kStatistic, kAnalytic };
const char* to_string(BaselineKind kind);

struct Baseline {
  BaselineKind kind = BaselineKind::kNone;
  std::string statistic;        // kStatistic
  double value = 0.0;           // kAnalytic
  std::string noise_statistic;  // kStatistic, kAnalytic: the baseline's standard deviation
  std::string note;             // why this baseline, in plain language (for the report)

  static Baseline none() { return {}; }
  static Baseline holdout(std::string note) {
    return {BaselineKind::kHoldout, "", 0.0, "", std::move(note)};
  }
  static Baseline resample(std::string note) {
    return {BaselineKind::kResample, "", 0.0, "", std::move(note)};
  }
  static Baseline from_statistic(std::string statistic, std::string noise_statistic,
                                 std::string note) {
    return {BaselineKind::kStatistic, std::move(statistic), 0.0, std::move(noise_statistic),
            std::move(note)};
  }
  static Baseline analytic(double value, std::string noise_statistic, std::string note) {
    return {BaselineKind::kAnalytic, "", value, std::move(noise_statistic), std::move(note)};
  }
  // The reserved candidate name its values carry: "holdout" (kHoldout, kStatistic), "resample",
  // "analytic", or "" for none.
  std::string name() const;
};
// {"kind", "name", "statistic"?, "value"?, "noise_statistic"?, "note"}; null for kNone.
nlohmann::json to_json(const Baseline& baseline);

// How a headline value reads: a share in [0, 1] (shown as a percentage), a percentage already,
// or a plain number.
enum class Unit { kNumber, kShare, kPercent };
const char* to_string(Unit unit);

// A statistic the scorecard and the risk–utility map show for every candidate (its mean over
// replicates, or the combined value), with a plain-language reading and which value is good.
struct Headline {
  std::string statistic;
  std::string scope = "all";
  Ideal ideal = Ideal::lower();
  std::string reading;           // e.g. "share of synthetic records copied from a real person"
  std::string axis = "utility";  // "utility" or "risk": which axis of the risk–utility map
  Baseline baseline = Baseline::none();
  Unit unit = Unit::kNumber;
  // A gate: the value counts the findings of a test the metric made itself (corrected for
  // multiplicity there), so the default policy fails a candidate whose value is worse than the
  // analytic baseline. `gate_names` is a statistic reported per scope whose nonzero scopes the
  // verdict's reason names (e.g. the edit rules broken); "" = not a gate.
  std::string gate_names;
};

// What a statistic's scope string names (the `scope` column of results.tsv).
enum class ScopeKind {
  kAll,           // "all": the whole data set, or a summary over columns or scenarios
  kColumn,        // one column: "age"
  kColumnPair,    // two columns: "age:income"
  kColumnTriple,  // three columns: "age:sex:region"
  kColumnLevel,   // one level of a categorical column: "sex=F" (missing is "NA")
  kFeature,       // a model feature: a column, or a missing indicator "income_NA", "income_cna_1"
  kTableOrder,    // all tables of one order: "one-way", "two-way", "three-way"
  kScenario,      // a disclosure key set, with its target(s) where the statistic has them:
                  // "keys=age,sex", "keys=age,sex;target=income", "keys=age;targets=a,b"
  kAnalysis,      // one declared analysis: its name
  kEstimand,      // one estimand of an analysis: "ANALYSIS:ESTIMAND"
  kRecordGroup,   // the records an attack is scored on, ranked by isolation: "isolated_1%"
  kRule,          // one declared edit rule: "rule=NAME"
};
const char* to_string(ScopeKind kind);

// A statistic a metric can emit. `name` is the exact statistic name, or a pattern whose
// {a|b|c} groups each stand for one of the listed alternatives (for families such as
// "{conf|syn}_{mean|sd}"); `expand_statistic_name` lists the names a pattern stands for.
// `ideal` is empty for a descriptive number that has no better value (an estimate, a count, a
// fitted parameter): it is reported to be read, not ranked.
// What output checking (--safe-output, engine/safe_output.hpp) must know about a number: how
// many records it derives from. An aggregate derives from every record of its scope (a column, a
// level, the whole data), so only its scope can make it small; a count is itself a number of
// records; a quantile is one record's value (or two interpolated) deep inside the data; an extreme
// is one record's value at the edge (a minimum or maximum), which output checkers never release.
enum class OutputClass { kAggregate, kCount, kQuantile, kExtreme };
const char* to_string(OutputClass output);

struct StatisticSpec {
  std::string name;
  std::string meaning;  // plain language, one sentence
  std::optional<Ideal> ideal;
  std::vector<ScopeKind> scopes = {ScopeKind::kAll};
  OutputClass output = OutputClass::kAggregate;
};
std::vector<std::string> expand_statistic_name(const std::string& pattern);

// A published work (or, where parity with it is the point, a software release) a metric follows.
struct Reference {
  std::string authors;  // "Snoke, J., Raab, G. M., Nowok, B., Dibben, C. and Slavković, A."
  int year = 0;         // 0: undated (a software repository without releases)
  std::string title;
  std::string venue;     // journal with volume, issue and pages; proceedings; publisher
  std::string doi;       // without the https://doi.org/ prefix
  std::string url;       // when there is no DOI
  std::string software;  // software whose numbers are reproduced, e.g. "synthpop"
  std::string version;   // the version the tests compare against, e.g. "1.9-3"
  std::string used_for;  // what the metric takes from it, e.g. "pMSE and S_pMSE"
};
// "Authors (year). Title. Venue. doi:..." in one line, for people.
std::string format_reference(const Reference& reference);

using ComputeFn = std::function<MetricResult(const MetricInput&, const Params&)>;

// How a metric is computed from row partitions of its tables (a partitioned evaluation over MPI
// ranks, docs/mpi.md), for metrics whose statistics are functions of sums over records: counts
// and contingency tables, moments and co-moments, per-record scores summed. Each partition's
// sufficient statistics are computed where its rows are; one process merges them and computes
// the result. The merge is exact: the same values as `compute` on the whole tables, up to the
// order of floating-point sums (relative difference at most 1e-12), and bit-identical where the
// arithmetic is integer. A metric without this form runs on one process with every row gathered
// there.
struct MergeableForm {
  // The sufficient statistics of one partition, serialised (any layout: both ends are the same
  // build). `partition` holds one consecutive row range of every table (confidential, each
  // synthetic table, holdout), with the whole tables' schema and dictionaries.
  std::function<std::string(const MetricInput& partition, const Params&)> partial_state;
  // The result from the states of all partitions, in row order. `schema` is one partition's input:
  // read its column names, kinds, dictionaries and context, never its rows.
  std::function<MetricResult(const std::vector<std::string>& states, const MetricInput& schema,
                             const Params&)>
      finalize;
};

// How a metric is computed by every rank of a partitioned evaluation together, for statistics
// whose partial states would grow with the rows (the sorted values behind rank statistics): every
// rank runs `run` at once with its own partition (as in MergeableForm) and the communicator, and
// the ranks exchange what they need through its collectives, so that no rank holds much more than
// its share of the rows. The root's result is the metric's; it equals `compute` on the whole tables
// (bit-identical where the arithmetic allows, else within 1e-12 relative, as for MergeableForm).
// A partitioned run without whole tables uses it in preference to the mergeable form when
// `applies` says it can (the mergeable form, or gathering, otherwise).
struct CollectiveForm {
  // Whether the form computes this metric for these inputs and parameters. `schema` is the
  // root's partition: read its columns and context, not its rows.
  std::function<bool(const MetricInput& schema, const Params&)> applies;
  // Collective: every rank calls it, with its partition; only the root's result is used.
  std::function<MetricResult(const MetricInput& partition, const Params&, Communicator&)> run;
};

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
  // Reads the declared survey weights as weights although it declares no synthetic_weights
  // parameter (individual_risk's population frequencies): not listed among the metrics that
  // treat every row alike.
  bool uses_weights = false;
  std::vector<Headline> headlines;  // at most two or three per metric
  ComputeFn compute;
  // Set when the metric can be computed from row partitions (above); optional.
  std::optional<MergeableForm> mergeable;
  // Set when every rank can compute the metric together (above); optional, and only with a
  // mergeable form (which decides whether the metric can run without whole tables).
  std::optional<CollectiveForm> collective;
  // Every statistic the metric can emit (the registry test holds each metric to it) and the
  // published works it follows; list-metrics, describe, docs/metrics.md, results.json and the
  // report read them from here.
  std::vector<StatisticSpec> statistics;
  std::vector<Reference> references;
  // The members of MetricResult::details that hold aggregates only (no record's value, no count
  // below any threshold, no level names beyond those of the scopes): output checking keeps them
  // (after removing what names a rare level) and withholds every other member but "plots".
  std::vector<std::string> aggregate_details;
};

}  // namespace synthaudit
