#pragma once
// A private folder for the files a fuzz target writes (inputs it hands to the file readers),
// removed when the fuzzer exits. Shared by the targets that go through files.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace synthaudit::fuzz {

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// $TMPDIR/synthaudit_<name>_<pid>, created on first use; `fill` writes its fixed files once.
// The path is never destroyed: the exit handler that removes the folder runs after static
// destructors.
template <typename Fill>
const std::string& scratch_folder(const char* name, Fill fill) {
  static const std::string* const path = [&] {
    const char* tmp = std::getenv("TMPDIR");
    auto* dir = new std::string(std::string(tmp ? tmp : "/tmp") + "/synthaudit_" + name + "_" +
                                std::to_string(::getpid()));
    std::filesystem::create_directories(*dir);
    fill(*dir);
    static const std::string* removed = dir;
    std::atexit([] { std::filesystem::remove_all(*removed); });
    return dir;
  }();
  return *path;
}

inline const std::string& scratch_folder(const char* name) {
  return scratch_folder(name, [](const std::string&) {});
}

}  // namespace synthaudit::fuzz
