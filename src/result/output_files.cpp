#include "result/output_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <system_error>
#include <utility>

#include "core/error.hpp"

namespace synthaudit {

namespace {

namespace fs = std::filesystem;

constexpr const char* kCurrentLink = "current";
constexpr const char* kSetPrefix = "set-";
constexpr const char* kLinkPrefix = "link-";
constexpr std::size_t kRandomLength = 12;
constexpr char kRandomAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_;
};

std::string error_text(int error) { return std::generic_category().message(error); }

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw InputError(path + ": " + what + " (" + error_text(error) + ")");
}

// Names nobody can predict: a link planted in advance under a temporary's name cannot be hit.
std::string random_name(const char* prefix) {
  unsigned char bytes[kRandomLength];
  std::size_t filled = 0;
  while (filled < sizeof bytes) {
    const ssize_t got = ::getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (got > 0) {
      filled += static_cast<std::size_t>(got);
    } else if (got < 0 && errno != EINTR) {
      std::random_device device;
      for (; filled < sizeof bytes; ++filled) bytes[filled] = static_cast<unsigned char>(device());
    }
  }
  std::string name = prefix;
  for (unsigned char b : bytes) name += kRandomAlphabet[b % (sizeof kRandomAlphabet - 1)];
  return name;
}

bool is_private_name(const std::string& name, const std::string& prefix) {
  if (name.size() != prefix.size() + kRandomLength || name.compare(0, prefix.size(), prefix) != 0)
    return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

std::string stable_link_target(const std::string& name) {
  return std::string(kOutputStateFolder) + "/" + kCurrentLink + "/" + name;
}

// The mode bits the process's umask removes, read without changing it (umask(2) would, for a
// moment, for every thread).
mode_t creation_mask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  return 022;
}

std::string describe(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

FileDescriptor open_folder(const std::string& dir) {
  FileDescriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) fail(dir, "cannot open output folder", errno);
  return fd;
}

FileDescriptor open_subfolder(int parent, const std::string& name) {
  return FileDescriptor(
      ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// DIR/.synthaudit, refused when it is a link, not a folder, or another user's (in a shared
// folder, someone else's would let them swap our results).
FileDescriptor open_state_folder(int dir_fd, const std::string& dir, bool create) {
  const std::string path = describe(dir, kOutputStateFolder);
  FileDescriptor state = open_subfolder(dir_fd, kOutputStateFolder);
  if (!state && errno == ENOENT) {
    if (!create) return state;
    if (::mkdirat(dir_fd, kOutputStateFolder, 0777) != 0 && errno != EEXIST)
      fail(path, "cannot create folder", errno);
    state = open_subfolder(dir_fd, kOutputStateFolder);
  }
  if (!state) {
    if (errno == ELOOP || errno == ENOTDIR)
      throw InputError(path +
                       ": not a folder synthaudit made (a link or a file); remove it or choose "
                       "another --out");
    fail(path, "cannot open folder", errno);
  }
  struct stat st {};
  if (::fstat(state.get(), &st) != 0) fail(path, "cannot read folder", errno);
  if (st.st_uid != ::geteuid())
    throw InputError(path + ": belongs to another user; remove it or choose another --out");
  return state;
}

enum class Shown { kNothing, kOurLink, kRegularFile, kOtherLink, kFolder, kOther };

Shown inspect(int dir_fd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Shown::kNothing;
  if (S_ISDIR(st.st_mode)) return Shown::kFolder;
  if (S_ISREG(st.st_mode)) return Shown::kRegularFile;
  if (!S_ISLNK(st.st_mode)) return Shown::kOther;
  char target[512];
  const ssize_t n = ::readlinkat(dir_fd, name.c_str(), target, sizeof target);
  if (n > 0 && std::string(target, static_cast<std::size_t>(n)) == stable_link_target(name))
    return Shown::kOurLink;
  return Shown::kOtherLink;
}

// The set `current` names, when it is a link of ours to a name of ours.
std::optional<std::string> current_set(int state_fd) {
  char target[64];
  const ssize_t n = ::readlinkat(state_fd, kCurrentLink, target, sizeof target);
  if (n <= 0) return std::nullopt;
  std::string name(target, static_cast<std::size_t>(n));
  if (!is_private_name(name, kSetPrefix)) return std::nullopt;
  return name;
}

std::string make_private_folder(int state_fd, const std::string& state_path) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = random_name(kSetPrefix);
    if (::mkdirat(state_fd, name.c_str(), 0700) == 0) return name;
    if (errno != EEXIST) fail(state_path, "cannot create a temporary folder", errno);
  }
  throw InputError(state_path + ": cannot create a temporary folder (names exhausted)");
}

