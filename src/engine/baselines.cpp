#include "engine/baselines.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "core/random.hpp"
#include "metrics/households/household_groups.hpp"
#include "table/table.hpp"

namespace synthaudit {

PackedRows::PackedRows(const std::vector<std::size_t>& sorted) {
  std::size_t previous = 0;
  for (std::size_t row : sorted) {
    std::size_t delta = row - previous;
    previous = row;
    while (delta >= 0x80) {
      bytes_.push_back(static_cast<char>((delta & 0x7f) | 0x80));
      delta >>= 7;
    }
    bytes_.push_back(static_cast<char>(delta));
  }
  bytes_.shrink_to_fit();
}

std::vector<std::size_t> PackedRows::rows() const {
  std::vector<std::size_t> out;
  std::size_t previous = 0, delta = 0;
  int shift = 0;
  for (char byte : bytes_) {
    const auto bits = static_cast<std::size_t>(static_cast<unsigned char>(byte));
    delta |= (bits & 0x7f) << shift;
    if (bits & 0x80) {
      shift += 7;
      continue;
    }
    previous += delta;
    out.push_back(previous);
    delta = 0;
    shift = 0;
  }
  return out;
}

std::vector<std::size_t> draw_without_replacement(std::size_t pool, std::size_t rows,
                                                  std::uint64_t seed) {
  std::vector<std::size_t> all(pool);
  for (std::size_t i = 0; i < pool; ++i) all[i] = i;
  Rng rng(seed);
  for (std::size_t i = 0; i < rows; ++i) std::swap(all[i], all[i + rng.below(pool - i)]);
  all.resize(rows);
  sort_drawn_rows(all, pool);
  return all;
}

std::vector<std::size_t> draw_with_replacement(std::size_t pool, std::size_t rows,
                                               std::uint64_t seed) {
  std::vector<std::size_t> out(rows);
  Rng rng(seed);
  for (auto& r : out) r = rng.below(pool);
  sort_drawn_rows(out, pool);
  return out;
}

DrawUnits::DrawUnits(const Table& pool, std::size_t pool_rows, const std::string& household)
    : pool_(pool_rows) {
  const auto column = household.empty() ? std::nullopt : pool.find(household);
  if (!column || pool.rows() != pool_rows) return;
  column_ = column;
  const households::HouseholdGroups groups = households::group_households(pool, *column);
  rows_.reserve(pool.rows());
  start_.reserve(groups.households() + groups.without_household + 1);
  for (std::size_t h = 0; h < groups.households(); ++h) {
    start_.push_back(rows_.size());
    for (std::size_t i = groups.start[h]; i < groups.start[h + 1]; ++i)
      rows_.push_back(groups.members[i]);
  }
  const Column& id = pool.column(*column);
  for (std::size_t r = 0; r < pool.rows(); ++r)
    if (id.missing(r)) {
      start_.push_back(rows_.size());
      rows_.push_back(r);
    }
  start_.push_back(rows_.size());
}

std::vector<std::size_t> DrawUnits::rows_of_units(const std::vector<std::size_t>& units) const {
  std::vector<std::size_t> out;
  for (std::size_t u : units)
    out.insert(out.end(), rows_.begin() + static_cast<std::ptrdiff_t>(start_[u]),
               rows_.begin() + static_cast<std::ptrdiff_t>(start_[u + 1]));
  sort_drawn_rows(out, pool_);
  return out;
}

std::vector<std::size_t> DrawUnits::without_replacement(std::size_t rows,
                                                        std::uint64_t seed) const {
  if (!column_) return draw_without_replacement(pool_, rows, seed);
  const std::size_t units = start_.size() - 1;
  std::vector<std::size_t> order(units);
  for (std::size_t u = 0; u < units; ++u) order[u] = u;
  Rng rng(seed);
  std::size_t taken = 0, drawn_rows = 0;
  for (; taken < units && drawn_rows < rows; ++taken) {
    std::swap(order[taken], order[taken + rng.below(units - taken)]);
    drawn_rows += start_[order[taken] + 1] - start_[order[taken]];
  }
  order.resize(taken);
  return rows_of_units(order);
}

std::vector<std::size_t> DrawUnits::with_replacement(std::size_t rows, std::uint64_t seed) const {
  if (!column_) return draw_with_replacement(pool_, rows, seed);
  const std::size_t units = start_.size() - 1;
  std::vector<std::size_t> drawn;
  if (units == 0) return drawn;
  Rng rng(seed);
  for (std::size_t drawn_rows = 0; drawn_rows < rows;) {
    const std::size_t u = rng.below(units);
    drawn.push_back(u);
    drawn_rows += start_[u + 1] - start_[u];
  }
  return rows_of_units(drawn);
}

std::pair<std::vector<std::size_t>, std::vector<std::size_t>> DrawUnits::split(
    std::size_t first_rows, Rng& rng) const {
  const std::size_t units = column_ ? start_.size() - 1 : pool_;
  std::vector<std::size_t> order(units);
  for (std::size_t u = 0; u < units; ++u) order[u] = u;
  for (std::size_t i = 0; i + 1 < units; ++i) std::swap(order[i], order[i + rng.below(units - i)]);
  std::size_t cut = 0;
  if (!column_) {
    cut = std::min(first_rows, units);
  } else {
    for (std::size_t rows = 0; cut < units && rows < first_rows; ++cut)
      rows += start_[order[cut] + 1] - start_[order[cut]];
  }
  auto rows_of = [&](std::size_t from, std::size_t to) {
    std::vector<std::size_t> part(order.begin() + static_cast<std::ptrdiff_t>(from),
                                  order.begin() + static_cast<std::ptrdiff_t>(to));
    if (column_) return rows_of_units(part);
    std::sort(part.begin(), part.end());
    return part;
  };
  return {rows_of(0, cut), rows_of(cut, units)};
}

std::vector<std::size_t> repeat_numbers(const std::vector<std::size_t>& rows) {
  std::vector<std::size_t> copy(rows.size(), 0);
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i] == rows[i - 1]) copy[i] = copy[i - 1] + 1;
  return copy;
}

