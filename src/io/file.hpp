#pragma once
// Reading one input file whole, safely: the one place that opens what a user names (CSV files,
// the spec, a policy, SDV metadata, a results document for `report`).
#include <cstdint>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

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

// Bytes owned in one heap block that read() fills directly: unlike std::string, the block is not
// zero-filled first (for a 150 MB file that is a pass over all of it before the read).
class ByteBuffer {
 public:
  ByteBuffer() = default;
  const char* data() const { return bytes_.get(); }
  std::size_t size() const { return size_; }
  std::string_view view() const { return {bytes_.get(), size_}; }

 private:
  friend struct ByteBufferWriter;
  std::unique_ptr<char[]> bytes_;
  std::size_t size_ = 0;
};

// A file read as read_input_file reads it (same bounds, checks and errors), and the SHA-256 of
// its bytes, computed on a second thread: a regular file is read in blocks and the hash follows
// the reader block by block, so that reading and hashing take the time of the slower of the two
// rather than their sum; a pipe is hashed once read (its buffer grows as it is read). Wait for
// `sha256` before `bytes` is destroyed: the hashing thread reads them (a std::async future, so
// destroying it waits too).
struct HashedInput {
  ByteBuffer bytes;
  std::future<std::string> sha256;  // lowercase hex
};
HashedInput read_input_file_hashed(const std::string& path, std::uint64_t max_bytes,
                                   std::uint64_t pipe_wait_seconds = 10);

// SHA-256 in lowercase hex of a digest's raw bytes.
std::string hex_digest(const unsigned char* digest, unsigned int length);

// Parses JSON text read from `path`, refusing nesting deeper than `max_depth` (docs/limits.md,
// json_depth) before it is built, so a hostile document cannot exhaust the stack of the code that
// walks it. Throws InputError naming the path and the byte of a syntax error.
nlohmann::json parse_json_bounded(const std::string& text, const std::string& path,
                                  std::uint64_t max_depth);

}  // namespace synthaudit
