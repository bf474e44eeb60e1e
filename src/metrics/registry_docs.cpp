#include "metrics/registry_docs.hpp"

#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/registry.hpp"
#include "metrics/registry_json.hpp"

namespace synthaudit {

namespace {

constexpr std::string_view kBeginMarker = "<!-- BEGIN GENERATED: ";
constexpr std::string_view kEndMarker = "<!-- END GENERATED -->";

std::string granularity_text(const MetricSpec& metric) {
  return metric.granularity == MetricGranularity::kPerReplicate
             ? "per replicate"
             : "per candidate, all replicates combined";
}

// How a row-partitioned run (MPI ranks) computes the metric, and what that costs in memory.
std::string partition_text(const MetricSpec& metric) {
  if (!metric.mergeable)
    return "In a partitioned run: gathered on one process, which holds every row of the "
           "tables it reads (the single-process memory)";
  std::string text =
      "In a partitioned run: merged from per-partition states (counts exactly, sums up "
      "to floating-point summation order, at most 1e-12 relative)";
  if (metric.collective)
    text +=
        "; without whole tables, computed by the ranks together where it applies (see the "
        "description), each rank holding about its share of the values";
  return text;
}

std::vector<std::string> requirement_texts(const MetricSpec& metric) {
  std::vector<std::string> needs;
  if (metric.needs_holdout) needs.push_back("a holdout file");
  if (metric.needs_row_correspondence) needs.push_back("partial synthesis (rows correspond)");
  if (metric.needs_scenarios) needs.push_back("disclosure keys and targets");
  if (metric.needs_analyses) needs.push_back("declared analyses");
  return needs;
}

std::string allowed_text(const ParamSpec& p) {
  std::string text;
  if (p.min || p.max)
    text = "[" + (p.min ? format_number(*p.min) : std::string("-inf")) + ", " +
           (p.max ? format_number(*p.max) : std::string("inf")) + "]";
  if (!p.choices.empty()) text += (text.empty() ? "" : " ") + join(p.choices, " | ");
  return text;
}

std::string scopes_text(const StatisticSpec& statistic) {
  std::vector<std::string> names;
  for (auto scope : statistic.scopes) names.push_back(to_string(scope));
  return join(names, ", ");
}

// A Markdown table cell: pipes escaped, line breaks flattened.
std::string cell(std::string text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n')
      out += ' ';
    else
      out += ch;
  }
  return out;
}

std::string reference_markdown(const Reference& r) {
  std::string text =
      r.authors + " (" + (r.year > 0 ? std::to_string(r.year) : "n.d.") + "). *" + r.title + "*.";
  if (!r.venue.empty()) text += " " + r.venue + ".";
  if (!r.software.empty())
    text += " Software: " + r.software + (r.version.empty() ? "" : " " + r.version) + ".";
  if (!r.doi.empty())
    text += " [doi:" + r.doi + "](https://doi.org/" + r.doi + ")";
  else if (!r.url.empty())
    text += " <" + r.url + ">";
  if (!r.used_for.empty()) text += " — " + r.used_for;
  return text;
}

// The name of the one generated block that is not a metric's: every headline of the registry.
constexpr std::string_view kHeadlineBlock = "headlines";

std::string baseline_text(const Baseline& b) {
  switch (b.kind) {
    case BaselineKind::kNone:
      return "none";
    case BaselineKind::kStatistic:
      return "statistic `" + b.statistic + "`";
    case BaselineKind::kAnalytic:
      return "analytic " + format_number(b.value);
    default:
      return to_string(b.kind);
  }
}

}  // namespace

std::string headline_markdown_table() {
  std::ostringstream out;
  out << "*Generated from the metric registry by `make docs`.*\n\n"
      << "| metric | headline | axis | ideal | baseline | why this baseline |\n"
      << "|---|---|---|---|---|---|\n";
  for (const auto& m : all_metrics())
    for (const auto& h : m.headlines)
      out << "| " << m.name << " | `" << cell(h.statistic) << "`"
          << (h.scope == "all" ? "" : " [" + cell(h.scope) + "]") << " | " << h.axis << " | "
          << cell(describe_ideal(h.ideal)) << " | " << cell(baseline_text(h.baseline)) << " | "
          << cell(h.baseline.note) << " |\n";
  return out.str();
}

