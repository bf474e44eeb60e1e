#pragma once
// The baselines a candidate is judged against, drawn once per scope (the whole data, or one
// subgroup's rows: engine/subgroups.hpp) and scored by the same metric as the candidates: the
// holdout (a fresh real sample of the population), resamples of the confidential data (a perfect
// synthesis up to sampling noise) and independent marginals (the verdict's floor of utility), each
// with its sampling noise. docs/metrics.md (Baselines) describes them for users.
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "engine/evaluate.hpp"
#include "metrics/metric.hpp"

namespace synthaudit {

// Sorted row numbers kept between metrics in a byte or two each: each number's difference from the
// one before it as a little-endian base-128 varint. A baseline's draws are as many rows as the
// synthetic data; held as plain numbers (8 bytes each, several draws) they outweighed a rank's
// share of the tables.
class PackedRows {
 public:
  PackedRows() = default;
  explicit PackedRows(const std::vector<std::size_t>& sorted);
  std::vector<std::size_t> rows() const;
  bool operator==(const PackedRows&) const = default;

 private:
  std::string bytes_;
};

// What a baseline draws: single rows, or whole households when the evaluation declares a
// household column (every member of a drawn household or none), so that household structure
// survives a draw and the sampling noise of people clustered in households is the clustered
// noise (a household bootstrap) rather than that of independent persons. Rows whose household
// identifier is missing are households of one.
class DrawUnits {
 public:
  // `household` empty or not a column of `pool`: rows; else the households of `pool` on it.
  DrawUnits(const Table& pool, std::size_t pool_rows, const std::string& household);
  // At least `rows` rows (all units when the pool is smaller), sorted: with households, whole
  // households in random order until the count reaches `rows`, so a draw can exceed it by less
  // than one household. Seeded.
  std::vector<std::size_t> without_replacement(std::size_t rows, std::uint64_t seed) const;
  std::vector<std::size_t> with_replacement(std::size_t rows, std::uint64_t seed) const;
  // The household column, when units are households.
  std::optional<std::size_t> household_column() const { return column_; }
  // The pool split at random into two parts, the first of at least `first_rows` rows (exactly,
  // with rows as units), each sorted: the re-splits of a permutation test.
  std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split(std::size_t first_rows,
                                                                      Rng& rng) const;

