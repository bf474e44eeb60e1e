#pragma once
// The machine-readable registry: one serialisation of the metric declarations, shared by
// `list-metrics --json`, `describe --json`, the metric entries of results.json and the bindings.
#include <nlohmann/json.hpp>
#include <optional>

#include "metrics/metric.hpp"

namespace synthaudit {

inline constexpr const char* kRegistrySchema = "synthaudit-registry/1";

// {"kind": ...} as to_json(Ideal), or null for a descriptive statistic.
nlohmann::json ideal_to_json(const std::optional<Ideal>& ideal);
// "lower is better", ..., or "descriptive: no better value".
std::string describe_ideal(const std::optional<Ideal>& ideal);

// True when one of the metric's headlines names a statistic this declaration stands for.
bool is_headline(const MetricSpec& metric, const StatisticSpec& statistic);
// The declaration that `statistic_name` falls under, or nullptr.
const StatisticSpec* find_statistic(const MetricSpec& metric, const std::string& statistic_name);

// {"name", "type", "default", "range": [min|null, max|null], "choices", "description"}.
nlohmann::json parameter_to_json(const ParamSpec& param);
// {"name", "meaning", "headline", "ideal", "ideal_text", "scopes"}.
nlohmann::json statistic_to_json(const MetricSpec& metric, const StatisticSpec& statistic);
// {"authors", "year", "title", "venue", "doi", "url", "software", "version", "used_for", "text"},
// empty fields left out, year null when undated.
nlohmann::json reference_to_json(const Reference& reference);
// [{"statistic", "scope", "ideal", "ideal_text", "reading", "axis"}] as results.json has them.
nlohmann::json headlines_to_json(const std::vector<Headline>& headlines);
nlohmann::json statistics_to_json(const MetricSpec& metric);
nlohmann::json references_to_json(const MetricSpec& metric);

// Everything declared about one metric: name, family, summary, doc, granularity, requirements,
// parameters, statistics, headlines, references.
nlohmann::json metric_to_json(const MetricSpec& metric);
// {"schema": kRegistrySchema, "version", "metrics": [every registered metric]}.
nlohmann::json registry_to_json();

}  // namespace synthaudit
