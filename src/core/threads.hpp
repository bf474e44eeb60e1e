#pragma once
// The thread count of one evaluation, carried per call instead of through OpenMP's process
// setting. omp_set_num_threads would change the calling thread's setting for everything it runs
// afterwards (a host program's own parallel code included), and two host threads evaluating at
// once with different counts could not each have their own. So a call opens a ThreadCountScope on
// the thread that makes it, and every parallel region in synthaudit asks parallel_threads()
// through its num_threads clause.
namespace synthaudit {

// The most threads one call runs on, whatever it asks: far above the hardware OpenMP fails to
// create its threads (a crash, not an error it reports). The command line caps to the hardware
// with a warning first (spec.hpp, cap_threads); tests may still ask for more threads than cores.
inline constexpr int kMaxThreadsPerCall = 1024;

// Threads for a parallel region started on this thread now:
// - the innermost open ThreadCountScope's count, at the nesting level where it was opened;
// - 1 inside a parallel region (synthaudit's own or the host's) entered after that, or on a
//   worker thread of one: the call's threads are already busy at the outer level;
// - otherwise omp_get_max_threads() (code run outside any scope, e.g. a benchmark).
int parallel_threads();

// Sets this thread's count for its lifetime and restores the previous one after. Scopes nest.
class ThreadCountScope {
 public:
  // threads > 0: that many; 0: omp_get_max_threads() of the calling thread at this point (which
  // follows OMP_NUM_THREADS and the host's own setting). Either is capped to kMaxThreadsPerCall.
  explicit ThreadCountScope(int threads);
  ~ThreadCountScope();
  ThreadCountScope(const ThreadCountScope&) = delete;
  ThreadCountScope& operator=(const ThreadCountScope&) = delete;

  int threads() const { return threads_; }

 private:
  int threads_;
  int active_level_;
  int previous_threads_;
  int previous_active_level_;
};

}  // namespace synthaudit