std::string describe_text(const MetricSpec& m) {
  std::ostringstream out;
  out << m.name << " (" << to_string(m.family) << ", " << granularity_text(m) << ")\n\n"
      << m.summary << "\n\n"
      << m.doc << "\n";
  const auto needs = requirement_texts(m);
  if (!needs.empty()) out << "\nNeeds " << join(needs, "; ") << ".\n";
  out << "\n" << partition_text(m) << ".\n";
  out << "\nHeadlines:" << (m.headlines.empty() ? " none\n" : "\n");
  for (const auto& h : m.headlines)
    out << "  " << h.statistic << (h.scope == "all" ? "" : " [" + h.scope + "]") << " (" << h.axis
        << "): " << describe_ideal(h.ideal) << "; baseline: "
        << (h.baseline.kind == BaselineKind::kNone
                ? "none"
                : to_string(h.baseline.kind) +
                      std::string(h.baseline.note.empty() ? "" : " — " + h.baseline.note))
        << "\n";
  out << "\nParameters:" << (m.params.empty() ? " none\n" : "\n");
  for (const auto& p : m.params) {
    out << "  " << p.name << " (" << to_string(p.type) << ", default "
        << param_value_to_json(p.default_value).dump();
    // The CLI test reads "range [lo, hi]" from here to try a value just outside it.
    if (p.min || p.max)
      out << ", range [" << (p.min ? format_number(*p.min) : "-inf") << ", "
          << (p.max ? format_number(*p.max) : "inf") << "]";
    if (!p.choices.empty()) out << ", one of " << join(p.choices, "|");
    out << "): " << p.doc << "\n";
  }
  out << "\nStatistics:\n";
  for (const auto& s : m.statistics)
    out << "  " << s.name << (is_headline(m, s) ? " [headline]" : "") << " ("
        << describe_ideal(s.ideal) << "; per " << scopes_text(s) << "): " << s.meaning << "\n";
  out << "\nReferences:\n";
  for (const auto& r : m.references)
    out << "  - " << format_reference(r) << (r.used_for.empty() ? "" : " — " + r.used_for) << "\n";
  return out.str();
}

std::string metric_markdown_block(const MetricSpec& m) {
  std::ostringstream out;
  out << "*Generated from the metric registry by `make docs`: edit the metric's declaration, not "
         "this block.*\n\n";
  out << "Family `" << to_string(m.family) << "`, " << granularity_text(m) << ".";
  const auto needs = requirement_texts(m);
  if (!needs.empty()) out << " Needs " << join(needs, "; ") << ".";
  out << " " << partition_text(m) << ".";
  out << "\n\n";
  if (m.params.empty()) {
    out << "No parameters.\n\n";
  } else {
    out << "| parameter | type | default | allowed | description |\n|---|---|---|---|---|\n";
    for (const auto& p : m.params)
      out << "| `" << p.name << "` | " << to_string(p.type) << " | `"
          << cell(param_value_to_json(p.default_value).dump()) << "` | " << cell(allowed_text(p))
          << " | " << cell(p.doc) << " |\n";
    out << "\n";
  }
  out << "| statistic | scope | ideal | meaning |\n|---|---|---|---|\n";
  for (const auto& s : m.statistics)
    out << "| `" << cell(s.name) << "`" << (is_headline(m, s) ? " (headline)" : "") << " | "
        << scopes_text(s) << " | " << cell(describe_ideal(s.ideal)) << " | " << cell(s.meaning)
        << " |\n";
  out << "\nReferences:\n\n";
  for (const auto& r : m.references) out << "- " << reference_markdown(r) << "\n";
  return out.str();
}

std::string regenerate_metric_docs(const std::string& markdown, const std::string& where) {
  std::istringstream in(markdown);
  std::ostringstream out;
  std::set<std::string> documented;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    out << line << "\n";
    if (line.rfind(kBeginMarker, 0) != 0) continue;
    const auto close = line.find(" -->", kBeginMarker.size());
    const std::string name =
        line.substr(kBeginMarker.size(),
                    close == std::string::npos ? std::string::npos : close - kBeginMarker.size());
    const std::string at = where + ":" + std::to_string(number);
    const MetricSpec* metric = name == kHeadlineBlock ? nullptr : find_metric(name);
    if (metric == nullptr && name != kHeadlineBlock)
      throw InputError(at + ": generated block for unknown metric '" + name + "'");
    if (!documented.insert(name).second)
      throw InputError(at + ": second generated block for metric '" + name + "'");
    bool ended = false;
    while (std::getline(in, line)) {
      ++number;
      if (line == kEndMarker) {
        ended = true;
        break;
      }
    }
    if (!ended) throw InputError(at + ": generated block for '" + name + "' has no end marker");
    out << (metric != nullptr ? metric_markdown_block(*metric) : headline_markdown_table())
        << kEndMarker << "\n";
  }
  for (const auto& metric : all_metrics())
    if (!documented.count(metric.name))
      throw InputError(where + ": no generated block for metric '" + metric.name + "' (add '" +
                       std::string(kBeginMarker) + metric.name + " -->' and '" +
                       std::string(kEndMarker) + "' under its heading)");
  return out.str();
}

}  // namespace synthaudit
