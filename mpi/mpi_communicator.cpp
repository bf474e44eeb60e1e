// The Communicator over MPI (docs/mpi.md), built into libsynthaudit_mpi.so only when Open MPI is
// found (CMake option SYNTHAUDIT_MPI). The program never links it: core/launcher.cpp loads it
// with dlopen() when a launcher (mpirun, srun) started the process, so the single-process
// program needs no MPI at run time. The two C entry points below are all it exports.
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/communicator.hpp"

namespace synthaudit {
namespace {

// MPI counts are int: a message over 2 GiB is refused with a clear error rather than truncated.
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
  MpiCommunicator() {
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
