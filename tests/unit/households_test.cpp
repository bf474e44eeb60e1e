// Households: persons grouped by the household identifier, baselines and permutation re-splits
// that draw whole households (engine/baselines.hpp: DrawUnits), repeated households relabelled,
// and the household metrics on small tables whose answers are counted by hand. The real-data
// checks against pandas are tests/cli/household_reference.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/random.hpp"
#include "engine/baselines.hpp"
#include "engine/evaluate.hpp"
#include "metrics/households/household_groups.hpp"
#include "spec/spec.hpp"
#include "table/relations.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using synthaudit::testing::make_tables;
using synthaudit::testing::run_metric;
using synthaudit::testing::value_of;

namespace {

// Households 7 (rows 0, 2, 5), 3 (rows 1, 4), 9 (row 3) and two rows without one (6, 7).
const char* kPersons =
    "hh,age,sex,region\n7,30,F,N\n3,40,M,S\n7,32,M,N\n9,70,F,S\n3,12,F,S\n7,5,F,N\n,50,M,N\n,"
    "51,F,S\n";

// Household of each row (by identifier and copy) from the relabelled table.
std::map<std::size_t, std::vector<std::size_t>> members_by_household(const Table& table,
                                                                     std::size_t column) {
  const auto groups = households::group_households(table, column);
  std::map<std::size_t, std::vector<std::size_t>> out;
  for (std::size_t h = 0; h < groups.households(); ++h)
    for (std::size_t i = groups.start[h]; i < groups.start[h + 1]; ++i)
      out[h].push_back(groups.members[i]);
  return out;
}

TEST(HouseholdGroups, GroupsRowsByIdentifierInOrderOfFirstMember) {
  const auto t = make_tables(kPersons, {kPersons});
  const auto groups = households::group_households(t.confidential, 0);
  ASSERT_EQ(groups.households(), 3u);
  EXPECT_EQ(groups.without_household, 2u);
  EXPECT_EQ(std::vector<std::uint32_t>(groups.members.begin(), groups.members.end()),
            (std::vector<std::uint32_t>{0, 2, 5, 1, 4, 3}));
  EXPECT_EQ(groups.size(0), 3u);
  EXPECT_EQ(groups.size(1), 2u);
  EXPECT_EQ(groups.size(2), 1u);
  EXPECT_TRUE(households::constant_within_households(t.confidential, groups, 3));
  EXPECT_FALSE(households::constant_within_households(t.confidential, groups, 2));
}

TEST(DrawUnits, WithoutAHouseholdColumnTheDrawsAreTheRowDraws) {
  const auto t = make_tables(kPersons, {kPersons});
  const DrawUnits rows(t.confidential, t.confidential.rows(), "");
  EXPECT_FALSE(rows.household_column());
  EXPECT_EQ(rows.without_replacement(5, 11), draw_without_replacement(8, 5, 11));
  EXPECT_EQ(rows.with_replacement(5, 11), draw_with_replacement(8, 5, 11));
  Rng rng(3, 1);
  const auto [first, second] = rows.split(3, rng);
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(second.size(), 5u);
}

TEST(DrawUnits, HouseholdDrawsTakeEveryMemberOrNone) {
  const auto t = make_tables(kPersons, {kPersons});
  const DrawUnits units(t.confidential, t.confidential.rows(), "hh");
  ASSERT_EQ(units.household_column(), std::optional<std::size_t>(0));
  const std::vector<std::set<std::size_t>> households = {{0, 2, 5}, {1, 4}, {3}, {6}, {7}};
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const auto drawn = units.without_replacement(4, seed);
    EXPECT_TRUE(std::is_sorted(drawn.begin(), drawn.end()));
    EXPECT_GE(drawn.size(), 4u);
    EXPECT_LT(drawn.size(), 4u + 3u);
    const std::set<std::size_t> rows(drawn.begin(), drawn.end());
    EXPECT_EQ(rows.size(), drawn.size());  // without replacement: no row twice
    for (const auto& h : households) {
      const auto in = std::count_if(h.begin(), h.end(), [&](auto r) { return rows.count(r); });
      EXPECT_TRUE(in == 0 || in == static_cast<long>(h.size())) << "seed " << seed;
    }
    // With replacement each household's rows are drawn equally often.
    const auto again = units.with_replacement(6, seed);
    EXPECT_GE(again.size(), 6u);
    for (const auto& h : households) {
      std::set<long> times;
      for (auto r : h) times.insert(std::count(again.begin(), again.end(), r));
      EXPECT_EQ(times.size(), 1u) << "seed " << seed;
    }
    Rng rng(seed, 1);
    const auto [first, second] = units.split(4, rng);
    EXPECT_GE(first.size(), 4u);
    EXPECT_EQ(first.size() + second.size(), 8u);
  }
}

