#include "stats/exact_sum.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace synthaudit::stats {

using exact_sum_detail::kDigitMask;
using exact_sum_detail::u128;

namespace {

// Floor division and remainder by 32 for negative exponents too.
std::int64_t floor_div32(std::int64_t v) { return v >= 0 ? v / 32 : -((-v + 31) / 32); }

}  // namespace

// ---- ExactNumber -----------------------------------------------------------------------------

ExactNumber::ExactNumber(double value) {
  const exact_sum_detail::Parts p = exact_sum_detail::parts_of(value);
  if (!p.finite) throw std::domain_error("ExactNumber of a non-finite value");
  negative_ = p.negative;
  limb_exponent_ = floor_div32(p.exponent);
  const int shift = static_cast<int>(p.exponent - 32 * limb_exponent_);
  const u128 shifted = static_cast<u128>(p.mantissa) << shift;
  for (int k = 0; k < 3; ++k)
    magnitude_.push_back(static_cast<std::uint32_t>((shifted >> (32 * k)) & kDigitMask));
  trim();
}

void ExactNumber::trim() {
  while (!magnitude_.empty() && magnitude_.back() == 0) magnitude_.pop_back();
  std::size_t low = 0;
  while (low < magnitude_.size() && magnitude_[low] == 0) ++low;
  if (low > 0) {
    magnitude_.erase(magnitude_.begin(), magnitude_.begin() + static_cast<std::ptrdiff_t>(low));
    limb_exponent_ += static_cast<std::int64_t>(low);
  }
  if (magnitude_.empty()) {
    negative_ = false;
    limb_exponent_ = 0;
  }
}

ExactNumber ExactNumber::operator-() const {
  ExactNumber r = *this;
  if (!r.is_zero()) r.negative_ = !r.negative_;
  return r;
}

namespace {

// The magnitude of `n` (limbs at limb_exponent) re-expressed from limb exponent `lowest`.
std::vector<std::uint32_t> aligned(const std::vector<std::uint32_t>& limbs, std::int64_t exponent,
                                   std::int64_t lowest, std::size_t size) {
  std::vector<std::uint32_t> out(size, 0);
  std::copy(limbs.begin(), limbs.end(), out.begin() + (exponent - lowest));
  return out;
}

// a < b for equally long little-endian magnitudes.
bool less_magnitude(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  for (std::size_t k = a.size(); k-- > 0;)
    if (a[k] != b[k]) return a[k] < b[k];
  return false;
}

}  // namespace

ExactNumber operator+(const ExactNumber& a, const ExactNumber& b) {
  if (a.is_zero()) return b;
  if (b.is_zero()) return a;
  const std::int64_t lowest = std::min(a.limb_exponent_, b.limb_exponent_);
  const std::int64_t highest =
      std::max(a.limb_exponent_ + static_cast<std::int64_t>(a.magnitude_.size()),
               b.limb_exponent_ + static_cast<std::int64_t>(b.magnitude_.size()));
  const auto size = static_cast<std::size_t>(highest - lowest + 1);
  auto x = aligned(a.magnitude_, a.limb_exponent_, lowest, size);
  auto y = aligned(b.magnitude_, b.limb_exponent_, lowest, size);
  ExactNumber r;
  r.limb_exponent_ = lowest;
  r.magnitude_.assign(size, 0);
  if (a.negative_ == b.negative_) {
    r.negative_ = a.negative_;
    std::uint64_t carry = 0;
    for (std::size_t k = 0; k < size; ++k) {
      const std::uint64_t s = std::uint64_t{x[k]} + y[k] + carry;
      r.magnitude_[k] = static_cast<std::uint32_t>(s & kDigitMask);
      carry = s >> 32;
    }
  } else {
    // |larger| − |smaller|, with the larger one's sign.
    const bool swap = less_magnitude(x, y);
    if (swap) std::swap(x, y);
    r.negative_ = swap ? b.negative_ : a.negative_;
    std::int64_t borrow = 0;
    for (std::size_t k = 0; k < size; ++k) {
      std::int64_t d = std::int64_t{x[k]} - y[k] - borrow;
      borrow = d < 0 ? 1 : 0;
      if (d < 0) d += std::int64_t{1} << 32;
      r.magnitude_[k] = static_cast<std::uint32_t>(d);
    }
  }
  r.trim();
  return r;
}

ExactNumber operator*(const ExactNumber& a, const ExactNumber& b) {
  if (a.is_zero() || b.is_zero()) return {};
  ExactNumber r;
  r.negative_ = a.negative_ != b.negative_;
  r.limb_exponent_ = a.limb_exponent_ + b.limb_exponent_;
  r.magnitude_.assign(a.magnitude_.size() + b.magnitude_.size(), 0);
  for (std::size_t i = 0; i < a.magnitude_.size(); ++i) {
    std::uint64_t carry = 0;
    for (std::size_t j = 0; j < b.magnitude_.size(); ++j) {
      const std::uint64_t t =
          std::uint64_t{a.magnitude_[i]} * b.magnitude_[j] + r.magnitude_[i + j] + carry;
      r.magnitude_[i + j] = static_cast<std::uint32_t>(t & kDigitMask);
      carry = t >> 32;
    }
    r.magnitude_[i + b.magnitude_.size()] = static_cast<std::uint32_t>(carry);
  }
  r.trim();
  return r;
}

