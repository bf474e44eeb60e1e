// Means, variances, covariance and correlation matrices, confidential vs synthetic.
#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/general/level_tally.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/exact_sum.hpp"
#include "stats/summary.hpp"
#include "stats/survey.hpp"

namespace synthaudit {

namespace {

nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// The moments are computed from exact sums (stats/exact_sum.hpp): per column and flavour the rows
// m, weight W = Σw, Σwx and Σwx² over the rows where the value is present and the weight positive
// (w = 1 unweighted), and per pair the same over the rows where both are present plus Σwxy. The
// reported statistics are differences (syn − conf, the covariance difference norm) of nearly equal
// numbers, which any rounding in the sums turns into visible changes once rows are split over
// ranks or threads; exact sums merge by exact addition, so every partitioning gives the same sums
// and, through the fixed arithmetic of ExactMoments below, the same numbers bit for bit.
struct ColumnSums {
  std::uint64_t rows = 0;
  stats::ExactSum weight, sum, sum_of_squares;

  void merge(const ColumnSums& b) {
    rows += b.rows;
    weight.merge(b.weight);
    sum.merge(b.sum);
    sum_of_squares.merge(b.sum_of_squares);
  }
  void write(StateWriter& out) const {
    out.u64(rows);
    for (const auto* s : {&weight, &sum, &sum_of_squares}) out.u64s(s->words());
  }
  static ColumnSums read(StateReader& in) {
    ColumnSums c;
    c.rows = in.u64();
    for (auto* s : {&c.weight, &c.sum, &c.sum_of_squares})
      *s = stats::ExactSum::from_words(in.u64s());
    return c;
  }
};

struct PairSums {
  std::uint64_t rows = 0;
  stats::ExactSum weight, sum_x, sum_y, sum_xx, sum_yy, sum_xy;

  // A pair's sums as their compact words (ExactSum::words): a partition keeps every pair's
  // sums in this form, a few words per nonzero digit span instead of six whole accumulators,
  // so memory follows the number of pairs times the digits in use.
  struct Image {
    std::uint64_t rows = 0;
    std::array<std::vector<std::uint64_t>, 6> words;
  };
  Image image() const {
    Image out;
    out.rows = rows;
    std::size_t i = 0;
    for (const auto* s : {&weight, &sum_x, &sum_y, &sum_xx, &sum_yy, &sum_xy})
      out.words[i++] = s->words();
    return out;
  }
  static void write(StateWriter& out, const Image& image) {
    out.u64(image.rows);
    for (const auto& w : image.words) out.u64s(w);
  }
  // Adds a partition's pair, as written, to these sums.
  void merge_read(StateReader& in) {
    rows += in.u64();
    for (auto* s : {&weight, &sum_x, &sum_y, &sum_xx, &sum_yy, &sum_xy})
      s->merge(stats::ExactSum::from_words(in.u64s()));
  }
};

// The weight of row i in a sum: s += w·x or w·x·y (a minus sign goes on x: negation is exact).
// Unweighted rows count 1 and the products drop the weight (one multiplication fewer per term).
// The weight sum of `rows` rows (negative: rows taken off) is added once at the end.
struct Unweighted {
  static bool used(std::size_t) { return true; }
  static void add_weight(stats::ExactSum&, std::size_t, double) {}
  static void add_rows(stats::ExactSum& s, std::int64_t rows) { s.add(static_cast<double>(rows)); }
  static void add_times(stats::ExactSum& s, std::size_t, double x) { s.add(x); }
  static void add_times(stats::ExactSum& s, std::size_t, double x, double y) {
    s.add_product(x, y);
  }
};
struct Weighted {
  const std::vector<double>& w;
  bool used(std::size_t i) const { return w[i] > 0; }  // NaN and negative weights drop the row
  void add_weight(stats::ExactSum& s, std::size_t i, double sign) const { s.add(sign * w[i]); }
  static void add_rows(stats::ExactSum&, std::int64_t) {}
  void add_times(stats::ExactSum& s, std::size_t i, double x) const { s.add_product(w[i], x); }
  void add_times(stats::ExactSum& s, std::size_t i, double x, double y) const {
    s.add_product(w[i], x, y);
  }
};

template <class Weights>
ColumnSums column_sums(const std::vector<double>& x, const Weights& weights) {
  ColumnSums c;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || !weights.used(i)) continue;
    ++c.rows;
    weights.add_weight(c.weight, i, 1.0);
    weights.add_times(c.sum, i, x[i]);
    weights.add_times(c.sum_of_squares, i, x[i], x[i]);
  }
  weights.add_rows(c.weight, static_cast<std::int64_t>(c.rows));
  return c;
}

