#include "core/progress.hpp"

#include <algorithm>
#include <cmath>

namespace synthaudit {

ProgressTracker::ProgressTracker(ProgressSink* sink, std::string task, std::size_t total)
    : sink_(sink),
      task_(std::move(task)),
      total_(total),
      step_(std::max<std::size_t>(1, total / 1024)),
      next_check_(step_),
      started_(std::chrono::steady_clock::now()) {}

ProgressTracker::~ProgressTracker() {
  if (sink_ == nullptr) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const std::lock_guard<std::mutex> lock(report_mutex_);
  sink_->report(task_, done_.load(), total_, elapsed, true);
}

void ProgressTracker::advance(std::size_t amount) {
  if (sink_ == nullptr) return;
  const std::size_t done = done_.fetch_add(amount) + amount;
  std::size_t next = next_check_.load();
  // One caller per step reads the clock; the others go on.
  if (done >= next && next_check_.compare_exchange_strong(next, done + step_)) maybe_report(done);
}

void ProgressTracker::maybe_report(std::size_t done) {
  const std::unique_lock<std::mutex> lock(report_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  sink_->report(task_, std::min(done, total_), total_, elapsed, false);
  if (sink_->stop_requested()) stopped_.store(true, std::memory_order_relaxed);
}

void stop_if_requested(ProgressSink* sink) {
  if (sink != nullptr && sink->stop_requested()) throw WorkStopped();
}

StreamProgress::StreamProgress(std::FILE* stream, bool terminal, double quiet_seconds,
                               double plain_interval_seconds)
    : stream_(stream),
      terminal_(terminal),
      quiet_seconds_(quiet_seconds),
      plain_interval_seconds_(plain_interval_seconds) {}

std::string StreamProgress::describe(std::size_t done, std::size_t total, double elapsed_seconds) {
  const double share = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  std::string text = std::to_string(static_cast<int>(std::floor(share * 100.0))) + "% (" +
                     std::to_string(done) + "/" + std::to_string(total) + ")";
  if (done > 0 && done < total) {
    const double left = elapsed_seconds * (1.0 - share) / share;
    const long seconds = std::lround(left);
    text += ", about ";
    if (seconds >= 3600) text += std::to_string(seconds / 3600) + "h ";
    if (seconds >= 60) text += std::to_string(seconds / 60 % 60) + "m ";
    text += std::to_string(seconds % 60) + "s left";
  }
  return text;
}

void StreamProgress::report(const std::string& task, std::size_t done, std::size_t total,
                            double elapsed_seconds, bool finished) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (finished) {
    if (shown_task_ != task) return;  // short tasks stay silent
    std::fprintf(stream_, "%ssynthaudit: %s done in %.0f s\n", terminal_ ? "\r\x1b[K" : "",
                 task.c_str(), elapsed_seconds);
    std::fflush(stream_);
    shown_task_.clear();
    last_line_ = -1.0;
    return;
  }
  if (elapsed_seconds < quiet_seconds_) return;
  if (shown_task_ != task) {
    shown_task_ = task;
    last_line_ = -1.0;
  }
  const std::string text = "synthaudit: " + task + " " + describe(done, total, elapsed_seconds);
  if (terminal_) {
    std::fprintf(stream_, "\r\x1b[K%s", text.c_str());
  } else {
    if (last_line_ >= 0.0 && elapsed_seconds - last_line_ < plain_interval_seconds_) return;
    last_line_ = elapsed_seconds;
    std::fprintf(stream_, "%s\n", text.c_str());
  }
  std::fflush(stream_);
}

}  // namespace synthaudit
