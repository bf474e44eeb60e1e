// l-diversity of each sensitive column (a scenario's targets) within the classes of its keys:
// distinct and entropy l per class, confidential and synthetic side by side.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/error.hpp"
#include "metrics/references.hpp"
#include "metrics/sdc_risk/sdc_scenarios.hpp"

namespace synthaudit {

namespace {

struct ClassDiversity {
  std::vector<double> distinct, entropy;  // per key pattern
};

// Per pattern: the number of target levels present and exp(entropy) of their shares.
ClassDiversity diversity(const stats::KeyPatterns& patterns,
                         const std::vector<std::uint32_t>& target) {
  std::vector<std::unordered_map<std::uint32_t, double>> counts(patterns.patterns());
  for (std::size_t row = 0; row < target.size(); ++row)
    counts[patterns.pattern[row]][target[row]] += 1;
  ClassDiversity d;
  for (const auto& cls : counts) {
    double n = 0, entropy = 0;
    for (const auto& [level, count] : cls) n += count;
    for (const auto& [level, count] : cls) entropy -= count / n * std::log(count / n);
    d.distinct.push_back(static_cast<double>(cls.size()));
    d.entropy.push_back(std::exp(entropy));
  }
  return d;
}

MetricResult compute_l_diversity(const MetricInput& in, const Params& params) {
  const double l = static_cast<double>(params.get_int("l"));
  const stats::CodingOptions exact;
  MetricResult result;
  bool any_target = false;
  for (const auto& scenario : sdc::scenarios(in)) {
    if (scenario.targets.empty()) continue;
    any_target = true;
    const auto classes =
        sdc::scenario_classes(in.confidential, in.first_synthetic(), scenario, params);
    const auto& keys = classes.codes.key_names;
    for (std::size_t t = 0; t < classes.codes.target_columns.size(); ++t) {
      const std::string& name = classes.codes.target_names[t];
      const auto target = stats::code_column({&in.confidential, &in.first_synthetic()},
                                             classes.codes.target_columns[t], exact);
      for (std::size_t data = 0; data < 2; ++data) {
        const auto& patterns = classes.patterns[data];
        const auto d = diversity(patterns, target.codes[data]);
        const double n = static_cast<double>(patterns.pattern.size());
        double below_distinct = 0, below_entropy = 0;
        for (auto p : patterns.pattern) {
          below_distinct += d.distinct[p] < l;
          below_entropy += d.entropy[p] < l * (1 - 1e-12);
        }
        const std::string target_q = "target=" + name;
        const std::string l_q = target_q + ";l=" + std::to_string(params.get_int("l"));
        const bool empty = d.distinct.empty();
        result.add("min_distinct_l", sdc::scope(keys, target_q, data),
                   empty ? std::nan("") : *std::min_element(d.distinct.begin(), d.distinct.end()));
        result.add("min_entropy_l", sdc::scope(keys, target_q, data),
                   empty ? std::nan("") : *std::min_element(d.entropy.begin(), d.entropy.end()));
        result.add("share_below_distinct_l", sdc::scope(keys, l_q, data),
                   n > 0 ? below_distinct / n : std::nan(""));
        result.add("share_below_entropy_l", sdc::scope(keys, l_q, data),
                   n > 0 ? below_entropy / n : std::nan(""));
      }
    }
  }
  if (!any_target) throw MetricNotApplicable("no disclosure targets (sensitive columns) given");
  return result;
}

}  // namespace

MetricSpec l_diversity_metric() {
  using enum ScopeKind;
  using namespace references;
  auto params = sdc::key_params();
  // Classes here partition the records, so the missing-key rule does not apply.
  params.erase(std::remove_if(params.begin(), params.end(),
                              [](const ParamSpec& p) { return p.name == "missing_keys"; }),
               params.end());
  params.push_back({.name = "l",
                    .type = ParamType::kInt,
                    .default_value = std::int64_t{2},
                    .doc = "diversity threshold: a class is below l when it holds fewer than l "
                           "distinct sensitive values (or entropy l below l)",
                    .min = 1});
  return MetricSpec{
      .name = "l_diversity",
      .family = MetricFamily::kSdcRisk,
      .summary =
          "l-diversity of each sensitive column within the key classes: distinct and "
          "entropy l, and the share of records in classes below l, confidential and "
          "synthetic side by side",
      .doc =
          "For each scenario target (sensitive column) and each class of records with equal "
          "key values (a missing key value is a value of its own here, so classes partition "
          "the records): distinct l = the number of distinct target values in the class; "
          "entropy l = exp(−Σ_s p_s log p_s) over the class's shares p_s of the target "
          "values (Machanavajjhala et al. 2007, definitions 3.3 and 4.1: a class is entropy "
          "l-diverse when this is >= l). A missing target value counts as a value of its "
          "own; a numeric target's distinct values are its values. Reported: the smallest "
          "distinct and entropy l over the classes, and the shares of records whose class "
          "falls below `l`. Keys are coded as `numeric` says. Computed on the confidential "
          "data and on each synthetic replicate alike; scopes end in `data=confidential` or "
          "`data=synthetic`, shown side by side in the report. sdcMicro's ldiversity reports "
          "the same distinct and entropy l per record.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .compute = compute_l_diversity,
      .statistics = {{"min_distinct_l",
                      "the smallest number of distinct sensitive values in a class",
                      Ideal::higher(),
                      {kScenario}},
                     {"min_entropy_l",
                      "the smallest entropy l (exp of the entropy of the sensitive values) in "
                      "a class",
                      Ideal::higher(),
                      {kScenario}},
                     {"share_below_distinct_l",
                      "share of records in classes with fewer than l distinct sensitive values",
                      Ideal::lower(),
                      {kScenario}},
                     {"share_below_entropy_l",
                      "share of records in classes whose entropy l is below l",
                      Ideal::lower(),
                      {kScenario}}},
      .references = {cite(machanavajjhala_2007(), "distinct and entropy l-diversity"),
                     cite(templ_kowarik_meindl_2015(), "l-diversity per record (sdcMicro)")},
  };
}

}  // namespace synthaudit
