#include "result/document.hpp"

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/file.hpp"
#include "result/json_fields.hpp"

namespace synthaudit {

nlohmann::json read_results_document(const std::string& path, const ResourceLimits& limits) {
  // Bounded like every input (io/file.hpp): a deeper file would overflow the stack of the
  // recursive renderers (and of the document's own serialisation); evaluate's documents nest far
  // less deeply than the default json_depth.
  const nlohmann::json document = parse_json_bounded(
      read_input_file(path, limits.input_bytes, limits.pipe_wait_seconds), path, limits.json_depth);
  if (!document.is_object() || !document.contains("schema") || !document["schema"].is_string() ||
      document["schema"].get<std::string>() != kResultsSchema)
    throw InputError(path + ": not a synthaudit results document (schema " + kResultsSchema + ")");
  return document;
}

namespace {

// Tabs and line breaks would split the row: escaped, with every other control character.
std::string tsv_field(const std::string& text) { return escape_controls(text); }

double json_value(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// Every member is read through json_fields, so a document of another shape (hand-made, damaged,
// from another version: what `report` may be given) gives fewer rows, never undefined behaviour.
// `group`: the subgroup label the scopes are prefixed with ("" for the whole data).
void append_rows(std::vector<ResultRow>& rows, const std::string& candidate,
                 const std::string& replicate, const std::string& metric,
                 const nlohmann::json& values, const std::string& group = "") {
  if (!values.is_array()) return;
  for (const auto& v : values) {
    const std::string scope = json_fields::text_of(v, "scope");
    rows.push_back({candidate, replicate, metric, json_fields::text_of(v, "statistic"),
                    group.empty() ? scope : subgroup_scope(group, scope),
                    json_value(json_fields::member(v, "value"))});
  }
}

std::string replicate_label(const nlohmann::json& replicate) {
  const nlohmann::json& number = json_fields::member(replicate, "replicate");
  return number.is_number_integer() ? std::to_string(number.get<std::int64_t>()) : number.dump();
}

// One candidate's values: its replicates, their mean, or its combined value.
void append_candidate(std::vector<ResultRow>& rows, const std::string& metric,
                      const nlohmann::json& cand, const std::string& group = "") {
  using json_fields::member;
  const std::string cname = json_fields::text_of(cand, "name");
  const nlohmann::json& replicates = member(cand, "replicates");
  if (replicates.is_array())
    for (const auto& rep : replicates)
      append_rows(rows, cname, replicate_label(rep), metric, member(rep, "values"), group);
  append_rows(rows, cname, "mean", metric, member(member(cand, "mean"), "values"), group);
  append_rows(rows, cname, "combined", metric, member(member(cand, "combined"), "values"), group);
}

void append_subgroups(std::vector<ResultRow>& rows, const std::string& metric,
                      const nlohmann::json& subgroups, const nlohmann::json& candidate_names) {
  using json_fields::member;
  if (!subgroups.is_array()) return;
  const double na = std::numeric_limits<double>::quiet_NaN();
  for (const auto& group : subgroups) {
    const std::string label = json_fields::text_of(group, "label");
    if (member(group, "suppressed").is_string()) {
      if (candidate_names.is_array())
        for (const auto& name : candidate_names)
          if (name.is_string())
            rows.push_back({name.get<std::string>(), "none", metric, "suppressed",
                            subgroup_scope(label, "all"), na});
      continue;
    }
    const nlohmann::json& candidates = member(group, "candidates");
    if (!candidates.is_array()) continue;
    for (const auto& cand : candidates) {
      if (member(cand, "suppressed").is_string())
        rows.push_back({json_fields::text_of(cand, "name"), "none", metric, "suppressed",
                        subgroup_scope(label, "all"), na});
      else
        append_candidate(rows, metric, cand, label);
    }
  }
}

}  // namespace

std::string subgroup_scope(const std::string& label, const std::string& scope) {
  return "by:" + label + ";" + scope;
}

std::vector<ResultRow> result_rows(const nlohmann::json& document) {
  using json_fields::member;
  std::vector<ResultRow> rows;
  const nlohmann::json& metrics = member(document, "metrics");
  if (!metrics.is_array()) return rows;
  for (const auto& metric : metrics) {
    const std::string name = json_fields::text_of(metric, "name");
    const nlohmann::json& candidates = member(metric, "candidates");
    if (!candidates.is_array()) continue;
    // The baselines' entries come after the candidates'; subgroups have candidates only.
    nlohmann::json names = nlohmann::json::array();
    for (const auto& cand : candidates) {
      append_candidate(rows, name, cand);
      if (!member(cand, "baseline").is_boolean())
        names.push_back(json_fields::text_of(cand, "name"));
    }
    append_subgroups(rows, name, member(metric, "subgroups"), names);
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
