// SUDA2's minimal sample uniques against subset enumeration (random tables, in C++, and the SD2011
// keys by pandas group-bys in tests/golden/sdc_risk/suda2/make_golden.py), and the SUDA /
// DIS-SUDA scores against that script and against sdcMicro 5.8.1's own Suda2.h
// (make_sdcmicro.R).
#include "stats/suda2.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/random.hpp"
#include "core/threads.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::stats;

namespace {

std::string golden_dir() { return std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/sdc_risk/suda2"; }

nlohmann::json read_json(const std::string& name) {
  std::ifstream f(golden_dir() + "/" + name);
  return nlohmann::json::parse(f);
}

SudaKeys random_keys(std::uint64_t seed, std::size_t rows, std::size_t keys, std::uint32_t levels,
                     double missing_share) {
  Rng rng(seed, 7);
  SudaKeys k;
  k.rows = rows;
  for (std::size_t c = 0; c < keys; ++c) {
    const auto l = 1 + static_cast<std::uint32_t>(rng.below(levels));
    std::vector<std::uint32_t> codes(rows);
    for (auto& v : codes)
      v = rng.uniform() < missing_share ? kSudaMissing : static_cast<std::uint32_t>(rng.below(l));
    k.codes.push_back(std::move(codes));
    k.levels.push_back(l);
  }
  return k;
}

}  // namespace

TEST(Suda2, SearchFindsExactlyTheMsusOfSubsetEnumeration) {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const std::size_t keys = 1 + seed % 7;
    const std::size_t rows = 5 + (seed * 37) % 200;
    const auto k = random_keys(seed, rows, keys, 2 + static_cast<std::uint32_t>(seed % 6),
                               seed % 3 == 0 ? 0.1 : 0.0);
    for (int max_size = 1; max_size <= static_cast<int>(keys); ++max_size) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", max size " + std::to_string(max_size));
      const auto oracle = minimal_sample_uniques_by_enumeration(k, max_size);
      ASSERT_EQ(minimal_sample_uniques(k, max_size), oracle);
      compared += !oracle.empty();
    }
  }
  EXPECT_GT(compared, 60);  // most cases have MSUs to compare
}

TEST(Suda2, SameMsusOnAnyThreadCount) {
  const auto k = random_keys(99, 3000, 8, 6, 0.05);
  std::vector<MinimalSampleUnique> one, two;
  {
    const ThreadCountScope threads(1);
    one = minimal_sample_uniques(k, 8);
  }
  {
    const ThreadCountScope threads(2);
    two = minimal_sample_uniques(k, 8);
  }
  EXPECT_FALSE(one.empty());
  EXPECT_EQ(one, two);
}

TEST(Suda2, EdgeCases) {
  SudaKeys one_row{{{0}, {3}}, {1, 4}, 1};
  // A single record: each of its values is held by no other record.
  EXPECT_EQ(minimal_sample_uniques(one_row, 2), (std::vector<MinimalSampleUnique>{{0, 1}, {0, 2}}));
  SudaKeys all_missing{{{kSudaMissing, kSudaMissing}}, {0}, 2};
  EXPECT_TRUE(minimal_sample_uniques(all_missing, 1).empty());
  SudaKeys duplicates{{{0, 0, 1, 1}, {2, 2, 2, 2}}, {2, 3}, 4};
  EXPECT_TRUE(minimal_sample_uniques(duplicates, 2).empty());
  EXPECT_THROW(minimal_sample_uniques(duplicates, 0), std::invalid_argument);
  // Weights: (K − s)! when the largest size is K; the empty product 1 at size M.
  EXPECT_EQ(suda_weight(1, 7, 7), 720);
  EXPECT_EQ(suda_weight(7, 7, 7), 1);
  EXPECT_EQ(suda_weight(3, 7, 3), 1);
  EXPECT_EQ(suda_weight(1, 7, 3), 30);
}

