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

// One criterion of a release policy (docs/config.md): a metric's statistic (optionally one
// scope) must stay below `max`, above `min`, or within `tolerance` of `target`; with
// `relative_to`, the bound is an offset from that baseline's value (max: 0.01 relative_to holdout
// = at most one point above the holdout).
struct PolicyCriterion {
  std::string id;  // given, or metric.statistic[scope]
  std::string metric;
  std::string statistic;
  std::string scope = "all";
  std::string bound;  // "max", "min" or "target"
  double value = 0.0;
  std::optional<double> tolerance;  // target only
  std::string relative_to;          // "", "holdout" or "resample"
  // A subgroup of `by:` ("sex=female", "sex=female,region=north"): the criterion reads the
  // metric's values in that subgroup and, with relative_to, the subgroup's own baseline.
  std::string subgroup;
  std::string key;  // "policy.criteria[2]", for error messages
};

// The default rule for record-level disclosure risk: every risk headline that has a baseline is
// compared with it. The excess is how much further from the headline's ideal the candidate is
// than the baseline. Within review_sd baseline standard deviations: pass; beyond that: review;
// beyond both fail_sd standard deviations and fail_relative times the baseline value: fail.
struct RiskMargins {
  double review_sd = 2.0;
  double fail_sd = 4.0;
  double fail_relative = 0.25;
};

// How the verdict controls the error over all tests of one candidate (every permutation-tested
// headline of every replicate): Holm's step-down (family-wise, the default), Bonferroni
// (family-wise) or Benjamini-Hochberg (false discovery rate).
inline const std::vector<std::string> kMultiplicityMethods = {"holm", "bonferroni",
                                                              "benjamini-hochberg"};

// The verdict's utility floor: a candidate's share of utility kept is, per utility headline
// that can tell them apart, how far its value goes from the independent-marginals baseline (0:
// no relationship between columns kept) to the perfect-synthesis reference (1: the resample
// baseline, or the value theory gives), and the median over those headlines is judged. Below
// `fail` beyond the noise (the median of each headline's share plus two standard errors) the
// candidate fails (not fit for use, never recommended), below `review` it is sent to review. On
// SD2011 synthpop's CART synthesis keeps about 0.96, an independent-marginals file about 0
// (docs/config.md). Part of the default checks: `default_checks: false` turns it off too.
struct UtilityFloor {
  bool enabled = true;
  double fail = 0.25;
  double review = 0.5;
};

struct ReleasePolicy {
  std::string source = "default";  // "default", "spec" or the policy file's path
  bool default_checks = true;      // apply the default record-level risk rule
  RiskMargins margins;
  // The permutation-tested checks: fail when the corrected p-value is at most fail_level and
  // the excess is material, review when it is at most review_level.
  std::string multiplicity = "holm";
  double fail_level = 0.01;
  double review_level = 0.05;
  std::vector<PolicyCriterion> criteria;
  UtilityFloor utility_floor;
  // A candidate cannot pass when a default risk family (key, distance or attack disclosure, or
  // statistical disclosure control risk) did not run at all: not selected, or skipped for want of
  // an input (keys, a holdout); it is sent to review saying which. False lets it pass, the
  // families still listed in verdict.not_run.
  bool require_default_checks = true;
};

// The reserved name of the utility floor's baseline (engine/evaluate.cpp).
inline const std::string kIndependentMarginalsBaseline = "independent_marginals";

// The default smallest subgroup computed: below about 50 records the sampling noise of a share
// (a standard error of up to 0.07) is as large as the differences the utility metrics look for.
inline constexpr std::size_t kDefaultByMinRows = 50;

// The default bound on the re-splits of the verdict's permutation null. Under the null a test
// stops after about 10 / p re-splits, so most stop within a few dozen; a clear excess runs them
// all (each re-runs the metric), and when none is as extreme the noise margins decide whether it
// fails (result/verdict.cpp), since 200 re-splits cannot resolve the p-value a correction over
// dozens of tests asks for.
inline constexpr int kDefaultNullDraws = 199;

// The reserved candidate names of the baselines (a user candidate may not use them).
inline const std::vector<std::string> kBaselineNames = {"holdout", "resample"};

// One of several related tables (the spec's `tables:`): households, the persons in them, the
// spells of each person. Every dataset is then a folder holding one file per table.
struct RelatedTable {
  std::string name;
  std::vector<std::string> primary_key;
  std::string parent;                    // "" for the root table
  std::vector<std::string> foreign_key;  // this table's columns holding the parent's key
  std::string where;  // its declaration, for messages: "spec.yaml: tables.persons"
};

