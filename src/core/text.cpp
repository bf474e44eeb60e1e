#include "core/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <tuple>

namespace synthaudit {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

namespace {

char folded(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string case_folded(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = folded(c);
  return out;
}

std::size_t shared_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && folded(a[n]) == folded(b[n])) ++n;
  return n;
}

// How close a candidate is to what was typed, best first when compared as a tuple. A typo of
// case costs nothing; among equal distances the candidate that shares the longer start wins
// ('wage' suggests 'wages' over 'age': people mistype endings more than beginnings), then the
// one of closer length; the candidates' order breaks what is left.
struct Closeness {
  std::size_t folded_distance;
  std::size_t distance;
  std::size_t prefix_shortfall;  // characters of `given` before the shared start ends
  std::size_t length_difference;
  auto key() const {
    return std::tie(folded_distance, distance, prefix_shortfall, length_difference);
  }
};

}  // namespace

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates) {
  const std::string given_folded = case_folded(given);
  const std::string* best = nullptr;
  Closeness best_closeness{};
  for (const auto& candidate : candidates) {
    if (candidate == given) continue;
    const Closeness c{edit_distance(given_folded, case_folded(candidate)),
                      edit_distance(given, candidate),
                      given.size() - shared_prefix(given, candidate),
                      given.size() > candidate.size() ? given.size() - candidate.size()
                                                      : candidate.size() - given.size()};
    if (best == nullptr || c.key() < best_closeness.key()) {
      best = &candidate;
      best_closeness = c;
    }
  }
  const std::size_t limit = std::max<std::size_t>(2, given.size() / 3);
  if (best == nullptr || best_closeness.folded_distance > limit) return "";
  return " (did you mean '" + *best + "'?)";
}

std::string column_hint(std::string_view given, const std::vector<std::string>& columns,
                        std::size_t shown) {
  if (std::string hint = did_you_mean(given, columns); !hint.empty()) return hint;
  if (columns.empty()) return " (the data have no columns)";
  std::vector<std::string> quoted;
  for (std::size_t i = 0; i < columns.size() && i < shown; ++i)
    quoted.push_back("'" + columns[i] + "'");
  std::string out = " (the columns: " + join(quoted, ", ");
  if (columns.size() > shown) out += ", and " + std::to_string(columns.size() - shown) + " more";
  return out + ")";
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.emplace_back(trim(text.substr(start, end - start)));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

std::string format_number(double value) {
  if (std::isnan(value)) return "NA";
  if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
  // The shortest text that reads back as the same double (0.05, not 0.050000000000000003).
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace synthaudit

namespace synthaudit {
std::string format_short(double value) {
  if (std::isnan(value)) return "NA";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}
std::string escape_controls(std::string_view text, bool keep_newlines) {
  static const char* hex = "0123456789abcdef";
  auto needs = [&](std::size_t i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') return !keep_newlines;
    if (c < 0x20 || c == 0x7f) return true;
    return c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
           static_cast<unsigned char>(text[i + 1]) <= 0x9F;
  };
  std::size_t first = 0;
  while (first < text.size() && !needs(first)) ++first;
  if (first == text.size()) return std::string(text);
  std::string out(text.substr(0, first));
  for (std::size_t i = first; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!needs(i)) {
      out += static_cast<char>(c);
    } else if (c == 0xC2) {
      const auto next = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += hex[next >> 4];
      out += hex[next & 15];
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == 0) {
      out += "\\0";
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace synthaudit
