// The executive view of a results document and its terminal rendering (see summary.hpp).
#include "report/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

#include "core/text.hpp"
#include "report/report.hpp"
#include "result/json_fields.hpp"

namespace synthaudit {

namespace {

using json = nlohmann::json;

using json_fields::member;
using json_fields::text_of;

std::string with_thousands(std::string digits) {
  const bool negative = !digits.empty() && digits[0] == '-';
  std::string body = negative ? digits.substr(1) : digits;
  for (std::ptrdiff_t pos = static_cast<std::ptrdiff_t>(body.size()) - 3; pos > 0; pos -= 3)
    body.insert(static_cast<std::size_t>(pos), ",");
  return negative ? "-" + body : body;
}

std::string ideal_short(const json& ideal) {
  const std::string kind = text_of(ideal, "kind");
  if (kind == "higher") return "higher";
  if (kind != "target") return "lower";
  const json& target = member(ideal, "target");
  return "near " + (target.is_number() ? plain_number(target.get<double>()) : std::string("?")) +
         (text_of(ideal, "scale") == "ratio" ? " (ratio)" : "");
}

std::size_t count_metric_warnings(const json& document) {
  std::size_t count = 0;
  auto add = [&](const json& result) { count += member(result, "warnings").size(); };
  for (const auto& metric : member(document, "metrics"))
    for (const auto& entry : member(metric, "candidates")) {
      for (const auto& replicate : member(entry, "replicates")) add(replicate);
      add(member(entry, "combined"));
    }
  return count;
}

// The engine's warning for categorical levels one side has and the other lacks reads
// "candidate 'NAME', column 'COLUMN': N level(s) not in the WHICH data: A, B, ...".
// Each candidate gets one line per direction: the total, the columns, and the first levels.
std::map<std::string, std::vector<std::string>> level_findings(const json& document) {
  static const std::regex pattern(
      R"(^candidate '(.*)', column '(.*)': (\d+) level\(s\) not in the (.*) data: (.*)$)");
  struct Finding {
    std::size_t levels = 0;
    std::vector<std::string> columns;
    std::string first_levels;
  };
  std::map<std::pair<std::string, std::string>, Finding> grouped;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& warning : member(document, "warnings")) {
    if (!warning.is_string()) continue;
    std::smatch m;
    const std::string text = warning.get<std::string>();
    if (!std::regex_match(text, m, pattern)) continue;
    const auto key = std::make_pair(m[1].str(), m[4].str());
    if (!grouped.count(key)) order.push_back(key);
    Finding& f = grouped[key];
    f.levels += std::stoul(m[3].str());
    f.columns.push_back(m[2].str());
    if (f.first_levels.empty()) {
      const std::vector<std::string> levels = split(m[5].str(), ',');
      const std::size_t shown = std::min<std::size_t>(levels.size(), 3);
      f.first_levels =
          m[2].str() + ": " +
          join(std::vector<std::string>(levels.begin(), levels.begin() + shown), ", ") +
          (levels.size() > shown ? ", …" : "");
    }
  }
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& key : order) {
    const Finding& f = grouped[key];
    std::string line =
        std::to_string(f.levels) +
        (key.second == "confidential" ? " synthetic level(s)" : " confidential level(s)") +
        " not in the " + key.second + " data";
    if (f.columns.size() > 1) line += ", in " + std::to_string(f.columns.size()) + " columns";
    out[key.first].push_back(line + " (" + f.first_levels + ")");
  }
  return out;
}

}  // namespace

std::string plain_number(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "NA" : (value > 0 ? "inf" : "-inf");
  if (value == 0.0) return "0";
  const double magnitude = std::fabs(value);
  if (value == std::round(value) && magnitude < 1e15) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return with_thousands(buffer);
  }
  // Below a millionth, plain notation would be a row of zeros that reads as 0.
  if (magnitude < 1e-6) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
  }
  const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  if (exponent >= 3) {  // four significant digits of a large value are all before the point
    const double unit = std::pow(10.0, exponent - 3);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", std::round(value / unit) * unit);
    return with_thousands(buffer);
  }
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", 3 - exponent, value);
  std::string text = buffer;
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

