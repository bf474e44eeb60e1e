// Means, variances, covariance and correlation matrices, confidential vs synthetic.
#include <cmath>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/summary.hpp"
#include "stats/survey.hpp"

namespace synthaudit {

namespace {

nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

struct PairStats {
  stats::PairwiseCovariance conf, syn;
};

// Mean and variance of a column: the sample moments, or with survey weights svymean and svyvar
// over the rows where the column is present.
struct MeanVariance {
  double mean, variance;
};
MeanVariance mean_variance(const Column& column, const std::vector<double>& weights) {
  if (weights.empty()) {
    const auto m = stats::moments(column.numeric);
    return {m.mean, m.variance};
  }
  const auto m = stats::survey_moments(column.numeric, weights);
  return {m.mean_x, m.variance_x};
}

stats::PairwiseCovariance covariance_of(const Column& x, const Column& y,
                                        const std::vector<double>& weights) {
  if (weights.empty()) return stats::pairwise_covariance(x.numeric, y.numeric);
  const auto m = stats::survey_moments(x.numeric, y.numeric, weights);
  return {m.n, m.covariance, m.correlation};
}

MetricResult compute_moments_and_covariance(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const bool with_plots = params.get_bool("plots");
  const DesignWeights weights = design_weights(in, syn, params, result.warnings);
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < conf.column_count(); ++c)
    if (conf.column(c).is_numeric() && !is_design_column(in, c)) cols.push_back(c);
  if (cols.empty()) throw MetricNotApplicable("no numeric columns");

  std::vector<std::string> names;
  for (auto c : cols) names.push_back(conf.column(c).name);
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const auto mc = mean_variance(conf.column(cols[i]), weights.confidential);
    const auto ms = mean_variance(syn.column(cols[i]), weights.synthetic);
    result.add("conf_mean", names[i], mc.mean);
    result.add("syn_mean", names[i], ms.mean);
    result.add("diff_mean", names[i], ms.mean - mc.mean);
    result.add("conf_variance", names[i], mc.variance);
    result.add("syn_variance", names[i], ms.variance);
    result.add("diff_variance", names[i], ms.variance - mc.variance);
    result.add("variance_ratio", names[i],
               mc.variance > 0 ? ms.variance / mc.variance : std::nan(""));
  }

  // Every unordered pair i < j; pairs are independent, so the parallel loop is deterministic.
  const std::size_t k = cols.size();
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = i + 1; j < k; ++j) pairs.emplace_back(i, j);
  std::vector<PairStats> ps(pairs.size());
#pragma omp parallel for schedule(dynamic) if (pairs.size() > 1 && conf.rows() > 10000) \
    num_threads(parallel_threads())
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [i, j] = pairs[p];
    ps[p].conf = covariance_of(conf.column(cols[i]), conf.column(cols[j]), weights.confidential);
    ps[p].syn = covariance_of(syn.column(cols[i]), syn.column(cols[j]), weights.synthetic);
  }

  double frob_diff = 0, frob_conf = 0, max_abs_corr = 0, sum_abs_corr = 0;
  std::size_t n_corr = 0;
  bool frob_ok = true;
  auto heat =
      make_plot("heatmap", "Correlation difference (synthetic − confidential)", "column", "column");
  auto matrices = nlohmann::json::array();
  // Diagonal: variances (complete-case over the column itself).
  for (std::size_t i = 0; i < k; ++i) {
    const auto vc = mean_variance(conf.column(cols[i]), weights.confidential).variance;
    const auto vs = mean_variance(syn.column(cols[i]), weights.synthetic).variance;
    if (std::isfinite(vc) && std::isfinite(vs)) {
      frob_diff += (vs - vc) * (vs - vc);
      frob_conf += vc * vc;
    } else {
      frob_ok = false;
    }
    if (with_plots)
      heat["data"].push_back({{"row", names[i]}, {"column", names[i]}, {"value", 0.0}});
  }
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [i, j] = pairs[p];
    const std::string scope = names[i] + ":" + names[j];
    const auto& c = ps[p].conf;
    const auto& s = ps[p].syn;
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
