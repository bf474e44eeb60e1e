// Household structure of a person-level file: how many persons each household has (the
// persons-per-household distribution, overall and within the levels of household-level columns),
// households whose sizes the confidential data never show, persons without a household, and
// households whose members disagree on a household-level variable.
#include <algorithm>
#include <cmath>
#include <map>

#include "metrics/households/household_groups.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/distribution.hpp"

namespace synthaudit {

namespace {

using households::HouseholdGroups;

// Households by size (and, with a level column, by level and size): counts keyed by
// (level code, size); the level is 0 without a level column.
using SizeTally = std::map<std::pair<std::uint64_t, std::size_t>, double>;

SizeTally tally_sizes(const HouseholdGroups& groups, const Column* level) {
  SizeTally tally;
  for (std::size_t h = 0; h < groups.households(); ++h) {
    // A household whose members disagree on the level is counted at its first member's level
    // (household_inconsistent_share reports the disagreement itself).
    std::uint64_t code = 0;
    if (level != nullptr) {
      const std::uint32_t c = level->codes[groups.members[groups.start[h]]];
      code = is_missing(c) ? std::uint64_t{1} << 32 : c;
    }
    tally[{code, groups.size(h)}] += 1.0;
  }
  return tally;
}

double total_variation(const SizeTally& p, double np, const SizeTally& q, double nq) {
  double tv = 0.0;
  for (const auto& [key, count] : p) {
    const auto other = q.find(key);
    tv += std::abs(count / np - (other == q.end() ? 0.0 : other->second / nq));
  }
  for (const auto& [key, count] : q)
    if (!p.contains(key)) tv += count / nq;
  return 0.5 * tv;
}

// Kolmogorov-Smirnov distance between two household size distributions (no level column).
double ks_distance(const SizeTally& p, double np, const SizeTally& q, double nq) {
  std::map<std::size_t, std::pair<double, double>> at;
  for (const auto& [key, count] : p) at[key.second].first += count;
  for (const auto& [key, count] : q) at[key.second].second += count;
  double fp = 0.0, fq = 0.0, d = 0.0;
  for (const auto& [size, counts] : at) {
    fp += counts.first / np;
    fq += counts.second / nq;
    d = std::max(d, std::abs(fp - fq));
  }
  return d;
}

nlohmann::json size_bars(const SizeTally& conf, double nc, const SizeTally& syn, double ns) {
  auto plot =
      make_plot("bars", "Persons per household", "persons in the household", "share of households");
  for (const auto& [name, tally, n] :
       {std::tuple{"confidential", &conf, nc}, std::tuple{"synthetic", &syn, ns}}) {
    for (const auto& [key, count] : *tally) {
      nlohmann::json bar = {
          {"level", std::to_string(key.second)}, {"dataset", name}, {"share", count / n}};
      // A confidential bar stands for its households' records (the plot convention), so output
      // checking drops the bars of few households.
      if (std::string_view(name) == "confidential") bar["count"] = count;
      plot["data"].push_back(std::move(bar));
    }
  }
  return plot;
}

MetricResult compute_household_structure(const MetricInput& in, const Params& params) {
  const std::size_t id = households::household_column(in);
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const auto [conf_groups, syn_groups] = households::households_of_both(in);
  MetricResult result;
  // The gate's tests: per household-level column, are the synthetic households' members at odds
  // more often than the confidential ones' (never, by the column's definition); and are more
  // synthetic rows without a household identifier than confidential ones.
  std::vector<std::string> tested;
  std::vector<double> p_values;
  tested.push_back(conf.column(id).name);
  p_values.push_back(stats::fisher_exact_greater(
      static_cast<double>(syn_groups.without_household), static_cast<double>(syn.rows()),
      static_cast<double>(conf_groups.without_household), static_cast<double>(conf.rows())));
  const auto nc = static_cast<double>(conf_groups.households());
  const auto ns = static_cast<double>(syn_groups.households());
  result.add("conf_households", "all", nc);
  result.add("syn_households", "all", ns);
  result.add("conf_mean_household_size", "all",
             nc > 0 ? static_cast<double>(conf_groups.members.size()) / nc : std::nan(""));
  result.add("syn_mean_household_size", "all",
             ns > 0 ? static_cast<double>(syn_groups.members.size()) / ns : std::nan(""));
  result.add_share("persons_without_household_share", "all",
                   static_cast<double>(syn_groups.without_household),
                   static_cast<double>(syn.rows()));
  if (nc == 0 || ns == 0) {
    result.warnings.push_back("a dataset has no household (every household identifier missing)");
    households::add_holm_gate(result, tested, p_values, params.get_double("alpha"),
                              {"structure_p_value", "structure_defect", "structure_defects"});
    return result;
  }

  const SizeTally conf_sizes = tally_sizes(conf_groups, nullptr);
  const SizeTally syn_sizes = tally_sizes(syn_groups, nullptr);
  const double ks = ks_distance(conf_sizes, nc, syn_sizes, ns);
  result.add("household_size_tv", "all", total_variation(conf_sizes, nc, syn_sizes, ns));
  result.add("household_size_ks", "all", ks);
  result.add("cardinality_shape_similarity", "all", 1.0 - ks);
  const std::size_t smallest = conf_sizes.begin()->first.second;
  const std::size_t largest = conf_sizes.rbegin()->first.second;
  double within = 0.0;
  for (const auto& [key, count] : syn_sizes)
    if (key.second >= smallest && key.second <= largest) within += count;
  result.add("size_within_bounds_share", "all", within / ns);

  // Household-level columns: those one value within every confidential household.
  const auto columns = households::household_data_columns(in);
  double inconsistent_any = 0.0;
  std::vector<bool> inconsistent(syn_groups.households(), false);
  for (std::size_t c : columns) {
    if (!households::constant_within_households(conf, conf_groups, c)) continue;
    const Column& column = syn.column(c);
    double disagreeing = 0.0;
    for (std::size_t h = 0; h < syn_groups.households(); ++h) {
      const std::size_t first = syn_groups.members[syn_groups.start[h]];
      for (std::size_t i = syn_groups.start[h] + 1; i < syn_groups.start[h + 1]; ++i)
        if (!households::same_value(column, first, syn_groups.members[i])) {
          disagreeing += 1.0;
          inconsistent[h] = true;
          break;
        }
    }
    result.add("household_inconsistent_share", column.name, disagreeing / ns);
    tested.push_back(column.name);
    p_values.push_back(stats::fisher_exact_greater(disagreeing, ns, 0.0, nc));
    if (column.is_categorical() &&
        column.cardinality() <= static_cast<std::size_t>(params.get_int("max_levels")))
      result.add("household_size_tv", column.name,
                 total_variation(tally_sizes(conf_groups, &conf.column(c)), nc,
                                 tally_sizes(syn_groups, &column), ns));
  }
  for (bool b : inconsistent) inconsistent_any += b ? 1.0 : 0.0;
  result.add("household_inconsistent_share", "all", inconsistent_any / ns);
  households::add_holm_gate(result, tested, p_values, params.get_double("alpha"),
                            {"structure_p_value", "structure_defect", "structure_defects"});
  if (params.get_bool("plots") && in.plots)
    result.details["plots"] = nlohmann::json::array({size_bars(conf_sizes, nc, syn_sizes, ns)});
  return result;
}

}  // namespace

MetricSpec household_structure_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "household_structure",
      .family = MetricFamily::kGeneral,
      .summary =
          "Persons per household (overall and by household-level columns), household "
          "sizes never seen in the confidential data, persons without a household, "
          "members who disagree on a household variable",
      .doc =
          "For person-level files whose rows carry a household identifier (the `household:` "
          "column; a household is every row with one identifier value, wherever the rows "
          "are). household_size_tv = ½ Σ_s |p_conf(s) − p_syn(s)|, p(s) the share of "
          "households with s persons; with a household-level categorical column as scope "
          "(one value within every confidential household, such as region or tenure, with "
          "at most `max_levels` levels) the same over the joint shares of (level, size), "
          "i.e. household size by region. household_size_ks is the Kolmogorov–Smirnov "
          "distance between the two size distributions and cardinality_shape_similarity = 1 "
          "− KS (SDMetrics' CardinalityShapeSimilarity; in a person-level file no household "
          "is childless, so its zero counts do not arise). size_within_bounds_share = share "
          "of synthetic households whose size lies within the confidential [min, max] "
          "(SDMetrics' CardinalityBoundaryAdherence). household_inconsistent_share = share "
          "of synthetic households whose members disagree on a column that is one value "
          "within every confidential household (scope: the column; all: on any of them); a "
          "household that disagrees is counted at its first member's level in the by-level "
          "size distribution. persons_without_household_share = synthetic rows whose "
          "household identifier is missing. The gate structure_defects counts the one-sided Fisher "
          "exact tests below `alpha` after Holm's correction: per household-level column, "
          "synthetic households disagreeing more often than the confidential ones (which never "
          "do), and, scoped by the household column, more synthetic rows without a household "
          "than confidential ones; the default policy fails a candidate with any, naming the "
          "columns. Counts are of households, unweighted. Baselines "
          "draw whole households (docs/metrics.md, Baselines).",
      .params = {{.name = "max_levels",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{50},
                  .doc = "household size by level only for household-level categorical columns "
                         "with at most this many levels",
                  .min = 1,
                  .max = 100000},
                 {.name = "alpha",
                  .type = ParamType::kDouble,
                  .default_value = 0.01,
                  .doc = "level of the structure tests (Holm-corrected over the columns)",
                  .min = 1e-12,
                  .max = 0.5},
                 {.name = "plots",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "emit bars of the persons-per-household shares"}},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "structure_defects",
                     .ideal = Ideal::lower(),
                     .reading = "household-level columns on which synthetic households' members "
                                "disagree significantly more often than real households' (or, "
                                "scope the household column, rows without a household)",
                     .baseline = Baseline::analytic(
                         0.0, "",
                         "0: real households of the same population show no such defect, but "
                         "for a share alpha of samples"),
                     .unit = Unit::kNumber,
                     .gate_names = "structure_defect"},
                    {.statistic = "household_size_tv",
                     .ideal = Ideal::lower(),
                     .reading = "total variation distance between real and synthetic shares of "
                                "households by number of persons (0 = identical)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber},
                    {.statistic = "household_inconsistent_share",
                     .ideal = Ideal::lower(),
                     .reading = "share of synthetic households whose members disagree on a "
                                "household-level variable (region, tenure, ...)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare}},
      .compute = compute_household_structure,
      .statistics =
          {{"conf_households",
            "households in the confidential data",
            std::nullopt,
            {kAll},
            OutputClass::kCount},
           {"syn_households", "households in the synthetic data", std::nullopt, {kAll}},
           {"{conf|syn}_mean_household_size",
            "persons per household on average",
            std::nullopt,
            {kAll}},
           {"persons_without_household_share",
            "synthetic rows whose household identifier is missing",
            Ideal::lower(),
            {kAll}},
           {"household_size_tv",
            "total variation distance between the shares of households by size (all), or by "
            "level of a household-level column and size (a column)",
            Ideal::lower(),
            {kAll, kColumn}},
           {"household_size_ks",
            "Kolmogorov–Smirnov distance between the household size distributions",
            Ideal::lower(),
            {kAll}},
           {"cardinality_shape_similarity",
            "1 − household_size_ks (SDMetrics)",
            Ideal::higher(),
            {kAll}},
           {"size_within_bounds_share",
            "share of synthetic households whose size is within the confidential minimum and "
            "maximum (SDMetrics' CardinalityBoundaryAdherence)",
            Ideal::higher(),
            {kAll}},
           {"household_inconsistent_share",
            "share of synthetic households whose members disagree on a household-level column "
            "(a column), or on any (all)",
            Ideal::lower(),
            {kAll, kColumn}},
           {"structure_p_value",
            "Holm-corrected one-sided Fisher exact p-value: synthetic households disagreeing on "
            "the column more often than confidential ones, or (the household column) more rows "
            "without a household",
            std::nullopt,
            {kColumn}},
           {"structure_defect",
            "1 when structure_p_value is below alpha",
            Ideal::lower(),
            {kColumn}},
           {"structure_defects", "number of structure tests below alpha", Ideal::lower(), {kAll}}},
      .references = {cite(patki_2016(), "parent-child cardinality as a multi-table property"),
                     cite(sdmetrics_software(),
                          "CardinalityShapeSimilarity and CardinalityBoundaryAdherence "
                          "reproduced")},
  };
}

}  // namespace synthaudit
