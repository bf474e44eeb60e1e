#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace synthaudit {

// Levenshtein distance, for "did you mean" hints.
std::size_t edit_distance(std::string_view a, std::string_view b);

// " (did you mean 'x'?)" for the closest candidate within a small distance, else "".
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::vector<std::string> split(std::string_view text, char separator);
std::string trim(std::string_view text);

// Shortest round-trip text with up to 17 significant digits; "NA" for NaN.
std::string format_number(double value);

// Four significant digits, for terminal summaries; "NA" for NaN.
std::string format_short(double value);

}  // namespace synthaudit
