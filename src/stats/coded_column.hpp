#pragma once
// A column of several tables (confidential, synthetic, holdout...) coded into dense levels
// 0..levels()-1 shared by all of them: what contingency tables, key matching and group-by counts
// are computed from. stats/contingency.hpp and stats/keys.hpp each build one by their own rules
// for numeric columns; categorical columns are coded by code_categorical for both.
#include <cstdint>
#include <string>
#include <vector>

#include "table/table.hpp"

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

// The same categorical column (one shared dictionary) of several tables as levels: level k is the
// dictionary's level k, and missing values get the level after the last, labelled
// `missing_label`. That level exists always when `missing_level_always`, else only when some
// table has a missing value.
CodedColumn code_categorical(const std::vector<const Column*>& tables,
                             const std::string& missing_label, bool missing_level_always);

}  // namespace synthaudit::stats
