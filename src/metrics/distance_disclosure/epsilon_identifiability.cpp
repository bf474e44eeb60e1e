// ε-identifiability (Yoon, Drumright & van der Schaar 2020, ADS-GAN): the share of confidential
// records whose nearest synthetic record is strictly closer than their nearest other confidential
// record, under the paper's entropy-weighted Euclidean distance.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/column_lookup.hpp"

namespace synthaudit {

namespace {

// The selected columns of two tables as numbers: numeric values as they are, categorical levels
// as their rank among the levels that occur in either table (sklearn's LabelEncoder over both,
// as synthcity encodes them), a missing level ranked after all others.
//
// For the distances, a numeric column whose values all have at most kMaxDecimals decimal places
// is held as integers in units of its last decimal (`unit`, e.g. 0.1), so that differences and
// their squares are exact: two pairs of records that differ by the same decimal amounts are at
// exactly the same distance, which a difference of binary doubles (5.3 − 5.1 ≠ 2.3 − 2.1) would
// not guarantee. Other numeric columns keep their double values.
struct EncodedColumns {
  std::vector<std::vector<double>> confidential, released;  // [column][row], as described above
  std::vector<std::vector<double>> raw_confidential;        // [column][row], values as they are
  std::vector<double> unit;                                 // value of 1 in each column's numbers
};

constexpr int kMaxDecimals = 6;
// Integers up to 2^24 keep squared differences (< 2^50) and their sums over a few columns exact.
constexpr double kMaxScaled = 16777216.0;

// The smallest decimal scale 10^k (k <= kMaxDecimals) at which every value is an integer of at
// most kMaxScaled; 0 when there is none.
double decimal_scale(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 1.0;
  for (int k = 0; k <= kMaxDecimals; ++k, scale *= 10.0) {
    bool integral = true;
    for (const auto* values : {&a, &b})
      for (double v : *values) {
        const double scaled = v * scale, rounded = std::nearbyint(scaled);
        if (std::abs(rounded) > kMaxScaled ||
            std::abs(scaled - rounded) > 1e-9 * std::max(1.0, std::abs(rounded))) {
          integral = false;
          break;
        }
      }
    if (integral) return scale;
  }
  return 0.0;
}

EncodedColumns encode(const Table& conf, const Table& released,
                      const std::vector<std::size_t>& columns) {
  EncodedColumns out;
  std::vector<std::string> with_missing;
  for (std::size_t c : columns) {
    const Column& a = conf.column(c);
    const Column& b = released.column(c);
    std::vector<double> x(conf.rows()), y(released.rows());
    if (a.is_numeric()) {
      if (a.missing_count() > 0 || b.missing_count() > 0) with_missing.push_back(a.name);
      const double scale = decimal_scale(a.numeric, b.numeric);
      out.raw_confidential.push_back(a.numeric);
      out.unit.push_back(scale > 0.0 ? 1.0 / scale : 1.0);
      for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = scale > 0.0 ? std::nearbyint(a.numeric[i] * scale) : a.numeric[i];
      for (std::size_t i = 0; i < y.size(); ++i)
        y[i] = scale > 0.0 ? std::nearbyint(b.numeric[i] * scale) : b.numeric[i];
    } else {
      // Codes are in the sorted dictionary's order; kMissingCode sorts after every level.
      std::map<std::uint32_t, double> rank;
      for (std::uint32_t code : a.codes) rank.emplace(code, 0.0);
      for (std::uint32_t code : b.codes) rank.emplace(code, 0.0);
      double next = 0.0;
      for (auto& [code, r] : rank) r = next++;
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = rank[a.codes[i]];
      for (std::size_t i = 0; i < y.size(); ++i) y[i] = rank[b.codes[i]];
      out.raw_confidential.push_back(x);
      out.unit.push_back(1.0);
    }
    out.confidential.push_back(std::move(x));
    out.released.push_back(std::move(y));
  }
  if (!with_missing.empty()) {
    std::string names;
    for (const auto& n : with_missing) names += (names.empty() ? "" : ", ") + n;
    throw MetricNotApplicable(
        "epsilon_identifiability: numeric column(s) with missing values (" + names +
        "): the entropy-weighted distance has no rule for them; leave them out with the "
        "parameter columns");
  }
  return out;
}

// Shannon entropy (natural log) of a column's values rounded to integers (the paper's released
// code and synthcity round before counting), from the counts in increasing order so that columns
// with the same counts get bitwise the same entropy.
double rounded_entropy(const std::vector<double>& values) {
  std::map<double, std::size_t> counts;
  for (double v : values) ++counts[std::nearbyint(v) + 0.0];
  std::vector<std::size_t> sorted;
  for (const auto& [value, count] : counts) sorted.push_back(count);
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<double>(values.size());
  double entropy = 0.0;
  for (std::size_t count : sorted) {
    const double p = static_cast<double>(count) / n;
    entropy -= p * std::log(p);
  }
  return entropy;
}

// Squared weighted distance Σ_c w_c² (x_c − y_c)², summed per group of columns with the same weight
// (within a group, in column order) and then over groups: two records whose squared differences
// agree column for column within each group get bitwise the same distance, so exact ties compare
// equal (for integer values and level ranks every within-group sum is exact).
class WeightedDistance {
 public:
  WeightedDistance(const EncodedColumns& data, const std::vector<double>& weights) : data_(data) {
    std::map<double, std::vector<std::size_t>> by_weight;
    for (std::size_t c = 0; c < weights.size(); ++c) by_weight[weights[c]].push_back(c);
    for (auto& [weight, members] : by_weight) groups_.push_back({weight * weight, members});
  }

