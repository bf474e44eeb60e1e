#pragma once
// Dense ids 0, 1, 2, ... for 64-bit keys (exact cells, bit patterns of values) in order of first
// appearance, so the ids do not depend on the hash. Hand-written because std::unordered_map
// allocates one node per key and is 3-5x slower on the 10^6-key densifications of stats/keys.cpp;
// a column of a million rows with a few hundred distinct values keeps this table in cache.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace synthaudit::stats {

// Open addressing with linear probing over a power-of-two table of (key, id) slots. The key
// 2^64 − 1 marks an empty slot, so it cannot be looked up: as a double's bits it is a NaN, and
// mixed-radix cells stay below 2^63.
class DenseIds {
 public:
  explicit DenseIds(std::size_t expected = 0) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected + 1) capacity <<= 1;
    keys_.assign(capacity, kEmpty);
    ids_.assign(capacity, 0);
    mask_ = capacity - 1;
  }

  // The id of `key`, the next id if it is new.
  std::uint32_t id(std::uint64_t key) {
    if (2 * (static_cast<std::size_t>(next_) + 1) > keys_.size()) grow();
    std::size_t slot = mix(key) & mask_;
    while (true) {
      if (keys_[slot] == key) return ids_[slot];
      if (keys_[slot] == kEmpty) {
        keys_[slot] = key;
        ids_[slot] = next_;
        return next_++;
      }
      slot = (slot + 1) & mask_;
    }
  }

  // The number of distinct keys seen.
  std::uint32_t size() const { return next_; }

 private:
  static constexpr std::uint64_t kEmpty = std::numeric_limits<std::uint64_t>::max();

  static std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
  }

  void grow() {
    std::vector<std::uint64_t> keys(keys_.size() * 2, kEmpty);
    std::vector<std::uint32_t> ids(keys.size(), 0);
    const std::size_t mask = keys.size() - 1;
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] == kEmpty) continue;
      std::size_t slot = mix(keys_[i]) & mask;
      while (keys[slot] != kEmpty) slot = (slot + 1) & mask;
      keys[slot] = keys_[i];
      ids[slot] = ids_[i];
    }
    keys_.swap(keys);
    ids_.swap(ids);
    mask_ = mask;
  }

  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> ids_;
  std::size_t mask_ = 0;
  std::uint32_t next_ = 0;
};

}  // namespace synthaudit::stats
