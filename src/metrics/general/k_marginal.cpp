// NIST's k-marginal score (SDNist, the Collaborative Research Cycle): the mean over k-way
// marginals of Σ|p_conf − p_syn| mapped to 0–1000, with the subsample-equivalence anchor (the
// same score for random subsamples of the confidential data), so that a committee reads "as good
// as an X % sample of the real data".
//
// Hand-written rather than a pandas-style group-by: each marginal is one pass over coded rows
// into a dense (or, for large level products, sorted) count table, and the anchor repeats that
// pass for 11 fractions × draws subsamples, so the pass is the cost of the metric; the anchor
// depends on the confidential data alone and is computed once per evaluation (MetricMemo).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "core/threads.hpp"
#include "metrics/metric.hpp"
#include "metrics/metric_memo.hpp"
#include "metrics/references.hpp"
#include "stats/column_lookup.hpp"
#include "stats/keys.hpp"

namespace synthaudit {

namespace {

// The subsample fractions of SDNist's anchor, in percent.
constexpr int kFractions[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90};

// One k-way marginal's cell index per row of table `t` of the coding (0 confidential, 1
// synthetic): its columns' codes combined, the first column most significant. Returns the number
// of cells (the product of the level counts).
std::uint64_t marginal_cells(const std::vector<stats::CodedColumn>& coded,
                             const std::vector<std::size_t>& subset, std::size_t t,
                             std::vector<std::uint64_t>& cell) {
  std::uint64_t cells = 1;
  for (auto c : subset) cells *= coded[c].levels();
  cell.assign(coded[subset[0]].codes[t].size(), 0);
  for (auto it = subset.rbegin(); it != subset.rend(); ++it)
    for (std::size_t r = 0; r < cell.size(); ++r)
      cell[r] = cell[r] * coded[*it].levels() + coded[*it].codes[t][r];
  return cells;
}

// Counts of the cells of `rows` (all of them when empty) as a sorted (cell, count) list; dense
// when the cell count is small.
struct CellCounts {
  std::vector<std::pair<std::uint64_t, double>> counts;
  double total = 0;
};

CellCounts count_cells(const std::vector<std::uint64_t>& cell, std::uint64_t cells,
                       const std::vector<std::uint32_t>* rows) {
  CellCounts out;
  const std::size_t n = rows ? rows->size() : cell.size();
  out.total = static_cast<double>(n);
  if (cells <= (std::uint64_t{1} << 20) && cells <= 4 * n + 1024) {
    std::vector<double> dense(cells, 0.0);
    for (std::size_t i = 0; i < n; ++i) dense[cell[rows ? (*rows)[i] : i]] += 1;
    for (std::uint64_t c = 0; c < cells; ++c)
      if (dense[c] > 0) out.counts.emplace_back(c, dense[c]);
    return out;
  }
  std::vector<std::uint64_t> sorted(n);
  for (std::size_t i = 0; i < n; ++i) sorted[i] = cell[rows ? (*rows)[i] : i];
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && sorted[j] == sorted[i]) ++j;
    out.counts.emplace_back(sorted[i], static_cast<double>(j - i));
    i = j;
  }
  return out;
}

// Σ_cells |a/N_a − b/N_b| over the union of cells (SDNist's density difference, in [0, 2]).
double density_difference(const CellCounts& a, const CellCounts& b) {
  if (a.total == 0 || b.total == 0) return std::nan("");
  double sum = 0;
  std::size_t i = 0, j = 0;
  while (i < a.counts.size() || j < b.counts.size()) {
    if (j == b.counts.size() || (i < a.counts.size() && a.counts[i].first < b.counts[j].first)) {
      sum += a.counts[i++].second / a.total;
    } else if (i == a.counts.size() || b.counts[j].first < a.counts[i].first) {
      sum += b.counts[j++].second / b.total;
    } else {
      sum += std::abs(a.counts[i++].second / a.total - b.counts[j++].second / b.total);
    }
  }
  return sum;
}