std::string value_in_unit(double value, const std::string& unit) {
  if (std::isnan(value)) return "NA";
  if (unit == "share") return plain_number(value * 100.0) + " %";
  if (unit == "percent") return plain_number(value) + " %";
  return plain_number(value);
}

std::string headline_unit(const json& document, const std::string& metric,
                          const std::string& statistic, const std::string& scope) {
  for (const auto& m : member(document, "metrics"))
    if (text_of(m, "name") == metric)
      for (const auto& h : member(m, "headlines"))
        if (text_of(h, "statistic") == statistic &&
            (text_of(h, "scope").empty() ? "all" : text_of(h, "scope")) == scope)
          return text_of(h, "unit");
  return {};
}

ExecutiveView executive_view(const json& document) {
  ExecutiveView view;
  const json card = scorecard(document);

  std::vector<std::string> facts;
  if (const std::string version = text_of(member(document, "tool"), "version"); !version.empty())
    facts.push_back("synthaudit " + version);
  const json& candidates = member(document, "candidates");
  if (candidates.is_array()) {
    std::string line = std::to_string(candidates.size()) + " candidate(s)";
    std::vector<std::string> replicates;
    for (const auto& c : candidates)
      if (member(c, "replicates").is_number())
        replicates.push_back(std::to_string(member(c, "replicates").get<long long>()));
    if (!replicates.empty() &&
        std::all_of(replicates.begin(), replicates.end(),
                    [&](const std::string& r) { return r == replicates.front(); }))
      line += " × " + replicates.front() + " replicate(s)";
    facts.push_back(line);
  }
  for (const auto& metric : member(document, "metrics"))
    if (metric.contains("skipped")) ++view.skipped_metrics;
  if (member(document, "metrics").is_array())
    facts.push_back(
        std::to_string(member(document, "metrics").size()) + " metric(s)" +
        (view.skipped_metrics ? " (" + std::to_string(view.skipped_metrics) + " skipped)" : ""));
  for (const auto& input : member(document, "inputs")) {
    const std::string role = text_of(input, "role");
    if ((role == "confidential" || role == "holdout") && member(input, "rows").is_number())
      facts.push_back(plain_number(member(input, "rows").get<double>()) + " " + role + " rows");
  }
  if (member(document, "wall_seconds").is_number())
    facts.push_back(plain_number(member(document, "wall_seconds").get<double>()) + " s");
  view.tool_line = join(facts, " · ");

  const auto findings = level_findings(document);
  const json& verdict = member(document, "verdict");
  view.has_verdict = verdict.is_object();
  if (view.has_verdict) {
    view.recommended = text_of(verdict, "recommended");
    view.policy_source = text_of(member(verdict, "policy"), "source");
    for (const auto& check : member(verdict, "not_run")) {
      const std::string name = text_of(check, "metric");
      if (std::find(view.checks_not_run.begin(), view.checks_not_run.end(), name) ==
          view.checks_not_run.end())
        view.checks_not_run.push_back(name);
    }
    for (const auto& c : member(verdict, "candidates")) {
      ExecutiveView::Candidate out{text_of(c, "name"), text_of(c, "status"), {}, {}, {}};
      for (const auto& r : member(c, "reasons"))
        if (r.is_string()) out.reasons.push_back(r.get<std::string>());
      view.candidates.push_back(std::move(out));
    }
  } else {
    for (const auto& name : card["candidates"])
      view.candidates.push_back({name.get<std::string>(), "", {}, {}, {}});
    for (const auto& r : card["ranking"]) {
      auto rank = [&](const char* key) {
        return member(r, key).is_number() ? plain_number(member(r, key).get<double>())
                                          : std::string("NA");
      };
      view.ranking_lines.push_back(text_of(r, "candidate") + ": utility rank " +
                                   rank("utility_rank") + ", risk rank " + rank("risk_rank"));
    }
  }
  for (auto& c : view.candidates)
    if (const auto it = findings.find(c.name); it != findings.end()) c.level_findings = it->second;
  const json& judged = member(member(document, "subgroups"), "judged");
  for (const auto& j : member(judged, "candidates"))
    for (auto& c : view.candidates) {
      const json& worst = member(j, "worst");
      if (c.name != text_of(j, "name") || !worst.is_object()) continue;
      auto count = [&](const char* key) {
        return member(j, key).is_number() ? plain_number(member(j, key).get<double>())
                                          : std::string("?");
      };
      const double review_sd =
          member(judged, "review_sd").is_number() ? member(judged, "review_sd").get<double>() : 2.0;
      c.worst_subgroup = "Worst subgroup (where to look first, not a test): " +
                         text_of(worst, "reason") + " " + count("beyond_review_sd") + " of " +
                         count("comparisons") + " subgroup comparisons beyond " +
                         plain_number(review_sd) + " standard deviations.";
    }
  for (const auto& finding : member(document, "data_checks")) {
    const std::string message = text_of(finding, "message");
    const std::string candidate = text_of(finding, "candidate");
    if (message.empty()) continue;
    if (candidate.empty()) {
      view.data_findings.push_back(message);
      continue;
    }
    for (auto& c : view.candidates) {
      if (c.name != candidate) continue;
      const bool in_reasons =
          std::any_of(c.reasons.begin(), c.reasons.end(),
                      [&](const std::string& r) { return r.find(message.substr(1)) != r.npos; });
      if (!in_reasons) c.data_findings.push_back("WARNING: " + message);
    }
  }

  // Rows arrive grouped by file (the document lists them file by file).
  std::string missing_file;
  for (const auto& row : member(document, "treated_as_missing")) {
    const std::string file = text_of(row, "file") + " (" + text_of(row, "role") + ")";
    const json& code = member(row, "code");
    const std::string count =
        member(row, "count").is_number() ? plain_number(member(row, "count").get<double>()) : "?";
    const std::string item = text_of(row, "column") +
                             (code.is_string() ? " " + code.get<std::string>() + ": " + count
                                               : ": " + count + " declared missing by the file");
    if (file != missing_file || view.missing_lines.empty()) {
      view.missing_lines.push_back(file + ": " + item);
      missing_file = file;
    } else {
      view.missing_lines.back() += ", " + item;
    }
  }

  std::map<std::string, int> label_uses;
  auto bare_label = [](const json& row) {
    std::string label = text_of(row, "statistic");
    if (const std::string scope = text_of(row, "scope"); !scope.empty() && scope != "all")
      label += " [" + scope + "]";
    return label;
  };
  for (const auto& row : card["headlines"]) ++label_uses[bare_label(row)];
  for (const char* axis : {"risk", "utility"})
    for (const auto& row : card["headlines"]) {
      if ((text_of(row, "axis") == "risk") != (std::string(axis) == "risk")) continue;
      ExecutiveView::Headline h;
      h.metric = text_of(row, "metric");
      h.statistic_label = bare_label(row);
      h.label = h.statistic_label;
      if (label_uses[h.label] > 1) h.label += " (" + h.metric + ")";
      h.axis = axis;
      h.ideal_short = ideal_short(member(row, "ideal"));
      h.ideal_text = text_of(row, "ideal_text");
      h.reading = text_of(row, "reading");
      std::string unit = text_of(row, "unit");
      if (unit.empty())
        unit = headline_unit(document, h.metric, text_of(row, "statistic"), text_of(row, "scope"));
      for (const auto& v : row["values"])
        h.values.push_back(v.is_number() ? value_in_unit(v.get<double>(), unit) : "NA");
      const json& baseline = member(row, "baseline");
      if (baseline.is_object()) {
        h.baseline_name = text_of(baseline, "name");
        h.baseline_value = member(baseline, "value").is_number()
                               ? value_in_unit(member(baseline, "value").get<double>(), unit)
                               : "NA";
        h.baseline_note = text_of(baseline, "note");
      }
      if (const json& at = member(row, "at_baseline_size"); at.is_object()) {
        for (const auto& v : member(at, "values"))
          h.compared_values.push_back(v.is_number() ? value_in_unit(v.get<double>(), unit) : "");
        for (const auto& r : member(at, "rows"))
          if (r.is_number() && h.compared_rows.empty())
            h.compared_rows = plain_number(r.get<double>());
      }
      view.headlines.push_back(std::move(h));
    }

  for (const auto& b : member(document, "baselines")) {
    std::string line = text_of(b, "name");
    if (const std::string description = text_of(b, "description"); !description.empty())
      line += ": " + description;
    view.baselines.push_back(line);
  }
  view.data_warnings = member(document, "warnings").size();
  view.metric_warnings = count_metric_warnings(document);
  return view;
}