Table with_household_copies_relabelled(const Table& table, std::size_t column,
                                       const std::vector<std::size_t>& copy) {
  Table out = table;
  Column& id = out.column(column);
  double next = 0.0;
  std::shared_ptr<Dictionary> levels;
  if (id.is_numeric()) {
    for (double x : id.numeric)
      if (std::isfinite(x)) next = std::max(next, std::floor(x) + 1.0);
  } else {
    levels = std::make_shared<Dictionary>(*id.dictionary);
  }
  std::map<std::pair<std::uint64_t, std::size_t>, std::uint64_t> renamed;
  for (std::size_t i = 0; i < copy.size(); ++i) {
    if (copy[i] == 0 || id.missing(i)) continue;
    if (id.is_numeric()) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &id.numeric[i], sizeof bits);
      auto [at, fresh] = renamed.try_emplace({bits, copy[i]}, 0);
      if (fresh) {
        const double value = next;
        next += 1.0;
        std::memcpy(&at->second, &value, sizeof value);
      }
      std::memcpy(&id.numeric[i], &at->second, sizeof(double));
    } else {
      auto [at, fresh] = renamed.try_emplace({id.codes[i], copy[i]}, 0);
      if (fresh) {
        std::string name = levels->level(id.codes[i]) + "#" + std::to_string(copy[i] + 1);
        while (levels->find(name)) name += "#";
        at->second = levels->intern(name);
      }
      id.codes[i] = static_cast<std::uint32_t>(at->second);
    }
  }
  if (levels) id.dictionary = std::move(levels);
  return out;
}

