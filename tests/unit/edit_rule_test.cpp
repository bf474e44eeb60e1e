// Edit rules (stats/edit_rule.hpp): the expression language's semantics on a small table whose
// answers can be counted by hand, and its messages for bad rules. The counts on real data are
// checked against pandas in tests/cli/edit_rules_reference.py.
#include "stats/edit_rule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"

using namespace synthaudit;
using stats::EditRule;
using stats::EditRuleSpec;

namespace {

Column numbers(std::string name, std::vector<double> values) {
  Column c;
  c.name = std::move(name);
  c.kind = ColumnKind::kNumeric;
  c.numeric = std::move(values);
  return c;
}

// "" is missing.
Column levels(std::string name, const std::vector<std::string>& values,
              std::shared_ptr<Dictionary> dictionary = std::make_shared<Dictionary>()) {
  Column c;
  c.name = std::move(name);
  c.kind = ColumnKind::kCategorical;
  c.dictionary = dictionary;
  for (const auto& v : values) c.codes.push_back(v.empty() ? kMissingCode : dictionary->intern(v));
  return c;
}

// Six people in three households.
Table people() {
  return Table(
      TableSource{"people.csv", "", "confidential"},
      {numbers("age", {34, 6, 15, 40, NAN, 70}), numbers("income", {1200, 50, NAN, -5, 800, 0}),
       levels("status", {"work", "work", "", "retired", "work", "retired"}),
       levels("region", {"N", "N", "N", "S", "S", "E"}),
       levels("birth_region", {"N", "S", "N", "S", "", "E"}),
       levels("household", {"h1", "h1", "h1", "h2", "h2", "h3"})});
}

stats::RuleCount count(const std::string& then, const std::string& when = "",
                       std::vector<std::string> group_by = {}, std::size_t examples = 0) {
  const Table table = people();
  EditRuleSpec spec{.name = "r",
                    .when = when,
                    .then = then,
                    .group_by = std::move(group_by),
                    .where = "rules[0]"};
  return EditRule::compile(spec, table).count(table, examples);
}

std::string error_of(const std::string& then, const std::string& when = "",
                     std::vector<std::string> group_by = {},
                     const std::string& severity = "error") {
  const Table table = people();
  EditRuleSpec spec{.name = "r",
                    .when = when,
                    .then = then,
                    .severity = severity,
                    .group_by = std::move(group_by),
                    .where = "spec.yaml: rules[0]"};
  try {
    (void)EditRule::compile(spec, table);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(EditRule, RecordRulesCountAppliesViolationsAndMissing) {
  // Under 16 (ages 6 and 15; the missing age is not under 16): no status. 6 works: 1 violation;
  // 15 has a missing status: holds, and counts as a record with a missing value.
  const auto under_16 = count("is_missing(status)", "age < 16", {}, 5);
  EXPECT_EQ(under_16.applies, 2u);
  EXPECT_EQ(under_16.violations, 1u);
  EXPECT_EQ(under_16.with_missing, 1u);
  EXPECT_EQ(under_16.examples, (std::vector<std::size_t>{1}));
  // A comparison with a missing value is false: the missing income breaks income >= 0.
  const auto known = count("income >= 0");
  EXPECT_EQ(known.applies, 6u);
  EXPECT_EQ(known.violations, 2u);  // NaN and -5
  EXPECT_EQ(count("is_missing(income) | income >= 0").violations, 1u);
  // != is false on a missing value too; ! of a false comparison is true.
  EXPECT_EQ(count("status != \"work\"").violations, 4u);     // 3 work, 1 missing
  EXPECT_EQ(count("!(status == \"work\")").violations, 3u);  // the missing one holds
  // Arithmetic: income per year over 10,000 is broken by 1200 (14,400); missing is missing.
  EXPECT_EQ(count("income * 12 <= 10000 | is_missing(income)").violations, 1u);
  EXPECT_EQ(count("-age < -10 | age / 2 > 20").violations, 2u);  // 6 and the missing age
  // in, with numbers and with text; an unknown level matches nothing.
  EXPECT_EQ(count("age in (6, 15, 34)").violations, 3u);
  EXPECT_EQ(count("status in ('work', 'student')").violations, 3u);
  EXPECT_EQ(count("region == \"W\"").violations, 6u);
  // Two categorical columns compare by their levels' text (each has its own dictionary).
  EXPECT_EQ(count("region == birth_region").violations, 2u);  // N/S, and S/missing
  // Text literals compare with each other; a constant rule holds or fails everywhere.
  EXPECT_EQ(count("'a' == 'a'").violations, 0u);
  EXPECT_EQ(count("1 > 2").violations, 6u);
  // && and || are & and |; backquoted names.
  // (& binds tighter than |): broken by 6, 15, 40 (income -5) and 70 (income 0).
  EXPECT_EQ(count("`age` >= 16 && income > 0 || is_missing(age)").violations, 4u);
}

TEST(EditRule, GroupRulesSummariseEachGroup) {
  // One region per household: h1 N,N,N; h2 S,S; h3 E. All hold.
  EXPECT_EQ(count("n_distinct(region) == 1", "", {"household"}).violations, 0u);
  // One birth region per household: h1 has N and S; h2 has S and a missing one (not counted).
  const auto birth = count("n_distinct(birth_region) == 1", "", {"household"}, 5);
  EXPECT_EQ(birth.applies, 3u);
  EXPECT_EQ(birth.violations, 1u);
  EXPECT_EQ(birth.with_missing, 1u);                         // h2
  EXPECT_EQ(birth.examples, (std::vector<std::size_t>{0}));  // h1's first row
  // when on groups; n(), sum, min, max, mean over non-missing values; any, all.
  EXPECT_EQ(count("sum(income) > 1000", "n() > 1", {"household"}).applies, 2u);
  EXPECT_EQ(count("sum(income) > 1000", "n() > 1", {"household"}).violations, 1u);  // h2: 795
  EXPECT_EQ(count("max(age) - min(age) < 30", "", {"household"}).violations, 0u);
  EXPECT_EQ(count("mean(age) > 20", "", {"household"}).violations, 1u);  // h1: 18.3
  EXPECT_EQ(count("any(age < 16)", "", {"household"}).violations, 2u);
  // h1 has a missing status (the comparison is false), h2 and h3 are retired.
  EXPECT_EQ(count("all(status == 'work')", "", {"household"}).violations, 3u);
  // A group whose values are all missing (age 15 has no income): mean is missing, so the
  // comparison is false; sum is 0.
  EXPECT_EQ(count("mean(income) > -100", "", {"age"}).violations, 1u);
  EXPECT_EQ(count("sum(income) >= 0", "", {"age"}).violations, 1u);  // age 40: -5
  EXPECT_EQ(count("is_missing(mean(income))", "", {"age"}).violations, 4u);
  // Several group columns; a record with a missing group value is in no group.
  const auto pairs = count("n() == 1", "", {"household", "birth_region"});
  EXPECT_EQ(pairs.applies, 4u);     // (h1,N) (h1,S) (h2,S) (h3,E)
  EXPECT_EQ(pairs.violations, 1u);  // (h1,N) has two records
}

TEST(EditRule, BadRulesNameTheRuleKeyAndPosition) {
  EXPECT_EQ(error_of("agee >= 16"),
            "spec.yaml: rules[0] ('r').then: at position 1: no column 'agee' (did you mean "
            "'age'?)");
  EXPECT_NE(error_of("age >= 16", "status > 'a'")
                .find("rules[0] ('r').when: at position 1: '>' orders numbers, but this is text"),
            std::string::npos);
  EXPECT_NE(error_of("status == 3").find("at position 8: '==' compares text with a number"),
            std::string::npos);
  EXPECT_NE(error_of("age >= ").find("at position 8: expected a value, a column or '(', found "
                                     "the end of the expression"),
            std::string::npos);
  EXPECT_NE(error_of("age = 16").find("at position 5: '=' alone: compare with '=='"),
            std::string::npos);
  EXPECT_NE(error_of("age + 1").find("the rule needs a condition, but this is a number"),
            std::string::npos);
  EXPECT_NE(error_of("(age > 1").find("expected ')' to close the '(' at position 1"),
            std::string::npos);
  EXPECT_NE(error_of("1 < age < 3").find("comparisons do not chain"), std::string::npos);
  EXPECT_NE(error_of("n() > 1").find("n() summarises a group: it needs the rule's group_by"),
            std::string::npos);
  EXPECT_NE(error_of("age > 1", "", {"household"}).find("in a rule over groups, column 'age'"),
            std::string::npos);
  EXPECT_NE(error_of("sum(n()) > 1", "", {"household"}).find("n() inside another summary"),
            std::string::npos);
  EXPECT_NE(error_of("sum(status) > 1", "", {"household"}).find("sum() needs a number"),
            std::string::npos);
  EXPECT_NE(error_of("is_mising(age)")
                .find("no function 'is_mising' (did you mean "
                      "'is_missing'?)"),
            std::string::npos);
  EXPECT_NE(error_of("age in ('a')").find("the list after 'in' holds numbers"), std::string::npos);
  EXPECT_NE(error_of("status == 'a").find("no closing quote"), std::string::npos);
  EXPECT_NE(error_of("2age > 1").find("is not a number or a column name"), std::string::npos);
  EXPECT_NE(error_of("age > 1", "", {"hh"}).find("rules[0] ('r').group_by: no column 'hh'"),
            std::string::npos);
  EXPECT_NE(error_of("age > 1", "", {}, "fatal")
                .find(".severity: 'fatal' is not error or "
                      "warning"),
            std::string::npos);
  EXPECT_NE(error_of("").find(".then: the rule's condition is empty"), std::string::npos);
}