TEST(DrawUnits, RepeatedHouseholdsBecomeHouseholdsOfTheirOwn) {
  for (const char* csv : {kPersons, "hh,age\nA,1\nB,2\nA,3\nC,4\nB,5\nA,6\nA#2,7\n"}) {
    const auto t = make_tables(csv, {csv});
    // Household 7 (or A) drawn three times, household 3 (or B) twice.
    const std::vector<std::size_t> rows = {0, 0, 0, 1, 1, 2, 2, 2, 4, 4, 5, 5, 5};
    const Table drawn = select_rows(t.confidential, rows, t.confidential.source());
    const Table relabelled = with_household_copies_relabelled(drawn, 0, repeat_numbers(rows));
    std::multiset<std::size_t> sizes;
    for (const auto& [h, members] : members_by_household(relabelled, 0)) {
      sizes.insert(members.size());
      std::set<std::size_t> original;
      for (auto m : members) original.insert(rows[m]);
      EXPECT_EQ(original.size(), members.size()) << "a household holds one copy of each member";
    }
    EXPECT_EQ(sizes, (std::multiset<std::size_t>{2, 2, 3, 3, 3}));
    // The confidential table's dictionary is untouched.
    EXPECT_EQ(t.confidential.column(0).cardinality(), drawn.column(0).cardinality());
  }
}

TEST(HouseholdMetrics, NeedAHouseholdColumn) {
  const auto t = make_tables(kPersons, {kPersons});
  for (const char* name : {"household_structure", "household_composition", "household_disclosure"})
    EXPECT_THROW(run_metric(name, t), MetricNotApplicable) << name;
}

