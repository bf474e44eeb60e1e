// The plain-text / Markdown summary (`--format md`) for terminals and CI logs.
#include <cmath>
#include <sstream>

#include "core/text.hpp"
#include "report/report.hpp"

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
  return v.is_number() ? format_short(v.get<double>()) : std::string("NA");
}

std::string rank_text(const json& r) {
  if (!r.is_number()) return "";
  const double v = r.get<double>();
  return v == std::floor(v) ? " (#" + std::to_string(static_cast<long long>(v)) + ")"
                            : " (#" + format_short(v) + ")";
}

std::string str(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string render_markdown(const json& document) {
  const json card = scorecard(document);
  std::ostringstream out;
  out << "# synthaudit report\n\n";
  std::vector<std::string> facts;
  if (document.contains("tool")) facts.push_back("synthaudit " + str(document["tool"], "version"));
  if (document.contains("created")) facts.push_back("created " + str(document, "created"));
  if (document.contains("seed") && document["seed"].is_number())
    facts.push_back("seed " + document["seed"].dump());
  if (document.contains("metrics"))
    facts.push_back(std::to_string(document["metrics"].size()) + " metric(s)");
  if (document.contains("wall_seconds") && document["wall_seconds"].is_number())
    facts.push_back(format_short(document["wall_seconds"].get<double>()) + " s");
  out << join(facts, " · ") << "\n\n";
  std::vector<std::string> candidates;
  if (document.contains("candidates"))
    for (const auto& c : document["candidates"])
      candidates.push_back(str(c, "name") + " (" +
                           (c.contains("replicates") ? c["replicates"].dump() : "?") +
                           " replicate(s))");
  out << "Candidates: " << (candidates.empty() ? "none" : join(candidates, ", ")) << "\n\n";

  out << "## Scorecard\n\n";
  const auto& names = card["candidates"];
  if (card["headlines"].empty()) {
    out << "No metric in these results declares a headline.\n\n";
  } else {
    out << "Value per candidate: the mean over replicates (or the combined value); (#k) is its "
           "rank, "
           "#1 best.\n\n| Metric | Headline | Axis | Ideal |";
    for (const auto& n : names) out << " " << cell(n.get<std::string>()) << " |";
    out << "\n|---|---|---|---|";
    for (std::size_t i = 0; i < names.size(); ++i) out << "---:|";
    out << "\n";
    for (const auto& h : card["headlines"]) {
      std::string headline = str(h, "statistic");
      if (str(h, "scope") != "all") headline += " [" + str(h, "scope") + "]";
      out << "| " << cell(str(h, "metric")) << " | " << cell(headline) << " | " << str(h, "axis")
          << " | " << str(h, "ideal_text") << " |";
      for (std::size_t i = 0; i < names.size(); ++i)
        out << " " << number(h["values"][i]) << rank_text(h["ranks"][i]) << " |";
      out << "\n";
    }
    out << "\nHow to read them:\n\n";
    for (const auto& h : card["headlines"])
      out << "- " << str(h, "metric") << " / " << str(h, "statistic") << ": " << str(h, "reading")
          << " (" << str(h, "ideal_text") << ")\n";
    out << "\n## Ranking\n\nMean rank over the utility and, separately, the risk headlines "
           "(1 = best on every one); in the verdict's order.\n\n"
        << "| Place | Candidate | Utility rank | Risk rank | Utility headlines | Risk headlines |\n"
        << "|---:|---|---:|---:|---:|---:|\n";
    std::size_t place = 1;
    for (const auto& r : card["ranking"])
      out << "| " << place++ << " | " << cell(str(r, "candidate")) << " | "
          << number(r["utility_rank"]) << " | " << number(r["risk_rank"]) << " | "
          << r["ranked_utility"].dump() << " | " << r["ranked_risk"].dump() << " |\n";
    out << "\n";
  }

  out << "## Metrics\n\n";
  if (document.contains("metrics"))
    for (const auto& m : document["metrics"]) {
      out << "- **" << str(m, "name") << "** (" << str(m, "family") << "): " << str(m, "summary");
      if (m.contains("skipped")) out << " — skipped: " << str(m, "skipped");
      std::size_t warnings = 0;
      if (m.contains("candidates"))
        for (const auto& c : m["candidates"]) {
          if (c.contains("replicates"))
            for (const auto& r : c["replicates"])
              warnings += r.value("warnings", json::array()).size();
          if (c.contains("combined"))
            warnings += c["combined"].value("warnings", json::array()).size();
        }
      if (warnings > 0) out << " — " << warnings << " warning(s)";
      out << "\n";
    }
  if (document.contains("warnings") && !document["warnings"].empty()) {
    out << "\n## Warnings\n\n";
    for (const auto& w : document["warnings"])
      out << "- " << (w.is_string() ? w.get<std::string>() : w.dump()) << "\n";
  }
  return out.str();
}

}  // namespace synthaudit
