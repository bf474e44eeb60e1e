// Ratio of counts (Taub, Elliot & Sakshaug 2020; cmf ROC_score / ROC_numeric), per column and
// averaged.
#include <algorithm>
#include <cmath>
#include <map>

#include "metrics/design_weights.hpp"
#include "metrics/general/level_tally.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

// Rounds half away from zero to `digits` decimal places (negative digits: to tens, hundreds...).
double round_to(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

// Mean over levels present in at least one dataset of min(p_o, p_s)/max(p_o, p_s); a level
// present in one dataset only contributes 0. NaN when there are no levels.
double mean_ratio(const std::vector<double>& co, double no, const std::vector<double>& cs,
                  double ns, std::size_t* levels_out, std::size_t* one_sided_out) {
  double sum = 0;
  std::size_t levels = 0, one_sided = 0;
  for (std::size_t l = 0; l < co.size(); ++l) {
    if (co[l] == 0 && cs[l] == 0) continue;
    const double po = no > 0 ? co[l] / no : 0.0, ps = ns > 0 ? cs[l] / ns : 0.0;
    ++levels;
    if (po == 0 || ps == 0) ++one_sided;
    sum += std::min(po, ps) / std::max(po, ps);
  }
  *levels_out = levels;
  *one_sided_out = one_sided;
  return levels == 0 ? std::nan("") : sum / static_cast<double>(levels);
}

// A numeric column's rounded values in one partition: per distinct rounded value (ascending)
// and for missing, the rows and weight sums of each dataset.
struct RoundedTally {
  struct Entry {
    std::uint64_t conf_rows = 0, syn_rows = 0;
    double conf_weight = 0, syn_weight = 0;
  };
  Entry missing;
  std::map<double, Entry> values;

  void count(double value, int digits, bool confidential, double weight) {
    Entry& entry = std::isnan(value) ? missing : values[round_to(value, digits) + 0.0];
    (confidential ? entry.conf_rows : entry.syn_rows) += 1;
    (confidential ? entry.conf_weight : entry.syn_weight) += weight;
  }
  static void write_entry(StateWriter& out, const Entry& e) {
    out.u64(e.conf_rows);
    out.u64(e.syn_rows);
    out.f64(e.conf_weight);
    out.f64(e.syn_weight);
  }
  static Entry read_entry(StateReader& in) {
    Entry e;
    e.conf_rows = in.u64();
    e.syn_rows = in.u64();
    e.conf_weight = in.f64();
    e.syn_weight = in.f64();
    return e;
  }
  static void add_entry(Entry& a, const Entry& b) {
    a.conf_rows += b.conf_rows;
    a.syn_rows += b.syn_rows;
    a.conf_weight += b.conf_weight;
    a.syn_weight += b.syn_weight;
  }
  void write(StateWriter& out) const {
    write_entry(out, missing);
    out.u64(values.size());
    for (const auto& [value, entry] : values) {
      out.f64(value);
      write_entry(out, entry);
    }
  }
  void add_from(StateReader& in) {
    add_entry(missing, read_entry(in));
    for (auto n = in.u64(); n > 0; --n) {
      const double value = in.f64();
      add_entry(values[value], read_entry(in));
    }
  }
};

// The compared columns: not a design variable, and categorical unless numeric columns are on.
std::vector<std::size_t> compared_columns(const MetricInput& in, const Params& params) {
  std::vector<std::size_t> columns;
  for (std::size_t c = 0; c < in.confidential.column_count(); ++c)
    if (!is_design_column(in, c) &&
        (in.confidential.column(c).is_categorical() || params.get_bool("numeric")))
      columns.push_back(c);
  return columns;
}

// A partition's sufficient statistics: per compared column the level tallies of both datasets
// (categorical) or the rounded-value tally (numeric), then the synthetic weight column's facts.
std::string ratio_of_counts_state(const MetricInput& in, const Params& params) {
  const Table& syn = in.first_synthetic();
  const int digits = static_cast<int>(params.get_int("digits"));
  const PartitionWeightColumns weights = partition_weight_columns(in, syn, params);
  auto weight_of = [](const std::vector<double>* w, std::size_t row) {
    return w == nullptr ? 1.0 : (*w)[row];
  };
  StateWriter out;
  for (std::size_t c : compared_columns(in, params)) {
    const Column& cc = in.confidential.column(c);
    const Column& sc = syn.column(c);
    if (cc.is_categorical()) {
      tally_levels(cc, weights.confidential).write(out);
      tally_levels(sc, weights.synthetic_own).write(out);
      continue;
    }
    RoundedTally tally;
    for (std::size_t r = 0; r < cc.numeric.size(); ++r)
      tally.count(cc.numeric[r], digits, true, weight_of(weights.confidential, r));
    for (std::size_t r = 0; r < sc.numeric.size(); ++r)
      tally.count(sc.numeric[r], digits, false, weight_of(weights.synthetic_own, r));
    tally.write(out);
  }
  weights.write_facts(out);
  return out.take();
}

MetricResult finalize_ratio_of_counts(const std::vector<std::string>& states,
                                      const MetricInput& schema, const Params& params) {
  const bool exclude_missing = params.get_string("missing") == "exclude";
  const auto columns = compared_columns(schema, params);
  std::vector<LevelTally> conf(columns.size()), syn(columns.size());
  std::vector<RoundedTally> rounded(columns.size());
  WeightColumnFacts facts;
  for (std::size_t p = 0; p < states.size(); ++p) {
    StateReader in(states[p]);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (schema.confidential.column(columns[i]).is_numeric()) {
        rounded[i].add_from(in);
        continue;
      }
      conf[i].add(LevelTally::read(in));
      syn[i].add(LevelTally::read(in));
    }
    facts.merge_after(read_facts(in));
    in.expect_end();
  }
  MetricResult result;
  const bool conf_weighted = !schema.context.weights.empty();
  const bool syn_weighted =
      use_own_weights(schema, schema.first_synthetic(), facts, params, result.warnings);
  double sum = 0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const Column& column = schema.confidential.column(columns[i]);
    // A level's count in each dataset: its rows, or its rows' weight; the last (categorical)
    // or first (numeric) slot is missing.
    std::vector<double> co, cs;
    if (column.is_categorical()) {
      co = conf_weighted ? conf[i].weight : conf[i].rows_as_doubles();
      cs = syn_weighted ? syn[i].weight : syn[i].rows_as_doubles();
      if (exclude_missing) co.back() = cs.back() = 0;
    } else {
      auto push = [&](const RoundedTally::Entry& e) {
        co.push_back(conf_weighted ? e.conf_weight : static_cast<double>(e.conf_rows));
        cs.push_back(syn_weighted ? e.syn_weight : static_cast<double>(e.syn_rows));
      };
      push(rounded[i].missing);
      for (const auto& [value, entry] : rounded[i].values) push(entry);
      if (exclude_missing) co[0] = cs[0] = 0;
    }
    double no = 0, ns = 0;
    for (double v : co) no += v;
    for (double v : cs) ns += v;
    std::size_t levels = 0, one_sided = 0;
    const double roc = mean_ratio(co, no, cs, ns, &levels, &one_sided);
    const std::string& name = column.name;
    result.add("ratio_of_counts", name, roc);
    result.add("levels", name, static_cast<double>(levels));
    result.add("levels_in_one_dataset_only", name, static_cast<double>(one_sided));
    if (std::isnan(roc)) {
      result.warnings.push_back("column '" + name + "': no values in either dataset");
    } else {
      sum += roc;
      ++counted;
    }
  }
  if (counted == 0) {
    result.warnings.push_back("no column with values to compare");
  } else {
    result.add("mean_ratio_of_counts", "all", sum / static_cast<double>(counted));
  }
  return result;
}

