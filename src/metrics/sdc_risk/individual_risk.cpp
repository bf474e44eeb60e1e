// Individual re-identification risk of Benedetti & Franconi as sdcMicro's measure_risk computes
// it, the global risk (expected re-identifications) and, with a household column, the household
// risk; confidential and synthetic side by side.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/communicator.hpp"
#include "core/error.hpp"
#include "metrics/gathered_state.hpp"
#include "metrics/key_disclosure/key_combinations.hpp"
#include "metrics/references.hpp"
#include "metrics/sdc_risk/owned_combinations.hpp"
#include "metrics/sdc_risk/sdc_scenarios.hpp"
#include "stats/column_lookup.hpp"

namespace synthaudit {

namespace {

// sdcMicro's indivRisk (method "approx", qual = 1) from the sample frequency f and the weighted
// frequency F of a record's key class: p = f / F and
//   f = 1: p / (1 − p) · log(1 / p)
//   f = 2: p / (1 − p) − (p / (1 − p))² · log(1 / p)
//   f > 2: p / (f − (1 − p))
// and 1 / f where F = f (every population unit of the class is in the sample).
double individual_risk(double f, double F) {
  if (f == F) return 1.0 / f;
  const double p = f / F;
  const double odds = p / (1.0 - p);
  if (f == 1) return odds * std::log(1.0 / p);
  if (f == 2) return odds - odds * odds * std::log(1.0 / p);
  return p / (f - (1.0 - p));
}

// The statistics of one data set of one scenario from the sum of its records' risks and the
// largest risk.
void add_risk_rows(MetricResult& result, const std::vector<std::string>& keys, std::size_t data,
                   double records, double expected, double worst) {
  const std::string scope = sdc::scope(keys, "", data);
  result.add("expected_reidentifications", scope, expected);
  result.add("global_risk", scope, records > 0 ? expected / records : std::nan(""));
  result.add("max_individual_risk", scope, worst);
}

void warn_if_unweighted(MetricResult& result, bool weighted) {
  if (!weighted)
    result.warnings.push_back(
        "no sampling weights declared (--weights or the spec's weights:): individual risk is "
        "1 / (class size), as sdcMicro without weights");
}

MetricResult compute_individual_risk(const MetricInput& in, const Params& params) {
  const auto rule = sdc::missing_keys(params);
  const Table* tables[2] = {&in.confidential, &in.first_synthetic()};
  MetricResult result;
  // Weights: the confidential data's design weights; every synthetic record stands for an equal
  // share of the population total the confidential weights estimate (the synthetic weight
  // column, if any, holds synthesised values, not design weights).
  const bool weighted = !in.context.weights.empty();
  std::vector<double> weights[2];
  if (weighted) {
    const std::size_t w = stats::resolve_column(in.confidential, in.context.weights, "weights");
    if (!in.confidential.column(w).is_numeric())
      throw InputError("weights: column '" + in.context.weights + "' is not numeric");
    weights[0] = in.confidential.column(w).numeric;
    double total = 0;
    for (double x : weights[0]) total += x;
    const double n_syn = static_cast<double>(tables[1]->rows());
    weights[1].assign(tables[1]->rows(), n_syn > 0 ? total / n_syn : 0.0);
  }
  std::optional<stats::CodedColumn> household;
  if (!in.context.household.empty()) {
    const std::size_t h = stats::resolve_column(in.confidential, in.context.household, "household");
    household = stats::code_column({tables[0], tables[1]}, h, stats::CodingOptions{});
  }
  for (const auto& scenario : sdc::scenarios(in)) {
    const auto classes = sdc::scenario_classes(*tables[0], *tables[1], scenario, params);
    const auto& keys = classes.codes.key_names;
    for (std::size_t data = 0; data < 2; ++data) {
      const auto frequencies =
          stats::class_frequencies(classes.patterns[data], classes.missing_levels,
                                   weighted ? &weights[data] : nullptr, rule);
      const std::size_t n = frequencies.sample.size();
      std::vector<double> risk(n);
      double expected = 0, worst = std::nan("");
      for (std::size_t row = 0; row < n; ++row) {
        risk[row] = weighted ? individual_risk(frequencies.sample[row], frequencies.weighted[row])
                             : 1.0 / frequencies.sample[row];
        if (!std::isnan(risk[row])) expected += risk[row];
        if (!(worst >= risk[row])) worst = risk[row];
      }
      add_risk_rows(result, keys, data, static_cast<double>(n), expected, worst);
      const std::string scope = sdc::scope(keys, "", data);
      std::vector<std::pair<std::string, std::vector<double>>> per_record = {
          {"class_size", frequencies.sample}};
      if (weighted) per_record.emplace_back("weighted_class_size", frequencies.weighted);
      per_record.emplace_back("risk", risk);
      if (household) {
        // A household is re-identified when any member is: 1 − Π(1 − r_i) over its members;
        // every member carries its household's risk. A missing household id is a household of
        // its own.
        const auto& ids = household->codes[data];
        std::unordered_map<std::uint32_t, double> survive;
        for (std::size_t row = 0; row < n; ++row)
          if (ids[row] != household->missing_level) {
            auto [it, added] = survive.try_emplace(ids[row], 1.0);
            it->second *= 1.0 - risk[row];
          }
        std::vector<double> household_risk(n);
        double household_expected = 0;
        for (std::size_t row = 0; row < n; ++row) {
          household_risk[row] =
              ids[row] == household->missing_level ? risk[row] : 1.0 - survive[ids[row]];
          household_expected += household_risk[row];
        }
        per_record.emplace_back("household_risk", std::move(household_risk));
        result.add("household_expected_reidentifications", scope, household_expected);
        result.add("household_risk", scope,
                   n > 0 ? household_expected / static_cast<double>(n) : std::nan(""));
      }
      sdc::add_record_values(result, params, sdc::keys_scope(keys), data, std::move(per_record));
    }
  }
  warn_if_unweighted(result, weighted);
  return result;
}

// The mergeable form: per scenario, the records of each key combination in both data sets and
// its confidential weight sum; the class sizes f and F come from those as k_anonymity's do, and
// every record of a combination has its combination's risk. Household risk multiplies over a
// household's members, which may lie in different partitions, and per-record output needs every
// record: with a household column or record_level the rows are gathered.
std::string individual_risk_state(const MetricInput& in, const Params& params) {
  if (params.get_bool("record_level") || !in.context.household.empty() ||
      !keydisc::combinations_mergeable(params))
    return gathered_state(in);
  const auto options = keydisc::coding_options(params);
  const std::vector<double>* weights = nullptr;
  if (!in.context.weights.empty()) {
    const std::size_t w = stats::resolve_column(in.confidential, in.context.weights, "weights");
    if (!in.confidential.column(w).is_numeric())
      throw InputError("weights: column '" + in.context.weights + "' is not numeric");
    weights = &in.confidential.column(w).numeric;
  }
  StateWriter out = begin_merged_state();
  for (const auto& scenario : sdc::scenarios(in)) {
    const std::vector<const Table*> tables = {&in.confidential, &in.first_synthetic()};
    const auto codes = keydisc::code_scenario(tables, scenario, options);
    keydisc::count_combinations(tables, codes.key_columns, options, weights).write(out);
  }
  return out.take();
}

MetricResult finalize_individual_risk(const std::vector<std::string>& states,
                                      const MetricInput& schema, const Params& params) {
  if (auto gathered = finalize_if_gathered(states, schema, params, compute_individual_risk))
    return *gathered;
  const auto rule = sdc::missing_keys(params);
  const auto options = keydisc::coding_options(params);
  const auto& scenarios = sdc::scenarios(schema);
  std::vector<keydisc::CombinationCounts> merged(scenarios.size());
  for (const auto& state : states) {
    StateReader in = open_merged_state(state);
    for (auto& counts : merged) counts.add(keydisc::CombinationCounts::read(in));
    in.expect_end();
  }
  const bool weighted = !schema.context.weights.empty();
  MetricResult result;
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    const auto keys = keydisc::code_scenario({&schema.confidential, &schema.first_synthetic()},
                                             scenarios[s], options)
                          .key_names;
    // Every synthetic record stands for an equal share of the confidential weight total.
    double total = 0;
    for (const auto& [combination, weight] : merged[s].first_weight) total += weight;
    const double n_syn = static_cast<double>(merged[s].records(1));
    const double share = n_syn > 0 ? total / n_syn : 0.0;
    for (std::size_t data = 0; data < 2; ++data) {
      const auto combinations = keydisc::combination_patterns(merged[s], data);
      const auto& records = combinations.records;
      const auto f = stats::class_frequencies(combinations.patterns, combinations.missing_levels,
                                              &records, rule)
                         .weighted;
      std::vector<double> big_f;
      if (weighted) {
        if (data == 0) {
          big_f = stats::class_frequencies(combinations.patterns, combinations.missing_levels,
                                           &combinations.weight, rule)
                      .weighted;
        } else {
          for (double size : f) big_f.push_back(size * share);
        }
      }
      double n = 0, expected = 0, worst = std::nan("");
      for (std::size_t c = 0; c < f.size(); ++c) {
        const double risk = weighted ? individual_risk(f[c], big_f[c]) : 1.0 / f[c];
        n += records[c];
        if (!std::isnan(risk)) expected += records[c] * risk;
        if (!(worst >= risk)) worst = risk;
      }
      add_risk_rows(result, keys, data, n, expected, worst);
    }
  }
  warn_if_unweighted(result, weighted);
  return result;
}

// The collective form: per scenario, each key combination's records and confidential weight sum
// sent to the rank that owns it (sdc/owned_combinations.hpp); each rank finds the class sizes f
// and F of the combinations it owns (with the wildcard rule, together with the others) and adds
// their risks; the root adds the ranks' sums in rank order. Counts and maxima are the single
// process's bit for bit; the sums of risks and weights add their terms in another order (within
// 1e-12 relative).
MetricResult collective_individual_risk(const MetricInput& partition, const Params& params,
                                        Communicator& communicator) {
  const auto rule = sdc::missing_keys(params);
  const auto options = keydisc::coding_options(params);
  const std::vector<const Table*> tables = {&partition.confidential, &partition.first_synthetic()};
  const bool weighted = !partition.context.weights.empty();
  const std::vector<double>* weights = nullptr;
  if (weighted) {
    const std::size_t w =
        stats::resolve_column(partition.confidential, partition.context.weights, "weights");
    if (!partition.confidential.column(w).is_numeric())
      throw InputError("weights: column '" + partition.context.weights + "' is not numeric");
    weights = &partition.confidential.column(w).numeric;
  }
  MetricResult result;
  for (const auto& scenario : sdc::scenarios(partition)) {
    auto [keys, key_columns] = sdc::scenario_keys(tables, scenario, options);
    const auto owned = sdc::exchange_to_owners(
        keydisc::count_flat_combinations(tables, key_columns, options, weights), key_columns.size(),
        communicator);
    // Every synthetic record stands for an equal share of the confidential weight total.
    double share = 0;
    if (weighted) {
      double total = 0, n_syn = 0;
      for (std::size_t i = 0; i < owned.size(); ++i) {
        if (owned.count(i, 0) > 0) total += owned.weight[i];
        n_syn += static_cast<double>(owned.count(i, 1));
      }
      total = sdc::sum_over_ranks(total, communicator);
      n_syn = sdc::sum_over_ranks(n_syn, communicator);
      share = n_syn > 0 ? total / n_syn : 0.0;
    }
    for (std::size_t data = 0; data < 2; ++data) {
      const auto frequencies =
          sdc::owned_class_frequencies(owned, data, weighted && data == 0, rule, communicator);
      const auto& f = frequencies.sample;
      double n = 0, expected = 0, worst = std::nan("");
      std::size_t c = 0;
      for (std::size_t i = 0; i < owned.size(); ++i) {
        if (owned.count(i, data) == 0) continue;
        const double big_f = data == 0 ? frequencies.weighted[c] : f[c] * share;
        const double risk = weighted ? individual_risk(f[c], big_f) : 1.0 / f[c];
        const auto records = static_cast<double>(owned.count(i, data));
        n += records;
        if (!std::isnan(risk)) expected += records * risk;
        if (!(worst >= risk)) worst = risk;
        ++c;
      }
      StateWriter mine;
      for (double v : {n, expected, worst}) mine.f64(v);
      n = expected = 0;
      worst = std::nan("");
      for (const auto& bytes : communicator.gather(mine.take())) {
        StateReader in(bytes);
        const double rank_records = in.f64();
        n += rank_records;
        expected += in.f64();
        const double rank_worst = in.f64();
        // A rank that owns no record of this data set has no largest risk.
        if (rank_records > 0 && !(worst >= rank_worst)) worst = rank_worst;
        in.expect_end();
      }
      if (!communicator.is_root()) continue;
      add_risk_rows(result, keys, data, n, expected, worst);
    }
  }
  warn_if_unweighted(result, weighted);
  return result;
}

bool individual_risk_collective_applies(const MetricInput& schema, const Params& params) {
  return !params.get_bool("record_level") && schema.context.household.empty() &&
         keydisc::combinations_mergeable(params);
}

}  // namespace

