#include "core/threads.hpp"

#include <omp.h>

#include <algorithm>

namespace synthaudit {

namespace {
// The open scope of this thread: its count and the OpenMP active level it was opened at. A
// thread_local, so concurrent calls from different host threads never see each other's count.
thread_local int scope_threads = 0;  // 0: no scope open
thread_local int scope_active_level = 0;
}  // namespace

int parallel_threads() {
  const int level = omp_get_active_level();
  if (scope_threads > 0 && level == scope_active_level) return scope_threads;
  if (scope_threads > 0 || level > 0) return 1;
  return omp_get_max_threads();
}

ThreadCountScope::ThreadCountScope(int threads)
    : threads_(std::min(threads > 0 ? threads : omp_get_max_threads(), kMaxThreadsPerCall)),
      active_level_(omp_get_active_level()),
      previous_threads_(scope_threads),
      previous_active_level_(scope_active_level) {
  scope_threads = threads_;
  scope_active_level = active_level_;
}

ThreadCountScope::~ThreadCountScope() {
  scope_threads = previous_threads_;
  scope_active_level = previous_active_level_;
}

}  // namespace synthaudit
