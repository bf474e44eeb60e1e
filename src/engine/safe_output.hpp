#pragma once
// Output checking for secure environments (`evaluate --safe-output`): the results document is
// reduced to what a trusted research environment's output checkers release, following the
// rules-of-thumb of Griffiths et al. (2019), Handbook on Statistical Disclosure Control for
// Outputs, and Ritchie's principles-based output SDC. It reads the metric declarations
// (StatisticSpec::output, MetricSpec::aggregate_details, the plot convention of metric.hpp) and
// the confidential data, never a metric's name:
//   - a number whose scope names a category with fewer than `threshold` records is withheld;
//   - a count (OutputClass::kCount) between 0 and the threshold is withheld;
//   - an extreme (minimum or maximum, OutputClass::kExtreme) is withheld; the metric's
//     percentiles stand in for it;
//   - a quantile (one record's value inside the data) is rounded to two significant digits;
//   - plots of individual values (scatter without counts, qq, ecdf) lose their points; plot
//     records with a "count" below the threshold, naming a rare category, or lying outside the
//     confidential data's safe range (between the threshold-th smallest and largest values) are
//     dropped, and the remaining axis positions rounded to two significant digits;
//   - details members a metric does not declare aggregate are withheld;
//   - any other text that names a rare category (warnings, level lists, checks, the verdict's
//     reasons, the spec) is withheld.
// Per-record outputs (records.tsv) are not written at all (the caller's part).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "table/table.hpp"

namespace synthaudit {

inline constexpr std::size_t kDefaultSafeOutputThreshold = 10;

// Applies the rules above to `document` in place and records what was withheld in
// document["output_check"] ({threshold, rules, withheld: [{what, reason, times}]}).
// `holdout` (may be null) is confidential too: a category rare in it counts as rare.
void apply_output_checking(nlohmann::json& document, const Table& confidential,
                           const Table* holdout, std::size_t threshold);

// The plain-text output-checking log (DIR/output_check.txt) of a checked document: the rules,
// then each withheld item with its reason; empty when the document was not checked.
std::string output_check_log(const nlohmann::json& document);

}  // namespace synthaudit