struct EvaluationSpec {
  std::string confidential;
  std::optional<std::string> holdout;
  std::vector<CandidateSpec> candidates;
  ReadSettings read;
  // Partial synthesis: the columns that were replaced (the others must equal the confidential
  // data row by row). Empty: the columns equal row by row are taken as not synthesised.
  std::vector<std::string> synthesised_columns;
  // Related tables, root first, each the parent of the next (engine/related_tables.hpp); empty:
  // each dataset is one table.
  std::vector<RelatedTable> tables;
  std::string metadata;  // optional SDV metadata JSON with column kinds
  std::vector<std::string> metrics = {"all"};
  // metric name -> its parameters as given (validated against the declaration before running)
  std::map<std::string, nlohmann::json> parameters;
  // The `disclosure_matching:` block (numeric_tolerance, relative_tolerance, missing_matches):
  // one matching rule for the key-disclosure family (and the attack-disclosure metrics that declare
  // it), given to each metric that declares the parameter; its own `parameters:` entry wins.
  nlohmann::json disclosure_matching = nlohmann::json::object();
  EvaluationContext context;
  std::string output_dir;
  // Which replicates keep their plot data in results.json: first (default; the report shows the
  // first replicate's plots), all, or none.
  std::string plots = "first";
  // Replicate draws of the holdout and resample baselines (0 = no engine baselines).
  int baseline_draws = 5;
  // At most this many re-splits of each replicate with the holdout for the verdict's permutation
  // null (engine/permutation_null.hpp); 0 = no permutation null (the noise rule instead).
  int null_draws = kDefaultNullDraws;
  // Output checking for secure environments (engine/safe_output.hpp): only aggregates pass, numbers
  // and categories from fewer than `safe_output_threshold` records are withheld.
  bool safe_output = false;
  std::size_t safe_output_threshold = 10;
  // Subgroups (`by:`): categorical columns within whose levels, and each combination of their
  // levels, the general, specific and key-disclosure metrics run again as extra scopes
  // (engine/subgroups.hpp). A subgroup with fewer than `by_min_rows` confidential or synthetic
  // rows is reported as suppressed, not computed.
  std::vector<std::string> by;
  std::size_t by_min_rows = kDefaultByMinRows;
  ReleasePolicy policy;
  std::string origin = "command line";  // spec file path, for error messages
};

// Reads a release policy file (the `policy:` block of a spec, as its own YAML file).
// Size and YAML shape are bounded by `limits` (input_bytes, yaml_depth, yaml_nodes); a key given
// twice is an error.
ReleasePolicy load_policy(const std::string& path, const ResourceLimits& limits = {});

// Checks a policy against the registry: known metrics, a bound, relative_to a baseline the
// metric has. Statistic and scope names are checked against the results (result/verdict.hpp).
void validate_policy(const ReleasePolicy& policy, const std::string& where);

// Reads a YAML spec. Relative paths are resolved against the spec file's folder. Unknown keys
// and wrong types are InputErrors naming the file and the key, with a did-you-mean hint.
// The spec's `limits:` block (docs/limits.md) starts from `limits`, which also bound the spec
// file itself (input_bytes, yaml_depth, yaml_nodes); a key given twice is an error.
EvaluationSpec load_spec(const std::string& path, const ResourceLimits& limits = {});

// A seed: an integer in [0, 2^64 - 1]; anything else (negative, larger, not a number) is an
// InputError naming `where`.
std::uint64_t parse_seed(const std::string& text, const std::string& where);

// A thread count: an integer >= 0 (0 = all cores); negative is an InputError. Counts above the
// machine are kept here and capped by cap_threads.
int parse_threads(const std::string& text, const std::string& where);

// Caps spec.context.threads to the machine's threads; returns the warning to show when it did
// ("" otherwise). More threads than cores would only cost memory and, far above, crash OpenMP.
std::string cap_threads(EvaluationSpec& spec);

// "[name=]kind: body", e.g. "lm: y ~ x1 + x2", "wage=lm: log(wage) ~ age", "mean: income".
AnalysisSpec parse_analysis(const std::string& text, std::size_t index, const std::string& where);

// Parses "name=file1,file2" from --synthetic.
CandidateSpec parse_candidate(const std::string& text);

