#include "io/file.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace synthaudit {

namespace {

std::string too_large(const std::string& path, std::uint64_t max_bytes) {
  return path + ": larger than " + format_bytes(max_bytes) +
         " (limit input_bytes; raise it with --limit input_bytes=SIZE)";
}

}  // namespace

// Fills a ByteBuffer; the one class allowed to reach into it.
struct ByteBufferWriter {
  ByteBuffer& buffer;
  std::size_t capacity = 0;

  char* data() { return buffer.bytes_.get(); }
  // A new block of `bytes`, keeping the first `keep` bytes of the old one.
  void reallocate(std::size_t bytes, std::size_t keep) {
    std::unique_ptr<char[]> block(new char[bytes]);
    if (keep > 0) std::memcpy(block.get(), buffer.bytes_.get(), keep);
    buffer.bytes_ = std::move(block);
    capacity = bytes;
  }
  void set_size(std::size_t bytes) { buffer.size_ = bytes; }
};

namespace {

// How far the reader has got, for the thread that hashes behind it.
class ReadProgress {
 public:
  void publish(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      bytes_ = bytes;
    }
    changed_.notify_one();
  }
  void finish(bool complete) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ended_ = true;
      complete_ = complete;
    }
    changed_.notify_one();
  }
  struct State {
    std::size_t bytes;
    bool ended, complete;
  };
  // Waits until more than `have` bytes are published or reading ended.
  State wait_beyond(std::size_t have) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return bytes_ > have || ended_; });
    return {bytes_, ended_, complete_};
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t bytes_ = 0;
  bool ended_ = false, complete_ = false;
};

// Reading a large regular file in blocks of this size lets the hash follow the reader while the
// block is still in the shared cache.
constexpr std::size_t kReadBlock = std::size_t{4} << 20;

// The shared reader of read_input_file and read_input_file_hashed. `on_buffer`, when given, is
// called once a regular file's buffer is allocated at its final address, and `progress` is then
// told of every block read into it.
void read_into(const std::string& path, std::uint64_t max_bytes, std::uint64_t pipe_wait_seconds,
               ByteBufferWriter& out, const std::function<void(const char*)>& on_buffer,
               ReadProgress* progress) {
  // O_NONBLOCK: opening a FIFO that no process writes would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path + ": cannot open file (" + std::strerror(errno) + ")");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw InputError(path + ": cannot read file (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a folder, not a file");
  const bool regular = S_ISREG(st.st_mode);
  if (!regular && !S_ISFIFO(st.st_mode))
    throw InputError(path + ": is a device or socket, not a file (give a regular file or a pipe)");
  // Reads block again: a pipe's writer may be slower than the reader.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  const auto expected = static_cast<std::uint64_t>(regular ? st.st_size : 0);
  if (regular && expected > max_bytes) throw InputError(too_large(path, max_bytes));
  // A regular file is read to one byte past its size, to see whether it grew; a pipe to one byte
  // past the bound.
  const std::uint64_t want = (regular ? expected : max_bytes) + 1;
  out.reallocate(static_cast<std::size_t>(regular ? want : std::min<std::uint64_t>(want, 1 << 20)),
                 0);
  if (regular && on_buffer) on_buffer(out.data());
  std::size_t have = 0;
  bool waited = false;
  while (true) {
    if (have == out.capacity) {
      if (have >= want) break;
      out.reallocate(static_cast<std::size_t>(std::min<std::uint64_t>(want, out.capacity * 2)),
                     have);
    }
    const std::size_t ask =
        regular ? std::min(kReadBlock, out.capacity - have) : out.capacity - have;
#ifdef MADV_POPULATE_WRITE
    // Mapping a block's pages in one call costs less than read() faulting them in one by one
    // (about 15 % of reading a 150 MB file); where the kernel cannot, read() faults them in.
    if (regular) {
      const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
      const auto from =
          (reinterpret_cast<std::uintptr_t>(out.data() + have) + page - 1) / page * page;
      const auto to = reinterpret_cast<std::uintptr_t>(out.data() + have + ask) / page * page;
      if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
    }
#endif
    const ssize_t got = ::read(fd, out.data() + have, ask);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": cannot read file (" + std::strerror(errno) + ")");
    }
    if (got == 0 && !regular && have == 0 && !waited) {
      // End of file at once: no process has the FIFO open for writing (yet). Wait for one to
      // write or to open and close it, as long as pipe_wait_seconds.
      waited = true;
      pollfd wait{fd, POLLIN, 0};
      const auto ms = static_cast<int>(std::min<std::uint64_t>(pipe_wait_seconds, 86400) * 1000);
      int ready = 0;
      do {
        ready = ::poll(&wait, 1, ms);
      } while (ready < 0 && errno == EINTR);
      if (ready == 0)
        throw InputError(path + ": no process opened this FIFO for writing within " +
                         std::to_string(pipe_wait_seconds) +
                         " s (limit pipe_wait_seconds; raise it with --limit pipe_wait_seconds=N)");
      continue;
    }
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
    if (regular && progress) progress->publish(have);
  }
  if (!regular && have > max_bytes) throw InputError(too_large(path, max_bytes));
  if (regular) {
    struct stat after {};
    const bool changed = ::fstat(fd, &after) != 0 || after.st_size != st.st_size ||
                         after.st_mtim.tv_sec != st.st_mtim.tv_sec ||
                         after.st_mtim.tv_nsec != st.st_mtim.tv_nsec;
    if (have != expected || changed)
      throw InputError(path + ": the file " +
                       (have < expected   ? "shrank"
                        : have > expected ? "grew"
                                          : "changed") +
                       " while it was being read; read a copy that nothing else writes");
  }
  out.set_size(have);
}

}  // namespace

