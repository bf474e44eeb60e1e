#pragma once
// Exact sums of doubles and of exact products of two or three doubles, and exact arithmetic on
// such sums: the numbers a partitioned run must give bit for bit as one process does. A sum that
// is exact does not depend on the order of its terms, so partitions, threads and merge order
// cannot change it, and any statistic computed from exact sums by a fixed sequence of operations
// is identical everywhere.
//
// ExactSum is a fixed-point "superaccumulator" covering every product of three doubles (least
// significant bit 2^-3222, most significant 2^3071) plus 64 bits of headroom for the number of
// terms: Kulisch (2013), "Computer Arithmetic and Validity", and the "large superaccumulator" of
// Neal (2015), "Fast exact summation using small and large superaccumulators" (arXiv:1505.05571).
// It holds 32-bit digits in 64-bit signed chunks and propagates carries lazily, so adding a term
// is a few integer additions into the chunks it covers; the chunks are normalised only every 2^30
// terms and when a value is read.
//
// ExactNumber is a signed big integer times a power of two, enough to form the exact
// determinant-like quantities W·Σwxy − Σwx·Σwy from exact sums and to read them as floating-point
// numbers deterministically.
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <span>
#include <vector>

namespace synthaudit::stats {

// A signed binary fixed-point number of any size: ±magnitude · 2^(32 · limb_exponent), the
// magnitude little-endian in 32-bit limbs with no zero limb at either end (zero: no limbs).
class ExactNumber {
 public:
  ExactNumber() = default;
  // The exact value of a double (finite).
  explicit ExactNumber(double value);

  int sign() const { return magnitude_.empty() ? 0 : (negative_ ? -1 : 1); }
  bool is_zero() const { return magnitude_.empty(); }
  ExactNumber operator-() const;
  friend ExactNumber operator+(const ExactNumber& a, const ExactNumber& b);
  friend ExactNumber operator-(const ExactNumber& a, const ExactNumber& b) { return a + (-b); }
  friend ExactNumber operator*(const ExactNumber& a, const ExactNumber& b);
  friend bool operator==(const ExactNumber& a, const ExactNumber& b) = default;

  // The value as fraction · 2^exponent with |fraction| in [0.5, 1) (both 0 for zero), the fraction
  // being the top 64 bits of the magnitude with every lower bit folded into the last one (a sticky
  // bit). With a 64-bit long double mantissa (x86-64) the fraction is exact and within 2^-63 of
  // the true relative value; and because the sticky bit keeps the truncation from looking like a
  // tie, rounding it once more to double precision gives the correctly rounded double. The
  // exponent is kept apart so that values beyond the long double range still compute.
  struct Scaled {
    long double fraction = 0;
    std::int64_t exponent = 0;
  };
  Scaled scaled() const;
  // The value correctly rounded to the nearest double (ties to even; ±inf beyond its range).
  double to_double() const;

 private:
  friend class ExactSum;
  void trim();
  bool negative_ = false;
  std::int64_t limb_exponent_ = 0;
  std::vector<std::uint32_t> magnitude_;
};

class ExactSum {
 public:
  ExactSum() { chunks_.fill(0); }

  // Adds a, a·b or a·b·c exactly. Every argument must be finite (missing values are the caller's
  // to skip); a non-finite one is not added but marks the sum not finite (value() then throws
  // std::domain_error), and stops a debug build at once.
  void add(double a);
  void add_product(double a, double b);
  void add_product(double a, double b, double c);
  // Adds another sum exactly: merging in any order gives the same sum.
  void merge(const ExactSum& other);

  bool is_finite() const { return finite_; }
  ExactNumber value() const;
  double to_double() const { return value().to_double(); }

  // A compact, canonical image for partition states: the same sum always gives the same words,
  // whatever the terms and their order; only the span of nonzero digits is written.
  std::vector<std::uint64_t> words() const;
  // The sum from its words; std::logic_error when they are not words() of a sum.
  static ExactSum from_words(std::span<const std::uint64_t> words);

 private:
  static constexpr int kChunkBits = 32;
  // The least significant bit of the smallest product of three doubles, 3 · (−1074), rounded
  // down to a whole chunk; the top chunk sits above 2^(3 · 1024 + 64) so that 2^64 terms of the
  // largest magnitude cannot overflow it.
  static constexpr int kLowestBit = -3232;
  static constexpr int kChunks = (3 * 1024 + 64 - kLowestBit) / kChunkBits + 1;
  // A carry pass is due before any chunk could reach 2^62 (terms add less than 2^32 each).
  static constexpr std::uint32_t kCarryDue = 1u << 30;

  template <int Digits>
  void add_shifted(std::uint64_t w0, std::uint64_t w1, std::uint64_t w2, int lowest_bit,
                   bool negative);
  void propagate_carries();
  // After propagate_carries(): whether the sum is negative, leaving its magnitude's digits.
  bool negate_if_negative();