// The holdout as a fresh real sample at the comparison size m = min(n, N), n the synthetic size
// and N the holdout's: one draw of n rows without replacement when the holdout is larger, else
// the whole holdout (and the engine scores the candidates on subsamples of N rows as well). Its
// noise: draws of b = min(m, N / 2) rows without replacement, whose spread is rescaled to a
// sample of m rows by sqrt(b / (m (1 - b / N))) (the variance of a mean of b rows drawn without
// replacement from N is (1 - b / N) / b times the unit variance; exact for means and shares, an
// approximation for other statistics).
BaselineData holdout_baseline(const Table& holdout, std::size_t pool, std::size_t n, int draws,
                              std::uint64_t seed, const DrawUnits& units) {
  BaselineData b;
  b.name = "holdout";
  b.pool = &holdout;
  b.rows = std::min(n, pool);
  b.value_is_pool = pool <= n;
  b.value_draws.emplace_back(
      b.value_is_pool
          ? std::vector<std::size_t>{}
          : units.without_replacement(n, derive_seed(seed, "baseline rows", "holdout", 0)));
  b.noise_rows = std::min(b.rows, pool / 2);
  if (draws >= 2 && b.noise_rows >= 2) {
    for (int d = 1; d <= draws; ++d)
      b.noise_draws.emplace_back(units.without_replacement(
          b.noise_rows,
          derive_seed(seed, "baseline rows", "holdout", static_cast<std::size_t>(d))));
    const double rows_b = static_cast<double>(b.noise_rows);
    b.noise_scale = std::sqrt(
        rows_b / (static_cast<double>(b.rows) * (1.0 - rows_b / static_cast<double>(pool))));
  }
  b.description =
      "The holdout, real records of the same population that the synthesis did not see, "
      "scored in place of the synthetic data: " +
      (b.value_is_pool ? "all " + std::to_string(pool) + " holdout rows" +
                             (pool < n ? " (fewer than the " + std::to_string(n) +
                                             " synthetic rows: the verdict compares it with "
                                             "each candidate scored on a subsample of " +
                                             std::to_string(pool) +
                                             " of its rows, because these statistics depend on "
                                             "the number of rows)"
                                       : "")
                       : "a subsample without replacement of " + std::to_string(n) + " of its " +
                             std::to_string(pool) + " rows (the synthetic size)") +
      ". " +
      (b.noise_draws.empty()
           ? "Its sampling noise could not be estimated (too few rows or draws)."
           : "Its sampling noise is the spread over " + std::to_string(b.noise_draws.size()) +
                 " subsamples of " + std::to_string(b.noise_rows) +
                 " rows, rescaled to the synthetic size.");
  return b;
}

// Resamples with replacement of the confidential data (N rows) of the synthetic size n: the
// utility of data that differ from the confidential data by sampling noise only. Value: the mean
// over the draws; noise: their standard deviation.
BaselineData resample_baseline(const Table& confidential, std::size_t pool, std::size_t n,
                               int draws, std::uint64_t seed, const DrawUnits& units) {
  BaselineData b;
  b.name = "resample";
  b.pool = &confidential;
  b.rows = n;
  b.noise_rows = n;
  for (int d = 1; d <= draws; ++d)
    b.value_draws.emplace_back(units.with_replacement(
        n, derive_seed(seed, "baseline rows", "resample", static_cast<std::size_t>(d))));
  b.relabel_households = units.household_column();
  if (draws >= 2) b.noise_draws = b.value_draws;
  b.description = "Resamples of the confidential data scored in place of the synthetic data: " +
                  std::to_string(draws) + " draws with replacement of " + std::to_string(n) +
                  " rows (the synthetic size) from its " + std::to_string(pool) +
                  " rows. The value is their mean and the sampling noise their standard "
                  "deviation.";
  return b;
}

