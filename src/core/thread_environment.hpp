#pragma once
// OpenMP's environment variables, handled by the command line before it does any work. libgomp
// reads them when it loads, before main: a thread count far beyond the machine makes every
// parallel region start that many threads, and a stack size it cannot map ends the process in
// the first parallel region ("Thread creation failed", exit 1) before any message of ours. A
// host program of the library keeps its own environment: these are for the program's main.
#include <string>
#include <vector>

namespace synthaudit {

// The largest OMP_STACKSIZE kept: far above what any of synthaudit's parallel regions needs.
inline constexpr unsigned long long kMaxOpenMpStackBytes = 1ull << 30;

// When OMP_STACKSIZE is set above kMaxOpenMpStackBytes, removes it and starts this program again
// (execv of /proc/self/exe with the same arguments; it does not return), so that libgomp loads
// without it. Call first thing in main. Returns the warnings to print in the process that runs:
// the stack size dropped (said by the restarted process), and OMP_NUM_THREADS above the
// machine's threads, in which case the calling thread's OpenMP default is capped to the machine.
std::vector<std::string> tame_openmp_environment(char** argv);

}  // namespace synthaudit
