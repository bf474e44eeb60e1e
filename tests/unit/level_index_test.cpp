// Unit tests of the per-thread level index the readers code categorical fields with
// (src/io/level_index.hpp): codes in the order levels are first seen, whatever the hash, for
// levels of every length, including levels that share their first and last 16 bytes and
// length and differ only in between.
#include "io/level_index.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

using namespace synthaudit;

namespace {

// Every level collides, so every lookup compares keys: the compare alone tells levels apart.
struct CollidingHash {
  std::uint64_t operator()(std::string_view, const LevelWords&) const { return 0x1234567800000005; }
};

// Levels of lengths 0 to 80; pairs that differ in one middle byte only (for lengths over 32, a
// byte the first and last 16 bytes do not cover), in one end byte, or in length alone.
std::vector<std::string> tricky_levels() {
  std::vector<std::string> levels;
  for (std::size_t length = 0; length <= 80; ++length) {
    const std::string base(length, 'q');
    levels.push_back(base);
    if (length == 0) continue;
    for (std::size_t at : {std::size_t{0}, length / 2, length - 1}) {
      std::string changed = base;
      changed[at] = 'r';
      levels.push_back(changed);
    }
    levels.push_back(base + std::string(1, '\0'));  // a trailing NUL byte is part of the level
  }
  return levels;
}

template <typename Index>
void expect_codes_in_first_seen_order(const std::vector<std::string>& fields, bool ahead) {
  Index index;
  std::map<std::string, std::uint32_t> reference;
  for (const auto& field : fields) {
    const auto expected = reference.emplace(field, static_cast<std::uint32_t>(reference.size()));
    bool added = false;
    const std::uint32_t code =
        ahead ? index.intern(field, added, index.probe(field)) : index.intern(field, added);
    ASSERT_EQ(code, expected.first->second) << "'" << field << "'";
    ASSERT_EQ(added, expected.second) << "'" << field << "'";
  }
  ASSERT_EQ(index.size(), reference.size());
  for (const auto& [level, code] : reference) EXPECT_EQ(index.level(code), level);
}

}  // namespace

TEST(LevelIndex, CollidingLevelsAreToldApartByTheirBytes) {
  std::vector<std::string> fields = tricky_levels();
  const std::vector<std::string> again = fields;
  fields.insert(fields.end(), again.rbegin(), again.rend());  // every level seen twice
  expect_codes_in_first_seen_order<BasicLevelIndex<CollidingHash>>(fields, false);
  expect_codes_in_first_seen_order<BasicLevelIndex<CollidingHash>>(fields, true);
  expect_codes_in_first_seen_order<LevelIndex>(fields, false);
  expect_codes_in_first_seen_order<LevelIndex>(fields, true);
}

TEST(LevelIndex, ThousandsOfLevelsThroughRehashing) {
  std::vector<std::string> fields;
  for (int i = 0; i < 60000; ++i)
    fields.push_back("Town " + std::to_string((i * 7919) % 5000) + ", district " +
                     std::to_string(i % 37));
  expect_codes_in_first_seen_order<LevelIndex>(fields, false);
  expect_codes_in_first_seen_order<LevelIndex>(fields, true);
  // Colliding, a smaller table (every lookup probes every level).
  fields.resize(3000);
  expect_codes_in_first_seen_order<BasicLevelIndex<CollidingHash>>(fields, true);
}