  // Between confidential row i and row j of `other` (confidential or released columns); stops
  // early, returning +inf, once the distance cannot be below `bound`.
  double squared(std::size_t i, const std::vector<std::vector<double>>& other, std::size_t j,
                 double bound) const {
    double total = 0.0;
    for (const auto& group : groups_) {
      double sum = 0.0;
      for (std::size_t c : group.columns) {
        const double diff = data_.confidential[c][i] - other[c][j];
        sum += diff * diff;
      }
      total += group.squared_weight * sum;
      if (total > bound) return std::numeric_limits<double>::infinity();
    }
    return total;
  }

 private:
  struct Group {
    double squared_weight;
    std::vector<std::size_t> columns;
  };
  const EncodedColumns& data_;
  std::vector<Group> groups_;
};

// One table's rows in increasing order of one column (the pivot), for a search that visits rows
// nearest on the pivot first: the pivot's term w²Δ² alone is a lower bound of the distance (the
// squared sums only add non-negative terms), so once it exceeds the distance to beat no row left
// can beat it. Exact, and far fewer pairs than the full scan when the pivot spreads the rows.
struct PivotOrder {
  std::vector<double> key;
  std::vector<std::uint32_t> row;

  explicit PivotOrder(const std::vector<double>& values) : key(values.size()), row(values.size()) {
    for (std::size_t i = 0; i < row.size(); ++i) row[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(row.begin(), row.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return values[a] < values[b]; });
    for (std::size_t i = 0; i < row.size(); ++i) key[i] = values[row[i]];
  }

