// The Markdown report (`--format md`) for terminals, CI logs and committee papers: the executive
// summary first (verdict, reasons, headlines with ideal and baseline), then the details.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/text.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "result/json_fields.hpp"

namespace synthaudit {

namespace {

using json = nlohmann::json;

std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string number(const json& v) {
  return v.is_number() ? plain_number(v.get<double>()) : std::string("NA");
}

using json_fields::member;
using json_fields::text_of;

std::string status_word(const std::string& status) {
  if (status == "pass") return "**pass**";
  if (status == "review") return "**review**";
  if (status == "fail") return "**fail**";
  return status.empty() ? "—" : status;
}

void executive_summary(std::ostringstream& out, const ExecutiveView& view) {
  out << "## Verdict\n\n";
  if (!view.has_verdict) {
    out << "These results carry no verdict (they were written before verdicts existed).\n\n";
  } else {
    out << (view.recommended.empty() ? "**No candidate is recommended.**"
                                     : "**Recommended: " + view.recommended + "**");
    if (!view.policy_source.empty()) out << " (policy: " << view.policy_source << ")";
    out << "\n\n";
    for (const auto& c : view.candidates) {
      out << "- **" << c.name << "**: " << status_word(c.status) << "\n";
      for (const auto& r : c.reasons) out << "  - " << r << "\n";
    }
    out << "\n";
  }
  if (std::any_of(view.candidates.begin(), view.candidates.end(),
                  [](const auto& c) { return !c.worst_subgroup.empty(); })) {
    out << "Subgroups:\n\n";
    for (const auto& c : view.candidates)
      if (!c.worst_subgroup.empty()) out << "- " << c.name << ": " << c.worst_subgroup << "\n";
    out << "\n";
  }
  const bool candidate_findings =
      std::any_of(view.candidates.begin(), view.candidates.end(),
                  [](const auto& c) { return !c.data_findings.empty(); });
  if (candidate_findings || !view.data_findings.empty()) {
    out << "Checks before the metrics:\n\n";
    for (const auto& c : view.candidates)
      for (const auto& f : c.data_findings) out << "- " << c.name << ": " << f << "\n";
    for (const auto& f : view.data_findings) out << "- WARNING: " << f << "\n";
    out << "\n";
  }
  if (!view.missing_lines.empty()) {
    out << "Read as missing (declared codes; missing values the file declares):\n\n";
    for (const auto& line : view.missing_lines) out << "- " << line << "\n";
    out << "\n";
  }
  if (std::any_of(view.candidates.begin(), view.candidates.end(),
                  [](const auto& c) { return !c.level_findings.empty(); })) {
    out << "Categorical levels one side has and the other lacks:\n\n";
    for (const auto& c : view.candidates)
      for (const auto& f : c.level_findings) out << "- " << c.name << ": " << f << "\n";
    out << "\n";
  }

  out << "## Headlines\n\n";
  if (view.headlines.empty()) {
    out << "No metric in these results declares a headline.\n\n";
    return;
  }
  const bool any_baseline =
      std::any_of(view.headlines.begin(), view.headlines.end(),
                  [](const ExecutiveView::Headline& h) { return !h.baseline_name.empty(); });
  out << "Each value is the candidate's mean over its replicates (or the value combined over "
         "them)"
      << (any_baseline ? "; the baseline is what data without any synthesis score" : "")
      << ".\n\n| Axis | Metric | Headline | Better |";
  for (const auto& c : view.candidates) out << " " << cell(c.name) << " |";
  if (any_baseline) out << " Baseline |";
  out << "\n|---|---|---|---|";
  for (std::size_t i = 0; i < view.candidates.size(); ++i) out << "---:|";
  if (any_baseline) out << "---|";
  out << "\n";
  for (const auto& h : view.headlines) {
    out << "| " << h.axis << " | " << cell(h.metric) << " | " << cell(h.statistic_label) << " | "
        << cell(h.ideal_short) << " |";
    for (std::size_t i = 0; i < view.candidates.size(); ++i)
      out << " " << (i < h.values.size() ? h.values[i] : "NA") << " |";
    const bool compared = !h.compared_values.empty();
    if (any_baseline)
      out << " "
          << (h.baseline_name.empty() || compared ? std::string("—")
                                                  : cell(h.baseline_name + " " + h.baseline_value))
          << " |";
    out << "\n";
    if (!compared) continue;
    // The verdict compares a smaller holdout with the candidates at its size: those values, on
    // the row of the baseline they are compared with.
    out << "| " << h.axis << " | " << cell(h.metric) << " | "
        << cell(h.statistic_label + " at the holdout's " + h.compared_rows + " rows (compared)")
        << " | " << cell(h.ideal_short) << " |";
    for (std::size_t i = 0; i < view.candidates.size(); ++i)
      out << " "
          << (i < h.compared_values.size() && !h.compared_values[i].empty() ? h.compared_values[i]
                                                                            : "—")
          << " |";
    out << " " << cell(h.baseline_name + " " + h.baseline_value) << " |\n";
  }
  out << "\n";
  if (!view.baselines.empty()) {
    out << "Baselines:\n\n";
    for (const auto& b : view.baselines) out << "- " << b << "\n";
    out << "\n";
  }
}

void policy_details(std::ostringstream& out, const json& document) {
  const json& verdict = member(document, "verdict");
  const json& criteria = member(member(verdict, "policy"), "criteria");
  if (!criteria.is_array() || criteria.empty()) return;
  out << "## Release policy\n\n";
  for (const auto& c : criteria)
    out << "- `" << text_of(c, "id") << "`: " << text_of(c, "text") << "\n";
  out << "\n| Candidate | Criterion | Value | Baseline | Limit | Status | Why |\n"
      << "|---|---|---:|---:|---:|---|---|\n";
  auto unit_of = [&](const std::string& id) {
    for (const auto& c : criteria)
      if (text_of(c, "id") == id)
        return headline_unit(document, text_of(c, "metric"), text_of(c, "statistic"),
                             text_of(c, "scope").empty() ? "all" : text_of(c, "scope"));
    return std::string();
  };
  auto in_unit = [](const json& v, const std::string& unit) {
    return v.is_number() ? value_in_unit(v.get<double>(), unit) : std::string("—");
  };
  for (const auto& candidate : member(verdict, "candidates"))
    for (const auto& check : member(candidate, "checks")) {
      const std::string unit = unit_of(text_of(check, "criterion"));
      out << "| " << cell(text_of(candidate, "name")) << " | " << cell(text_of(check, "criterion"))
          << " | " << in_unit(member(check, "value"), unit) << " | "
          << in_unit(member(check, "baseline"), unit) << " | "
          << in_unit(member(check, "limit"), unit) << " | " << status_word(text_of(check, "status"))
          << " | " << cell(text_of(check, "reason")) << " |\n";
    }
  out << "\n";
}

}  // namespace

// A table cell (metrics/metric.hpp's table convention) as text: numbers to 4 significant digits,
// intervals as [lower, upper].
std::string table_cell(const json& v) {
  const auto short_number = [](const json& x) {
    if (!x.is_number()) return std::string("NA");
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", x.get<double>());
    return std::string(buffer);
  };
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number() || v.is_null()) return short_number(v);
  if (v.is_array() && v.size() == 2)
    return "[" + short_number(v[0]) + ", " + short_number(v[1]) + "]";
  return cell(v.is_string() ? v.get<std::string>() : v.dump());
}