// One process is one partition: the same code path as a partitioned run.
MetricResult compute_ratio_of_counts(const MetricInput& in, const Params& params) {
  return finalize_ratio_of_counts({ratio_of_counts_state(in, params)}, in, params);
}

}  // namespace

MetricSpec ratio_of_counts_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "ratio_of_counts",
      .family = MetricFamily::kGeneral,
      .summary =
          "Ratio of counts: mean over levels of min(p_conf, p_syn)/max(p_conf, p_syn) per "
          "column (numeric columns rounded first)",
      .doc =
          "ROC_j = (1/L_j) Σ_l min(p_o(l), p_s(l)) / max(p_o(l), p_s(l)) over the L_j levels l "
          "of column j that occur in at least one of the two datasets, p = share of rows "
          "(Taub, Elliot & Sakshaug 2020; cmf ROC_score). A level that occurs in only one dataset "
          "contributes 0 (and is counted in levels_in_one_dataset_only); levels in neither "
          "are ignored. 1 = identical shares, 0 = no common level. Numeric columns "
          "(cmf ROC_numeric) are first rounded half away from zero to `digits` decimal "
          "places (negative digits round to tens, hundreds, ...), each distinct rounded "
          "value being a level. Missing values are a level of their own by default "
          "(missing = level), or left out of numerators and denominators (missing = exclude). "
          "mean_ratio_of_counts averages over the columns. With weights: declared p is the "
          "level's share of the total weight (the survey estimate of the population share, "
          "svytable/svymean of the level indicators) and a level occurs when its weight is "
          "positive." +
          std::string(kWeightsDoc),
      .params = {{.name = "digits",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{0},
                  .doc = "decimal places numeric values are rounded to before counting "
                         "(negative: tens, hundreds, ...)",
                  .min = -15.0,
                  .max = 15.0},
                 {.name = "numeric",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "include numeric columns (rounded); false: categorical columns only"},
                 {.name = "missing",
                  .type = ParamType::kString,
                  .default_value = std::string("level"),
                  .doc = "level: missing is a level of its own; exclude: shares among "
                         "non-missing values",
                  .choices = {"level", "exclude"}},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "mean_ratio_of_counts",
                     .ideal = Ideal::higher(),
                     .reading = "mean ratio of counts over columns (1 = every level equally "
                                "frequent in real and synthetic data)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute_ratio_of_counts,
      .mergeable = MergeableForm{.partial_state = ratio_of_counts_state,
                                 .finalize = finalize_ratio_of_counts},
      .statistics = {{"ratio_of_counts",
                      "mean over the column's levels of min(p_conf, p_syn)/max(p_conf, p_syn) (1 = "
                      "identical shares)",
                      Ideal::higher(),
                      {kColumn}},
                     {"levels",
                      "levels (or rounded values) that occur in at least one dataset",
                      std::nullopt,
                      {kColumn}},
                     {"levels_in_one_dataset_only",
                      "levels that occur in only one of the two datasets",
                      Ideal::lower(),
                      {kColumn}},
                     {"mean_ratio_of_counts",
                      "mean ratio of counts over the columns",
                      Ideal::higher(),
                      {kAll}}},
      .references = {cite(taub_elliot_sakshaug_2020(), "ratio of counts"),
                     cite(cmf_software(), "ROC_score and ROC_numeric"),
                     cite(lumley_2004(), "weighted level shares with survey weights")},
  };
}

}  // namespace synthaudit
