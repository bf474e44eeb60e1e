// synthpop's replicated.uniques on the disclosure keys: synthetic records unique on the keys
// whose key values are also unique in the confidential data.
#include <algorithm>
#include <cmath>

#include "core/communicator.hpp"
#include "core/error.hpp"
#include "metrics/gathered_state.hpp"
#include "metrics/key_disclosure/key_combinations.hpp"
#include "metrics/references.hpp"
#include "metrics/sdc_risk/owned_combinations.hpp"
#include "metrics/sdc_risk/sdc_scenarios.hpp"

namespace synthaudit {

namespace {

MetricResult compute_replicated_uniques(const MetricInput& in, const Params& params) {
  MetricResult result;
  double worst = std::nan(""), worst_records = 0;
  for (const auto& scenario : sdc::scenarios(in)) {
    const auto codes = keydisc::code_scenario({&in.confidential, &in.first_synthetic()}, scenario,
                                              keydisc::coding_options(params));
    const auto conf_count = stats::count_ids(codes.keys.ids[0], codes.keys.groups);
    const auto syn_count = stats::count_ids(codes.keys.ids[1], codes.keys.groups);
    double original = 0, synthetic = 0, in_original = 0, replicated = 0;
    for (std::uint32_t g = 0; g < codes.keys.groups; ++g) {
      original += conf_count[g] == 1;
      if (syn_count[g] != 1) continue;
      synthetic += 1;
      in_original += conf_count[g] >= 1;
      replicated += conf_count[g] == 1;
    }
    const double n_syn = static_cast<double>(in.first_synthetic().rows());
    const std::string scope = sdc::keys_scope(codes.key_names);
    const double share = n_syn > 0 ? replicated / n_syn : std::nan("");
    result.add("original_uniques", scope, original);
    result.add("synthetic_uniques", scope, synthetic);
    result.add("synthetic_uniques_in_original", scope, in_original);
    result.add("replicated_uniques", scope, replicated);
    // A share of the released synthetic rows: it reveals the count of replicated uniques.
    result.add("replicated_unique_share", scope, share, replicated);
    if (!(worst >= share)) {
      worst = share;
      worst_records = replicated;
    }
  }
  if (!std::isnan(worst)) result.add("replicated_unique_share_max", "all", worst, worst_records);
  return result;
}

// The mergeable form: per scenario, the records of each key combination in both data sets.
std::string replicated_uniques_state(const MetricInput& in, const Params& params) {
  if (!keydisc::combinations_mergeable(params)) return gathered_state(in);
  const auto options = keydisc::coding_options(params);
  StateWriter out = begin_merged_state();
  for (const auto& scenario : sdc::scenarios(in)) {
    const std::vector<const Table*> tables = {&in.confidential, &in.first_synthetic()};
    const auto codes = keydisc::code_scenario(tables, scenario, options);
    keydisc::count_combinations(tables, codes.key_columns, options).write(out);
  }
  return out.take();
}

MetricResult finalize_replicated_uniques(const std::vector<std::string>& states,
                                         const MetricInput& schema, const Params& params) {
  const auto options = keydisc::coding_options(params);
  const auto& scenarios = sdc::scenarios(schema);
  std::vector<keydisc::CombinationCounts> merged(scenarios.size());
  if (auto gathered = finalize_if_gathered(states, schema, params, compute_replicated_uniques))
    return *gathered;
  for (const auto& state : states) {
    StateReader in = open_merged_state(state);
    for (auto& counts : merged) counts.add(keydisc::CombinationCounts::read(in));
    in.expect_end();
  }
  MetricResult result;
  double worst = std::nan(""), worst_records = 0;
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    const auto key_names = keydisc::code_scenario({&schema.confidential, &schema.first_synthetic()},
                                                  scenarios[s], options)
                               .key_names;
    double original = 0, synthetic = 0, in_original = 0, replicated = 0;
    for (const auto& [combination, count] : merged[s].counts) {
      original += count[0] == 1;
      if (count[1] != 1) continue;
      synthetic += 1;
      in_original += count[0] >= 1;
      replicated += count[0] == 1;
    }
    const double n_syn = static_cast<double>(merged[s].records(1));
    const std::string scope = sdc::keys_scope(key_names);
    const double share = n_syn > 0 ? replicated / n_syn : std::nan("");
    result.add("original_uniques", scope, original);
    result.add("synthetic_uniques", scope, synthetic);
    result.add("synthetic_uniques_in_original", scope, in_original);
    result.add("replicated_uniques", scope, replicated);
    // A share of the released synthetic rows: it reveals the count of replicated uniques.
    result.add("replicated_unique_share", scope, share, replicated);
    if (!(worst >= share)) {
      worst = share;
      worst_records = replicated;
    }
  }
  if (!std::isnan(worst)) result.add("replicated_unique_share_max", "all", worst, worst_records);
  return result;
}

// The collective form: per scenario, each key combination's records sent to the rank that owns
// it (sdc/owned_combinations.hpp); each rank counts the uniques among the combinations it owns and
// the root adds the ranks' counts, so every number is the single process's bit for bit.
MetricResult collective_replicated_uniques(const MetricInput& partition, const Params& params,
                                           Communicator& communicator) {
  const auto options = keydisc::coding_options(params);
  const std::vector<const Table*> tables = {&partition.confidential, &partition.first_synthetic()};
  MetricResult result;
  double worst = std::nan(""), worst_records = 0;
  for (const auto& scenario : sdc::scenarios(partition)) {
    std::vector<std::string> key_names;
    std::vector<std::size_t> key_columns;
    {
      auto codes = keydisc::code_scenario(tables, scenario, options);
      key_names = std::move(codes.key_names);
      key_columns = std::move(codes.key_columns);
    }
    // original, synthetic, in_original, replicated uniques and synthetic records on this rank
    std::vector<std::uint64_t> counts(5, 0);
    {
      const auto owned =
          sdc::exchange_to_owners(keydisc::count_flat_combinations(tables, key_columns, options),
                                  key_columns.size(), communicator);
      for (std::size_t i = 0; i < owned.size(); ++i) {
        const std::uint64_t count[2] = {owned.count(i, 0), owned.count(i, 1)};
        counts[4] += count[1];
        counts[0] += count[0] == 1;
        if (count[1] != 1) continue;
        counts[1] += 1;
        counts[2] += count[0] >= 1;
        counts[3] += count[0] == 1;
      }
    }
    StateWriter mine;
    mine.u64s(counts);
    std::vector<std::uint64_t> whole;
    for (const auto& bytes : communicator.gather(mine.take())) {
      StateReader in(bytes);
      add_into(whole, in.u64s());
      in.expect_end();
    }
    if (!communicator.is_root()) continue;
    const auto original = static_cast<double>(whole[0]);
    const auto synthetic = static_cast<double>(whole[1]);
    const auto in_original = static_cast<double>(whole[2]);
    const auto replicated = static_cast<double>(whole[3]);
    const auto n_syn = static_cast<double>(whole[4]);
    const std::string scope = sdc::keys_scope(key_names);
    const double share = n_syn > 0 ? replicated / n_syn : std::nan("");
    result.add("original_uniques", scope, original);
    result.add("synthetic_uniques", scope, synthetic);
    result.add("synthetic_uniques_in_original", scope, in_original);
    result.add("replicated_uniques", scope, replicated);
    // A share of the released synthetic rows: it reveals the count of replicated uniques.
    result.add("replicated_unique_share", scope, share, replicated);
    if (!(worst >= share)) {
      worst = share;
      worst_records = replicated;
    }
  }
  if (!std::isnan(worst)) result.add("replicated_unique_share_max", "all", worst, worst_records);
  return result;
}

bool replicated_uniques_collective_applies(const MetricInput&, const Params& params) {
  return keydisc::combinations_mergeable(params);
}

}  // namespace

