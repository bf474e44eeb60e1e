// Key-disclosure speed: n confidential × n synthetic rows, 5 keys, 3 targets, one scenario;
// times correct_attribution_probability, synthpop_disclosure and disclosure_protection.
// Usage: key_disclosure_bench [rows=1000000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>

#include "core/random.hpp"
#include "metrics/registry.hpp"

using namespace synthaudit;

namespace {

// Categorical column with `levels` levels; the synthetic table reuses the same dictionary.
Column categorical(const std::string& name, std::shared_ptr<Dictionary> dict, std::size_t rows,
                   Rng& rng, std::uint32_t skew_of) {
  Column c;
  c.name = name;
  c.kind = ColumnKind::kCategorical;
  c.dictionary = dict;
  c.codes.resize(rows);
  const auto levels = static_cast<std::uint32_t>(dict->size());
  for (std::size_t i = 0; i < rows; ++i) {
    // a little dependence on an earlier draw so that targets relate to keys
    const auto base = static_cast<std::uint32_t>(rng.below(levels));
    c.codes[i] = skew_of != 0 && rng.uniform() < 0.5 ? (skew_of + base) % levels : base;
  }
  return c;
}

Table make_table(std::size_t rows, std::uint64_t seed,
                 const std::vector<std::shared_ptr<Dictionary>>& dicts) {
  Rng rng(seed);
  std::vector<Column> cols;
  const char* names[] = {"region",     "sex",   "education", "marital",
                         "occupation", "smoke", "health",    "employment"};
  for (std::size_t c = 0; c < dicts.size(); ++c)
    cols.push_back(categorical(names[c], dicts[c], rows, rng, c >= 5 ? 1 : 0));
  Column age;
  age.name = "age";
  age.kind = ColumnKind::kNumeric;
  age.numeric.resize(rows);
  for (auto& v : age.numeric) v = static_cast<double>(16 + rng.below(80));
  cols.push_back(age);
  return Table(TableSource{"", "", "bench"}, std::move(cols));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const std::size_t cards[] = {16, 2, 6, 5, 12, 2, 5, 4};
  std::vector<std::shared_ptr<Dictionary>> dicts;
  for (auto k : cards) {
    auto d = std::make_shared<Dictionary>();
    for (std::size_t l = 0; l < k; ++l) d->intern("L" + std::to_string(l));
    dicts.push_back(d);
  }
  const Table conf = make_table(rows, 1, dicts), syn = make_table(rows, 2, dicts);
  EvaluationContext ctx;
  ctx.scenarios = {
      {{"region", "sex", "age", "education", "marital"}, {"smoke", "health", "employment"}}};
  std::printf(
      "rows %zu confidential x %zu synthetic, keys region,sex,age,education,marital, targets "
      "smoke,health,employment\n",
      rows, rows);
  double total = 0, total_cpu = 0;
  for (const char* name :
       {"correct_attribution_probability", "synthpop_disclosure", "disclosure_protection"}) {
    const MetricSpec* m = find_metric(name);
    const Params p = Params::resolve(name, m->params, nlohmann::json::object(), "bench");
    MetricInput in{conf, {&syn}, nullptr, ctx, "bench", 1};
    double best = 1e300, best_cpu = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      const MetricResult r = m->compute(in, p);
      best_cpu = std::min(best_cpu, static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
      best = std::min(best,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (r.values.empty()) std::printf("no values?\n");
    }
    total += best;
    total_cpu += best_cpu;
    std::printf("%-34s wall %.3f s, cpu %.3f s (best of 3)\n", name, best, best_cpu);
  }
  std::printf("%-34s wall %.3f s, cpu %.3f s\n", "all three", total, total_cpu);
}
