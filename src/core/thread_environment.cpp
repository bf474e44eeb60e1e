#include "core/thread_environment.hpp"

#include <omp.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <optional>

#include "core/limits.hpp"

namespace synthaudit {

namespace {

// Set in the restarted process: the OMP_STACKSIZE value that was dropped.
constexpr const char* kDroppedStackSize = "SYNTHAUDIT_DROPPED_OMP_STACKSIZE";

std::string shown_value(const std::string& value) {
  return value.size() > 40 ? value.substr(0, 40) + "..." : value;
}

// OMP_STACKSIZE as libgomp reads it: digits, an optional unit B, K, M or G (K when none), blanks
// around; std::nullopt where libgomp would reject it too (it then warns and ignores it).
std::optional<unsigned long long> stack_bytes(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const std::size_t digits = i;
  unsigned long long value = 0;
  bool overflow = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (value > (~0ull - 9) / 10) overflow = true;
    value = overflow ? value : value * 10 + static_cast<unsigned>(text[i] - '0');
    ++i;
  }
  if (i == digits) return std::nullopt;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  unsigned shift = 10;
  if (i < text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text[i]))) {
      case 'B':
        shift = 0;
        break;
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        return std::nullopt;
    }
    ++i;
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) return std::nullopt;
  if (overflow || value > (~0ull >> shift)) return ~0ull;
  return value << shift;
}

}  // namespace

std::vector<std::string> tame_openmp_environment(char** argv) {
  std::vector<std::string> warnings;
  if (const char* dropped = std::getenv(kDroppedStackSize)) {
    warnings.push_back("OMP_STACKSIZE=" + shown_value(dropped) +
                       " is more than the 1 GiB per thread synthaudit allows; ignored (the "
                       "default stack size is used)");
    ::unsetenv(kDroppedStackSize);
  } else if (const char* stack = std::getenv("OMP_STACKSIZE")) {
    const auto bytes = stack_bytes(stack);
    if (bytes && *bytes > kMaxOpenMpStackBytes) {
      ::setenv(kDroppedStackSize, stack, 1);
      ::unsetenv("OMP_STACKSIZE");
      ::execv("/proc/self/exe", argv);
      // No restart (no /proc): the value stays, and libgomp may fail on it.
      ::unsetenv(kDroppedStackSize);
      warnings.push_back("OMP_STACKSIZE=" + shown_value(stack) +
                         " is more than 1 GiB per thread and could not be dropped; threads may "
                         "fail to start");
    }
  }
  const int hardware = hardware_threads();
  if (const char* threads = std::getenv("OMP_NUM_THREADS");
      threads != nullptr && omp_get_max_threads() > hardware) {
    omp_set_num_threads(hardware);
    warnings.push_back("OMP_NUM_THREADS=" + shown_value(threads) +
                       " asks for more threads than this machine has (" + std::to_string(hardware) +
                       "); using " + std::to_string(hardware));
  }
  return warnings;
}

}  // namespace synthaudit
