#pragma once
// Shared by the attacks against a control set (linkability, inference): which columns an attacker
// may know by default, the confidence-level parameter, and how one attack's counts become
// results under the statistic names of stats::attack_statistics.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/threads.hpp"
#include "metrics/metric.hpp"
#include "stats/attack_risk.hpp"

namespace synthaudit::attacks {

// Whether `name` is a survey design column (weights or household) of the evaluation.
bool is_design_column(const std::string& name, const EvaluationContext& context);

// Every column except the survey design columns (weights, household), in table order.
std::vector<std::size_t> attribute_columns(const Table& table, const EvaluationContext& context);

// Column names given by a parameter, resolved (InputError naming the parameter for an unknown or
// repeated name, or a design column).
std::vector<std::size_t> named_columns(const Table& table, const EvaluationContext& context,
                                       const std::vector<std::string>& names,
                                       const std::string& metric, const std::string& param);

ParamSpec confidence_level_param();

// The sum of `success(target, state)` over targets 0..n-1 on the evaluation's threads, each thread
// with its own `State` (buffers) made by `make_state()`, visiting the targets in `order` when
// given (a neighbour search's preferred order). The per-target values are added in target order
// afterwards, so the sum does not depend on the thread count or the order. `success` must not
// throw.
template <class MakeState, class Success>
double sum_over_targets(std::size_t n_targets, MakeState make_state, Success success,
                        const std::vector<std::uint32_t>* order = nullptr) {
  std::vector<double> per_target(n_targets, 0.0);
#pragma omp parallel num_threads(parallel_threads())
  {
    auto state = make_state();
#pragma omp for schedule(dynamic, 64)
    for (std::size_t i = 0; i < n_targets; ++i) {
      const std::size_t t = order ? (*order)[i] : i;
      per_target[t] = success(t, state);
    }
  }
  double total = 0.0;
  for (double v : per_target) total += v;
  return total;
}

// The risk against the control set (clipped to [0, 1]) and the standard deviation of its unclipped
// estimate; NaN without a control set.
struct AttackRisk {
  double risk, sd;
};

// Adds the statistics of one attack under `scope`, and the note saying which comparison the
// risk makes when there is no control set.
AttackRisk add_attack(MetricResult& result, const std::string& metric, const std::string& scope,
                      const stats::AttackCounts& counts, double confidence_level);

// The statistics every attack emits, for the metric's declaration.
std::vector<StatisticSpec> attack_statistic_specs(const std::vector<ScopeKind>& scopes,
                                                  const std::string& success_meaning);

// The headline of an attack's residual risk `statistic` (scope all): ideal 0, read against 0 with
// the noise `sd_statistic`.
Headline residual_risk_headline(const std::string& statistic, const std::string& sd_statistic,
                                const std::string& reading);

// The doc paragraph on rates, risk and the control set, shared by the attacks.
extern const char* const kAttackRiskDoc;

}  // namespace synthaudit::attacks
