// Params::resolve against a declaration: defaults, types, ranges (inclusive), choices, unknown
// names. No registered metric declares a ranged parameter yet, so the range check is tested here
// on a declaration made for the test.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "metrics/params.hpp"

using namespace synthaudit;

namespace {

const std::vector<ParamSpec>& declared() {
  static const std::vector<ParamSpec> params = {
      {.name = "k",
       .type = ParamType::kInt,
       .default_value = std::int64_t{5},
       .doc = "k",
       .min = 1,
       .max = 100},
      {.name = "alpha",
       .type = ParamType::kDouble,
       .default_value = 0.05,
       .doc = "alpha",
       .min = 0.0,
       .max = 1.0},
      {.name = "pvalue", .type = ParamType::kBool, .default_value = false, .doc = "p"},
      {.name = "missing",
       .type = ParamType::kString,
       .default_value = std::string("include"),
       .doc = "m",
       .choices = {"include", "exclude"}},
      {.name = "columns",
       .type = ParamType::kStringList,
       .default_value = std::vector<std::string>{},
       .doc = "c"},
  };
  return params;
}

std::string error_of(const nlohmann::json& given) {
  try {
    (void)Params::resolve("toy", declared(), given, "spec.yaml: parameters.toy");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SpecParams, DefaultsAndGivenValues) {
  const Params d = Params::resolve("toy", declared(), nullptr, "x");
  EXPECT_EQ(d.get_int("k"), 5);
  EXPECT_DOUBLE_EQ(d.get_double("alpha"), 0.05);
  EXPECT_FALSE(d.get_bool("pvalue"));
  EXPECT_EQ(d.get_string("missing"), "include");
  const Params p = Params::resolve(
      "toy", declared(),
      {{"k", 1}, {"alpha", 1}, {"pvalue", true}, {"missing", "exclude"}, {"columns", "a,b"}}, "x");
  EXPECT_EQ(p.get_int("k"), 1);
  EXPECT_DOUBLE_EQ(p.get_double("alpha"), 1.0);  // an integer is a valid double; bounds inclusive
  EXPECT_TRUE(p.get_bool("pvalue"));
  EXPECT_EQ(p.get_string_list("columns"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Params::resolve("toy", declared(), {{"k", 100.0}}, "x").get_int("k"), 100);
}

TEST(SpecParams, OutOfRange) {
  EXPECT_EQ(error_of({{"k", 0}}), "spec.yaml: parameters.toy.k: value 0 is out of range [1, 100]");
  EXPECT_EQ(error_of({{"k", 101}}),
            "spec.yaml: parameters.toy.k: value 101 is out of range [1, 100]");
  EXPECT_EQ(error_of({{"alpha", 3}}),
            "spec.yaml: parameters.toy.alpha: value 3 is out of range [0, 1]");
  EXPECT_EQ(error_of({{"alpha", -0.5}}),
            "spec.yaml: parameters.toy.alpha: value -0.5 is out of range [0, 1]");
}

TEST(SpecParams, WrongTypesUnknownNamesAndChoices) {
  EXPECT_EQ(error_of({{"k", 2.5}}), "spec.yaml: parameters.toy.k: expected an integer, got 2.5");
  EXPECT_EQ(error_of({{"k", "five"}}),
            "spec.yaml: parameters.toy.k: expected an integer, got \"five\"");
  EXPECT_EQ(error_of({{"alpha", "x"}}),
            "spec.yaml: parameters.toy.alpha: expected a number, got \"x\"");
  EXPECT_EQ(error_of({{"pvalue", 3}}),
            "spec.yaml: parameters.toy.pvalue: expected true or false, got 3");
  EXPECT_EQ(error_of({{"missing", "exclud"}}),
            "spec.yaml: parameters.toy.missing: 'exclud' is not one of include, exclude (did you "
            "mean 'exclude'?)");
  EXPECT_EQ(error_of({{"columns", {1, 2}}}),
            "spec.yaml: parameters.toy.columns: expected a list of strings, got [1,2]");
  EXPECT_EQ(error_of({{"alhpa", 0.1}}),
            "spec.yaml: parameters.toy.alhpa: metric 'toy' has no parameter 'alhpa' (did you mean "
            "'alpha'?)");
  EXPECT_EQ(error_of(nlohmann::json::array({1})),
            "spec.yaml: parameters.toy: parameters of metric 'toy' must be a mapping");
}
