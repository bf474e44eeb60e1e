#pragma once
// Progress of long steps inside a metric (a nearest-neighbour search over a million records runs
// for minutes): how much is done out of how much, and when it will end. A step counts its work
// through a ProgressTracker; the tracker hands (task, done, total, elapsed) to a ProgressSink,
// which the caller of the evaluation supplies (the command line's writes to stderr) and which is
// passed down, never global, so two evaluations in one process report separately.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>

namespace synthaudit {

// The work stopped because its caller asked (ProgressSink::stop_requested: Ctrl-C in a notebook).
// It passes through the engine to the caller, which knows why it asked.
class WorkStopped : public std::runtime_error {
 public:
  WorkStopped() : std::runtime_error("the evaluation was stopped by its caller") {}
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // Called at most every few tenths of a second per task, from any thread, never concurrently
  // for one tracker; `finished` once at the end.
  virtual void report(const std::string& task, std::size_t done, std::size_t total,
                      double elapsed_seconds, bool finished) = 0;
  // Whether the caller wants the work to stop: asked after each report (from any thread) and
  // between the steps of the engine. Once true, long loops skip their remaining work and the
  // evaluation ends with WorkStopped.
  virtual bool stop_requested() { return false; }
};

// Throws WorkStopped when `sink` asks to stop (between steps, outside parallel regions).
void stop_if_requested(ProgressSink* sink);

// Counts the work of one task. advance() may be called from any thread; it is cheap (an atomic
// add and a clock read at most every 1/1024 of the total).
class ProgressTracker {
 public:
  // A null sink makes every call a no-op.
  ProgressTracker(ProgressSink* sink, std::string task, std::size_t total);
  ~ProgressTracker();
  ProgressTracker(const ProgressTracker&) = delete;
  ProgressTracker& operator=(const ProgressTracker&) = delete;

  void advance(std::size_t amount);
  // True once the sink asked to stop: a parallel loop skips the rest of its iterations (an
  // exception must not leave a parallel region) and calls throw_if_stopped after it.
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  void throw_if_stopped() const {
    if (stopped()) throw WorkStopped();
  }

 private:
  void maybe_report(std::size_t done);

  ProgressSink* sink_;
  std::string task_;
  std::size_t total_;
  std::size_t step_;
  std::atomic<std::size_t> done_{0};
  std::atomic<std::size_t> next_check_;
  std::atomic<bool> stopped_{false};
  std::chrono::steady_clock::time_point started_;
  std::mutex report_mutex_;
};

// Writes progress to a stream (stderr): nothing for a task's first `quiet_seconds`, then on a
// terminal one line rewritten in place ("synthaudit: TASK 41% (20,500/50,000), about 1m 12s
// left") and elsewhere a plain line every `plain_interval_seconds`; a final line when a task that
// was shown ends.
class StreamProgress : public ProgressSink {
 public:
  StreamProgress(std::FILE* stream, bool terminal, double quiet_seconds = 10.0,
                 double plain_interval_seconds = 15.0);
  void report(const std::string& task, std::size_t done, std::size_t total, double elapsed_seconds,
              bool finished) override;

  // "41% (20500/50000), about 1m 12s left" — the text of one report.
  static std::string describe(std::size_t done, std::size_t total, double elapsed_seconds);

 private:
  std::FILE* stream_;
  bool terminal_;
  double quiet_seconds_, plain_interval_seconds_;
  std::mutex mutex_;
  std::string shown_task_;
  double last_line_ = -1.0;
};

}  // namespace synthaudit