// A pair's sums are its columns' sums less the rows where only one of the two is present
// (subtraction is exact too), so a pass over the rows adds Σwxy and touches the other sums only
// at missing values.
template <class Weights>
PairSums pair_sums(const std::vector<double>& x, const std::vector<double>& y, const ColumnSums& cx,
                   const ColumnSums& cy, const Weights& weights) {
  PairSums p;
  p.rows = cx.rows;
  p.weight = cx.weight;
  p.sum_x = cx.sum;
  p.sum_xx = cx.sum_of_squares;
  p.sum_y = cy.sum;
  p.sum_yy = cy.sum_of_squares;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!weights.used(i)) continue;
    const bool has_x = !std::isnan(x[i]), has_y = !std::isnan(y[i]);
    if (has_x && has_y) [[likely]] {
      weights.add_times(p.sum_xy, i, x[i], y[i]);
    } else if (has_x) {
      --p.rows;
      weights.add_weight(p.weight, i, -1.0);
      weights.add_times(p.sum_x, i, -x[i]);
      weights.add_times(p.sum_xx, i, -x[i], x[i]);
    } else if (has_y) {
      weights.add_times(p.sum_y, i, -y[i]);
      weights.add_times(p.sum_yy, i, -y[i], y[i]);
    }
  }
  weights.add_rows(p.weight, -static_cast<std::int64_t>(cx.rows - p.rows));
  return p;
}

// The statistics of one pair (or one column, x = y) as fixed functions of the exact sums:
// D_xy = W·Σwxy − Σwx·Σwy = W·Σw(x − x̄)(y − ȳ) exactly, so the svyvar covariance
// m/(m − 1)·Σw(x − x̄)(y − ȳ)/W is m/(m − 1)·D_xy/W² and the correlation D_xy/√(D_xx·D_yy).
// Each exact number is read to a 64-bit fraction with a sticky bit (ExactNumber::scaled) and the
// few remaining operations are in long double: within a few units of 2^-64 relative before the
// final rounding to double, and the same on every run of the same build.
struct ExactMoments {
  std::uint64_t rows = 0;
  stats::ExactNumber weight, sum_x, d_xx, d_yy, d_xy;

  static ExactMoments of(const ColumnSums& c) {
    const stats::ExactNumber w = c.weight.value(), s = c.sum.value();
    const stats::ExactNumber d = w * c.sum_of_squares.value() - s * s;
    return {c.rows, w, s, d, d, d};
  }
  static ExactMoments of(const PairSums& p) {
    const stats::ExactNumber w = p.weight.value(), sx = p.sum_x.value(), sy = p.sum_y.value();
    return {p.rows,
            w,
            sx,
            w * p.sum_xx.value() - sx * sx,
            w * p.sum_yy.value() - sy * sy,
            w * p.sum_xy.value() - sx * sy};
  }

  // a / b (b nonzero), the exponents apart until the end so no intermediate overflows.
  static long double ratio(const stats::ExactNumber& a, const stats::ExactNumber& b) {
    const auto sa = a.scaled(), sb = b.scaled();
    return std::ldexp(sa.fraction / sb.fraction, static_cast<int>(std::clamp<std::int64_t>(
                                                     sa.exponent - sb.exponent, -40000, 40000)));
  }
  double mean() const { return rows == 0 ? std::nan("") : double(ratio(sum_x, weight)); }
  double scaled(const stats::ExactNumber& d) const {
    if (rows < 2) return std::nan("");
    const long double m = static_cast<long double>(rows);
    return static_cast<double>(m / (m - 1) * ratio(d, weight * weight));
  }
  double variance() const { return scaled(d_xx); }
  double covariance() const { return scaled(d_xy); }
  double correlation() const {
    if (rows < 2 || d_xx.sign() <= 0 || d_yy.sign() <= 0) return std::nan("");
    auto product = (d_xx * d_yy).scaled();
    if (product.exponent % 2 != 0) {
      product.fraction *= 2;
      --product.exponent;
    }
    const auto numerator = d_xy.scaled();
    return static_cast<double>(
        std::ldexp(numerator.fraction / std::sqrt(product.fraction),
                   static_cast<int>(std::clamp<std::int64_t>(
                       numerator.exponent - product.exponent / 2, -40000, 40000))));
  }
};

std::vector<std::size_t> numeric_columns(const MetricInput& in) {
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < in.confidential.column_count(); ++c)
    if (in.confidential.column(c).is_numeric() && !is_design_column(in, c)) cols.push_back(c);
  if (cols.empty()) throw MetricNotApplicable("no numeric columns");
  return cols;
}

