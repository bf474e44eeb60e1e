// The Communicator over MPI (docs/mpi.md), built into libsynthaudit_mpi.so only when Open MPI is
// found (CMake option SYNTHAUDIT_MPI). The program never links it: core/launcher.cpp loads it
// with dlopen() when a launcher (mpirun, srun) started the process, so the single-process
// program needs no MPI at run time. The two C entry points below are all it exports.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/communicator.hpp"
#include "core/mpi_round_bytes.hpp"

namespace synthaudit {
namespace {

// MPI counts are int: a message over 2 GiB is refused with a clear error rather than truncated.
// all_to_all goes in rounds of core/mpi_round_bytes.hpp's size; the program has already stopped,
// on every rank, when the setting is bad, so the fallback here is never used for a run.
std::uint64_t round_bytes() { return all_to_all_round_bytes().value_or(kAllToAllRoundBytes); }

int checked_count(std::uint64_t bytes) {
  if (bytes > static_cast<std::uint64_t>(INT_MAX))
    throw std::runtime_error("MPI message of " + std::to_string(bytes) +
                             " bytes is larger than 2 GiB; use more ranks");
  return static_cast<int>(bytes);
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() : round_bytes_(round_bytes()) {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> all_gather(std::string_view bytes) override {
    const std::vector<int> counts = exchange_counts(bytes.size(), /*all=*/true, 0);
    std::vector<int> offsets;
    std::string joined = receive_buffer(counts, offsets);
    check(MPI_Allgatherv(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, joined.data(),
                         counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Allgatherv");
    return split(joined, counts, offsets);
  }

  std::vector<std::string> gather(std::string_view bytes, int root) override {
    const std::vector<int> counts = exchange_counts(bytes.size(), /*all=*/false, root);
    std::vector<int> offsets;
    std::string joined;
    if (rank_ == root) joined = receive_buffer(counts, offsets);
    check(MPI_Gatherv(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, joined.data(),
                      counts.data(), offsets.data(), MPI_BYTE, root, MPI_COMM_WORLD),
          "MPI_Gatherv");
    if (rank_ != root) return {};
    return split(joined, counts, offsets);
  }

  std::string broadcast(std::string_view bytes, int root) override {
    std::uint64_t size = rank_ == root ? bytes.size() : 0;
    check(MPI_Bcast(&size, 1, MPI_UINT64_T, root, MPI_COMM_WORLD), "MPI_Bcast");
    std::string out = rank_ == root ? std::string(bytes) : std::string(size, '\0');
    check(MPI_Bcast(out.data(), checked_count(size), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    return out;
  }

  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

  // MPI_Alltoallv counts and displacements are int: the messages go in rounds of at most
  // round_bytes_ / ranks bytes per pair, so no round's total on any rank reaches 2 GiB, however
  // large the messages.
  std::vector<std::string> all_to_all(std::vector<std::string> outgoing) override {
    const auto ranks = static_cast<std::size_t>(size_);
    if (outgoing.size() != ranks)
      throw std::runtime_error("all_to_all: one message per rank expected");
    std::vector<std::uint64_t> send_sizes(ranks), receive_sizes(ranks);
    std::uint64_t largest = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      send_sizes[r] = outgoing[r].size();
      largest = std::max(largest, send_sizes[r]);
    }
    check(MPI_Alltoall(send_sizes.data(), 1, MPI_UINT64_T, receive_sizes.data(), 1, MPI_UINT64_T,
                       MPI_COMM_WORLD),
          "MPI_Alltoall");
    check(MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce");
    std::vector<std::string> incoming(ranks);
    for (std::size_t r = 0; r < ranks; ++r) incoming[r].resize(receive_sizes[r]);
    const std::uint64_t chunk = std::max<std::uint64_t>(1, round_bytes_ / ranks);
    const std::uint64_t rounds = std::max<std::uint64_t>(1, (largest + chunk - 1) / chunk);
    std::string send_buffer, receive_buffer;
    std::vector<int> send_counts(ranks), send_offsets(ranks), receive_counts(ranks),
        receive_offsets(ranks);
    for (std::uint64_t round = 0; round < rounds; ++round) {
      const std::uint64_t from = round * chunk;
      auto piece = [&](std::uint64_t size) {
        return from >= size ? std::uint64_t{0} : std::min(chunk, size - from);
      };
      std::uint64_t send_total = 0, receive_total = 0;
      for (std::size_t r = 0; r < ranks; ++r) {
        send_offsets[r] = checked_count(send_total);
        send_counts[r] = checked_count(piece(send_sizes[r]));
        send_total += static_cast<std::uint64_t>(send_counts[r]);
        receive_offsets[r] = checked_count(receive_total);
        receive_counts[r] = checked_count(piece(receive_sizes[r]));
        receive_total += static_cast<std::uint64_t>(receive_counts[r]);
      }
      send_buffer.resize(send_total);
      receive_buffer.resize(receive_total);
      for (std::size_t r = 0; r < ranks; ++r) {
        if (send_counts[r] > 0)
          outgoing[r].copy(send_buffer.data() + send_offsets[r],
                           static_cast<std::size_t>(send_counts[r]), from);
        // A message sent whole is released at once.
        if (from + chunk >= send_sizes[r]) std::string().swap(outgoing[r]);
      }
      check(MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_offsets.data(), MPI_BYTE,
                          receive_buffer.data(), receive_counts.data(), receive_offsets.data(),
                          MPI_BYTE, MPI_COMM_WORLD),
            "MPI_Alltoallv");
      for (std::size_t r = 0; r < ranks; ++r)
        if (receive_counts[r] > 0)
          receive_buffer.copy(incoming[r].data() + from,
                              static_cast<std::size_t>(receive_counts[r]),
                              static_cast<std::size_t>(receive_offsets[r]));
    }
    return incoming;
  }

 private:
  std::vector<int> exchange_counts(std::size_t mine, bool all, int root) {
    const int count = checked_count(mine);
    std::vector<int> counts(static_cast<std::size_t>(size_));
    if (all)
      check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
            "MPI_Allgather");
    else
      check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD),
            "MPI_Gather");
    return counts;
  }
  static std::string receive_buffer(const std::vector<int>& counts, std::vector<int>& offsets) {
    offsets.assign(counts.size(), 0);
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      offsets[i] = checked_count(total);
      total += static_cast<std::uint64_t>(counts[i]);
    }
    checked_count(total);
    return std::string(total, '\0');
  }
  static std::vector<std::string> split(const std::string& joined, const std::vector<int>& counts,
                                        const std::vector<int>& offsets) {
    std::vector<std::string> out;
    out.reserve(counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i)
      out.emplace_back(joined.data() + offsets[i], static_cast<std::size_t>(counts[i]));
    return out;
  }

  int rank_ = 0;
  int size_ = 1;
  std::uint64_t round_bytes_;
};

}  // namespace
}  // namespace synthaudit

// Initialises MPI and returns this process's communicator (owned by the caller), or null with
// `error` filled when MPI cannot start.
extern "C" __attribute__((visibility("default"))) synthaudit::Communicator* synthaudit_mpi_start(
    char* error, int error_size) {
  try {
    int started = 0;
    MPI_Initialized(&started);
    if (!started && MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Init failed");
    return new synthaudit::MpiCommunicator();
  } catch (const std::exception& e) {
    std::snprintf(error, static_cast<std::size_t>(error_size), "%s", e.what());
    return nullptr;
  }
}

// Ends MPI: normally (`code` 0, every rank calls it) or by aborting every rank (a failure on one
// rank that the others cannot learn of through a collective).
extern "C" __attribute__((visibility("default"))) void synthaudit_mpi_finish(
    synthaudit::Communicator* communicator, int code) {
  delete communicator;
  if (code != 0) MPI_Abort(MPI_COMM_WORLD, code);
  int finished = 0;
  MPI_Finalized(&finished);
  if (!finished) MPI_Finalize();
}
