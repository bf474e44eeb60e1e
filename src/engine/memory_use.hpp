#pragma once
// The process's memory between the metrics of an evaluation: with SYNTHAUDIT_MEMORY_LOG set, one
// line on standard error after each metric (and on every rank of a partitioned run, after each
// metric request it served) with the resident set and its peak so far, from /proc/self/status,
// for finding where a rank's peak comes from (bench/RESULTS.md). Freed heap pages are returned to
// the system after each metric in any case (malloc_trim), so that what one metric freed does not
// stay resident while the next one runs.
#include <string_view>

namespace synthaudit {

// Returns the free heap pages to the system and, when SYNTHAUDIT_MEMORY_LOG is set, writes
// "memory: <what>: rss=N MiB peak=N MiB" to standard error.
void after_metric(std::string_view what);

}  // namespace synthaudit
