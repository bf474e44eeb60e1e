// Benchmark of the exact nearest-neighbour engine (stats/nearest_neighbours): Gower 1-NN
// (and k = 2) between two random tables of 10 numeric + 10 categorical columns (uniform values,
// the worst case: no exact copies, categorical groups too small to prune), and optionally on
// simulator files. Prints pairs per second.
//   nearest_neighbours_bench [rows_query] [rows_reference] [threads] [k] [mode: auto|full|grouped]
//   nearest_neighbours_bench --files QUERY.csv REFERENCE.csv [threads] [k]
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>

#include "core/random.hpp"
#include "io/load.hpp"
#include "stats/nearest_neighbours.hpp"

using namespace synthaudit;

namespace {

Table random_table(std::size_t rows, std::uint64_t seed,
                   const std::vector<std::shared_ptr<Dictionary>>& dicts) {
  Rng rng(seed);
  std::vector<Column> cols;
  for (int c = 0; c < 10; ++c) {
    Column col;
    col.name = "x" + std::to_string(c);
    col.kind = ColumnKind::kNumeric;
    col.numeric.resize(rows);
    for (auto& v : col.numeric) v = rng.uniform();
    cols.push_back(std::move(col));
  }
  for (int c = 0; c < 10; ++c) {
    Column col;
    col.name = "c" + std::to_string(c);
    col.kind = ColumnKind::kCategorical;
    col.dictionary = dicts[c];
    col.codes.resize(rows);
    for (auto& v : col.codes) v = static_cast<std::uint32_t>(rng.below(dicts[c]->size()));
    cols.push_back(std::move(col));
  }
  return Table(TableSource{"random", "", "bench"}, std::move(cols));
}

void run(const Table& q, const Table& r, int threads, std::size_t k, stats::SearchMode mode,
         const char* label) {
  omp_set_num_threads(threads);
  stats::NeighbourOptions o;
  o.k = k;
  o.mode = mode;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  const auto nb = stats::nearest_neighbours(q, r, o);
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double pairs = double(q.rows()) * double(r.rows());
  double checksum = 0;
  for (std::size_t i = 0; i < nb.queries; ++i) checksum += nb.dist(i, 0);
  std::printf(
      "%s: %zu x %zu, k=%zu, threads=%d, grouped=%d: wall %.3f s, %.3g pairs/s; cpu %.3f s, "
      "%.3g pairs per cpu-second; shortcuts=%zu, recomputed=%llu, mean d1=%.6f\n",
      label, q.rows(), r.rows(), k, threads, int(nb.grouped), s, pairs / s, cpu, pairs / cpu,
      nb.exact_copy_shortcuts, (unsigned long long)nb.exact_recomputations,
      checksum / double(nb.queries));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "--files") {
    const CsvFile qf = CsvFile::open(argv[2]);
    ReadSettings settings;
    Schema schema = infer_schema(qf, settings);
    Table q = encode_table(qf, schema, settings, "synthetic");
    Table r = encode_table(CsvFile::open(argv[3]), schema, settings, "confidential");
    finalize_dictionaries(schema, {&q, &r});
    const int threads = argc > 4 ? std::atoi(argv[4]) : 1;
    const std::size_t k = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 1;
    run(q, r, threads, k, stats::SearchMode::kAuto, "files");
    return 0;
  }
  const std::size_t m = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 20000;
  const std::size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : m;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::size_t k = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1;
  const std::string mode = argc > 5 ? argv[5] : "auto";
  std::vector<std::shared_ptr<Dictionary>> dicts;
  for (int c = 0; c < 10; ++c) {
    auto d = std::make_shared<Dictionary>();
    for (int l = 0; l < 3 + 2 * c; ++l) d->intern("L" + std::to_string(l));
    dicts.push_back(d);
  }
  const Table q = random_table(m, 1, dicts), r = random_table(n, 2, dicts);
  run(q, r, threads, k,
      mode == "full" ? stats::SearchMode::kFullScan
                     : (mode == "grouped" ? stats::SearchMode::kGrouped : stats::SearchMode::kAuto),
      "uniform random 10 num + 10 cat");
  return 0;
}
