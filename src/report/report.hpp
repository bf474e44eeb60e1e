#pragma once
// The report layer: everything here reads only the "synthaudit/1" results document (never the
// data, never the registry) and names no metric. The HTML report is one self-contained file:
// the (summarised) document and the scorecard are embedded as JSON, and vega, vega-lite,
// vega-embed and the report's own script are inlined, so it opens offline.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace synthaudit {

struct ReportLimits {
  std::size_t max_plot_records = 5000;         // per plot; larger plots are thinned evenly
  std::size_t max_table_rows = 5000;           // per values list / details array
  std::size_t max_embedded_bytes = 8'000'000;  // budget for the embedded JSON
};

// The headlines of every metric for every candidate, ranked. Shape:
//   {"candidates": [names] (never the baselines),
//    "headlines": [{"metric", "family", "statistic", "scope", "ideal", "ideal_text", "reading",
//                   "axis", "unit" ("number"|"share"|"percent"),
//                   "source": ["mean"|"combined"|"replicate"|null per candidate],
//                   "values": [value|null per candidate],
//                   "replicates": [[value|null per replicate] per candidate],
//                   "ranks": [rank|null per candidate],
//                   "baseline": {"name": "holdout"|"resample"|"analytic", "value", "sd", "note"}
//                               or null}],
//    "ranking": [{"candidate", "utility_rank", "risk_rank", "ranked_utility", "ranked_risk"}]}
// A headline value is the candidate's mean over replicates, its combined value, or the value of
// its only replicate. Rank 1 is the candidate closest to the ideal; ties share the mean rank.
// Utility and risk ranks are means over their own headlines and are never averaged together;
// the ranking is ordered by the verdict (recommended, pass, review, fail), then utility rank.
nlohmann::json scorecard(const nlohmann::json& document);

// A copy of the document that fits a browser: long plot data thinned, long tables cut, and,
// when still over budget, the details of replicates after the first dropped. Every cut is
// recorded in a "report_notes" list next to it, so the report can say what it does not show.
nlohmann::json summarise_for_report(const nlohmann::json& document,
                                    const ReportLimits& limits = {});

// One self-contained offline HTML file.
std::string render_html(const nlohmann::json& document);

// A plain-text / Markdown summary: scorecard, ranking, skipped metrics and warnings.
std::string render_markdown(const nlohmann::json& document);

// What `synthaudit report` makes of a saved results document read from `source`: "html" (the
// report), "md" (the Markdown summary), "text" (the terminal summary; the other files are named
// beside `source`) or "tsv" (results.tsv). A document whose structure is not what evaluate
// writes (a wrong type, a missing member) is bad input: InputError naming `source`.
std::string render_saved_report(const nlohmann::json& document, const std::string& format,
                                const std::string& source);

}  // namespace synthaudit
