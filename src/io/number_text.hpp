#pragma once
// Numbers in text fields, as every reader decodes them: a whole field is a finite double or not a
// number. The exact parser is std::from_chars (strtod for underflow); a fast path for the plain
// decimals that make up most numeric columns gives bit-identical values without it.
#include <cstdint>
#include <string_view>

namespace synthaudit {

// Exact fast path for "[-]digits[.digits]" with 1 to 15 digits in all (the '.' may be first or
// last, as strtod allows): the digits form an integer m < 10^15 < 2^53 and 10^k (k <= 15) is a
// double exactly, so the one rounding of m / 10^k gives the correctly rounded value, the double
// from_chars gives. Returns false, leaving `value` alone, for anything else (the caller then
// takes the exact parser); in particular a '+', spaces, an exponent, 16 or more digits.
inline bool parse_plain_decimal(std::string_view field, double& value) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = field.data();
  const char* const end = p + field.size();
  const bool negative = p != end && *p == '-';
  p += negative ? 1 : 0;
  // 15 digits and a '.' at most: the digit count below cannot overflow m.
  if (p == end || end - p > 16) return false;
  std::uint64_t m = 0;
  const char* dot = nullptr;
  for (; p != end; ++p) {
    const unsigned digit = static_cast<unsigned>(static_cast<unsigned char>(*p)) - '0';
    if (digit < 10) {
      m = m * 10 + digit;
    } else if (*p == '.' && dot == nullptr) {
      dot = p;
    } else {
      return false;
    }
  }
  const auto fraction = dot == nullptr ? 0 : static_cast<int>(end - dot - 1);
  const auto digits = static_cast<int>(field.size()) - (negative ? 1 : 0) - (dot ? 1 : 0);
  if (digits == 0 || digits > 15) return false;
  // Dividing by 10^0 = 1 is exact: the branch only skips the division for integers.
  const double v =
      fraction == 0 ? static_cast<double>(m) : static_cast<double>(m) / kPow10[fraction];
  value = negative ? -v : v;
  return true;
}

// The exact parser alone: a whole field as a finite double; surrounding spaces and tabs and one
// leading '+' are allowed. Overflow ("1e999"), inf, nan and hex are not numbers; underflow gives
// the nearest subnormal or zero, as strtod does.
bool parse_number_exact(std::string_view field, double& value);

// The same numbers and values as parse_number_exact, by the fast path where it applies.
inline bool parse_number_field(std::string_view field, double& value) {
  return parse_plain_decimal(field, value) || parse_number_exact(field, value);
}

}  // namespace synthaudit
