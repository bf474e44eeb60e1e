#include "result/headlines.hpp"

#include <algorithm>

#include "result/json_fields.hpp"
#include "spec/spec.hpp"

namespace synthaudit {

namespace {

using json = nlohmann::json;

using json_fields::text_of;

const json* find_entry(const json& metric, const std::string& name, bool baseline) {
  if (!metric.contains("candidates")) return nullptr;
  for (const auto& e : metric["candidates"])
    if (text_of(e, "name") == name && e.value("baseline", false) == baseline) return &e;
  return nullptr;
}

}  // namespace

std::optional<double> find_value(const json& values, const std::string& statistic,
                                 const std::string& scope) {
  if (!values.is_array()) return std::nullopt;
  for (const auto& v : values)
    if (text_of(v, "statistic") == statistic && text_of(v, "scope") == scope) {
      const auto it = v.find("value");
      if (it != v.end() && it->is_number()) return it->get<double>();
      return std::nullopt;
    }
  return std::nullopt;
}

std::optional<double> entry_value(const json& entry, const std::string& statistic,
                                  const std::string& scope, std::string* source) {
  auto set_source = [&](const char* s) {
    if (source != nullptr) *source = s;
  };
  set_source("");
  if (entry.contains("combined")) {
    set_source("combined");
    return find_value(entry["combined"].value("values", json()), statistic, scope);
  }
  if (entry.contains("mean")) {
    set_source("mean");
    return find_value(entry["mean"].value("values", json()), statistic, scope);
  }
  if (entry.contains("replicates") && entry["replicates"].size() == 1) {
    set_source("replicate");
    return find_value(entry["replicates"][0].value("values", json()), statistic, scope);
  }
  return std::nullopt;
}

std::optional<BaselineValue> baseline_value(const json& metric, const json& declaration,
                                            const std::string& name, const std::string& statistic,
                                            const std::string& scope,
                                            const std::string& candidate) {
  const std::string kind = declaration.is_object() ? text_of(declaration, "kind") : name;
  if (kind.empty() || kind == "none") return std::nullopt;
  BaselineValue out;
  out.kind = kind;
  out.note = text_of(declaration, "note");
  const json* own = find_entry(metric, candidate, false);
  const std::string noise_statistic = text_of(declaration, "noise_statistic");
  if (own != nullptr && !noise_statistic.empty())
    out.sd = entry_value(*own, noise_statistic, scope);
  if (kind == "holdout" || kind == "resample") {
    out.name = kind;
    const json* entry = find_entry(metric, kind, true);
    if (entry == nullptr) return declaration.is_object() ? std::optional(out) : std::nullopt;
    out.value = entry_value(*entry, statistic, scope);
    if (entry->contains("noise"))
      out.sd = find_value((*entry)["noise"].value("values", json()), statistic, scope);
    return out;
  }
  if (kind == "statistic") {
    out.name = "holdout";
    if (own != nullptr) out.value = entry_value(*own, text_of(declaration, "statistic"), scope);
    return out;
  }
  if (kind == "analytic") {
    out.name = "analytic";
    if (declaration.contains("value") && declaration["value"].is_number())
      out.value = declaration["value"].get<double>();
    return out;
  }
  return std::nullopt;
}

std::vector<std::optional<double>> rank_by_ideal(const std::vector<std::optional<double>>& values,
                                                 const Ideal& ideal) {
  std::vector<std::size_t> order;
  std::vector<double> badness(values.size(), 0.0);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i]) {
      order.push_back(i);
      badness[i] = ideal.badness(*values[i]);
    }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return badness[a] < badness[b]; });
  std::vector<std::optional<double>> ranks(values.size());
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start + 1;
    while (end < order.size() && badness[order[end]] == badness[order[start]]) ++end;
    const double shared = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    for (std::size_t k = start; k < end; ++k) ranks[order[k]] = shared;
    start = end;
  }
  return ranks;
}

namespace {

// The metric entry as seen from one subgroup: its name, family and headlines with the subgroup's
// candidates and baselines in place of the whole data's; null when the metric has no such
// subgroup or the subgroup was suppressed.
json subgroup_view(const json& metric, const std::string& label) {
  const json& groups = json_fields::member(metric, "subgroups");
  if (!groups.is_array()) return nullptr;
  for (const auto& group : groups)
    if (text_of(group, "label") == label) {
      if (group.contains("suppressed") || !group.contains("candidates")) return nullptr;
      return {{"name", metric.value("name", json())},
              {"family", metric.value("family", json())},
              {"headlines", metric.value("headlines", json())},
              {"candidates", group["candidates"]}};
    }
  return nullptr;
}

}  // namespace

