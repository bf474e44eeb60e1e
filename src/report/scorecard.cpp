// Scorecard, ranking and the browser-sized copy of the results document.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "metrics/metric.hpp"
#include "report/report.hpp"
#include "result/headlines.hpp"
#include "result/json_fields.hpp"

namespace synthaudit {

namespace {

using json = nlohmann::json;

using json_fields::optional_json;
using json_fields::text_of;

// The baseline beside a headline. Its value is the same for every candidate; the noise of some
// (computed from the synthetic size) can differ, so the first candidate with one speaks for it.
json baseline_json(const HeadlineRow& row) {
  for (const auto& b : row.baselines)
    if (b && b->value)
      return {
          {"name", b->name}, {"value", *b->value}, {"sd", optional_json(b->sd)}, {"note", b->note}};
  for (const auto& b : row.baselines)
    if (b) return {{"name", b->name}, {"value", nullptr}, {"sd", nullptr}, {"note", b->note}};
  return nullptr;
}

// 0 recommended, 1 pass, 2 review, 3 fail, 4 no verdict.
int verdict_order(const json& document, const std::string& candidate) {
  if (!document.contains("verdict") || !document["verdict"].is_object()) return 4;
  const json& verdict = document["verdict"];
  if (verdict.value("recommended", json()) == candidate) return 0;
  for (const auto& c : verdict.value("candidates", json::array()))
    if (text_of(c, "name") == candidate) {
      const std::string status = text_of(c, "status");
      return status == "pass" ? 1 : status == "review" ? 2 : 3;
    }
  return 4;
}

}  // namespace

json scorecard(const json& document) {
  const HeadlineTable table = headline_table(document);
  json card = {
      {"candidates", table.candidates}, {"headlines", json::array()}, {"ranking", json::array()}};
  const std::size_t n = table.candidates.size();
  for (const auto& row : table.rows) {
    json out = {{"metric", row.metric},
                {"family", row.family},
                {"statistic", row.statistic},
                {"scope", row.scope},
                {"ideal", to_json(row.ideal)},
                {"ideal_text", describe_ideal(row.ideal)},
                {"reading", row.reading},
                {"axis", row.axis},
                {"unit", row.unit},
                {"source", json::array()},
                {"values", json::array()},
                {"replicates", json::array()},
                {"ranks", json::array()},
                {"baseline", baseline_json(row)}};
    // Where the verdict compares a candidate with a smaller holdout at the holdout's size, the
    // values it compared, so that no table sets the baseline beside numbers of another size.
    if (std::any_of(row.size_matched_values.begin(), row.size_matched_values.end(),
                    [](const auto& v) { return v.has_value(); })) {
      out["at_baseline_size"] = {{"values", json::array()}, {"rows", json::array()}};
      for (std::size_t c = 0; c < n; ++c) {
        out["at_baseline_size"]["values"].push_back(optional_json(row.size_matched_values[c]));
        out["at_baseline_size"]["rows"].push_back(optional_json(row.size_matched_rows[c]));
      }
    }
    for (std::size_t c = 0; c < n; ++c) {
      out["source"].push_back(row.sources[c].empty() ? json(nullptr) : json(row.sources[c]));
      out["values"].push_back(optional_json(row.values[c]));
      json reps = json::array();
      for (const auto& r : row.replicates[c]) reps.push_back(optional_json(r));
      out["replicates"].push_back(reps);
      out["ranks"].push_back(optional_json(row.ranks[c]));
    }
    card["headlines"].push_back(std::move(out));
  }
  // Utility and risk are ranked separately and never averaged into one number; the order is the
  // verdict's (recommended, pass, review, fail), then utility.
  std::vector<std::size_t> order(n);
  for (std::size_t c = 0; c < n; ++c) order[c] = c;
  std::vector<int> group(n);
  for (std::size_t c = 0; c < n; ++c) group[c] = verdict_order(document, table.candidates[c]);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (group[a] != group[b]) return group[a] < group[b];
    const auto& ua = table.utility_rank[a];
    const auto& ub = table.utility_rank[b];
    if (ua.has_value() != ub.has_value()) return ua.has_value();
    return ua && *ua < *ub;
  });
  for (std::size_t c : order)
    card["ranking"].push_back({{"candidate", table.candidates[c]},
                               {"utility_rank", optional_json(table.utility_rank[c])},
                               {"risk_rank", optional_json(table.risk_rank[c])},
                               {"ranked_utility", table.ranked_utility[c]},
                               {"ranked_risk", table.ranked_risk[c]}});
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
