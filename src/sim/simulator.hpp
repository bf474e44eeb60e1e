#pragma once
// Census-like population model for demos, tests and benchmarks: the truth is known, so the
// metrics can be checked against it. See docs/simulator.md for the model.
#include <cstdint>
#include <string>
#include <vector>

#include "table/table.hpp"

namespace synthaudit {

struct SimulationOptions {
  std::size_t rows = 20000;      // confidential sample
  std::size_t holdout_rows = 0;  // 0 = rows / 4
  int replicates = 3;            // per candidate
  // Columns of every file: the 12 of the model, then extra columns alternating numeric
  // (num1, num2, ...) and categorical (cat1, cat2, ...) derived from each person
  // (docs/simulator.md).
  std::size_t columns = 12;
  std::uint64_t seed = 1;
  std::string out_dir;
  int threads = 0;  // 0 = omp_get_max_threads() of the calling thread
};

struct SimulationFiles {
  std::string confidential, holdout, spec_path;
  std::vector<std::pair<std::string, std::vector<std::string>>> candidates;  // name -> replicates
};

// Writes confidential.csv, holdout.csv, <candidate>_<r>.csv for the candidates `ideal`,
// `independent` and `leaky`, and spec.yaml naming them. Deterministic for a given seed and any
// thread count.
SimulationFiles simulate(const SimulationOptions& options);

}  // namespace synthaudit
