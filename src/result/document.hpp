#pragma once
// Serialising the "synthaudit/1" results document: JSON and the tidy results.tsv (the terminal
// summary is src/report/summary.*). Everything here reads only the document, never the data.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/limits.hpp"

namespace synthaudit {

inline constexpr const char* kResultsSchema = "synthaudit/1";

// Reads a results.json written by evaluate (what `report` renders again), within the input
// limits (size, JSON nesting: docs/limits.md). Throws InputError naming the file when it is not
// JSON, is nested too deeply, or is not a "synthaudit/1" document.
nlohmann::json read_results_document(const std::string& path,
                                     const ResourceLimits& limits = ResourceLimits{});

// One row of results.tsv: replicate is "1".."m", "mean" or "combined"; value is NaN where the
// document has null.
struct ResultRow {
  std::string candidate;
  std::string replicate;
  std::string metric;
  std::string statistic;
  std::string scope;
  double value;
};

// The rows of results.tsv, in the file's order (for callers that want the tidy table without
// the text).
std::vector<ResultRow> result_rows(const nlohmann::json& document);

// results.tsv: header `candidate replicate metric statistic scope value`, one row per number;
// replicate is 1..m, `mean` or `combined`; value with 17 significant digits or NA.
// Subgroup values (the `subgroups` of a metric, engine/subgroups.hpp) follow the metric's own,
// their scope prefixed "by:LABEL;" (subgroup_scope); a suppressed subgroup is one row per
// candidate with replicate `none`, statistic `suppressed`, scope "by:LABEL;all" and value NA.

// "by:LABEL;SCOPE", e.g. "by:sex=female,region=north;age": a subgroup value's scope.
std::string subgroup_scope(const std::string& label, const std::string& scope);
std::string results_tsv(const nlohmann::json& document);

}  // namespace synthaudit