std::string hex_digest(const unsigned char* digest, unsigned int length) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

std::string read_input_file(const std::string& path, std::uint64_t max_bytes,
                            std::uint64_t pipe_wait_seconds) {
  ByteBuffer bytes;
  ByteBufferWriter writer{bytes};
  read_into(path, max_bytes, pipe_wait_seconds, writer, {}, nullptr);
  return std::string(bytes.view());
}

HashedInput read_input_file_hashed(const std::string& path, std::uint64_t max_bytes,
                                   std::uint64_t pipe_wait_seconds) {
  HashedInput out;
  ByteBufferWriter writer{out.bytes};
  auto progress = std::make_shared<ReadProgress>();
  auto hash_behind = [progress](const char* data) {
    EVP_MD_CTX* context = EVP_MD_CTX_new();
    if (context == nullptr) throw std::bad_alloc();
    EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
    std::size_t hashed = 0;
    while (true) {
      const ReadProgress::State state = progress->wait_beyond(hashed);
      if (state.ended && !state.complete) break;
      if (state.bytes > hashed) {
        EVP_DigestUpdate(context, data + hashed, state.bytes - hashed);
        hashed = state.bytes;
      }
      if (state.ended) break;
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context, digest, &length);
    EVP_MD_CTX_free(context);
    return hex_digest(digest, length);
  };
  bool hashing = false;
  try {
    read_into(
        path, max_bytes, pipe_wait_seconds, writer,
        [&](const char* data) {
          out.sha256 = std::async(std::launch::async, hash_behind, data);
          hashing = true;
        },
        progress.get());
  } catch (...) {
    if (hashing) {
      progress->finish(false);
      out.sha256.wait();
    }
    throw;
  }
  if (hashing) {
    progress->publish(out.bytes.size());
    progress->finish(true);
  } else {
    // A pipe: its buffer moved while it grew, so it is hashed once complete.
    progress->publish(out.bytes.size());
    progress->finish(true);
    out.sha256 = std::async(std::launch::async, hash_behind, out.bytes.data());
  }
  return out;
}

nlohmann::json parse_json_bounded(const std::string& text, const std::string& path,
                                  std::uint64_t max_depth) {
  const auto limit = static_cast<int>(std::min<std::uint64_t>(max_depth, 1u << 30));
  try {
    return nlohmann::json::parse(
        text, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
          if ((event == nlohmann::json::parse_event_t::object_start ||
               event == nlohmann::json::parse_event_t::array_start) &&
              depth >= limit)
            throw InputError(path + ": JSON nested deeper than " + std::to_string(limit) +
                             " levels (limit json_depth; raise it with --limit json_depth=N)");
          return true;
        });
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
}

}  // namespace synthaudit
