// k-anonymity on the disclosure keys: class sizes of the confidential and the synthetic data,
// and the records in classes smaller than k.
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

std::vector<std::int64_t> k_values(const Params& params) {
  std::vector<std::int64_t> ks;
  for (const auto& text : params.get_string_list("k")) {
    std::size_t used = 0;
    long long k = 0;
    try {
      k = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || k < 2)
      throw InputError("parameter k of k_anonymity: '" + text +
                       "' is not a whole number of at least 2");
    ks.push_back(k);
  }
  if (ks.empty()) throw InputError("parameter k of k_anonymity: give at least one k");
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

MetricResult compute_k_anonymity(const MetricInput& in, const Params& params) {
  const auto ks = k_values(params);
  const auto rule = sdc::missing_keys(params);
  MetricResult result;
  result.details["plots"] = nlohmann::json::array();
  for (const auto& scenario : sdc::scenarios(in)) {
    const auto classes =
        sdc::scenario_classes(in.confidential, in.first_synthetic(), scenario, params);
    const auto& keys = classes.codes.key_names;
    auto plot = make_plot("bars", "Share of records in classes smaller than k",
                          "k (class size threshold)", "share of records", sdc::keys_scope(keys));
    for (std::size_t data = 0; data < 2; ++data) {
      const auto frequencies =
          stats::class_frequencies(classes.patterns[data], classes.missing_levels, nullptr, rule);
      const auto& f = frequencies.sample;
      const double n = static_cast<double>(f.size());
      sdc::add_record_values(result, params, sdc::keys_scope(keys), data, {{"class_size", f}});
      result.add("classes", sdc::scope(keys, "", data), classes.patterns[data].patterns());
      result.add("sample_uniques", sdc::scope(keys, "", data),
                 static_cast<double>(std::count(f.begin(), f.end(), 1.0)));
      result.add("smallest_class", sdc::scope(keys, "", data),
                 f.empty() ? std::nan("") : *std::min_element(f.begin(), f.end()));
      for (auto k : ks) {
        const double below = static_cast<double>(std::count_if(
            f.begin(), f.end(), [k](double size) { return size < static_cast<double>(k); }));
        const std::string qualifier = "k=" + std::to_string(k);
        result.add("records_below_k", sdc::scope(keys, qualifier, data), below);
        sdc::add_share_of_records(result, "share_below_k", sdc::scope(keys, qualifier, data), below,
                                  n, data);
        sdc::add_share_bar(plot, qualifier, data, below, n);
      }
    }
    result.details["plots"].push_back(plot);
  }
  return result;
}

// The mergeable form: per scenario, the records of each key combination in both data sets.
std::string k_anonymity_state(const MetricInput& in, const Params& params) {
  if (params.get_bool("record_level") || !keydisc::combinations_mergeable(params))
    return gathered_state(in);
  const auto options = keydisc::coding_options(params);
  StateWriter out = begin_merged_state();
  for (const auto& scenario : sdc::scenarios(in)) {
    const std::vector<const Table*> tables = {&in.confidential, &in.first_synthetic()};
    const auto codes = keydisc::code_scenario(tables, scenario, options);
    keydisc::count_combinations(tables, codes.key_columns, options).write(out);
  }
  return out.take();
}

// Class sizes from the merged counts: each combination's class size comes from
// stats::class_frequencies over one pattern per combination weighted by its records, and every
// record of a combination has its combination's class size.
MetricResult finalize_k_anonymity(const std::vector<std::string>& states, const MetricInput& schema,
                                  const Params& params) {
  const auto ks = k_values(params);
  const auto rule = sdc::missing_keys(params);
  const auto options = keydisc::coding_options(params);
  const auto& scenarios = sdc::scenarios(schema);
  std::vector<keydisc::CombinationCounts> merged(scenarios.size());
  if (auto gathered = finalize_if_gathered(states, schema, params, compute_k_anonymity))
    return *gathered;
  for (const auto& state : states) {
    StateReader in = open_merged_state(state);
    for (auto& counts : merged) counts.add(keydisc::CombinationCounts::read(in));
    in.expect_end();
  }
  MetricResult result;
  result.details["plots"] = nlohmann::json::array();
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    const auto keys = keydisc::code_scenario({&schema.confidential, &schema.first_synthetic()},
                                             scenarios[s], options)
                          .key_names;
    auto plot = make_plot("bars", "Share of records in classes smaller than k",
                          "k (class size threshold)", "share of records", sdc::keys_scope(keys));
    for (std::size_t data = 0; data < 2; ++data) {
      const auto combinations = keydisc::combination_patterns(merged[s], data);
      const auto sizes =
          stats::class_frequencies(combinations.patterns, combinations.missing_levels,
                                   &combinations.records, rule)
              .weighted;
      const auto& records = combinations.records;
      double n = 0, uniques = 0, smallest = std::nan("");
      for (std::size_t c = 0; c < sizes.size(); ++c) {
        n += records[c];
        if (sizes[c] == 1.0) uniques += records[c];
        if (!(smallest <= sizes[c])) smallest = sizes[c];
      }
      result.add("classes", sdc::scope(keys, "", data), combinations.patterns.patterns());
      result.add("sample_uniques", sdc::scope(keys, "", data), uniques);
      result.add("smallest_class", sdc::scope(keys, "", data), smallest);
      for (auto k : ks) {
        double below = 0;
        for (std::size_t c = 0; c < sizes.size(); ++c)
          if (sizes[c] < static_cast<double>(k)) below += records[c];
        const std::string qualifier = "k=" + std::to_string(k);
        result.add("records_below_k", sdc::scope(keys, qualifier, data), below);
        sdc::add_share_of_records(result, "share_below_k", sdc::scope(keys, qualifier, data), below,
                                  n, data);
        sdc::add_share_bar(plot, qualifier, data, below, n);
      }
    }
    result.details["plots"].push_back(plot);
  }
  return result;
}

