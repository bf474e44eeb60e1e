// Design-based standard errors at scale (src/stats/survey_design.cpp): a weighted mean under
// weights alone (svydesign(ids = ~1)), under 50 strata of 2 nested PSUs each (NHANES' shape), and
// under 80 replicate weights; a svyglm gaussian fit with 5 predictors under the stratified design.
// The reference line is the weights-alone formula written as one plain loop, what the estimate
// cost before designs (the design path adds the weights' copy and the design effect's moments).
// Usage: survey_design_bench ROWS
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "stats/survey.hpp"
#include "stats/survey_design.hpp"

using namespace synthaudit;

namespace {

template <typename F>
double milliseconds(int repeats, F f) {
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
             .count() /
         repeats;
}

Column numeric_column(const std::string& name, std::vector<double> values) {
  Column c;
  c.name = name;
  c.kind = ColumnKind::kNumeric;
  c.numeric = std::move(values);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal;
  std::vector<double> x(n), w(n), stratum(n), psu(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = normal(rng);
    w[i] = 1 + std::abs(normal(rng));
    stratum[i] = static_cast<double>(i % 50);
    psu[i] = static_cast<double>((i / 50) % 2);
  }
  std::vector<Column> columns = {numeric_column("s", stratum), numeric_column("p", psu),
                                 numeric_column("w", w)};
  for (int r = 0; r < 80; ++r) {
    std::vector<double> replicate(n);
    for (std::size_t i = 0; i < n; ++i) replicate[i] = w[i] * (psu[i] == r % 2 ? 2.0 : 0.0);
    columns.push_back(numeric_column("rep" + std::to_string(r), replicate));
  }
  const Table table({"", "", "confidential"}, columns);
  stats::SurveyDesignSpec strata;
  strata.strata = "s";
  strata.clusters = {"p"};
  strata.nest = true;
  const auto stratified = stats::SurveyDesign::declared(strata, table, w);
  stats::SurveyDesignSpec replicated;
  replicated.replicate_weights = {"rep*"};
  replicated.replicate_type = stats::ReplicateType::kBootstrap;
  const auto with_replicates = stats::SurveyDesign::declared(replicated, table, w);

  double sink = 0;
  const double plain = milliseconds(5, [&] {
    double sw = 0, swx = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sw += w[i];
      swx += w[i] * x[i];
    }
    const double mean = swx / sw;
    std::vector<double> z(n);
    for (std::size_t i = 0; i < n; ++i) z[i] = w[i] * (x[i] - mean) / sw;
    const double centre = std::accumulate(z.begin(), z.end(), 0.0) / static_cast<double>(n);
    double s = 0;
    for (const double v : z) s += (v - centre) * (v - centre);
    sink += s;
  });
  const double alone = milliseconds(5, [&] { sink += stats::survey_mean(x, w).se; });
  const double by_strata = milliseconds(5, [&] { sink += stats::survey_mean(x, stratified).se; });
  const double by_replicates =
      milliseconds(2, [&] { sink += stats::survey_mean(x, with_replicates).se; });
  Eigen::MatrixXd design(static_cast<Eigen::Index>(n), 6);
  Eigen::VectorXd y(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < design.rows(); ++i) {
    design(i, 0) = 1;
    for (Eigen::Index j = 1; j < 6; ++j) design(i, j) = normal(rng);
    y[i] = design.row(i).sum() + normal(rng);
  }
  std::vector<std::size_t> rows(n);
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  const double fit = milliseconds(2, [&] {
    sink += stats::survey_glm(design, y, stratified, rows, stats::GlmFamily::kGaussian,
                              stats::GlmLink::kIdentity)
                .se[1];
  });
  std::printf("survey_design_bench %zu rows: weighted mean SE, plain loop %.1f ms; weights alone "
              "%.1f ms; 50 strata x 2 PSUs %.1f ms; 80 replicate weights %.1f ms; svyglm "
              "gaussian (6 coefficients, strata x PSUs) %.1f ms  [%g]\n",
              n, plain, alone, by_strata, by_replicates, fit, sink > 0 ? 1.0 : 0.0);
}
