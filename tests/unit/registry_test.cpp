#include "metrics/registry.hpp"

#include <gtest/gtest.h>

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
