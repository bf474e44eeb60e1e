// Output checking (engine/safe_output.hpp) rule by rule, on a hand-made document whose numbers
// and plot records are known: what each rule must withhold, round or keep at threshold 3.
#include "engine/safe_output.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_support.hpp"

namespace synthaudit {
namespace {

using nlohmann::json;

// x: 1..12 (one record each); group: "big" 10 times, "Zq" twice.
testing::Tables small_tables() {
  std::string csv = "x,group\n";
  for (int i = 1; i <= 12; ++i) csv += std::to_string(i) + "," + (i <= 2 ? "Zq" : "big") + "\n";
  return testing::make_tables(csv, {csv});
}

json value(const std::string& statistic, const std::string& scope, double v) {
  return {{"statistic", statistic}, {"scope", scope}, {"value", v}};
}

json document_with(json values, json details) {
  json replicate = {{"values", std::move(values)}, {"details", std::move(details)}};
  return {{"metrics", json::array({{{"name", "column_summaries"},
                                    {"candidates", {{"cart", {{"replicates", {replicate}}}}}}}})},
          {"columns", json::array({{{"name", "group"}, {"levels", {"big", "Zq"}}}})},
          {"warnings", {"group has a level 'Zq' held by few", "nothing to see"}}};
}

const json& first_values(const json& document) {
  return document["metrics"][0]["candidates"]["cart"]["replicates"][0]["values"];
}

TEST(SafeOutput, WithholdsRareScopesSmallCountsAndExtremesAndRoundsQuantiles) {
  const auto t = small_tables();
  json document = document_with(
      json::array({value("conf_count", "group=Zq", 2.0), value("conf_count", "group=big", 10.0),
                   value("conf_n", "x", 2.0), value("conf_max", "x", 12.0),
                   value("conf_p25", "x", 3.75), value("conf_mean", "x", 6.5)}),
      json::object());
  apply_output_checking(document, t.confidential, nullptr, 3);
  const json& values = first_values(document);
  EXPECT_TRUE(values[0]["value"].is_null()) << "scope names a category of 2 records";
  EXPECT_EQ(values[1]["value"], 10.0) << "a count of 10 passes threshold 3";
  EXPECT_TRUE(values[2]["value"].is_null()) << "a count of 2 is below 3";
  EXPECT_TRUE(values[3]["value"].is_null()) << "a maximum is one record's value";
  EXPECT_EQ(values[4]["value"], 3.8) << "a percentile is rounded to 2 significant digits";
  EXPECT_EQ(values[5]["value"], 6.5) << "an aggregate is kept";
  EXPECT_TRUE(values[3].contains("output_check"));
  // The rare level leaves the column's level list and every text that names it.
  EXPECT_EQ(document["columns"][0]["levels"], json({"big"}));
  EXPECT_EQ(document["warnings"], json({"nothing to see"}));
  EXPECT_EQ(document["output_check"]["threshold"], 3);
  const std::string log = output_check_log(document);
  EXPECT_NE(log.find("column_summaries conf_max [x]"), std::string::npos) << log;
  EXPECT_EQ(log.find("Zq"), std::string::npos) << "the log itself names no rare category";
}

// A share with a known count of confidential records ("records") is that count to an output
// checker: 0.01 of 300 rows is 3 records.
TEST(SafeOutput, WithholdsSharesOfFewRecordsAndDropsTheirCounts) {
  const auto t = small_tables();
  json few = value("conf_share", "x", 0.01);
  few["records"] = 2.0;
  json enough = value("conf_share", "x", 0.5);
  enough["records"] = 6.0;
  json none = value("conf_share", "x", 0.0);
  none["records"] = 0.0;
  json document = document_with(json::array({few, enough, none}), json::object());
  apply_output_checking(document, t.confidential, nullptr, 3);
  const json& values = first_values(document);
  EXPECT_TRUE(values[0]["value"].is_null()) << "a share of 2 records is below 3";
  EXPECT_FALSE(values[0].contains("records")) << "the withheld share's count goes too";
  EXPECT_EQ(values[0]["output_check"], "withheld: a share of fewer than 3 records");
  EXPECT_EQ(values[1]["value"], 0.5) << "a share of 6 records passes threshold 3";
  EXPECT_EQ(values[1]["records"], 6.0);
  EXPECT_EQ(values[2]["value"], 0.0) << "a share of no records is kept, as a count of 0 is";
}

TEST(SafeOutput, WithholdsSmallCountsOfValuesReadAsMissing) {
  const auto t = small_tables();
  json document = document_with(json::array(), json::object());
  document["treated_as_missing"] = json::array(
      {{{"file", "c.csv"}, {"role", "confidential"}, {"column", "x"}, {"code", "-8"}, {"count", 2}},
       {{"file", "c.csv"},
        {"role", "confidential"},
        {"column", "x"},
        {"code", "99"},
        {"count", 3}}});
  apply_output_checking(document, t.confidential, nullptr, 3);
  const json& missing = document["treated_as_missing"];
  EXPECT_TRUE(missing[0]["count"].is_null()) << "2 records are fewer than 3";
  EXPECT_EQ(missing[0]["output_check"], "withheld: fewer than 3 records");
  EXPECT_EQ(missing[1]["count"], 3) << "3 records pass threshold 3";
  EXPECT_NE(output_check_log(document).find("count read as missing in column x"),
            std::string::npos);
}

TEST(SafeOutput, PlotsKeepOnlyPositionsInsideTheSafeRangeAndCountedRecordsAboveTheThreshold) {
  const auto t = small_tables();
  // Safe range of x at threshold 3: from the 3rd smallest (3) to the 3rd largest (10) value.
  json histogram = {{"kind", "histogram"}, {"scope", "x"}, {"data", json::array()}};
  for (int start = 1; start < 12; start += 2)
    histogram["data"].push_back({{"bin_start", start},
                                 {"bin_end", start + 2},
                                 {"dataset", "confidential"},
                                 {"density", 0.1}});
  json qq = {{"kind", "qq"}, {"scope", "x"}, {"data", {{{"confidential", 5}, {"synthetic", 5}}}}};
  json bars = {{"kind", "bars"},
               {"scope", "group"},
               {"data", {{{"level", "big"}, {"share", 0.8}}, {{"level", "Zq"}, {"share", 0.2}}}}};
  json counted = {
      {"kind", "scatter"},
      {"scope", "all"},
      {"data", {{{"x", 0.5}, {"y", 0.5}, {"count", 2}}, {{"x", 0.2}, {"y", 0.1}, {"count", 7}}}}};
  json heatmap = {{"kind", "heatmap"},
                  {"scope", "all"},
                  {"data", {{{"row", "x"}, {"column", "group"}, {"value", 0.1}}}}};
  json document = document_with(
      json::array(), {{"plots", {histogram, qq, bars, counted, heatmap}}, {"cells", {{"a", 1}}}});
  apply_output_checking(document, t.confidential, nullptr, 3);
  const json& details = document["metrics"][0]["candidates"]["cart"]["replicates"][0]["details"];
  EXPECT_FALSE(details.contains("cells")) << "details not declared aggregate are withheld";
  const json& plots = details["plots"];
  // Bins [3,5), [5,7), [7,9) lie inside [3, 10]; [1,3), [9,11), [11,13) do not.
  ASSERT_EQ(plots[0]["data"].size(), 3u) << plots[0].dump();
  EXPECT_EQ(plots[0]["data"][0]["bin_start"], 3);
  EXPECT_TRUE(plots[1]["data"].empty()) << "quantile-quantile points are individual values";
  ASSERT_EQ(plots[2]["data"].size(), 1u);
  EXPECT_EQ(plots[2]["data"][0]["level"], "big");
  ASSERT_EQ(plots[3]["data"].size(), 1u) << "the record standing for 2 records is dropped";
  EXPECT_EQ(plots[3]["data"][0]["count"], 7);
  EXPECT_EQ(plots[4]["data"], heatmap["data"]) << "a plot with nothing to withhold is unchanged";
}

TEST(SafeOutput, AThresholdAboveTheDataWithholdsEveryPlotPosition) {
  const auto t = small_tables();
  json density = {{"kind", "density"},
                  {"scope", "x"},
                  {"data", {{{"x", 6.0}, {"dataset", "confidential"}, {"density", 0.1}}}}};
  json document =
      document_with(json::array({value("conf_count", "group=big", 10.0)}), {{"plots", {density}}});
  apply_output_checking(document, t.confidential, nullptr, 11);
  EXPECT_TRUE(first_values(document)[0]["value"].is_null()) << "10 records: kept at 3, not at 11";
  EXPECT_TRUE(
      document["metrics"][0]["candidates"]["cart"]["replicates"][0]["details"]["plots"][0]["data"]
          .empty())
      << "12 values cannot have 11 on either side of a position";
}

}  // namespace
}  // namespace synthaudit
