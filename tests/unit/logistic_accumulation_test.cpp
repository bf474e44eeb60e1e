// The two ways a blocked design's X'WX is summed (stats/logistic.hpp, LogisticOptions::
// Accumulation): by row group and by row give the dense fit's estimates (the dense fit is the
// one checked against R's glm and statsmodels elsewhere), on row subsets, with blocks that carry
// their own values, a dense column's values or indicators, and with aliased columns; kAutomatic
// picks the group sums for few groups and the row sums for a many-level factor.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

#include "core/random.hpp"
#include "metrics/propensity/propensity_common.hpp"
#include "stats/logistic.hpp"

using namespace synthaudit;
using Accumulation = stats::LogisticOptions::Accumulation;

namespace {

// Stacked data with factors of the given levels and numeric columns; y depends on all of them.
// `forbid`: when set, rows with f0 = 2 and f1 = 1 are moved to f1 = 2, so that interaction
// column is all zero (aliased).
propensity::Stacked make_stack(std::size_t n, const std::vector<std::uint32_t>& levels,
                               std::size_t numerics, std::uint64_t seed, bool forbid = false) {
  Rng rng(seed);
  propensity::Stacked data;
  std::vector<double> eta(n, 0.0);
  for (std::size_t f = 0; f < levels.size(); ++f) {
    stats::FeatureColumn column;
    column.name = "f" + std::to_string(f);
    column.categorical = true;
    column.levels = levels[f];
    std::vector<double> effect(levels[f]);
    for (auto& e : effect) e = rng.uniform() - 0.5;
    for (std::size_t i = 0; i < n; ++i) {
      column.codes.push_back(static_cast<std::uint32_t>(rng.below(levels[f])));
      eta[i] += effect[column.codes.back()];
    }
    data.features.push_back(std::move(column));
  }
  if (forbid)
    for (std::size_t i = 0; i < n; ++i)
      if (data.features[0].codes[i] == 2 && data.features[1].codes[i] == 1)
        data.features[1].codes[i] = 2;
  for (std::size_t k = 0; k < numerics; ++k) {
    stats::FeatureColumn x;
    x.name = "x" + std::to_string(k);
    for (std::size_t i = 0; i < n; ++i) {
      // Exact zeros, as a numeric column with missing values set to 0 has; an offset per column
      // so products are far from orthogonal.
      x.values.push_back(rng.uniform() < 0.1 ? 0.0
                                             : 2.0 * rng.uniform() + 5.0 * static_cast<double>(k));
      eta[i] += 0.3 * (x.values.back() - 5.0 * static_cast<double>(k) - 1.0);
    }
    data.features.push_back(std::move(x));
  }
  for (std::size_t i = 0; i < n; ++i) {
    data.t.push_back(rng.uniform() < 1.0 / (1.0 + std::exp(-eta[i])) ? 1 : 0);
    (data.t.back() ? data.n_syn : data.n_conf) += 1;
  }
  data.c = static_cast<double>(data.n_syn) / static_cast<double>(n);
  return data;
}

Eigen::VectorXd response(const std::vector<std::uint8_t>& t, const std::vector<std::size_t>& rows) {
  const std::size_t n = rows.empty() ? t.size() : rows.size();
  Eigen::VectorXd y(static_cast<Eigen::Index>(n));
  for (std::size_t k = 0; k < n; ++k)
    y[static_cast<Eigen::Index>(k)] = t[rows.empty() ? k : rows[k]];
  return y;
}

stats::LogisticFit fit(const stats::BlockedDesign& design, const std::vector<std::uint8_t>& t,
                       Accumulation accumulation, const std::vector<std::size_t>& rows = {}) {
  stats::LogisticOptions options;
  options.accumulation = accumulation;
  return stats::fit_logistic(design, response(t, rows), options, rows);
}

bool close(double a, double b, double tolerance) {
  return (std::isnan(a) && std::isnan(b)) ||
         std::abs(a - b) <= tolerance * std::max(1.0, std::abs(b));
}

// A blocked fit against the dense fit of the same rows: aliasing, rank, iterations exactly;
// deviance, fitted probabilities, coefficients and standard errors to 1e-10 (relative above 1).
void expect_same_fit(const stats::LogisticFit& blocked, const stats::LogisticFit& dense) {
  EXPECT_TRUE(blocked.converged);
  EXPECT_EQ(blocked.aliased, dense.aliased);
  EXPECT_EQ(blocked.rank, dense.rank);
  EXPECT_EQ(blocked.iterations, dense.iterations);
  EXPECT_NEAR(blocked.deviance, dense.deviance, 1e-10 * dense.deviance);
  ASSERT_EQ(blocked.fitted.size(), dense.fitted.size());
  for (Eigen::Index i = 0; i < dense.fitted.size(); ++i)
    ASSERT_NEAR(blocked.fitted[i], dense.fitted[i], 1e-10) << "row " << i;
  for (Eigen::Index j = 0; j < dense.coefficients.size(); ++j) {
    EXPECT_TRUE(close(blocked.coefficients[j], dense.coefficients[j], 1e-10))
        << "coefficient " << j << ": " << blocked.coefficients[j] << " vs "
        << dense.coefficients[j];
    EXPECT_TRUE(close(blocked.standard_errors[j], dense.standard_errors[j], 1e-10))
        << "standard error " << j;
  }
}

stats::LogisticFit dense_fit(const stats::BlockedDesign& design, const std::vector<std::uint8_t>& t,
                             const std::vector<std::size_t>& rows = {}) {
  const Eigen::MatrixXd full = design.to_dense();
  const std::size_t n = rows.empty() ? design.rows : rows.size();
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), full.cols());
  for (std::size_t k = 0; k < n; ++k)
    X.row(static_cast<Eigen::Index>(k)) =
        full.row(static_cast<Eigen::Index>(rows.empty() ? k : rows[k]));
  return stats::fit_logistic(X, response(t, rows));
}