// The collective form: per scenario, each key combination's records sent to the rank that owns
// it (sdc/owned_combinations.hpp); each rank finds the class sizes of the combinations it owns
// (with the wildcard rule, together with the others) and counts what the statistics need; the
// root adds the ranks' counts. Every number is a sum of whole record counts or a minimum, so the
// result is the mergeable form's and the single process's bit for bit.
MetricResult collective_k_anonymity(const MetricInput& partition, const Params& params,
                                    Communicator& communicator) {
  const auto ks = k_values(params);
  const auto rule = sdc::missing_keys(params);
  const auto options = keydisc::coding_options(params);
  const std::vector<const Table*> tables = {&partition.confidential, &partition.first_synthetic()};
  MetricResult result;
  result.details["plots"] = nlohmann::json::array();
  for (const auto& scenario : sdc::scenarios(partition)) {
    auto [keys, key_columns] = sdc::scenario_keys(tables, scenario, options);
    const auto owned =
        sdc::exchange_to_owners(keydisc::count_flat_combinations(tables, key_columns, options),
                                key_columns.size(), communicator);
    auto plot = make_plot("bars", "Share of records in classes smaller than k",
                          "k (class size threshold)", "share of records", sdc::keys_scope(keys));
    for (std::size_t data = 0; data < 2; ++data) {
      const auto sizes =
          sdc::owned_class_frequencies(owned, data, false, rule, communicator).sample;
      // This rank's classes, records, uniques, smallest class and records below each k.
      double n = 0, uniques = 0, smallest = std::nan("");
      std::vector<double> below(ks.size(), 0.0);
      std::size_t c = 0;
      for (std::size_t i = 0; i < owned.size(); ++i) {
        if (owned.count(i, data) == 0) continue;
        const auto records = static_cast<double>(owned.count(i, data));
        n += records;
        if (sizes[c] == 1.0) uniques += records;
        if (!(smallest <= sizes[c])) smallest = sizes[c];
        for (std::size_t k = 0; k < ks.size(); ++k)
          if (sizes[c] < static_cast<double>(ks[k])) below[k] += records;
        ++c;
      }
      StateWriter mine;
      mine.u64(sizes.size());
      for (double v : {n, uniques, smallest}) mine.f64(v);
      mine.f64s(below);
      double classes = 0;
      n = uniques = 0;
      smallest = std::nan("");
      std::fill(below.begin(), below.end(), 0.0);
      for (const auto& bytes : communicator.gather(mine.take())) {
        StateReader in(bytes);
        const std::uint64_t rank_classes = in.u64();
        classes += static_cast<double>(rank_classes);
        n += in.f64();
        uniques += in.f64();
        const double rank_smallest = in.f64();
        // A rank that owns no class of this data set has no smallest one.
        if (rank_classes > 0 && !(smallest <= rank_smallest)) smallest = rank_smallest;
        add_into(below, in.f64s());
        in.expect_end();
      }
      if (!communicator.is_root()) continue;
      result.add("classes", sdc::scope(keys, "", data), classes);
      result.add("sample_uniques", sdc::scope(keys, "", data), uniques);
      result.add("smallest_class", sdc::scope(keys, "", data), smallest);
      for (std::size_t k = 0; k < ks.size(); ++k) {
        const std::string qualifier = "k=" + std::to_string(ks[k]);
        result.add("records_below_k", sdc::scope(keys, qualifier, data), below[k]);
        sdc::add_share_of_records(result, "share_below_k", sdc::scope(keys, qualifier, data),
                                  below[k], n, data);
        sdc::add_share_bar(plot, qualifier, data, below[k], n);
      }
    }
    result.details["plots"].push_back(plot);
  }
  return result;
}

