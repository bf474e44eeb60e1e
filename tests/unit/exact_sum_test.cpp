// stats/exact_sum: exact sums of doubles and of products of two and three doubles, against exact
// rational arithmetic (Python's fractions.Fraction, tests/golden/exact_sum/make_golden.py), and
// the order independence that partitioned runs rely on: any split, merged in any order, gives the
// same sum bit for bit.
#include "stats/exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using synthaudit::stats::ExactNumber;
using synthaudit::stats::ExactSum;

namespace {

using Term = std::vector<double>;  // 1 to 3 factors

struct Case {
  std::string name;
  std::vector<Term> terms;
  std::string expected;  // float.hex of the correctly rounded sum, or inf / -inf
  std::vector<Term> remainder;
};

std::string golden(const std::string& file) {
  return std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/exact_sum/" + file;
}

std::vector<Term> parse_terms(const std::string& field) {
  std::vector<Term> terms;
  if (field == "-") return terms;
  std::istringstream words(field);
  std::string word;
  while (words >> word) {
    Term t;
    std::size_t start = 0;
    while (true) {
      const std::size_t star = word.find('*', start);
      t.push_back(std::strtod(word.substr(start, star - start).c_str(), nullptr));
      if (star == std::string::npos) break;
      start = star + 1;
    }
    terms.push_back(t);
  }
  return terms;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> out;
    std::ifstream in(golden("cases.tsv"));
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> fields;
      std::istringstream cells(line);
      std::string cell;
      while (std::getline(cells, cell, '\t')) fields.push_back(cell);
      if (fields.size() != 4) throw std::runtime_error("bad golden line: " + line.substr(0, 80));
      out.push_back({fields[0], parse_terms(fields[1]), fields[2], parse_terms(fields[3])});
    }
    return out;
  }();
  return all;
}

void add_term(ExactSum& s, const Term& t) {
  if (t.size() == 1) s.add(t[0]);
  if (t.size() == 2) s.add_product(t[0], t[1]);
  if (t.size() == 3) s.add_product(t[0], t[1], t[2]);
}

ExactSum sum_of(const std::vector<Term>& terms) {
  ExactSum s;
  for (const auto& t : terms) add_term(s, t);
  return s;
}

double expected_double(const std::string& text) {
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  return std::strtod(text.c_str(), nullptr);
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// A random finite double: random sign, mantissa and exponent over the whole range (subnormals
// included), or a special value now and then.
double random_double(std::mt19937_64& rng, int lowest = -1074, int highest = 1023) {
  std::uniform_int_distribution<int> pick(0, 19);
  switch (pick(rng)) {
    case 0:
      return 0.0;
    case 1:
      return std::numeric_limits<double>::denorm_min();
    case 2:
      return -std::numeric_limits<double>::max();
    default:
      break;
  }
  const double mantissa = std::uniform_real_distribution<double>(0.5, 1.0)(rng);
  const int exponent = std::uniform_int_distribution<int>(lowest, highest)(rng);
  const double v = std::ldexp(mantissa, exponent);
  return (rng() & 1) != 0 ? -v : v;
}

}  // namespace

TEST(ExactSum, GoldenSumsAreCorrectlyRoundedAndExact) {
  ASSERT_GE(cases().size(), 20u);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ExactSum s = sum_of(c.terms);
    const double got = s.to_double();
    EXPECT_TRUE(same_bits(got, expected_double(c.expected)))
        << std::hexfloat << got << " vs " << c.expected;
    // Minus the exact sum, as further terms: every bit must cancel.
    for (const auto& t : c.remainder) add_term(s, t);
    EXPECT_TRUE(s.value().is_zero());
    EXPECT_EQ(s.words(), (std::vector<std::uint64_t>{0, 0}));
  }
}

TEST(ExactSum, AnySplitMergedInAnyOrderIsTheSameSum) {
  std::mt19937_64 rng(11);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto whole = sum_of(c.terms).words();
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<Term> terms = c.terms;
      std::shuffle(terms.begin(), terms.end(), rng);
      const std::size_t parts = 1 + rng() % 4;
      std::vector<std::size_t> cuts{0, terms.size()};
      for (std::size_t p = 1; p < parts; ++p) cuts.push_back(rng() % (terms.size() + 1));
      std::sort(cuts.begin(), cuts.end());
      std::vector<ExactSum> sums;
      for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
        ExactSum s;
        for (std::size_t i = cuts[p]; i < cuts[p + 1]; ++i) add_term(s, terms[i]);
        // Through the words, as a partition state travels.
        sums.push_back(ExactSum::from_words(s.words()));
      }
      std::shuffle(sums.begin(), sums.end(), rng);
      ExactSum merged;
      for (const auto& s : sums) merged.merge(s);
      EXPECT_EQ(merged.words(), whole) << "trial " << trial << ", " << parts << " parts";
    }
  }
}

// The accumulator's shifted multi-word products against ExactNumber's schoolbook multiplication,
// an independent route to the same exact value, over random doubles of the whole range.
TEST(ExactSum, ProductsEqualBigIntegerProducts) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    const double a = random_double(rng), b = random_double(rng), c = random_double(rng);
    ExactSum one, two, three;
    one.add(a);
    two.add_product(a, b);
    three.add_product(a, b, c);
    const ExactNumber ea(a), eb(b), ec(c);
    ASSERT_EQ(one.value(), ea) << std::hexfloat << a;
    ASSERT_EQ(two.value(), ea * eb) << std::hexfloat << a << " " << b;
    ASSERT_EQ(three.value(), ea * eb * ec) << std::hexfloat << a << " " << b << " " << c;
  }
}

