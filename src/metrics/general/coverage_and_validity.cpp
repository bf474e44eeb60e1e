// Coverage and validity diagnostics (SDMetrics RangeCoverage, CategoryCoverage,
// BoundaryAdherence, CategoryAdherence, MissingValueSimilarity).
#include <algorithm>
#include <cmath>

#include "core/communicator.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/general/sorted_runs.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/level_counts.hpp"

namespace synthaudit {

namespace {

double mean_of(double sum, std::size_t n) { return n == 0 ? std::nan("") : sum / double(n); }

// What both forms send of one column: the row and missing counts of both datasets; for a numeric
// column the confidential minimum and maximum, then what `write_synthetic_values` writes of the
// synthetic values; for a categorical one both datasets' level counts.
template <typename WriteSyntheticValues>
void write_column(StateWriter& out, const Column& cc, const Column& sc,
                  WriteSyntheticValues write_synthetic_values) {
  out.u64(cc.size());
  out.u64(cc.missing_count());
  out.u64(sc.size());
  out.u64(sc.missing_count());
  if (cc.is_numeric()) {
    double lo = INFINITY, hi = -INFINITY;
    for (double v : cc.numeric)
      if (!std::isnan(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    out.f64(lo);
    out.f64(hi);
    write_synthetic_values(out);
  } else {
    const auto nc = stats::level_counts(cc), ns = stats::level_counts(sc);
    out.u64s({nc.begin(), nc.end()});
    out.u64s({ns.begin(), ns.end()});
  }
}

// The metric's state, also the single process's (compute is finalize over one state, so one
// process and a partitioned run share every rule). Per column: both datasets' row and missing
// counts; numeric columns the confidential minimum and maximum and the synthetic values as a sorted
// run (boundary adherence counts the synthetic values inside the whole confidential range, known
// only after the merge, so the merging process holds the synthetic numeric values); categorical
// columns both datasets' level counts. finalize rebuilds each column from these and runs the same
// per-column rules.
std::string coverage_state(const MetricInput& in, const Params&) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  StateWriter out;
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    if (is_design_column(in, c)) continue;
    const Column& sc = syn.column(c);
    write_column(out, conf.column(c), sc,
                 [&](StateWriter& to) { write_run(to, sorted_run(sc.numeric, nullptr)); });
  }
  return out.take();
}

// What the statistics need of one column over the whole tables: row and missing counts; numeric
// columns the confidential range and the synthetic non-missing values' count, range and how many
// of them lie in the confidential range; categorical columns both level counts.
struct ColumnFacts {
  std::uint64_t conf_rows = 0, conf_missing = 0, syn_rows = 0, syn_missing = 0;
  double lo = INFINITY, hi = -INFINITY;
  double syn_lo = INFINITY, syn_hi = -INFINITY;
  std::uint64_t syn_values = 0, syn_within = 0;
  std::vector<std::uint64_t> conf_levels, syn_levels;
};

// Adds one column as write_column wrote it into `m`; `read_synthetic_values` reads what the form
// wrote of a numeric column's synthetic values.
template <typename ReadSyntheticValues>
void read_column(StateReader& in, ColumnFacts& m, bool numeric,
                 ReadSyntheticValues read_synthetic_values) {
  m.conf_rows += in.u64();
  m.conf_missing += in.u64();
  m.syn_rows += in.u64();
  m.syn_missing += in.u64();
  if (numeric) {
    m.lo = std::min(m.lo, in.f64());
    m.hi = std::max(m.hi, in.f64());
    read_synthetic_values(in);
  } else {
    add_into(m.conf_levels, in.u64s());
    add_into(m.syn_levels, in.u64s());
  }
}

std::vector<std::size_t> compared_columns(const MetricInput& schema) {
  std::vector<std::size_t> columns;
  for (std::size_t c = 0; c < schema.confidential.column_count(); ++c)
    if (!is_design_column(schema, c)) columns.push_back(c);
  return columns;
}

MetricResult coverage_result(const std::vector<ColumnFacts>& merged,
                             const std::vector<std::size_t>& columns, const Table& conf) {
  MetricResult result;
  double sum_range = 0, sum_boundary = 0, sum_category = 0, sum_adherence = 0, sum_missing = 0;
  std::size_t n_range = 0, n_boundary = 0, n_category = 0, n_adherence = 0, n_missing = 0;
  std::size_t new_total = 0;
  auto new_levels_json = nlohmann::json::object();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const ColumnFacts& m = merged[i];
    const Column& cc = conf.column(columns[i]);
    const std::string& name = cc.name;
    const double mc = m.conf_rows ? double(m.conf_missing) / double(m.conf_rows) : std::nan("");
    const double ms = m.syn_rows ? double(m.syn_missing) / double(m.syn_rows) : std::nan("");
    // The three that involve the confidential share reveal its count of missing values (with the
    // released row count and synthetic share).
    const double conf_missing = double(m.conf_missing);
    result.add("conf_missing_share", name, mc, conf_missing);
    result.add("syn_missing_share", name, ms);
    result.add("diff_missing_share", name, ms - mc, conf_missing);
    result.add("missing_value_similarity", name, 1.0 - std::abs(ms - mc), conf_missing);
    if (std::isfinite(ms - mc)) {
      sum_missing += 1.0 - std::abs(ms - mc);
      ++n_missing;
    }
    if (cc.is_numeric()) {
      const double lo_r = m.lo, hi_r = m.hi;
      const std::uint64_t ns = m.syn_values;
      const bool have_r = lo_r <= hi_r, have_s = ns > 0;
      double range_cov = std::nan("");
      if (have_r && have_s && hi_r > lo_r) {
        const double span = hi_r - lo_r;
        const double lo_s = m.syn_lo, hi_s = m.syn_hi;
        range_cov = std::max(
            0.0, 1.0 - (std::max((lo_s - lo_r) / span, 0.0) + std::max((hi_r - hi_s) / span, 0.0)));
        sum_range += range_cov;
        ++n_range;
      }
      result.add("range_coverage", name, range_cov);
      double adherence = std::nan("");
      if (have_r && have_s) {
        adherence = double(m.syn_within) / double(ns);
        sum_boundary += adherence;
        ++n_boundary;
      }
      result.add("boundary_adherence", name, adherence);
      if (!have_r || !have_s)
        result.warnings.push_back("column '" + name + "' has no non-missing values in one dataset");
    } else {
      const std::size_t k = cc.cardinality();
      const auto& nc = m.conf_levels;
      const auto& nsyn = m.syn_levels;
      const bool conf_has_missing = nc[k] > 0;
      const std::size_t syn_missing = nsyn[k];
      std::size_t conf_levels = 0, covered = 0, new_levels = 0, new_rows = 0;
      auto names = nlohmann::json::array();
      for (std::size_t l = 0; l < k; ++l) {
        if (nc[l] > 0) {
          ++conf_levels;
          if (nsyn[l] > 0) ++covered;
        } else if (nsyn[l] > 0) {
          ++new_levels;
          new_rows += nsyn[l];
          names.push_back(cc.dictionary->level(static_cast<std::uint32_t>(l)));
        }
      }
      const double coverage = conf_levels ? double(covered) / double(conf_levels) : std::nan("");
      result.add("category_coverage", name, coverage);
      if (std::isfinite(coverage)) {
        sum_category += coverage;
        ++n_category;
      }
      // CategoryAdherence: share of synthetic rows whose level occurs in the confidential data;
      // a missing value is valid when the confidential column has missing values.
      const std::size_t valid = m.syn_rows - new_rows - (conf_has_missing ? 0 : syn_missing);
      const double adherence = m.syn_rows == 0 ? std::nan("") : double(valid) / double(m.syn_rows);
      result.add("category_adherence", name, adherence);
      if (std::isfinite(adherence)) {
        sum_adherence += adherence;
        ++n_adherence;
      }
      result.add("new_categories", name, double(new_levels));
      result.add("new_category_row_share", name,
                 m.syn_rows == 0 ? std::nan("") : double(new_rows) / double(m.syn_rows));
      new_total += new_levels;
      if (new_levels > 0) new_levels_json[name] = std::move(names);
    }
  }
  result.add("mean_missing_value_similarity", "all", mean_of(sum_missing, n_missing));
  if (n_range) result.add("mean_range_coverage", "all", mean_of(sum_range, n_range));
  if (n_boundary) result.add("mean_boundary_adherence", "all", mean_of(sum_boundary, n_boundary));
  if (n_category) result.add("mean_category_coverage", "all", mean_of(sum_category, n_category));
  if (n_adherence)
    result.add("mean_category_adherence", "all", mean_of(sum_adherence, n_adherence));
  result.add("new_categories", "all", double(new_total));
  result.details["new_categories"] = std::move(new_levels_json);
  return result;
}

MetricResult finalize_coverage(const std::vector<std::string>& states, const MetricInput& schema,
                               const Params&) {
  const Table& conf = schema.confidential;
  const std::vector<std::size_t> columns = compared_columns(schema);
  std::vector<ColumnFacts> merged(columns.size());
  std::vector<stats::WeightedSample> syn_sorted(columns.size());
  for (std::size_t p = 0; p < states.size(); ++p) {
    StateReader in(states[p]);
    for (std::size_t i = 0; i < columns.size(); ++i)
      read_column(in, merged[i], conf.column(columns[i]).is_numeric(),
                  [&](StateReader& from) { merge_run(syn_sorted[i], read_run(from)); });
    in.expect_end();
  }
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const auto& values = syn_sorted[i].values;
    ColumnFacts& m = merged[i];
    m.syn_values = values.size();
    if (values.empty()) continue;
    m.syn_lo = values.front();
    m.syn_hi = values.back();
    m.syn_within = static_cast<std::uint64_t>(std::upper_bound(values.begin(), values.end(), m.hi) -
                                              std::lower_bound(values.begin(), values.end(), m.lo));
  }
  return coverage_result(merged, columns, conf);
}

