// Means, variances, covariance and correlation matrices, confidential vs synthetic.
#include <cmath>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/general/level_tally.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/summary.hpp"
#include "stats/survey.hpp"

namespace synthaudit {

namespace {

nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// Weighted co-moments of two columns over the rows where both are present and the weight is
// positive (every row has weight 1 when unweighted): rows, weight, means and centred sums of
// products. Two consecutive row ranges combine exactly up to rounding (Chan, Golub & LeVeque
// 1983, the pairwise update), so a partitioned run merges them. The sums are kept in extended
// precision (and a state carries them as two doubles each) because the statistics reported from
// them are differences (syn − conf, the covariance difference norm) that cancel most digits: in
// double precision the order of the sums alone moved those by 1e-12 relative.
struct CoMoments {
  using Wide = long double;
  std::uint64_t n = 0;
  Wide weight = 0, mean_x = 0, mean_y = 0, cxx = 0, cyy = 0, cxy = 0;

  static CoMoments of(const std::vector<double>& x, const std::vector<double>& y,
                      const std::vector<double>* w) {
    CoMoments m;
    Wide sx = 0, sy = 0;
    auto weight_of = [w](std::size_t i) { return w == nullptr ? 1.0 : (*w)[i]; };
    auto used = [&](std::size_t i) {
      return !std::isnan(x[i]) && !std::isnan(y[i]) && weight_of(i) > 0;
    };
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!used(i)) continue;
      ++m.n;
      m.weight += weight_of(i);
      sx += static_cast<Wide>(weight_of(i)) * x[i];
      sy += static_cast<Wide>(weight_of(i)) * y[i];
    }
    if (m.n == 0) return m;
    m.mean_x = sx / m.weight;
    m.mean_y = sy / m.weight;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!used(i)) continue;
      const Wide dx = x[i] - m.mean_x, dy = y[i] - m.mean_y;
      m.cxx += weight_of(i) * dx * dx;
      m.cyy += weight_of(i) * dy * dy;
      m.cxy += weight_of(i) * dx * dy;
    }
    return m;
  }
  // These rows followed by `b`'s.
  void merge(const CoMoments& b) {
    if (b.n == 0) return;
    if (n == 0) {
      *this = b;
      return;
    }
    const Wide total = weight + b.weight;
    const Wide dx = b.mean_x - mean_x, dy = b.mean_y - mean_y;
    const Wide share = b.weight / total;
    cxx += b.cxx + dx * dx * weight * share;
    cyy += b.cyy + dy * dy * weight * share;
    cxy += b.cxy + dx * dy * weight * share;
    mean_x += dx * share;
    mean_y += dy * share;
    weight = total;
    n += b.n;
  }
  // An extended value as two doubles, high part and the exact remainder.
  static void write_wide(StateWriter& out, Wide v) {
    const double high = static_cast<double>(v);
    out.f64(high);
    out.f64(static_cast<double>(v - high));
  }
  static Wide read_wide(StateReader& in) {
    const Wide high = in.f64();
    return high + in.f64();
  }
  void write(StateWriter& out) const {
    out.u64(n);
    for (Wide v : {weight, mean_x, mean_y, cxx, cyy, cxy}) write_wide(out, v);
  }
  static CoMoments read(StateReader& in) {
    CoMoments m;
    m.n = in.u64();
    for (Wide* v : {&m.weight, &m.mean_x, &m.mean_y, &m.cxx, &m.cyy, &m.cxy}) *v = read_wide(in);
    return m;
  }
  // The sample (or svyvar) statistics: NaN where fewer than 2 rows (the mean: none).
  double mean() const { return n == 0 ? std::nan("") : static_cast<double>(mean_x); }
  double scaled(Wide sum) const {
    if (n < 2) return std::nan("");
    return static_cast<double>(static_cast<Wide>(n) / static_cast<Wide>(n - 1) * sum / weight);
  }
  double variance() const { return scaled(cxx); }
  double covariance() const { return scaled(cxy); }
  double correlation() const {
    return n >= 2 && cxx > 0 && cyy > 0 ? static_cast<double>(cxy / std::sqrt(cxx * cyy))
                                        : std::nan("");
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

// A partition's sufficient statistics: per pair the co-moments of the confidential data
// (weighted when weights are declared), of the synthetic data unweighted and, when its own
// weights are possible, weighted by them; then the synthetic weight column's facts.
std::string moments_state(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const auto cols = numeric_columns(in);
  const PartitionWeightColumns weights = partition_weight_columns(in, syn, params);
  const auto pairs = column_pairs(cols.size());
  const std::size_t flavours = weights.synthetic_own != nullptr ? 3 : 2;
  std::vector<CoMoments> m(pairs.size() * flavours);
  // Pairs are independent, so the parallel loop is deterministic.
#pragma omp parallel for schedule(dynamic) if (pairs.size() > 1 && conf.rows() > 10000) \
    num_threads(parallel_threads())
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [i, j] = pairs[p];
    m[p * flavours] = CoMoments::of(conf.column(cols[i]).numeric, conf.column(cols[j]).numeric,
                                    weights.confidential);
    m[p * flavours + 1] =
        CoMoments::of(syn.column(cols[i]).numeric, syn.column(cols[j]).numeric, nullptr);
    if (flavours == 3)
      m[p * flavours + 2] = CoMoments::of(syn.column(cols[i]).numeric, syn.column(cols[j]).numeric,
                                          weights.synthetic_own);
  }
  StateWriter out;
  out.u64(flavours);
  for (const auto& moments : m) moments.write(out);
  weights.write_facts(out);
  return out.take();
}

MetricResult finalize_moments_and_covariance(const std::vector<std::string>& states,
                                             const MetricInput& schema, const Params& params) {
  MetricResult result;
  const Table& conf = schema.confidential;
  const bool with_plots = params.get_bool("plots");
  const auto cols = numeric_columns(schema);
  const auto all_pairs = column_pairs(cols.size());
  std::vector<CoMoments> merged;
  std::size_t flavours = 0;
  WeightColumnFacts facts;
  for (std::size_t s = 0; s < states.size(); ++s) {
    StateReader in(states[s]);
    flavours = in.u64();
    if (s == 0) merged.resize(all_pairs.size() * flavours);
    for (auto& m : merged) m.merge(CoMoments::read(in));
    facts.merge_after(read_facts(in));
    in.expect_end();
  }
  const bool own =
      use_own_weights(schema, schema.first_synthetic(), facts, params, result.warnings);
  const std::size_t syn_flavour = own ? 2 : 1;
  const std::size_t k = cols.size();
  auto conf_of = [&](std::size_t p) -> const CoMoments& { return merged[p * flavours]; };
  auto syn_of = [&](std::size_t p) -> const CoMoments& {
    return merged[p * flavours + syn_flavour];
  };

  std::vector<std::string> names;
  for (auto c : cols) names.push_back(conf.column(c).name);
  for (std::size_t i = 0; i < k; ++i) {
    const CoMoments& mc = conf_of(i);
    const CoMoments& ms = syn_of(i);
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
    const stats::PairwiseCovariance c{conf_of(p).n, conf_of(p).covariance(),
                                      conf_of(p).correlation()};
    const stats::PairwiseCovariance s{syn_of(p).n, syn_of(p).covariance(), syn_of(p).correlation()};
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
          "values) and the correlations cov/√(var·var) over the same rows." +
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
                     cite(lumley_2004(), "svymean and svyvar with survey weights")},
      // Covariance and correlation matrices over the whole data.
      .aggregate_details = {"pairs"},
  };
}

}  // namespace synthaudit
