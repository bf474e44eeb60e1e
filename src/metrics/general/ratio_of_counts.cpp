// Ratio of counts (Taub, Elliot & Sakshaug 2020; cmf ROC_score / ROC_numeric), per column and
// averaged.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/level_counts.hpp"

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

MetricResult compute_ratio_of_counts(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const int digits = static_cast<int>(params.get_int("digits"));
  const bool exclude_missing = params.get_string("missing") == "exclude";
  const bool numeric_too = params.get_bool("numeric");
  const DesignWeights weights = design_weights(in, syn, params, result.warnings);
  // A row's contribution to its level's count: 1, or its survey weight.
  auto row_weight = [](const std::vector<double>& w, std::size_t row) {
    return w.empty() ? 1.0 : w[row];
  };
  double sum = 0;
  std::size_t counted = 0;
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    if (is_design_column(in, c)) continue;
    const Column& cc = conf.column(c);
    const Column& sc = syn.column(c);
    std::vector<double> co, cs;
    double no = 0, ns = 0;
    if (cc.is_categorical()) {
      const std::size_t k = cc.cardinality();
      if (weights.confidential.empty()) {
        const auto conf_counts = stats::level_counts(cc);
        co.assign(conf_counts.begin(), conf_counts.end());
      } else {
        co.assign(k + 1, 0.0);
        for (std::size_t r = 0; r < cc.codes.size(); ++r)
          co[cc.missing(r) ? k : cc.codes[r]] += weights.confidential[r];
      }
      if (weights.synthetic.empty()) {
        const auto syn_counts = stats::level_counts(sc);
        cs.assign(syn_counts.begin(), syn_counts.end());
      } else {
        cs.assign(k + 1, 0.0);
        for (std::size_t r = 0; r < sc.codes.size(); ++r)
          cs[sc.missing(r) ? k : sc.codes[r]] += weights.synthetic[r];
      }
      if (exclude_missing) co[k] = cs[k] = 0;
    } else {
      if (!numeric_too) continue;
      // Index the rounded values of both datasets; slot 0 is missing.
      std::unordered_map<double, std::size_t> index;
      std::vector<std::size_t> ids_o, ids_s;
      auto id_of = [&](double v) -> std::size_t {
        if (std::isnan(v)) return 0;
        const double r = round_to(v, digits) + 0.0;  // + 0.0 folds −0 into 0
        return index.try_emplace(r, index.size() + 1).first->second;
      };
      ids_o.reserve(cc.numeric.size());
      ids_s.reserve(sc.numeric.size());
      for (double v : cc.numeric) ids_o.push_back(id_of(v));
      for (double v : sc.numeric) ids_s.push_back(id_of(v));
      co.assign(index.size() + 1, 0.0);
      cs.assign(index.size() + 1, 0.0);
      for (std::size_t r = 0; r < ids_o.size(); ++r)
        co[ids_o[r]] += row_weight(weights.confidential, r);
      for (std::size_t r = 0; r < ids_s.size(); ++r)
        cs[ids_s[r]] += row_weight(weights.synthetic, r);
      if (exclude_missing) co[0] = cs[0] = 0;
    }
    for (double v : co) no += v;
    for (double v : cs) ns += v;
    std::size_t levels = 0, one_sided = 0;
    const double roc = mean_ratio(co, no, cs, ns, &levels, &one_sided);
    const std::string& name = cc.name;
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
