// The report layer: scorecard ranks, summarising for the browser, the self-contained HTML and
// the Markdown summary. The browser side is tested by tests/report/browser_test.sh.
#include "report/report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace synthaudit;
using json = nlohmann::json;

namespace {

json load_fixture() {
  std::ifstream in(std::string(SYNTHAUDIT_TEST_DATA) + "/report/results_fixture.json");
  return json::parse(in);
}

// A small document: two headlines (one utility, one risk) over three candidates.
json small_document() {
  auto metric = [](const std::string& name, const std::string& statistic, const std::string& better,
                   const std::string& axis, std::vector<double> means) {
    json m = {{"name", name},
              {"family", "general"},
              {"summary", "s"},
              {"doc", "d"},
              {"granularity", "per-replicate"},
              {"params", json::object()},
              {"headlines",
               {{{"statistic", statistic},
                 {"scope", "all"},
                 {"better", better},
                 {"reading", "r"},
                 {"axis", axis}}}},
              {"candidates", json::array()}};
    const char* names[] = {"a", "b", "c"};
    for (int c = 0; c < 3; ++c) {
      json reps = json::array();
      for (int r = 0; r < 2; ++r)
        reps.push_back({{"replicate", r + 1},
                        {"values",
                         {{{"statistic", statistic},
                           {"scope", "all"},
                           {"value", means[c] + (r == 0 ? -0.5 : 0.5)}}}},
                        {"details", json::object()},
                        {"warnings", json::array()}});
      m["candidates"].push_back(
          {{"name", names[c]},
           {"replicates", reps},
           {"mean",
            {{"values", {{{"statistic", statistic}, {"scope", "all"}, {"value", means[c]}}}}}}});
    }
    return m;
  };
  return {{"schema", "synthaudit/1"},
          {"tool", {{"name", "synthaudit"}, {"version", "test"}}},
          {"candidates",
           {{{"name", "a"}, {"replicates", 2}},
            {{"name", "b"}, {"replicates", 2}},
            {{"name", "c"}, {"replicates", 2}}}},
          {"warnings", json::array()},
          {"metrics",
           {metric("m_utility", "u", "higher", "utility", {3, 1, 3}),
            metric("m_risk", "k", "lower", "risk", {0.2, 0.1, 0.4})}}};
}

}  // namespace

