#include "engine/memory_use.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace synthaudit {

namespace {

// A line "Key:   N kB" of /proc/self/status in MiB; -1 where there is none (not Linux).
long status_mib(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(key + ":", 0) == 0)
      return std::strtol(line.c_str() + key.size() + 1, nullptr, 10) / 1024;
  return -1;
}

}  // namespace

void log_memory(std::string_view what) {
  if (std::getenv("SYNTHAUDIT_MEMORY_LOG") == nullptr) return;
  std::fprintf(stderr, "memory: %.*s: rss=%ld MiB peak=%ld MiB\n", static_cast<int>(what.size()),
               what.data(), status_mib("VmRSS"), status_mib("VmHWM"));
}

}  // namespace synthaudit
