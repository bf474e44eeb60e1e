#pragma once
// The verdict: each candidate's status (pass, review, fail) under a release policy, with reasons
// a disclosure committee can read, and the recommended candidate. Computed from the results
// document alone, after every metric has run; the policy is data (spec/spec.hpp), so nothing
// here names a metric. docs/config.md (policy) and docs/metrics.md (baselines) describe the rule.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spec/spec.hpp"
#include "stats/multiple_testing.hpp"

namespace synthaudit {

// The "verdict" object of the results document (docs/cli.md), or null when the policy has no
// criteria of its own and no record-level risk could be compared with a baseline (then there is
// nothing to judge, and a warning says why). Throws InputError naming the policy key when a
// criterion names a statistic or scope the metric does not report, or a baseline it lacks;
// `where` (the spec or policy file) starts those messages.
nlohmann::json decide_verdict(const nlohmann::json& document, const ReleasePolicy& policy,
                              const std::string& where = "policy");

// Each subgroup's headlines against the subgroup's own baselines (engine/subgroups.hpp), as
// standardised differences (how many standard deviations of the difference the candidate is worse
// than the baseline): per candidate, the comparisons made, how many lie beyond the policy's
// review_sd and fail_sd margins, and the worst subgroup with its reason. Null when the document
// has no subgroups. Descriptive, not a test (a fresh real sample lies beyond 4 somewhere in most
// runs: the rule text gives the measurement); only a policy criterion naming a subgroup
// (PolicyCriterion::subgroup) lets a subgroup change the verdict.
nlohmann::json judge_subgroups(const nlohmann::json& document, const ReleasePolicy& policy);

// Sets document["verdict"] (and adds a warning when it is null) and, when the document has
// subgroups, document["subgroups"]["judged"].
void add_verdict(nlohmann::json& document, const ReleasePolicy& policy,
                 const std::string& where = "policy");

// True when a verdict exists and no candidate passes: `evaluate` then exits with code 3.
bool no_candidate_passes(const nlohmann::json& document);

// The multiplicity corrections (stats/multiple_testing.hpp), under the verdict's name too.
using stats::corrected_p_values;

// A number as people read it: at most four significant digits, never an exponent; shares
// (unit "share") as percentages, percents with a "%" sign.
std::string plain_number(double value, const std::string& unit = "number");

}  // namespace synthaudit