  // Calls visit(row) for rows in increasing |key − q| while pivot_weight·gap² <= bound (re-read
  // after each visit) and visit returns true.
  template <class Visit>
  void visit_nearest_first(double q, double pivot_weight, const double& bound,
                           Visit&& visit) const {
    std::size_t right =
        static_cast<std::size_t>(std::lower_bound(key.begin(), key.end(), q) - key.begin());
    std::size_t left = right;  // rows [0, left) are still to visit on the left
    while (left > 0 || right < key.size()) {
      const bool take_right =
          right < key.size() && (left == 0 || key[right] - q <= q - key[left - 1]);
      const double gap = take_right ? key[right] - q : q - key[left - 1];
      if (pivot_weight * (gap * gap) > bound) return;
      if (!visit(take_right ? row[right++] : row[--left])) return;
    }
  }
};

MetricResult compute_identifiability(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& released = in.first_synthetic();
  if (conf.rows() < 2 || released.rows() == 0)
    throw MetricNotApplicable(
        "epsilon_identifiability needs at least two confidential records and one synthetic "
        "record");
  std::vector<std::size_t> columns = stats::resolve_columns(
      conf, params.get_string_list("columns"), "parameter epsilon_identifiability.columns");
  MetricResult result;
  if (columns.empty()) {
    // By default every column the paper's distance can compare: numeric columns with missing
    // values have no distance rule, and the survey design columns are not attributes.
    std::string left_out;
    for (std::size_t c = 0; c < conf.column_count(); ++c) {
      const Column& a = conf.column(c);
      if (a.name == in.context.weights || a.name == in.context.household) continue;
      if (a.is_numeric() && (a.missing_count() > 0 || released.column(c).missing_count() > 0)) {
        left_out += (left_out.empty() ? "" : ", ") + a.name;
        continue;
      }
      columns.push_back(c);
    }
    if (!left_out.empty())
      result.warnings.push_back(
          "numeric column(s) with missing values left out (the entropy-weighted distance has no "
          "rule for them): " +
          left_out);
    if (columns.empty())
      throw MetricNotApplicable("epsilon_identifiability: no column without missing values");
  }
  const EncodedColumns data = encode(conf, released, columns);

  const bool entropy_weights = params.get_string("weights") == "entropy";
  std::vector<double> weights(columns.size(), 1.0);
  auto weight_table = nlohmann::json::array();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const double entropy = rounded_entropy(data.raw_confidential[c]);
    // The paper's weight 1/H, with the released code's 1e-16 keeping a constant column finite.
    if (entropy_weights) weights[c] = 1.0 / (entropy + 1e-16);
    weight_table.push_back(
        {{"column", conf.column(columns[c]).name}, {"entropy", entropy}, {"weight", weights[c]}});
  }
  // Per unit of the numbers the distance sees (a decimal column counts in units of its last
  // decimal).
  std::vector<double> unit_weights(weights.size());
  for (std::size_t c = 0; c < weights.size(); ++c) unit_weights[c] = weights[c] * data.unit[c];
  const WeightedDistance distance(data, unit_weights);

  // Pivot: the column whose weighted values spread the most (range × weight).
  std::size_t pivot = 0;
  double widest = -1.0;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const auto [lo, hi] =
        std::minmax_element(data.confidential[c].begin(), data.confidential[c].end());
    const double spread = (*hi - *lo) * unit_weights[c];
    if (spread > widest) {
      widest = spread;
      pivot = c;
    }
  }
  const double pivot_weight = unit_weights[pivot] * unit_weights[pivot];
  const PivotOrder conf_order(data.confidential[pivot]), released_order(data.released[pivot]);

  const std::size_t n = conf.rows();
  std::vector<std::uint8_t> identifiable(n, 0);
  const auto rows = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(dynamic, 64) num_threads(parallel_threads())
  for (std::ptrdiff_t signed_i = 0; signed_i < rows; ++signed_i) {
    const auto i = static_cast<std::size_t>(signed_i);
    const double q = data.confidential[pivot][i];
    double nearest_other = std::numeric_limits<double>::infinity();
    conf_order.visit_nearest_first(q, pivot_weight, nearest_other, [&](std::uint32_t j) {
      if (j != i)
        nearest_other =
            std::min(nearest_other, distance.squared(i, data.confidential, j, nearest_other));
      return nearest_other > 0.0;  // nothing is closer than a duplicate
    });
    // Identifiable when some synthetic record is strictly closer: the first one found decides.
    bool closer = false;
    if (nearest_other > 0.0)
      released_order.visit_nearest_first(q, pivot_weight, nearest_other, [&](std::uint32_t k) {
        closer = distance.squared(i, data.released, k, nearest_other) < nearest_other;
        return !closer;
      });
    identifiable[i] = closer ? 1 : 0;
  }
  std::size_t count = 0;
  for (auto v : identifiable) count += v;
  result.add("identifiability", "all", static_cast<double>(count) / static_cast<double>(n));
  result.add("n_identifiable", "all", static_cast<double>(count));
  result.add("n_records", "all", static_cast<double>(n));
  result.details["column_weights"] = weight_table;
  return result;
}

}  // namespace