void expect_bitwise_equal(const stats::LogisticFit& a, const stats::LogisticFit& b) {
  for (Eigen::Index j = 0; j < a.coefficients.size(); ++j)
    if (!std::isnan(a.coefficients[j])) {
      ASSERT_EQ(a.coefficients[j], b.coefficients[j]) << "coefficient " << j;
      ASSERT_EQ(a.standard_errors[j], b.standard_errors[j]) << "standard error " << j;
    }
  for (Eigen::Index i = 0; i < a.fitted.size(); ++i) ASSERT_EQ(a.fitted[i], b.fitted[i]);
  EXPECT_EQ(a.deviance, b.deviance);
}

}  // namespace

// Few groups (3 x 4 x 2 level combinations): all two-way interactions, factor x numeric blocks
// reading their dense column, numeric x numeric dense columns. Both sums give the dense
// estimates, on all rows and on a reversed subset (a cross-validation fold), and kAutomatic is
// the group sum.
TEST(LogisticAccumulation, ByGroupAndByRowGiveTheDenseFit) {
  const auto data = make_stack(20000, {3, 4, 2}, 3, 11);
  const auto design = propensity::logistic_design(data, 1);
  std::size_t from_dense = 0;
  for (const auto& block : design.sparse) from_dense += block.dense_value >= 0 ? 1 : 0;
  EXPECT_EQ(from_dense, 3U * 3U);  // each factor with each numeric
  const auto dense = dense_fit(design, data.t);
  const auto by_group = fit(design, data.t, Accumulation::kByGroup);
  const auto by_row = fit(design, data.t, Accumulation::kByRow);
  expect_same_fit(by_group, dense);
  expect_same_fit(by_row, dense);
  expect_bitwise_equal(fit(design, data.t, Accumulation::kAutomatic), by_group);
  std::vector<std::size_t> fold;
  for (std::size_t i = data.t.size(); i-- > 0;)
    if (i % 3 != 0) fold.push_back(i);
  const auto dense_fold = dense_fit(design, data.t, fold);
  expect_same_fit(fit(design, data.t, Accumulation::kByGroup, fold), dense_fold);
  expect_same_fit(fit(design, data.t, Accumulation::kByRow, fold), dense_fold);
}

