// Record-level change when synthetic rows correspond to confidential rows (partial
// synthesis, perturbation): records changed per variable, MSE_i and R²_i.
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

// Which kind of missing a numeric cell is: -1 not missing, 0 ordinary NA, k the k-th missing code.
int missing_kind(const Column& c, std::size_t r) {
  if (!std::isnan(c.numeric[r])) return -1;
  return c.missing_code_index.empty() ? 0 : c.missing_code_index[r];
}

MetricResult compute_record_level_change(const MetricInput& in, const Params&) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (syn.rows() != conf.rows())
    throw MetricNotApplicable(
        "record_level_change needs rows that correspond: the synthetic data have " +
        std::to_string(syn.rows()) + " rows, the confidential " + std::to_string(conf.rows()));
  const std::size_t n = conf.rows();
  if (n == 0) throw MetricNotApplicable("record_level_change: no rows");
  double share_sum = 0, r2_sum = 0;
  std::size_t r2_count = 0;
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    const Column& x = conf.column(c);
    const Column& y = syn.column(c);
    double changed = 0;
    if (x.is_categorical()) {
      for (std::size_t r = 0; r < n; ++r) changed += x.codes[r] != y.codes[r] ? 1 : 0;
    } else {
      // Changed: different values, or a different kind of missing (value vs NA vs missing code).
      double sum = 0, both = 0;
      for (std::size_t r = 0; r < n; ++r) {
        const int kx = missing_kind(x, r), ky = missing_kind(y, r);
        if (kx != ky || (kx < 0 && x.numeric[r] != y.numeric[r])) changed += 1;
        if (kx < 0 && ky < 0) {
          sum += x.numeric[r];
          both += 1;
        }
      }
      // MSE_i and R²_i over the rows where both values are present.
      double sse = 0, sst = 0;
      const double mean = both > 0 ? sum / both : std::numeric_limits<double>::quiet_NaN();
      for (std::size_t r = 0; r < n; ++r) {
        if (std::isnan(x.numeric[r]) || std::isnan(y.numeric[r])) continue;
        const double d = x.numeric[r] - y.numeric[r];
        sse += d * d;
        sst += (x.numeric[r] - mean) * (x.numeric[r] - mean);
      }
      const double mse = both > 0 ? sse / both : std::numeric_limits<double>::quiet_NaN();
      const double r2 = sst > 0 ? 1 - sse / sst : std::numeric_limits<double>::quiet_NaN();
      result.add("mse", x.name, mse);
      result.add("r_squared", x.name, r2);
      result.add("rows_compared", x.name, both);
      if (std::isfinite(r2)) {
        r2_sum += r2;
        ++r2_count;
      }
    }
    result.add("records_changed", x.name, changed);
    result.add("share_changed", x.name, changed / static_cast<double>(n));
    share_sum += changed / static_cast<double>(n);
  }
  result.add("mean_share_changed", "all", share_sum / static_cast<double>(conf.column_count()));
  if (r2_count > 0) result.add("mean_r_squared", "all", r2_sum / static_cast<double>(r2_count));
  return result;
}

}  // namespace

MetricSpec record_level_change_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "record_level_change",
      .family = MetricFamily::kGeneral,
      .summary =
          "Records changed per variable, and MSE and R² of each numeric variable, when "
          "synthetic rows correspond to confidential rows",
      .doc =
          "Partial synthesis or perturbation only (rows correspond). Per column: "
          "records_changed = Σ_j 1{x_j ≠ y_j} (a change of missingness, or between NA and a "
          "declared missing code, counts as a change) and share_changed = records_changed/n. "
          "Numeric columns, over the rows where both values are present: MSE_i = (1/n)Σ(x_j − "
          "y_j)² and R²_i = 1 − Σ(x_j − y_j)²/Σ(x_j − x̄)² (1 = unchanged; can be negative). "
          "More change means less utility and, usually, less disclosure risk.",
      .params = {},
      .granularity = MetricGranularity::kPerReplicate,
      .needs_row_correspondence = true,
      .headlines = {{.statistic = "mean_r_squared",
                     .ideal = Ideal::higher(),
                     .reading = "mean R² of the synthetic values against the confidential values "
                                "of the same records (1 = unchanged)",
                     .baseline = Baseline::none(),
                     .unit = Unit::kNumber}},
      .compute = compute_record_level_change,
      .statistics =
          {{"records_changed",
            "records whose value differs from the confidential value of the same record",
            std::nullopt,
            {kColumn}},
           {"share_changed", "records_changed / n", std::nullopt, {kColumn}},
           {"mse",
            "mean squared difference between the synthetic and confidential values of the same "
            "records",
            Ideal::lower(),
            {kColumn}},
           {"r_squared",
            "1 − Σ(x − y)²/Σ(x − x̄)²: how much of the confidential variation the synthetic values "
            "keep (1 = unchanged)",
            Ideal::higher(),
            {kColumn}},
           {"rows_compared", "records with both values present", std::nullopt, {kColumn}},
           {"mean_share_changed",
            "mean share of changed records over the columns",
            std::nullopt,
            {kAll}},
           {"mean_r_squared", "mean R² over the numeric columns", Ideal::higher(), {kAll}}},
      .references = {cite(kulik_lecture_notes(),
                          "records changed, MSE and coefficient of determination per variable"),
                     cite(hundepool_2012(), "information loss measures for perturbed microdata")},
  };
}

}  // namespace synthaudit
