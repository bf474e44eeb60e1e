#include "core/launcher.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace synthaudit {

namespace fs = std::filesystem;

namespace {

std::optional<int> env_int(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1 << 24) return std::nullopt;
  return static_cast<int>(value);
}

constexpr char kLibraryName[] = "libsynthaudit_mpi.so";

std::vector<fs::path> library_candidates() {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back(self.parent_path() / kLibraryName);
    // `make install` and `make dist` put it in PREFIX/lib beside PREFIX/bin.
    out.push_back(self.parent_path() / "../lib" / kLibraryName);
  }
  return out;
}

}  // namespace

std::optional<int> launcher_ranks() {
  if (auto size = env_int("OMPI_COMM_WORLD_SIZE")) return size;
  if (auto size = env_int("PMI_SIZE"); size && env_int("PMI_RANK")) return size;
  if (env_int("PMIX_RANK")) {
    // PMIx (Open MPI 4+ under its own launcher, Slurm's --mpi=pmix) names no size variable of
    // its own; Slurm's task count gives it, and a PMIx rank alone means a job of unknown size.
    if (auto size = env_int("SLURM_NTASKS")) return size;
    return 2;
  }
  if (auto size = env_int("SLURM_NTASKS"); size && *size > 1 && env_int("SLURM_PROCID"))
    return size;
  return std::nullopt;
}

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (auto rank = env_int(name)) return *rank;
  return 0;
}

std::unique_ptr<ProcessGroup> ProcessGroup::start() {
  std::unique_ptr<ProcessGroup> group(new ProcessGroup());
  group->communicator_ = &group->single_;
  const auto ranks = launcher_ranks();
  if (!ranks || *ranks <= 1) return group;
  std::string tried;
  for (const auto& path : library_candidates()) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path.lexically_normal().string();
      continue;
    }
    // RTLD_GLOBAL: Open MPI loads components of its own that need libmpi's symbols.
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (library == nullptr) {
      const char* why = dlerror();
      throw InputError("started by an MPI launcher, but " + path.string() +
                       " cannot be loaded: " + (why ? why : "unknown error"));
    }
    using Start = Communicator* (*)(char*, int);
    auto start = reinterpret_cast<Start>(dlsym(library, "synthaudit_mpi_start"));
    auto finish =
        reinterpret_cast<void (*)(Communicator*, int)>(dlsym(library, "synthaudit_mpi_finish"));
    if (start == nullptr || finish == nullptr)
      throw InputError(path.string() + " is not synthaudit's MPI library");
    char error[512] = {0};
    Communicator* communicator = start(error, sizeof error);
    if (communicator == nullptr) throw InputError(std::string("MPI could not start: ") + error);
    group->library_ = library;
    group->finish_ = finish;
    group->communicator_ = communicator;
    return group;
  }
  throw InputError("started by an MPI launcher with " + std::to_string(*ranks) +
                   " processes, but this synthaudit was built without MPI (" + kLibraryName +
                   " is not in " + tried +
                   "; build with Open MPI installed, docs/mpi.md, or run without mpirun)");
}

ProcessGroup::~ProcessGroup() {
  // The library stays loaded: Open MPI registers handlers that outlive MPI_Finalize.
  if (finish_ != nullptr) finish_(communicator_, 0);
}

void ProcessGroup::abort_all(int code) {
  if (finish_ != nullptr) finish_(communicator_, code);
  std::_Exit(code);
}

}  // namespace synthaudit