// The floor of utility: each column drawn with replacement from the confidential data on its own
// (n rows), so every column keeps its distribution and no relationship between columns is left,
// as a synthesis that samples each variable from its marginal would (synthpop's method "sample"
// for every column). What a candidate keeps of the utility is measured between this floor and
// the resample baseline (result/verdict.cpp). Three draws: their mean is the floor, and their
// spread the noise that decides whether a measure tells the floor from the resample at all
// (values theory gives, such as a pMSE ratio of 1, come without a spread of their own).
namespace {

inline constexpr int kIndependentMarginalsDraws = 3;

}  // namespace

BaselineData independent_marginals_baseline(const Table& confidential, std::size_t n,
                                            std::uint64_t seed) {
  BaselineData b;
  b.name = kIndependentMarginalsBaseline;
  b.pool = &confidential;
  b.rows = n;
  b.independent_draws = kIndependentMarginalsDraws;
  b.seed = seed;
  b.description =
      "Independent marginals, the floor of utility: every column drawn with replacement from the "
      "confidential data on its own (" +
      std::to_string(n) + " rows, the synthetic size; " +
      std::to_string(kIndependentMarginalsDraws) +
      " draws, value their mean, noise their spread), so each column keeps its distribution and "
      "no relationship between columns is left. The verdict measures how much of the way from this "
      "floor to the "
      "resample baseline a candidate's utility goes.";
  return b;
}

namespace {

// The row lists of draw `draw` of the independent-marginals baseline: one independent draw with
// replacement per column, in draw order (not sorted: sorting would pair up neighbouring records).
std::vector<std::vector<std::size_t>> independent_column_rows(const BaselineData& b,
                                                              std::size_t columns,
                                                              std::size_t draw) {
  std::vector<std::vector<std::size_t>> rows(columns);
  for (std::size_t j = 0; j < columns; ++j) {
    Rng rng(derive_seed(b.seed, "baseline rows", b.name, draw * 1'000'003 + j));
    rows[j].resize(b.rows);
    for (auto& r : rows[j]) r = rng.below(b.pool->rows());
  }
  return rows;
}

}  // namespace

// Standard deviation over results of each (statistic, scope) that every result reports with a
// finite value, times `scale`; NaN otherwise.
std::vector<MetricValue> spread_over_results(const std::vector<MetricResult>& results,
                                             double scale) {
  std::vector<MetricValue> out;
  if (results.size() < 2) return out;
  std::map<std::pair<std::string, std::string>, std::vector<double>> by_key;
  for (const auto& r : results)
    for (const auto& v : r.values) by_key[{v.statistic, v.scope}].push_back(v.value);
  for (const auto& v : results.front().values) {
    const auto& xs = by_key[{v.statistic, v.scope}];
    bool finite = xs.size() == results.size();
    double mean = 0.0;
    for (double x : xs) {
      finite = finite && std::isfinite(x);
      mean += x;
    }
    if (!finite) {
      out.push_back({v.statistic, v.scope, NAN});
      continue;
    }
    mean /= static_cast<double>(xs.size());
    double ss = 0.0;
    for (double x : xs) ss += (x - mean) * (x - mean);
    out.push_back(
        {v.statistic, v.scope, scale * std::sqrt(ss / static_cast<double>(xs.size() - 1))});
  }
  return out;
}

bool wants_baseline(const MetricSpec& metric, BaselineKind kind) {
  for (const auto& h : metric.headlines)
    if (h.baseline.kind == kind) return true;
  return false;
}

// The metrics the verdict's utility floor reads: those with a utility headline measured against
// what a perfect synthesis would score (the resample baseline or a value theory gives).
bool wants_independent_marginals(const MetricSpec& metric) {
  for (const auto& h : metric.headlines)
    if (h.axis == "utility" &&
        (h.baseline.kind == BaselineKind::kResample || h.baseline.kind == BaselineKind::kAnalytic))
      return true;
  return false;
}

bool wants_baseline(const MetricSpec& metric, const BaselineData& baseline) {
  if (baseline.independent_draws > 0) return wants_independent_marginals(metric);
  return wants_baseline(
      metric, baseline.name == "holdout" ? BaselineKind::kHoldout : BaselineKind::kResample);
}

