#pragma once
// A column of several tables (confidential, synthetic, holdout...) coded into dense levels
// 0..levels()-1 shared by all of them: what contingency tables, key matching and group-by counts
// are computed from. stats/contingency.hpp and stats/keys.hpp each build one by their own rules.
#include <cstdint>
#include <string>
#include <vector>

namespace synthaudit::stats {

inline constexpr std::uint32_t kNoLevel = 0xffffffffu;

struct CodedColumn {
  std::string name;
  std::vector<std::string> labels;                // labels[level]
  std::vector<std::vector<std::uint32_t>> codes;  // codes[table][row]
  std::vector<double> breaks;                     // numeric columns cut into intervals: the cuts
  std::uint32_t missing_level = kNoLevel;         // level of missing values, kNoLevel if none
  std::uint32_t levels() const { return static_cast<std::uint32_t>(labels.size()); }
};

}  // namespace synthaudit::stats
