#include "metrics/design_weights.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit {

namespace {

// Why a column cannot serve as sampling weights; empty when it can.
std::string unusable_because(const Column& w) {
  bool any_positive = false;
  for (std::size_t row = 0; row < w.numeric.size(); ++row) {
    const double value = w.numeric[row];
    if (!std::isfinite(value) || value < 0)
      return "row " + std::to_string(row + 1) + " is " +
             (std::isnan(value) ? std::string("missing") : format_number(value));
    any_positive = any_positive || value > 0;
  }
  return any_positive ? std::string() : std::string("no row has a positive weight");
}

}  // namespace

const char* const kWeightsDoc =
    " Survey weights: with weights: declared, the estimates are design-weighted as R's survey "
    "package with svydesign(ids = ~1, weights = ~w) (Lumley 2004), standard errors by Taylor "
    "linearisation; synthetic_weights says whether the synthetic data carry their own weight "
    "column (auto: when usable; own; none), and the weight and household columns are not "
    "compared.";

bool is_design_column(const MetricInput& in, std::size_t c) {
  const std::string& name = in.confidential.column(c).name;
  return (!in.context.weights.empty() && name == in.context.weights) ||
         (!in.context.household.empty() && name == in.context.household);
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

DesignWeights design_weights(const MetricInput& in, const Table& synthetic, const Params& params,
                             std::vector<std::string>& warnings) {
  DesignWeights weights;
  if (in.context.weights.empty()) return weights;
  weights.column = in.confidential.index_of(in.context.weights);
  weights.confidential = in.confidential.column(*weights.column).numeric;
  const std::string& policy = params.get_string("synthetic_weights");
  if (policy == "none") return weights;
  const Column& own = synthetic.column(*weights.column);
  const std::string problem = own.is_numeric() ? unusable_because(own) : "it is not numeric";
  if (problem.empty()) {
    weights.synthetic = own.numeric;
    return weights;
  }
  const std::string where =
      synthetic.source().role +
      (synthetic.source().path.empty() ? "" : " (" + synthetic.source().path + ")");
  if (policy == "own")
    throw InputError(where + ": column '" + own.name +
                     "' cannot serve as sampling weights (synthetic_weights = own): " + problem);
  warnings.push_back(where + ": weight column '" + own.name + "' not usable (" + problem +
                     "); the synthetic data are treated as unweighted");
  return weights;
}

}  // namespace synthaudit
