#include "result/document.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit {

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path + ": cannot write (is the output folder writable?)");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw InputError(path + ": write failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw InputError(path + ": cannot rename into place: " + ec.message());
  }
}

namespace {

// Tabs and line breaks would split the row: escaped, with every other control character.
std::string tsv_field(const std::string& text) { return escape_controls(text); }

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
