#pragma once
// Deterministic random numbers. std::*_distribution differ between standard libraries, so every
// random step in synthaudit draws from these hand-written, platform-independent generators:
// results for a given seed are the same on every machine and for every thread count.
#include <cmath>
#include <cstdint>
#include <numbers>

namespace synthaudit {

// SplitMix64: used to derive independent stream seeds from (seed, stream id).
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// xoshiro256** (Blackman & Vigna), seeded through SplitMix64.
class Rng {
 public:
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0) {
    std::uint64_t s = splitmix64(seed ^ splitmix64(stream + 0x632be59bd9b4e019ULL));
    for (auto& word : state_) {
      s = splitmix64(s);
      word = s;
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n) (Lemire's multiply-shift; bias below 2^-64 * n, negligible).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // Standard normal by the Marsaglia polar method (one value cached).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
  }
  bool bernoulli(double p) { return uniform() < p; }
  // Poisson by inversion (fine for the small means the simulator uses).
  std::uint32_t poisson(double mean) {
    const double limit = std::exp(-mean);
    double product = uniform();
    std::uint32_t k = 0;
    while (product > limit) {
      product *= uniform();
      ++k;
    }
    return k;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace synthaudit
