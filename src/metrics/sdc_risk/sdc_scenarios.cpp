#include "metrics/sdc_risk/sdc_scenarios.hpp"

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit::sdc {

std::vector<ParamSpec> key_params(bool with_missing_keys) {
  auto params = keydisc::coding_params("exact", 5);
  if (with_missing_keys)
    params.push_back({.name = "missing_keys",
                      .type = ParamType::kString,
                      .default_value = std::string("wildcard"),
                      .doc = "wildcard: a missing key value matches any value when counting "
                             "class frequencies (sdcMicro's freqCalc); value: missing is a key "
                             "value of its own",
                      .choices = {"wildcard", "value"}});
  return params;
}

ParamSpec record_level_param(const std::string& values) {
  return {.name = "record_level",
          .type = ParamType::kBool,
          .default_value = false,
          .doc = "write each record's " + values +
                 " to records.tsv beside results.tsv (confidential and synthetic records)"};
}

void add_record_values(MetricResult& result, const Params& params, const std::string& scope,
                       std::size_t data,
                       std::vector<std::pair<std::string, std::vector<double>>> fields) {
  if (!params.get_bool("record_level")) return;
  RecordValues records;
  records.scope = scope;
  records.data = kDataNames[data];
  records.confidential_only = data == 0;
  for (auto& [name, values] : fields) records.add_field(std::move(name), std::move(values));
  result.records.push_back(std::move(records));
}

stats::MissingKeys missing_keys(const Params& params) {
  return params.get_string("missing_keys") == "value" ? stats::MissingKeys::kValue
                                                      : stats::MissingKeys::kWildcard;
}

ScenarioClasses scenario_classes(const Table& confidential, const Table& synthetic,
                                 const DisclosureScenario& scenario, const Params& params) {
  ScenarioClasses s;
  s.codes = keydisc::code_scenario({&confidential, &synthetic}, scenario,
                                   keydisc::coding_options(params));
  for (const auto& key : s.codes.keys_coded) s.missing_levels.push_back(key.missing_level);
  for (std::size_t data = 0; data < 2; ++data) {
    std::vector<const std::vector<std::uint32_t>*> codes;
    for (const auto& key : s.codes.keys_coded) codes.push_back(&key.codes[data]);
    s.patterns[data] = stats::key_patterns(codes);
  }
  return s;
}

std::string keys_scope(const std::vector<std::string>& keys) { return "keys=" + join(keys, ","); }

std::string scope(const std::vector<std::string>& keys, const std::string& qualifier,
                  std::size_t data) {
  return "keys=" + join(keys, ",") + (qualifier.empty() ? "" : ";" + qualifier) +
         ";data=" + kDataNames[data];
}

const std::vector<DisclosureScenario>& scenarios(const MetricInput& input) {
  if (input.context.scenarios.empty())
    throw MetricNotApplicable("no disclosure keys given (--keys or the spec's disclosure:)");
  return input.context.scenarios;
}

const char* const kSideBySideDoc =
    "Computed on the confidential data and on each synthetic replicate alike, on the keys "
    "(quasi-identifiers) of each disclosure scenario; every value's scope ends in "
    "`data=confidential` or `data=synthetic`, and the report shows the two side by side on the "
    "same scale. The confidential value is what releasing the real records would give; a "
    "synthetic value near it means the synthetic file shows the same structure of rare key "
    "combinations (which, for synthetic records, is not by itself a disclosure: see "
    "replicated_uniques). Numeric keys are coded as `numeric` says (each distinct value by "
    "default). Missing key values (`missing_keys`): `wildcard` counts frequencies as sdcMicro's "
    "freqCalc does (Templ, Kowarik & Meindl 2015): record j counts for record i when, on every "
    "key, either value is missing or both are equal; with two or more keys a record whose keys "
    "are all missing is not counted for records with no missing key, and its own frequency is "
    "the number of records; `value`: missing is a value of its own.";

}  // namespace synthaudit::sdc