TEST(HouseholdStructure, CountsByHand) {
  // Confidential households: sizes 3, 2, 1. Synthetic: sizes 2 (region split), 2, 4 and one row
  // without a household.
  const std::string syn =
      "hh,age,sex,region\n1,30,F,N\n1,40,M,S\n2,32,M,N\n2,70,F,N\n3,12,F,S\n3,5,F,S\n3,6,M,S\n3,"
      "7,M,S\n,50,M,N\n";
  const auto t = make_tables(kPersons, {syn});
  EvaluationContext context;
  context.household = "hh";
  const auto r = run_metric("household_structure", t, {}, context);
  // Shares by size: conf {1: 1/3, 2: 1/3, 3: 1/3}, syn {2: 2/3, 4: 1/3}: TV = ½(1/3 + 1/3 + 1/3 +
  // 1/3) = 2/3.
  EXPECT_NEAR(value_of(r, "household_size_tv", "all"), 2.0 / 3.0, 1e-15);
  // CDFs at 1, 2, 3, 4: conf 1/3, 2/3, 1, 1; syn 0, 2/3, 2/3, 1.
  EXPECT_NEAR(value_of(r, "household_size_ks", "all"), 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(value_of(r, "size_within_bounds_share", "all"), 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(value_of(r, "persons_without_household_share", "all"), 1.0 / 9.0, 1e-15);
  EXPECT_NEAR(value_of(r, "household_inconsistent_share", "region"), 1.0 / 3.0, 1e-15);
  EXPECT_EQ(value_of(r, "conf_households", "all"), 3.0);
  EXPECT_EQ(value_of(r, "syn_households", "all"), 3.0);
}

TEST(HouseholdDisclosure, CopiesAndReplicatedUniquesByHand) {
  // Synthetic household 5 copies confidential household 3 (members in another order), household
  // 6 copies household 9, and household 8 matches no one.
  const std::string syn = "hh,age,sex,region\n5,12,F,S\n5,40,M,S\n6,70,F,S\n8,30,F,N\n8,31,M,N\n";
  const auto t = make_tables(kPersons, {syn});
  EvaluationContext context;
  context.household = "hh";
  const auto r = run_metric("household_disclosure", t, {{"keys", {"sex", "region"}}}, context);
  EXPECT_NEAR(value_of(r, "household_copy_share", "all"), 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(value_of(r, "copied_person_share", "all"), 3.0 / 5.0, 1e-15);
  // On (sex, region) every confidential household is unique, and so is every synthetic one;
  // households 5 and 6 match confidential ones, household 8 ({F,N}, {M,N}) matches none.
  EXPECT_EQ(value_of(r, "replicated_unique_households", "all"), 2.0);
  EXPECT_NEAR(value_of(r, "conf_unique_household_share", "all"), 1.0, 1e-15);
  EXPECT_NEAR(value_of(r, "conf_below_k_household_share", "all"), 1.0, 1e-15);
}

}  // namespace

namespace {

using synthaudit::testing::make_tables;

TEST(Relations, CountsAndJoinByHand) {
  // Households 1, 2, 2 (repeated), 3 (childless); persons of 1, 2, 9 (an orphan) and one with no
  // household. Keys are text in one table and match by value, not by code.
  const auto households = make_tables("hid,region\nA,N\nB,S\nB,S\nC,N\n", {"hid,region\nA,N\n"});
  const auto persons =
      make_tables("pid,hid,age\n1,A,30\n2,A,31\n3,B,5\n4,Z,40\n5,,50\n", {"pid,hid,age\n1,A,1\n"});
  const RelationCounts counts =
      relate(households.confidential, {0}, persons.confidential, {1}, {0});
  EXPECT_EQ(counts.parents, 4u);
  EXPECT_EQ(counts.children, 5u);
  EXPECT_EQ(counts.duplicate_parent_keys, 1u);
  EXPECT_EQ(counts.orphans, 1u);
  EXPECT_EQ(counts.missing_foreign_keys, 1u);
  EXPECT_EQ(counts.childless_parents, 1u);
  EXPECT_EQ(counts.duplicate_child_keys, 0u);
  EXPECT_EQ(counts.children_per_parent, (std::vector<std::size_t>{2, 1, 0}));
  EXPECT_EQ(counts.parent_row, (std::vector<std::size_t>{0, 0, 1, kNoRow, kNoRow}));
  const Table joined = join_parent_columns(persons.confidential, households.confidential,
                                           counts.parent_row, {1}, {"region"});
  ASSERT_EQ(joined.column_count(), 4u);
  const Column& region = joined.column(3);
  EXPECT_EQ(region.dictionary->level(region.codes[0]), "N");
  EXPECT_EQ(region.dictionary->level(region.codes[2]), "S");
  EXPECT_TRUE(region.missing(3));
  EXPECT_TRUE(region.missing(4));
}

TEST(RelatedTablesSpec, BadDeclarationsNameTheKey) {
  const std::vector<std::pair<nlohmann::json, std::string>> bad = {
      {nlohmann::json::array(), "t: expected a mapping of tables"},
      {{{"h", {{"primary_key", "id"}}}, {"p", {{"primary_key", "pid"}, {"parent", "h"}}}},
       "t.p: parent and foreign_key go together"},
      {{{"h", {{"primary_key", "id"}, {"colour", 1}}}}, "t.h: unknown key 'colour'"},
      {{{"h", {{"primary_key", {"a", "b"}}}},
        {"p", {{"primary_key", "pid"}, {"parent", "h"}, {"foreign_key", "a"}}}},
       "t.p.foreign_key: 1 column(s) for the 2 of the primary key of 'h'"},
      {{{"h", {{"primary_key", "id"}}},
        {"p", {{"primary_key", "pid"}, {"parent", "h"}, {"foreign_key", "id"}}},
        {"d", {{"primary_key", "did"}, {"parent", "h"}, {"foreign_key", "id"}}}},
       "several child tables of one table are not supported yet"},
      {{{"h", {{"primary_key", "id"}}},
        {"a", {{"primary_key", "x"}, {"parent", "b"}, {"foreign_key", "y"}}},
        {"b", {{"primary_key", "y"}, {"parent", "a"}, {"foreign_key", "x"}}}},
       "t: the tables' parents make a cycle"},
      {{{"h", {{"primary_key", nlohmann::json::array()}}}},
       "t.h.primary_key: expected a column name or a list of them"},
  };
  for (const auto& [value, expected] : bad) {
    try {
      (void)related_tables_from_json(value, "t");
      ADD_FAILURE() << "accepted " << value.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
  // Declared in any order, returned root first.
  const auto chain = related_tables_from_json(
      {{"spells", {{"primary_key", "sid"}, {"parent", "persons"}, {"foreign_key", "pid"}}},
       {"households", {{"primary_key", "hid"}}},
       {"persons", {{"primary_key", "pid"}, {"parent", "households"}, {"foreign_key", "hid"}}}},
      "t");
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[0].name, "households");
  EXPECT_EQ(chain[1].name, "persons");
  EXPECT_EQ(chain[2].name, "spells");
  EXPECT_EQ(chain[2].where, "t.spells");
}

}  // namespace

namespace {

// A text household identifier is stored as numbers, and the resample baseline draws whole
// households: a resample of a file whose households all have 3 members has only households of
// 3 members (a household drawn twice is two households, not one of 6), so its size distribution
// equals the confidential one exactly.
TEST(HouseholdBaselines, ResamplesKeepHouseholdsWhole) {
  const auto dir = synthaudit::testing::private_temp_dir("synthaudit_household_baselines");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream conf(dir / "conf.csv"), syn(dir / "syn.csv");
  conf << "hh,age,sex\n";
  syn << "hh,age,sex\n";
  for (int h = 0; h < 40; ++h)
    for (int m = 0; m < 3; ++m) {
      conf << "H" << h << "," << 20 + (h * 7 + m * 13) % 60 << "," << (m % 2 ? "F" : "M") << "\n";
      syn << "S" << h % 30 << "," << 25 + (h * 5 + m * 11) % 50 << "," << (m % 2 ? "M" : "F")
          << "\n";
    }
  conf.close();
  syn.close();
  EvaluationSpec spec;
  spec.confidential = (dir / "conf.csv").string();
  spec.candidates = {{"syn", {(dir / "syn.csv").string()}}};
  spec.metrics = {"household_structure"};
  spec.context.household = "hh";
  spec.context.threads = 1;
  const auto data = load_evaluation_data(spec);
  EXPECT_TRUE(data.confidential.column("hh").is_numeric());
  EXPECT_TRUE(data.candidates[0].replicates[0].column("hh").is_numeric());
  const auto doc = evaluate(spec, data);
  bool resampled = false;
  for (const auto& metric : doc["metrics"])
    for (const auto& c : metric["candidates"]) {
      if (c["name"] != "resample") continue;
      for (const auto& r : c["replicates"])
        for (const auto& v : r["values"])
          if (v["statistic"] == "household_size_tv" && v["scope"] == "all") {
            EXPECT_EQ(v["value"].get<double>(), 0.0);
            resampled = true;
          }
    }
  EXPECT_TRUE(resampled);
  std::filesystem::remove_all(dir);
}

}  // namespace
