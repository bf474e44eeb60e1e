// Propensity-metric benchmark: N confidential + N synthetic rows, 10 numeric and 10 categorical
// (6 levels) columns. Usage: propensity_bench [N=1000000] [continuous]. Prints seconds per stage
// and the resulting pMSE values (which must not change with OMP_NUM_THREADS).
// Default: numeric values rounded to 0.01 (about 1000 distinct values per column) and every
// stage. `continuous`: numeric values unrounded (every value distinct), CART only, exact (the
// default: every distinct value a candidate split, searched by the sorted sweep) against quantile
// binning (max_bins = 1024): binning, one fit with surrogates, and 5 permutation refits each.
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/random.hpp"
#include "metrics/propensity/propensity_common.hpp"
#include "metrics/registry.hpp"
#include "stats/boosted_trees.hpp"
#include "stats/cart.hpp"
#include "stats/logistic.hpp"

using namespace synthaudit;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Table make_table(std::size_t n, double shift, std::uint64_t seed,
                 const std::vector<std::shared_ptr<Dictionary>>& dicts, bool continuous) {
  Rng rng(seed);
  std::vector<Column> cols;
  for (int j = 0; j < 10; ++j) {
    Column c;
    c.name = "num" + std::to_string(j);
    c.numeric.resize(n);
    for (auto& v : c.numeric) {
      v = rng.normal() + shift * (j % 3 == 0);
      if (!continuous) v = std::round(v * 100.0) / 100.0;
    }
    cols.push_back(std::move(c));
  }
  for (int j = 0; j < 10; ++j) {
    Column c;
    c.name = "cat" + std::to_string(j);
    c.kind = ColumnKind::kCategorical;
    c.dictionary = dicts[static_cast<std::size_t>(j)];
    c.codes.resize(n);
    for (auto& v : c.codes)
      v = static_cast<std::uint32_t>(
          std::min<double>(5, std::floor(6 * std::pow(rng.uniform(), 1.0 + shift))));
    cols.push_back(std::move(c));
  }
  return Table(TableSource{}, std::move(cols));
}
}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const bool continuous = argc > 2 && std::string(argv[2]) == "continuous";
  std::vector<std::shared_ptr<Dictionary>> dicts;
  for (int j = 0; j < 10; ++j) {
    auto d = std::make_shared<Dictionary>();
    for (const char* level : {"a", "b", "c", "d", "e", "f"}) d->intern(level);
    dicts.push_back(d);
  }
  const Table conf = make_table(n, 0.0, 1, dicts, continuous),
              syn = make_table(n, 0.05, 2, dicts, continuous);
  std::printf("rows %zu + %zu, 20 columns (numeric %s), threads %d\n", n, n,
              continuous ? "unrounded" : "rounded to 0.01", omp_get_max_threads());

  auto t0 = std::chrono::steady_clock::now();
  const auto data = propensity::stack_tables(conf, syn);
  std::printf("stack                          %8.2f s\n", seconds_since(t0));

  if (continuous) {
    for (const std::uint32_t max_bins : {0u, 1024u}) {
      const char* label = max_bins == 0 ? "exact" : "binned (max_bins 1024)";
      t0 = std::chrono::steady_clock::now();
      const auto binned = stats::bin_features(data.features, max_bins);
      const double t_bin = seconds_since(t0);
      const auto tree = stats::fit_cart(binned, data.t, {});
      const auto pc = stats::predict_cart(tree, binned);
      std::printf("%-24s one CART fit (%d leaves) %8.2f s (binning %.2f s)  pMSE %.12e\n", label,
                  tree.leaves(), seconds_since(t0), t_bin, stats::pmse(pc, data.c));
      t0 = std::chrono::steady_clock::now();
      double sum = 0;
      std::vector<double> perm(5);
#pragma omp parallel for schedule(dynamic, 1)
      for (std::size_t k = 0; k < perm.size(); ++k) {
        stats::CartOptions refit;
        refit.max_surrogates = 0;
        perm[k] = stats::in_sample_pmse(
            stats::fit_cart(binned, propensity::permuted_labels(data.t, 1, k), refit), data.c);
      }
      for (double v : perm) sum += v;
      std::printf("%-24s 5 permutation refits    %8.2f s  mean permuted pMSE %.12e\n", label,
                  seconds_since(t0), sum / 5);
    }
    return 0;
  }

  t0 = std::chrono::steady_clock::now();
  const stats::BlockedDesign X = propensity::logistic_design(data, 0);
  const double t_design = seconds_since(t0);
  Eigen::VectorXd y(static_cast<Eigen::Index>(data.t.size()));
  for (std::size_t i = 0; i < data.t.size(); ++i) y[static_cast<Eigen::Index>(i)] = data.t[i];
  stats::LogisticOptions lo;
  lo.tolerance = 1e-8;
  const auto fit = stats::fit_logistic(X, y, lo);
  const double t_logit = seconds_since(t0);
  std::vector<double> p(fit.fitted.data(), fit.fitted.data() + fit.fitted.size());
  std::printf("logistic main effects (%ld params, %d it) %8.2f s (design %.2f s)  pMSE %.12e\n",
              static_cast<long>(X.columns), fit.iterations, t_logit, t_design,
              stats::pmse(p, data.c));

  t0 = std::chrono::steady_clock::now();
  const auto binned = stats::bin_features(data.features);
  const double t_bin = seconds_since(t0);
  const auto tree = stats::fit_cart(binned, data.t, {});  // with surrogates, for the importance
  const auto pc = stats::predict_cart(tree, binned);
  std::printf("one CART fit (%d leaves)        %8.2f s (binning %.2f s)  pMSE %.12e\n",
              tree.leaves(), seconds_since(t0), t_bin, stats::pmse(pc, data.c));

  t0 = std::chrono::steady_clock::now();
  double perm_sum = 0;
  std::vector<double> perm(50);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t k = 0; k < 50; ++k) {
    stats::CartOptions refit;  // as propensity_cart's null refits: no surrogates
    refit.max_surrogates = 0;
    perm[k] = stats::in_sample_pmse(
        stats::fit_cart(binned, propensity::permuted_labels(data.t, 1, k), refit), data.c);
  }
  for (double v : perm) perm_sum += v;
  std::printf("CART, 50 permutation refits    %8.2f s  mean permuted pMSE %.12e\n",
              seconds_since(t0), perm_sum / 50);

  t0 = std::chrono::steady_clock::now();
  const stats::BoostData bd(data.features);
  stats::BoostOptions bo;
  bo.threads = omp_get_max_threads();
  const auto boosted = stats::fit_predict_boosted(bd, data.t, bo);
  std::printf("boosted trees, 100 rounds (xgboost %d threads) %8.2f s  pMSE %.12e\n", bo.threads,
              seconds_since(t0), stats::pmse(boosted.predictions, data.c));
  return 0;
}
