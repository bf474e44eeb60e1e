// Benchmark of the exact nearest-neighbour engine (stats/nearest_neighbours) on the mixed data
// users have: the simulator's survey-like files (`synthaudit simulate --columns N`: the model's 12
// columns, 5 numeric and 7 categorical, one with 241 levels, then numeric and categorical columns
// in turn), the leaky candidate's first replicate (near-copies) or the ideal one (fresh people)
// as queries against the confidential sample. Each mode runs on the same tables; every mode's
// distances and indices are compared with the full scan (the exactness oracle) and the run fails
// on any difference. Prints CPU seconds (user + system of the process, the fair measure on a
// shared machine) and pairs per CPU-second.
//   nearest_neighbours_bench [rows] [columns] [threads] [k] [modes: full,grouped,projected,auto]
//                            [queries: ideal|leaky]
//   nearest_neighbours_bench --files QUERY.csv REFERENCE.csv [threads] [k] [modes]
#include <omp.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "io/load.hpp"
#include "sim/simulator.hpp"
#include "stats/nearest_neighbours.hpp"

using namespace synthaudit;

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec) + double(u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_stime.tv_usec);
}

std::pair<Table, Table> load_pair(const std::string& query, const std::string& reference) {
  ReadSettings settings;
  const CsvFile rf = CsvFile::open(reference);
  Schema schema = infer_schema(rf, settings);
  Table r = encode_table(rf, schema, settings, "confidential");
  Table q = encode_table(CsvFile::open(query), schema, settings, "synthetic");
  finalize_dictionaries(schema, {&r, &q});
  return {std::move(q), std::move(r)};
}

const std::map<std::string, stats::SearchMode> kModes = {
    {"full", stats::SearchMode::kFullScan},
    {"grouped", stats::SearchMode::kGrouped},
    {"projected", stats::SearchMode::kProjected},
    {"auto", stats::SearchMode::kAuto}};

int run_modes(const Table& q, const Table& r, int threads, std::size_t k, const std::string& modes,
              const std::string& label) {
  omp_set_num_threads(threads);
  std::optional<stats::Neighbours> oracle;
  std::stringstream list(modes);
  std::string mode;
  bool first = true;
  int failures = 0;
  // The oracle runs first whatever the list says.
  std::vector<std::string> names = {"full"};
  while (std::getline(list, mode, ','))
    if (mode != "full") names.push_back(mode);
  for (const auto& name : names) {
    if (!kModes.count(name)) {
      std::fprintf(stderr, "unknown mode %s\n", name.c_str());
      return 2;
    }
    stats::NeighbourOptions o;
    o.k = k;
    o.mode = kModes.at(name);
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    auto nb = stats::nearest_neighbours(q, r, o);
    const double cpu = cpu_seconds() - c0;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double pairs = double(q.rows()) * double(r.rows());
    bool equal = true;
    if (first) {
      oracle = nb;
      first = false;
    } else {
      equal = nb.distance == oracle->distance && nb.index == oracle->index;
      failures += !equal;
    }
    std::printf(
        "%s: %zu x %zu, %zu columns, k=%zu, threads=%d, mode=%s (grouped=%d projected=%d): "
        "wall %.3f s, cpu %.3f s, %.3g pairs per cpu-second; fast pass compared %.3g of the "
        "pairs; exact-copy shortcuts=%zu, recomputed=%llu; equal to full scan: %s\n",
        label.c_str(), q.rows(), r.rows(), r.column_count(), k, threads, name.c_str(),
        int(nb.grouped), int(nb.projected), wall, cpu, pairs / cpu,
        double(nb.scanned_pairs) / pairs, nb.exact_copy_shortcuts,
        (unsigned long long)nb.exact_recomputations, equal ? "yes" : "NO");
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int run(int argc, char** argv);

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nearest_neighbours_bench: %s\n", e.what());
    return 2;
  }
}

int run(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "--files") {
    const auto [q, r] = load_pair(argv[2], argv[3]);
    const int threads = argc > 4 ? std::atoi(argv[4]) : 1;
    const std::size_t k = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 1;
    return run_modes(q, r, threads, k, argc > 6 ? argv[6] : "auto", "files");
  }
  const std::size_t rows = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 20000;
  const std::size_t columns = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 16;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::size_t k = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1;
  const std::string modes = argc > 5 ? argv[5] : "grouped,projected,auto";
  const std::string queries = argc > 6 ? argv[6] : "ideal";
  const auto dir = std::filesystem::temp_directory_path() /
                   ("synthaudit_nn_bench_" + std::to_string(rows) + "_" + std::to_string(columns));
  SimulationOptions sim;
  sim.rows = rows;
  sim.columns = columns;
  sim.replicates = 1;
  sim.out_dir = dir.string();
  const auto files = simulate(sim);
  const std::string query_file = (dir / (queries + "_1.csv")).string();
  const auto [q, r] = load_pair(query_file, files.confidential);
  const int rc = run_modes(q, r, threads, k, modes, "simulator " + queries + " -> confidential");
  std::filesystem::remove_all(dir);
  return rc;
}
