#pragma once
// The verdict's null hypothesis, tested by exchangeability: "this candidate replicate is as safe
// as a fresh sample of the same population", i.e. its records and the holdout's are exchangeable
// with respect to the confidential data. Under that null, pooling the replicate's and the
// holdout's records and splitting them again at random into parts of the two sizes gives
// statistics distributed as the observed one, so the rank of the observed difference among the
// re-splits is a p-value (Phipson & Smyth 2010: with the +1 correction, never 0). The number of
// re-splits adapts to the evidence (Besag & Clifford 1991: stop after h re-splits at least as
// extreme), with the Monte Carlo error of the p-value reported.
//
// Which headlines: the record-level risk headlines whose baseline involves the holdout (the
// metric re-run on the holdout, a statistic the metric computes on the holdout, or an analytic
// value the metric's holdout comparison should reach). Their difference is one-sided: only a
// candidate riskier than the fresh sample counts (risk_excess in metrics/risk_side.hpp). Any
// statistic is valid, set-level (uniques, CAP) or per record (distances): the re-splits keep both
// sizes, so unequal replicate and holdout sizes keep the test exact.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "metrics/metric.hpp"
#include "table/table.hpp"

namespace synthaudit {

// The number of re-splits at least as extreme as the observed one after which a test stops (the
// p-value is then h / re-splits); the bound on re-splits is the spec's null_draws.
inline constexpr std::size_t kNullStopExceedances = 10;

// Each re-split re-runs the metric on the re-split tables, which the neighbour-search metrics pay
// for in full; above this many pooled rows (a replicate's plus the holdout's) the test is not
// made and the verdict keeps its noise rule for that replicate (results.json says so). Tests that
// re-split per-record values computed once would lift this bound.
inline constexpr std::size_t kNullMaxPooledRows = 20000;

struct NullTest {
  std::string statistic, scope;
  std::string baseline;   // "holdout", "statistic" or "analytic": how the difference is formed
  double observed = 0.0;  // the candidate's excess risk over the fresh-sample side
  double p_value = 1.0;
  double monte_carlo_error = 0.0;  // standard error of p_value from the finite re-splits
  std::size_t resplits = 0;        // re-splits drawn for this headline
  std::size_t as_extreme = 0;      // of which at least as extreme as the observed difference
};

// The metric's values for one table in place of the synthetic data, with `holdout` as its
// holdout input (nullptr: none), run with `seed`.
using MetricOnTables = std::function<std::vector<MetricValue>(
    const Table& synthetic, const Table* holdout, std::uint64_t seed)>;

// Whether `metric` has a headline the null tests.
bool has_null_tested_headline(const MetricSpec& metric);

// The permutation tests of the metric's tested headlines for one replicate against the holdout,
// with at most `max_resplits` re-splits each, seeded by `seed`. A test also stops once none of
// its first L re-splits is as extreme and 1 / (L + 1) <= `decided_at` (the smallest per-test level
// the verdict's correction can ask for): under the null no re-split is as extreme in the first L
// with probability at most 1 / (L + 1), so the p-value 1 / (L + 1) stays valid, and a clear
// excess costs L re-splits instead of max_resplits. 0: no such stop.
// With a `household` column the units re-split are whole households (the holdout's identifiers
// made distinct from the replicate's first), so the synthetic side has at least the replicate's
// rows, exceeding them by less than one household.
std::vector<NullTest> permutation_nulls(const MetricSpec& metric, const Table& replicate,
                                        const Table& holdout, int max_resplits, std::uint64_t seed,
                                        const MetricOnTables& run, double decided_at = 0.0,
                                        const std::string& household = "");

// How many headlines of `metrics` the null tests for one replicate.
std::size_t null_tested_headlines(const std::vector<const MetricSpec*>& metrics);

nlohmann::json to_json(const NullTest& test);

}  // namespace synthaudit
