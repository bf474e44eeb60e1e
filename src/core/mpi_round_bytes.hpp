#pragma once
// The size of the rounds in which the MPI communicator's all_to_all sends (docs/mpi.md), shared
// by the MPI library (which uses it) and the program (which reports a bad setting as bad input
// on every rank before any exchange, where the ranks can agree on the error; the library itself
// starts before the ranks can, so it only falls back to the default).
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace synthaudit {

// The most bytes one rank sends (or receives) in one round. Small, because each round's bytes are
// copied into a send and a receive buffer beside the messages themselves: 4 MiB keeps that copy
// negligible next to the messages (rounds cost a few microseconds each).
inline constexpr std::uint64_t kAllToAllRoundBytes = std::uint64_t{4} << 20;
// Lowers the round size, so that the tests run many rounds with messages of a few kilobytes.
inline constexpr const char* kAllToAllRoundBytesVariable = "SYNTHAUDIT_MPI_ROUND_BYTES";

// The round size: the variable's value when it is set to a whole number of bytes from 1 to
// kAllToAllRoundBytes (a larger one could reach MPI's int counts), the default when it is not set
// or empty, nullopt when it is set to anything else.
inline std::optional<std::uint64_t> all_to_all_round_bytes() {
  const char* text = std::getenv(kAllToAllRoundBytesVariable);
  if (text == nullptr || *text == '\0') return kAllToAllRoundBytes;
  if (*text < '0' || *text > '9') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || value == 0 || value > kAllToAllRoundBytes) return std::nullopt;
  return value;
}

}  // namespace synthaudit
