#pragma once
// The seam between an evaluation and the processes it runs on. An evaluation split over several
// processes (MPI ranks, docs/mpi.md) exchanges bytes through a Communicator; everything above it
// (partitioned reading, metric states, neighbour searches) is written against this interface and
// never against MPI, so the same code runs and is tested in one process (SingleProcess), on threads
// standing in for ranks (run_thread_group, for unit tests without mpirun), and on MPI ranks (the
// optional MPI build; core/mpi_communicator.*).
//
// Every member is a collective: all ranks call it, in the same order, or the program hangs (as
// with MPI). Payloads are opaque bytes; each caller serialises its own data.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace synthaudit {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool is_root() const { return rank() == 0; }

  // Every rank contributes `bytes`; every rank receives all contributions in rank order.
  virtual std::vector<std::string> all_gather(std::string_view bytes) = 0;
  // The root's contributions in rank order, on the root; an empty vector elsewhere.
  virtual std::vector<std::string> gather(std::string_view bytes, int root = 0);
  // `bytes` of `root` on every rank (the other ranks' arguments are ignored).
  virtual std::string broadcast(std::string_view bytes, int root = 0);
  // `outgoing[r]` goes to rank r (one entry per rank); returns what each rank sent to this one,
  // in rank order. Unlike all_gather, a rank receives only its own share, so data redistributed
  // this way (a distributed sort) never sits whole on one rank.
  virtual std::vector<std::string> all_to_all(std::vector<std::string> outgoing);
  virtual void barrier();
};

// One process, one rank: every collective returns the caller's own bytes.
class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> all_gather(std::string_view bytes) override {
    return {std::string(bytes)};
  }
  std::vector<std::string> all_to_all(std::vector<std::string> outgoing) override;
};

// Runs `body` on `ranks` threads of this process, each with a Communicator of its own rank that
// exchanges through shared memory; returns when every thread has returned. An exception thrown on
// any rank is rethrown here (the lowest rank's first) after the others have been released: a rank
// waiting in a collective that a failed rank will never reach throws RankFailed instead of
// hanging. For tests of partitioned code paths; real runs use MPI ranks.
void run_thread_group(int ranks, const std::function<void(Communicator&)>& body);

// Thrown inside the surviving threads of run_thread_group when another rank has failed.
struct RankFailed : std::runtime_error {
  RankFailed() : std::runtime_error("another rank failed") {}
};

}  // namespace synthaudit
