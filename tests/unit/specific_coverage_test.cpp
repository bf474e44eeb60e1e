// Coverage of the combined synthetic intervals (analysis_inference_comparison) on simulator data,
// where the population values are known exactly:
//   share of sex = M: 0.49 (the simulator draws F with probability 0.51);
//   mean age: 0.7 · 40.5 + 0.3 · E[clamp(round(40 + 14 Z), 18, 90)] (docs/simulator.md model).
// Fixed seeds, so the test is deterministic; tolerances are set from the binomial spread of the
// coverage count (stated at each check).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <filesystem>

#include "core/random.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

constexpr int kSeeds = 150;  // simulated confidential data sets
constexpr std::size_t kRows = 400;
constexpr int kReplicates = 5;

double population_mean_age() {
  // 30%: clamp(round(40 + 14 Z), 18, 90), as a sum over the integer ages.
  auto cdf = [](double x) { return 0.5 * std::erfc(-(x - 40.0) / (14.0 * std::sqrt(2.0))); };
  double normal_part = 18.0 * cdf(18.5) + 90.0 * (1.0 - cdf(89.5));
  for (int k = 19; k <= 89; ++k) normal_part += k * (cdf(k + 0.5) - cdf(k - 0.5));
  // 70%: round(18 + 45 U) has mean 18 + 22.5.
  return 0.7 * 40.5 + 0.3 * normal_part;
}

struct Coverage {
  int confidential = 0, synthetic = 0, trials = 0;
};

void count(const MetricResult& r, const std::string& scope, double truth, Coverage& c) {
  c.trials += 1;
  c.confidential += value_of(r, "confidential_lower", scope) <= truth &&
                    truth <= value_of(r, "confidential_upper", scope);
  c.synthetic += value_of(r, "synthetic_lower", scope) <= truth &&
                 truth <= value_of(r, "synthetic_upper", scope);
}

// A partial synthesis by resampling: the replicate's sex and age are a bootstrap sample of the
// confidential (sex, age) pairs. Conditionally on the confidential data the replicates are
// independent with mean q, which is what Reiter's (2003) partial-synthesis rules assume.
Table bootstrap_replicate(const Table& conf, std::uint64_t seed, std::uint64_t stream) {
  std::vector<Column> columns = conf.columns();
  Rng rng(seed, stream);
  const auto sex = *conf.find("sex"), age = *conf.find("age");
  for (std::size_t i = 0; i < conf.rows(); ++i) {
    const auto j = static_cast<std::size_t>(rng.below(conf.rows()));
    columns[sex].codes[i] = conf.column(sex).codes[j];
    columns[age].numeric[i] = conf.column(age).numeric[j];
  }
  return Table(TableSource{"", "", "synthetic"}, std::move(columns));
}

}  // namespace

