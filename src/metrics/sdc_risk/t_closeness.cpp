// t-closeness of each sensitive column: the Earth Mover's Distance between each key class's
// distribution of the column and the whole file's, confidential and synthetic side by side.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/references.hpp"
#include "metrics/sdc_risk/sdc_scenarios.hpp"

namespace synthaudit {

namespace {

// EMD of every class (key pattern) against the file; NaN for a class with no observed target.
// `ordered`: Li et al.'s ordered distance over the m values the file holds, in increasing
// order, |i − j| / (m − 1); else the equal distance (half the L1 distance).
std::vector<double> class_emd(const stats::KeyPatterns& patterns,
                              const std::vector<std::uint32_t>& target, std::uint32_t levels,
                              std::uint32_t missing_level, bool ordered) {
  // The file's distribution over the levels it holds (missing values left out).
  std::vector<double> file_count(levels, 0.0);
  double observed = 0;
  for (auto level : target)
    if (level != missing_level) file_count[level] += 1, observed += 1;
  std::vector<std::uint32_t> position(levels, stats::kNoLevel);
  std::vector<double> q;
  for (std::uint32_t level = 0; level < levels; ++level)
    if (file_count[level] > 0) {
      position[level] = static_cast<std::uint32_t>(q.size());
      q.push_back(file_count[level] / observed);
    }
  const std::size_t m = q.size();
  // Cumulative file shares Q(i) and their running sums S(i) = Σ_{j<i} Q(j), for the ordered
  // distance Σ_i |P(i) − Q(i)| / (m − 1) with P piecewise constant between a class's values.
  std::vector<double> cumulative(m), running(m + 1, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    cumulative[i] = (i ? cumulative[i - 1] : 0.0) + q[i];
    running[i + 1] = running[i] + cumulative[i];
  }
  std::vector<std::map<std::uint32_t, double>> class_counts(patterns.patterns());
  for (std::size_t row = 0; row < target.size(); ++row)
    if (target[row] != missing_level)
      class_counts[patterns.pattern[row]][position[target[row]]] += 1;
  std::vector<double> emd(patterns.patterns(), std::nan(""));
  for (std::size_t c = 0; c < class_counts.size(); ++c) {
    const auto& counts = class_counts[c];
    double n = 0;
    for (const auto& [i, count] : counts) n += count;
    if (n == 0) continue;
    if (!ordered) {
      double l1 = 0, covered = 0;
      for (const auto& [i, count] : counts) {
        l1 += std::abs(count / n - q[i]);
        covered += q[i];
      }
      emd[c] = 0.5 * (l1 + (1.0 - covered));
      continue;
    }
    if (m <= 1) {
      emd[c] = 0;
      continue;
    }
    // Σ over i in [a, b) of |P − Q(i)| for constant P: Q rises, so split where it passes P.
    auto range_sum = [&](std::size_t a, std::size_t b, double p) {
      if (a >= b) return 0.0;
      const std::size_t split = static_cast<std::size_t>(
          std::upper_bound(cumulative.begin() + static_cast<std::ptrdiff_t>(a),
                           cumulative.begin() + static_cast<std::ptrdiff_t>(b), p) -
          cumulative.begin());
      return p * static_cast<double>(split - a) - (running[split] - running[a]) +
             (running[b] - running[split]) - p * static_cast<double>(b - split);
    };
    double total = 0, p = 0;
    std::size_t start = 0;
    for (const auto& [i, count] : counts) {
      total += range_sum(start, i, p);
      p += count / n;
      start = i;
    }
    total += range_sum(start, m, p);
    emd[c] = std::max(0.0, total) / static_cast<double>(m - 1);
  }
  return emd;
}

MetricResult compute_t_closeness(const MetricInput& in, const Params& params) {
  const double t = params.get_double("t");
  const stats::CodingOptions exact;
  MetricResult result;
  bool any_target = false;
  for (const auto& scenario : sdc::scenarios(in)) {
    if (scenario.targets.empty()) continue;
    any_target = true;
    const auto classes =
        sdc::scenario_classes(in.confidential, in.first_synthetic(), scenario, params);
    const auto& keys = classes.codes.key_names;
    for (std::size_t ti = 0; ti < classes.codes.target_columns.size(); ++ti) {
      const std::string& name = classes.codes.target_names[ti];
      const std::size_t column = classes.codes.target_columns[ti];
      const bool ordered = in.confidential.column(column).is_numeric();
      const auto target =
          stats::code_column({&in.confidential, &in.first_synthetic()}, column, exact);
      for (std::size_t data = 0; data < 2; ++data) {
        const auto& patterns = classes.patterns[data];
        const auto emd =
            class_emd(patterns, target.codes[data], target.levels(), target.missing_level, ordered);
        double worst = std::nan(""), classes_seen = 0, classes_above = 0;
        for (double d : emd) {
          if (std::isnan(d)) continue;
          classes_seen += 1;
          classes_above += d > t;
          if (!(worst >= d)) worst = d;
        }
        double records = 0, records_above = 0;
        for (auto p : patterns.pattern)
          if (!std::isnan(emd[p])) records += 1, records_above += emd[p] > t;
        const std::string target_q = "target=" + name;
        std::string t_text = format_number(t);
        const std::string t_q = target_q + ";t=" + t_text;
        result.add("max_emd", sdc::scope(keys, target_q, data), worst);
        result.add("share_classes_above_t", sdc::scope(keys, t_q, data),
                   classes_seen > 0 ? classes_above / classes_seen : std::nan(""));
        sdc::add_share_of_records(result, "share_records_above_t", sdc::scope(keys, t_q, data),
                                  records_above, records, data);
      }
    }
  }
  if (!any_target) throw MetricNotApplicable("no disclosure targets (sensitive columns) given");
  return result;
}

}  // namespace

MetricSpec t_closeness_metric() {
  using enum ScopeKind;
  using namespace references;
  // Classes here partition the records, so the missing-key rule does not apply.
  auto params = sdc::key_params(/*with_missing_keys=*/false);
  params.push_back({.name = "t",
                    .type = ParamType::kDouble,
                    .default_value = 0.15,
                    .doc = "closeness threshold: a class violates t-closeness when the EMD "
                           "between its sensitive-value distribution and the file's exceeds t",
                    .min = 0.0,
                    .max = 1.0});
  return MetricSpec{
      .name = "t_closeness",
      .family = MetricFamily::kSdcRisk,
      .summary =
          "t-closeness of each sensitive column: Earth Mover's Distance between each key "
          "class's and the file's distribution, its maximum and the share of classes "
          "above t, confidential and synthetic side by side",
      .doc =
          "For each scenario target (sensitive column) and each class of records with equal "
          "key values (missing a key value of its own), the Earth Mover's Distance between "
          "the class's distribution P of the target and the whole file's distribution Q "
          "(Li, Li & Venkatasubramanian 2007). A numeric target is ordered: over the m "
          "distinct values the file holds, in increasing order, with ground distance "
          "|i − j| / (m − 1), EMD = Σ_i |Σ_{j<=i} (p_j − q_j)| / (m − 1) (their ordered "
          "distance; 0 when m = 1). A categorical target is nominal: every two values are at "
          "distance 1, EMD = ½ Σ_i |p_i − q_i|. Missing target values are left out of both "
          "distributions, and a class with none observed has no EMD. Reported: max_emd over "
          "the classes (the file is t-close for every t >= it), and the shares of classes "
          "and of records whose class's EMD exceeds `t`. Keys are coded as `numeric` says. "
          "Computed on the confidential data and on each synthetic replicate alike (each "
          "against its own file's distribution); scopes end in `data=confidential` or "
          "`data=synthetic`, shown side by side in the report.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .compute = compute_t_closeness,
      .statistics = {{"max_emd",
                      "the largest Earth Mover's Distance between a class's and the file's "
                      "distribution of the sensitive column",
                      Ideal::lower(),
                      {kScenario}},
                     {"share_classes_above_t",
                      "share of classes whose distance exceeds t",
                      Ideal::lower(),
                      {kScenario}},
                     {"share_records_above_t",
                      "share of records (with the sensitive value observed) in classes whose "
                      "distance exceeds t",
                      Ideal::lower(),
                      {kScenario}}},
      .references = {cite(li_li_venkatasubramanian_2007(),
                          "t-closeness with the Earth Mover's Distance (ordered and equal "
                          "distance)")},
  };
}

}  // namespace synthaudit
