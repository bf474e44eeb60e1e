// Scorecard, ranking and the browser-sized copy of the results document.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "metrics/metric.hpp"
#include "report/report.hpp"

namespace synthaudit {

namespace {

using json = nlohmann::json;

std::string text_of(const json& object, const char* key, const std::string& fallback = "") {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// The value of (statistic, scope) in a values list; nullopt when absent or NA.
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

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Ranks by distance to the ideal, ties sharing their mean rank; nullopt values get no rank.
std::vector<std::optional<double>> rank(const std::vector<std::optional<double>>& values,
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

}  // namespace

json scorecard(const json& document) {
  json card = {
      {"candidates", json::array()}, {"headlines", json::array()}, {"ranking", json::array()}};
  std::vector<std::string> names;
  if (document.contains("candidates"))
    for (const auto& c : document["candidates"]) names.push_back(text_of(c, "name"));
  card["candidates"] = names;
  const std::size_t n = names.size();
  std::vector<double> rank_sum(n, 0.0), utility_sum(n, 0.0), risk_sum(n, 0.0);
  std::vector<std::size_t> rank_count(n, 0), utility_count(n, 0), risk_count(n, 0);

  if (!document.contains("metrics")) return card;
  for (const auto& metric : document["metrics"]) {
    if (metric.contains("skipped") || !metric.contains("headlines")) continue;
    for (const auto& h : metric["headlines"]) {
      const std::string statistic = text_of(h, "statistic");
      const std::string scope = text_of(h, "scope", "all");
      const Ideal ideal = ideal_from_json(h.value("ideal", json()), text_of(h, "better", "lower"));
      json row = {{"metric", text_of(metric, "name")},
                  {"family", text_of(metric, "family")},
                  {"statistic", statistic},
                  {"scope", scope},
                  {"ideal", to_json(ideal)},
                  {"ideal_text", describe_ideal(ideal)},
                  {"reading", text_of(h, "reading")},
                  {"axis", text_of(h, "axis", "utility")},
                  {"source", json::array()},
                  {"values", json::array()},
                  {"replicates", json::array()}};
      std::vector<std::optional<double>> values(n);
      for (std::size_t c = 0; c < n; ++c) {
        const json* entry = nullptr;
        for (const auto& e : metric["candidates"])
          if (text_of(e, "name") == names[c]) entry = &e;
        json source = nullptr;
        json reps = json::array();
        if (entry != nullptr) {
          if (entry->contains("replicates"))
            for (const auto& r : (*entry)["replicates"])
              reps.push_back(
                  optional_json(find_value(r.value("values", json()), statistic, scope)));
          if (entry->contains("combined")) {
            values[c] = find_value((*entry)["combined"].value("values", json()), statistic, scope);
            source = "combined";
          } else if (entry->contains("mean")) {
            values[c] = find_value((*entry)["mean"].value("values", json()), statistic, scope);
            source = "mean";
          } else if (reps.size() == 1) {
            values[c] =
                reps[0].is_number() ? std::optional<double>(reps[0].get<double>()) : std::nullopt;
            source = "replicate";
          }
        }
        row["source"].push_back(source);
        row["values"].push_back(optional_json(values[c]));
        row["replicates"].push_back(reps);
      }
      const auto ranks = rank(values, ideal);
      row["ranks"] = json::array();
      const bool risk = row["axis"] == "risk";
      for (std::size_t c = 0; c < n; ++c) {
        row["ranks"].push_back(optional_json(ranks[c]));
        if (!ranks[c]) continue;
        rank_sum[c] += *ranks[c];
        ++rank_count[c];
        (risk ? risk_sum : utility_sum)[c] += *ranks[c];
        ++(risk ? risk_count : utility_count)[c];
      }
      card["headlines"].push_back(std::move(row));
    }
  }
  auto mean = [](double sum, std::size_t count) {
    return count == 0 ? json(nullptr) : json(sum / static_cast<double>(count));
  };
  std::vector<std::size_t> order(n);
  for (std::size_t c = 0; c < n; ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if ((rank_count[a] == 0) != (rank_count[b] == 0)) return rank_count[b] == 0;
    if (rank_count[a] == 0) return false;
    return rank_sum[a] / static_cast<double>(rank_count[a]) <
           rank_sum[b] / static_cast<double>(rank_count[b]);
  });
  for (std::size_t c : order)
    card["ranking"].push_back({{"candidate", names[c]},
                               {"mean_rank", mean(rank_sum[c], rank_count[c])},
                               {"utility_rank", mean(utility_sum[c], utility_count[c])},
                               {"risk_rank", mean(risk_sum[c], risk_count[c])},
                               {"ranked", rank_count[c]}});
  return card;
}

namespace {

// Keeps every k-th record so that at most `limit` remain (first and last always kept).
json thin(const json& records, std::size_t limit) {
  if (!records.is_array() || records.size() <= limit || limit < 2) return records;
  json out = json::array();
  const double step = static_cast<double>(records.size() - 1) / static_cast<double>(limit - 1);
  for (std::size_t i = 0; i < limit; ++i)
    out.push_back(records[static_cast<std::size_t>(std::llround(step * static_cast<double>(i)))]);
  return out;
}

void add_note(json& holder, const std::string& note) {
  if (!holder.contains("report_notes")) holder["report_notes"] = json::array();
  holder["report_notes"].push_back(note);
}

// Cuts one result (a replicate or a combined entry) down to the limits.
void summarise_result(json& result, std::size_t max_plot_records, std::size_t max_rows) {
  if (result.contains("values") && result["values"].is_array() &&
      result["values"].size() > max_rows) {
    const std::size_t total = result["values"].size();
    result["values"].erase(result["values"].begin() + static_cast<std::ptrdiff_t>(max_rows),
                           result["values"].end());
    add_note(result, "values: the report shows " + std::to_string(max_rows) + " of " +
                         std::to_string(total) + " rows; all are in results.json and results.tsv");
  }
  if (!result.contains("details") || !result["details"].is_object()) return;
  for (auto& [key, value] : result["details"].items()) {
    if (key == "plots" && value.is_array()) {
      for (auto& plot : value) {
        if (!plot.is_object() || !plot.contains("data") || !plot["data"].is_array()) continue;
        const std::size_t total = plot["data"].size();
        if (total <= max_plot_records) continue;
        plot["data"] = thin(plot["data"], max_plot_records);
        plot["thinned_from"] = total;
        add_note(result, "plot '" + text_of(plot, "title") +
                             "': " + std::to_string(max_plot_records) + " of " +
                             std::to_string(total) + " records shown (evenly thinned)");
      }
    } else if (value.is_array() && value.size() > max_rows) {
      const std::size_t total = value.size();
      value.erase(value.begin() + static_cast<std::ptrdiff_t>(max_rows), value.end());
      add_note(result, "details." + key + ": the report shows " + std::to_string(max_rows) +
                           " of " + std::to_string(total) + " rows; all are in results.json");
    }
  }
}

template <typename Fn>
void for_each_result(json& document, Fn&& fn) {
  if (!document.contains("metrics")) return;
  for (auto& metric : document["metrics"]) {
    if (!metric.contains("candidates")) continue;
    for (auto& cand : metric["candidates"]) {
      if (cand.contains("replicates"))
        for (std::size_t r = 0; r < cand["replicates"].size(); ++r) fn(cand["replicates"][r], r);
      if (cand.contains("combined")) fn(cand["combined"], std::size_t{0});
    }
  }
}

}  // namespace

json summarise_for_report(const json& document, const ReportLimits& limits) {
  json out = document;
  // The report shows each candidate's mean (or combined) values, and the plots and detail
  // tables of its first replicate; the scorecard, computed from the full document, carries the
  // per-replicate values of the headlines. Everything else stays in results.json / results.tsv.
  if (out.contains("metrics"))
    for (auto& metric : out["metrics"]) {
      if (!metric.contains("candidates")) continue;
      for (auto& cand : metric["candidates"]) {
        if (!cand.contains("replicates")) continue;
        auto& reps = cand["replicates"];
        for (std::size_t r = 0; r < reps.size(); ++r) {
          if (cand.contains("mean") && reps[r].contains("values")) reps[r].erase("values");
          if (r > 0 && reps[r].contains("details") && !reps[r]["details"].empty()) {
            reps[r]["details"] = json::object();
            add_note(reps[r],
                     "detail tables of replicates after the first are in results.json (their plot "
                     "data too when evaluated with plots: all)");
          }
        }
      }
    }
  for_each_result(out, [&](json& result, std::size_t) {
    summarise_result(result, limits.max_plot_records, limits.max_table_rows);
  });
  if (out.dump(-1, ' ', false, json::error_handler_t::replace).size() <= limits.max_embedded_bytes)
    return out;
  // Over budget: keep the details (tables, plots) of the first replicate only.
  for_each_result(out, [&](json& result, std::size_t replicate) {
    if (replicate == 0 || !result.contains("details")) return;
    result["details"] = json::object();
    add_note(result,
             "details of this replicate left out of the report to keep it small; see results.json");
  });
  if (out.dump(-1, ' ', false, json::error_handler_t::replace).size() <= limits.max_embedded_bytes)
    return out;
  // Still over: thin harder everywhere.
  for_each_result(out, [&](json& result, std::size_t) {
    summarise_result(result, std::max<std::size_t>(limits.max_plot_records / 10, 2),
                     std::max<std::size_t>(limits.max_table_rows / 10, 1));
  });
  return out;
}

}  // namespace synthaudit
