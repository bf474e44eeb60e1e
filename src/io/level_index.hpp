#pragma once
// A thread's categorical levels of one column while a file is decoded (io/load.cpp): open
// addressing over 64-bit slots (a tag from the hash, and the code) with, beside each slot, its
// level's length and first and last 16 bytes as four words, so a level of up to 32 bytes is
// compared without touching its bytes (longer ones compare the rest with memcmp). The shared
// Dictionary's node-based map costs a cache miss and a string compare per field; this costs a
// hash of the field's bytes and, nearly always, one slot and its key, both fetched ahead for
// large tables. Codes are given in the order levels are first seen.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace synthaudit {

// The first and last 16 bytes of a level (overlapping when it is shorter than 32, zero words
// when shorter than 16), read without touching a byte outside it: equal strings of equal length
// up to 32 bytes give equal words, and equal words of equal length mean equal strings.
struct LevelWords {
  std::uint64_t w[4] = {0, 0, 0, 0};
  bool operator==(const LevelWords& o) const {
    return ((w[0] ^ o.w[0]) | (w[1] ^ o.w[1]) | (w[2] ^ o.w[2]) | (w[3] ^ o.w[3])) == 0;
  }
  static std::uint64_t load(const char* p, std::size_t bytes) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, bytes);
    return word;
  }
  static LevelWords of(std::string_view s) {
    const char* p = s.data();
    const std::size_t n = s.size();
    if (n >= 16) return {{load(p, 8), load(p + 8, 8), load(p + n - 16, 8), load(p + n - 8, 8)}};
    if (n >= 8) return {{load(p, 8), load(p + n - 8, 8), 0, 0}};
    if (n >= 4) return {{load(p, 4), load(p + n - 4, 4), 0, 0}};
    if (n > 0)
      return {{static_cast<std::uint64_t>(static_cast<unsigned char>(p[0])) |
                   static_cast<std::uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8 |
                   static_cast<std::uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16,
               0, 0, 0}};
    return {};
  }
};

// The 128-bit product of the words, folded (as wyhash mixes): every input bit reaches the low
// bits that pick the slot. The hash only places levels in a table; nothing depends on its values.
struct FoldedProductHash {
  static std::uint64_t fold_multiply(std::uint64_t x, std::uint64_t y) {
    const unsigned __int128 product = static_cast<unsigned __int128>(x) * y;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
  }
  std::uint64_t operator()(std::string_view s, const LevelWords& words) const {
    constexpr std::uint64_t k1 = 0x9E3779B97F4A7C15ULL, k2 = 0xBF58476D1CE4E5B9ULL,
                            k3 = 0x94D049BB133111EBULL;
    std::uint64_t h = fold_multiply(words.w[0] ^ k1, words.w[1] ^ k2 ^ s.size());
    if (s.size() > 16) h = fold_multiply(h ^ words.w[2], words.w[3] ^ k3);
    for (std::size_t i = 16; i + 16 < s.size(); i += 8)
      h = fold_multiply(h ^ LevelWords::load(s.data() + i, 8), k3);
    return fold_multiply(h, k1);
  }
};

// `Hash` is a parameter so that tests can make every level collide.
template <typename Hash = FoldedProductHash>
class BasicLevelIndex {
 public:
  // A field's hash, taken ahead of intern(level, added, probe) so that the slot and key it reads
  // are on their way from memory while the row's other columns are decoded: a table of thousands
  // of levels does not stay in the caches next to the streaming text and columns.
  struct Probe {
    std::uint64_t hash = 0;
    bool ready = false;
  };
  Probe probe(std::string_view level) const {
    const Probe p = hash(level);
    prefetch(p);
    return p;
  }
  // The hash alone, and the fetch of its slot and key on its own, for a caller that takes many
  // hashes first and fetches each a few lookups ahead.
  static Probe hash(std::string_view level) { return {Hash()(level, LevelWords::of(level)), true}; }
  void prefetch(const Probe& p) const {
    if (slots_.empty() || !p.ready) return;
    const std::size_t i = static_cast<std::size_t>(p.hash) & mask_;
    __builtin_prefetch(&slots_[i]);
    __builtin_prefetch(&keys_[i]);
  }
  // The level's code, and whether it was new.
  std::uint32_t intern(std::string_view level, bool& added) {
    return intern(level, added, Probe());
  }
  // The same, with `probe` this level's, or not ready.
  std::uint32_t intern(std::string_view level, bool& added, Probe probe) {
    if (slots_.empty()) rehash(16);
    const LevelWords words = LevelWords::of(level);
    const std::uint64_t hash = probe.ready ? probe.hash : Hash()(level, words);
    const auto tag = static_cast<std::uint32_t>(hash >> 32);
    std::size_t i = static_cast<std::size_t>(hash) & mask_;
    while (true) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) break;
      if (static_cast<std::uint32_t>(slot >> 32) == tag) {
        const auto code = static_cast<std::uint32_t>(slot) - 1;
        if (equal(keys_[i], code, level, words)) {
          added = false;
          return code;
        }
      }
      i = (i + 1) & mask_;
    }
    return insert(level, words, tag, i, added);
  }
  std::size_t size() const { return ends_.size(); }
  std::string_view level(std::uint32_t code) const {
    return std::string_view(bytes_.data() + begins_[code], ends_[code] - begins_[code]);
  }

 private:
  // A new level in the empty slot i: out of line, so that the lookup above, run once per field,
  // stays small enough to be inlined into the decoder's loop.
  [[gnu::noinline]] std::uint32_t insert(std::string_view level, const LevelWords& words,
                                         std::uint32_t tag, std::size_t i, bool& added) {
    const auto code = static_cast<std::uint32_t>(ends_.size());
    begins_.push_back(bytes_.size());
    bytes_.append(level);
    ends_.push_back(bytes_.size());
    slots_[i] = (std::uint64_t{tag} << 32) | (std::uint64_t{code} + 1);
    keys_[i] = {words, level.size()};
    if (ends_.size() * 2 > slots_.size()) rehash(slots_.size() * 2);
    added = true;
    return code;
  }
  struct Key {
    LevelWords words;
    std::size_t length = 0;
  };
  bool equal(const Key& key, std::uint32_t code, std::string_view field,
             const LevelWords& field_words) const {
    if (key.length != field.size() || !(key.words == field_words)) return false;
    return field.size() <= 32 || std::memcmp(bytes_.data() + begins_[code] + 16, field.data() + 16,
                                             field.size() - 32) == 0;
  }
  void rehash(std::size_t capacity) {
    slots_.assign(capacity, 0);
    keys_.assign(capacity, Key());
    mask_ = capacity - 1;
    for (std::uint32_t code = 0; code < ends_.size(); ++code) {
      const std::string_view text = level(code);
      const LevelWords words = LevelWords::of(text);
      const std::uint64_t hash = Hash()(text, words);
      std::size_t i = static_cast<std::size_t>(hash) & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = ((hash >> 32) << 32) | (std::uint64_t{code} + 1);
      keys_[i] = {words, text.size()};
    }
  }

  std::vector<std::uint64_t> slots_;  // (hash tag << 32) | (code + 1); 0: empty
  std::vector<Key> keys_;             // the level of slots_[i], for a compare
  std::size_t mask_ = 0;
  std::string bytes_;  // level k is bytes_[begins_[k], ends_[k])
  std::vector<std::size_t> begins_, ends_;
};

using LevelIndex = BasicLevelIndex<>;

}  // namespace synthaudit