// Every pair i <= j of the numeric columns (the diagonal first, then i < j by rows).
std::vector<std::pair<std::size_t, std::size_t>> column_pairs(std::size_t k) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < k; ++i) pairs.emplace_back(i, i);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = i + 1; j < k; ++j) pairs.emplace_back(i, j);
  return pairs;
}

// A table's numeric columns under one weighting: the confidential data (weighted when weights
// are declared), the synthetic data unweighted and, when possible, by its own weights.
struct Flavour {
  const Table* table;
  const std::vector<double>* weights;  // nullptr: unweighted
};

// A partition's sufficient statistics: the number of flavours, the synthetic weight column's
// facts, per flavour the ColumnSums of every numeric column, and per flavour the PairSums of
// every pair i < j.
std::string moments_state(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const auto cols = numeric_columns(in);
  const PartitionWeightColumns weights = partition_weight_columns(in, syn, params);
  std::vector<Flavour> flavours{{&conf, weights.confidential}, {&syn, nullptr}};
  if (weights.synthetic_own != nullptr) flavours.push_back({&syn, weights.synthetic_own});
  const std::size_t k = cols.size();
  const auto pairs = column_pairs(k);
  const std::size_t off_diagonal = pairs.size() - k;
  std::vector<ColumnSums> columns(flavours.size() * k);
  std::vector<PairSums::Image> pair(flavours.size() * off_diagonal);
  const bool parallel = std::max(conf.rows(), syn.rows()) > 10000;
  // The tasks are independent and each sum is exact, so no thread count changes a bit.
#pragma omp parallel for schedule(dynamic) if (parallel && columns.size() > 1) \
    num_threads(parallel_threads())
  for (std::size_t t = 0; t < columns.size(); ++t) {
    const Flavour& f = flavours[t / k];
    const auto& x = f.table->column(cols[t % k]).numeric;
    columns[t] =
        f.weights != nullptr ? column_sums(x, Weighted{*f.weights}) : column_sums(x, Unweighted{});
  }
#pragma omp parallel for schedule(dynamic) if (parallel && pair.size() > 1) \
    num_threads(parallel_threads())
  for (std::size_t t = 0; t < pair.size(); ++t) {
    const std::size_t f = t / off_diagonal;
    const auto [i, j] = pairs[k + t % off_diagonal];
    const Flavour& flavour = flavours[f];
    const auto& x = flavour.table->column(cols[i]).numeric;
    const auto& y = flavour.table->column(cols[j]).numeric;
    const ColumnSums& cx = columns[f * k + i];
    const ColumnSums& cy = columns[f * k + j];
    pair[t] = (flavour.weights != nullptr ? pair_sums(x, y, cx, cy, Weighted{*flavour.weights})
                                          : pair_sums(x, y, cx, cy, Unweighted{}))
                  .image();
  }
  StateWriter out;
  out.u64(flavours.size());
  weights.write_facts(out);
  for (const auto& c : columns) c.write(out);
  for (const auto& p : pair) PairSums::write(out, p);
  return out.take();
}

