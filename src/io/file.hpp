#pragma once
// Reading one input file whole, safely: the one place that opens what a user names (CSV files,
// the spec, a policy, SDV metadata, a results document for `report`).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace synthaudit {

// The bytes of `path`, at most `max_bytes` (docs/limits.md, input_bytes). A regular file is read
// with read() and its size and modification time are checked again afterwards: a file that
// shrinks, grows or changes meanwhile is an InputError (never a SIGBUS, as a memory-mapped file
// truncated under the reader would be). A pipe or FIFO is read to its end within the bound; a
// named FIFO that no process has opened for writing is waited on for pipe_wait_seconds, then an
// InputError (instead of blocking for ever in open()). Folders, devices
// (/dev/zero) and sockets are refused. Every error is an InputError naming the path.
std::string read_input_file(const std::string& path, std::uint64_t max_bytes,
                            std::uint64_t pipe_wait_seconds = 10);

// Parses JSON text read from `path`, refusing nesting deeper than `max_depth` (docs/limits.md,
// json_depth) before it is built, so a hostile document cannot exhaust the stack of the code that
// walks it. Throws InputError naming the path and the byte of a syntax error.
nlohmann::json parse_json_bounded(const std::string& text, const std::string& path,
                                  std::uint64_t max_depth);

}  // namespace synthaudit
