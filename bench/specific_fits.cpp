// Speed of the specific-utility fits (issue 5): OLS with 20 predictors on 1M rows (target ≤ 1 s)
// and a logistic regression of the same size (target ≤ 3 s). Times the fit on a built design
// matrix, and the whole path from a Table through the formula and model matrix.
//   bench_specific_fits [rows=1000000] [repeats=3]
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "core/random.hpp"
#include "stats/formula.hpp"
#include "stats/glm.hpp"
#include "stats/model_matrix.hpp"
#include "stats/ols.hpp"

using namespace synthaudit;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds of the whole process (all threads): on a shared, overloaded machine the wall time
// includes waiting for a core, this does not.
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  constexpr int kPredictors = 20;
  // 20 correlated numeric predictors, a linear outcome and a binary outcome.
  std::vector<Column> columns;
  Rng rng(2024, 5);
  std::vector<std::vector<double>> x(kPredictors, std::vector<double>(rows));
  std::vector<double> y(rows), b(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const double common = rng.normal();
    double eta = -0.3, mu = 1.0;
    for (int j = 0; j < kPredictors; ++j) {
      x[static_cast<std::size_t>(j)][i] = 0.3 * common + rng.normal();
      eta += 0.05 * (j % 5 - 2) * x[static_cast<std::size_t>(j)][i];
      mu += 0.1 * (j % 7 - 3) * x[static_cast<std::size_t>(j)][i];
    }
    y[i] = mu + rng.normal();
    b[i] = rng.uniform() < 1.0 / (1.0 + std::exp(-eta)) ? 1.0 : 0.0;
  }
  std::string rhs;
  for (int j = 0; j < kPredictors; ++j) {
    Column c;
    c.name = "x" + std::to_string(j + 1);
    c.numeric = std::move(x[static_cast<std::size_t>(j)]);
    columns.push_back(std::move(c));
    rhs += (j ? " + " : "") + columns.back().name;
  }
  Column cy, cb;
  cy.name = "y";
  cy.numeric = std::move(y);
  cb.name = "b";
  cb.numeric = std::move(b);
  columns.push_back(std::move(cy));
  columns.push_back(std::move(cb));
  const Table table(TableSource{"bench", "", "confidential"}, std::move(columns));

  std::printf("rows %zu, predictors %d, threads %d\n", rows, kPredictors, omp_get_max_threads());
  stats::ModelLayout lm_layout(stats::parse_formula("y ~ " + rhs), table,
                               stats::ResponseKind::kNumeric);
  stats::ModelLayout logit_layout(stats::parse_formula("b ~ " + rhs), table,
                                  stats::ResponseKind::kBinary);
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    const auto mm = lm_layout.build(table);
    const double build = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    const auto ols = stats::fit_ols(mm.x, mm.y);
    const double ols_s = seconds_since(t0), ols_cpu = cpu_seconds() - c0;
    const auto mb = logit_layout.build(table);
    t0 = std::chrono::steady_clock::now();
    c0 = cpu_seconds();
    const auto logit = stats::fit_glm_logistic(mb.x, mb.y);
    const double logit_s = seconds_since(t0), logit_cpu = cpu_seconds() - c0;
    std::printf(
        "model matrix %.3f s | OLS fit %.3f s (cpu %.3f s; build + fit %.3f s) | logistic "
        "fit %.3f s (cpu %.3f s; %d iterations, build + fit %.3f s) | beta1 %.6f %.6f\n",
        build, ols_s, ols_cpu, build + ols_s, logit_s, logit_cpu, logit.iterations, build + logit_s,
        ols.beta.size() ? ols.beta[1] : NAN, logit.beta.size() ? logit.beta[1] : NAN);
  }
  return 0;
}