MetricResult finalize_moments_and_covariance(const std::vector<std::string>& states,
                                             const MetricInput& schema, const Params& params) {
  MetricResult result;
  const Table& conf = schema.confidential;
  const bool with_plots = params.get_bool("plots");
  const auto cols = numeric_columns(schema);
  const auto all_pairs = column_pairs(cols.size());
  const std::size_t k = cols.size();
  const std::size_t off_diagonal = all_pairs.size() - k;
  std::vector<StateReader> readers;
  readers.reserve(states.size());
  std::size_t flavours = 0;
  WeightColumnFacts facts;
  for (const auto& state : states) {
    StateReader& in = readers.emplace_back(state);
    flavours = in.u64();
    facts.merge_after(read_facts(in));
  }
  const bool own =
      use_own_weights(schema, schema.first_synthetic(), facts, params, result.warnings);
  const std::size_t syn_flavour = own ? 2 : 1;
  // Per pair (the diagonal first, as all_pairs) the confidential and synthetic moments. The
  // states are read side by side, one pair at a time, so merging holds one pair's accumulators.
  std::vector<ExactMoments> conf_moments, syn_moments;
  std::vector<ColumnSums> columns(flavours * k);
  for (auto& in : readers)
    for (auto& c : columns) c.merge(ColumnSums::read(in));
  for (std::size_t i = 0; i < k; ++i) {
    conf_moments.push_back(ExactMoments::of(columns[i]));
    syn_moments.push_back(ExactMoments::of(columns[syn_flavour * k + i]));
  }
  for (std::size_t f = 0; f < flavours; ++f) {
    for (std::size_t t = 0; t < off_diagonal; ++t) {
      PairSums merged;
      for (auto& in : readers) merged.merge_read(in);
      if (f == 0) conf_moments.push_back(ExactMoments::of(merged));
      if (f == syn_flavour) syn_moments.push_back(ExactMoments::of(merged));
    }
  }
  for (const auto& in : readers) in.expect_end();
  auto conf_of = [&](std::size_t p) -> const ExactMoments& { return conf_moments[p]; };
  auto syn_of = [&](std::size_t p) -> const ExactMoments& { return syn_moments[p]; };

  std::vector<std::string> names;
  for (auto c : cols) names.push_back(conf.column(c).name);
  for (std::size_t i = 0; i < k; ++i) {
    const ExactMoments& mc = conf_of(i);
    const ExactMoments& ms = syn_of(i);
    const double vc = mc.variance(), vs = ms.variance();
    result.add("conf_mean", names[i], mc.mean());
    result.add("syn_mean", names[i], ms.mean());
    result.add("diff_mean", names[i], ms.mean() - mc.mean());
    result.add("conf_variance", names[i], vc);
    result.add("syn_variance", names[i], vs);
    result.add("diff_variance", names[i], vs - vc);
    result.add("variance_ratio", names[i], vc > 0 ? vs / vc : std::nan(""));
  }

  double frob_diff = 0, frob_conf = 0, max_abs_corr = 0, sum_abs_corr = 0;
  std::size_t n_corr = 0;
  bool frob_ok = true;
  auto heat =
      make_plot("heatmap", "Correlation difference (synthetic − confidential)", "column", "column");
  auto matrices = nlohmann::json::array();
  // Diagonal: variances (complete-case over the column itself).
  for (std::size_t i = 0; i < k; ++i) {
    const auto vc = conf_of(i).variance();
    const auto vs = syn_of(i).variance();
    if (std::isfinite(vc) && std::isfinite(vs)) {
      frob_diff += (vs - vc) * (vs - vc);
      frob_conf += vc * vc;
    } else {
      frob_ok = false;
    }
    if (with_plots)
      heat["data"].push_back({{"row", names[i]}, {"column", names[i]}, {"value", 0.0}});
  }
  for (std::size_t p = k; p < all_pairs.size(); ++p) {
    const auto [i, j] = all_pairs[p];
    const std::string scope = names[i] + ":" + names[j];
    const stats::PairwiseCovariance c{conf_of(p).rows, conf_of(p).covariance(),
                                      conf_of(p).correlation()};
    const stats::PairwiseCovariance s{syn_of(p).rows, syn_of(p).covariance(),
                                      syn_of(p).correlation()};
    result.add("conf_covariance", scope, c.covariance);
    result.add("syn_covariance", scope, s.covariance);
    result.add("diff_covariance", scope, s.covariance - c.covariance);
    result.add("conf_correlation", scope, c.correlation);
    result.add("syn_correlation", scope, s.correlation);
    const double dr = s.correlation - c.correlation;
    result.add("diff_correlation", scope, dr);
    if (std::isfinite(s.covariance) && std::isfinite(c.covariance)) {
      frob_diff += 2 * (s.covariance - c.covariance) * (s.covariance - c.covariance);
      frob_conf += 2 * c.covariance * c.covariance;
    } else {
      frob_ok = false;
    }
    if (std::isfinite(dr)) {
      max_abs_corr = std::max(max_abs_corr, std::abs(dr));
      sum_abs_corr += std::abs(dr);
      ++n_corr;
    }
    matrices.push_back({{"row", names[i]},
                        {"column", names[j]},
                        {"complete_rows_conf", c.n},
                        {"complete_rows_syn", s.n},
                        {"conf_covariance", num(c.covariance)},
                        {"syn_covariance", num(s.covariance)},
                        {"conf_correlation", num(c.correlation)},
                        {"syn_correlation", num(s.correlation)}});
    if (with_plots) {
      heat["data"].push_back({{"row", names[i]}, {"column", names[j]}, {"value", num(dr)}});
      heat["data"].push_back({{"row", names[j]}, {"column", names[i]}, {"value", num(dr)}});
    }
  }
  if (frob_ok && frob_conf > 0)
    result.add("relative_covariance_difference", "all", std::sqrt(frob_diff / frob_conf));
  if (n_corr > 0) {
    result.add("max_abs_correlation_difference", "all", max_abs_corr);
    result.add("mean_abs_correlation_difference", "all", sum_abs_corr / double(n_corr));
  }
  result.details["pairs"] = std::move(matrices);
  if (with_plots && k >= 2) result.details["plots"] = nlohmann::json::array({std::move(heat)});
  return result;
}

