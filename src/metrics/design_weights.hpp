#pragma once
// The sampling weights the estimate-type metrics use (spec key weights:, --weights): the
// confidential data's declared weight column, and for a synthetic table (or the holdout, or a
// baseline resample standing in for it) its own column of the same name or none, as the metric's
// synthetic_weights parameter says:
//   auto (default): the table's own weight column when every value is finite and >= 0 and some
//                   value is positive (a synthesiser that carried the weights along), else
//                   unweighted, with a warning;
//   own:            the table's own weight column; an error when it is not usable as weights;
//   none:           unweighted (every row weight 1), the synthetic data as a simple random sample.
// The weight, household and design: columns (strata, clusters, fpc, replicate weights) are design
// variables, not data: comparisons skip them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metric.hpp"
#include "metrics/params.hpp"
#include "stats/survey_design.hpp"

namespace synthaudit {

struct DesignWeights {
  std::optional<std::size_t> column;  // the weight column's index; none when not declared
  std::vector<double> confidential;   // empty when not declared
  std::vector<double> synthetic;      // empty when the synthetic table is unweighted
  // The designs the variances use (stats/survey_design.hpp). Confidential: the declared design
  // (design:), or weights alone as svydesign(ids = ~1); null without weights. Synthetic (or
  // holdout, or a baseline standing in for it), when it uses its own weights: its own strata,
  // clusters and fpc columns under the declared design when they form a valid design (as synthpop's
  // syn.strata carries strata along), else its weights alone (with a warning); replicate weights
  // describe the confidential sample only, so a replicate design's synthetic side is its weights
  // alone. Null when the synthetic table is unweighted.
  std::shared_ptr<const stats::SurveyDesign> confidential_design, synthetic_design;
  bool declared() const { return column.has_value(); }
};

// What the results say about the designs used: {"confidential": ..., "synthetic": [...]}.
nlohmann::json design_summary(const MetricInput& in, const std::vector<DesignWeights>& weights);

// Whether column `c` of the confidential table is one the design declares (weights:,
// household:): a design variable, not data, so per-column comparisons leave it out.
bool is_design_column(const MetricInput& in, std::size_t c);

// The synthetic_weights parameter, for the metrics that read it.
ParamSpec synthetic_weights_param();

// Weights for one confidential/synthetic pair; warnings (auto falling back to unweighted) are
// appended to `warnings`. Throws InputError for synthetic_weights = own with an unusable column.
DesignWeights design_weights(const MetricInput& in, const Table& synthetic, const Params& params,
                             std::vector<std::string>& warnings);

// What design_weights decides from about a synthetic table's own weight column. Facts of
// consecutive row ranges merge in row order (merge_after), so that a row-partitioned evaluation
// decides, warns and fails exactly as one process does on the whole table.
struct WeightColumnFacts {
  bool numeric = true;
  std::uint64_t rows = 0;
  bool has_bad_row = false;      // a missing, infinite or negative weight
  std::uint64_t first_bad = 0;   // its 0-based row within these facts' rows
  double first_bad_value = 0.0;  // and its value
  bool any_positive = false;
  // These facts followed by those of the rows right after them (default facts, of no rows, are
  // the identity: merging starts from them).
  void merge_after(const WeightColumnFacts& later);
};
WeightColumnFacts weight_column_facts(const Column& weights);
class StateWriter;
class StateReader;
void write_facts(StateWriter& out, const WeightColumnFacts& facts);
WeightColumnFacts read_facts(StateReader& in);

// Whether `synthetic`'s own weight column serves as its weights, given the facts of the whole
// column: design_weights' decision, with its warning and its InputError (synthetic_weights = own).
// False when no weights are declared or synthetic_weights = none.
bool use_own_weights(const MetricInput& in, const Table& synthetic, const WeightColumnFacts& facts,
                     const Params& params, std::vector<std::string>& warnings);
// Whether the decision needs the synthetic table's own weight column at all (weights declared,
// synthetic_weights not none, the column numeric): a partition then sums with both weightings.
bool own_weights_possible(const MetricInput& in, const Params& params);

// The sentence every weighted metric's doc ends with.
extern const char* const kWeightsDoc;

}  // namespace synthaudit
