// Unit tests of the number parser every reader uses (src/io/number_text.hpp): the fast path for
// plain decimals gives bit for bit the double of the exact parser (std::from_chars) and of the C
// library's strtod for every field it accepts, and leaves every other field to the exact parser.
#include "io/number_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace synthaudit;

namespace {

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// strtod on the whole field: the reference the exact parser follows for plain text (no spaces,
// no '+'); false when strtod stops early or the value is not finite.
bool strtod_whole(const std::string& field, double& value) {
  if (field.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(field.c_str(), &end);
  if (end != field.c_str() + field.size() || !std::isfinite(v)) return false;
  value = v;
  return true;
}

// Counts of what the checks below saw, so that a test cannot pass without exercising both paths.
struct Seen {
  std::size_t fast = 0, fallback = 0;
};

// The fast path's contract for one field: when it accepts, the exact parser and strtod accept
// with the same bits; the combined parser always answers as the exact one does.
void check_field(const std::string& field, Seen& seen) {
  double fast = -1.0, exact = -2.0, combined = -3.0;
  const bool fast_ok = parse_plain_decimal(field, fast);
  const bool exact_ok = parse_number_exact(field, exact);
  const bool combined_ok = parse_number_field(field, combined);
  ASSERT_EQ(combined_ok, exact_ok) << "'" << field << "'";
  if (exact_ok) {
    ASSERT_EQ(bits(combined), bits(exact)) << "'" << field << "'";
  }
  if (fast_ok) {
    ++seen.fast;
    ASSERT_TRUE(exact_ok) << "'" << field << "'";
    ASSERT_EQ(bits(fast), bits(exact)) << "'" << field << "'";
    double reference = 0;
    ASSERT_TRUE(strtod_whole(field, reference)) << "'" << field << "'";
    ASSERT_EQ(bits(fast), bits(reference)) << "'" << field << "'";
  } else {
    ++seen.fallback;
    EXPECT_EQ(fast, -1.0) << "the fast path wrote a value it rejected: '" << field << "'";
  }
}

}  // namespace

TEST(NumberText, FastPathAcceptsPlainDecimalsOnly) {
  double v = 0;
  for (const char* accepted :
       {"0", "-0", "7", "19844.87", "0.059915", "-12.5", ".5", "5.", "-.5", "-5.", "00012",
        "-00.100", "123456789012345", "0.00000000000001", "99999999999999.9", "-999999999999999"})
    EXPECT_TRUE(parse_plain_decimal(accepted, v)) << accepted;
  for (const char* rejected : {"",
                               "-",
                               ".",
                               "-.",
                               "+5",
                               " 5",
                               "5 ",
                               "\t5",
                               "1e5",
                               "1E-5",
                               "5e",
                               "1234567890123456",
                               "1234567890123456.",
                               "0.1234567890123456",
                               "1.2.3",
                               "--5",
                               "-+5",
                               "1,5",
                               "NA",
                               "nan",
                               "inf",
                               "-inf",
                               "Infinity",
                               "0x10",
                               "1_000",
                               "5-",
                               "4.9e-324",
                               "12345678901234567890"})
    EXPECT_FALSE(parse_plain_decimal(rejected, v)) << rejected;
  EXPECT_TRUE(parse_plain_decimal("-0", v));
  EXPECT_TRUE(std::signbit(v));
  EXPECT_EQ(v, 0.0);
}

TEST(NumberText, EdgeCasesAgreeWithTheExactParser) {
  Seen seen;
  const std::vector<std::string> fields = {
      // Plain decimals, the fast path's own.
      "0", "-0", "0.0", "-0.0", ".0", "0.", ".5", "5.", "-.5", "-5.", "0.1", "0.2", "0.3", "1.1",
      "2.675", "1.005", "19844.87", "73987.78", "0.059915", "9007199254740.993", "900719925474099",
      "123456789012345", "1.23456789012345", "0.000000000000001", "999999999999999",
      "99999999999999.9", "-999999999999999", "00000000000001", "0000000000000.1", "-00.100",
      // 16 digits and more: the exact parser's.
      "1234567890123456", "9007199254740993", "9007199254740992", "0.1234567890123456",
      "12345678901234567890", "3.141592653589793238462643383279", "1000000000000000.5",
      "0.30000000000000004", "179769313486231570000000000000000000000000000000000000000000",
      // Exponents, subnormals, underflow and overflow.
      "1e5", "1E5", "1e+5", "1e-5", "-1.5e300", "1e308", "1.7976931348623157e308",
      "1.7976931348623159e308", "1e309", "1e999", "-1e999", "2.2250738585072014e-308",
      "2.2250738585072011e-308", "4.9e-324", "5e-324", "2.4703282292062328e-324",
      "2.4703282292062327e-324", "1e-320", "1e-400", "-1e-400", "0e999", "1e", "1e+", "e5",
      // Signs, spaces and tabs.
      "+5", "+0", "+-5", "-+5", "++5", "--5", " 5", "5 ", " 5 ", "\t5", "5\t", " +5", "+ 5", "- 5",
      " ", "\t", " -0.5 ", " 1e5",
      // Missing-value spellings and other text.
      "", "NA", "NaN", "nan", "null", "inf", "-inf", "Infinity", "-", "+", ".", "-.", "..", "1.2.3",
      "1,5", "0x10", "0x1p3", "1_000", "5-", "1 000", "١٢", "5\x01", "abc"};
  for (const auto& field : fields) check_field(field, seen);
  EXPECT_GT(seen.fast, 25u);
  EXPECT_GT(seen.fallback, 60u);
}

TEST(NumberText, RandomFieldsAgreeWithTheExactParser) {
  std::mt19937_64 random(20261126);
  Seen seen;
  // Decimals as files write them: a sign, 1 to 18 digits with a point anywhere (or none),
  // sometimes an exponent, so that both sides of the 15-digit bound are hit often.
  for (int i = 0; i < 200000; ++i) {
    std::string field;
    if (random() % 4 == 0) field += '-';
    const int digits = 1 + static_cast<int>(random() % 18);
    const int point = static_cast<int>(random() % static_cast<unsigned>(digits + 2)) - 1;
    for (int d = 0; d < digits; ++d) {
      if (d == point) field += '.';
      field += static_cast<char>('0' + random() % 10);
    }
    if (point == digits) field += '.';
    if (random() % 20 == 0) field += "e" + std::to_string(static_cast<int>(random() % 700) - 350);
    check_field(field, seen);
  }
  // Strings over the characters of numbers, mostly not numbers.
  const std::string alphabet = "0123456789.-+eE \t";
  for (int i = 0; i < 200000; ++i) {
    std::string field;
    const int length = static_cast<int>(random() % 19);
    for (int k = 0; k < length; ++k) field += alphabet[random() % alphabet.size()];
    check_field(field, seen);
  }
  // Every double printed with few significant digits reads back as itself by every path.
  for (int i = 0; i < 100000; ++i) {
    const double x =
        std::ldexp(static_cast<double>(random() >> 11), -static_cast<int>(random() % 80));
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", static_cast<int>(random() % 8), x);
    check_field(buffer, seen);
  }
  EXPECT_GT(seen.fast, 150000u);
  EXPECT_GT(seen.fallback, 150000u);
}