MetricSpec individual_risk_metric() {
  using enum ScopeKind;
  using namespace references;
  auto params = sdc::key_params(/*with_missing_keys=*/true);
  params.push_back(sdc::record_level_param(
      "class size, weighted class size (with weights), individual risk and household risk "
      "(with a household column)"));
  return MetricSpec{
      .name = "individual_risk",
      .family = MetricFamily::kSdcRisk,
      .summary =
          "Individual re-identification risk (Benedetti & Franconi, as sdcMicro's "
          "measure_risk) with the sampling weights, global risk and household risk, "
          "confidential and synthetic side by side",
      .doc = std::string(
                 "For each record, f_k is its class's sample frequency on the keys and F_k the "
                 "sum of the sampling weights (`weights:`) of those records, the estimated "
                 "population frequency. The individual risk (Benedetti & Franconi 1998, with "
                 "the approximation Franconi & Polettini 2004 give, as sdcMicro's indivRisk "
                 "with method \"approx\") is, with p = f_k / F_k: p/(1−p)·log(1/p) for f_k = 1; "
                 "p/(1−p) − (p/(1−p))²·log(1/p) for f_k = 2; p/(f_k − (1−p)) for f_k > 2; and "
                 "1/f_k where F_k = f_k. Without weights it is 1/f_k (sdcMicro's unweighted "
                 "case), with a warning. expected_reidentifications = Σ risk (sdcMicro's "
                 "global_risk_ER), global_risk = that / n, max_individual_risk = the largest. "
                 "With a household column (`household:`), a household's risk is "
                 "1 − Π(1 − r_i) over its members and every member carries it "
                 "(household_expected_reidentifications = its sum, household_risk = that / n, "
                 "sdcMicro's hier_risk_ER and hier_risk); a record with a missing household id "
                 "is a household of its own (sdcMicro leaves it out). Synthetic records carry "
                 "equal weights summing to the confidential weights' total (the synthetic file's "
                 "weight column holds synthesised values, not design weights), so the synthetic "
                 "values read as if the synthetic file were a sample of the same population; "
                 "its household column groups its records as it stands. ") +
             sdc::kSideBySideDoc +
             " A partitioned run merges the records and weights per key combination; without "
             "whole tables the ranks do it together, each key combination sent to the rank "
             "that owns it (by a hash of its values), which finds its class sizes; with a "
             "household column, record_level = true or numeric = quantile | equal_width it "
             "gathers every row on one process.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .uses_weights = true,
      .compute = compute_individual_risk,
      .mergeable = MergeableForm{.partial_state = individual_risk_state,
                                 .finalize = finalize_individual_risk},
      .collective = CollectiveForm{.applies = individual_risk_collective_applies,
                                   .run = collective_individual_risk},
      .statistics =
          {{"expected_reidentifications",
            "the sum of the individual risks: the expected number of "
            "re-identifications",
            Ideal::lower(),
            {kScenario},
            OutputClass::kCount},
           {"global_risk",
            "the mean individual risk: expected re-identifications per record",
            Ideal::lower(),
            {kScenario}},
           {"max_individual_risk", "the largest individual risk", Ideal::lower(), {kScenario}},
           {"household_expected_reidentifications",
            "the sum over records of their household's risk",
            Ideal::lower(),
            {kScenario},
            OutputClass::kCount},
           {"household_risk",
            "the mean over records of their household's risk",
            Ideal::lower(),
            {kScenario}}},
      .references = {cite(benedetti_franconi_1998(), "individual risk"),
                     cite(franconi_polettini_2004(), "the approximation of the individual risk"),
                     cite(templ_kowarik_meindl_2015(), "measure_risk: global and household risk"),
                     cite(sdcmicro_software(), "measure_risk, indivRisk and freqCalc reproduced")},
  };
}

}  // namespace synthaudit
