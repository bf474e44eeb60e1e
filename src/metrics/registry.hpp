#pragma once
#include <string_view>
#include <vector>

#include "metrics/metric.hpp"

namespace synthaudit {

// Every metric synthaudit offers, in a stable order (one explicit table in registry.cpp).
const std::vector<MetricSpec>& all_metrics();

// nullptr when no metric has that name.
const MetricSpec* find_metric(std::string_view name);

// Resolves a --metrics selection: metric names and family names (general, propensity, specific,
// key-disclosure, distance-disclosure, attack-disclosure, sdc-risk) and "all". Throws InputError
// naming `where` for an unknown name, with a did-you-mean hint.
std::vector<const MetricSpec*> select_metrics(const std::vector<std::string>& selection,
                                              const std::string& where);

// The families whose metrics also run within each subgroup of `by:` (general, specific and
// key-disclosure; engine/subgroups.hpp says why the others do not), and whether `family` is one.
const std::vector<MetricFamily>& subgroup_families();
bool runs_in_subgroups(MetricFamily family);

}  // namespace synthaudit