bool k_anonymity_collective_applies(const MetricInput&, const Params& params) {
  return !params.get_bool("record_level") && keydisc::combinations_mergeable(params);
}

}  // namespace

MetricSpec k_anonymity_metric() {
  using enum ScopeKind;
  using namespace references;
  auto params = sdc::key_params(/*with_missing_keys=*/true);
  params.push_back(sdc::record_level_param("class size (its frequency on the keys)"));
  params.push_back({.name = "k",
                    .type = ParamType::kStringList,
                    .default_value = std::vector<std::string>{"2", "3", "5"},
                    .doc = "class size thresholds (whole numbers >= 2): a record violates "
                           "k-anonymity when fewer than k records share its keys"});
  return MetricSpec{
      .name = "k_anonymity",
      .family = MetricFamily::kSdcRisk,
      .summary =
          "k-anonymity on the disclosure keys: class sizes and the share of records in "
          "classes smaller than k, confidential and synthetic side by side",
      .doc = std::string(
                 "A record's class size f_k is the number of records that share its key values "
                 "(its frequency on the keys); the data are k-anonymous when every f_k >= k "
                 "(Samarati & Sweeney 1998; Sweeney 2002). Reported for each k: "
                 "records_below_k = #{records with f_k < k} and share_below_k = that / n "
                 "(records_below_k for k = 2 and 3 are sdcMicro's counts of records violating "
                 "2- and 3-anonymity); sample_uniques = #{f_k = 1}; smallest_class = min f_k; "
                 "classes = the number of distinct key patterns (missing a value of its own). ") +
             sdc::kSideBySideDoc +
             " A partitioned run merges the records per key combination; without whole tables "
             "the ranks do it together, each key combination sent to the rank that owns it (by "
             "a hash of its values), which finds its class size; with record_level = true or "
             "numeric = quantile | equal_width it gathers every row on one process.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .compute = compute_k_anonymity,
      .mergeable =
          MergeableForm{.partial_state = k_anonymity_state, .finalize = finalize_k_anonymity},
      .collective =
          CollectiveForm{.applies = k_anonymity_collective_applies, .run = collective_k_anonymity},
      .statistics = {{"classes",
                      "number of distinct key patterns",
                      std::nullopt,
                      {kScenario},
                      OutputClass::kCount},
                     {"sample_uniques",
                      "records whose key values no other record shares (f_k = 1)",
                      Ideal::lower(),
                      {kScenario},
                      OutputClass::kCount},
                     {"smallest_class",
                      "the smallest class size: the data are k-anonymous for every k up to it",
                      Ideal::higher(),
                      {kScenario},
                      OutputClass::kCount},
                     {"records_below_k",
                      "records in classes smaller than k",
                      Ideal::lower(),
                      {kScenario},
                      OutputClass::kCount},
                     {"share_below_k",
                      "share of records in classes smaller than k",
                      Ideal::lower(),
                      {kScenario}}},
      .references = {cite(samarati_sweeney_1998(), "k-anonymity"),
                     cite(sweeney_2002(), "k-anonymity"),
                     cite(templ_kowarik_meindl_2015(),
                          "frequency counts with missing key values (freqCalc)"),
                     cite(sdcmicro_software(), "freqCalc's rule for missing key values")},
  };
}

}  // namespace synthaudit
