#pragma once
// Equivalence classes of records on key (quasi-identifier) columns, for the statistical
// disclosure control measures: k-anonymity, l-diversity, t-closeness, the individual risk of
// Benedetti & Franconi, replicated uniques and SUDA. Keys come as coded levels (stats/keys.hpp);
// a record's key pattern is its tuple of levels.
//
// Two rules for missing key values:
//   kValue:    a missing value is a level of its own; records are in the same class exactly
//              when their patterns are equal (classes partition the records).
//   kWildcard: sdcMicro's freqCalc (Templ, Kowarik & Meindl 2015; sdcMicro 5.8.1, R/freqCalc.r
//              with alpha = 1): a missing value matches any value, so record j counts in the
//              frequency of record i when, on every key, either is missing or both are equal.
//              The frequencies no longer come from a partition. One exception is kept from
//              sdcMicro: with two or more keys, a record whose keys are all missing does not
//              count in the frequency of a record with no missing key (it does count for
//              records with some missing keys, and its own frequency is the number of records).
//              With one key sdcMicro adds the missing records to every other record, which the
//              general rule already does.
#include <cstdint>
#include <vector>

namespace synthaudit::stats {

enum class MissingKeys { kValue, kWildcard };

// The key patterns of one table's records: pattern[row] in 0..patterns-1, first-seen order.
struct KeyPatterns {
  std::vector<std::uint32_t> pattern;
  std::vector<std::vector<std::uint32_t>> levels;  // levels[p][key]: the pattern's levels
  std::uint32_t patterns() const { return static_cast<std::uint32_t>(levels.size()); }
};

// key_codes[key][row] levels of one table, missing_levels[key] the level of missing values
// (kNoLevel when the key has none). All keys must have the same number of rows.
KeyPatterns key_patterns(const std::vector<const std::vector<std::uint32_t>*>& key_codes);

// Per-record frequencies: sample[row] = f_k, the number of records matching the record's key
// pattern under `rule`; weighted[row] = F_k, the sum of the weights of those records (f_k when
// `weights` is null). `missing_levels` as for key_patterns. Cost: one hash pass per pair of
// distinct missingness masks, so O(masks² · patterns) for kWildcard and O(rows) for kValue.
struct ClassFrequencies {
  std::vector<double> sample;
  std::vector<double> weighted;
};
ClassFrequencies class_frequencies(const KeyPatterns& patterns,
                                   const std::vector<std::uint32_t>& missing_levels,
                                   const std::vector<double>* weights, MissingKeys rule);

}  // namespace synthaudit::stats
