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
#include "core/progress.hpp"
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
  explicit WeightedDistance(const std::vector<double>& weights) {
    std::map<double, std::vector<std::size_t>> by_weight;
    for (std::size_t c = 0; c < weights.size(); ++c) by_weight[weights[c]].push_back(c);
    for (auto& [weight, members] : by_weight) groups_.push_back({weight * weight, members});
  }

  // Between two records (row-major values, the confidential record first); stops early,
  // returning +inf, once the distance cannot be below `bound`.
  double squared(const double* query, const double* other, double bound) const {
    double total = 0.0;
    for (const auto& group : groups_) {
      double sum = 0.0;
      for (std::size_t c : group.columns) {
        const double diff = query[c] - other[c];
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
  std::vector<Group> groups_;
};

// A region whose lower bound exceeds the distance to beat by more than this relative margin holds
// no record that could beat it: the bound and the distances are sums of the same non-negative
// terms in another order, which differ by at most a few units in the last place (~1e-15), so the
// margin keeps the pruning exact.
constexpr double kBoundMargin = 1e-12;

// One table's records in a k-d tree: nodes split at the median of the column whose weighted values
// spread the most, each node keeping the bounding box of its records, leaves of at most kLeafSize
// records. The squared weighted distance from a query to a node's box, Σ_c w_c² gap_c², is a lower
// bound of its distance to every record inside (each column's term only grows away from the box),
// so a search visits the nearer child first and skips any node whose bound exceeds the distance to
// beat. Exact: every record the search could need is compared with WeightedDistance, the same
// function and operations as a full scan, and only the records that cannot matter are skipped.
class WeightedKdTree {
 public:
  static constexpr std::size_t kLeafSize = 16;

  // columns[c][row]; squared_weights[c] = w_c² per unit of those values.
  WeightedKdTree(const std::vector<std::vector<double>>& columns,
                 const std::vector<double>& squared_weights)
      : dims_(columns.size()), squared_weights_(squared_weights) {
    const std::size_t n = columns.empty() ? 0 : columns[0].size();
    rows_.resize(n);
    for (std::size_t i = 0; i < n; ++i) rows_[i] = static_cast<std::uint32_t>(i);
    if (n > 0) build(columns, 0, n);
    points_.resize(n * dims_);
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t c = 0; c < dims_; ++c) points_[p * dims_ + c] = columns[c][rows_[p]];
  }

  std::size_t size() const { return rows_.size(); }
  // The record at tree position p: its row in the table and its values.
  std::uint32_t row(std::size_t p) const { return rows_[p]; }
  const double* point(std::size_t p) const { return points_.data() + p * dims_; }

  // Calls visit(position) for the records of every node whose lower bound does not exceed `bound`
  // (re-read after each visit, by the margin above), nearer nodes first, until visit returns false.
  template <class Visit>
  void visit_within(const double* query, const double& bound, Visit&& visit) const {
    if (!nodes_.empty()) descend(0, query, bound, visit);
  }

 private:
  struct Node {
    std::uint32_t begin, end;           // tree positions [begin, end)
    std::uint32_t left = 0, right = 0;  // child nodes; 0 for a leaf (node 0 is the root)
  };

  // Builds the node over positions [begin, end) and returns its index.
  std::uint32_t build(const std::vector<std::vector<double>>& columns, std::size_t begin,
                      std::size_t end) {
    const auto index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), 0, 0});
    std::size_t split_column = 0;
    double widest = -1.0;
    for (std::size_t c = 0; c < dims_; ++c) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (std::size_t p = begin; p < end; ++p) {
        lo = std::min(lo, columns[c][rows_[p]]);
        hi = std::max(hi, columns[c][rows_[p]]);
      }
      box_lo_.push_back(lo);
      box_hi_.push_back(hi);
      const double spread = (hi - lo) * (hi - lo) * squared_weights_[c];
      if (spread > widest) {
        widest = spread;
        split_column = c;
      }
    }
    if (end - begin <= kLeafSize || !(widest > 0.0)) return index;  // small, or all identical
    const std::size_t middle = begin + (end - begin) / 2;
    const auto& values = columns[split_column];
    std::nth_element(rows_.begin() + static_cast<std::ptrdiff_t>(begin),
                     rows_.begin() + static_cast<std::ptrdiff_t>(middle),
                     rows_.begin() + static_cast<std::ptrdiff_t>(end),
                     [&](std::uint32_t a, std::uint32_t b) {
                       return values[a] < values[b] || (values[a] == values[b] && a < b);
                     });
    const std::uint32_t left = build(columns, begin, middle);
    const std::uint32_t right = build(columns, middle, end);
    nodes_[index].left = left;
    nodes_[index].right = right;
    return index;
  }

  double lower_bound(std::uint32_t node, const double* query) const {
    const double* lo = box_lo_.data() + static_cast<std::size_t>(node) * dims_;
    const double* hi = box_hi_.data() + static_cast<std::size_t>(node) * dims_;
    double total = 0.0;
    for (std::size_t c = 0; c < dims_; ++c) {
      const double gap = query[c] < lo[c]   ? lo[c] - query[c]
                         : query[c] > hi[c] ? query[c] - hi[c]
                                            : 0.0;
      total += squared_weights_[c] * (gap * gap);
    }
    return total;
  }

  static bool beyond(double lower, double bound) { return lower > bound * (1.0 + kBoundMargin); }

  // Returns false once visit has asked to stop.
  template <class Visit>
  bool descend(std::uint32_t node, const double* query, const double& bound, Visit& visit) const {
    const Node& here = nodes_[node];
    if (here.left == 0) {
      for (std::uint32_t p = here.begin; p < here.end; ++p)
        if (!visit(static_cast<std::size_t>(p))) return false;
      return true;
    }
    double near_bound = lower_bound(here.left, query), far_bound = lower_bound(here.right, query);
    std::uint32_t near = here.left, far = here.right;
    if (far_bound < near_bound) {
      std::swap(near, far);
      std::swap(near_bound, far_bound);
    }
    if (!beyond(near_bound, bound) && !descend(near, query, bound, visit)) return false;
    if (!beyond(far_bound, bound) && !descend(far, query, bound, visit)) return false;
    return true;
  }

  std::size_t dims_;
  std::vector<double> squared_weights_;
  std::vector<std::uint32_t> rows_;  // table row at each tree position
  std::vector<double> points_;       // [position][column]
  std::vector<Node> nodes_;
  std::vector<double> box_lo_, box_hi_;  // [node][column]
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
  const WeightedDistance distance(unit_weights);
  std::vector<double> squared_unit_weights(unit_weights.size());
  for (std::size_t c = 0; c < unit_weights.size(); ++c)
    squared_unit_weights[c] = unit_weights[c] * unit_weights[c];
  const WeightedKdTree conf_tree(data.confidential, squared_unit_weights);
  const WeightedKdTree released_tree(data.released, squared_unit_weights);

  const std::size_t n = conf.rows();
  std::vector<std::uint8_t> identifiable(n, 0);
  const auto positions = static_cast<std::ptrdiff_t>(n);
  ProgressTracker tracker(in.progress, "epsilon_identifiability: confidential records", n);
  // Queries in the tree's order: consecutive queries are neighbours and visit the same nodes.
