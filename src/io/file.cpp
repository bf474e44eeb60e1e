#include "io/file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace synthaudit {

namespace {

std::string too_large(const std::string& path, std::uint64_t max_bytes) {
  return path + ": larger than " + format_bytes(max_bytes) +
         " (limit input_bytes; raise it with --limit input_bytes=SIZE)";
}

}  // namespace

std::string read_input_file(const std::string& path, std::uint64_t max_bytes,
                            std::uint64_t pipe_wait_seconds) {
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
  std::string out;
  out.resize(static_cast<std::size_t>(regular ? want : std::min<std::uint64_t>(want, 1 << 20)));
  std::size_t have = 0;
  bool waited = false;
  while (true) {
    if (have == out.size()) {
      if (have >= want) break;
      out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(want, out.size() * 2)));
    }
    const ssize_t got = ::read(fd, out.data() + have, out.size() - have);
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
  out.resize(have);
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