namespace {

void omit_plots(nlohmann::json& result) {
  auto& details = result["details"];
  if (!details.is_object() || !details.contains("plots")) return;
  details.erase("plots");
  result["plots_omitted"] = true;
}

std::size_t rows_of(const DrawScoring& how, const Table& table) {
  return how.rows_of ? how.rows_of(table) : table.rows();
}

std::shared_ptr<const Table> take_rows(const DrawScoring& how, const Table& pool,
                                       const std::vector<std::size_t>& rows,
                                       const TableSource& source) {
  if (how.take_rows) return how.take_rows(pool, rows, source);
  return std::make_shared<const Table>(select_rows(pool, rows, source));
}

}  // namespace

nlohmann::json score_baseline(const MetricSpec& metric, const Params& params,
                              const BaselineData& baseline, const DrawScoring& how) {
  // The holdout is not also given as the holdout when it stands in for the synthetic data.
  const Table* holdout_input = baseline.name == "holdout" ? nullptr : how.holdout;
  auto run_draw = [&](const std::vector<std::size_t>& rows, bool whole_pool, std::size_t replicate,
                      const std::string& label) {
    if (how.progress)
      how.progress("running " + metric.name + " on the " + baseline.name + " baseline " + label +
                   how.where);
    const auto t0 = std::chrono::steady_clock::now();
    const TableSource source{baseline.pool->source().path + " (" + baseline.name + " draw " +
                                 std::to_string(replicate) + ")",
                             "", "synthetic"};
    std::shared_ptr<const Table> drawn;
    if (baseline.independent_draws > 0)
      drawn = std::make_shared<const Table>(select_rows_per_column(
          *baseline.pool,
          independent_column_rows(baseline, baseline.pool->column_count(), replicate), source));
    else if (!whole_pool)
      drawn = take_rows(how, *baseline.pool, rows, source);
    if (drawn && baseline.relabel_households)
      drawn = std::make_shared<const Table>(with_household_copies_relabelled(
          *drawn, *baseline.relabel_households, repeat_numbers(rows)));
    const std::uint64_t seed = derive_seed(how.seed, metric.name, baseline.name, replicate);
    MetricInput input{*how.confidential, {whole_pool ? baseline.pool : drawn.get()},
                      holdout_input,     *how.context,
                      baseline.name,     seed,
                      how.neighbours,    how.work_progress,
                      how.memo,
                      /*plots=*/false};
    MetricResult result;
    try {
      std::optional<MetricResult> elsewhere;
      if (how.compute) elsewhere = how.compute(metric, input, params);
      result = elsewhere ? std::move(*elsewhere) : metric.compute(input, params);
    } catch (const MetricNotApplicable& e) {
      result.warnings.push_back(std::string("not applicable: ") + e.what());
    } catch (const InputError& e) {
      // Within a small subgroup a draw can lose a level an analysis needs; the whole-data
      // baselines let such errors end the evaluation, as the candidates' runs do.
      if (!how.subgroup) throw;
      result = MetricResult{};
      result.warnings.push_back(std::string("not computed in this draw: ") + e.what());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::make_tuple(std::move(result), seconds, seed);
  };
  nlohmann::json entry = {
      {"name", baseline.name}, {"baseline", true}, {"replicates", nlohmann::json::array()}};
  std::vector<MetricResult> value_results;
  const std::size_t value_draws =
      baseline.independent_draws > 0 ? baseline.independent_draws : baseline.value_draws.size();
  for (std::size_t d = 0; d < value_draws; ++d) {
    auto [result, seconds, seed] = run_draw(
        baseline.independent_draws > 0 ? std::vector<std::size_t>{}
                                       : baseline.value_draws[d].rows(),
        baseline.value_is_pool, d + 1, std::to_string(d + 1) + "/" + std::to_string(value_draws));
    nlohmann::json replicate = {{"replicate", d + 1},
                                {"rows", baseline.rows},
                                {"values", values_to_json(result.values)},
                                {"warnings", result.warnings}};
    if (!how.subgroup) {
      replicate["details"] = result.details;
      replicate["seed"] = seed;
      replicate["wall_seconds"] = seconds;
      // The baselines' plots would repeat the candidates'; their numbers are what matters.
      omit_plots(replicate);
    }
    if (how.keep_records) how.keep_records(result, baseline.name, std::to_string(d + 1));
    entry["replicates"].push_back(std::move(replicate));
    value_results.push_back(std::move(result));
  }
  if (value_results.size() > 1)
    entry["mean"] = {{"values", values_to_json(mean_over_replicates(value_results))}};
  std::vector<MetricResult> noise_results;
  if (baseline.noise_draws == baseline.value_draws) {
    noise_results = std::move(value_results);
  } else {
    for (std::size_t d = 0; d < baseline.noise_draws.size(); ++d)
      noise_results.push_back(std::get<0>(
          run_draw(baseline.noise_draws[d].rows(), false, baseline.value_draws.size() + d + 1,
                   "noise draw " + std::to_string(d + 1) + "/" +
                       std::to_string(baseline.noise_draws.size()))));
  }
  entry["noise"] = {
      {"draws", noise_results.size()},
      {"draw_rows", baseline.noise_rows},
      {"scale", baseline.noise_scale},
      {"values", values_to_json(spread_over_results(noise_results, baseline.noise_scale))}};
  return entry;
}

nlohmann::json score_at_baseline_size(
    const MetricSpec& metric, const std::vector<Table>& replicates, const std::string& candidate,
    std::size_t rows, std::size_t draws, const DrawScoring& how,
    const std::function<MetricResult(std::vector<const Table*>, std::size_t replicate,
                                     const std::string& label)>& run) {
  // Statistics such as replicated uniques grow with the number of synthetic rows, so the
  // verdict compares the holdout with the candidate at the holdout's size: the mean over
  // subsamples of N rows, whose spread (rescaled by 1 / sqrt(1 - N / n) for drawing without
  // replacement from n rows) is the candidate's own sampling noise at that size.
  std::vector<MetricResult> results;
  double scale_sum = 0.0;
  auto subsample = [&](const Table& t, std::size_t r, std::size_t d) {
    const DrawUnits units(t, rows_of(how, t), how.context ? how.context->household : "");
    return take_rows(how, t,
                     units.without_replacement(
                         rows, derive_seed(how.seed, "size-matched rows", candidate, r * 1000 + d)),
                     t.source());
  };
  for (const auto& t : replicates)
    scale_sum +=
        1.0 / std::sqrt(1.0 - static_cast<double>(rows) / static_cast<double>(rows_of(how, t)));
  for (std::size_t d = 1; d <= draws; ++d) {
    const std::string label =
        "at the holdout's size, draw " + std::to_string(d) + "/" + std::to_string(draws);
    if (metric.granularity == MetricGranularity::kPerReplicate) {
      for (std::size_t r = 0; r < replicates.size(); ++r) {
        const auto drawn = subsample(replicates[r], r + 1, d);
        results.push_back(run({drawn.get()}, r + 1, label));
      }
    } else {
      std::vector<std::shared_ptr<const Table>> drawn;
      for (std::size_t r = 0; r < replicates.size(); ++r)
        drawn.push_back(subsample(replicates[r], r + 1, d));
      std::vector<const Table*> tables;
      for (const auto& t : drawn) tables.push_back(t.get());
      results.push_back(run(tables, 0, label));
    }
  }
  const double scale = scale_sum / static_cast<double>(replicates.size());
  return {{"baseline", "holdout"},
          {"rows", rows},
          {"draws", results.size()},
          {"values", values_to_json(mean_over_replicates(results))},
          {"sd", values_to_json(spread_over_results(results, scale))}};
}

}  // namespace synthaudit
