#include "metrics/design_weights.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/partial_state.hpp"

namespace synthaudit {

namespace {

// Why a column with these facts cannot serve as sampling weights; empty when it can.
std::string unusable_because(const WeightColumnFacts& facts) {
  if (!facts.numeric) return "it is not numeric";
  if (facts.has_bad_row)
    return "row " + std::to_string(facts.first_bad + 1) + " is " +
           (std::isnan(facts.first_bad_value) ? std::string("missing")
                                              : format_number(facts.first_bad_value));
  return facts.any_positive ? std::string() : std::string("no row has a positive weight");
}

}  // namespace

const char* const kWeightsDoc =
    " Survey weights: with weights: declared, the estimates are design-weighted as R's survey "
    "package with svydesign(ids = ~1, weights = ~w) (Lumley 2004), standard errors by Taylor "
    "linearisation, or under the declared design: (strata, clusters and fpc as svydesign; "
    "replicate weights as svrepdesign) where the metric reports standard errors; "
    "synthetic_weights says whether the synthetic data carry their own weight "
    "column (auto: when usable; own; none), and the weight and household columns are not "
    "compared, nor are the design: columns.";

bool is_design_column(const MetricInput& in, std::size_t c) {
  const std::string& name = in.confidential.column(c).name;
  if ((!in.context.weights.empty() && name == in.context.weights) ||
      (!in.context.household.empty() && name == in.context.household))
    return true;
  if (!in.context.design.declared()) return false;
  const auto design = stats::design_columns(in.context.design, in.confidential);
  return std::find(design.begin(), design.end(), c) != design.end();
}

ParamSpec synthetic_weights_param() {
  return {.name = "synthetic_weights",
          .type = ParamType::kString,
          .default_value = std::string("auto"),
          .doc =
              "with weights: declared, the synthetic data's weights: auto (its own weight "
              "column when usable, else unweighted with a warning), own (its own column, an "
              "error when unusable), none (unweighted)",
          .choices = {"auto", "own", "none"}};
}

void WeightColumnFacts::merge_after(const WeightColumnFacts& later) {
  numeric = numeric && later.numeric;
  if (!has_bad_row && later.has_bad_row) {
    has_bad_row = true;
    first_bad = rows + later.first_bad;
    first_bad_value = later.first_bad_value;
  }
  any_positive = any_positive || later.any_positive;
  rows += later.rows;
}

WeightColumnFacts weight_column_facts(const Column& weights) {
  WeightColumnFacts facts;
  facts.rows = weights.size();
  if (!weights.is_numeric()) {
    facts.numeric = false;
    return facts;
  }
  for (std::size_t row = 0; row < weights.numeric.size(); ++row) {
    const double value = weights.numeric[row];
    if (!std::isfinite(value) || value < 0) {
      facts.has_bad_row = true;
      facts.first_bad = row;
      facts.first_bad_value = value;
      return facts;  // what follows cannot change the decision or the message
    }
    facts.any_positive = facts.any_positive || value > 0;
  }
  return facts;
}

void write_facts(StateWriter& out, const WeightColumnFacts& facts) {
  out.boolean(facts.numeric);
  out.u64(facts.rows);
  out.boolean(facts.has_bad_row);
  out.u64(facts.first_bad);
  out.f64(facts.first_bad_value);
  out.boolean(facts.any_positive);
}

WeightColumnFacts read_facts(StateReader& in) {
  WeightColumnFacts facts;
  facts.numeric = in.boolean();
  facts.rows = in.u64();
  facts.has_bad_row = in.boolean();
  facts.first_bad = in.u64();
  facts.first_bad_value = in.f64();
  facts.any_positive = in.boolean();
  return facts;
}

bool own_weights_possible(const MetricInput& in, const Params& params) {
  if (in.context.weights.empty() || params.get_string("synthetic_weights") == "none") return false;
  return in.confidential.column(in.confidential.index_of(in.context.weights)).is_numeric();
}

bool use_own_weights(const MetricInput& in, const Table& synthetic, const WeightColumnFacts& facts,
                     const Params& params, std::vector<std::string>& warnings) {
  if (in.context.weights.empty()) return false;
  const std::string& policy = params.get_string("synthetic_weights");
  if (policy == "none") return false;
  const std::string problem = unusable_because(facts);
  if (problem.empty()) return true;
  const std::string& name = in.context.weights;
  const std::string where =
      synthetic.source().role +
      (synthetic.source().path.empty() ? "" : " (" + synthetic.source().path + ")");
  if (policy == "own")
    throw InputError(where + ": column '" + name +
                     "' cannot serve as sampling weights (synthetic_weights = own): " + problem);
  warnings.push_back(where + ": weight column '" + name + "' not usable (" + problem +
                     "); the synthetic data are treated as unweighted");
  return false;
}

DesignWeights design_weights(const MetricInput& in, const Table& synthetic, const Params& params,
                             std::vector<std::string>& warnings) {
  DesignWeights weights;
  if (in.context.weights.empty()) return weights;
  weights.column = in.confidential.index_of(in.context.weights);
  weights.confidential = in.confidential.column(*weights.column).numeric;
  const stats::SurveyDesignSpec& declared = in.context.design;
  weights.confidential_design = std::make_shared<const stats::SurveyDesign>(
      declared.declared()
          ? stats::SurveyDesign::declared(declared, in.confidential, weights.confidential)
          : stats::SurveyDesign::simple(weights.confidential));
  if (params.get_string("synthetic_weights") == "none") return weights;
  const Column& own = synthetic.column(*weights.column);
  if (!use_own_weights(in, synthetic, weight_column_facts(own), params, warnings)) return weights;
  weights.synthetic = own.numeric;
  if (declared.declared() && !declared.replicated()) {
    try {
      weights.synthetic_design = std::make_shared<const stats::SurveyDesign>(
          stats::SurveyDesign::declared(declared, synthetic, weights.synthetic));
    } catch (const InputError& e) {
      if (params.get_string("synthetic_weights") == "own") throw;
      warnings.push_back(std::string(e.what()) +
                         "; the synthetic data's variances use its weights alone "
                         "(svydesign(ids = ~1))");
    }
  }
  if (!weights.synthetic_design)
    weights.synthetic_design =
        std::make_shared<const stats::SurveyDesign>(stats::SurveyDesign::simple(weights.synthetic));
  return weights;
}

nlohmann::json design_summary(const MetricInput& in, const std::vector<DesignWeights>& weights) {
  nlohmann::json summary = nlohmann::json::object();
  if (weights.empty() || !weights.front().confidential_design) return summary;
  summary["confidential"] = weights.front().confidential_design->describe();
  summary["synthetic"] = nlohmann::json::array();
  for (const auto& w : weights)
    summary["synthetic"].push_back(w.synthetic_design ? w.synthetic_design->describe()
                                                      : std::string("unweighted, rows drawn "
                                                                    "individually"));
  if (in.context.design.replicated())
    summary["note"] =
        "replicate weights describe the confidential sample only: a weighted synthetic table's "
        "variances use its weights alone";
  return summary;
}

}  // namespace synthaudit