TEST(Suda2, Sd2011MatchesSubsetEnumerationAndSdcMicro) {
  const auto golden = read_json("golden.json");
  const auto sdcmicro = read_json("sdcmicro.json");
  const double f = golden["dis_fraction"];
  for (const auto& c : golden["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    ReadSettings settings;
    for (const auto& [column, codes] : c["missing_codes"].items())
      settings.missing_codes[column] = codes.get<std::vector<double>>();
    const std::string path =
        std::string(SYNTHAUDIT_TEST_DATA) + "/sd2011/" + c["file"].get<std::string>();
    const auto tables = synthaudit::testing::load_tables(path, {}, std::nullopt, settings);
    std::vector<std::size_t> columns;
    for (const auto& key : c["keys"])
      columns.push_back(tables.confidential.index_of(key.get<std::string>()));
    const auto keys = suda_keys(tables.confidential, columns);
    const int max_size = c["max_size"];

    const auto msus = minimal_sample_uniques(keys, max_size);
    std::vector<MinimalSampleUnique> expected;
    for (const auto& m : c["msu_list"]) {
      std::uint64_t bits = 0;
      for (const int k : m[1]) bits |= std::uint64_t{1} << k;
      expected.push_back({m[0].get<std::uint32_t>(), bits});
    }
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(msus.size(), c["msus"].get<std::size_t>());
    EXPECT_EQ(msus, expected);

    const auto scores = suda_scores(keys, msus, max_size, f);
    EXPECT_EQ(scores.msus_by_size, c["msus_by_size"].get<std::vector<std::uint64_t>>());
    EXPECT_EQ(scores.sample_uniques, c["sample_uniques"].get<std::size_t>());
    EXPECT_EQ(scores.records_in_pairs, c["records_in_pairs"].get<std::size_t>());
    EXPECT_NEAR(scores.dis, c["dis"].get<double>(), 1e-15);
    std::vector<double> score(keys.rows, 0), dis(keys.rows, 0);
    std::vector<std::uint32_t> count(keys.rows, 0);
    for (const auto& r : c["records"]) {
      const auto row = r[0].get<std::size_t>();
      count[row] = r[1];
      score[row] = r[2];
      dis[row] = r[3];
    }
    for (std::size_t r = 0; r < keys.rows; ++r) {
      ASSERT_EQ(scores.msus[r], count[r]) << "row " << r;
      ASSERT_EQ(scores.score[r], score[r]) << "row " << r;  // sums of integers: exact
      ASSERT_NEAR(scores.dis_score[r], dis[r], 1e-12 * dis[r]) << "row " << r;
    }

    // sdcMicro (its MaxK is always the number of keys): the same scores; DIS-SUDA within its
    // single-precision intermediates (DisFraction, D and Q are floats there).
    if (!sdcmicro.contains(name)) continue;
    const auto& theirs = sdcmicro[name];
    for (std::size_t r = 0; r < keys.rows; ++r) {
      ASSERT_EQ(scores.score[r], theirs["score"][r].get<double>()) << "row " << r;
      ASSERT_NEAR(scores.dis_score[r], theirs["dis_score"][r].get<double>(),
                  2e-7 * scores.dis_score[r])
          << "row " << r;
    }
  }
}

// The suda2 metric's per-record output (record_level): every record's number of MSUs, SUDA and
// DIS-SUDA scores on the confidential data (train.csv) and the synthetic data (train_syn.csv),
// against the subset enumeration of make_golden.py.
TEST(Suda2, RecordLevelMatchesSubsetEnumeration) {
  const auto golden = read_json("golden.json");
  const std::string dir = std::string(SYNTHAUDIT_TEST_DATA) + "/sd2011/";
  const auto tables = synthaudit::testing::load_tables(dir + "train.csv", {dir + "train_syn.csv"});
  EvaluationContext context;
  context.scenarios = {{{"sex", "age", "edu", "marital", "ls", "smoke"}, {}}};
  const auto result =
      synthaudit::testing::run_metric("suda2", tables, {{"record_level", true}}, context);
  ASSERT_EQ(result.records.size(), 2u);
  const std::map<std::string, std::string> cases = {{"confidential", "train_6keys"},
                                                    {"synthetic", "syn_6keys"}};
  for (const auto& records : result.records) {
    SCOPED_TRACE(records.data);
    EXPECT_EQ(records.scope, "keys=sex,age,edu,marital,ls,smoke");
    EXPECT_EQ(records.confidential_only, records.data == "confidential");
    ASSERT_EQ(records.fields, (std::vector<std::string>{"msus", "suda_score", "dis_suda_score"}));
    const nlohmann::json* c = nullptr;
    for (const auto& candidate : golden["cases"])
      if (candidate["name"] == cases.at(records.data)) c = &candidate;
    ASSERT_NE(c, nullptr);
    const std::size_t rows = (*c)["rows"];
    std::vector<double> count(rows, 0), score(rows, 0), dis(rows, 0);
    for (const auto& r : (*c)["records"]) {
      const auto row = r[0].get<std::size_t>();
      count[row] = r[1];
      score[row] = r[2];
      dis[row] = r[3];
    }
    ASSERT_EQ(records.values[0].size(), rows);
    for (std::size_t r = 0; r < rows; ++r) {
      ASSERT_EQ(records.values[0][r], count[r]) << "row " << r;
      ASSERT_EQ(records.values[1][r], score[r]) << "row " << r;
      ASSERT_NEAR(records.values[2][r], dis[r], 1e-12 * dis[r]) << "row " << r;
    }
  }
}