// The metrics' tables (details.tables), per candidate from its combined result or first
// replicate.
// Related tables (results.json "relations"): whether each relation holds in every dataset.
void structure(std::ostringstream& out, const json& document) {
  const json& relations = member(document, "relations");
  if (!relations.is_array() || relations.empty()) return;
  out << "## Structure and households\n\nEach relation between related tables in every dataset: "
         "records whose parent is missing (orphans, or a missing key), repeated keys, parents "
         "without children, parents whose number of children the confidential data never show, "
         "and the distance of the children-per-parent distribution from the confidential one "
         "(total variation, Kolmogorov–Smirnov). A candidate with orphans or repeated keys that "
         "the confidential data do not have fails.\n\n";
  auto share = [](const json& count, const json& of) {
    return number(count) +
           (of.is_number() ? " (" + plain_number(100.0 * of.get<double>()) + " %)" : std::string());
  };
  for (const auto& r : relations) {
    out << "### " << cell(text_of(r, "child")) << " in " << cell(text_of(r, "parent"))
        << "\n\n| Dataset | Parents | Children | Orphans | Missing key | Repeated keys | "
           "Childless parents | Outside the confidential range | Cardinality TV | KS |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& d : member(r, "datasets")) {
      const auto count = [&](const char* key) {
        const json& v = member(d, key);
        return v.is_number() ? v.get<double>() : 0.0;
      };
      const double repeated = count("duplicate_parent_keys") + count("duplicate_child_keys");
      out << "| " << cell(text_of(d, "dataset")) << " | " << number(member(d, "parents")) << " | "
          << number(member(d, "children")) << " | "
          << share(member(d, "orphans"), member(d, "orphan_share")) << " | "
          << number(member(d, "missing_foreign_keys")) << " | " << plain_number(repeated) << " | "
          << share(member(d, "childless_parents"), member(d, "childless_share")) << " | "
          << share(member(d, "children_per_parent_outside_bounds"),
                   member(d, "outside_bounds_share"))
          << " | " << number(member(d, "cardinality_tv")) << " | "
          << number(member(d, "cardinality_ks")) << " |\n";
    }
    out << "\n";
  }
}