HeadlineTable headline_table(const json& document, const std::string& subgroup) {
  HeadlineTable table;
  if (document.contains("candidates"))
    for (const auto& c : document["candidates"]) table.candidates.push_back(text_of(c, "name"));
  const std::size_t n = table.candidates.size();
  std::vector<double> utility_sum(n, 0.0), risk_sum(n, 0.0);
  table.ranked_utility.assign(n, 0);
  table.ranked_risk.assign(n, 0);

  if (document.contains("metrics"))
    for (const auto& whole : document["metrics"]) {
      if (whole.contains("skipped") || !whole.contains("headlines")) continue;
      const json view = subgroup.empty() ? json() : subgroup_view(whole, subgroup);
      if (!subgroup.empty() && view.is_null()) continue;
      const json& metric = subgroup.empty() ? whole : view;
      for (const auto& h : metric["headlines"]) {
        HeadlineRow row;
        row.metric = text_of(metric, "name");
        row.family = text_of(metric, "family");
        row.statistic = text_of(h, "statistic");
        row.scope = text_of(h, "scope", "all");
        row.reading = text_of(h, "reading");
        row.axis = text_of(h, "axis", "utility");
        row.unit = text_of(h, "unit", "number");
        row.ideal = ideal_from_json(h.value("ideal", json()), text_of(h, "better", "lower"));
        row.baseline_declaration = h.value("baseline", json());
        row.gate_names = text_of(h.value("gate", json()), "names");
        if (const json* floor = find_entry(metric, kIndependentMarginalsBaseline, true)) {
          row.floor_value = entry_value(*floor, row.statistic, row.scope);
          if (floor->contains("noise"))
            row.floor_sd =
                find_value((*floor)["noise"].value("values", json()), row.statistic, row.scope);
        }
        for (std::size_t c = 0; c < n; ++c) {
          const json* entry = find_entry(metric, table.candidates[c], false);
          std::vector<std::optional<double>> reps;
          std::vector<std::optional<NullResult>> nulls;
          std::string source;
          std::optional<double> value;
          if (entry != nullptr) {
            if (entry->contains("replicates"))
              for (const auto& r : (*entry)["replicates"]) {
                reps.push_back(find_value(r.value("values", json()), row.statistic, row.scope));
                std::optional<NullResult> null;
                for (const auto& test : r.value("nulls", json::array()))
                  if (text_of(test, "statistic") == row.statistic &&
                      text_of(test, "scope", "all") == row.scope && test.contains("p_value") &&
                      test["p_value"].is_number())
                    null = NullResult{
                        test["p_value"].get<double>(), test.value("monte_carlo_error", 0.0),
                        test.value("resplits", 0.0),
                        test["observed_excess"].is_number() ? test["observed_excess"].get<double>()
                                                            : 0.0,
                        test.value("as_extreme", 0.0)};
                nulls.push_back(null);
              }
            value = entry_value(*entry, row.statistic, row.scope, &source);
          }
          std::optional<double> matched, matched_sd, matched_rows;
          if (entry != nullptr && entry->contains("at_baseline_size")) {
            const json& at = (*entry)["at_baseline_size"];
            matched = find_value(at.value("values", json()), row.statistic, row.scope);
            matched_sd = find_value(at.value("sd", json()), row.statistic, row.scope);
            if (at.contains("rows") && at["rows"].is_number())
              matched_rows = at["rows"].get<double>();
          }
          row.size_matched_values.push_back(matched);
          row.size_matched_sd.push_back(matched_sd);
          row.size_matched_rows.push_back(matched_rows);
          row.values.push_back(value);
          row.sources.push_back(source);
          row.replicates.push_back(std::move(reps));
          row.nulls.push_back(std::move(nulls));
          row.baselines.push_back(baseline_value(metric, row.baseline_declaration, "",
                                                 row.statistic, row.scope, table.candidates[c]));
        }
        row.ranks = rank_by_ideal(row.values, row.ideal);
        const bool risk = row.axis == "risk";
        for (std::size_t c = 0; c < n; ++c) {
          if (!row.ranks[c]) continue;
          (risk ? risk_sum : utility_sum)[c] += *row.ranks[c];
          ++(risk ? table.ranked_risk : table.ranked_utility)[c];
        }
        table.rows.push_back(std::move(row));
      }
    }
  for (std::size_t c = 0; c < n; ++c) {
    table.utility_rank.push_back(
        table.ranked_utility[c] == 0
            ? std::nullopt
            : std::optional(utility_sum[c] / static_cast<double>(table.ranked_utility[c])));
    table.risk_rank.push_back(
        table.ranked_risk[c] == 0
            ? std::nullopt
            : std::optional(risk_sum[c] / static_cast<double>(table.ranked_risk[c])));
  }
  return table;
}

}  // namespace synthaudit