// The collective form: the ranks exchange each column's counts, ranges and level counts (a few
// numbers per column and level), so every rank knows the whole confidential range; each then
// counts its synthetic values inside it, and the root adds the counts. Nothing grows with the
// rows; the numbers are the mergeable form's (and one process's) bit for bit: counts are
// integers, and minima and maxima do not depend on the order.
MetricResult collective_coverage(const MetricInput& partition, const Params&,
                                 Communicator& communicator) {
  const Table& conf = partition.confidential;
  const Table& syn = partition.first_synthetic();
  const std::vector<std::size_t> columns = compared_columns(partition);
  std::vector<ColumnFacts> merged(columns.size());
  {
    StateWriter out;
    for (std::size_t c : columns) {
      const Column& sc = syn.column(c);
      write_column(out, conf.column(c), sc, [&](StateWriter& to) {
        double syn_lo = INFINITY, syn_hi = -INFINITY;
        std::uint64_t syn_values = 0;
        for (double v : sc.numeric)
          if (!std::isnan(v)) {
            syn_lo = std::min(syn_lo, v);
            syn_hi = std::max(syn_hi, v);
            ++syn_values;
          }
        to.f64(syn_lo);
        to.f64(syn_hi);
        to.u64(syn_values);
      });
    }
    for (const auto& bytes : communicator.all_gather(out.take())) {
      StateReader in(bytes);
      for (std::size_t i = 0; i < columns.size(); ++i) {
        ColumnFacts& m = merged[i];
        read_column(in, m, conf.column(columns[i]).is_numeric(), [&](StateReader& from) {
          m.syn_lo = std::min(m.syn_lo, from.f64());
          m.syn_hi = std::max(m.syn_hi, from.f64());
          m.syn_values += from.u64();
        });
      }
      in.expect_end();
    }
  }
  // The synthetic values inside the whole confidential range, as the sorted run's bounds count
  // them (lo <= v <= hi).
  std::vector<std::uint64_t> within(columns.size(), 0);
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (conf.column(columns[i]).is_numeric())
      for (double v : syn.column(columns[i]).numeric)
        within[i] += v >= merged[i].lo && v <= merged[i].hi;
  StateWriter mine;
  mine.u64s(within);
  std::fill(within.begin(), within.end(), 0);
  for (const auto& bytes : communicator.gather(mine.take())) {
    StateReader in(bytes);
    add_into(within, in.u64s());
    in.expect_end();
  }
  if (!communicator.is_root()) return {};
  for (std::size_t i = 0; i < columns.size(); ++i) merged[i].syn_within = within[i];
  return coverage_result(merged, columns, conf);
}