// One process is one partition: the same code path as a partitioned run.
MetricResult compute_moments_and_covariance(const MetricInput& in, const Params& params) {
  return finalize_moments_and_covariance({moments_state(in, params)}, in, params);
}

}  // namespace

MetricSpec moments_and_covariance_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "moments_and_covariance",
      .family = MetricFamily::kGeneral,
      .summary =
          "Means, variances, covariance and correlation matrices of the numeric columns, "
          "confidential vs synthetic, with differences",
      .doc =
          "Per numeric column: mean and sample variance (divisor n − 1, as R var/cov and "
          "numpy.cov) over its non-missing values, as conf_, syn_ and diff_ (syn − conf), and "
          "variance_ratio = var_syn/var_conf. Per pair a:b of numeric columns: covariance "
          "(divisor n − 1, as R cov() and every reference tool) and "
          "Pearson correlation over the rows where both are non-missing (R "
          "use = \"pairwise.complete.obs\", pandas DataFrame.cov/corr), with differences. "
          "Summary: relative_covariance_difference = ‖C_syn − C_conf‖_F / ‖C_conf‖_F over the "
          "full matrices (diagonal = variances), max_abs_correlation_difference and "
          "mean_abs_correlation_difference over pairs. Independent noise keeps covariances "
          "but shrinks correlations, so read both. Plot: heatmap of the correlation "
          "difference. With weights: declared the means are svymean, the variances and "
          "covariances svyvar on the rows where the values are present (m/(m − 1)·Σw(x − x̄)"
          "(y − ȳ)/Σw, m those rows of positive weight; equal weights give the unweighted "
          "values) and the correlations cov/√(var·var) over the same rows. Every sum behind "
          "these statistics (Σw, Σwx, Σwx², Σwxy per column and pair) is exact, kept in a "
          "fixed-point accumulator as wide as the double range (Kulisch 2013; Neal 2015), and "
          "each statistic is a fixed function of the exact sums (W·Σwxy − Σwx·Σwy formed "
          "exactly, then rounded): a run split over MPI ranks or threads gives the same "
          "numbers bit for bit, and a difference of two nearly equal statistics is not "
          "rounding noise of the summation order." +
          std::string(kWeightsDoc),
      .params = {{.name = "plots",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "emit the correlation-difference heatmap"},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "relative_covariance_difference",
                     .ideal = Ideal::lower(),
                     .reading = "size of the change in the covariance matrix relative to the real "
                                "one (Frobenius norm; 0 = identical)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute_moments_and_covariance,
      .mergeable = MergeableForm{.partial_state = moments_state,
                                 .finalize = finalize_moments_and_covariance},
      .statistics =
          {{"{conf|syn}_{mean|variance}",
            "mean and sample variance (divisor n − 1) of a numeric column in one dataset",
            std::nullopt,
            {kColumn}},
           {"diff_{mean|variance}",
            "synthetic − confidential mean or variance",
            Ideal::at(0.0),
            {kColumn}},
           {"variance_ratio",
            "synthetic variance / confidential variance",
            Ideal::at(1.0, TargetScale::kRatio),
            {kColumn}},
           {"{conf|syn}_{covariance|correlation}",
            "covariance (divisor n − 1) and Pearson correlation of a numeric pair in one dataset",
            std::nullopt,
            {kColumnPair}},
           {"diff_{covariance|correlation}",
            "synthetic − confidential covariance or correlation",
            Ideal::at(0.0),
            {kColumnPair}},
           {"relative_covariance_difference",
            "‖C_syn − C_conf‖_F / ‖C_conf‖_F over the covariance matrices",
            Ideal::lower(),
            {kAll}},
           {"max_abs_correlation_difference",
            "largest absolute correlation difference over the pairs",
            Ideal::lower(),
            {kAll}},
           {"mean_abs_correlation_difference",
            "mean absolute correlation difference over the pairs",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(urban_institute_2023(),
                          "means, variances and the variance–covariance matrix as general utility"),
                     cite(kulik_lecture_notes(),
                          "basic statistics; noise keeps covariances and shrinks correlations"),
                     cite(lumley_2004(), "svymean and svyvar with survey weights"),
                     cite(kulisch_2013(), "exact sums in a long fixed-point accumulator"),
                     cite(neal_2015(), "the superaccumulator with lazy carry propagation")},
      // Covariance and correlation matrices over the whole data.
      .aggregate_details = {"pairs"},
  };
}

}  // namespace synthaudit