// All k-subsets of 0..n−1 in lexicographic order.
std::vector<std::vector<std::size_t>> all_subsets(std::size_t n, std::size_t k) {
  std::vector<std::vector<std::size_t>> out;
  if (k > n) return out;
  std::vector<std::size_t> pick(k);
  std::iota(pick.begin(), pick.end(), 0);
  while (true) {
    out.push_back(pick);
    std::size_t i = k;
    while (i > 0 && pick[i - 1] == n - k + i - 1) --i;
    if (i == 0) break;
    ++pick[i - 1];
    for (std::size_t j = i; j < k; ++j) pick[j] = pick[j - 1] + 1;
  }
  return out;
}

// `count` distinct k-subsets drawn uniformly (all of them when there are not more).
std::vector<std::vector<std::size_t>> random_subsets(std::size_t n, std::size_t k,
                                                     std::size_t count, Rng& rng) {
  double total = 1;
  for (std::size_t i = 0; i < k; ++i) total = total * static_cast<double>(n - i) / (i + 1.0);
  if (total <= static_cast<double>(count)) return all_subsets(n, k);
  std::vector<std::vector<std::size_t>> out;
  while (out.size() < count) {
    std::vector<std::size_t> pick;
    while (pick.size() < k) {
      const auto c = static_cast<std::size_t>(rng.below(n));
      if (std::find(pick.begin(), pick.end(), c) == pick.end()) pick.push_back(c);
    }
    std::sort(pick.begin(), pick.end());
    if (std::find(out.begin(), out.end(), pick) == out.end()) out.push_back(std::move(pick));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string order_scope(std::size_t k) { return k == 2 ? "two-way" : "three-way"; }

// The anchor's sums: for each subsample of the confidential data ([draw × fractions + fraction],
// drawn from the evaluation's seed, not the replicate's, so every candidate is read against the
// same curve), the density differences between the whole confidential data and the subsample,
// added over the marginals in marginal order (so the sums do not depend on the threads).
// Marginals run in parallel, each thread forming, counting and dropping one marginal's cells at a
// time: holding every marginal's cells at once took rows × marginals × 16 bytes (1.8 GB for the
// 1,140 triples of 20 columns at 100k rows).
std::vector<double> anchor_sums(const std::vector<stats::CodedColumn>& coded,
                                const std::vector<std::vector<std::size_t>>& subsets, std::size_t n,
                                int draws, std::uint64_t seed, std::size_t k,
                                ProgressSink* progress) {
  const std::size_t fractions = std::size(kFractions);
  std::vector<std::vector<std::uint32_t>> subsamples;
  for (int d = 0; d < draws; ++d) {
    Rng rng(seed, 0x73756273616d70ULL + static_cast<std::uint64_t>(d) * 131 + k);
    for (std::size_t f = 0; f < fractions; ++f) {
      const auto size = std::max<std::size_t>(
          1, static_cast<std::size_t>(std::llround(kFractions[f] / 100.0 * n)));
      // Partial Fisher–Yates: the first `size` entries are a uniform sample without replacement.
      std::vector<std::uint32_t> rows(n);
      std::iota(rows.begin(), rows.end(), 0u);
      for (std::size_t i = 0; i < size; ++i)
        std::swap(rows[i], rows[i + static_cast<std::size_t>(rng.below(n - i))]);
      rows.resize(size);
      rows.shrink_to_fit();
      subsamples.push_back(std::move(rows));
    }
  }
  const std::size_t samples = subsamples.size();
  std::vector<double> subsample_difference(subsets.size() * samples);
  const auto subset_count = static_cast<std::ptrdiff_t>(subsets.size());
  // At a million rows the subsample passes run for minutes: say how far they are.
  ProgressTracker tracker(progress,
                          "k_marginal: " + std::to_string(k) +
                              "-way subsample curve (marginals × "
                              "subsamples)",
                          subsets.size() * samples);
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::ptrdiff_t signed_i = 0; signed_i < subset_count; ++signed_i) {
    if (tracker.stopped()) continue;
    const auto i = static_cast<std::size_t>(signed_i);
    std::vector<std::uint64_t> cell;
    const std::uint64_t cells = marginal_cells(coded, subsets[i], 0, cell);
    const CellCounts whole = count_cells(cell, cells, nullptr);
    for (std::size_t s = 0; s < samples; ++s) {
      subsample_difference[i * samples + s] =
          density_difference(whole, count_cells(cell, cells, &subsamples[s]));
      tracker.advance(1);
    }
  }
  tracker.throw_if_stopped();
  std::vector<double> sums(samples, 0.0);
  for (std::size_t i = 0; i < subsets.size(); ++i)
    for (std::size_t s = 0; s < samples; ++s) sums[s] += subsample_difference[i * samples + s];
  return sums;
}

MetricResult compute_k_marginal(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const auto max_order = static_cast<std::size_t>(params.get_int("max_order"));
  const auto random_marginals = static_cast<std::size_t>(params.get_int("random_marginals"));
  const auto draws = static_cast<int>(params.get_int("subsample_draws"));
  stats::CodingOptions coding;
  coding.numeric = stats::NumericCoding::kQuantile;
  coding.bins = static_cast<int>(params.get_int("bins"));

  // Columns in name order (as SDNist sorts them), without the survey design columns.
  std::vector<std::size_t> columns;
  const auto named = params.get_string_list("columns");
  if (!named.empty()) {
    columns = stats::resolve_columns(conf, named, "parameter columns: column");
  } else {
    for (std::size_t c = 0; c < conf.column_count(); ++c) {
      const std::string& name = conf.column(c).name;
      if (name != in.context.weights && name != in.context.household) columns.push_back(c);
    }
  }
  std::sort(columns.begin(), columns.end(), [&](std::size_t a, std::size_t b) {
    return conf.column(a).name < conf.column(b).name;
  });
  MetricResult result;
  if (conf.rows() == 0 || syn.rows() == 0) {
    result.warnings.push_back("a dataset has no rows");
    return result;
  }
  std::vector<stats::CodedColumn> coded;
  for (auto c : columns) coded.push_back(stats::code_column({&conf, &syn}, c, coding));

  Rng choose(in.context.seed, 0x6b6d61726731ULL);
  for (std::size_t k = 2; k <= max_order; ++k) {
    if (columns.size() < k) {
      result.warnings.push_back(std::to_string(k) + "-way marginals need at least " +
                                std::to_string(k) + " columns");
      continue;
    }
    // SDNist takes every pair when there are fewer than 30 columns, else 200 random pairs.
    const auto subsets = columns.size() < 30
                             ? all_subsets(columns.size(), k)
                             : random_subsets(columns.size(), k, random_marginals, choose);
    // The differences of the candidate, marginals in parallel and added in marginal order.
    std::vector<double> difference(subsets.size());
    const auto subset_count = static_cast<std::ptrdiff_t>(subsets.size());
    ProgressTracker tracker(in.progress, "k_marginal: " + std::to_string(k) + "-way marginals",
                            subsets.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
    for (std::ptrdiff_t signed_i = 0; signed_i < subset_count; ++signed_i) {
      if (tracker.stopped()) continue;
      const auto i = static_cast<std::size_t>(signed_i);
      std::vector<std::uint64_t> conf_cell, syn_cell;
      const std::uint64_t cells = marginal_cells(coded, subsets[i], 0, conf_cell);
      marginal_cells(coded, subsets[i], 1, syn_cell);
      difference[i] = density_difference(count_cells(conf_cell, cells, nullptr),
                                         count_cells(syn_cell, cells, nullptr));
      tracker.advance(1);
    }
    tracker.throw_if_stopped();
    double sum = 0;
    for (double d : difference) sum += d;
    const auto marginals = static_cast<double>(subsets.size());
    const double mean_difference = sum / marginals;
    const double score = (2 - mean_difference) * 500;
    const std::string scope = order_scope(k);
    result.add("marginals", scope, marginals);
    result.add("mean_density_difference", scope, mean_difference);
    result.add("k_marginal_score", scope, score);
    if (draws == 0) continue;

    // The anchor depends on the confidential data alone: the quantile breaks come from it, and a
    // level only another table holds relabels the confidential cells in the same order, which
    // leaves every sum unchanged. So one evaluation computes it once (over 90 % of the metric's
    // passes: 4.56 × draws confidential sizes per marginal) and shares it between candidates,
    // replicates and baseline draws.
    const std::size_t fractions = std::size(kFractions);
    const auto compute_anchor = std::function<std::vector<double>()>([&] {
      return anchor_sums(coded, subsets, conf.rows(), draws, in.context.seed, k, in.progress);
    });
    std::string key = "k_marginal anchor " +
                      std::to_string(reinterpret_cast<std::uintptr_t>(&conf)) + " seed " +
                      std::to_string(in.context.seed) + " k " + std::to_string(k) + " draws " +
                      std::to_string(draws) + " bins " + std::to_string(coding.bins) + " random " +
                      std::to_string(random_marginals) + " columns";
    for (auto c : columns) key += " " + std::to_string(c);
    const auto anchor = in.memo != nullptr
                            ? in.memo->get_or_compute(key, compute_anchor)
                            : std::make_shared<const std::vector<double>>(compute_anchor());
    const std::vector<double>& subsample_sums = *anchor;
    std::vector<double> curve(fractions, 0.0);
    for (int d = 0; d < draws; ++d)
      for (std::size_t f = 0; f < fractions; ++f)
        curve[f] += (2 - subsample_sums[static_cast<std::size_t>(d) * fractions + f] / marginals) *
                    500 / draws;
    for (std::size_t f = 0; f < std::size(kFractions); ++f)
      result.add("subsample_score_" + std::to_string(kFractions[f]) + "pct", scope, curve[f]);
    // Equivalent fraction: where the candidate's score meets the curve, linear between the
    // fractions; the curve made non-decreasing first (subsampling noise can make it dip).
    std::vector<double> envelope(curve);
    for (std::size_t f = 1; f < envelope.size(); ++f)
      envelope[f] = std::max(envelope[f], envelope[f - 1]);
    double equivalent = kFractions[0] / 100.0;
    if (score >= envelope.back()) {
      equivalent = kFractions[std::size(kFractions) - 1] / 100.0;
      result.warnings.push_back(scope + " k-marginal score " + format_number(score) +
                                " is at least that of a 90 % subsample of the confidential data (" +
                                format_number(envelope.back()) +
                                "): equivalent_subsample_fraction is reported as 0.9");
    } else if (score <= envelope.front()) {
      result.warnings.push_back(scope + " k-marginal score " + format_number(score) +
                                " is at most that of a 1 % subsample of the confidential data (" +
                                format_number(envelope.front()) +
                                "): equivalent_subsample_fraction is reported as 0.01");
    } else {
      for (std::size_t f = 1; f < envelope.size(); ++f) {
        if (score > envelope[f]) continue;
        const double lo = kFractions[f - 1] / 100.0, hi = kFractions[f] / 100.0;
        const double step = envelope[f] - envelope[f - 1];
        equivalent = step > 0 ? lo + (hi - lo) * (score - envelope[f - 1]) / step : hi;
        break;
      }
    }
    result.add("equivalent_subsample_fraction", scope, equivalent);
  }
  return result;
}

}  // namespace

MetricSpec k_marginal_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "k_marginal",
      .family = MetricFamily::kGeneral,
      .summary =
          "NIST's k-marginal score (0–1000) over all 2-way and 3-way marginals, with the "
          "fraction of a real subsample that scores as well",
      .doc =
          "For each k-way marginal (a set of k columns), the densities p_conf(cell) and "
          "p_syn(cell) of its cells (count / rows) and D = Σ_cells |p_conf − p_syn| ∈ [0, 2]; "
          "mean_density_difference is the mean of D over the marginals and k_marginal_score = "
          "(2 − mean D) × 500 ∈ [0, 1000] (1000 = every marginal identical), SDNist's "
          "definition (its KMarginal without a group feature): every pair of columns when there "
          "are fewer than 30, else `random_marginals` distinct random sets (SDNist draws 200 "
          "pairs with replacement, a column possibly twice); k = 3 uses the same formula over "
          "triples. Columns in name order, the weights and household design columns left out; "
          "numeric columns cut into `bins` quantile bins of the confidential data (SDNist bins "
          "by its data dictionary); a missing value is a level of its own (pandas' group-by, "
          "which SDNist uses, drops rows with a missing value from the counts but not from the "
          "row total). Anchor: the same score for seeded random subsamples (without "
          "replacement) of 1, 5, 10, 20, …, 90 % of the confidential data, averaged over "
          "`subsample_draws` draws (SDNist scores one draw per fraction and truncates the score "
          "to an integer; here neither), drawn from the evaluation's seed so every candidate "
          "is read against the same curve; equivalent_subsample_fraction is where the "
          "candidate's score meets that curve (made non-decreasing), linear between fractions, "
          "and 0.01 or 0.9 with a warning beyond its ends. Reading: 'as good as an X % sample "
          "of the real data'; higher is better.",
      .params = {{.name = "max_order",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{3},
                  .doc = "largest marginal order: 2 (pairs) or 3 (pairs and triples)",
                  .min = 2,
                  .max = 3},
                 {.name = "bins",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{10},
                  .doc = "quantile bins of each numeric column (breaks from the confidential "
                         "data)",
                  .min = 2,
                  .max = 1000},
                 {.name = "random_marginals",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{200},
                  .doc = "with 30 or more columns: the number of random marginals per order "
                         "(SDNist: 200)",
                  .min = 1},
                 {.name = "subsample_draws",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{5},
                  .doc = "draws per subsample fraction for the anchor (0 = no anchor)",
                  .min = 0,
                  .max = 1000},
                 {.name = "columns",
                  .type = ParamType::kStringList,
                  .default_value = std::vector<std::string>{},
                  .doc = "the columns to score (default: all but the survey design columns)",
                  .names_columns = true}},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "equivalent_subsample_fraction",
                     .scope = "two-way",
                     .ideal = Ideal::higher(),
                     .reading = "the fraction of a random sample of the real data whose 2-way "
                                "marginals score as well (NIST k-marginal)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare}},
      .compute = compute_k_marginal,
      .statistics =
          {{"k_marginal_score",
            "(2 − mean Σ|p_conf − p_syn|) × 500 over the marginals of this order (0–1000, 1000 = "
            "identical)",
            Ideal::higher(),
            {kTableOrder}},
           {"mean_density_difference",
            "mean over the marginals of Σ_cells |p_conf − p_syn| (0 = identical, 2 = disjoint)",
            Ideal::lower(),
            {kTableOrder}},
           {"marginals", "number of marginals scored", std::nullopt, {kTableOrder}},
           {"subsample_score_{1|5|10|20|30|40|50|60|70|80|90}pct",
            "the k-marginal score of a random subsample of that percentage of the confidential "
            "data (mean over draws)",
            std::nullopt,
            {kTableOrder}},
           {"equivalent_subsample_fraction",
            "the subsample fraction whose score equals the candidate's (0.01–0.9)",
            Ideal::higher(),
            {kTableOrder}}},
      .references = {cite(sdnist_software(),
                          "the k-marginal score and its subsample anchor, reproduced on SD2011")},
  };
}

}  // namespace synthaudit
