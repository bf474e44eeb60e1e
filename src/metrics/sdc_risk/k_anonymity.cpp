// k-anonymity on the disclosure keys: class sizes of the confidential and the synthetic data,
// and the records in classes smaller than k.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "metrics/gathered_state.hpp"
#include "metrics/key_disclosure/key_combinations.hpp"
#include "metrics/references.hpp"
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
             " A partitioned run merges the records per key combination; with record_level = "
             "true or numeric = quantile | equal_width it gathers every row on one process.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .compute = compute_k_anonymity,
      .mergeable =
          MergeableForm{.partial_state = k_anonymity_state, .finalize = finalize_k_anonymity},
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