TEST(ReportScorecard, RanksFollowTheGoodDirectionAndShareTies) {
  const json card = scorecard(small_document());
  ASSERT_EQ(card["candidates"], json({"a", "b", "c"}));
  ASSERT_EQ(card["headlines"].size(), 2u);
  const auto& u = card["headlines"][0];
  EXPECT_EQ(u["source"][0], "mean");
  EXPECT_EQ(u["values"], json({3.0, 1.0, 3.0}));
  EXPECT_EQ(u["ranks"], json({1.5, 3.0, 1.5}));  // higher is better; a and c tie
  EXPECT_EQ(u["replicates"][1], json({0.5, 1.5}));
  const auto& k = card["headlines"][1];
  EXPECT_EQ(k["axis"], "risk");
  EXPECT_EQ(k["ranks"], json({2.0, 1.0, 3.0}));  // lower is better
  // Utility and risk ranks are kept apart, never averaged; without a verdict the ranking follows
  // utility: a and c (1.5, tied, document order), then b (3).
  ASSERT_EQ(card["ranking"].size(), 3u);
  EXPECT_EQ(card["ranking"][0]["candidate"], "a");
  EXPECT_FALSE(card["ranking"][0].contains("mean_rank"));
  EXPECT_DOUBLE_EQ(card["ranking"][0]["utility_rank"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(card["ranking"][0]["risk_rank"].get<double>(), 2.0);
  EXPECT_EQ(card["ranking"][0]["ranked_utility"], 1);
  EXPECT_EQ(card["ranking"][0]["ranked_risk"], 1);
  EXPECT_EQ(card["ranking"][1]["candidate"], "c");
  EXPECT_EQ(card["ranking"][2]["candidate"], "b");
  EXPECT_DOUBLE_EQ(card["ranking"][2]["risk_rank"].get<double>(), 1.0);
}

TEST(ReportScorecard, RankingFollowsTheVerdictBeforeUtility) {
  json doc = small_document();
  // a has the best utility but fails; c passes and is recommended; b is to review.
  doc["verdict"] = {{"recommended", "c"},
                    {"candidates",
                     {{{"name", "a"}, {"status", "fail"}},
                      {{"name", "b"}, {"status", "review"}},
                      {{"name", "c"}, {"status", "pass"}}}}};
  const json card = scorecard(doc);
  ASSERT_EQ(card["ranking"].size(), 3u);
  EXPECT_EQ(card["ranking"][0]["candidate"], "c");
  EXPECT_EQ(card["ranking"][1]["candidate"], "b");
  EXPECT_EQ(card["ranking"][2]["candidate"], "a");
}

TEST(ReportScorecard, ShowsTheBaselineBesideTheHeadlineAndNeverRanksIt) {
  json doc = small_document();
  auto& risk = doc["metrics"][1];
  risk["headlines"][0]["baseline"] = {{"kind", "holdout"}, {"name", "holdout"}, {"note", "n"}};
  risk["candidates"].push_back(
      {{"name", "holdout"},
       {"baseline", true},
       {"replicates",
        {{{"replicate", 1},
          {"values", {{{"statistic", "k"}, {"scope", "all"}, {"value", 0.05}}}}}}},
       {"noise", {{"values", {{{"statistic", "k"}, {"scope", "all"}, {"value", 0.01}}}}}}});
  const json card = scorecard(doc);
  EXPECT_EQ(card["candidates"], json({"a", "b", "c"}));
  const auto& k = card["headlines"][1];
  EXPECT_EQ(k["values"].size(), 3u);
  EXPECT_EQ(k["ranks"], json({2.0, 1.0, 3.0}));
  EXPECT_EQ(k["baseline"]["name"], "holdout");
  EXPECT_DOUBLE_EQ(k["baseline"]["value"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(k["baseline"]["sd"].get<double>(), 0.01);
  EXPECT_TRUE(card["headlines"][0]["baseline"].is_null());
}

TEST(ReportScorecard, TargetStatisticsRankByDistanceToTheirTarget) {
  // A pMSE ratio of 1 is ideal; 0.0001 (a near-copy) is further from it, on the ratio scale,
  // than 3 is. An AUC of 0.25 is as far from chance as 0.75.
  json doc = small_document();
  doc["metrics"][0]["headlines"][0].erase("better");
  doc["metrics"][0]["headlines"][0]["ideal"] = {
      {"kind", "target"}, {"target", 1.0}, {"scale", "ratio"}};
  const double ratios[] = {1e-4, 3.0, 1.1};
  for (int c = 0; c < 3; ++c)
    doc["metrics"][0]["candidates"][c]["mean"]["values"][0]["value"] = ratios[c];
  doc["metrics"][1]["headlines"][0].erase("better");
  doc["metrics"][1]["headlines"][0]["ideal"] = {
      {"kind", "target"}, {"target", 0.5}, {"scale", "linear"}};
  const double aucs[] = {0.25, 0.75, 0.625};  // exact in binary, so the tie is exact
  for (int c = 0; c < 3; ++c)
    doc["metrics"][1]["candidates"][c]["mean"]["values"][0]["value"] = aucs[c];
  const json card = scorecard(doc);
  EXPECT_EQ(card["headlines"][0]["ranks"], json({3.0, 2.0, 1.0}));
  EXPECT_EQ(card["headlines"][1]["ranks"], json({2.5, 2.5, 1.0}));
  EXPECT_EQ(card["headlines"][0]["ideal"]["kind"], "target");
  EXPECT_NE(card["headlines"][0]["ideal_text"].get<std::string>().find("closer to 1"),
            std::string::npos);
}

TEST(ReportScorecard, MissingValuesAndSkippedMetricsAreNotRanked) {
  json doc = small_document();
  doc["metrics"][0]["candidates"][1]["mean"]["values"][0]["value"] = nullptr;
  doc["metrics"][1]["skipped"] = "needs a holdout";
  const json card = scorecard(doc);
  ASSERT_EQ(card["headlines"].size(), 1u);
  EXPECT_TRUE(card["headlines"][0]["values"][1].is_null());
  EXPECT_TRUE(card["headlines"][0]["ranks"][1].is_null());
  EXPECT_EQ(card["ranking"].back()["candidate"], "b");
  EXPECT_EQ(card["ranking"].back()["ranked_utility"], 0);
  EXPECT_TRUE(card["ranking"].back()["utility_rank"].is_null());
}

TEST(ReportScorecard, UsesCombinedValuesOfPerCandidateMetrics) {
  const json card = scorecard(load_fixture());
  bool seen = false;
  for (const auto& h : card["headlines"])
    if (h["statistic"] == "mean_ci_overlap") {
      seen = true;
      EXPECT_EQ(h["source"][0], "combined");
      EXPECT_NEAR(h["values"][0].get<double>(), 0.86, 1e-12);
      EXPECT_EQ(h["ranks"], json({2.0, 3.0, 1.0}));
    }
  EXPECT_TRUE(seen);
}

TEST(ReportSummarise, ThinsLongPlotsAndCutsLongTablesWithANote) {
  json doc = small_document();
  json plot = {{"kind", "scatter"}, {"title", "big"}, {"data", json::array()}};
  for (int i = 0; i < 1001; ++i) plot["data"].push_back({{"x", i}, {"y", i}});
  auto& rep = doc["metrics"][0]["candidates"][0]["replicates"][0];
  rep["details"]["plots"] = {plot};
  rep["details"]["rows"] = json::array();
  for (int i = 0; i < 300; ++i) rep["details"]["rows"].push_back({{"i", i}});
  ReportLimits limits;
  limits.max_plot_records = 101;
  limits.max_table_rows = 50;
  const json out = summarise_for_report(doc, limits);
  const auto& r = out["metrics"][0]["candidates"][0]["replicates"][0];
  const auto& data = r["details"]["plots"][0]["data"];
  ASSERT_EQ(data.size(), 101u);
  EXPECT_EQ(data.front()["x"], 0);
  EXPECT_EQ(data.back()["x"], 1000);  // evenly thinned, ends kept
  EXPECT_EQ(data[50]["x"], 500);
  EXPECT_EQ(r["details"]["plots"][0]["thinned_from"], 1001);
  EXPECT_EQ(r["details"]["rows"].size(), 50u);
  EXPECT_EQ(r["report_notes"].size(), 2u);
  // The original is untouched.
  EXPECT_EQ(doc["metrics"][0]["candidates"][0]["replicates"][0]["details"]["rows"].size(), 300u);
}

TEST(ReportSummarise, StaysWithinTheByteBudget) {
  json doc = small_document();
  for (auto& cand : doc["metrics"][0]["candidates"])
    for (auto& rep : cand["replicates"]) {
      json plot = {{"kind", "scatter"}, {"title", "p"}, {"data", json::array()}};
      for (int i = 0; i < 4000; ++i) plot["data"].push_back({{"x", i * 0.001}, {"y", i * 0.002}});
      rep["details"]["plots"] = {plot};
    }
  ReportLimits limits;
  limits.max_embedded_bytes = 200'000;
  const json out = summarise_for_report(doc, limits);
  EXPECT_LE(out.dump().size(), limits.max_embedded_bytes);
  EXPECT_FALSE(out["metrics"][0]["candidates"][0]["replicates"][0]["details"]["plots"].empty());
}

TEST(ReportHtml, IsSelfContainedAndEscapesTheEmbeddedJson) {
  const json doc = load_fixture();
  const std::string html = render_html(doc);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // The fixture's doc tries "</script><script>window.__fixtureInjected = 1</script>".
  EXPECT_EQ(html.find("<script>window.__fixtureInjected"), std::string::npos);
  EXPECT_NE(html.find("\\u003c/script\\u003e\\u003cscript\\u003ewindow.__fixtureInjected"),
            std::string::npos);
  // Nothing is loaded from elsewhere: no src/href to a network address, no source maps.
  for (const char* bad : {"src=\"http", "src=\"//", "href=\"http://", "<link", "sourceMappingURL"})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  // The three libraries and the report's script are inlined.
  EXPECT_NE(html.find("vegaLite"), std::string::npos);
  EXPECT_NE(html.find("vegaEmbed"), std::string::npos);
  EXPECT_NE(html.find("synthauditReady"), std::string::npos);
  // The embedded documents parse back.
  auto embedded = [&](const std::string& id) {
    const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
    const auto start = html.find(open);
    EXPECT_NE(start, std::string::npos);
    const auto end = html.find("</script>", start);
    return json::parse(html.substr(start + open.size(), end - start - open.size()));
  };
  const json shown = embedded("synthaudit-results");
  EXPECT_EQ(shown["metrics"].size(), doc["metrics"].size());
  EXPECT_EQ(shown["metrics"][2]["doc"], doc["metrics"][2]["doc"]);
  EXPECT_EQ(embedded("synthaudit-scorecard"), scorecard(doc));
}

TEST(ReportHtml, SmallEvenForAnEmptyDocument) {
  const json doc = {
      {"schema", "synthaudit/1"}, {"candidates", json::array()}, {"metrics", json::array()}};
  const std::string html = render_html(doc);
  EXPECT_LT(html.size(), 2'000'000u);  // the libraries are about 0.85 MB
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(ReportMarkdown, ShowsHeadlinesRanksAndSkips) {
  const std::string md = render_markdown(load_fixture());
  EXPECT_NE(
      md.find("| utility | fixture_interval_overlap | mean_ci_overlap | higher | 0.86 | 0.3 | "
              "0.972 |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| fixture_interval_overlap | mean_ci_overlap | #2 | #3 | #1 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| gamma | 1 | 3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("skipped: needs a holdout file"), std::string::npos);
  EXPECT_NE(md.find("1 warning(s)"), std::string::npos);
}

namespace synthaudit {
namespace {

// A metric's tables (details.tables) print as Markdown tables, per candidate, baselines left out:
// numbers to 4 significant digits, intervals as [lower, upper], true/false as yes/no.
TEST(ReportMarkdown, PrintsMetricTablesAsTheyAre) {
  const json table = {
      {"title", "wage (log(income) ~ age)"},
      {"scope", "wage"},
      {"columns", {"estimand", "estimate", "interval", "agree"}},
      {"rows",
       {{"age", 0.0123456, {-0.5, 1.25}, true}, {"(Intercept)", nullptr, {nullptr, 2}, false}}}};
  const json result = {{"values", json::array()}, {"details", {{"tables", {table}}}}};
  json doc = {{"schema", "synthaudit/1"},
              {"candidates", json::array()},
              {"metrics",
               {{{"name", "some_metric"},
                 {"family", "specific"},
                 {"candidates",
                  {{{"name", "cart"}, {"combined", result}},
                   {{"name", "resample"}, {"baseline", true}, {"combined", result}}}}}}}};
  const std::string md = render_markdown(doc);
  EXPECT_NE(
      md.find("### some_metric, cart: wage (log(income) ~ age)\n\n| estimand | estimate | "
              "interval | agree |\n|---|---|---|---|\n| age | 0.01235 | [-0.5, 1.25] | yes |\n"
              "| (Intercept) | NA | [NA, 2] | no |\n"),
      std::string::npos)
      << md;
  EXPECT_EQ(md.find("some_metric, resample"), std::string::npos) << md;
}

}  // namespace
}  // namespace synthaudit
