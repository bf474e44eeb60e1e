#pragma once
// Subgroup scopes (`by:`): the general, specific and key-disclosure metrics run again within each
// level of each by-column and each combination of levels of several by-columns, on row subsets
// of the confidential data, every synthetic replicate and the holdout alike. Published estimates
// are by region, sex, age group; a synthesis can match the whole population and miss a group.
//
// Subgroup results are reported beside the metric's own (results.json `subgroups`, results.tsv
// rows whose scope starts with "by:LABEL;"), each with the subgroup's own holdout and resample
// baselines (engine/baselines.hpp), never headlined: the scorecard and the default rules read the
// whole-data results only, as the design's headlines are one number per candidate; a policy
// criterion may name a subgroup, and the verdict's judge_subgroups describes the worst one.
//
// The other families are not run in subgroups: the propensity models and the distance and
// attack-disclosure measures score the release as a whole (a record's nearest neighbour or an
// attacker's guess may lie outside its group, so a within-group run measures something else),
// and the SDC risk measures already work per key combination.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/evaluate.hpp"
#include "metrics/metric.hpp"
#include "spec/spec.hpp"

namespace synthaudit {

// One subgroup: one level of each of some by-columns. Missing values form their own level,
// named "NA" (as in a column-level scope); combinations that occur only in synthetic data are not
// subgroups (the level checks already report such levels).
struct Subgroup {
  std::vector<std::string> columns;
  std::vector<std::string> levels;
  std::string label;  // "sex=female", "sex=female,region=north"
};

// The rows of one subgroup in every table, 0-based and ascending.
struct SubgroupRows {
  std::vector<std::size_t> confidential;
  std::optional<std::vector<std::size_t>> holdout;
  std::vector<std::vector<std::vector<std::size_t>>> synthetic;  // [candidate][replicate]
};

// The subgroups of an evaluation: for the by-columns c1..ck, every non-empty subset of them in
// the order given (c1, c2, ..., then c1&c2, ..., then all k), and within a subset every
// combination of levels found in the confidential data, in dictionary order with missing last.
class Subgroups {
 public:
  // Checks the by-columns (named, categorical, not all missing: InputError naming the `by:` key)
  // and finds the subgroups. Partial synthesis keeps row correspondence: a replicate's rows of a
  // subgroup are the confidential rows of it.
  Subgroups(const EvaluationSpec& spec, const EvaluationData& data);

  const std::vector<Subgroup>& groups() const { return groups_; }
  // The rows of groups()[index] in every table.
  SubgroupRows rows(std::size_t index) const;
  // The document's `subgroups` member: {by, min_rows, families, groups: [{label, by, levels}],
  // note}.
  nlohmann::json summary(std::size_t min_rows) const;

  // A table's rows grouped by subgroup: those of the subset's group g are
  // rows[start[g] .. start[g + 1]).
  struct Buckets {
    std::vector<std::size_t> rows;
    std::vector<std::size_t> start;
  };

 private:
  struct ColumnSet {
    Buckets confidential;
    std::optional<Buckets> holdout;
    std::vector<std::vector<Buckets>> synthetic;  // [candidate][replicate]; empty for partial
  };
  const EvaluationData& data_;
  std::vector<std::string> by_;
  bool partial_ = false;
  std::vector<ColumnSet> sets_;  // one per non-empty subset of the by-columns
  std::vector<Subgroup> groups_;
  std::vector<std::pair<std::size_t, std::size_t>> place_;  // group -> (set, group in the set)
};

// Runs one metric in every subgroup and returns the document's `subgroups` member of its entry:
// [{label, by, levels, rows: {confidential, holdout?}, suppressed?,
//   candidates: [{name, suppressed?, replicates: [{replicate, values, warnings}], mean?,
//                 combined?}]}].
// A subgroup whose confidential part (or a candidate's synthetic part, in any replicate; or the
// holdout's, for a metric that needs it) has fewer than `min_rows` rows is suppressed with the
// reason, and its size is not given. Seeds are the whole-data run's, so a subgroup's numbers are
// those of the same metric run on files holding only the subgroup's rows. The baselines the
// metric's headlines ask for follow the candidates, drawn from the subgroup's rows at its
// synthetic size (the median of its replicates' rows; none below `min_rows`, said in
// `baseline_notes`), with candidates scored at the holdout's size where that is smaller. The
// details, plots and per-record outputs of subgroup runs are left out (the document would grow
// with every group).
nlohmann::json run_in_subgroups(const MetricSpec& metric, const Params& params,
                                const EvaluationSpec& spec, const EvaluationData& data,
                                const Subgroups& subgroups, std::size_t min_rows,
                                const ProgressFn& progress, ProgressSink* work_progress);

}  // namespace synthaudit
