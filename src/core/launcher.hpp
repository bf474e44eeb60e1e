#pragma once
// How this process was started: alone, or as one rank of an MPI job (mpirun, mpiexec, Slurm's
// srun; docs/mpi.md). Under a launcher the MPI communicator is loaded at run time from
// libsynthaudit_mpi.so (dlopen), so the program itself needs no MPI library to run alone.
#include <memory>
#include <optional>
#include <string>

#include "core/communicator.hpp"

namespace synthaudit {

// The number of processes a launcher started this one among, from its environment
// (OMPI_COMM_WORLD_SIZE, PMIX_RANK with OMPI or PMI sizes, PMI_SIZE, SLURM_NTASKS with
// SLURM_PROCID); nullopt when no launcher did.
std::optional<int> launcher_ranks();
// This process's rank as the launcher's environment gives it (0 when none does): before MPI has
// started, only rank 0 reports a failure to start it.
int launcher_rank();

// The communicator of this process: SingleProcess when no launcher started it (or started it
// alone), else the MPI communicator from libsynthaudit_mpi.so, looked for beside the executable
// (/proc/self/exe) and then in the installed library folder. Throws InputError (one line) when a
// launcher started the process but the library is not there or MPI cannot start. The returned
// object ends MPI when destroyed; `abort_all` ends every rank at once with `code` (a failure one
// rank cannot tell the others through a collective).
class ProcessGroup {
 public:
  static std::unique_ptr<ProcessGroup> start();
  ~ProcessGroup();
  Communicator& communicator() { return *communicator_; }
  [[noreturn]] void abort_all(int code);

 private:
  ProcessGroup() = default;
  Communicator* communicator_ = nullptr;
  SingleProcess single_;
  void* library_ = nullptr;
  void (*finish_)(Communicator*, int) = nullptr;
};

}  // namespace synthaudit
