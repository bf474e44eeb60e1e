// Household composition: each household summarised by aggregates of its members (size; mean,
// minimum, maximum and spread of each numeric column; distinct levels and level shares of each
// categorical column; household-level columns as they are), and the confidential and synthetic
// households compared on those aggregates one at a time and by a propensity model. Persons dealt
// into households at random keep every person-level marginal but change the aggregates (the
// spread of ages within a household, the number of earners), which is the aggregation-based
// detection of Hudovernik, Jurkovič & Štrumbelj (2024).
#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.hpp"
#include "metrics/households/household_groups.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "metrics/registry.hpp"
#include "stats/ecdf.hpp"

namespace synthaudit {

namespace {

using households::HouseholdGroups;

enum class Aggregate { kValue, kMean, kMin, kMax, kSpread, kDistinct, kShare };

// One household-level feature: an aggregate of one column (or the household size when `column`
// is unset), for categorical shares of one level.
struct Feature {
  std::string name;
  Aggregate aggregate = Aggregate::kValue;
  std::optional<std::size_t> column;
  std::uint32_t level = 0;  // kShare: the level (kMissingCode: missing)
};

// The features, decided on the confidential households: a column one value within every
// household enters as its value; a numeric person-level column by its mean, minimum, maximum and
// (population) standard deviation over members with a value; a categorical one by its number of
// distinct levels and, with at most `max_levels` levels, the share of members at each level
// (missing too, when the confidential data have it).
std::vector<Feature> household_features(const MetricInput& in, const HouseholdGroups& groups,
                                        std::size_t max_levels) {
  std::vector<Feature> features = {{"size", Aggregate::kValue, std::nullopt}};
  for (std::size_t c : households::household_data_columns(in)) {
    const Column& column = in.confidential.column(c);
    if (households::constant_within_households(in.confidential, groups, c)) {
      features.push_back({column.name, Aggregate::kValue, c});
    } else if (column.is_numeric()) {
      for (auto [suffix, aggregate] :
           {std::pair{":mean", Aggregate::kMean}, std::pair{":min", Aggregate::kMin},
            std::pair{":max", Aggregate::kMax}, std::pair{":sd", Aggregate::kSpread}})
        features.push_back({column.name + suffix, aggregate, c});
    } else {
      features.push_back({column.name + ":distinct", Aggregate::kDistinct, c});
      if (column.cardinality() > max_levels) continue;
      for (std::uint32_t l = 0; l < column.cardinality(); ++l)
        features.push_back(
            {column.name + "=" + column.dictionary->level(l) + ":share", Aggregate::kShare, c, l});
      if (column.missing_count() > 0)
        features.push_back({column.name + "=NA:share", Aggregate::kShare, c, kMissingCode});
    }
  }
  return features;
}

// One row per household, one column per feature (categorical for a household-level categorical
// column, sharing its dictionary; numeric otherwise).
Table household_table(const Table& persons, const HouseholdGroups& groups,
                      const std::vector<Feature>& features, const std::string& role) {
  std::vector<Column> columns;
  const std::size_t n = groups.households();
  for (const Feature& f : features) {
    Column out;
    out.name = f.name;
    const Column* source = f.column ? &persons.column(*f.column) : nullptr;
    if (f.aggregate == Aggregate::kValue && source != nullptr && source->is_categorical()) {
      out.kind = ColumnKind::kCategorical;
      out.dictionary = source->dictionary;
      out.codes.resize(n);
      for (std::size_t h = 0; h < n; ++h)
        out.codes[h] = source->codes[groups.members[groups.start[h]]];
      columns.push_back(std::move(out));
      continue;
    }
    out.kind = ColumnKind::kNumeric;
    out.numeric.assign(n, std::nan(""));
    for (std::size_t h = 0; h < n; ++h) {
      const auto first = groups.members.begin() + static_cast<std::ptrdiff_t>(groups.start[h]);
      const auto last = groups.members.begin() + static_cast<std::ptrdiff_t>(groups.start[h + 1]);
      double& value = out.numeric[h];
      switch (f.aggregate) {
        case Aggregate::kValue:
          value = source == nullptr ? static_cast<double>(groups.size(h)) : source->numeric[*first];
          break;
        case Aggregate::kMean:
        case Aggregate::kMin:
        case Aggregate::kMax:
        case Aggregate::kSpread: {
          double sum = 0.0, lo = INFINITY, hi = -INFINITY;
          std::size_t k = 0;
          for (auto it = first; it != last; ++it) {
            const double x = source->numeric[*it];
            if (is_missing(x)) continue;
            sum += x;
            lo = std::min(lo, x);
            hi = std::max(hi, x);
            ++k;
          }
          if (k == 0) break;
          const double mean = sum / static_cast<double>(k);
          if (f.aggregate == Aggregate::kMean) value = mean;
          if (f.aggregate == Aggregate::kMin) value = lo;
          if (f.aggregate == Aggregate::kMax) value = hi;
          if (f.aggregate == Aggregate::kSpread) {
            double squares = 0.0;
            for (auto it = first; it != last; ++it) {
              const double x = source->numeric[*it];
              if (!is_missing(x)) squares += (x - mean) * (x - mean);
            }
            value = std::sqrt(squares / static_cast<double>(k));
          }
          break;
        }
        case Aggregate::kDistinct: {
          std::set<std::uint32_t> levels;
          for (auto it = first; it != last; ++it)
            if (!is_missing(source->codes[*it])) levels.insert(source->codes[*it]);
          value = static_cast<double>(levels.size());
          break;
        }
        case Aggregate::kShare: {
          std::size_t at = 0;
          for (auto it = first; it != last; ++it) at += source->codes[*it] == f.level;
          value = static_cast<double>(at) / static_cast<double>(groups.size(h));
          break;
        }
      }
    }
    columns.push_back(std::move(out));
  }
  return Table(TableSource{persons.source().path + " (households)", "", role}, std::move(columns));
}

// Total variation between two categorical columns' level shares (missing a level of its own).
double level_total_variation(const Column& a, const Column& b) {
  const std::size_t k = a.cardinality() + 1;
  std::vector<double> p(k, 0.0), q(k, 0.0);
  for (auto code : a.codes) p[is_missing(code) ? k - 1 : code] += 1.0;
  for (auto code : b.codes) q[is_missing(code) ? k - 1 : code] += 1.0;
  double tv = 0.0;
  for (std::size_t l = 0; l < k; ++l)
    tv += std::abs(p[l] / static_cast<double>(a.codes.size()) -
                   q[l] / static_cast<double>(b.codes.size()));
  return 0.5 * tv;
}

// The logistic propensity model (main effects) of the household tables, as the
// propensity_logistic metric fits it: the composition as a whole, not one aggregate at a time.
void add_propensity(MetricResult& result, const Table& conf, const Table& syn,
                    const MetricInput& in) {
  const MetricSpec* logistic = find_metric("propensity_logistic");
  if (logistic == nullptr) throw std::logic_error("propensity_logistic is not registered");
  const Params params =
      Params::resolve(logistic->name, logistic->params, {{"maxorder", 0}}, "household_composition");
  // The household tables carry no design columns: every feature is data.
  EvaluationContext context;
  context.seed = in.context.seed;
  context.threads = in.context.threads;
  context.limits = in.context.limits;
  const MetricInput input{conf,    {&syn},  nullptr, context, in.candidate,
                          in.seed, nullptr, nullptr, nullptr, /*plots=*/false};
  try {
    const MetricResult fitted = logistic->compute(input, params);
    for (const MetricValue& v : fitted.values)
      if (v.scope == "all" &&
          (v.statistic == "S_pMSE" || v.statistic == "pMSE" || v.statistic == "AUC"))
        result.add("composition_" + v.statistic, "all", v.value);
    for (const auto& w : fitted.warnings) result.warnings.push_back("propensity model: " + w);
  } catch (const MetricNotApplicable& e) {
    result.warnings.push_back(std::string("propensity model not fitted: ") + e.what());
  }
}

MetricResult compute_household_composition(const MetricInput& in, const Params& params) {
  const auto [conf_groups, syn_groups] = households::households_of_both(in);
  MetricResult result;
  if (conf_groups.households() < 2 || syn_groups.households() < 2) {
    result.warnings.push_back("fewer than two households in a dataset");
    return result;
  }
  const auto features =
      household_features(in, conf_groups, static_cast<std::size_t>(params.get_int("max_levels")));
  const Table conf = household_table(in.confidential, conf_groups, features, "confidential");
  const Table syn = household_table(in.first_synthetic(), syn_groups, features, "synthetic");
  double sum = 0.0, worst = -1.0;
  std::size_t counted = 0;
  std::string worst_feature;
  // The gate's tests: each numeric aggregate's two-sample KS test. Not the propensity model's
  // chi-square test of its pMSE: on real households (skewed incomes, many aggregates) a fresh
  // sample's S_pMSE reached 1.9, so the analytic null is too narrow to gate on.
  std::vector<std::string> tested;
  std::vector<double> p_values;
  for (std::size_t f = 0; f < features.size(); ++f) {
    const Column& a = conf.column(f);
    const Column& b = syn.column(f);
    double d = std::nan("");
    if (a.is_categorical()) {
      d = level_total_variation(a, b);
    } else {
      const auto x = stats::sorted_non_missing(a.numeric);
      const auto y = stats::sorted_non_missing(b.numeric);
      if (!x.empty() && !y.empty()) {
        d = stats::ks_distance_sorted(x, y);
        tested.push_back(features[f].name);
        p_values.push_back(stats::ks_pvalue_asymptotic(d, x.size(), y.size()));
      }
    }
    result.add("composition_distance", features[f].name, d);
    if (std::isnan(d)) continue;
    sum += d;
    ++counted;
    if (d > worst) {
      worst = d;
      worst_feature = features[f].name;
    }
  }
  if (counted > 0) {
    result.add("composition_distance_mean", "all", sum / static_cast<double>(counted));
    result.add("composition_distance_max", "all", worst);
    result.details["worst_feature"] = worst_feature;
  }
  if (params.get_bool("propensity")) add_propensity(result, conf, syn, in);
  households::add_holm_gate(
      result, tested, p_values, params.get_double("alpha"),
      {"composition_p_value", "composition_differs", "composition_differences"});
  return result;
}

}  // namespace

MetricSpec household_composition_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "household_composition",
      .family = MetricFamily::kGeneral,
      .summary =
          "Do synthetic households look like real ones? Household aggregates of their "
          "members (size, ages' spread, level shares) compared one at a time and by a "
          "propensity model",
      .doc =
          "Each household (the rows sharing a `household:` identifier) becomes one record of "
          "aggregates of its members, decided on the confidential data: size; a column that is "
          "one value within every confidential household (region, household income) as that "
          "value; each other numeric column's mean, minimum, maximum and population standard "
          "deviation over members with a value (sd 0 for one member; missing when no member "
          "has a value); each other categorical column's number of distinct levels and, with "
          "at most `max_levels` levels, the share of members at each level (and missing). "
          "composition_distance per feature is the Kolmogorov–Smirnov distance (numeric) or "
          "total variation distance (a household-level categorical column) between the "
          "confidential and synthetic households; composition_distance_mean and _max summarise "
          "them (the worst feature is named in the details). With `propensity` the household "
          "records are also stacked and a logistic model on the main effects of every feature "
          "tries to tell them apart, as propensity_logistic fits it (maxorder 0): "
          "composition_pMSE, composition_S_pMSE (its ratio to the analytic null; about 1 when "
          "the model cannot tell) and composition_AUC. The gate composition_differences counts the "
          "tests below `alpha` after Holm's correction, one per numeric aggregate: the two-sample "
          "Kolmogorov–Smirnov test (asymptotic p-value, conservative with the ties of counts "
          "and shares); the default policy fails a candidate with any, naming them. The "
          "propensity model is not gated on: its analytic null proved too narrow for real "
          "households (a fresh sample's S_pMSE reached 1.9), so it is judged against the "
          "resample baseline. Persons dealt into households at "
          "random keep every person-level marginal and fail here: the aggregation-based "
          "detection of Hudovernik, Jurkovič & Štrumbelj (2024). Unweighted; baselines draw "
          "whole households (docs/metrics.md, Baselines).",
      .params = {{.name = "max_levels",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{20},
                  .doc = "level shares only for person-level categorical columns with at most "
                         "this many levels (others by their number of distinct levels only)",
                  .min = 1,
                  .max = 1000},
                 {.name = "alpha",
                  .type = ParamType::kDouble,
                  .default_value = 0.01,
                  .doc = "level of the composition tests (Holm-corrected over the numeric "
                         "aggregates)",
                  .min = 1e-12,
                  .max = 0.5},
                 {.name = "propensity",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "also fit the logistic propensity model on the household records"}},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "composition_differences",
                     .ideal = Ideal::lower(),
                     .reading = "household aggregates on which synthetic households differ "
                                "significantly from real ones (Kolmogorov–Smirnov tests, Holm)",
                     .baseline = Baseline::analytic(
                         0.0, "",
                         "0: real households of the same population differ on none, but for a "
                         "share alpha of samples"),
                     .unit = Unit::kNumber,
                     .gate_names = "composition_differs"},
                    {.statistic = "composition_S_pMSE",
                     .ideal = Ideal::at(1.0, TargetScale::kRatio),
                     .reading = "pMSE ratio of a logistic model telling real from synthetic "
                                "households by their members' aggregates (about 1 = "
                                "indistinguishable)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber},
                    {.statistic = "composition_distance_mean",
                     .ideal = Ideal::lower(),
                     .reading = "mean distance between real and synthetic distributions of the "
                                "household aggregates (size, members' ages' spread, level "
                                "shares)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute_household_composition,
      .statistics =
          {{"composition_distance",
            "Kolmogorov–Smirnov (numeric) or total variation (categorical) distance of one "
            "household aggregate, e.g. age:sd",
            Ideal::lower(),
            {kFeature}},
           {"composition_distance_mean",
            "mean composition_distance over the aggregates",
            Ideal::lower(),
            {kAll}},
           {"composition_distance_max",
            "largest composition_distance over the aggregates",
            Ideal::lower(),
            {kAll}},
           {"composition_pMSE",
            "pMSE of the logistic model on the household aggregates",
            Ideal::lower(),
            {kAll}},
           {"composition_S_pMSE",
            "composition_pMSE over its analytic null expectation",
            Ideal::at(1.0, TargetScale::kRatio),
            {kAll}},
           {"composition_p_value",
            "Holm-corrected p-value of a numeric aggregate's two-sample Kolmogorov–Smirnov test "
            "(asymptotic; conservative with ties)",
            std::nullopt,
            {kFeature}},
           {"composition_differs",
            "1 when composition_p_value is below alpha",
            Ideal::lower(),
            {kFeature}},
           {"composition_differences",
            "number of composition tests below alpha",
            Ideal::lower(),
            {kAll}},
           {"composition_AUC",
            "AUC of the logistic model on the household aggregates",
            Ideal::at(0.5),
            {kAll}}},
      .references = {cite(hudovernik_2024(),
                          "aggregation-based detection of relational synthetic data "
                          "(C2ST-Agg)"),
                     cite(snoke_2018(), "pMSE and its null expectation")},
      .aggregate_details = {"worst_feature"},
  };
}

}  // namespace synthaudit
