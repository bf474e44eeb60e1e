// Distance to closest record (DCR), nearest-neighbour distance ratio, exact copies, the
// holdout baseline and SDMetrics' DCRBaselineProtection / DCROverfittingProtection, all exact on
// the full data (stats/nearest_neighbours).
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/random.hpp"
#include "metrics/distance_disclosure/distance_params.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/binning.hpp"
#include "stats/nearest_neighbours.hpp"
#include "stats/neighbour_cache.hpp"
#include "stats/order_statistic_interval.hpp"
#include "stats/quantile.hpp"

namespace synthaudit {

namespace {

// Summaries of one direction's nearest (and second nearest) distances.
void summarise(MetricResult& result, const std::string& prefix, const stats::Neighbours& nb) {
  std::vector<double> d1 = nb.nearest();
  std::sort(d1.begin(), d1.end());
  if (d1.empty() || std::isinf(d1.front())) return;  // no rows, or nothing to compare with
  double sum = 0.0;
  std::size_t zeros = 0;
  for (double d : d1) {
    sum += d;
    zeros += d == 0.0;
  }
  const double n = static_cast<double>(d1.size());
  result.add(prefix + "_dcr_mean", "all", sum / n);
  result.add(prefix + "_dcr_median", "all",
             stats::quantile_type7(d1, 0.5, stats::QuantileArithmetic::kNumpy));
  result.add(prefix + "_dcr_p05", "all",
             stats::quantile_type7(d1, 0.05, stats::QuantileArithmetic::kNumpy));
  result.add(prefix + "_dcr_p25", "all",
             stats::quantile_type7(d1, 0.25, stats::QuantileArithmetic::kNumpy));
  result.add(prefix + "_dcr_p75", "all",
             stats::quantile_type7(d1, 0.75, stats::QuantileArithmetic::kNumpy));
  result.add(prefix + "_dcr_p95", "all",
             stats::quantile_type7(d1, 0.95, stats::QuantileArithmetic::kNumpy));
  result.add(prefix + "_dcr_min", "all", d1.front());
  result.add(prefix + "_dcr_max", "all", d1.back());
  // The copies are confidential records (or copies of them): the share reveals their count.
  result.add_share(prefix + "_exact_copy_share", "all", static_cast<double>(zeros), n);
}

// NNDR d1 / d2 per query; 1 when both are 0 (the query copies a record that occurs twice);
// NaN when there is no second neighbour.
std::vector<double> nndr(const stats::Neighbours& nb) {
  std::vector<double> out(nb.queries, NAN);
  if (nb.k < 2) return out;
  for (std::size_t q = 0; q < nb.queries; ++q) {
    const double a = nb.dist(q, 0), b = nb.dist(q, 1);
    if (std::isinf(b)) continue;
    out[q] = b == 0.0 ? 1.0 : a / b;
  }
  return out;
}

void summarise_nndr(MetricResult& result, const std::string& prefix, std::vector<double> r) {
  r.erase(std::remove_if(r.begin(), r.end(), [](double v) { return std::isnan(v); }), r.end());
  if (r.empty()) return;
  std::sort(r.begin(), r.end());
  double sum = 0.0;
  for (double v : r) sum += v;
  result.add(prefix + "_nndr_mean", "all", sum / static_cast<double>(r.size()));
  result.add(prefix + "_nndr_median", "all",
             stats::quantile_type7(r, 0.5, stats::QuantileArithmetic::kNumpy));
  result.add(prefix + "_nndr_p05", "all",
             stats::quantile_type7(r, 0.05, stats::QuantileArithmetic::kNumpy));
}

nlohmann::json histogram_plot(
    const std::string& title, const std::string& x_label,
    const std::vector<std::pair<std::string, std::vector<double>>>& series, std::size_t bins) {
  auto plot = make_plot("histogram", title, x_label, "density");
  double hi = 0.0;
  for (const auto& [name, v] : series)
    for (double d : v)
      if (std::isfinite(d)) hi = std::max(hi, d);
  for (const auto& [name, v] : series) {
    std::size_t n = 0;
    for (double d : v) n += std::isfinite(d);
    if (n == 0) continue;
    for (const auto& bin : stats::histogram(v, 0.0, hi, bins)) {
      const double width = bin.end - bin.start;
      plot["data"].push_back(
          {{"bin_start", bin.start},
           {"bin_end", bin.end},
           {"dataset", name},
           {"density", static_cast<double>(bin.count) / (static_cast<double>(n) * width)}});
    }
  }
  return plot;
}

// SDMetrics' DCRBaselineProtection random table (_generate_random_data): per column, uniform
// integers in [min, max] for a numeric column read as integers by pandas (no missing value and
// every value whole), uniform reals in [min, max) for other numeric columns, a uniform choice
// among the observed levels for categorical columns; then each value is set missing with the
// column's missing share. Drawn with synthaudit::Rng from the metric seed.
Table random_baseline(const Table& real, std::size_t rows, std::uint64_t seed) {
  std::vector<Column> cols;
  for (std::size_t c = 0; c < real.column_count(); ++c) {
    const Column& src = real.column(c);
    Rng rng(seed, c);
    Column col;
    col.name = src.name;
    col.kind = src.kind;
    col.dictionary = src.dictionary;
    const double missing_share =
        real.rows() ? static_cast<double>(src.missing_count()) / static_cast<double>(real.rows())
                    : 0.0;
    if (src.is_numeric()) {
      double lo = INFINITY, hi = -INFINITY;
      bool integer = src.missing_count() == 0;
      for (double v : src.numeric) {
        if (std::isnan(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        integer = integer && v == std::floor(v);
      }
      col.numeric.resize(rows, NAN);
      if (lo <= hi)
        for (auto& v : col.numeric)
          v = integer ? lo + static_cast<double>(rng.below(static_cast<std::uint64_t>(hi - lo) + 1))
                      : lo + rng.uniform() * (hi - lo);
      for (auto& v : col.numeric)
        if (rng.uniform() < missing_share) v = NAN;
    } else {
      std::vector<std::uint32_t> levels;
      for (auto code : src.codes)
        if (code != kMissingCode) levels.push_back(code);
      std::sort(levels.begin(), levels.end());
      levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
      col.codes.resize(rows, kMissingCode);
      if (!levels.empty())
        for (auto& v : col.codes) v = levels[rng.below(levels.size())];
      for (auto& v : col.codes)
        if (rng.uniform() < missing_share) v = kMissingCode;
    }
    cols.push_back(std::move(col));
  }
  return Table(TableSource{"(random baseline)", "", "synthetic"}, std::move(cols));
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return stats::quantile_type7(v, 0.5, stats::QuantileArithmetic::kNumpy);
}

// How far the headline statistics of a fresh real sample of the synthetic size would stray from
// the holdout's by sampling noise alone (the verdict's baseline noise):
// exact_copy_share_null_sd = sqrt(p (1 - p) (1/n_syn + 1/n_holdout)), p the holdout's share, the
// standard deviation of a difference of two independent proportions;
// dcr_median_ratio_null_sd = sqrt(1/n_syn + 1/n_holdout) / (2 f(m) m), the delta-method spread
// of a ratio of two sample medians (var of a median = 1 / (4 n f(m)^2)), with the density at the
// holdout median m estimated from the quantile spacing (q(0.55) - q(0.45)) / 0.1 (Siddiqui,
// 1960; Bloch & Gastwirth, 1968). NaN when the holdout median is 0.
void add_null_spreads(MetricResult& result, std::vector<double> holdout_dcr,
                      std::size_t synthetic_rows) {
  std::sort(holdout_dcr.begin(), holdout_dcr.end());
  const double n_h = static_cast<double>(holdout_dcr.size());
  const double n_s = static_cast<double>(synthetic_rows);
  const double sizes = std::sqrt(1.0 / n_s + 1.0 / n_h);
  std::size_t zeros = 0;
  for (double d : holdout_dcr) zeros += d == 0.0;
  // Agresti & Caffo's (2000) added successes and failures keep the spread above 0 when the
  // holdout copies no record.
  const double p = (static_cast<double>(zeros) + 1.0) / (n_h + 2.0);
  result.add("exact_copy_share_null_sd", "all", std::sqrt(p * (1.0 - p)) * sizes);
  const double median = stats::quantile_type7(holdout_dcr, 0.5, stats::QuantileArithmetic::kNumpy);
  const double spacing =
      stats::quantile_type7(holdout_dcr, 0.55, stats::QuantileArithmetic::kNumpy) -
      stats::quantile_type7(holdout_dcr, 0.45, stats::QuantileArithmetic::kNumpy);
  result.add("dcr_median_ratio_null_sd", "all",
             median > 0.0 ? sizes * (spacing / 0.1) / (2.0 * median) : NAN);
}

MetricResult compute_dcr(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (conf.rows() == 0 || syn.rows() == 0)
    throw MetricNotApplicable("distance to closest record needs rows in both datasets");
  // Every direction on the confidential data's scale.
  stats::NeighbourOptions opt = distance_metrics::neighbour_options(conf, params);
  const auto bins = static_cast<std::size_t>(params.get_int("bins"));

  opt.k = 2;
  opt.progress = in.progress;
  opt.progress_task = "distance_to_closest_record: synthetic to confidential";
  const auto syn_conf = stats::search_neighbours(in.neighbours, syn, conf, opt);
  distance_metrics::add_record_level(result, params, "syn_to_conf", syn_conf);
  summarise(result, "syn_to_conf", syn_conf);
  const auto syn_nndr = nndr(syn_conf);
  summarise_nndr(result, "syn_to_conf", syn_nndr);

  opt.k = 1;
  opt.progress_task = "distance_to_closest_record: confidential to synthetic";
  const auto conf_syn = stats::search_neighbours(in.neighbours, conf, syn, opt);
  distance_metrics::add_record_level(result, params, "conf_to_syn", conf_syn);
  summarise(result, "conf_to_syn", conf_syn);

  std::vector<std::pair<std::string, std::vector<double>>> to_conf = {
      {"synthetic", syn_conf.nearest()}};
  std::vector<std::pair<std::string, std::vector<double>>> ratios = {{"synthetic", syn_nndr}};
  if (in.holdout != nullptr && in.holdout->rows() > 0) {
    opt.k = 2;
    opt.progress_task = "distance_to_closest_record: holdout to confidential";
    const auto hold_conf = stats::search_neighbours(in.neighbours, *in.holdout, conf, opt);
    distance_metrics::add_record_level(result, params, "holdout_to_conf", hold_conf);
    summarise(result, "holdout_to_conf", hold_conf);
    const auto hold_nndr = nndr(hold_conf);
    summarise_nndr(result, "holdout_to_conf", hold_nndr);
    const double ms = median_of(syn_conf.nearest()), mh = median_of(hold_conf.nearest());
    result.add("dcr_median_ratio_syn_vs_holdout", "all", mh > 0.0 ? ms / mh : NAN);
    add_null_spreads(result, hold_conf.nearest(), syn.rows());
    // Share of synthetic records closer to the confidential data than 95% of holdout records.
    std::vector<double> hd = hold_conf.nearest();
    std::sort(hd.begin(), hd.end());
    const double p05 = stats::quantile_type7(hd, 0.05, stats::QuantileArithmetic::kNumpy);
    std::size_t closer = 0;
    for (double d : syn_conf.nearest()) closer += d < p05;
    result.add("syn_closer_than_holdout_p05_share", "all",
               static_cast<double>(closer) / static_cast<double>(syn.rows()));
    to_conf.push_back({"holdout", hold_conf.nearest()});
    ratios.push_back({"holdout", hold_nndr});
  } else {
    result.warnings.push_back(
        "no holdout: the holdout baseline and DCROverfittingProtection are not computed");
  }
  result.details["plots"] = nlohmann::json::array();
  result.details["plots"].push_back(
      histogram_plot("Distance to the closest confidential record",
                     std::string(stats::to_string(opt.distance)) + " distance", to_conf, bins));
  result.details["plots"].push_back(
      histogram_plot("Distance from each confidential record to the closest synthetic record",
                     std::string(stats::to_string(opt.distance)) + " distance",
                     {{"confidential", conf_syn.nearest()}}, bins));
  result.details["plots"].push_back(histogram_plot(
      "Nearest-neighbour distance ratio (closest / second closest confidential record)", "d1 / d2",
      ratios, bins));
  result.details["search"] = {{"syn_to_conf_exact_copy_shortcuts", syn_conf.exact_copy_shortcuts},
                              {"syn_to_conf_grouped", syn_conf.grouped},
                              {"sampled", false}};

  if (params.get_bool("sdmetrics")) {
    // SDMetrics' DCR: its Gower rule with ranges from the reference (real) table, all columns.
    stats::NeighbourOptions g;
    g.distance = stats::DistanceKind::kGower;
    g.k = 1;
    g.columns = opt.columns;
    g.progress = in.progress;
    g.progress_task = "distance_to_closest_record: synthetic to confidential (SDMetrics)";
    const bool same = opt.distance == stats::DistanceKind::kGower;
    const double syn_median =
        same ? median_of(syn_conf.nearest())
             : median_of(stats::search_neighbours(in.neighbours, syn, conf, g).nearest());
    // SDMetrics draws as many random records as there are synthetic ones. They are Monte Carlo
    // draws, not data: their count sets only the precision of the random median (reported as an
    // order-statistic interval below), so it is capped by sdmetrics_random_rows.
    const auto random_cap = static_cast<std::size_t>(params.get_int("sdmetrics_random_rows"));
    const std::size_t random_rows = random_cap == 0 ? syn.rows() : std::min(random_cap, syn.rows());
    const Table random = random_baseline(conf, random_rows, in.seed);
    g.progress_task = "distance_to_closest_record: random baseline to confidential (SDMetrics)";
    std::vector<double> random_dcr =
        stats::search_neighbours(in.neighbours, random, conf, g).nearest();
    std::sort(random_dcr.begin(), random_dcr.end());
    const double random_median =
        stats::quantile_type7(random_dcr, 0.5, stats::QuantileArithmetic::kNumpy);
    const auto protection = [&](double random_dcr_median) {
      return random_dcr_median != 0.0 ? std::min(syn_median / random_dcr_median, 1.0) : NAN;
    };
    result.add("sdmetrics_median_dcr_synthetic", "all", syn_median);
    result.add("sdmetrics_median_dcr_random_baseline", "all", random_median);
    result.add("sdmetrics_dcr_baseline_protection", "all", protection(random_median));
    // The synthetic median is exact (every synthetic record searched); only the random median
    // carries Monte Carlo error, so its interval maps through the score, which falls as the
    // random median rises.
    if (const auto ranks = stats::median_interval_ranks(random_dcr.size(), 0.95)) {
      const double lower = random_dcr[ranks->lower - 1], upper = random_dcr[ranks->upper - 1];
      result.add("sdmetrics_median_dcr_random_baseline_ci95_lower", "all", lower);
      result.add("sdmetrics_median_dcr_random_baseline_ci95_upper", "all", upper);
      result.add("sdmetrics_dcr_baseline_protection_ci95_lower", "all", protection(upper));
      result.add("sdmetrics_dcr_baseline_protection_ci95_upper", "all", protection(lower));
    }
    result.details["search"]["sdmetrics_random_rows"] = random_rows;
    if (in.holdout != nullptr && in.holdout->rows() > 0) {
      // DCROverfittingProtection: each calculate_dcr call takes ranges from its own reference.
      // With the default Gower distance this is syn_to_conf (same rule, same ranges).
      g.progress_task = "distance_to_closest_record: synthetic to confidential (SDMetrics)";
      const auto to_train = same ? syn_conf.nearest()
                                 : stats::search_neighbours(in.neighbours, syn, conf, g).nearest();
      g.progress_task = "distance_to_closest_record: synthetic to holdout (SDMetrics)";
      const auto to_hold = stats::search_neighbours(in.neighbours, syn, *in.holdout, g).nearest();
      std::size_t closer = 0;
      for (std::size_t i = 0; i < to_train.size(); ++i) closer += to_train[i] < to_hold[i];
      const double share = static_cast<double>(closer) / static_cast<double>(to_train.size());
      result.add("sdmetrics_closer_to_training_share", "all", share);
      result.add("sdmetrics_dcr_overfitting_protection", "all", std::min((1.0 - share) * 2.0, 1.0));
    }
  }
  return result;
}

}  // namespace

MetricSpec distance_to_closest_record_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "distance_to_closest_record",
      .family = MetricFamily::kDistanceDisclosure,
      .summary =
          "Distance from each synthetic record to the closest confidential record (and "
          "back), exact copies, nearest-neighbour distance ratio, holdout baseline, "
          "SDMetrics DCR protection scores",
      .doc =
          "Exact nearest neighbours on the full data, no sampling. For every synthetic record "
          "its distance to the closest confidential record (syn_to_conf_dcr_*: mean, median, "
          "p05, p25, p75, p95, min, max) and, named distinctly, for every confidential record "
          "the distance to the closest synthetic record (conf_to_syn_dcr_*). "
          "*_exact_copy_share = share at distance 0 (syn_to_conf: synthetic records that copy "
          "a real person; conf_to_syn: real people reproduced). NNDR = d1/d2, the closest over "
          "the second-closest confidential record (1 when both are 0); values near 0 single "
          "out one real record. With a holdout, the same distances from holdout records to the "
          "confidential data are the baseline of what an unrelated real person scores: "
          "dcr_median_ratio_syn_vs_holdout = median syn DCR / median holdout DCR (below 1: "
          "synthetic records sit closer to the training records than new real people do), "
          "syn_closer_than_holdout_p05_share, and the sampling spreads the verdict compares with: "
          "exact_copy_share_null_sd = sqrt(p (1 - p) (1/n_syn + 1/n_holdout)) with p the holdout's "
          "exact-copy share after adding one copy and one non-copy (Agresti & Caffo, 2000), and "
          "dcr_median_ratio_null_sd, the delta-method spread of a ratio of two sample medians with "
          "the density at the holdout median from the quantile spacing (Siddiqui, 1960; Bloch & "
          "Gastwirth, 1968). Distance (parameter): Gower by default = mean over "
          "columns of min(|x−y|/range, 1) for numeric columns and 0/1 mismatch otherwise, "
          "both missing = 0, one missing = 1, ranges from the confidential data in every "
          "direction; also euclidean (standardised numerics), hamming, cosine. "
          "SDMetrics (sdmetrics = true): DCRBaselineProtection = min(median syn DCR / median "
          "DCR of a random table, 1) with SDMetrics' Gower rule (sdmetrics_median_dcr_*, the "
          "random table drawn from the metric seed) and, with a holdout, "
          "DCROverfittingProtection = min(2 (1 − share of synthetic records strictly closer to "
          "the training than to the holdout data), 1), each reference with its own ranges, as "
          "SDMetrics does. Random table size: SDMetrics (source read at version 0.29.1.dev0, "
          "commit 54362a3, DCRBaselineProtection.compute_breakdown) draws as many random records "
          "as there are "
          "synthetic records and, with num_rows_subsample set, samples that many rows of the "
          "synthetic, random and real tables alike, averaging medians and scores over "
          "num_iterations such draws (default: no subsampling, one iteration). Here every "
          "synthetic and real record is always searched exactly; only the random table, Monte "
          "Carlo draws used through their median alone, is capped at sdmetrics_random_rows "
          "records (default 50,000; 0 = as many as the synthetic table, as SDMetrics; tables "
          "at or below the cap are unchanged). Its precision is reported as a distribution-free "
          "95% interval for the random median from two order statistics, ranks r = the 2.5% "
          "quantile of Binomial(n, 1/2) and n + 1 − r, coverage at least 95% (Conover, 1999), "
          "and the interval this implies for DCRBaselineProtection (the synthetic median is "
          "exact). At 50,000 random records the interval runs between the 49.56th and 50.44th "
          "percentiles of the random distances (ranks 24,781 and 25,220), while the search "
          "costs 50,000 / n_syn of a full-size table's (at 1M records the full-size search "
          "was 70% of the distance metrics' time).",
      .params = distance_metrics::selection_params(
          {{.name = "bins",
            .type = ParamType::kInt,
            .default_value = std::int64_t{30},
            .doc = "histogram bins of the plot data",
            .min = 1,
            .max = 1000},
           {.name = "sdmetrics",
            .type = ParamType::kBool,
            .default_value = true,
            .doc = "also compute SDMetrics' DCRBaselineProtection and DCROverfittingProtection"},
           {.name = "sdmetrics_random_rows",
            .type = ParamType::kInt,
            .default_value = std::int64_t{50000},
            .doc = "most records of DCRBaselineProtection's random table (Monte Carlo draws; "
                   "their count sets only the precision of the random median, reported as a "
                   "95% interval); 0 = as many as the synthetic table, as SDMetrics draws",
            .min = 0}}),
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "syn_to_conf_exact_copy_share",
                     .ideal = Ideal::lower(),
                     .reading =
                         "share of synthetic records that exactly copy a confidential record",
                     .axis = "risk",
                     .baseline = Baseline::from_statistic(
                         "holdout_to_conf_exact_copy_share", "exact_copy_share_null_sd",
                         "the holdout's own exact-copy share against the confidential data, "
                         "computed by this metric on the whole holdout"),
                     .unit = Unit::kShare},
                    {.statistic = "dcr_median_ratio_syn_vs_holdout",
                     .ideal = Ideal::higher(),
                     .reading =
                         "median distance synthetic→real over holdout→real (below 1: synthetic "
                         "records are closer to real people than new real people are)",
                     .axis = "risk",
                     .baseline = Baseline::analytic(
                         1.0, "dcr_median_ratio_null_sd",
                         "a fresh real sample's records are as far from the confidential records "
                         "as the holdout's (ratio 1); the spread is that of a ratio of two sample "
                         "medians of these sizes"),
                     .unit = Unit::kNumber}},
      .compute = compute_dcr,
      .statistics =
          {{"{syn_to_conf|conf_to_syn}_dcr_mean",
            "mean distance from each synthetic record to its closest confidential record "
            "(syn_to_conf), or from each confidential record to its closest synthetic record "
            "(conf_to_syn); compare with the holdout",
            Ideal::higher(),
            {kAll}},
           {"{syn_to_conf|conf_to_syn}_dcr_{median|p05|p25|p75|p95}",
            "percentiles of the same distances (one record's distance each)",
            Ideal::higher(),
            {kAll},
            OutputClass::kQuantile},
           {"{syn_to_conf|conf_to_syn}_dcr_{min|max}",
            "smallest and largest of the same distances (one record's distance each)",
            Ideal::higher(),
            {kAll},
            OutputClass::kExtreme},
           {"holdout_to_conf_dcr_mean",
            "the same mean distance from holdout records: what unrelated real people score",
            std::nullopt,
            {kAll}},
           {"holdout_to_conf_dcr_{median|p05|p25|p75|p95}",
            "percentiles of the distances from holdout records",
            std::nullopt,
            {kAll},
            OutputClass::kQuantile},
           {"holdout_to_conf_dcr_{min|max}",
            "smallest and largest distance from a holdout record",
            std::nullopt,
            {kAll},
            OutputClass::kExtreme},
           {"{syn_to_conf|conf_to_syn}_exact_copy_share",
            "share at distance 0: synthetic records that copy a real record on every compared "
            "column (syn_to_conf), real records reproduced (conf_to_syn)",
            Ideal::lower(),
            {kAll}},
           {"holdout_to_conf_exact_copy_share",
            "share of holdout records identical to a confidential record: the baseline for exact "
            "copies",
            std::nullopt,
            {kAll}},
           {"exact_copy_share_null_sd",
            "standard deviation of the difference of two exact-copy shares under no copying: "
            "sqrt(p (1 - p) (1/n_syn + 1/n_holdout)), p the holdout's share; the sampling noise "
            "of the exact-copy headline's baseline",
            std::nullopt,
            {kAll}},
           {"syn_to_conf_nndr_{mean|median|p05}",
            "nearest-neighbour distance ratio, closest over second-closest confidential record; "
            "near 0 singles out one real record",
            Ideal::higher(),
            {kAll}},
           {"holdout_to_conf_nndr_{mean|median|p05}",
            "the same ratio for holdout records",
            std::nullopt,
            {kAll}},
           {"dcr_median_ratio_syn_vs_holdout",
            "median synthetic DCR / median holdout DCR (below 1: synthetic records sit closer to "
            "the real records than unrelated real people do)",
            Ideal::higher(),
            {kAll}},
           {"dcr_median_ratio_null_sd",
            "delta-method standard deviation of a ratio of two sample medians of these sizes when "
            "both samples come from one population: the sampling noise of the ratio's baseline "
            "of 1",
            std::nullopt,
            {kAll}},
           {"syn_closer_than_holdout_p05_share",
            "share of synthetic records closer to a real record than the holdout's 5th percentile "
            "(about 0.05 for a fresh sample)",
            Ideal::lower(),
            {kAll}},
           {"sdmetrics_median_dcr_synthetic",
            "median synthetic-to-real DCR with SDMetrics' Gower rule",
            Ideal::higher(),
            {kAll}},
           {"sdmetrics_median_dcr_random_baseline",
            "the same for a random table drawn as SDMetrics does",
            std::nullopt,
            {kAll}},
           {"sdmetrics_dcr_baseline_protection",
            "min(synthetic median / random median, 1), SDMetrics' DCRBaselineProtection",
            Ideal::higher(),
            {kAll}},
           {"sdmetrics_median_dcr_random_baseline_{ci95_lower|ci95_upper}",
            "distribution-free 95% interval for the random table's median DCR from two order "
            "statistics (binomial ranks): the Monte Carlo precision of the random baseline",
            std::nullopt,
            {kAll}},
           {"sdmetrics_dcr_baseline_protection_{ci95_lower|ci95_upper}",
            "the interval the random median's interval implies for DCRBaselineProtection (its "
            "lower bound from the random median's upper bound and vice versa)",
            std::nullopt,
            {kAll}},
           {"sdmetrics_closer_to_training_share",
            "share of synthetic records strictly closer to the training than to the holdout data",
            Ideal::lower(),
            {kAll}},
           {"sdmetrics_dcr_overfitting_protection",
            "min(2(1 − closer_to_training_share), 1), SDMetrics' DCROverfittingProtection",
            Ideal::higher(),
            {kAll}}},
      .references = {cite(mendelevitch_lesh_2021(),
                          "distance to closest record and nearest-neighbour distance ratio"),
                     cite(gower_1971(), "the Gower distance"),
                     cite(urban_institute_2023(),
                          "the holdout as the baseline for copy protection"),
                     cite(sdmetrics_software(),
                          "dcr_utils, DCRBaselineProtection and DCROverfittingProtection, "
                          "reproduced on SD2011"),
                     cite(conover_1999(),
                          "the distribution-free interval for the random baseline's median")},
  };
}

}  // namespace synthaudit
