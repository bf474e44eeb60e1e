// General-utility speed (issue 3): n confidential + n synthetic rows, 20 mixed columns (10
// numeric, 10 categorical, 190 two-way tables), one replicate; times every metric of the
// `general` family through the registry, as the engine runs them, and checks that the numbers
// are identical with 1 and all threads.
// Usage: general_utility_bench [rows=1000000]
#include <omp.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "core/random.hpp"
#include "metrics/registry.hpp"

using namespace synthaudit;

namespace {

// Ten numeric and ten categorical columns with real dependencies (each numeric column leans on
// the previous one, each categorical on a numeric one), about 2% missing values.
Table make_table(std::size_t rows, std::uint64_t seed,
                 const std::vector<std::shared_ptr<Dictionary>>& dicts) {
  std::vector<Column> cols(20);
  for (int c = 0; c < 10; ++c) {
    cols[c].name = "x" + std::to_string(c);
    cols[c].kind = ColumnKind::kNumeric;
    cols[c].numeric.resize(rows);
    cols[10 + c].name = "c" + std::to_string(c);
    cols[10 + c].kind = ColumnKind::kCategorical;
    cols[10 + c].dictionary = dicts[static_cast<std::size_t>(c)];
    cols[10 + c].codes.resize(rows);
  }
  const std::size_t block = 1 << 15;
#pragma omp parallel for schedule(static)
  for (std::size_t b = 0; b < (rows + block - 1) / block; ++b) {
    Rng rng(seed, b);
    for (std::size_t i = b * block; i < std::min(rows, (b + 1) * block); ++i) {
      double previous = rng.normal();
      for (int c = 0; c < 10; ++c) {
        const double value = 0.6 * previous + 0.8 * rng.normal();
        // Mix of scales and rounding: some columns integer-valued, one skewed.
        double stored = c % 3 == 0 ? std::round(value * 10) : (c == 4 ? std::exp(value) : value);
        cols[c].numeric[i] = rng.bernoulli(0.02) ? std::nan("") : stored;
        previous = value;
      }
      for (int c = 0; c < 10; ++c) {
        const auto levels = static_cast<std::uint32_t>(dicts[static_cast<std::size_t>(c)]->size());
        const double driver = cols[c].numeric[i];
        const auto lean =
            std::isnan(driver) ? 0u : static_cast<std::uint32_t>(std::abs(driver)) % levels;
        cols[10 + c].codes[i] = rng.bernoulli(0.02) ? kMissingCode
                                : rng.bernoulli(0.5)
                                    ? lean
                                    : static_cast<std::uint32_t>(rng.below(levels));
      }
    }
  }
  return Table(TableSource{"", "", "bench"}, std::move(cols));
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const std::size_t cards[] = {2, 3, 5, 6, 8, 12, 16, 24, 50, 120};
  std::vector<std::shared_ptr<Dictionary>> dicts;
  for (auto k : cards) {
    auto d = std::make_shared<Dictionary>();
    for (std::size_t l = 0; l < k; ++l) d->intern("L" + std::to_string(l));
    dicts.push_back(d);
  }
  const Table conf = make_table(rows, 1, dicts), syn = make_table(rows, 2, dicts);
  EvaluationContext context;
  std::printf(
      "general utility: %zu confidential + %zu synthetic rows, 10 numeric + 10 categorical "
      "columns, %d threads\n",
      rows, rows, omp_get_max_threads());
  double total = 0;
  bool deterministic = true;
  for (const MetricSpec* m : select_metrics({"general"}, "bench")) {
    if (m->needs_row_correspondence) continue;  // record_level_change: partial synthesis only
    const Params p = Params::resolve(m->name, m->params, nlohmann::json::object(), "bench");
    MetricInput in{conf, {&syn}, nullptr, context, "bench", 1};
    const auto t0 = std::chrono::steady_clock::now();
    const MetricResult r = m->compute(in, p);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total += seconds;
    // Same numbers on one thread.
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const MetricResult single = m->compute(in, p);
    omp_set_num_threads(threads);
    bool same = single.values.size() == r.values.size();
    for (std::size_t i = 0; same && i < r.values.size(); ++i)
      same = (std::isnan(r.values[i].value) && std::isnan(single.values[i].value)) ||
             r.values[i].value == single.values[i].value;
    deterministic = deterministic && same;
    std::printf("  %-30s %8.3f s  %6zu values  %s\n", m->name.c_str(), seconds, r.values.size(),
                same ? "same with 1 thread" : "DIFFERS with 1 thread");
  }
  std::printf("total %.3f s (%.2f M rows/s per metric pass), peak RSS %.0f MiB\n", total,
              2.0 * static_cast<double>(rows) / 1e6 / (total > 0 ? total : 1), peak_rss_mib());
  return deterministic ? 0 : 1;
}
