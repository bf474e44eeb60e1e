#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace synthaudit {

// Levenshtein distance, for "did you mean" hints.
std::size_t edit_distance(std::string_view a, std::string_view b);

// " (did you mean 'x'?)" for the closest candidate within a small distance, else "".
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

// did_you_mean for a column name, or, when no column is close, " (the columns: a, b, …)" naming
// the first `shown` columns and how many more there are.
std::string column_hint(std::string_view given, const std::vector<std::string>& columns,
                        std::size_t shown = 12);

std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::vector<std::string> split(std::string_view text, char separator);
std::string trim(std::string_view text);

// Shortest round-trip text with up to 17 significant digits; "NA" for NaN.
std::string format_number(double value);

// `text` with every control character (C0, DEL and the C1 range U+0080..U+009F) written as a
// visible escape (\t, \n, \r, \0 or \xNN, C1 as \u0080..\u009f), so a name or a level from the
// data cannot break a TSV row, hide in a terminal or carry a NUL into a file. Newlines are kept
// when `keep_newlines` (whole rendered documents).
std::string escape_controls(std::string_view text, bool keep_newlines = false);

// Four significant digits, for terminal summaries; "NA" for NaN.
std::string format_short(double value);

}  // namespace synthaudit
