// SUDA2 speed: minimal sample uniques and SUDA / DIS-SUDA scores of n records on 8 census-like
// keys (region 16, sex 2, age 80, education 6, marital status 5, occupation 12, household size 8,
// ethnic group 5; education, marital status and occupation depend on age and on each other), at
// the given thread count, then again on one thread to check the result is the same.
// Usage: suda2_bench [rows=1000000] [threads=2]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/random.hpp"
#include "core/threads.hpp"
#include "stats/suda2.hpp"

using namespace synthaudit;
using namespace synthaudit::stats;

namespace {

SudaKeys census_keys(std::size_t rows, std::uint64_t seed) {
  const std::uint32_t levels[] = {16, 2, 80, 6, 5, 12, 8, 5};
  SudaKeys keys;
  keys.rows = rows;
  keys.levels.assign(std::begin(levels), std::end(levels));
  keys.codes.assign(8, std::vector<std::uint32_t>(rows));
  Rng rng(seed, 3);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto age = static_cast<std::uint32_t>(rng.below(80));
    const auto young = age < 20;
    keys.codes[0][r] = static_cast<std::uint32_t>(rng.below(16));
    keys.codes[1][r] = static_cast<std::uint32_t>(rng.below(2));
    keys.codes[2][r] = age;
    keys.codes[3][r] =
        young ? static_cast<std::uint32_t>(rng.below(2)) : static_cast<std::uint32_t>(rng.below(6));
    keys.codes[4][r] = young ? 0 : static_cast<std::uint32_t>(rng.below(5));
    keys.codes[5][r] = rng.uniform() < 0.6 ? (keys.codes[3][r] * 2) % 12
                                           : static_cast<std::uint32_t>(rng.below(12));
    keys.codes[6][r] = static_cast<std::uint32_t>(rng.below(rng.uniform() < 0.7 ? 4 : 8));
    keys.codes[7][r] = rng.uniform() < 0.8 ? 0 : static_cast<std::uint32_t>(rng.below(5));
  }
  return keys;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const SudaKeys keys = census_keys(rows, 1);
  std::vector<MinimalSampleUnique> msus;
  SudaScores scores;
  {
    const ThreadCountScope scope(threads);
    const auto start = std::chrono::steady_clock::now();
    msus = minimal_sample_uniques(keys, 8);
    const double search = seconds_since(start);
    scores = suda_scores(keys, msus, 8, 0.01);
    std::printf(
        "%zu records x 8 keys, %d threads: MSU search %.2f s, scores %.2f s, total %.2f s\n", rows,
        threads, search, seconds_since(start) - search, seconds_since(start));
  }
  std::printf("MSUs %zu; by size:", msus.size());
  for (const auto c : scores.msus_by_size) std::printf(" %llu", static_cast<unsigned long long>(c));
  std::size_t with_msu = 0;
  for (const auto m : scores.msus) with_msu += m > 0;
  std::printf("\nrecords with an MSU %zu, sample uniques %zu, records in pairs %zu\n", with_msu,
              scores.sample_uniques, scores.records_in_pairs);
  if (threads != 1) {
    const ThreadCountScope scope(1);
    const auto start = std::chrono::steady_clock::now();
    const bool same = minimal_sample_uniques(keys, 8) == msus;
    std::printf("1 thread: %.2f s, same MSUs: %s\n", seconds_since(start), same ? "yes" : "NO");
    if (!same) return 1;
  }
  return 0;
}