  std::array<std::int64_t, kChunks> chunks_;
  // Every chunk is below chunk_bound_ · 2^32 in magnitude.
  std::uint32_t chunk_bound_ = 0;
  bool finite_ = true;
};

// The adds are inline: they run once per row and pair.
namespace exact_sum_detail {

using u128 = unsigned __int128;
inline constexpr std::uint64_t kDigitMask = 0xffffffffu;

// A finite double is mantissa · 2^exponent with an integer mantissa below 2^53.
struct Parts {
  std::uint64_t mantissa;
  int exponent;
  bool negative;
  bool finite;
};

inline Parts parts_of(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  Parts p{};
  p.negative = (bits >> 63) != 0;
  p.finite = biased != 0x7ff;
  // Subnormals (and zero) share the exponent of the smallest normal numbers, without the
  // hidden bit.
  p.mantissa = biased == 0 ? fraction : fraction | (std::uint64_t{1} << 52);
  p.exponent = (biased == 0 ? 1 : biased) - 1075;
  return p;
}

}  // namespace exact_sum_detail

// Adds (w2·2^128 + w1·2^64 + w0) · 2^lowest_bit, a value of at most 32·Digits − 31 bits: shifted
// to the chunk grid it spans `Digits` 32-bit digits, each added to (or subtracted from) its chunk.
template <int Digits>
inline void ExactSum::add_shifted(std::uint64_t w0, std::uint64_t w1, std::uint64_t w2,
                                  int lowest_bit, bool negative) {
  using namespace exact_sum_detail;
  const int position = lowest_bit - kLowestBit;
  assert(position >= 0);
  const int chunk = position / kChunkBits;
  const int r = position % kChunkBits;
  assert(chunk + Digits <= kChunks);
  // (w >> 1) >> (63 − r) is w >> (64 − r) for r ≥ 1 and 0 for r = 0, without a branch.
  const std::uint64_t s0 = w0 << r;
  const std::uint64_t s1 = (w1 << r) | ((w0 >> 1) >> (63 - r));
  const std::uint64_t s2 = (w2 << r) | ((w1 >> 1) >> (63 - r));
  const std::uint64_t digits[6] = {s0 & kDigitMask, s0 >> 32,        s1 & kDigitMask,
                                   s1 >> 32,        s2 & kDigitMask, s2 >> 32};
  // Two's-complement negation by mask, so a random sign costs no mispredicted branch.
  const std::int64_t mask = -static_cast<std::int64_t>(negative);
  std::int64_t* target = chunks_.data() + chunk;
  for (int k = 0; k < Digits; ++k)
    target[k] += (static_cast<std::int64_t>(digits[k]) ^ mask) - mask;
  if (++chunk_bound_ >= kCarryDue) propagate_carries();
}

inline void ExactSum::add(double a) {
  using namespace exact_sum_detail;
  const Parts p = parts_of(a);
  if (!p.finite) [[unlikely]] {
    assert(false && "ExactSum: non-finite term");
    finite_ = false;
    return;
  }
  // 53 bits shifted by up to 31: 84 bits, three digits.
  add_shifted<3>(p.mantissa, 0, 0, p.exponent, p.negative);
}

inline void ExactSum::add_product(double a, double b) {
  using namespace exact_sum_detail;
  const Parts pa = parts_of(a), pb = parts_of(b);
  if (!(pa.finite && pb.finite)) [[unlikely]] {
    assert(false && "ExactSum: non-finite term");
    finite_ = false;
    return;
  }
  // 106 bits shifted by up to 31: 137 bits, five digits.
  const u128 product = static_cast<u128>(pa.mantissa) * pb.mantissa;
  add_shifted<5>(static_cast<std::uint64_t>(product), static_cast<std::uint64_t>(product >> 64), 0,
                 pa.exponent + pb.exponent, pa.negative != pb.negative);
}

inline void ExactSum::add_product(double a, double b, double c) {
  using namespace exact_sum_detail;
  const Parts pa = parts_of(a), pb = parts_of(b), pc = parts_of(c);
  if (!(pa.finite && pb.finite && pc.finite)) [[unlikely]] {
    assert(false && "ExactSum: non-finite term");
    finite_ = false;
    return;
  }
  // (a·b) is 106 bits in two words; times c's 53 bits, each word gives a 128-bit partial
  // product, the high one 64 bits up: 159 bits in all, six digits once shifted.
  const u128 ab = static_cast<u128>(pa.mantissa) * pb.mantissa;
  const u128 low = static_cast<u128>(static_cast<std::uint64_t>(ab)) * pc.mantissa;
  const u128 high = static_cast<u128>(static_cast<std::uint64_t>(ab >> 64)) * pc.mantissa;
  const u128 middle =
      static_cast<u128>(static_cast<std::uint64_t>(low >> 64)) + static_cast<std::uint64_t>(high);
  add_shifted<6>(static_cast<std::uint64_t>(low), static_cast<std::uint64_t>(middle),
                 static_cast<std::uint64_t>(high >> 64) + static_cast<std::uint64_t>(middle >> 64),
                 pa.exponent + pb.exponent + pc.exponent,
                 (pa.negative != pb.negative) != pc.negative);
}

}  // namespace synthaudit::stats
