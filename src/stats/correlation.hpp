#pragma once
// Pearson and Spearman correlations on pairwise-complete rows, correlation matrices, summaries of
// a lower-triangle difference, and Cramér's V of a contingency table.
#include <cstdint>
#include <span>
#include <vector>

namespace synthaudit::stats {

// Pearson correlation of x and y over the rows where both are non-missing (two-pass, centred
// sums). NaN with fewer than two such rows or a constant column.
double pearson_pairwise(std::span<const double> x, std::span<const double> y);

// Average ranks (1-based, ties get their mean rank, as scipy.stats.rankdata / R rank) of the
// non-missing x among the rows where `mask` is non-missing too (mask may be empty: all rows);
// NaN elsewhere.
std::vector<double> average_ranks(std::span<const double> x, std::span<const double> mask = {});

// Spearman correlation over pairwise-complete rows: Pearson correlation of the average ranks
// (scipy.stats.spearmanr on the complete pairs).
double spearman_pairwise(std::span<const double> x, std::span<const double> y);

// Square k×k correlation matrices (row-major, 1 on the diagonal) of k numeric columns, pairwise
// complete; pairs computed in parallel with results in fixed slots.
struct CorrelationMatrices {
  std::size_t k = 0;
  std::vector<double> pearson;
  std::vector<double> spearman;
};
CorrelationMatrices correlation_matrices(const std::vector<std::span<const double>>& columns,
                                         bool with_spearman = true);

// Summaries of b − a over the strict lower triangle of two k×k matrices: mean absolute
// difference, root mean squared difference and the sum of absolute differences; pairs where either
// is NaN are left out (and counted in `undefined`).
struct DifferenceSummary {
  double mae = 0, rmse = 0, sum_abs = 0;
  std::size_t pairs = 0, undefined = 0;
};
DifferenceSummary lower_triangle_difference(std::span<const double> a, std::span<const double> b,
                                            std::size_t k);

// Cramér's V = √(χ²/(n·(min(r, c) − 1))) of an r×c table of counts (cell i + r·j), without bias
// correction, over the rows and columns that are not all zero (scipy.stats.contingency.association
// on that table). NaN when fewer than two non-empty rows or columns remain.
double cramers_v(std::span<const double> counts, std::size_t rows, std::size_t cols);

}  // namespace synthaudit::stats
