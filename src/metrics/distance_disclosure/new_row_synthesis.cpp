// SDMetrics NewRowSynthesis: share of synthetic rows that match no confidential row, with
// SDMetrics' relative tolerance for numeric values.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "core/error.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

// Rows are grouped by their categorical codes and numeric-missingness pattern (a match needs
// both to be equal); within a group the rows are sorted by the first numeric column present, so
// each synthetic row checks only the rows inside its tolerance window on that column.
MetricResult compute_new_rows(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const double tol = params.get_double("numerical_match_tolerance");
  if (syn.rows() == 0) throw MetricNotApplicable("no synthetic rows");
  std::vector<std::size_t> num, cat;
  for (std::size_t c = 0; c < conf.column_count(); ++c)
    (conf.column(c).is_numeric() ? num : cat).push_back(c);

  auto key_of = [&](const Table& t, std::size_t row, std::string& key) {
    key.clear();
    for (auto c : cat) {
      const std::uint32_t code = t.column(c).codes[row];
      key.append(reinterpret_cast<const char*>(&code), sizeof code);
    }
    for (auto c : num) key.push_back(std::isnan(t.column(c).numeric[row]) ? 'm' : 'v');
  };
  // First numeric column that is present in this pattern (or none).
  auto sort_column = [&](const Table& t, std::size_t row) -> int {
    for (std::size_t i = 0; i < num.size(); ++i)
      if (!std::isnan(t.column(num[i]).numeric[row])) return static_cast<int>(i);
    return -1;
  };
  std::unordered_map<std::string, std::vector<std::uint32_t>> groups;
  std::string key;
  for (std::size_t r = 0; r < conf.rows(); ++r) {
    key_of(conf, r, key);
    groups[key].push_back(static_cast<std::uint32_t>(r));
  }
  for (auto& [k, rows] : groups) {
    const int sc = sort_column(conf, rows.front());
    if (sc < 0) continue;
    const auto& x = conf.column(num[static_cast<std::size_t>(sc)]).numeric;
    std::sort(rows.begin(), rows.end(),
              [&](std::uint32_t a, std::uint32_t b) { return x[a] < x[b]; });
  }
  std::size_t matched = 0;
  for (std::size_t s = 0; s < syn.rows(); ++s) {
    key_of(syn, s, key);
    const auto it = groups.find(key);
    if (it == groups.end()) continue;
    const auto& rows = it->second;
    auto within = [&](std::size_t c, std::uint32_t r) {
      const double v = syn.column(c).numeric[s];
      if (std::isnan(v)) return true;  // both missing (same pattern)
      return std::fabs(conf.column(c).numeric[r] - v) <= std::fabs(tol * v);
    };
    const int sc = sort_column(syn, s);
    auto begin = rows.begin(), end = rows.end();
    if (sc >= 0) {
      const std::size_t c = num[static_cast<std::size_t>(sc)];
      const double v = syn.column(c).numeric[s], w = std::fabs(tol * v);
      const auto& x = conf.column(c).numeric;
      // A window twice as wide, so rounding of v ± w never drops a match; `within` decides.
      begin = std::lower_bound(rows.begin(), rows.end(), v - 2.0 * w,
                               [&](std::uint32_t r, double t) { return x[r] < t; });
      end = std::upper_bound(begin, rows.end(), v + 2.0 * w,
                             [&](double t, std::uint32_t r) { return t < x[r]; });
    }
    for (auto r = begin; r != end; ++r) {
      bool ok = true;
      for (auto c : num)
        if (!(ok = within(c, *r))) break;
      if (ok) {
        ++matched;
        break;
      }
    }
  }
  const double n = static_cast<double>(syn.rows());
  // Both reveal how many synthetic rows copy a confidential row (MetricValue::records).
  result.add("new_row_share", "all", static_cast<double>(syn.rows() - matched) / n,
             static_cast<double>(matched));
  result.add_share("matched_row_share", "all", static_cast<double>(matched), n);
  result.add("matched_rows", "all", static_cast<double>(matched));
  return result;
}

}  // namespace

MetricSpec new_row_synthesis_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "new_row_synthesis",
      .family = MetricFamily::kDistanceDisclosure,
      .summary =
          "Share of synthetic rows that match no confidential row (SDMetrics "
          "NewRowSynthesis)",
      .doc =
          "A synthetic row s matches a confidential row r when every categorical value is "
          "equal, every missing value of s is missing in r, and every numeric value satisfies "
          "|r − s| ≤ |tol · s| (tolerance relative to the synthetic value, tol = "
          "numerical_match_tolerance, 0.01 by default, as SDMetrics). new_row_share = share of "
          "synthetic rows without a match (SDMetrics' score; 1 = all rows new), "
          "matched_row_share = 1 − new_row_share. Exact on all rows (no synthetic_sample_size "
          "subsampling). Unlike syn_to_conf_exact_copy_share of distance_to_closest_record, a "
          "numeric value within 1% counts as a copy.",
      .params = {{.name = "numerical_match_tolerance",
                  .type = ParamType::kDouble,
                  .default_value = 0.01,
                  .doc = "relative tolerance for numeric values",
                  .min = 0.0,
                  .max = 1e9}},
      .granularity = MetricGranularity::kPerReplicate,
      .compute = compute_new_rows,
      .statistics =
          {{"new_row_share",
            "share of synthetic rows that match no confidential row (SDMetrics' NewRowSynthesis)",
            Ideal::higher(),
            {kAll}},
           {"matched_row_share", "1 − new_row_share", Ideal::lower(), {kAll}},
           {"matched_rows",
            "synthetic rows that match a confidential row",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(sdmetrics_software(), "NewRowSynthesis, reproduced on SD2011")},
  };
}

}  // namespace synthaudit