// Applies one "METRIC.NAME=VALUE" (--param) to spec.parameters. VALUE is read as JSON (a number,
// true/false, a quoted string, a list) and otherwise taken as a bare string.
void add_param_assignment(EvaluationSpec& spec, const std::string& assignment);

// The keys of the disclosure_matching block.
inline const std::vector<std::string> kDisclosureMatchingKeys = {
    "numeric_tolerance", "relative_tolerance", "missing_matches"};

// The parameters `metric` runs with, as given: the disclosure_matching values it declares (a
// key-disclosure or attack-disclosure metric), overridden by its own entry in spec.parameters.
nlohmann::json given_parameters(const EvaluationSpec& spec, const MetricSpec& metric);

// The analysis kinds parse_analysis takes.
inline const std::vector<std::string> kAnalysisKinds = {
    "mean",       "proportion",  "quantile",    "total",        "lm",       "glm_logit",
    "glm_probit", "glm_cloglog", "glm_poisson", "glm_gaussian", "multinom", "polr"};

// A column kind as the spec's `columns:` gives it (numeric, categorical and their synonyms).
ColumnKind parse_kind(const std::string& text, const std::string& where);

// Adds one missing code of `column`: text that reads whole as a finite number is a numeric code
// (it also matches "99.0" for 99), other text (DK, Refused) is compared with the whole field.
void add_missing_code(ReadSettings& read, const std::string& column, const std::string& text,
                      const std::string& where);

// A release policy given as a mapping (a spec's `policy:` block, or a binding's dict); messages
// name `file: key`.
ReleasePolicy policy_from_json(const nlohmann::json& value, const std::string& file,
                               const std::string& key);

// Edit rules (docs/config.md, "Edit rules"): a list of {name, when, then, severity, group_by}
// (a spec's `rules:` block, or a binding's list); messages name `where[i]`. Names are required,
// unique, and text; the expressions are checked against the data later (engine/data_checks).
std::vector<stats::EditRuleSpec> rules_from_json(const nlohmann::json& value,
                                                 const std::string& where);
// A rules file (`--rules FILE`): a YAML list of rules, or a mapping whose one key is `rules:`.
std::vector<stats::EditRuleSpec> load_rules(const std::string& path,
                                            const ResourceLimits& limits = {});

// Related tables (docs/config.md, "Households and related tables"): a mapping table name ->
// {primary_key, parent, foreign_key} (keys: one column or a list), as the spec's `tables:` block
// or a binding gives it; messages name `where`. Returned root first, each table the parent of the
// next: one root, every parent declared, one child per table (a chain), a foreign key as long as
// its parent's primary key.
std::vector<RelatedTable> related_tables_from_json(const nlohmann::json& value,
                                                   const std::string& where);
// A tables file (`--tables FILE`): a YAML mapping of tables, or a mapping whose one key is
// `tables:`.
std::vector<RelatedTable> load_related_tables(const std::string& path,
                                              const ResourceLimits& limits = {});

// The read options of text files, as the spec's `read:` block and the command line's --delimiter,
// --decimal, --encoding and --na give them; each bad value is an InputError starting with
// `where`. A delimiter is one character ("tab" or "\t" for a tab), or "auto" (detected); it
// cannot be a quote or a line break. A decimal mark is "." or ",", or "auto".
char parse_delimiter(const std::string& text, const std::string& where);
char parse_decimal_mark(const std::string& text, const std::string& where);
// Missing-value spellings: UTF-8 text without control characters (a field with a line break or
// a tab cannot be meant); "" is the empty field.
std::vector<std::string> checked_missing_values(std::vector<std::string> spellings,
                                                const std::string& where);
// Checks that the delimiter and the decimal mark, where both are given, differ.
void check_read_options(const ReadSettings& read, const std::string& where);

// Checks cross-field consistency (at least one candidate, names unique, metric parameters name
// registered metrics). Throws InputError.
void validate_spec(const EvaluationSpec& spec);

nlohmann::json spec_to_json(const EvaluationSpec& spec);
nlohmann::json policy_to_json(const ReleasePolicy& policy);

// A starter spec (YAML text) for a confidential file, with its inferred column kinds. Names are
// YAML-quoted where needed; the confidential path is written relative to the folder of
// `spec_path` (where the spec will be written; empty = the current folder), because load_spec
// resolves relative paths against the spec's folder.
std::string starter_spec(const std::string& confidential_path, const ReadSettings& settings,
                         const std::string& spec_path = "");

}  // namespace synthaudit
