#pragma once
// Columns coded for contingency tables (numeric ones binned as synthpop utility.tab or SDMetrics
// do, with stats/binning.hpp), joint (contingency) counts and the table-comparison statistics of
// synthpop's utility.tab and a few more. No knowledge of metrics.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "stats/binning.hpp"
#include "stats/coded_column.hpp"
#include "table/table.hpp"

namespace synthaudit::stats {

enum class NumericBinning {
  kQuantile,    // synthpop utility.tab: quantile breaks of the pooled values, left-closed
  kEqualWidth,  // SDMetrics discretize_column: equal-width edges, open outer ends
};

struct BinningOptions {
  NumericBinning method = NumericBinning::kQuantile;
  int groups = 5;
  // Datasets (indices into the list given to code_column) whose values define the breaks; empty
  // means all of them (synthpop pools confidential and synthetic values).
  std::vector<std::size_t> break_sources;
};

// Codes the same column of each dataset (all of one kind, shared dictionary when categorical).
// Level order: categorical levels in dictionary order, or numeric intervals in increasing order
// (`breaks` holds the interval breaks); then one level per declared missing code
// (Column::missing_codes, synthpop's cont.na); then the level "NA" for ordinary missing values
// (`missing_level`, always present). Levels may be unused in every dataset.
CodedColumn code_column(const std::vector<const Column*>& datasets, const BinningOptions& options);

// Joint counts of several coded columns of one dataset (`dataset` indexes CodedColumn::codes).
// Cell index with the first column varying fastest (R's table order):
// c_0 + L_0·(c_1 + L_1·(c_2 + ...)). Throws InputError when the table would exceed max_cells.
// With `row_weights` (one per row) each row adds its weight instead of 1 (svytable's weighted
// counts).
std::vector<double> joint_counts(const std::vector<const CodedColumn*>& columns,
                                 std::size_t dataset, std::size_t max_cells = std::size_t{1} << 26,
                                 std::span<const double> row_weights = {});

// The joint counts of many pairs of coded columns of one dataset, pairs[p] = (a, b) indexing
// `columns`: out[p] equals joint_counts({columns[a], columns[b]}, dataset, max_cells), and throws
// as it does. Columns are counted in small groups (up to four columns whose joint table stays in
// cache), each group's table in one pass over the rows, and every pair's table is summed out of
// its group's: one increment per row serves up to six pairs. Groups run in parallel; the counts
// are integers, so nothing depends on the thread count.
std::vector<std::vector<double>> pair_counts(
    const std::vector<const CodedColumn*>& columns,
    const std::vector<std::pair<std::size_t, std::size_t>>& pairs, std::size_t dataset,
    std::size_t max_cells = std::size_t{1} << 26);

// Mixed-radix key of each row over several coded columns (same cell index as joint_counts), for
// group-by passes; throws InputError when the product of levels does not fit in 63 bits.
std::vector<std::uint64_t> row_keys(const std::vector<const CodedColumn*>& columns,
                                    std::size_t dataset);

// Statistics comparing a confidential table d and a synthetic table s of the same cells.
// Cells empty in both are removed first (synthpop). Names follow synthpop utility.tab where they
// are synthpop's; see docs/metrics.md (table_utility) for every formula.
struct TableComparison {
  double cells = 0;        // non-empty cells (in d or s)
  double df = 0;           // cells − 1
  double dfG = 0;          // cells non-empty in both − 1
  double VW_synthpop = 0;  // Σ diff²/expect, diff = s − d·c/(1−c), expect = (s + d)c
  double VW_over_synthetic_counts = 0;  // Σ (d − s)²/s (∞ when a cell has s = 0 < d)
  double FT = 0;                        // 4 Σ (√s − √(d·c/(1−c)))²
  double G = 0;                         // 2 Σ s log((s/Σs)/(d/Σd)) over cells with s, d > 0
  double JSD_log2 = 0;                  // Jensen–Shannon divergence, log base 2 (synthpop)
  double JSD_ln = 0;                    // the same in natural log
  double KL_ln = 0;  // Σ p_d log(p_d/p_s), natural log; ∞ when a cell has p_s = 0 < p_d
  double KL_infinite_cells = 0;    // cells with p_s = 0 < p_d
  double table_KS_cumulative = 0;  // max over cells (table order) of |cum p_d − cum p_s|
  double SPECKS =
      0;         // KS between the cell propensities s/(s+d) of synthetic and confidential records
  double U = 0;  // Wilcoxon/Mann–Whitney statistic of the same (synthetic sample first)
  double PO50 = 0;     // % correctly predicted (syn when p_s > p_d) − 50
  double pMSE = 0;     // VW_synthpop · c(1−c)²/N
  double MabsDD = 0;   // Σ|diff| / Σs
  double WMabsDD = 0;  // Σ |diff|/√expect / √(2/π)
  double dBhatt = 0;   // √(1 − Σ √(p_d p_s)) (clamped at 0)
  double S_VW = 0, S_FT = 0, S_G = 0, S_pMSE = 0, S_JSD = 0, S_WMabsDD = 0;
};

TableComparison compare_tables(std::span<const double> confidential,
                               std::span<const double> synthetic);

}  // namespace synthaudit::stats
