#include "io/number_text.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <system_error>

namespace synthaudit {

bool parse_number_exact(std::string_view field, double& value) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
  if (!field.empty() && field.front() == '+') {
    field.remove_prefix(1);
    if (!field.empty() && (field.front() == '-' || field.front() == '+')) return false;
  }
  if (field.empty()) return false;
  const char* end = field.data() + field.size();
  double parsed = 0;
  auto [ptr, ec] = std::from_chars(field.data(), end, parsed);
  if (ptr != end) return false;
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves `parsed` unset here; tell underflow (a number) from overflow (not).
    const std::string copy(field);
    errno = 0;
    const double v = std::strtod(copy.c_str(), nullptr);
    if (!std::isfinite(v)) return false;
    value = v;
    return true;
  }
  if (ec != std::errc() || !std::isfinite(parsed)) return false;
  value = parsed;
  return true;
}

}  // namespace synthaudit