// An empty interaction cell gives an all-zero column: aliased the same way by both sums.
TEST(LogisticAccumulation, AliasedColumnsAreTheSame) {
  const auto data = make_stack(8000, {3, 3}, 1, 12, /*forbid=*/true);
  const auto design = propensity::logistic_design(data, 1);
  const auto dense = dense_fit(design, data.t);
  EXPECT_EQ(dense.rank + 1, static_cast<int>(design.columns));
  expect_same_fit(fit(design, data.t, Accumulation::kByGroup), dense);
  expect_same_fit(fit(design, data.t, Accumulation::kByRow), dense);
}

// A hand-made design without an intercept: an indicator block, a block with its own per-row
// values, and a block reading a dense column.
TEST(LogisticAccumulation, BlocksWithOwnValuesAndDenseValues) {
  const std::size_t n = 6000;
  Rng rng(13);
  stats::BlockedDesign design;
  design.rows = n;
  design.columns = 2 + 3 + 2 + 2;
  design.dense.resize(static_cast<Eigen::Index>(n), 2);
  design.dense_columns = {0, 8};
  stats::SparseColumnBlock indicators, own, shared;
  indicators.first = 1;
  indicators.width = 3;
  own.first = 4;
  own.width = 2;
  shared.first = 6;
  shared.width = 2;
  shared.dense_value = 1;
  std::vector<std::uint8_t> t(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    design.dense(r, 0) = rng.uniform() + 0.5;
    design.dense(r, 1) = 3.0 * rng.uniform() - 1.0;
    const auto level = static_cast<std::int32_t>(rng.below(4)) - 1;  // -1: the reference level
    indicators.column.push_back(level);
    own.column.push_back(rng.uniform() < 0.3 ? -1 : static_cast<std::int32_t>(rng.below(2)));
    own.value.push_back(rng.normal());
    shared.column.push_back(level < 0 ? -1 : level % 2);
    const double eta = 0.4 * design.dense(r, 0) - 0.3 * design.dense(r, 1) + 0.2 * level +
                       (own.column.back() >= 0 ? 0.3 * own.value.back() : 0.0);
    t[i] = rng.uniform() < 1.0 / (1.0 + std::exp(-eta)) ? 1 : 0;
  }
  design.sparse = {indicators, own, shared};
  const auto dense = dense_fit(design, t);
  EXPECT_EQ(dense.rank, static_cast<int>(design.columns));
  expect_same_fit(fit(design, t, Accumulation::kByGroup), dense);
  expect_same_fit(fit(design, t, Accumulation::kByRow), dense);
  // The dense column a block reads is checked.
  design.sparse[2].dense_value = 2;
  EXPECT_THROW(fit(design, t, Accumulation::kAutomatic), std::invalid_argument);
  design.sparse[2].dense_value = 1;
  design.sparse[2].value.assign(n, 1.0);
  EXPECT_THROW(fit(design, t, Accumulation::kAutomatic), std::invalid_argument);
}

// A 240-level factor among main effects: more groups than one per kMinRowsPerGroup rows, so
// kAutomatic sums by row; the group sums still give the same estimates.
TEST(LogisticAccumulation, ManyLevelFactorSumsByRow) {
  const auto data = make_stack(12000, {240, 5}, 2, 14);
  const auto design = propensity::logistic_design(data, 0);
  const auto by_row = fit(design, data.t, Accumulation::kByRow);
  expect_bitwise_equal(fit(design, data.t, Accumulation::kAutomatic), by_row);
  const auto dense = dense_fit(design, data.t);
  expect_same_fit(by_row, dense);
  expect_same_fit(fit(design, data.t, Accumulation::kByGroup), dense);
}

// The group sums do not depend on the thread count (fixed chunks added in order).
TEST(LogisticAccumulation, ByGroupSameResultForAnyThreadCount) {
  const auto data = make_stack(70000, {3, 5, 2}, 2, 15);
  const auto design = propensity::logistic_design(data, 1);
  omp_set_num_threads(1);
  const auto one = fit(design, data.t, Accumulation::kByGroup);
  omp_set_num_threads(2);
  const auto two = fit(design, data.t, Accumulation::kByGroup);
  omp_set_num_threads(3);
  const auto three = fit(design, data.t, Accumulation::kByGroup);
  omp_set_num_threads(omp_get_num_procs());
  expect_bitwise_equal(one, two);
  expect_bitwise_equal(one, three);
}