bool coverage_collective_applies(const MetricInput&, const Params&) { return true; }

MetricResult compute_coverage(const MetricInput& in, const Params& params) {
  return finalize_coverage({coverage_state(in, params)}, in, params);
}

}  // namespace

MetricSpec coverage_and_validity_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "coverage_and_validity",
      .family = MetricFamily::kGeneral,
      .summary =
          "Missing-share difference, range and category coverage, boundary and category "
          "adherence, and categories that occur only in the synthetic data",
      .doc =
          "Per column: conf_/syn_/diff_missing_share (syn − conf) and "
          "missing_value_similarity = 1 − |diff| (SDMetrics MissingValueSimilarity). Numeric, "
          "over non-missing values: range_coverage = max(0, 1 − [max((min_s − min_r)/(max_r − "
          "min_r), 0) + max((max_r − max_s)/(max_r − min_r), 0)]) (SDMetrics RangeCoverage as "
          "documented; NaN when max_r = min_r) and boundary_adherence = share of synthetic "
          "values in [min_r, max_r] (SDMetrics BoundaryAdherence). Categorical: "
          "category_coverage = share of the confidential levels (non-missing) that occur in "
          "the synthetic data (SDMetrics CategoryCoverage as documented), category_adherence "
          "= share of synthetic rows whose level occurs in the confidential data, missing "
          "valid only when the confidential column has missing values (SDMetrics "
          "CategoryAdherence), new_categories = number of levels only in the synthetic data "
          "and new_category_row_share. Means over columns and the total of new categories "
          "(scope all); details list the new levels. All are 1 (0 for new categories) at "
          "best."
          " A partitioned run merges counts, ranges and the synthetic numeric values as sorted "
          "runs (boundary adherence needs the whole confidential range first): the merging "
          "process holds every non-missing synthetic numeric value. Without whole tables the "
          "ranks exchange the counts and ranges first and then count their own synthetic "
          "values inside the whole confidential range, so no rank holds another's values.",
      .params = {},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "mean_range_coverage",
                     .ideal = Ideal::higher(),
                     .reading = "how much of each real numeric range the synthetic data spans "
                                "(mean over columns, 1 = all)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare},
                    {.statistic = "mean_category_coverage",
                     .ideal = Ideal::higher(),
                     .reading = "share of real categories that appear in the synthetic data "
                                "(mean over columns)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare}},
      .compute = compute_coverage,
      .mergeable = MergeableForm{.partial_state = coverage_state, .finalize = finalize_coverage},
      .collective =
          CollectiveForm{.applies = coverage_collective_applies, .run = collective_coverage},
      .statistics =
          {{"{conf|syn}_missing_share",
            "share of missing values in one dataset",
            std::nullopt,
            {kColumn}},
           {"diff_missing_share",
            "synthetic − confidential missing share",
            Ideal::at(0.0),
            {kColumn}},
           {"missing_value_similarity",
            "1 − |diff_missing_share|, SDMetrics' MissingValueSimilarity",
            Ideal::higher(),
            {kColumn}},
           {"range_coverage",
            "how much of the confidential range the synthetic values span, SDMetrics' "
            "RangeCoverage as documented",
            Ideal::higher(),
            {kColumn}},
           {"boundary_adherence",
            "share of synthetic values inside the confidential range, SDMetrics' BoundaryAdherence",
            Ideal::higher(),
            {kColumn}},
           {"category_coverage",
            "share of the confidential levels that occur in the synthetic data, SDMetrics' "
            "CategoryCoverage as documented",
            Ideal::higher(),
            {kColumn}},
           {"category_adherence",
            "share of synthetic rows whose level occurs in the confidential data, SDMetrics' "
            "CategoryAdherence",
            Ideal::higher(),
            {kColumn}},
           {"new_categories",
            "levels that occur only in the synthetic data (per column, and in total)",
            Ideal::lower(),
            {kColumn, kAll}},
           {"new_category_row_share",
            "share of synthetic rows with a level the confidential data lack",
            Ideal::lower(),
            {kColumn}},
           {"mean_{missing_value_similarity|range_coverage|boundary_adherence|category_coverage|"
            "category_adherence}",
            "mean of the per-column score over the columns it applies to",
            Ideal::higher(),
            {kAll}}},
      .references = {cite(sdmetrics_software(),
                          "MissingValueSimilarity, RangeCoverage, BoundaryAdherence, "
                          "CategoryCoverage and CategoryAdherence (the documented formulas)")},
      // Levels the synthetic data invent: not in the confidential data at all.
      .aggregate_details = {"new_categories"},
  };
}

}  // namespace synthaudit