void tables(std::ostringstream& out, const json& document) {
  bool heading = false;
  for (const auto& m : member(document, "metrics"))
    for (const auto& c : member(m, "candidates")) {
      if (member(c, "baseline").is_boolean() && member(c, "baseline").get<bool>()) continue;
      const json& combined = member(c, "combined");
      const json& replicates = member(c, "replicates");
      const json& result = combined.is_object()                             ? combined
                           : (replicates.is_array() && !replicates.empty()) ? replicates[0]
                                                                            : combined;
      for (const auto& t : member(member(result, "details"), "tables")) {
        if (!heading) out << "\n## Tables\n";
        heading = true;
        out << "\n### " << cell(text_of(m, "name")) << ", " << cell(text_of(c, "name")) << ": "
            << cell(text_of(t, "title")) << "\n\n|";
        const json& columns = member(t, "columns");
        for (const auto& column : columns) out << " " << table_cell(column) << " |";
        out << "\n|";
        for (std::size_t i = 0; i < columns.size(); ++i) out << "---|";
        out << "\n";
        for (const auto& row : member(t, "rows")) {
          out << "|";
          for (const auto& value : row) out << " " << table_cell(value) << " |";
          out << "\n";
        }
      }
    }
}

std::string render_markdown(const json& document) {
  const json card = scorecard(document);
  const ExecutiveView view = executive_view(document);
  std::ostringstream out;
  out << "# synthaudit report\n\n" << view.tool_line << "\n\n";
  executive_summary(out, view);

  out << "# Details\n\n";
  policy_details(out, document);

  const auto& names = card["candidates"];
  if (!card["headlines"].empty()) {
    out << "## Ranks\n\nRank of each candidate on each headline by its distance to the ideal "
           "(#1 best; ties share the mean rank).\n\n| Metric | Headline |";
    for (const auto& n : names) out << " " << cell(n.get<std::string>()) << " |";
    out << "\n|---|---|";
    for (std::size_t i = 0; i < names.size(); ++i) out << "---:|";
    out << "\n";
    for (const auto& h : card["headlines"]) {
      std::string headline = text_of(h, "statistic");
      if (text_of(h, "scope") != "all") headline += " [" + text_of(h, "scope") + "]";
      out << "| " << cell(text_of(h, "metric")) << " | " << cell(headline) << " |";
      for (std::size_t i = 0; i < names.size(); ++i) {
        const json& r = h["ranks"][i];
        out << " " << (r.is_number() ? "#" + plain_number(r.get<double>()) : std::string("—"))
            << " |";
      }
      out << "\n";
    }
    out << "\nMean rank over the utility and over the risk headlines, never averaged into one "
           "number.\n\n| Candidate | Utility rank | Risk rank |\n|---|---:|---:|\n";
    for (const auto& r : card["ranking"])
      out << "| " << cell(text_of(r, "candidate")) << " | " << number(member(r, "utility_rank"))
          << " | " << number(member(r, "risk_rank")) << " |\n";
    out << "\n## How to read the headlines\n\n";
    for (const auto& h : view.headlines) {
      out << "- " << h.metric << " / " << h.label << ": " << h.reading << " (" << h.ideal_text
          << ")";
      if (!h.baseline_note.empty())
        out << ". Baseline (" << h.baseline_name << "): " << h.baseline_note;
      out << "\n";
    }
    out << "\n";
  }

  structure(out, document);
  out << "## Metrics\n\n";
  for (const auto& m : member(document, "metrics")) {
    out << "- **" << text_of(m, "name") << "** (" << text_of(m, "family")
        << "): " << text_of(m, "summary");
    if (m.contains("skipped")) out << " — skipped: " << text_of(m, "skipped");
    std::size_t warnings = 0;
    for (const auto& c : member(m, "candidates")) {
      for (const auto& r : member(c, "replicates")) warnings += member(r, "warnings").size();
      warnings += member(member(c, "combined"), "warnings").size();
    }
    if (warnings > 0) out << " — " << warnings << " warning(s)";
    out << "\n";
  }
  tables(out, document);
  const json& warnings = member(document, "warnings");
  if (warnings.is_array() && !warnings.empty()) {
    out << "\n## Warnings\n\n";
    for (const auto& w : warnings)
      out << "- " << (w.is_string() ? w.get<std::string>() : w.dump()) << "\n";
  }
  // Names and levels come from the data: no control character (a NUL) reaches the text raw.
  return escape_controls(out.str(), /*keep_newlines=*/true);
}

}  // namespace synthaudit