TEST(SpecificCoverage, IntervalsCoverPopulationValues) {
  // Hundreds of tiny simulations: one thread avoids OpenMP start-up and spin costs that dominate
  // on a loaded machine (results do not depend on the thread count).
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const double truth_age = population_mean_age();
  const double truth_male = 0.49;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("synthaudit_coverage_" + std::to_string(::getpid()));
  EvaluationContext ctx;
  ctx.analyses = {{.name = "male", .kind = "proportion", .column = "sex"},
                  {.name = "age", .kind = "mean", .column = "age"}};
  Coverage ideal_partial, ideal_full, resampled_partial, resampled_population;
  for (int s = 1; s <= kSeeds; ++s) {
    SimulationOptions options;
    options.rows = kRows;
    options.holdout_rows = 10;
    options.replicates = kReplicates;
    options.seed = static_cast<std::uint64_t>(s);
    options.out_dir = dir.string();
    const auto files = simulate(options);
    const auto& ideal = files.candidates.at(0);
    ASSERT_EQ(ideal.first, "ideal");
    Tables t = load_tables(files.confidential, ideal.second);
    ctx.synthesis = SynthesisType::kPartial;
    auto r = run_metric("analysis_inference_comparison", t, nlohmann::json::object(), ctx);
    count(r, "male:M;rule=reiter_partial", truth_male, ideal_partial);
    count(r, "age:age;rule=reiter_partial", truth_age, ideal_partial);
    ctx.synthesis = SynthesisType::kFull;
    r = run_metric("analysis_inference_comparison", t, nlohmann::json::object(), ctx);
    count(r, "male:M;rule=reiter_full", truth_male, ideal_full);
    count(r, "age:age;rule=reiter_full", truth_age, ideal_full);
    // The same confidential data, partially synthesised by resampling.
    for (int k = 0; k < kReplicates; ++k)
      t.synthetic[static_cast<std::size_t>(k)] = bootstrap_replicate(
          t.confidential, static_cast<std::uint64_t>(s), 77 + static_cast<std::uint64_t>(k));
    ctx.synthesis = SynthesisType::kPartial;
    r = run_metric("analysis_inference_comparison", t, nlohmann::json::object(), ctx);
    count(r, "male:M;rule=reiter_partial", truth_male, resampled_partial);
    count(r, "age:age;rule=reiter_partial", truth_age, resampled_partial);
    count(r, "male:M;rule=synthpop_population", truth_male, resampled_population);
    count(r, "age:age;rule=synthpop_population", truth_age, resampled_population);
  }
  std::filesystem::remove_all(dir);
  omp_set_num_threads(threads);
  const double n = ideal_partial.trials;  // 2 independent estimands (sex ⟂ age) × kSeeds = 300
  // Binomial sd of a 95% coverage share over 300 trials: sqrt(.95·.05/300) = 0.0126. We accept
  // ±0.045 (about 3.5 sd) around 0.95: a correct 95% interval fails this with probability < 1e-3.
  const double tolerance = 0.045;
  RecordProperty("confidential_coverage", std::to_string(ideal_partial.confidential / n));
  RecordProperty("resampled_partial_coverage", std::to_string(resampled_partial.synthetic / n));
  RecordProperty("resampled_population_coverage",
                 std::to_string(resampled_population.synthetic / n));
  RecordProperty("ideal_partial_coverage", std::to_string(ideal_partial.synthetic / n));
  RecordProperty("ideal_full_coverage", std::to_string(ideal_full.synthetic / n));
  std::printf(
      "coverage over %d trials: confidential %.3f, resampled partial %.3f, resampled "
      "synthpop_population %.3f, ideal partial %.3f, ideal full %.3f\n",
      ideal_partial.trials, ideal_partial.confidential / n, resampled_partial.synthetic / n,
      resampled_population.synthetic / n, ideal_partial.synthetic / n, ideal_full.synthetic / n);
  // The confidential t/normal intervals.
  EXPECT_NEAR(ideal_partial.confidential / n, 0.95, tolerance);
  // Partial-synthesis rules on a partial synthesis (replicates drawn given the confidential data):
  // T_p = v̄ + b/m estimates Var(q̄ − Q) = v + Var(q̄ − q), so the 95% interval covers at ~95%.
  EXPECT_NEAR(resampled_partial.synthetic / n, 0.95, tolerance);
  // synthpop's population inference on the same replicates (the analysed columns were
  // resampled, so synthesised): V = v_conf (1 + n/(k m)) = v(1 + 1/m) with n = k, which is
  // Var(q̄ − Q) = v + v/m for replicates drawn given the confidential data.
  EXPECT_NEAR(resampled_population.synthetic / n, 0.95, tolerance);
  // The `ideal` candidate is m fresh samples from the population, independent of the confidential
  // data: Var(q̄ − Q) = v/m, while T_p ≈ v + v/m. The partial-synthesis interval is then
  // conservative by a factor sqrt(m + 1) in its half-width, and its coverage is
  // P(|Z| < 1.96 sqrt(6)) ≈ 1 — not 95%. Full-synthesis rules give T_f ≈ v/m on average but with
  // ν_f ≈ (m − 1)/36 or T_f < 0 (then T_f* with a normal interval: v̄, or T_f + v̄ when ν_f < 1),
  // so they are conservative as well.
  EXPECT_GE(ideal_partial.synthetic / n, 0.99);
  EXPECT_GE(ideal_full.synthetic / n, 0.95);
}
