#pragma once
// The process's memory between the metrics of an evaluation: with SYNTHAUDIT_MEMORY_LOG set, one
// line on standard error after each metric (on every rank of a partitioned run, after each metric
// request it served) with the resident set and its peak so far, from /proc/self/status, for
// finding where a rank's peak comes from (bench/RESULTS.md). Nothing otherwise.
#include <string_view>

namespace synthaudit {

// When SYNTHAUDIT_MEMORY_LOG is set, writes "memory: <what>: rss=N MiB peak=N MiB" to standard
// error.
void log_memory(std::string_view what);

}  // namespace synthaudit
