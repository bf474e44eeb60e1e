#include "metrics/registry_json.hpp"

#include <algorithm>

#include "metrics/registry.hpp"

namespace synthaudit {

nlohmann::json ideal_to_json(const std::optional<Ideal>& ideal) {
  return ideal ? to_json(*ideal) : nlohmann::json(nullptr);
}

std::string describe_ideal(const std::optional<Ideal>& ideal) {
  return ideal ? describe_ideal(*ideal) : "descriptive: no better value";
}

const StatisticSpec* find_statistic(const MetricSpec& metric, const std::string& statistic_name) {
  for (const auto& statistic : metric.statistics) {
    const auto names = expand_statistic_name(statistic.name);
    if (std::find(names.begin(), names.end(), statistic_name) != names.end()) return &statistic;
  }
  return nullptr;
}

bool is_headline(const MetricSpec& metric, const StatisticSpec& statistic) {
  return std::any_of(metric.headlines.begin(), metric.headlines.end(), [&](const Headline& h) {
    return find_statistic(metric, h.statistic) == &statistic;
  });
}

nlohmann::json parameter_to_json(const ParamSpec& param) {
  nlohmann::json out = {{"name", param.name},
                        {"type", to_string(param.type)},
                        {"default", param_value_to_json(param.default_value)}};
  if (param.min || param.max)
    out["range"] = {param.min ? nlohmann::json(*param.min) : nlohmann::json(nullptr),
                    param.max ? nlohmann::json(*param.max) : nlohmann::json(nullptr)};
  if (!param.choices.empty()) out["choices"] = param.choices;
  out["description"] = param.doc;
  return out;
}

nlohmann::json statistic_to_json(const MetricSpec& metric, const StatisticSpec& statistic) {
  auto scopes = nlohmann::json::array();
  for (auto scope : statistic.scopes) scopes.push_back(to_string(scope));
  return {{"name", statistic.name},
          {"meaning", statistic.meaning},
          {"headline", is_headline(metric, statistic)},
          {"ideal", ideal_to_json(statistic.ideal)},
          {"ideal_text", describe_ideal(statistic.ideal)},
          {"scopes", scopes},
          {"output", to_string(statistic.output)}};
}

nlohmann::json reference_to_json(const Reference& reference) {
  nlohmann::json out = {
      {"authors", reference.authors},
      {"year", reference.year > 0 ? nlohmann::json(reference.year) : nlohmann::json(nullptr)},
      {"title", reference.title}};
  auto optional_field = [&](const char* key, const std::string& value) {
    if (!value.empty()) out[key] = value;
  };
  optional_field("venue", reference.venue);
  optional_field("doi", reference.doi);
  optional_field("url", reference.url);
  optional_field("software", reference.software);
  optional_field("version", reference.version);
  optional_field("used_for", reference.used_for);
  out["text"] = format_reference(reference);
  return out;
}

nlohmann::json headlines_to_json(const std::vector<Headline>& headlines) {
  auto out = nlohmann::json::array();
  for (const auto& h : headlines) {
    out.push_back({{"statistic", h.statistic},
                   {"scope", h.scope},
                   {"ideal", to_json(h.ideal)},
                   {"ideal_text", describe_ideal(h.ideal)},
                   {"reading", h.reading},
                   {"axis", h.axis},
                   {"unit", to_string(h.unit)},
                   {"baseline", to_json(h.baseline)}});
    if (!h.gate_names.empty()) out.back()["gate"] = {{"names", h.gate_names}};
  }
  return out;
}

nlohmann::json statistics_to_json(const MetricSpec& metric) {
  auto out = nlohmann::json::array();
  for (const auto& statistic : metric.statistics)
    out.push_back(statistic_to_json(metric, statistic));
  return out;
}

nlohmann::json references_to_json(const MetricSpec& metric) {
  auto out = nlohmann::json::array();
  for (const auto& reference : metric.references) out.push_back(reference_to_json(reference));
  return out;
}

nlohmann::json metric_to_json(const MetricSpec& metric) {
  auto parameters = nlohmann::json::array();
  for (const auto& param : metric.params) parameters.push_back(parameter_to_json(param));
  return {
      {"name", metric.name},
      {"family", to_string(metric.family)},
      {"summary", metric.summary},
      {"doc", metric.doc},
      {"granularity",
       metric.granularity == MetricGranularity::kPerReplicate ? "per-replicate" : "per-candidate"},
      // Over MPI ranks (docs/mpi.md): merged from per-rank partial states, or computed over rows
      // gathered on rank 0.
      {"partitioned", metric.mergeable ? "merged" : "gathered"},
      {"requirements",
       {{"holdout", metric.needs_holdout},
        {"scenarios", metric.needs_scenarios},
        {"analyses", metric.needs_analyses},
        {"row_correspondence", metric.needs_row_correspondence}}},
      {"parameters", parameters},
      {"statistics", statistics_to_json(metric)},
      {"headlines", headlines_to_json(metric.headlines)},
      {"references", references_to_json(metric)},
  };
}

nlohmann::json registry_to_json() {
  auto metrics = nlohmann::json::array();
  for (const auto& metric : all_metrics()) metrics.push_back(metric_to_json(metric));
  return {{"schema", kRegistrySchema}, {"version", SYNTHAUDIT_VERSION}, {"metrics", metrics}};
}

}  // namespace synthaudit