#pragma omp parallel for schedule(dynamic, 64) num_threads(parallel_threads())
  for (std::ptrdiff_t signed_p = 0; signed_p < positions; ++signed_p) {
    if (tracker.stopped()) continue;
    const auto self = static_cast<std::size_t>(signed_p);
    const double* query = conf_tree.point(self);
    double nearest_other = std::numeric_limits<double>::infinity();
    conf_tree.visit_within(query, nearest_other, [&](std::size_t p) {
      if (p != self)
        nearest_other =
            std::min(nearest_other, distance.squared(query, conf_tree.point(p), nearest_other));
      return nearest_other > 0.0;  // nothing is closer than a duplicate
    });
    // Identifiable when some synthetic record is strictly closer: the first one found decides.
    bool closer = false;
    if (nearest_other > 0.0)
      released_tree.visit_within(query, nearest_other, [&](std::size_t p) {
        closer = distance.squared(query, released_tree.point(p), nearest_other) < nearest_other;
        return !closer;
      });
    identifiable[conf_tree.row(self)] = closer ? 1 : 0;
    tracker.advance(1);
  }
  tracker.throw_if_stopped();
  std::size_t count = 0;
  for (auto v : identifiable) count += v;
  result.add_share("identifiability", "all", static_cast<double>(count), static_cast<double>(n));
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
          "weight. The searches are exact: each table's records are held in a k-d tree (median "
          "splits on the column whose weighted values spread the most, each node's bounding box "
          "kept), and a node is skipped only when the weighted distance to its box already "
          "exceeds the distance to beat, so every record that could matter is compared with the "
          "distance above. They are fast when the nearest records are close in a few columns and "
          "approach n × (n + synthetic rows) pairs when many columns spread the records evenly.",
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
