// NIST's k-marginal score against SDNist's own KMarginal class (tests/golden/general/k_marginal/
// make_golden.py, SDNist 2.5) on SD2011, and the subsample-equivalence anchor on candidates whose
// answer is known.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "metrics/metric_memo.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string golden_dir() {
  return (std::filesystem::path(__FILE__).parent_path() / "../golden/general/k_marginal").string();
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool has_warning(const MetricResult& r, const std::string& part) {
  for (const auto& w : r.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

// Scores of every pair and every triple at two bin counts equal SDNist's to 1e-9 relative (both
// sides sum the same densities in different orders).
TEST(KMarginal, MatchesSdnistOnSd2011) {
  std::ifstream f(golden_dir() + "/golden.json");
  const auto golden = nlohmann::json::parse(f);
  const auto t =
      load_tables(shared_data("sd2011/train.csv"), {shared_data("sd2011/train_syn.csv")});
  for (int bins : {10, 4}) {
    const auto r = run_metric("k_marginal", t, {{"bins", bins}, {"subsample_draws", 0}});
    for (const char* scope : {"two-way", "three-way"}) {
      const auto& want = golden["bins=" + std::to_string(bins)][scope];
      const double score = want["k_marginal_score"].get<double>();
      EXPECT_NEAR(value_of(r, "k_marginal_score", scope), score, 1e-9 * score) << bins << scope;
      EXPECT_EQ(value_of(r, "marginals", scope), want["marginals"].get<double>());
      EXPECT_NEAR(value_of(r, "mean_density_difference", scope), 2 - score / 500, 1e-12);
    }
  }
  // max_order 2: no triples.
  const auto pairs = run_metric("k_marginal", t, {{"max_order", 2}, {"subsample_draws", 0}});
  for (const auto& v : pairs.values) EXPECT_NE(v.scope, "three-way");
}

// A candidate made of every other confidential row reads as about a 50 % sample; the confidential
// data itself scores 1000, at least a 90 % sample (with a warning); the anchor depends on the
// evaluation's seed only, so two candidates are read against the same curve.
TEST(KMarginal, SubsampleAnchor) {
  const std::string conf = read_text(shared_data("sd2011/train.csv"));
  std::istringstream lines(conf);
  std::string line, half;
  for (std::size_t i = 0; std::getline(lines, line); ++i)
    if (i == 0 || i % 2 == 1) half += line + "\n";
  const auto t = make_tables(conf, {half, conf});
  EvaluationContext ctx;
  ctx.seed = 11;
  const auto r_half = run_metric("k_marginal", t, {}, ctx, 0);
  const auto r_copy = run_metric("k_marginal", t, {}, ctx, 1);
  for (const char* scope : {"two-way", "three-way"}) {
    const double fraction = value_of(r_half, "equivalent_subsample_fraction", scope);
    EXPECT_GT(fraction, 0.3) << scope;
    EXPECT_LT(fraction, 0.75) << scope;
    EXPECT_DOUBLE_EQ(value_of(r_copy, "k_marginal_score", scope), 1000);
    EXPECT_EQ(value_of(r_copy, "equivalent_subsample_fraction", scope), 0.9);
    // The curve rises with the fraction and is the same for both candidates.
    double previous = 0;
    for (const char* pct : {"1", "10", "50", "90"}) {
      const std::string stat = std::string("subsample_score_") + pct + "pct";
      const double v = value_of(r_half, stat, scope);
      EXPECT_GT(v, previous) << stat;
      EXPECT_EQ(v, value_of(r_copy, stat, scope)) << stat;
      previous = v;
    }
  }
  EXPECT_TRUE(has_warning(r_copy, "at least that of a 90 % subsample"));
  EXPECT_FALSE(has_warning(r_half, "subsample of the confidential data ("));
}

TEST(KMarginal, BadParametersAndColumns) {
  const auto t = make_tables("a,b\nx,1\ny,2\n", {"a,b\nx,1\nx,2\n"});
  EXPECT_THROW(run_metric("k_marginal", t, {{"max_order", 4}}), InputError);
  EXPECT_THROW(run_metric("k_marginal", t, {{"bins", 1}}), InputError);
  EXPECT_THROW(run_metric("k_marginal", t, {{"columns", {"a", "nope"}}}), InputError);
  // Two columns: one pair, no triple (a warning says why).
  const auto r = run_metric("k_marginal", t, {{"subsample_draws", 0}});
  EXPECT_EQ(value_of(r, "marginals", "two-way"), 1);
  EXPECT_TRUE(has_warning(r, "3-way marginals need at least 3 columns"));
}

// Marginals run in parallel and their differences are added in marginal order afterwards: every
// value, the anchor's included, is the same at 1 and 3 threads.
TEST(KMarginal, SameValuesAtAnyThreadCount) {
  const auto t =
      load_tables(shared_data("sd2011/train.csv"), {shared_data("sd2011/train_syn.csv")});
  EvaluationContext ctx;
  ctx.seed = 7;
  MetricResult one, three;
  {
    ThreadCountScope scope(1);
    one = run_metric("k_marginal", t, {}, ctx);
  }
  {
    ThreadCountScope scope(3);
    three = run_metric("k_marginal", t, {}, ctx);
  }
  ASSERT_EQ(one.values.size(), three.values.size());
  ASSERT_GT(one.values.size(), 20u);
  for (std::size_t i = 0; i < one.values.size(); ++i) {
    EXPECT_EQ(one.values[i].statistic, three.values[i].statistic);
    EXPECT_EQ(one.values[i].value, three.values[i].value) << one.values[i].statistic;
  }
}

// The anchor an evaluation shares between calls (MetricMemo) equals the one each call computes
// alone, whichever table computes it first: a synthetic table with a level and missing values
// the confidential data lack codes the confidential cells differently but in the same order, so
// the sums are unchanged; and the calls share one computation per marginal order.
TEST(KMarginal, SharedAnchorEqualsEachCallsOwn) {
  const auto dir = private_temp_dir("k_marginal_memo");
  std::filesystem::create_directories(dir);
  const std::string odd = (dir / "odd.csv").string();
  {
    std::ifstream in(shared_data("sd2011/train_syn.csv"));
    std::ofstream out(odd);
    std::string line;
    std::getline(in, line);
    ASSERT_EQ(line.rfind("\"sex\",\"age\",", 0), 0u);
    out << line << "\n";
    for (int row = 0; std::getline(in, line); ++row) {
      if (row < 40) {  // a new level of sex and a missing age
        const auto after_age = line.find(',', line.find(',') + 1);
        line = "\"OTHER\"," + line.substr(after_age);
      }
      out << line << "\n";
    }
  }
  const auto t =
      load_tables(shared_data("sd2011/train.csv"), {shared_data("sd2011/train_syn.csv"), odd});
  EvaluationContext ctx;
  ctx.seed = 11;
  const MetricSpec* metric = find_metric("k_marginal");
  ASSERT_NE(metric, nullptr);
  const Params params = Params::resolve("k_marginal", metric->params, {{"bins", 4}}, "test");
  auto run = [&](std::size_t replicate, MetricMemo* memo) {
    MetricInput input{t.confidential, {&t.synthetic[replicate]}, nullptr, ctx, "test", ctx.seed};
    input.memo = memo;
    return metric->compute(input, params);
  };
  const MetricResult own[2] = {run(0, nullptr), run(1, nullptr)};
  ASSERT_NE(value_of(own[0], "k_marginal_score", "two-way"),
            value_of(own[1], "k_marginal_score", "two-way"));
  for (const auto order : {std::array<std::size_t, 2>{0, 1}, std::array<std::size_t, 2>{1, 0}}) {
    MetricMemo memo;
    for (std::size_t r : order) {
      const MetricResult shared = run(r, &memo);
      ASSERT_EQ(shared.values.size(), own[r].values.size());
      for (std::size_t i = 0; i < shared.values.size(); ++i) {
        EXPECT_EQ(shared.values[i].statistic, own[r].values[i].statistic);
        EXPECT_EQ(shared.values[i].scope, own[r].values[i].scope);
        EXPECT_EQ(shared.values[i].value, own[r].values[i].value)
            << shared.values[i].statistic << " [" << shared.values[i].scope << "]";
      }
    }
    EXPECT_EQ(memo.computations(), 2u);  // the two-way and the three-way anchor, once each
  }
  std::filesystem::remove_all(dir);
}
