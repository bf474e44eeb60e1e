#pragma once
// Minimal sample uniques and the SUDA and DIS-SUDA scores of special uniqueness.
//
// A record's values on a set S of key variables are a minimal sample unique (MSU) when no other
// record has the same values on S and, for every proper subset of S, some other record has the
// same values on it (Elliot, Manning & Ford 2002). The search is SUDA2's (Manning, Haglin &
// Keane 2008): items are (key, value) pairs; the MSUs containing item I whose other items rank
// after I (items ranked by count) are I plus the MSUs of the sub-table of the records holding I,
// restricted to the items ranked after I, that occur at least once outside that sub-table. Items
// held by one record are MSUs of size 1 and end the branch; items held by every record of a
// (sub-)table cannot be part of one and are dropped. Each MSU is found once, through its
// lowest-ranked item.
//
// Missing values (kNoLevel) are never part of an MSU and never equal a value: a record missing
// key k has no MSU containing k, and does not share any value of k with another record. In the
// counts of sample uniques and pairs on all keys (the DIS estimate below) a missing value is a
// value of its own, equal to another missing value of the same key, as in sdcMicro.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "table/table.hpp"

namespace synthaudit::stats {

// The most keys a search takes: an MSU is a bit set of keys.
inline constexpr std::size_t kSudaMaxKeys = 64;
inline constexpr std::uint32_t kSudaMissing = 0xffffffffu;

// The key columns of one table as dense levels: codes[k][row] < levels[k], or kSudaMissing.
struct SudaKeys {
  std::vector<std::vector<std::uint32_t>> codes;
  std::vector<std::uint32_t> levels;
  std::size_t rows = 0;
};

// Columns of `table` as SUDA keys: a categorical column by its dictionary codes, a numeric one by
// its distinct values in increasing order; missing values (NaN, missing codes) are kSudaMissing.
SudaKeys suda_keys(const Table& table, const std::vector<std::size_t>& columns);

struct MinimalSampleUnique {
  std::uint32_t row = 0;
  std::uint64_t keys = 0;  // bit k set: key k is one of the MSU's variables
  int size() const;
  friend bool operator==(const MinimalSampleUnique&, const MinimalSampleUnique&) = default;
  friend bool operator<(const MinimalSampleUnique& a, const MinimalSampleUnique& b) {
    return a.row != b.row ? a.row < b.row : a.keys < b.keys;
  }
};

// Every MSU with at most `max_size` keys (1 <= max_size), sorted by (row, keys). The top-level
// items are searched in parallel (parallel_threads()); the result does not depend on the count.
// More than kSudaMaxKeys keys is a std::invalid_argument (callers check first).
std::vector<MinimalSampleUnique> minimal_sample_uniques(const SudaKeys& keys, int max_size);

// The same set by testing every subset of the keys against all its one-smaller subsets: the test
// oracle (2^keys group-bys; for few keys only).
std::vector<MinimalSampleUnique> minimal_sample_uniques_by_enumeration(const SudaKeys& keys,
                                                                       int max_size);

// SUDA scores (Elliot, Manning, Mayes, Gurd & Bane 2005, as sdcMicro's suda2 with
// original_scores = TRUE): an MSU of size s adds w(s) = ∏_{i=s}^{M−1} (K − i) to its record's
// score, K the number of keys and M the largest MSU size searched (sdcMicro: M = K, so
// w(s) = (K − s)!).
// DIS-SUDA scores: the file-level DIS probability that a sample unique is a population unique
// (Skinner & Elliot 2002), D = U·f / (U·f + P·(1 − f)) with U the records unique on all keys, P
// the records in classes of exactly two and f the sampling fraction, spread over the records in
// proportion to their SUDA score to the power Q = 1 + (8 − K)/20:
//   dis_i = 1 / (1 + (U/D − U) / (s_i^Q · Σ_j s_j^−Q))   for s_i > 0 (the sum over s_j > 0),
//   dis_i = 0                                            for s_i = 0.
// All in double precision.
struct SudaScores {
  std::vector<double> score;                // per record
  std::vector<double> dis_score;            // per record
  std::vector<std::uint32_t> msus;          // per record: its number of MSUs
  std::vector<std::uint64_t> msus_by_size;  // [s − 1]: MSUs of size s, s = 1..M
  std::size_t sample_uniques = 0;           // U
  std::size_t records_in_pairs = 0;         // P
  double dis = 0;                           // D (NaN when U = 0)
};
double suda_weight(int size, int keys, int max_size);
SudaScores suda_scores(const SudaKeys& keys, const std::vector<MinimalSampleUnique>& msus,
                       int max_size, double dis_fraction);

}  // namespace synthaudit::stats