void write_all(int fd, const std::string& content, const std::string& path) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write failed", errno);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail(path, "write failed", errno);
}

void write_new_file(int folder_fd, const std::string& name, const std::string& content,
                    const std::string& path) {
  FileDescriptor fd(::openat(folder_fd, name.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (!fd) fail(path, "cannot write", errno);
  write_all(fd.get(), content, path);
}

// A file of an earlier set carried into a new one: a hard link (sets are never modified), or a
// copy where the file system has no hard links.
void carry_file(int from_fd, const std::string& name, int to_fd, const std::string& path) {
  if (::linkat(from_fd, name.c_str(), to_fd, name.c_str(), 0) == 0) return;
  FileDescriptor in(::openat(from_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!in) fail(path, "cannot read", errno);
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot read", errno);
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
  }
  write_new_file(to_fd, name, content, path);
}

// Makes a link named `name` in `to_fd` pointing at `target`, by a rename over the old name: a
// reader sees the old entry or the new link, never no entry.
void replace_with_link(int state_fd, const std::string& target, int to_fd, const std::string& name,
                       const std::string& path) {
  std::string temporary;
  for (int attempt = 0;; ++attempt) {
    temporary = random_name(kLinkPrefix);
    if (::symlinkat(target.c_str(), state_fd, temporary.c_str()) == 0) break;
    if (errno != EEXIST || attempt >= 100) fail(path, "cannot create link", errno);
  }
  if (::renameat(state_fd, temporary.c_str(), to_fd, name.c_str()) != 0) {
    const int error = errno;
    ::unlinkat(state_fd, temporary.c_str(), 0);
    fail(path, "cannot publish", error);
  }
}

void seal_folder(int folder_fd, mode_t mode, const std::string& path) {
  if (::fchmod(folder_fd, mode) != 0) fail(path, "cannot set permissions", errno);
  if (::fsync(folder_fd) != 0) fail(path, "cannot sync", errno);
}

template <typename Visit>
void for_each_entry(int folder_fd, Visit visit) {
  const int copy = ::dup(folder_fd);
  if (copy < 0) return;
  DIR* listing = ::fdopendir(copy);
  if (listing == nullptr) {
    ::close(copy);
    return;
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(listing);
  for (const auto& name : names) visit(name);
}

bool owned_by_us(int folder_fd, const std::string& name, struct stat& st) {
  return ::fstatat(folder_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         st.st_uid == ::geteuid();
}

// Best effort, never following a link: a set's files, then the set.
void remove_set_folder(int state_fd, const std::string& name) {
  const FileDescriptor set = open_subfolder(state_fd, name);
  if (!set) return;
  for_each_entry(set.get(), [&](const std::string& file) {
    struct stat inner {};
    if (::fstatat(set.get(), file.c_str(), &inner, AT_SYMLINK_NOFOLLOW) == 0 &&
        !S_ISDIR(inner.st_mode))
      ::unlinkat(set.get(), file.c_str(), 0);
  });
  ::unlinkat(state_fd, name.c_str(), AT_REMOVEDIR);
}

// Best effort: what a killed run left behind. Only this protocol's names owned by this user;
// nothing is followed, a folder that holds a folder is left alone.
void remove_leftovers(int state_fd, const std::string& keep, int dir_fd,
                      const std::vector<std::string>& names) {
  for_each_entry(state_fd, [&](const std::string& name) {
    if (name == keep) return;
    struct stat st {};
    if (is_private_name(name, kLinkPrefix)) {
      if (owned_by_us(state_fd, name, st) && S_ISLNK(st.st_mode))
        ::unlinkat(state_fd, name.c_str(), 0);
      return;
    }
    if (is_private_name(name, kSetPrefix) && owned_by_us(state_fd, name, st) && S_ISDIR(st.st_mode))
      remove_set_folder(state_fd, name);
  });
  // Earlier versions wrote NAME.tmp.<pid> beside the results and left them when killed.
  for_each_entry(dir_fd, [&](const std::string& name) {
    for (const auto& result : names) {
      const std::string prefix = result + ".tmp.";
      if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
      if (!std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                       [](char c) { return c >= '0' && c <= '9'; }))
        continue;
      struct stat st {};
      if (owned_by_us(dir_fd, name, st) && S_ISREG(st.st_mode)) ::unlinkat(dir_fd, name.c_str(), 0);
    }
  });
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// A `current` that is not a link: a folder copied with its links followed (cp -rL, zip archives,
// cloud sync), or a file. A folder of this user is moved aside under a set name and returned, to
// be read as the earlier set and removed with the other leftovers; a file of this user is
// removed. Anything else is left for the publish to report.
std::optional<std::string> set_aside_copied_current(int state_fd, const std::string& state_path) {
  struct stat st {};
  if (::fstatat(state_fd, kCurrentLink, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISLNK(st.st_mode))
    return std::nullopt;
  const std::string path = describe(state_path, kCurrentLink);
  if (st.st_uid != ::geteuid())
    throw InputError(path + ": belongs to another user; remove it or choose another --out");
  if (!S_ISDIR(st.st_mode)) {
    if (::unlinkat(state_fd, kCurrentLink, 0) != 0) fail(path, "cannot remove", errno);
    return std::nullopt;
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = random_name(kSetPrefix);
    struct stat taken {};
    if (::fstatat(state_fd, name.c_str(), &taken, AT_SYMLINK_NOFOLLOW) == 0) continue;
    if (::renameat(state_fd, kCurrentLink, state_fd, name.c_str()) == 0) return name;
    fail(path, "cannot move aside", errno);
  }
  throw InputError(path + ": cannot move aside (names exhausted)");
}

// Whether the state folder's file system holds symbolic links (FAT, exFAT and some network shares
// do not): tried once with a link of a private name.
bool links_supported(int state_fd) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string probe = random_name(kLinkPrefix);
    if (::symlinkat(kCurrentLink, state_fd, probe.c_str()) == 0) {
      ::unlinkat(state_fd, probe.c_str(), 0);
      return true;
    }
    if (errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS) return false;
    if (errno != EEXIST) return true;  // another error: the publish itself reports it
  }
  return true;
}

bool folder_is_empty(int folder_fd) {
  bool empty = true;
  for_each_entry(folder_fd, [&](const std::string&) { empty = false; });
  return empty;
}

// True when DIR/.synthaudit is a folder: DIR holds results synthaudit wrote, perhaps copied with
// their links followed (then the names are plain files).
bool holds_state_folder(int dir_fd) {
  struct stat st {};
  return ::fstatat(dir_fd, kOutputStateFolder, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(st.st_mode);
}

// The layout of docs/cli.md: names that are not yet links of ours (the first run here, results an
// older version wrote as plain files, or a copy made with links followed) become links one by
// one, each showing what it showed, because `current` first points at a set made of exactly those
// files; then one rename of `current` publishes `fresh`.
template <typename WriteSet, typename CarryShown>
void publish_by_link(const std::string& dir, int dir_fd, const std::string& state_path,
                     int state_fd, const std::vector<std::string>& names, const std::string& fresh,
                     WriteSet& write_set, CarryShown& carry_shown) {
  const bool all_linked = std::all_of(names.begin(), names.end(), [&](const std::string& name) {
    return inspect(dir_fd, name) == Shown::kOurLink;
  });
  if (!all_linked) {
    const std::string shown = write_set([&](int set_fd) {
      for (const auto& name : names) carry_shown(name, set_fd);
    });
    replace_with_link(state_fd, shown, state_fd, kCurrentLink, state_path);
    ::fsync(state_fd);
    for (const auto& name : names)
      if (inspect(dir_fd, name) != Shown::kOurLink)
        replace_with_link(state_fd, stable_link_target(name), dir_fd, name, describe(dir, name));
    ::fsync(dir_fd);
  }
  replace_with_link(state_fd, fresh, state_fd, kCurrentLink, state_path);
  ::fsync(state_fd);
}

// Where the file system holds no links: each name is replaced by one rename, so each file is
// always whole, but a run killed between two renames shows files of two runs (docs/cli.md).
void publish_by_rename(const std::string& dir, int dir_fd, const std::string& state_path,
                       int state_fd, const std::vector<std::string>& names,
                       const std::string& fresh) {
  const FileDescriptor fresh_fd = open_subfolder(state_fd, fresh);
  if (!fresh_fd) fail(describe(state_path, fresh), "cannot open", errno);
  for (const auto& name : names)
    if (::renameat(fresh_fd.get(), name.c_str(), dir_fd, name.c_str()) != 0)
      fail(describe(dir, name), "cannot publish", errno);
  ::fsync(dir_fd);
  // A name that was already a hard link to the same file stays behind: rename(2) leaves both.
  remove_set_folder(state_fd, fresh);
}

// publish_output_set once DIR and its state folder are open.
void publish_into(const std::string& dir, int dir_fd, const std::string& state_path, int state_fd,
                  const std::vector<OutputFile>& files) {
  // One publisher at a time per folder; the lock goes with the process, even when killed.
  while (::flock(state_fd, LOCK_EX) != 0)
    if (errno != EINTR) fail(state_path, "cannot lock", errno);

  std::vector<std::string> names;
  for (const auto& file : files) {
    names.push_back(file.name);
    if (inspect(dir_fd, file.name) == Shown::kFolder)
      throw InputError(describe(dir, file.name) +
                       ": is a folder; synthaudit writes a file of that name");
  }
  const mode_t folder_mode = 0777 & ~creation_mask();
  std::optional<std::string> previous = set_aside_copied_current(state_fd, state_path);
  if (!previous) previous = current_set(state_fd);
  FileDescriptor previous_fd;
  if (previous) previous_fd = open_subfolder(state_fd, *previous);

  // What `name` shows now, carried into the set `to_fd`; false when it shows nothing we can keep.
  auto carry_shown = [&](const std::string& name, int to_fd) {
    const std::string path = describe(dir, name);
    switch (inspect(dir_fd, name)) {
      case Shown::kOurLink: {
        struct stat st {};
        if (!previous_fd ||
            ::fstatat(previous_fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
          return false;
        carry_file(previous_fd.get(), name, to_fd, path);
        return true;
      }
      case Shown::kRegularFile:
        carry_file(dir_fd, name, to_fd, path);
        return true;
      default:
        return false;
    }
  };
  // Writes a set into a fresh private folder and returns its name; the folder is removed again
  // when writing fails.
  auto write_set = [&](const std::function<void(int)>& fill) {
    const std::string name = make_private_folder(state_fd, state_path);
    try {
      const FileDescriptor set_fd = open_subfolder(state_fd, name);
      if (!set_fd) fail(describe(state_path, name), "cannot open", errno);
      fill(set_fd.get());
      seal_folder(set_fd.get(), folder_mode, describe(state_path, name));
    } catch (...) {
      remove_set_folder(state_fd, name);
      throw;
    }
    return name;
  };

  const std::string fresh = write_set([&](int set_fd) {
    for (const auto& file : files) {
      if (file.content) {
        write_new_file(set_fd, file.name, *file.content, describe(dir, file.name));
      } else if (!carry_shown(file.name, set_fd)) {
        throw InputError(describe(dir, file.name) + ": no published file of that name to keep");
      }
    }
  });

  // Once `current` names the new set it is published; before, a failure removes it.
  const bool links = links_supported(state_fd);
  try {
    if (links)
      publish_by_link(dir, dir_fd, state_path, state_fd, names, fresh, write_set, carry_shown);
    else
      publish_by_rename(dir, dir_fd, state_path, state_fd, names, fresh);
  } catch (...) {
    if (current_set(state_fd) != fresh) remove_set_folder(state_fd, fresh);
    throw;
  }
  remove_leftovers(state_fd, links ? fresh : "", dir_fd, names);
}

}  // namespace

void check_output_folder(const std::string& dir, const std::vector<std::string>& names,
                         const std::vector<std::string>& inputs) {
  struct stat folder {};
  if (::stat(dir.c_str(), &folder) != 0) {
    if (errno == ENOENT) return;
    fail(dir, "cannot use as output folder", errno);
  }
  for (const auto& input : inputs) {
    struct stat st {};
    if (!input.empty() && ::stat(input.c_str(), &st) == 0 && same_file(st, folder))
      throw InputError(dir + ": --out is the input file " + input + "; give an output folder");
  }
  if (!S_ISDIR(folder.st_mode))
    throw InputError(dir + ": cannot create output folder: it exists and is not a folder");
  for (const auto& input : inputs) {
    if (input.empty()) continue;
    std::error_code ec;
    const fs::path given = fs::path(input);
    std::vector<fs::path> parents = {given.has_parent_path() ? given.parent_path() : fs::path(".")};
    const fs::path resolved = fs::canonical(given, ec);
    if (!ec) parents.push_back(resolved.parent_path());
    for (const auto& parent : parents) {
      struct stat st {};
      if (::stat(parent.c_str(), &st) == 0 && same_file(st, folder))
        throw InputError(dir + ": the output folder holds the input file " + input +
                         "; write the results to another folder");
    }
  }
  const FileDescriptor dir_fd = open_folder(dir);
  for (const auto& name : names) {
    if (inspect(dir_fd.get(), name) == Shown::kFolder)
      throw InputError(describe(dir, name) +
                       ": is a folder; synthaudit writes a file of that name");
    struct stat shown {};
    if (::fstatat(dir_fd.get(), name.c_str(), &shown, 0) != 0) continue;
    for (const auto& input : inputs) {
      struct stat st {};
      if (!input.empty() && ::stat(input.c_str(), &st) == 0 && same_file(st, shown))
        throw InputError(dir + ": the output folder holds the input file " + input + " (as " +
                         name + "); write the results to another folder");
    }
  }
  struct stat state {};
  if (::fstatat(dir_fd.get(), kOutputStateFolder, &state, AT_SYMLINK_NOFOLLOW) == 0)
    (void)open_state_folder(dir_fd.get(), dir, false);
}

bool is_published_output_set(const std::string& dir, const std::vector<std::string>& names) {
  const FileDescriptor dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd) return false;
  const bool ours = holds_state_folder(dir_fd.get());
  return std::all_of(names.begin(), names.end(), [&](const std::string& name) {
    const Shown shown = inspect(dir_fd.get(), name);
    return shown == Shown::kOurLink || (ours && shown == Shown::kRegularFile);
  });
}

void publish_output_set(const std::string& dir, const std::vector<OutputFile>& files) {
  // The folders this run creates, innermost first.
  std::vector<fs::path> created;
  fs::path innermost = fs::path(dir).lexically_normal();
  if (!innermost.has_filename()) innermost = innermost.parent_path();  // "out/"
  for (fs::path folder = innermost; !folder.empty(); folder = folder.parent_path()) {
    struct stat st {};
    if (::lstat(folder.c_str(), &st) == 0 || errno != ENOENT) break;
    created.push_back(folder);
    if (folder == folder.parent_path()) break;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir + ": cannot create output folder: " + ec.message());
  const FileDescriptor dir_fd = open_folder(dir);
  const std::string state_path = describe(dir, kOutputStateFolder);
  const bool state_existed = holds_state_folder(dir_fd.get());
  const FileDescriptor state = open_state_folder(dir_fd.get(), dir, true);
  // A run that fails before its publish (a full disk, a name that cannot be kept) leaves the
  // folder as it found it: the state folder and DIR are removed again when this run made them
  // and they hold nothing.
  auto undo_creation = [&] {
    if (!state_existed && folder_is_empty(state.get()))
      ::unlinkat(dir_fd.get(), kOutputStateFolder, AT_REMOVEDIR);
    for (const auto& folder : created)
      if (::rmdir(folder.c_str()) != 0) break;
  };
  try {
    publish_into(dir, dir_fd.get(), state_path, state.get(), files);
  } catch (...) {
    undo_creation();
    throw;
  }
}

void write_file_atomic(const std::string& path, const std::string& content) {
  const fs::path target(path);
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw InputError(path + ": cannot write (a folder, not a file name)");
  const std::string folder = target.has_parent_path() ? target.parent_path().string() : ".";
  const FileDescriptor folder_fd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!folder_fd) throw InputError(path + ": cannot write (is the output folder writable?)");
  std::string temporary;
  FileDescriptor out;
  for (int attempt = 0; attempt < 100 && !out; ++attempt) {
    temporary = "." + name + "." + random_name("tmp-");
    out = FileDescriptor(::openat(folder_fd.get(), temporary.c_str(),
                                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
    if (!out && errno != EEXIST)
      throw InputError(path + ": cannot write (is the output folder writable?)");
  }
  if (!out) throw InputError(path + ": cannot write (no free temporary name)");
  try {
    write_all(out.get(), content, path);
  } catch (const InputError&) {
    ::unlinkat(folder_fd.get(), temporary.c_str(), 0);
    throw InputError(path + ": write failed (disk full?)");
  }
  out = FileDescriptor();
  if (::renameat(folder_fd.get(), temporary.c_str(), folder_fd.get(), name.c_str()) != 0) {
    const int error = errno;
    ::unlinkat(folder_fd.get(), temporary.c_str(), 0);
    throw InputError(path + ": cannot rename into place: " + error_text(error));
  }
}

}  // namespace synthaudit