ExactNumber::Scaled ExactNumber::scaled() const {
  if (is_zero()) return {};
  const std::int64_t bits =
      32 * static_cast<std::int64_t>(magnitude_.size() - 1) + std::bit_width(magnitude_.back());
  // Bits [bits − 64, bits) of the magnitude; those below only say whether any is set.
  const std::int64_t start = bits - 64;
  std::uint64_t top = 0;
  bool sticky = false;
  for (std::size_t k = 0; k < magnitude_.size(); ++k) {
    const std::int64_t shift = 32 * static_cast<std::int64_t>(k) - start;
    const std::uint64_t limb = magnitude_[k];
    if (shift >= 0) {
      top |= limb << shift;
    } else if (shift > -32) {
      top |= limb >> -shift;
      sticky = sticky || (limb & ((std::uint64_t{1} << -shift) - 1)) != 0;
    } else {
      sticky = sticky || limb != 0;
    }
  }
  if (sticky) top |= 1;
  const long double fraction = std::ldexp(static_cast<long double>(top), -64);
  return {negative_ ? -fraction : fraction, bits + 32 * limb_exponent_};
}

double ExactNumber::to_double() const {
  const Scaled s = scaled();
  if (s.fraction == 0) return 0.0;
  // Every double, subnormals included, is a normal long double, so the scaling below is exact
  // and the one rounding is the conversion to double.
  if (s.exponent > 2000) return s.fraction < 0 ? -HUGE_VAL : HUGE_VAL;
  if (s.exponent < -2000) return s.fraction < 0 ? -0.0 : 0.0;
  return static_cast<double>(std::ldexp(s.fraction, static_cast<int>(s.exponent)));
}

// ---- ExactSum --------------------------------------------------------------------------------

void ExactSum::propagate_carries() {
  for (int k = 0; k + 1 < kChunks; ++k) {
    const std::int64_t carry = chunks_[k] >> kChunkBits;  // floor division, negative too
    chunks_[k] -= carry * (std::int64_t{1} << kChunkBits);
    chunks_[k + 1] += carry;
  }
  chunk_bound_ = 1;
}

bool ExactSum::negate_if_negative() {
  if (chunks_[kChunks - 1] >= 0) return false;
  for (auto& c : chunks_) c = -c;
  propagate_carries();
  return true;
}

void ExactSum::merge(const ExactSum& other) {
  if (chunk_bound_ + other.chunk_bound_ >= kCarryDue) propagate_carries();
  for (int k = 0; k < kChunks; ++k) chunks_[k] += other.chunks_[k];
  chunk_bound_ += other.chunk_bound_;
  if (chunk_bound_ >= kCarryDue) propagate_carries();
  finite_ = finite_ && other.finite_;
}

ExactNumber ExactSum::value() const {
  if (!finite_) throw std::domain_error("ExactSum: a term was not finite");
  ExactSum copy = *this;
  copy.propagate_carries();
  ExactNumber n;
  n.negative_ = copy.negate_if_negative();
  n.limb_exponent_ = kLowestBit / kChunkBits;
  // The headroom keeps the top chunk a plain digit.
  assert(copy.chunks_[kChunks - 1] >= 0 &&
         copy.chunks_[kChunks - 1] <= static_cast<std::int64_t>(kDigitMask));
  n.magnitude_.reserve(kChunks);
  for (auto c : copy.chunks_) n.magnitude_.push_back(static_cast<std::uint32_t>(c));
  n.trim();
  return n;
}

// Words: [flags (1 negative, 2 not finite), index of the lowest nonzero chunk, its digits up to
// the highest nonzero one]; zero is the two words [0, 0].
std::vector<std::uint64_t> ExactSum::words() const {
  if (!finite_) return {2, 0};
  const ExactNumber n = value();
  std::vector<std::uint64_t> out{n.negative_ ? 1u : 0u, 0};
  if (n.is_zero()) return out;
  out[1] = static_cast<std::uint64_t>(n.limb_exponent_ - kLowestBit / kChunkBits);
  out.insert(out.end(), n.magnitude_.begin(), n.magnitude_.end());
  return out;
}

ExactSum ExactSum::from_words(std::span<const std::uint64_t> words) {
  auto bad = [] { throw std::logic_error("ExactSum: malformed words"); };
  if (words.size() < 2 || words[0] > 2) bad();
  ExactSum s;
  if (words[0] == 2) {
    if (words.size() != 2 || words[1] != 0) bad();
    s.finite_ = false;
    return s;
  }
  const std::size_t digits = words.size() - 2;
  const std::uint64_t first = words[1];
  if (first > static_cast<std::uint64_t>(kChunks) || digits > kChunks - first) bad();
  if (digits == 0) {
    if (words[0] != 0 || first != 0) bad();
    return s;
  }
  if (words[2] == 0 || words.back() == 0) bad();
  const std::int64_t sign = words[0] == 1 ? -1 : 1;
  for (std::size_t k = 0; k < digits; ++k) {
    if (words[2 + k] > kDigitMask) bad();
    s.chunks_[first + k] = sign * static_cast<std::int64_t>(words[2 + k]);
  }
  s.chunk_bound_ = 1;
  return s;
}

}  // namespace synthaudit::stats
