#include "result/document.hpp"

#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit {

namespace {
constexpr int kMaxResultsDepth = 256;
}  // namespace

nlohmann::json read_results_document(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read");
  nlohmann::json document;
  // Everything evaluate writes nests far less deeply; a deeper file would overflow the stack of
  // the recursive renderers (and of the document's own serialisation).
  const auto limit_depth = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxResultsDepth)
      throw InputError(path + ": nested more than " + std::to_string(kMaxResultsDepth) +
                       " levels deep: not a results document evaluate wrote");
    return true;
  };
  try {
    document = nlohmann::json::parse(in, limit_depth);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not a JSON results document: " + e.what());
  }
  if (!document.is_object() || !document.contains("schema") || !document["schema"].is_string() ||
      document["schema"].get<std::string>() != kResultsSchema)
    throw InputError(path + ": not a synthaudit results document (schema " + kResultsSchema + ")");
  return document;
}

namespace {

std::string tsv_field(const std::string& text) {
  std::string out;
  for (char c : text) out += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

double json_value(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

void append_rows(std::vector<ResultRow>& rows, const std::string& candidate,
                 const std::string& replicate, const std::string& metric,
                 const nlohmann::json& values) {
  for (const auto& v : values)
    rows.push_back({candidate, replicate, metric, v["statistic"].get<std::string>(),
                    v["scope"].get<std::string>(), json_value(v["value"])});
}

}  // namespace

std::vector<ResultRow> result_rows(const nlohmann::json& document) {
  std::vector<ResultRow> rows;
  for (const auto& metric : document["metrics"]) {
    const auto name = metric["name"].get<std::string>();
    for (const auto& cand : metric["candidates"]) {
      const auto cname = cand["name"].get<std::string>();
      for (const auto& rep : cand["replicates"])
        append_rows(rows, cname, std::to_string(rep["replicate"].get<int>()), name, rep["values"]);
      if (cand.contains("mean")) append_rows(rows, cname, "mean", name, cand["mean"]["values"]);
      if (cand.contains("combined"))
        append_rows(rows, cname, "combined", name, cand["combined"]["values"]);
    }
  }
  return rows;
}

std::string results_tsv(const nlohmann::json& document) {
  std::ostringstream out;
  out << "candidate\treplicate\tmetric\tstatistic\tscope\tvalue\n";
  for (const auto& row : result_rows(document))
    out << tsv_field(row.candidate) << '\t' << row.replicate << '\t' << row.metric << '\t'
        << tsv_field(row.statistic) << '\t' << tsv_field(row.scope) << '\t'
        << format_number(row.value) << '\n';
  return out.str();
}

}  // namespace synthaudit
