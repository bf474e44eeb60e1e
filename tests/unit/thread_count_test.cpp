// The per-call thread count (core/threads.hpp) that every parallel region asks for.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <thread>

#include "core/threads.hpp"

using namespace synthaudit;

namespace {
// Threads a parallel region opened here actually gets.
int team_size() {
  int size = 0;
#pragma omp parallel num_threads(parallel_threads())
  {
#pragma omp single
    size = omp_get_num_threads();
  }
  return size;
}
}  // namespace

TEST(ThreadCount, ScopesNestAndRestoreWithoutTouchingOpenMpSettings) {
  omp_set_num_threads(3);
  EXPECT_EQ(parallel_threads(), 3);  // no scope: the calling thread's setting
  {
    const ThreadCountScope outer(2);
    EXPECT_EQ(parallel_threads(), 2);
    EXPECT_EQ(team_size(), 2);
    {
      const ThreadCountScope inner(1);
      EXPECT_EQ(team_size(), 1);
    }
    EXPECT_EQ(parallel_threads(), 2);
    EXPECT_EQ(omp_get_max_threads(), 3);
  }
  {
    const ThreadCountScope all(0);
    EXPECT_EQ(all.threads(), 3);
  }
  EXPECT_EQ(parallel_threads(), 3);
  omp_set_num_threads(omp_get_num_procs());
}

TEST(ThreadCount, RegionsInsideAParallelRegionRunOnOneThread) {
  const ThreadCountScope scope(2);
  int inner[2] = {0, 0};
#pragma omp parallel num_threads(parallel_threads())
  inner[omp_get_thread_num()] = parallel_threads();
  EXPECT_EQ(inner[0], 1);
  EXPECT_EQ(inner[1], 1);
}

TEST(ThreadCount, EachHostThreadHasItsOwnCount) {
  int seen[2] = {0, 0};
  std::thread a([&] {
    const ThreadCountScope scope(1);
    for (int i = 0; i < 50; ++i) seen[0] = std::max(seen[0], team_size());
  });
  std::thread b([&] {
    const ThreadCountScope scope(2);
    for (int i = 0; i < 50; ++i) seen[1] = std::max(seen[1], team_size());
  });
  a.join();
  b.join();
  EXPECT_EQ(seen[0], 1);
  EXPECT_EQ(seen[1], 2);
}