namespace {

// Display width of UTF-8 text: code points, which is what a terminal shows for the text here.
std::size_t width(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(const std::string& text, std::size_t to) {
  const std::size_t w = width(text);
  return w >= to ? text : text + std::string(to - w, ' ');
}

std::string pad_left(const std::string& text, std::size_t to) {
  const std::size_t w = width(text);
  return w >= to ? text : std::string(to - w, ' ') + text;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::string render_summary(const json& document, const OutputPaths& paths) {
  const ExecutiveView view = executive_view(document);
  std::ostringstream out;
  out << view.tool_line << "\n";

  // The verdict: status and the first reason per candidate (a reason is a full sentence with its
  // numbers; the rest are in the report), so that three candidates fit a terminal screen.
  constexpr std::size_t kReasonsShown = 1;
  std::size_t name_width = 0;
  for (const auto& c : view.candidates) name_width = std::max(name_width, width(c.name));
  if (view.has_verdict) {
    out << "\nVerdict";
    if (view.policy_source == "default" || view.policy_source == "spec")
      out << " (" << (view.policy_source == "default" ? "default policy" : "the spec's policy")
          << ")";
    else if (!view.policy_source.empty())
      out << " (policy " << view.policy_source << ")";
    out << ": "
        << (view.recommended.empty() ? "no candidate is recommended"
                                     : "recommended " + view.recommended)
        << "\n";
    if (!view.checks_not_run.empty())
      out << "  Default risk checks not run (results.json verdict.not_run says why): "
          << join(view.checks_not_run, ", ") << "\n";
  } else {
    out << "\nNo verdict in these results; ranks (1 = best):\n";
  }
  const std::string indent(2 + name_width + 2 + 6 + 2, ' ');
  for (const auto& c : view.candidates) {
    std::string head = "  " + pad(c.name, name_width) + "  ";
    if (view.has_verdict) head += pad(upper(c.status), 6) + "  ";
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < c.reasons.size() && i < kReasonsShown; ++i)
      lines.push_back(c.reasons[i]);
    if (c.reasons.size() > kReasonsShown)
      lines.back() += " [+" + std::to_string(c.reasons.size() - kReasonsShown) + " more]";
    for (const auto& f : c.data_findings) lines.push_back(f);
    for (const auto& f : c.level_findings) lines.push_back(f);
    if (!c.worst_subgroup.empty()) lines.push_back(c.worst_subgroup);
    if (!view.has_verdict)
      for (const auto& r : view.ranking_lines)
        if (r.rfind(c.name + ":", 0) == 0) lines.push_back(r.substr(c.name.size() + 2));
    if (lines.empty()) {
      out << head << "\n";
      continue;
    }
    out << head << lines[0] << "\n";
    for (std::size_t i = 1; i < lines.size(); ++i)
      out << (view.has_verdict ? indent : std::string(2 + name_width + 2, ' ')) << lines[i] << "\n";
  }

  if (!view.data_findings.empty()) {
    out << "\nChecks before the metrics:\n";
    for (const auto& f : view.data_findings) out << "  WARNING: " << f << "\n";
  }
  if (!view.missing_lines.empty()) {
    out << "\nRead as missing (declared codes; missing values the file declares):\n";
    for (const auto& line : view.missing_lines) out << "  " << line << "\n";
  }

  // The headlines: one line each, candidates side by side, then the baseline and the ideal.
  if (view.headlines.empty()) {
    out << "\nNo metric in these results declares a headline.\n";
  } else {
    const bool any_baseline =
        std::any_of(view.headlines.begin(), view.headlines.end(),
                    [](const ExecutiveView::Headline& h) { return !h.baseline_name.empty(); });
    std::size_t label_width = 0, baseline_width = 8, ideal_width = 5;
    std::vector<std::size_t> column_width;
    for (const auto& c : view.candidates)
      column_width.push_back(std::max<std::size_t>(width(c.name), 6));
    // A headline compared at the holdout's size gets a second line: those values and the
    // baseline, which is of that size; the first line then shows no baseline.
    auto compared_label = [](const ExecutiveView::Headline& h) {
      return "  at the holdout's " + h.compared_rows + " rows (compared)";
    };
    for (const auto& h : view.headlines) {
      label_width = std::max(label_width, width(h.label));
      if (!h.compared_values.empty()) label_width = std::max(label_width, width(compared_label(h)));
      for (std::size_t i = 0; i < h.compared_values.size() && i < column_width.size(); ++i)
        column_width[i] = std::max(column_width[i], width(h.compared_values[i]));
      for (std::size_t i = 0; i < h.values.size() && i < column_width.size(); ++i)
        column_width[i] = std::max(column_width[i], width(h.values[i]));
      if (!h.baseline_name.empty())
        baseline_width =
            std::max(baseline_width, width(h.baseline_name) + 1 + width(h.baseline_value));
      ideal_width = std::max(ideal_width, width(h.ideal_short));
    }
    const std::string title = "Headlines (mean over replicates)";
    label_width = std::max(label_width, width(title) - 4);
    out << "\n" << pad(title, label_width + 4);
    for (std::size_t i = 0; i < view.candidates.size(); ++i)
      out << "  " << pad_left(view.candidates[i].name, column_width[i]);
    if (any_baseline) out << "  " << pad("baseline", baseline_width);
    out << "  better\n";
    std::string axis;
    for (const auto& h : view.headlines) {
      if (h.axis != axis) {
        axis = h.axis;
        out << (axis == "risk" ? "  Risk\n" : "  Utility\n");
      }
      const bool compared = !h.compared_values.empty();
      out << "    " << pad(h.label, label_width);
      for (std::size_t i = 0; i < column_width.size(); ++i)
        out << "  " << pad_left(i < h.values.size() ? h.values[i] : "NA", column_width[i]);
      if (any_baseline)
        out << "  "
            << pad(h.baseline_name.empty() || compared ? "-"
                                                       : h.baseline_name + " " + h.baseline_value,
                   baseline_width);
      out << "  " << h.ideal_short << "\n";
      if (!compared) continue;
      out << "    " << pad(compared_label(h), label_width);
      for (std::size_t i = 0; i < column_width.size(); ++i)
        out << "  "
            << pad_left(i < h.compared_values.size() && !h.compared_values[i].empty()
                            ? h.compared_values[i]
                            : "-",
                        column_width[i]);
      out << "  " << pad(h.baseline_name + " " + h.baseline_value, baseline_width) << "\n";
    }
  }

  out << "\n";
  const std::size_t warnings = view.data_warnings + view.metric_warnings;
  if (warnings == 0)
    out << "No warnings.\n";
  else
    out << warnings << " warning(s) (" << view.data_warnings << " about the data, "
        << view.metric_warnings << " from metrics): read them in the report.\n";
  // A document reduced by output checking (--safe-output, engine/safe_output.hpp) says so.
  if (const auto check = document.find("output_check");
      check != document.end() && check->is_object()) {
    const auto withheld = check->value("withheld", nlohmann::json::array());
    out << "Output checking: nothing from fewer than " << check->value("threshold", 0)
        << " records; " << withheld.size()
        << " kind(s) of item withheld or rounded (output_check.txt beside the results).\n";
  }
  if (!paths.results_json.empty())
    out << "Results: " << paths.results_json
        << (paths.results_tsv.empty() ? "" : ", " + paths.results_tsv) << "\n";
  if (!paths.report_html.empty()) out << "Report:  " << paths.report_html << "\n";
  if (!paths.results_json.empty())
    out << "Details as text: synthaudit report " << paths.results_json << " --format md\n";
  // Names and levels come from the data: no control character reaches the terminal raw.
  return escape_controls(out.str(), /*keep_newlines=*/true);
}

}  // namespace synthaudit