MetricSpec epsilon_identifiability_metric() {
  using namespace references;
  return MetricSpec{
      .name = "epsilon_identifiability",
      .family = MetricFamily::kDistanceDisclosure,
      .summary =
          "ε-identifiability: share of real records whose nearest synthetic record is "
          "closer than their nearest other real record (Yoon et al., 2020)",
      .doc =
          "For every confidential record x_i, r_i is the distance to its nearest other "
          "confidential record and r̂_i the distance to its nearest synthetic record; "
          "identifiability = (1/n) Σ 1(r̂_i < r_i), strict (Yoon, Drumright & van der Schaar, "
          "2020). The release is ε-identifiable for every ε above it; 0 means no real record is "
          "nearer to a synthetic record than to the rest of the real data. A record with an exact "
          "duplicate in the confidential data has r_i = 0 and cannot count.\n\n"
          "Distance: the paper's weighted Euclidean distance sqrt(Σ_c w_c² (x_c − y_c)²) over the "
          "selected columns, numeric columns as they are, categorical columns as the rank of "
          "their level among the levels present in the confidential or synthetic data (as "
          "synthcity label-encodes them; a missing level ranks last). Weights (parameter "
          "weights): entropy (default) w_c = 1/(H_c + 1e-16), H_c the Shannon entropy (natural "
          "log) of the column's confidential values rounded to integers, as in the paper's "
          "released code; uniform: w_c = 1, which is what synthcity 0.2.12 computes (its "
          "identifiability_score overwrites the entropy weights with ones). synthcity also "
          "label-encodes numeric columns with fewer than 15 distinct values, which this metric "
          "does not. Numeric columns with missing values have no distance rule in the paper: by "
          "default they are left out with a warning (as are the survey design columns); named "
          "in the parameter columns, the metric is not applicable. Distances "
          "are computed so that exact ties compare equal: a numeric column whose values have at "
          "most 6 decimal places (and at most 2^24 units of the last one) counts in integer "
          "units of its last decimal, so differences are exact decimal amounts, and squared "
          "differences are added per group of columns of equal weight before weighting; an exact "
          "tie is never counted as closer (a column with longer decimals keeps binary doubles). "
          "details.column_weights lists each column's entropy and "
          "weight. The searches are exact; they visit records in order of the column whose "
          "weighted "
          "values spread the most and stop once that column alone puts the rest too far, so they "
          "are fast when that column separates the records and approach n × (n + synthetic rows) "
          "pairs when it does not (e.g. few distinct values everywhere).",
      .params = {{.name = "columns",
                  .type = ParamType::kStringList,
                  .default_value = std::vector<std::string>{},
                  .doc = "columns to compare (empty = every column but numeric ones with missing "
                         "values and the survey design columns)"},
                 {.name = "weights",
                  .type = ParamType::kString,
                  .default_value = std::string("entropy"),
                  .doc = "column weights: entropy (1/H, the paper) or uniform (1, synthcity)",
                  .choices = {"entropy", "uniform"}}},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "identifiability",
                     .ideal = Ideal::lower(),
                     .reading = "share of real records nearer to a synthetic record than to any "
                                "other real record",
                     .axis = "risk",
                     // No holdout baseline: the engine runs it with the holdout in place of the
                     // synthetic data at the holdout's size when that is smaller, and the share
                     // grows with the number of released records, so it would understate the
                     // baseline.
                     .baseline = Baseline::none(),
                     .unit = Unit::kShare}},
      .compute = compute_identifiability,
      .statistics = {{"identifiability",
                      "share of confidential records whose nearest synthetic record is strictly "
                      "closer than their nearest other confidential record",
                      Ideal::lower(),
                      {ScopeKind::kAll}},
                     {"{n_identifiable|n_records}",
                      "how many confidential records count, and how many there are",
                      std::nullopt,
                      {ScopeKind::kAll}}},
      .references = {cite(yoon_drumright_van_der_schaar_2020(),
                          "ε-identifiability and its entropy-weighted distance"),
                     cite(synthcity_software(),
                          "identifiability_score: encoding, uniform weights")},
  };
}

}  // namespace synthaudit