TEST(ExactSum, SumsOfManyTermsEqualBigIntegerSums) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 20; ++trial) {
    ExactSum s;
    ExactNumber expected;
    for (int i = 0; i < 300; ++i) {
      const double a = random_double(rng, -400, 300), b = random_double(rng, -400, 300),
                   c = random_double(rng, -400, 300);
      s.add_product(a, b, c);
      s.add_product(a, -b);
      s.add(c);
      expected = expected + ExactNumber(a) * ExactNumber(b) * ExactNumber(c) -
                 ExactNumber(a) * ExactNumber(b) + ExactNumber(c);
    }
    EXPECT_EQ(s.value(), expected);
    EXPECT_TRUE(same_bits(s.to_double(), expected.to_double()));
  }
}

// Chunks hold up to 2^32 per term and are carried lazily; doubling a sum by merging it with a
// copy doubles every chunk, so without the carry passes the merge schedules, 31 doublings would
// overflow them. Negative and positive digits both (carries of either sign).
TEST(ExactSum, RepeatedMergesCarryBeforeChunksOverflow) {
  for (const double sign : {1.0, -1.0}) {
    ExactSum s;
    s.add(sign * 0x1.fffffffffffffp+40);  // every mantissa bit set: full digits
    s.add_product(-sign * 0x1.fffffffffffffp-3, 0x1.fffffffffffffp+7);
    s.add_product(0x1.fffffffffffffp+0, -0x1.fffffffffffffp-600, 0x1.8p-200);
    ExactNumber expected = s.value();
    for (int i = 0; i < 70; ++i) {
      const ExactSum copy = s;
      s.merge(copy);
      expected = expected + expected;
    }
    EXPECT_EQ(s.value(), expected);
    EXPECT_EQ(ExactSum::from_words(s.words()).value(), expected);
  }
}

TEST(ExactNumber, DoublesRoundTripAndArithmeticIsExact) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    const double a = random_double(rng), b = random_double(rng);
    const ExactNumber ea(a), eb(b);
    ASSERT_TRUE(same_bits(ea.to_double(), a == 0 ? 0.0 : a)) << std::hexfloat << a;
    ASSERT_TRUE((ea - ea).is_zero());
    ASSERT_EQ((ea + eb) - eb, ea);
    ASSERT_EQ((ea + eb) * eb, ea * eb + eb * eb);
    ASSERT_EQ((-ea).sign(), -ea.sign());
    // A sum of two doubles rounds like the hardware's correctly rounded addition (no overflow
    // in range).
    if (std::isfinite(a + b)) {
      ASSERT_TRUE(same_bits((ea + eb).to_double(), a + b == 0 ? 0.0 : a + b));
    }
    if (std::isfinite(a * b) && std::abs(a * b) >= std::numeric_limits<double>::min()) {
      ASSERT_TRUE(same_bits((ea * eb).to_double(), a * b)) << std::hexfloat << a << " " << b;
    }
  }
}

TEST(ExactNumber, ScaledIsAFractionInHalfToOneWithAStickyBit) {
  const ExactNumber one(1.0);
  const auto s = one.scaled();
  EXPECT_EQ(s.fraction, 0.5L);
  EXPECT_EQ(s.exponent, 1);
  // 2^200 + 1: the 1 lies far below the top 64 bits and survives only as the sticky bit.
  const ExactNumber big = ExactNumber(std::ldexp(1.0, 200)) + ExactNumber(1.0);
  const auto b = big.scaled();
  EXPECT_EQ(b.exponent, 201);
  EXPECT_GT(b.fraction, 0.5L);
  EXPECT_LT(b.fraction - 0.5L, std::ldexp(1.0L, -62));
  // Beyond the double range the exponent stays exact.
  const ExactNumber huge = ExactNumber(1e300) * ExactNumber(1e300) * ExactNumber(-1e300);
  const auto h = huge.scaled();
  EXPECT_LT(h.fraction, -0.5L);
  EXPECT_EQ(h.exponent, 2990);
  EXPECT_EQ(huge.to_double(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ExactNumber().scaled().fraction, 0.0L);
}

TEST(ExactSum, MalformedWordsAreAProgrammingError) {
  EXPECT_THROW(ExactSum::from_words(std::vector<std::uint64_t>{}), std::logic_error);
  EXPECT_THROW(ExactSum::from_words(std::vector<std::uint64_t>{3, 0}), std::logic_error);
  EXPECT_THROW(ExactSum::from_words(std::vector<std::uint64_t>{0, 1}), std::logic_error);
  EXPECT_THROW(ExactSum::from_words(std::vector<std::uint64_t>{0, 5, 0}), std::logic_error);
  EXPECT_THROW(ExactSum::from_words(std::vector<std::uint64_t>{0, 5, 1ull << 32}),
               std::logic_error);
  EXPECT_THROW(ExactSum::from_words(std::vector<std::uint64_t>{0, 199, 1, 1}), std::logic_error);
  ExactSum s;
  s.add(-3.5);
  EXPECT_EQ(ExactSum::from_words(s.words()).to_double(), -3.5);
}

#ifdef NDEBUG
// A debug build stops at a non-finite term (assert); a release build marks the sum instead of
// writing outside the accumulator.
TEST(ExactSum, NonFiniteTermsMarkTheSum) {
  ExactSum s;
  s.add(1.0);
  s.add_product(std::numeric_limits<double>::infinity(), 2.0);
  EXPECT_FALSE(s.is_finite());
  EXPECT_THROW(s.value(), std::domain_error);
  EXPECT_FALSE(ExactSum::from_words(s.words()).is_finite());
}
#endif