MetricSpec replicated_uniques_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "replicated_uniques",
      .family = MetricFamily::kSdcRisk,
      .summary =
          "synthpop's replicated uniques: synthetic records unique on the keys whose key "
          "values are unique in the confidential data too, per replicate",
      .doc =
          "On the keys of each disclosure scenario (synthpop's replicated.uniques with "
          "`keys`; Raab, Nowok & Dibben 2016): original_uniques = the key patterns that "
          "occur exactly once in the confidential data; synthetic_uniques = those that occur "
          "exactly once in the synthetic data; synthetic_uniques_in_original = synthetic "
          "uniques whose pattern occurs in the confidential data; replicated_uniques = "
          "synthetic uniques whose pattern is a confidential unique too, and "
          "replicated_unique_share = replicated_uniques / (synthetic records) (synthpop's "
          "percentage / 100). These are the records synthpop's sdc(rm.replicated.uniques = "
          "TRUE) removes. Missing is a key value of its own (synthpop pastes NA into the "
          "composite key; with a single key, synthpop's table() drops NA instead, so a "
          "missing key is never unique there). Numeric keys are coded as `numeric` says "
          "(each distinct value by default, as synthpop). Computed per replicate; the "
          "holdout baseline gives what real records from outside the confidential data "
          "would replicate. A partitioned run merges the records per key combination; "
          "without whole tables the ranks do it together, each key combination sent to the "
          "rank that owns it (by a hash of its values); with numeric = quantile | equal_width "
          "it gathers every row on one process.",
      .params = keydisc::coding_params("exact", 5),
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .headlines = {{.statistic = "replicated_unique_share_max",
                     .ideal = Ideal::lower(),
                     .reading = "share of synthetic records unique on the keys whose key "
                                "values are unique in the confidential data too, worst "
                                "scenario",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kShare}},
      .compute = compute_replicated_uniques,
      .mergeable = MergeableForm{.partial_state = replicated_uniques_state,
                                 .finalize = finalize_replicated_uniques},
      .collective = CollectiveForm{.applies = replicated_uniques_collective_applies,
                                   .run = collective_replicated_uniques},
      .statistics = {{"original_uniques",
                      "key patterns that occur once in the confidential data",
                      std::nullopt,
                      {kScenario},
                      OutputClass::kCount},
                     {"synthetic_uniques",
                      "key patterns that occur once in the synthetic data",
                      std::nullopt,
                      {kScenario},
                      OutputClass::kCount},
                     {"synthetic_uniques_in_original",
                      "synthetic uniques whose key pattern occurs in the confidential data",
                      Ideal::lower(),
                      {kScenario},
                      OutputClass::kCount},
                     {"replicated_uniques",
                      "synthetic uniques whose key pattern is unique in the confidential data",
                      Ideal::lower(),
                      {kScenario},
                      OutputClass::kCount},
                     {"replicated_unique_share",
                      "replicated uniques as a share of the synthetic records",
                      Ideal::lower(),
                      {kScenario}},
                     {"replicated_unique_share_max",
                      "the largest replicated_unique_share over the scenarios",
                      Ideal::lower(),
                      {kAll}}},
      .references = {cite(raab_nowok_dibben_2016(),
                          "replicated uniques as a disclosure check for synthetic data"),
                     cite(synthpop_software(), "replicated.uniques reproduced")},
  };
}

}  // namespace synthaudit
