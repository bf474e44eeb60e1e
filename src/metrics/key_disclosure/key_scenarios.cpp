#include "metrics/key_disclosure/key_scenarios.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stats/column_lookup.hpp"

namespace synthaudit::keydisc {

std::vector<ParamSpec> coding_params(const std::string& default_numeric, int default_bins) {
  return {
      {.name = "numeric",
       .type = ParamType::kString,
       .default_value = default_numeric,
       .doc = "how numeric keys and targets become levels: exact (each distinct value, as "
              "synthpop), quantile (`bins` quantile bins of the confidential data), equal_width "
              "(`bins` equal-width bins over the confidential range, outer bins open, as "
              "SDMetrics), breaks (the `breaks` given)",
       .choices = {"exact", "quantile", "equal_width", "breaks"}},
      {.name = "bins",
       .type = ParamType::kInt,
       .default_value = std::int64_t{default_bins},
       .doc = "number of bins for numeric = quantile or equal_width",
       .min = 2,
       .max = 100000},
      {.name = "breaks",
       .type = ParamType::kStringList,
       .default_value = std::vector<std::string>{},
       .doc =
           "strictly increasing break points for numeric = breaks; bins (-inf,b1], (b1,b2], ..."},
  };
}

stats::CodingOptions coding_options(const Params& params) {
  stats::CodingOptions o;
  const auto& numeric = params.get_string("numeric");
  o.numeric = numeric == "quantile"      ? stats::NumericCoding::kQuantile
              : numeric == "equal_width" ? stats::NumericCoding::kEqualWidth
              : numeric == "breaks"      ? stats::NumericCoding::kBreaks
                                         : stats::NumericCoding::kExact;
  o.bins = static_cast<int>(params.get_int("bins"));
  o.breaks = stats::parse_breaks(params.get_string_list("breaks"), "parameter breaks");
  if (o.numeric == stats::NumericCoding::kBreaks && o.breaks.empty())
    throw InputError("parameter breaks: numeric = breaks needs at least one break point");
  return o;
}

double MatchingRule::radius(double confidential) const {
  return std::max(numeric_tolerance, relative_tolerance * std::abs(confidential));
}

bool MatchingRule::matches(double confidential, double synthetic) const {
  if (std::isnan(confidential) || std::isnan(synthetic))
    return missing_matches && std::isnan(confidential) && std::isnan(synthetic);
  return std::abs(synthetic - confidential) <= radius(confidential);
}

SortedByKey sort_by_key(const std::vector<std::uint32_t>& ids, const std::vector<double>& values,
                        const std::vector<char>& use, std::uint32_t groups) {
  SortedByKey s;
  s.start.assign(groups + 1, 0);
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (use[i]) ++s.start[ids[i] + 1];
  for (std::uint32_t k = 0; k < groups; ++k) s.start[k + 1] += s.start[k];
  s.values.resize(s.start[groups]);
  std::vector<std::uint32_t> fill(s.start.begin(), s.start.end() - 1);
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (use[i]) s.values[fill[ids[i]]++] = values[i];
  auto less = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
  for (std::uint32_t k = 0; k < groups; ++k)
    std::sort(s.values.begin() + s.start[k], s.values.begin() + s.start[k + 1], less);
  return s;
}

double count_matching(const SortedByKey& s, std::uint32_t k, double v, const MatchingRule& rule) {
  const auto first = s.values.begin() + s.start[k], last = s.values.begin() + s.start[k + 1];
  const auto nonmissing_end =
      std::partition_point(first, last, [](double x) { return !std::isnan(x); });
  if (std::isnan(v)) return rule.missing_matches ? static_cast<double>(last - nonmissing_end) : 0.0;
  const double radius = rule.radius(v);
  const auto lo = std::lower_bound(first, nonmissing_end, v - radius);
  const auto hi = std::upper_bound(first, nonmissing_end, v + radius);
  return static_cast<double>(hi - lo);
}

std::vector<ParamSpec> matching_params() {
  return {
      {.name = "numeric_tolerance",
       .type = ParamType::kDouble,
       .default_value = 0.0,
       .doc = "a numeric value matches the confidential value c when within ± max(this, "
              "relative_tolerance × |c|); both 0: numeric values are compared as coded by "
              "`numeric` (exact equality by default)",
       .min = 0.0},
      {.name = "relative_tolerance",
       .type = ParamType::kDouble,
       .default_value = 0.05,
       .doc = "the tolerance as a fraction of the confidential value (0.05: a guess within 5 % "
              "of a wage discloses it; exact equality would call a copy with values perturbed "
              "by 1 % safe)",
       .min = 0.0,
       .max = 1.0},
      {.name = "missing_matches",
       .type = ParamType::kBool,
       .default_value = false,
       .doc = "whether a missing value matches a missing value (true: missing is a value of its "
              "own, as synthpop and SDMetrics; false: a missing value matches nothing, since it "
              "discloses no value)"},
  };
}

MatchingRule matching_rule(const Params& params) {
  MatchingRule rule;
  rule.numeric_tolerance = params.get_double("numeric_tolerance");
  rule.relative_tolerance = params.get_double("relative_tolerance");
  rule.missing_matches = params.get_bool("missing_matches");
  return rule;
}

ScenarioCodes code_scenario(const std::vector<const Table*>& tables,
                            const DisclosureScenario& scenario,
                            const stats::CodingOptions& options) {
  ScenarioCodes s;
  if (scenario.keys.empty()) throw InputError("disclosure scenario has no key columns");
  s.key_names = scenario.keys;
  s.target_names = scenario.targets;
  const Table& conf = *tables.at(0);
  s.key_columns = stats::resolve_columns(conf, scenario.keys, "disclosure key");
  s.target_columns = stats::resolve_columns(conf, scenario.targets, "disclosure target");
  for (std::size_t i = 0; i < s.key_names.size(); ++i)
    for (std::size_t j = i + 1; j < s.key_names.size(); ++j)
      if (s.key_names[i] == s.key_names[j])
        throw InputError("disclosure key '" + s.key_names[i] + "' is given twice");
  for (const auto& t : s.target_names)
    if (std::find(s.key_names.begin(), s.key_names.end(), t) != s.key_names.end())
      throw InputError("disclosure target '" + t + "' is also a key");
  for (auto c : s.key_columns) s.keys_coded.push_back(stats::code_column(tables, c, options));
  std::vector<const stats::CodedColumn*> parts;
  for (const auto& k : s.keys_coded) parts.push_back(&k);
  s.keys = stats::combine(parts);
  return s;
}

std::string scope_of(const std::vector<std::string>& keys, const std::string& target) {
  return "keys=" + join(keys, ",") + ";target=" + target;
}

std::string scope_of_targets(const std::vector<std::string>& keys,
                             const std::vector<std::string>& targets) {
  return "keys=" + join(keys, ",") + ";targets=" + join(targets, ",");
}

}  // namespace synthaudit::keydisc
