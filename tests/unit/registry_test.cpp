#include "metrics/registry.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "metrics/registry_docs.hpp"

using namespace synthaudit;

TEST(Registry, NamesAreUniqueAndDocumented) {
  ASSERT_FALSE(all_metrics().empty());
  for (const auto& m : all_metrics()) {
    EXPECT_FALSE(m.summary.empty()) << m.name;
    EXPECT_FALSE(m.doc.empty()) << m.name;
    EXPECT_TRUE(m.compute) << m.name;
    EXPECT_EQ(find_metric(m.name), &m);
  }
}

// docs/metrics.md's generated blocks: each metric's block and the one headline table, whose rows
// come from the declarations (so a new headline cannot be left out of the docs).
TEST(RegistryDocs, HeadlineTableListsEveryHeadlineWithItsBaseline) {
  std::string markdown =
      "intro\n<!-- BEGIN GENERATED: headlines -->\nstale\n<!-- END GENERATED -->\n";
  for (const auto& m : all_metrics())
    markdown +=
        "## " + m.name + "\n<!-- BEGIN GENERATED: " + m.name + " -->\n<!-- END GENERATED -->\n";
  const std::string generated = regenerate_metric_docs(markdown, "metrics.md");
  EXPECT_EQ(generated.find("stale"), std::string::npos);
  std::size_t headlines = 0;
  for (const auto& m : all_metrics())
    for (const auto& h : m.headlines) {
      ++headlines;
      const std::string row = "| " + m.name + " | `" + h.statistic + "`";
      EXPECT_NE(generated.find(row), std::string::npos) << row;
    }
  EXPECT_GT(headlines, 20u);
  EXPECT_NE(generated.find("| distance_to_closest_record | `syn_to_conf_exact_copy_share` | risk"),
            std::string::npos);
  EXPECT_NE(generated.find("statistic `holdout_to_conf_exact_copy_share`"), std::string::npos);
}

TEST(RegistryDocs, BlocksNamingNoMetricOrMissingAMetricAreErrors) {
  EXPECT_THROW(regenerate_metric_docs("<!-- BEGIN GENERATED: no_such_metric -->\n"
                                      "<!-- END GENERATED -->\n",
                                      "metrics.md"),
               InputError);
  EXPECT_THROW(regenerate_metric_docs("<!-- BEGIN GENERATED: headlines -->\n", "metrics.md"),
               InputError);
}
