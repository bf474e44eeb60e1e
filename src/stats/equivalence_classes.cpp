#include "stats/equivalence_classes.hpp"

#include <map>
#include <stdexcept>
#include <unordered_map>

#include "core/error.hpp"
#include "stats/coded_column.hpp"

namespace synthaudit::stats {

namespace {

struct LevelsHash {
  std::size_t operator()(const std::vector<std::uint32_t>& levels) const {
    std::uint64_t h = 1469598103934665603ull;
    for (auto v : levels) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 1099511628211ull;
    }
    return static_cast<std::size_t>(h);
  }
};

using PatternIndex = std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, LevelsHash>;

}  // namespace

KeyPatterns key_patterns(const std::vector<const std::vector<std::uint32_t>*>& key_codes) {
  KeyPatterns result;
  if (key_codes.empty()) throw std::invalid_argument("key_patterns: no keys");
  const std::size_t rows = key_codes.front()->size();
  for (const auto* codes : key_codes)
    if (codes->size() != rows) throw std::invalid_argument("key_patterns: keys differ in length");
  PatternIndex index;
  result.pattern.resize(rows);
  std::vector<std::uint32_t> levels(key_codes.size());
  for (std::size_t row = 0; row < rows; ++row) {
    for (std::size_t k = 0; k < key_codes.size(); ++k) levels[k] = (*key_codes[k])[row];
    const auto [it, added] = index.try_emplace(levels, result.patterns());
    if (added) result.levels.push_back(levels);
    result.pattern[row] = it->second;
  }
  return result;
}

ClassFrequencies class_frequencies(const KeyPatterns& patterns,
                                   const std::vector<std::uint32_t>& missing_levels,
                                   const std::vector<double>* weights, MissingKeys rule) {
  const std::size_t rows = patterns.pattern.size();
  if (weights && weights->size() != rows)
    throw std::invalid_argument("class_frequencies: weights differ in length");
  const std::uint32_t count = patterns.patterns();
  std::vector<double> own_sample(count, 0.0), own_weighted(count, 0.0);
  for (std::size_t row = 0; row < rows; ++row) {
    own_sample[patterns.pattern[row]] += 1;
    own_weighted[patterns.pattern[row]] += weights ? (*weights)[row] : 1.0;
  }
  std::vector<double> sample = own_sample, weighted = own_weighted;
  if (rule == MissingKeys::kWildcard && count > 0) {
    const std::size_t keys = patterns.levels.front().size();
    if (missing_levels.size() != keys)
      throw std::invalid_argument("class_frequencies: one missing level per key");
    if (keys > 64)
      throw InputError("missing_keys: wildcard handles at most 64 key columns, got " +
                       std::to_string(keys));
    // Patterns grouped by their mask of present (non-missing) keys.
    std::map<std::uint64_t, std::vector<std::uint32_t>> by_mask;
    for (std::uint32_t p = 0; p < count; ++p) {
      std::uint64_t mask = 0;
      for (std::size_t k = 0; k < keys; ++k)
        if (patterns.levels[p][k] != missing_levels[k]) mask |= std::uint64_t{1} << k;
      by_mask[mask].push_back(p);
    }
    const std::uint64_t full = keys == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << keys) - 1;
    if (by_mask.size() > 1) {
      sample.assign(count, 0.0);
      weighted.assign(count, 0.0);
      std::vector<std::uint32_t> projection;
      for (const auto& [mask_i, members_i] : by_mask) {
        for (const auto& [mask_j, members_j] : by_mask) {
          if (keys >= 2 && mask_i == full && mask_j == 0) continue;  // sdcMicro's exception
          const std::uint64_t shared = mask_i & mask_j;
          auto project = [&](std::uint32_t p) {
            projection.clear();
            for (std::size_t k = 0; k < keys; ++k)
              if (shared >> k & 1) projection.push_back(patterns.levels[p][k]);
          };
          std::unordered_map<std::vector<std::uint32_t>, std::pair<double, double>, LevelsHash>
              totals;
          for (auto p : members_j) {
            project(p);
            auto& t = totals[projection];
            t.first += own_sample[p];
            t.second += own_weighted[p];
          }
          for (auto p : members_i) {
            project(p);
            const auto it = totals.find(projection);
            if (it == totals.end()) continue;
            sample[p] += it->second.first;
            weighted[p] += it->second.second;
          }
        }
      }
    }
  }
  ClassFrequencies result;
  result.sample.resize(rows);
  result.weighted.resize(rows);
  for (std::size_t row = 0; row < rows; ++row) {
    result.sample[row] = sample[patterns.pattern[row]];
    result.weighted[row] = weighted[patterns.pattern[row]];
  }
  return result;
}

}  // namespace synthaudit::stats
