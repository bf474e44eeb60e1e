#pragma once
// Shared by the key-disclosure metrics (correct_attribution_probability, synthpop_disclosure,
// disclosure_protection, identity_matching): parameters that say how numeric keys and targets
// become levels, the matching rule (tolerances, missing values), and the coding of one disclosure
// scenario on (confidential, synthetic).
#include <string>
#include <vector>

#include "metrics/metric.hpp"
#include "stats/keys.hpp"

namespace synthaudit::keydisc {

// numeric (exact | quantile | equal_width | breaks), bins, breaks.
std::vector<ParamSpec> coding_params(const std::string& default_numeric = "exact",
                                     int default_bins = 5);
stats::CodingOptions coding_options(const Params& params);

// The matching rule of the key-disclosure family (the spec's `disclosure_matching:` block, each
// parameter overridable per metric under the same name): a numeric confidential value c and a
// synthetic value s match when |s − c| ≤ max(numeric_tolerance, relative_tolerance × |c|); a
// missing value matches a missing value only when missing_matches is true, and never a value.
struct MatchingRule {
  double numeric_tolerance = 0.0;
  double relative_tolerance = 0.0;
  bool missing_matches = false;
  // Whether numeric values match within a distance (else they are compared as coded levels).
  bool tolerant() const { return numeric_tolerance > 0 || relative_tolerance > 0; }
  double radius(double confidential) const;
  bool matches(double confidential, double synthetic) const;
};

// numeric_tolerance, relative_tolerance and missing_matches with the family's defaults.
std::vector<ParamSpec> matching_params();
MatchingRule matching_rule(const Params& params);

// The values of each key group in ascending order, missing (NaN) last: the windows a value matches
// under a MatchingRule are found by binary search (Elliot 2014's tolerance for numeric targets;
// coded levels are values with a zero tolerance).
struct SortedByKey {
  std::vector<std::uint32_t> start;  // group k is values[start[k] .. start[k+1])
  std::vector<double> values;
};
// Records i with use[i] set, grouped by ids[i] < groups.
SortedByKey sort_by_key(const std::vector<std::uint32_t>& ids, const std::vector<double>& values,
                        const std::vector<char>& use, std::uint32_t groups);
// Number of values of group k that match v under the rule, v taken as the confidential value:
// within [v − r, v + r] with r the rule's radius at v; a missing v counts the missing values when
// missing matches missing, and nothing otherwise.
double count_matching(const SortedByKey& s, std::uint32_t k, double v, const MatchingRule& rule);

struct ScenarioCodes {
  std::vector<std::string> key_names;
  std::vector<std::size_t> key_columns;
  std::vector<stats::CodedColumn> keys_coded;
  stats::GroupIds keys;  // ids[0] confidential, ids[1] synthetic
  std::vector<std::string> target_names;
  std::vector<std::size_t> target_columns;
};

// Resolves and codes the keys of `scenario` on `tables` (confidential first). Unknown key or
// target columns are an InputError with a did-you-mean hint; a target that is also a key too.
ScenarioCodes code_scenario(const std::vector<const Table*>& tables,
                            const DisclosureScenario& scenario,
                            const stats::CodingOptions& options);

// "keys=a,b;target=t" and "keys=a,b;targets=t,u".
std::string scope_of(const std::vector<std::string>& keys, const std::string& target);
std::string scope_of_targets(const std::vector<std::string>& keys,
                             const std::vector<std::string>& targets);

}  // namespace synthaudit::keydisc
