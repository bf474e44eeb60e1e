#include "result/document.hpp"

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "result/json_fields.hpp"

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

// Every member is read through json_fields, so a document of another shape (hand-made, damaged,
// from another version: what `report` may be given) gives fewer rows, never undefined behaviour.
void append_rows(std::vector<ResultRow>& rows, const std::string& candidate,
                 const std::string& replicate, const std::string& metric,
                 const nlohmann::json& values) {
  if (!values.is_array()) return;
  for (const auto& v : values)
    rows.push_back({candidate, replicate, metric, json_fields::text_of(v, "statistic"),
                    json_fields::text_of(v, "scope"), json_value(json_fields::member(v, "value"))});
}

std::string replicate_label(const nlohmann::json& replicate) {
  const nlohmann::json& number = json_fields::member(replicate, "replicate");
  return number.is_number_integer() ? std::to_string(number.get<std::int64_t>()) : number.dump();
}

}  // namespace

std::vector<ResultRow> result_rows(const nlohmann::json& document) {
  using json_fields::member;
  std::vector<ResultRow> rows;
  const nlohmann::json& metrics = member(document, "metrics");
  if (!metrics.is_array()) return rows;
  for (const auto& metric : metrics) {
    const std::string name = json_fields::text_of(metric, "name");
    const nlohmann::json& candidates = member(metric, "candidates");
    if (!candidates.is_array()) continue;
    for (const auto& cand : candidates) {
      const std::string cname = json_fields::text_of(cand, "name");
      const nlohmann::json& replicates = member(cand, "replicates");
      if (replicates.is_array())
        for (const auto& rep : replicates)
          append_rows(rows, cname, replicate_label(rep), name, member(rep, "values"));
      append_rows(rows, cname, "mean", name, member(member(cand, "mean"), "values"));
      append_rows(rows, cname, "combined", name, member(member(cand, "combined"), "values"));
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
