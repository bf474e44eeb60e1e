// Every registered metric, on degenerate data, must return a result or throw a clear error
// (InputError / MetricNotApplicable), never crash, hang or return values without warnings when
// there is nothing to compute.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

EvaluationContext degenerate_context(SynthesisType synthesis) {
  EvaluationContext context;
  context.synthesis = synthesis;
  context.seed = 7;
  context.threads = 1;
  context.scenarios = {{{"c", "x"}, {"y"}}};
  context.analyses = {{.name = "mean_x", .kind = "mean", .column = "x"},
                      {.name = "lm_x", .kind = "lm", .formula = "x ~ y"}};
  return context;
}

void run_every_metric(const Tables& t, const std::string& label) {
  for (const auto& metric : all_metrics()) {
    for (auto synthesis : {SynthesisType::kFull, SynthesisType::kPartial}) {
      if (synthesis == SynthesisType::kPartial && t.confidential.rows() != t.synthetic[0].rows())
        continue;
      SCOPED_TRACE(metric.name + " on " + label + " (" + to_string(synthesis) + ")");
      try {
        const auto result =
            run_metric(metric.name, t, nlohmann::json::object(), degenerate_context(synthesis));
        for (const auto& v : result.values) EXPECT_FALSE(v.statistic.empty());
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()), "");
      } catch (const MetricNotApplicable& e) {
        EXPECT_NE(std::string(e.what()), "");
      }
    }
  }
}

}  // namespace

TEST(RegistryRobustness, AllMissingColumns) {
  const std::string conf = "x,y,c\nNA,NA,NA\nNA,NA,NA\nNA,NA,NA\n";
  ReadSettings settings;
  settings.kinds = {
      {"x", ColumnKind::kNumeric}, {"y", ColumnKind::kNumeric}, {"c", ColumnKind::kCategorical}};
  const auto t = make_tables(conf, {conf}, conf, settings);
  run_every_metric(t, "all-missing columns");
}

TEST(RegistryRobustness, OneRow) {
  const std::string conf = "x,y,c\n1.5,0,a\n";
  const auto t = make_tables(conf, {"x,y,c\n2.5,1,b\n"}, std::string("x,y,c\n1,1,a\n"));
  run_every_metric(t, "one-row tables");
}

TEST(RegistryRobustness, ConstantColumns) {
  const std::string conf = "x,y,c\n1,0,a\n1,0,a\n1,0,a\n1,0,a\n";
  const auto t = make_tables(conf, {conf}, conf);
  run_every_metric(t, "constant columns");
}

TEST(RegistryRobustness, EmptyColumnsAfterMissingCodes) {
  // Every value of x is a declared missing code: a numeric column with no values.
  ReadSettings settings;
  settings.missing_codes = {{"x", {-8}}};
  const std::string conf = "x,y,c\n-8,1,a\n-8,2,b\n-8,3,a\n-8,4,b\n";
  const auto t = make_tables(conf, {"x,y,c\n-8,2,a\n-8,1,b\n-8,4,b\n-8,3,a\n"}, conf, settings);
  run_every_metric(t, "empty column");
}

TEST(RegistryRobustness, OnlyCategoricalOrOnlyNumeric) {
  const auto cat = make_tables("c,d\na,x\nb,y\na,y\n", {"c,d\nb,x\na,x\na,y\n"});
  for (const auto& metric : all_metrics()) {
    SCOPED_TRACE(metric.name + " on categorical-only data");
    EvaluationContext context;
    context.scenarios = {{{"c"}, {"d"}}};
    try {
      (void)run_metric(metric.name, cat, nlohmann::json::object(), context);
    } catch (const InputError&) {
    } catch (const MetricNotApplicable&) {
    }
  }
  const auto num = make_tables("x,y\n1,2\n2,3\n3,5\n", {"x,y\n1,1\n2,2\n4,4\n"});
  for (const auto& metric : all_metrics()) {
    SCOPED_TRACE(metric.name + " on numeric-only data");
    EvaluationContext context;
    context.scenarios = {{{"x"}, {"y"}}};
    try {
      (void)run_metric(metric.name, num, nlohmann::json::object(), context);
    } catch (const InputError&) {
    } catch (const MetricNotApplicable&) {
    }
  }
}
