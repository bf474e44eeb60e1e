// Benchmark: `synthaudit simulate` (issue 2 target: 1M rows in <= 5 s on the 2-core machine).
//
//   simulate_bench OUT_DIR [ROWS] [REPLICATES]
//
// Runs simulate() as the CLI does and prints wall time, rows written per second (confidential,
// holdout and every candidate replicate), bytes written and peak RSS.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "sim/simulator.hpp"

using namespace synthaudit;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: simulate_bench OUT_DIR [ROWS] [REPLICATES]\n");
    return 2;
  }
  SimulationOptions options;
  options.out_dir = argv[1];
  options.rows = argc >= 3 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  options.replicates = argc >= 4 ? std::atoi(argv[3]) : 1;
  timespec c0{}, c1{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  const auto t0 = std::chrono::steady_clock::now();
  const SimulationFiles files = simulate(options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  const double cpu = static_cast<double>(c1.tv_sec - c0.tv_sec) +
                     static_cast<double>(c1.tv_nsec - c0.tv_nsec) * 1e-9;
  const std::size_t holdout = options.holdout_rows ? options.holdout_rows : options.rows / 4;
  std::size_t replicate_files = 0;
  for (const auto& c : files.candidates) replicate_files += c.second.size();
  const double rows_written = static_cast<double>(options.rows * (1 + replicate_files) + holdout);
  double bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(options.out_dir))
    if (entry.is_regular_file()) bytes += static_cast<double>(entry.file_size());
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("simulate        %zu rows, holdout %zu, %zu candidate files of %zu rows (m=%d)\n",
              options.rows, holdout, replicate_files, options.rows, options.replicates);
  std::printf(
      "total           %.3f s wall, %.3f s cpu (all threads)   %.0f rows written/s   %.1f MB "
      "written (%.1f MB/s)\n",
      seconds, cpu, rows_written / seconds, bytes / 1e6, bytes / 1e6 / seconds);
  std::printf("peak RSS        %.1f MB\n",
              static_cast<double>(usage.ru_maxrss) / 1024.0 * 1.048576);
  return 0;
}
