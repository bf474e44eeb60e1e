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

// One scenario's key patterns tallied from each pattern's records in the confidential and the
// synthetic data.
struct UniqueCounts {
  std::uint64_t original = 0, synthetic = 0, in_original = 0, replicated = 0;

  void add_pattern(std::uint64_t confidential_records, std::uint64_t synthetic_records) {
    original += confidential_records == 1;
    if (synthetic_records != 1) return;
    synthetic += 1;
    in_original += confidential_records >= 1;
    replicated += confidential_records == 1;
  }
};

// The statistics of each scenario in turn, and of the scenario with the largest share.
class ReplicatedUniquesRows {
 public:
  void add_scenario(const std::vector<std::string>& key_names, const UniqueCounts& counts,
                    double synthetic_records) {
    const auto replicated = static_cast<double>(counts.replicated);
    const std::string scope = sdc::keys_scope(key_names);
    const double share = synthetic_records > 0 ? replicated / synthetic_records : std::nan("");
    result_.add("original_uniques", scope, static_cast<double>(counts.original));
    result_.add("synthetic_uniques", scope, static_cast<double>(counts.synthetic));
    result_.add("synthetic_uniques_in_original", scope, static_cast<double>(counts.in_original));
    result_.add("replicated_uniques", scope, replicated);
    // A share of the released synthetic rows: it reveals the count of replicated uniques.
    result_.add("replicated_unique_share", scope, share, replicated);
    if (!(worst_ >= share)) {
      worst_ = share;
      worst_records_ = replicated;
    }
  }

  MetricResult finish() && {
    if (!std::isnan(worst_))
      result_.add("replicated_unique_share_max", "all", worst_, worst_records_);
    return std::move(result_);
  }

 private:
  MetricResult result_;
  double worst_ = std::nan("");
  double worst_records_ = 0;
};

MetricResult compute_replicated_uniques(const MetricInput& in, const Params& params) {
  ReplicatedUniquesRows rows;
  for (const auto& scenario : sdc::scenarios(in)) {
    const auto codes = keydisc::code_scenario({&in.confidential, &in.first_synthetic()}, scenario,
                                              keydisc::coding_options(params));
    const auto conf_count = stats::count_ids(codes.keys.ids[0], codes.keys.groups);
    const auto syn_count = stats::count_ids(codes.keys.ids[1], codes.keys.groups);
    UniqueCounts counts;
    for (std::uint32_t g = 0; g < codes.keys.groups; ++g)
      counts.add_pattern(conf_count[g], syn_count[g]);
    rows.add_scenario(codes.key_names, counts, static_cast<double>(in.first_synthetic().rows()));
  }
  return std::move(rows).finish();
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
  ReplicatedUniquesRows rows;
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    const auto key_names = keydisc::code_scenario({&schema.confidential, &schema.first_synthetic()},
                                                  scenarios[s], options)
                               .key_names;
    UniqueCounts counts;
    for (const auto& [combination, count] : merged[s].counts)
      counts.add_pattern(count[0], count[1]);
    rows.add_scenario(key_names, counts, static_cast<double>(merged[s].records(1)));
  }
  return std::move(rows).finish();
}

// The collective form: per scenario, each key combination's records sent to the rank that owns
// it (sdc/owned_combinations.hpp); each rank counts the uniques among the combinations it owns and
// the root adds the ranks' counts, so every number is the single process's bit for bit.
MetricResult collective_replicated_uniques(const MetricInput& partition, const Params& params,
                                           Communicator& communicator) {
  const auto options = keydisc::coding_options(params);
  const std::vector<const Table*> tables = {&partition.confidential, &partition.first_synthetic()};
  ReplicatedUniquesRows rows;
  for (const auto& scenario : sdc::scenarios(partition)) {
    auto [key_names, key_columns] = sdc::scenario_keys(tables, scenario, options);
    UniqueCounts mine;
    std::uint64_t synthetic_records = 0;
    {
      const auto owned =
          sdc::exchange_to_owners(keydisc::count_flat_combinations(tables, key_columns, options),
                                  key_columns.size(), communicator);
      for (std::size_t i = 0; i < owned.size(); ++i) {
        synthetic_records += owned.count(i, 1);
        mine.add_pattern(owned.count(i, 0), owned.count(i, 1));
      }
    }
    StateWriter out;
    out.u64s({mine.original, mine.synthetic, mine.in_original, mine.replicated, synthetic_records});
    std::vector<std::uint64_t> whole;
    for (const auto& bytes : communicator.gather(out.take())) {
      StateReader in(bytes);
      add_into(whole, in.u64s());
      in.expect_end();
    }
    if (!communicator.is_root()) continue;
    const UniqueCounts counts{.original = whole[0],
                              .synthetic = whole[1],
                              .in_original = whole[2],
                              .replicated = whole[3]};
    rows.add_scenario(key_names, counts, static_cast<double>(whole[4]));
  }
  return std::move(rows).finish();
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