 private:
  std::vector<std::size_t> rows_of_units(const std::vector<std::size_t>& units) const;
  std::size_t pool_ = 0;
  std::optional<std::size_t> column_;
  std::vector<std::size_t> rows_, start_;  // unit u is rows_[start_[u], start_[u + 1])
};

// A baseline's data: draws of row numbers from a pool table (the holdout or the confidential
// data). The metric values of `value_draws` are the baseline's replicates; the standard
// deviation of the values over `noise_draws` times `noise_scale` is its sampling noise (for the
// resample the value draws are the noise draws).
struct BaselineData {
  std::string name;
  std::string description;
  const Table* pool = nullptr;
  std::size_t rows = 0;  // rows of each value draw
  std::vector<PackedRows> value_draws;
  std::vector<PackedRows> noise_draws;
  std::size_t noise_rows = 0;
  double noise_scale = 1.0;
  bool value_is_pool = false;  // the value draw is the whole pool in its order
  // The independent-marginals baseline: each draw takes every column from its own draw of rows
  // (made when the draw runs, from `seed`), so value_draws and noise_draws stay empty.
  std::size_t independent_draws = 0;
  std::uint64_t seed = 0;
  // Whole households drawn with replacement: the household column, whose repeated households
  // get identifiers of their own in the drawn table (a household drawn twice is two households).
  std::optional<std::size_t> relabel_households;
};

// `rows` of 0..pool-1, sorted; seeded.
std::vector<std::size_t> draw_without_replacement(std::size_t pool, std::size_t rows,
                                                  std::uint64_t seed);
std::vector<std::size_t> draw_with_replacement(std::size_t pool, std::size_t rows,
                                               std::uint64_t seed);

// The holdout (`pool` rows) as a fresh real sample at the synthetic size `n` (or its own size
// when smaller), with `draws` noise draws.
BaselineData holdout_baseline(const Table& holdout, std::size_t pool, std::size_t n, int draws,
                              std::uint64_t seed, const DrawUnits& units);
// `draws` resamples with replacement of the confidential data (`pool` rows) at the synthetic
// size `n`.
BaselineData resample_baseline(const Table& confidential, std::size_t pool, std::size_t n,
                               int draws, std::uint64_t seed, const DrawUnits& units);

// `table` with the household identifiers in `column` of the rows whose `copy` number is k > 0
// made households of their own: household ID of copy k becomes "ID#k+1" (a categorical
// identifier, in a dictionary of the table's own) or a number above every identifier (a numeric
// one). For a household drawn more than once, and for two tables pooled whose identifiers would
// otherwise meet.
Table with_household_copies_relabelled(const Table& table, std::size_t column,
                                       const std::vector<std::size_t>& copy);
// The copy number of each of `rows` (sorted, repeats allowed): 0 for a row's first occurrence,
// k for its (k+1)-th. All of a household's rows are drawn together, so the k-th copy of a row is
// in the k-th copy of its household.
std::vector<std::size_t> repeat_numbers(const std::vector<std::size_t>& rows);
// The floor of utility: every column drawn on its own from the confidential data.
BaselineData independent_marginals_baseline(const Table& confidential, std::size_t n,
                                            std::uint64_t seed);

// Whether a metric's headlines are judged against this kind of baseline.
bool wants_baseline(const MetricSpec& metric, BaselineKind kind);
bool wants_baseline(const MetricSpec& metric, const BaselineData& baseline);
// The metrics the verdict's utility floor reads.
bool wants_independent_marginals(const MetricSpec& metric);

// Standard deviation over results of each (statistic, scope) that every result reports with a
// finite value, times `scale`; NaN otherwise.
std::vector<MetricValue> spread_over_results(const std::vector<MetricResult>& results,
                                             double scale);

// How a metric is run on drawn tables in one scope (the whole data or a subgroup).
struct DrawScoring {
  const Table* confidential = nullptr;
  // The holdout input of metrics scored on the resample and floor baselines (nullptr: none);
  // never given when the holdout itself stands in for the synthetic data.
  const Table* holdout = nullptr;
  const EvaluationContext* context = nullptr;
  std::uint64_t seed = 0;  // the evaluation's seed; each run's is derived from it
  stats::NeighbourCache* neighbours = nullptr;
  ProgressSink* work_progress = nullptr;
  MetricMemo* memo = nullptr;  // only for the evaluation's own confidential data
  // A table's row count as a whole (partitioned runs), and a table of pool rows (sorted,
  // 0-based) that `compute` accepts; plain row counts and copies when unset.
  std::function<std::size_t(const Table&)> rows_of;
  std::function<std::shared_ptr<const Table>(const Table& pool, const std::vector<std::size_t>&,
                                             const TableSource&)>
      take_rows;
  // EvaluationSinks::compute, when set.
  std::function<std::optional<MetricResult>(const MetricSpec&, const MetricInput&, const Params&)>
      compute;
  ProgressFn progress;
  std::string where;  // appended to progress lines: "" or " in subgroup sex=female"
  // A subgroup's draws: entries keep values and warnings only, and a draw the metric cannot score
  // (a level an analysis needs is missing from it) gives a warning instead of an error.
  bool subgroup = false;
  // Receives each value draw's per-record outputs (dropped when unset).
  std::function<void(MetricResult&, const std::string& candidate, const std::string& replicate)>
      keep_records;
};

// The metric scored on the baseline's draws: the entry {name, baseline: true, replicates, mean?,
// noise: {draws, draw_rows, scale, values}} that follows the candidates' in the document.
nlohmann::json score_baseline(const MetricSpec& metric, const Params& params,
                              const BaselineData& baseline, const DrawScoring& how);

// A candidate scored on subsamples of `rows` rows of each replicate (the holdout's size, when the
// holdout is smaller than the synthetic data), `draws` times: the entry's "at_baseline_size"
// {baseline, rows, draws, values (their mean), sd (the candidate's noise at that size)}.
// `run(tables, replicate, label)` scores the candidate's tables as its own runs do.
nlohmann::json score_at_baseline_size(
    const MetricSpec& metric, const std::vector<Table>& replicates, const std::string& candidate,
    std::size_t rows, std::size_t draws, const DrawScoring& how,
    const std::function<MetricResult(std::vector<const Table*>, std::size_t replicate,
                                     const std::string& label)>& run);

}  // namespace synthaudit
