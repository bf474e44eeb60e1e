// Benchmark of the attacks' tie-keeping neighbour search (stats/tied_neighbours) and of the
// linkability and inference attacks on the simulator's mixed data (`synthaudit simulate
// --columns N`): the confidential sample attacked through a candidate's first replicate, the
// holdout as the control set. For each attacker column set (linkability's two default halves,
// inference's every column but one) the pruned search runs over every target, and the brute
// force (the exactness oracle) over evenly spaced targets; their sets are compared and the run
// fails on any difference. Then both metrics run end to end, sharing searches through one
// NeighbourCache. Prints CPU seconds (user + system of the process, the fair measure on a shared
// machine), pairs per CPU-second and the load average.
//   attack_bench [rows] [columns] [threads] [candidate: ideal|leaky] [oracle targets; 0: only
//                the two metrics]
#include <omp.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/threads.hpp"
#include "io/load.hpp"
#include "metrics/registry.hpp"
#include "sim/simulator.hpp"
#include "stats/neighbour_cache.hpp"
#include "stats/tied_neighbours.hpp"

using namespace synthaudit;

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec) + double(u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_stime.tv_usec);
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

bool same(const stats::TiedNeighbours& a, const stats::TiedNeighbours& b) {
  return std::equal(a.sure.begin(), a.sure.end(), b.sure.begin(), b.sure.end()) &&
         std::equal(a.tied.begin(), a.tied.end(), b.tied.begin(), b.tied.end()) &&
         a.picks == b.picks && a.kth_distance == b.kth_distance;
}

int search(const Table& targets, const Table& synthetic, const std::vector<std::size_t>& columns,
           std::size_t oracle_targets, const std::string& label) {
  const double c0 = cpu_seconds(), w0 = wall_seconds();
  const stats::TiedNeighbourLists pruned(targets, synthetic, columns, 1, std::size_t{1} << 31,
                                         nullptr, "");
  const double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;
  const double pairs = double(targets.rows()) * double(synthetic.rows());
  const stats::AttackDistance distance(targets, synthetic, columns);
  const stats::TiedNeighbourSearch shape(distance);
  const std::size_t step = std::max<std::size_t>(1, targets.rows() / oracle_targets);
  const double b0 = cpu_seconds();
  std::size_t checked = 0, differ = 0, tied_rows = 0;
  stats::TiedNeighbourScratch s1, s2;
  for (std::size_t q = 0; q < targets.rows(); q += step) {
    const auto brute = stats::tied_nearest(distance, q, 1, s1);
    tied_rows += brute.sure.size() + brute.tied.size();
    differ += !same(brute, pruned.of(q, s2));
    ++checked;
  }
  const double brute_cpu = cpu_seconds() - b0;
  const double brute_rate = double(checked) * double(synthetic.rows()) / brute_cpu;
  std::printf(
      "%s: %zu targets x %zu synthetic, %zu columns (%zu signature columns, %zu groups), k=1: "
      "pruned wall %.2f s, cpu %.2f s, %.3g pairs per cpu-second; brute force on %zu targets "
      "%.3g pairs per cpu-second (all targets extrapolated: %.1f cpu-s); speed-up %.1fx; mean "
      "nearest set %.1f rows; equal to brute force: %s\n",
      label.c_str(), targets.rows(), synthetic.rows(), columns.size(), shape.signature_columns(),
      shape.groups(), wall, cpu, pairs / cpu, checked, brute_rate, pairs / brute_rate,
      (pairs / cpu) / brute_rate, double(tied_rows) / double(checked), differ == 0 ? "yes" : "NO");
  std::fflush(stdout);
  return differ == 0 ? 0 : 1;
}

void attack(const std::string& name, const nlohmann::json& json, const Table& conf,
            const Table& syn, const Table& hold, stats::NeighbourCache& cache) {
  const MetricSpec* metric = find_metric(name);
  const Params params = Params::resolve(name, metric->params, json, "bench");
  const EvaluationContext context;
  MetricInput in{conf, {&syn}, &hold, context, "bench", 1};
  in.neighbours = &cache;
  const double c0 = cpu_seconds(), w0 = wall_seconds();
  const MetricResult result = metric->compute(in, params);
  const double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;
  double risk = NAN;
  for (const auto& v : result.values)
    if (v.statistic == "risk") risk = v.value;
  std::printf("%s %s: wall %.2f s, cpu %.2f s, first risk %.4f, searches run %zu reused %zu\n",
              name.c_str(), json.dump().c_str(), wall, cpu, risk, cache.searches_run(),
              cache.searches_reused());
  std::fflush(stdout);
}

int run(int argc, char** argv) {
  const std::size_t rows = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 20000;
  const std::size_t columns = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 12;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::string candidate = argc > 4 ? argv[4] : "ideal";
  const std::size_t oracle = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 500;
  const ThreadCountScope scope(threads);
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("synthaudit_attack_bench_" + std::to_string(rows) + "_" + std::to_string(columns));
  SimulationOptions sim;
  sim.rows = rows;
  sim.columns = columns;
  sim.replicates = 1;
  sim.out_dir = dir.string();
  const auto files = simulate(sim);
  ReadSettings settings;
  const CsvFile cf = CsvFile::open(files.confidential);
  Schema schema = infer_schema(cf, settings);
  Table conf = encode_table(cf, schema, settings, "confidential");
  Table syn = encode_table(CsvFile::open((dir / (candidate + "_1.csv")).string()), schema, settings,
                           "synthetic");
  Table hold = encode_table(CsvFile::open(files.holdout), schema, settings, "holdout");
  finalize_dictionaries(schema, {&conf, &syn, &hold});
  std::filesystem::remove_all(dir);
  std::printf(
      "attack_bench: %zu rows (holdout %zu), %zu columns, threads %d, candidate %s, load "
      "average %s\n",
      conf.rows(), hold.rows(), conf.column_count(), threads, candidate.c_str(),
      load_average().c_str());
  const std::size_t p = conf.column_count();
  std::vector<std::size_t> first_half, second_half, all_but_last;
  for (std::size_t c = 0; c < p; ++c) {
    (c < p / 2 ? first_half : second_half).push_back(c);
    if (c + 1 < p) all_but_last.push_back(c);
  }
  int failures = 0;
  if (oracle > 0) {
    failures += search(conf, syn, first_half, oracle, "linkability aux_a");
    failures += search(conf, syn, second_half, oracle, "linkability aux_b");
    failures += search(conf, syn, all_but_last, oracle, "inference aux");
  }
  stats::NeighbourCache cache;
  for (const Table* t : {&conf, &syn, &hold}) cache.keep(*t);
  attack("linkability_attack", nlohmann::json::object(), conf, syn, hold, cache);
  const std::string secret = conf.column(p - 1).name, other = conf.column(p - 2).name;
  std::vector<std::string> aux;
  for (std::size_t c = 0; c + 2 < p; ++c) aux.push_back(conf.column(c).name);
  attack("inference_attack", {{"secrets", {secret, other}}, {"aux", aux}}, conf, syn, hold, cache);
  std::printf("load average after: %s\n", load_average().c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attack_bench: %s\n", e.what());
    return 2;
  }
}
