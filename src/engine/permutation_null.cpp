#include "engine/permutation_null.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/random.hpp"
#include "engine/baselines.hpp"
#include "metrics/risk_side.hpp"

namespace synthaudit {

namespace {

bool tested(const Headline& h) {
  return h.axis == "risk" && (h.baseline.kind == BaselineKind::kHoldout ||
                              h.baseline.kind == BaselineKind::kStatistic ||
                              h.baseline.kind == BaselineKind::kAnalytic);
}

double value_of(const std::vector<MetricValue>& values, const std::string& statistic,
                const std::string& scope) {
  for (const auto& v : values)
    if (v.statistic == statistic && v.scope == scope) return v.value;
  return NAN;
}

// The rows of `a` then those of `b` (the same columns, dictionaries shared).
Table concatenated(const Table& a, const Table& b) {
  std::vector<Column> columns;
  columns.reserve(a.column_count());
  for (std::size_t c = 0; c < a.column_count(); ++c) {
    const Column& x = a.column(c);
    const Column& y = b.column(c);
    Column to;
    to.name = x.name;
    to.kind = x.kind;
    to.dictionary = x.dictionary;
    to.missing_codes = x.missing_codes;
    if (x.is_numeric()) {
      to.numeric = x.numeric;
      to.numeric.insert(to.numeric.end(), y.numeric.begin(), y.numeric.end());
    } else {
      to.codes = x.codes;
      to.codes.insert(to.codes.end(), y.codes.begin(), y.codes.end());
    }
    if (!x.missing_code_index.empty() || !y.missing_code_index.empty()) {
      to.missing_code_index = x.missing_code_index;
      to.missing_code_index.resize(x.size(), 0);
      to.missing_code_index.insert(to.missing_code_index.end(), y.missing_code_index.begin(),
                                   y.missing_code_index.end());
      to.missing_code_index.resize(x.size() + y.size(), 0);
    }
    columns.push_back(std::move(to));
  }
  return Table(TableSource{a.source().path + " + " + b.source().path, "", "synthetic"},
               std::move(columns));
}

// The tables' statistics, in the form each headline compares.
struct Runs {
  std::vector<MetricValue> synthetic_alone, holdout_alone, together;
};

// The excess of one headline from one pair of tables.
double excess_of(const Headline& h, const Runs& runs) {
  if (h.baseline.kind == BaselineKind::kHoldout)
    return risk_excess(h.ideal, value_of(runs.synthetic_alone, h.statistic, h.scope),
                       value_of(runs.holdout_alone, h.statistic, h.scope));
  const double value = value_of(runs.together, h.statistic, h.scope);
  if (h.baseline.kind == BaselineKind::kStatistic)
    return risk_excess(h.ideal, value, value_of(runs.together, h.baseline.statistic, h.scope));
  return risk_excess(h.ideal, value, h.baseline.value);
}

}  // namespace

bool has_null_tested_headline(const MetricSpec& metric) {
  return std::any_of(metric.headlines.begin(), metric.headlines.end(), tested);
}

std::size_t null_tested_headlines(const std::vector<const MetricSpec*>& metrics) {
  std::size_t count = 0;
  for (const MetricSpec* metric : metrics)
    if (metric->granularity == MetricGranularity::kPerReplicate)
      count += static_cast<std::size_t>(
          std::count_if(metric->headlines.begin(), metric->headlines.end(), tested));
  return count;
}

std::vector<NullTest> permutation_nulls(const MetricSpec& metric, const Table& replicate,
                                        const Table& holdout, int max_resplits, std::uint64_t seed,
                                        const MetricOnTables& run, double decided_at,
                                        const std::string& household) {
  std::vector<const Headline*> headlines;
  bool alone = false, together = false;
  for (const auto& h : metric.headlines)
    if (tested(h)) {
      headlines.push_back(&h);
      (h.baseline.kind == BaselineKind::kHoldout ? alone : together) = true;
    }
  std::vector<NullTest> tests;
  if (headlines.empty() || max_resplits <= 0) return tests;

  // Every pair of tables is scored by the same procedure, the observed one included: the
  // metric's seed is the same for both sides of one pair, so a re-split differs from the
  // observed pair only in which records went where.
  auto score = [&](const Table& synthetic, const Table& fresh, std::uint64_t run_seed) {
    Runs runs;
    if (alone) {
      runs.synthetic_alone = run(synthetic, nullptr, run_seed);
      runs.holdout_alone = run(fresh, nullptr, run_seed);
    }
    if (together) runs.together = run(synthetic, &fresh, run_seed);
    return runs;
  };
  const Runs observed_runs = score(replicate, holdout, seed);
  std::vector<std::size_t> active;
  for (std::size_t i = 0; i < headlines.size(); ++i) {
    NullTest test;
    test.statistic = headlines[i]->statistic;
    test.scope = headlines[i]->scope;
    test.baseline = to_string(headlines[i]->baseline.kind);
    test.observed = excess_of(*headlines[i], observed_runs);
    tests.push_back(test);
    if (std::isfinite(test.observed)) active.push_back(i);
  }

  Table pooled = concatenated(replicate, holdout);
  const std::size_t n = replicate.rows();
  if (const auto column = pooled.find(household); !household.empty() && column) {
    // A holdout household whose identifier a synthetic household also has is another household.
    std::vector<std::size_t> copy(pooled.rows(), 0);
    std::fill(copy.begin() + static_cast<std::ptrdiff_t>(n), copy.end(), 1);
    pooled = with_household_copies_relabelled(pooled, *column, copy);
  }
  const DrawUnits units(pooled, pooled.rows(), household);
  for (int b = 1; b <= max_resplits && !active.empty(); ++b) {
    Rng rng(seed, static_cast<std::uint64_t>(b));
    const auto [first, second] = units.split(n, rng);
    const Table synthetic_side = select_rows(pooled, first, replicate.source());
    const Table fresh_side = select_rows(pooled, second, holdout.source());
    const Runs runs = score(synthetic_side, fresh_side, seed);
    std::vector<std::size_t> still;
    for (std::size_t i : active) {
      NullTest& test = tests[i];
      const double excess = excess_of(*headlines[i], runs);
      ++test.resplits;
      // Ties count as at least as extreme (discrete statistics tie often), and so does a
      // re-split the metric could not score: both keep the test conservative.
      const double tolerance = 1e-12 * std::max(1.0, std::fabs(test.observed));
      if (!(excess < test.observed - tolerance)) ++test.as_extreme;
      const bool decided =
          test.as_extreme == 0 && 1.0 / (static_cast<double>(test.resplits) + 1.0) <= decided_at;
      if (test.as_extreme < kNullStopExceedances && !decided) still.push_back(i);
    }
    active = std::move(still);
  }
  for (auto& test : tests) {
    if (test.resplits == 0) continue;
    const double draws = static_cast<double>(test.resplits);
    test.p_value = test.as_extreme >= kNullStopExceedances
                       ? static_cast<double>(test.as_extreme) / draws
                       : (static_cast<double>(test.as_extreme) + 1.0) / (draws + 1.0);
    test.monte_carlo_error = std::sqrt(test.p_value * (1.0 - test.p_value) / draws);
  }
  return tests;
}

nlohmann::json to_json(const NullTest& test) {
  return {{"statistic", test.statistic},
          {"scope", test.scope},
          {"baseline", test.baseline},
          {"observed_excess",
           std::isfinite(test.observed) ? nlohmann::json(test.observed) : nlohmann::json(nullptr)},
          {"p_value", test.resplits > 0 ? nlohmann::json(test.p_value) : nlohmann::json(nullptr)},
          {"monte_carlo_error", test.monte_carlo_error},
          {"resplits", test.resplits},
          {"as_extreme", test.as_extreme}};
}

}  // namespace synthaudit
