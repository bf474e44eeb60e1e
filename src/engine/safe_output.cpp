#include "engine/safe_output.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/text.hpp"
#include "metrics/metric.hpp"
#include "metrics/registry.hpp"
#include "stats/level_counts.hpp"

namespace synthaudit {
namespace {

using json = nlohmann::json;

// Between the threshold-th smallest and the threshold-th largest confidential value: a position
// inside it has at least `threshold` records on either side.
struct SafeRange {
  double low = 0, high = 0;
  bool known = false;
};

double round_significant(double value, int digits) {
  if (!std::isfinite(value) || value == 0.0) return value;
  const double magnitude = std::floor(std::log10(std::abs(value)));
  const double scale = std::pow(10.0, static_cast<double>(digits - 1) - magnitude);
  return std::round(value * scale) / scale;
}

bool looks_numeric(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

class Checker {
 public:
  Checker(const Table& confidential, const Table* holdout, std::size_t threshold)
      : threshold_(threshold) {
    for (std::size_t c = 0; c < confidential.column_count(); ++c) {
      const Column& col = confidential.column(c);
      if (col.is_categorical()) {
        add_rare_levels(col);
        if (holdout) add_rare_levels(holdout->column(c));
      } else {
        ranges_[col.name] = safe_range(col, holdout ? &holdout->column(c) : nullptr);
      }
    }
  }

  void check(json& document) {
    for (auto& metric : document["metrics"]) {
      const MetricSpec* spec = find_metric(metric.value("name", ""));
      if (spec == nullptr) continue;
      classes_.clear();
      for (const auto& statistic : spec->statistics)
        for (const auto& name : expand_statistic_name(statistic.name))
          classes_[name] = statistic.output;
      walk_metric(metric, *spec);
    }
    if (document.contains("columns"))
      for (auto& column : document["columns"])
        if (column.contains("levels") && column["levels"].is_array()) {
          json kept = json::array();
          std::size_t dropped = 0;
          for (const auto& level : column["levels"])
            if (level.is_string() && is_rare(level.get<std::string>()))
              ++dropped;
            else
              kept.push_back(level);
          if (dropped > 0) {
            column["levels"] = kept;
            column["levels_withheld"] = dropped;
            withhold("level list of column " + column.value("name", std::string()),
                     std::to_string(dropped) + " categor" + (dropped == 1 ? "y" : "ies") +
                         " with fewer than " + std::to_string(threshold_) + " records");
          }
        }
    // What a file had read as missing is a count of its records per code: a count below the
    // threshold is withheld like any other small count.
    if (document.contains("treated_as_missing") && document["treated_as_missing"].is_array())
      for (auto& entry : document["treated_as_missing"]) {
        if (!entry.is_object() || !entry.contains("count") || !entry["count"].is_number()) continue;
        const double count = entry["count"].get<double>();
        if (count <= 0 || count >= static_cast<double>(threshold_)) continue;
        const std::string reason = "fewer than " + std::to_string(threshold_) + " records";
        entry["count"] = nullptr;
        entry["output_check"] = "withheld: " + reason;
        withhold("count read as missing in column " + entry.value("column", std::string()), reason);
      }
    scrub_text(document, "the document");
    json withheld = json::array();
    for (const auto& [key, times] : withheld_)
      withheld.push_back({{"what", key.first}, {"reason", key.second}, {"times", times}});
    document["output_check"] = {
        {"threshold", threshold_}, {"rules", rules()}, {"withheld", std::move(withheld)}};
  }

 private:
  std::size_t threshold_;
  std::set<std::string> rare_;
  std::map<std::string, SafeRange> ranges_;
  std::map<std::string, OutputClass> classes_;
  std::map<std::pair<std::string, std::string>, std::size_t> withheld_;

  std::string below() const { return "fewer than " + std::to_string(threshold_) + " records"; }

  std::vector<std::string> rules() const {
    const std::string n = std::to_string(threshold_);
    return {
        "no per-record output (records.tsv, per-record details) is written",
        "a number whose scope names a category with fewer than " + n + " records is withheld",
        "a count of records between 0 and " + n + " (exclusive) is withheld",
        "a share or rate of between 0 and " + n +
            " (exclusive) confidential records is withheld like the count it reveals",
        "a minimum or maximum (one record's value) is withheld; the percentiles stand in for it",
        "a percentile (one record's value inside the data) is rounded to 2 significant digits",
        "plots of individual values (scatter points, quantile-quantile, empirical CDF) lose "
        "their points",
        "plot records that stand for fewer than " + n +
            " records, name such a category, or lie below the " + n + "th smallest or above the " +
            n +
            "th largest confidential value are dropped; axis positions are rounded to 2 "
            "significant digits",
        "details a metric does not declare aggregate (tables of cells, search counts) are "
        "withheld",
        "any other text naming a category with fewer than " + n + " records is withheld"};
  }

  // The log is released too: an item whose description names a rare category is described
  // without it.
  void withhold(const std::string& what, const std::string& reason) {
    ++withheld_[{names_rare(what) ? "an item naming a rare category" : what, reason}];
  }

  void add_rare_levels(const Column& column) {
    const auto counts = stats::level_counts(column);
    for (std::size_t k = 0; k + 1 < counts.size(); ++k)
      if (counts[k] > 0 && counts[k] < threshold_ && !column.dictionary->level(k).empty())
        rare_.insert(column.dictionary->level(k));
  }

  SafeRange safe_range(const Column& column, const Column* also) const {
    std::vector<double> values;
    for (const Column* c : {&column, also}) {
      if (c == nullptr) continue;
      for (double v : c->numeric)
        if (!is_missing(v)) values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    SafeRange range;
    if (values.size() < 2 * threshold_ || threshold_ == 0) return range;
    range.low = values[threshold_ - 1];
    range.high = values[values.size() - threshold_];
    range.known = true;
    return range;
  }

  bool is_rare(const std::string& level) const { return rare_.count(level) > 0; }

  // Whether `text` names a rare category: as a whole word, or, for a level that is a number (a
  // coded column), after '=' (a scope "column=level") or, where `text` is known to be a level
  // (`is_level`), as the whole text; elsewhere a number is not taken for a level.
  bool names_rare(const std::string& text, bool is_level = false) const {
    for (const auto& level : rare_) {
      if (looks_numeric(level)) {
        if (is_level && text == level) return true;
        for (std::size_t at = text.find("=" + level); at != std::string::npos;
             at = text.find("=" + level, at + 1)) {
          const std::size_t end = at + 1 + level.size();
          if (end == text.size() || text[end] == ';' || text[end] == ',' || text[end] == ':')
            return true;
        }
        continue;
      }
      for (std::size_t at = text.find(level); at != std::string::npos;
           at = text.find(level, at + 1)) {
        const std::size_t end = at + level.size();
        const bool starts = at == 0 || !is_word_char(text[at - 1]);
        const bool ends = end == text.size() || !is_word_char(text[end]);
        if (starts && ends) return true;
      }
    }
    return false;
  }

  void walk_metric(json& node, const MetricSpec& spec) {
    if (node.is_array()) {
      for (auto& item : node) walk_metric(item, spec);
      return;
    }
    if (!node.is_object()) return;
    if (node.contains("values") && node["values"].is_array()) check_values(node["values"], spec);
    if (node.contains("details") && node["details"].is_object())
      check_details(node["details"], spec);
    for (auto& [key, value] : node.items())
      if (key != "values" && key != "details") walk_metric(value, spec);
  }

  void check_values(json& values, const MetricSpec& spec) {
    for (auto& entry : values) {
      if (!entry.is_object() || !entry.contains("value") || entry["value"].is_null()) continue;
      const std::string statistic = entry.value("statistic", "");
      const std::string scope = entry.value("scope", "");
      // The log must not name the rare category either.
      const bool rare_scope = names_rare(scope);
      const std::string what = spec.name + " " + statistic + " [" +
                               (rare_scope ? "a scope naming a rare category" : scope) + "]";
      const auto it = classes_.find(statistic);
      const OutputClass output = it == classes_.end() ? OutputClass::kAggregate : it->second;
      const double value = entry["value"].get<double>();
      std::string reason;
      if (rare_scope) {
        reason = "its scope names a category with " + below();
      } else if (output == OutputClass::kExtreme) {
        reason = "a minimum or maximum is one record's value";
      } else if (output == OutputClass::kCount && value != 0.0 &&
                 std::abs(value) < static_cast<double>(threshold_)) {
        reason = "a count of " + below();
      } else if (counts_few_records(entry)) {
        reason = "a share of " + below();
      }
      if (!reason.empty()) {
        entry["value"] = nullptr;
        entry.erase("records");
        entry["output_check"] = "withheld: " + reason;
        withhold(what, reason);
      } else if (output == OutputClass::kQuantile) {
        entry["value"] = round_significant(value, 2);
        entry["output_check"] = "rounded to 2 significant digits";
      }
    }
  }

  // A share or rate that says how many records it counts ("records", MetricValue::records) is
  // that count to an output checker: its denominator (the rows of a file) is released too.
  bool counts_few_records(const json& entry) const {
    if (!entry.contains("records") || !entry["records"].is_number()) return false;
    const double records = entry["records"].get<double>();
    return records != 0.0 && std::abs(records) < static_cast<double>(threshold_);
  }

  void check_details(json& details, const MetricSpec& spec) {
    for (auto it = details.begin(); it != details.end();) {
      const std::string key = it.key();
      if (key == "plots") {
        for (auto& plot : *it) check_plot(plot, spec);
        ++it;
      } else if (std::find(spec.aggregate_details.begin(), spec.aggregate_details.end(), key) !=
                 spec.aggregate_details.end()) {
        ++it;
      } else {
        withhold(spec.name + " details." + key,
                 "not declared aggregate by the metric (may hold cells or record values)");
        it = details.erase(it);
      }
    }
  }

  void check_plot(json& plot, const MetricSpec& spec) {
    if (!plot.is_object() || !plot.contains("data") || !plot["data"].is_array()) return;
    const std::string kind = plot.value("kind", "");
    const std::string what = spec.name + " plot '" + plot.value("title", kind) + "'";
    const bool counted = !plot["data"].empty() && plot["data"].front().is_object() &&
                         plot["data"].front().contains("count");
    if (kind == "qq" || kind == "ecdf" || (kind == "scatter" && !counted)) {
      plot["data"] = json::array();
      plot["output_check"] = "points withheld: each is one record's value";
      withhold(what, "its points are individual records' values");
      return;
    }
    const auto columns = split(plot.value("scope", ""), ':');
    auto range_of = [&](std::size_t i) -> const SafeRange* {
      if (i >= columns.size()) return nullptr;
      const auto found = ranges_.find(columns[i]);
      return found == ranges_.end() ? nullptr : &found->second;
    };
    // Which scope column each axis field is a position on.
    const std::vector<std::pair<const char*, std::size_t>> axes = {
        {"x", 0}, {"bin_start", 0}, {"bin_end", 0}, {"y", 1}};
    json kept = json::array();
    std::size_t dropped = 0;
    for (auto& record : plot["data"]) {
      bool drop = false;
      if (record.contains("count") && record["count"].is_number()) {
        const double count = record["count"].get<double>();
        drop = count > 0 && count < static_cast<double>(threshold_);
      }
      if (record.contains("level") && record["level"].is_string())
        drop = drop || names_rare(record["level"].get<std::string>(), /*is_level=*/true);
      for (const auto& [field, axis] : axes) {
        if (drop || !record.contains(field) || !record[field].is_number()) continue;
        const SafeRange* range = range_of(axis);
        if (range == nullptr) continue;
        const double position = record[field].get<double>();
        if (!range->known || position < range->low || position > range->high) {
          drop = true;
        } else {
          record[field] = round_significant(position, 2);
        }
      }
      if (drop)
        ++dropped;
      else
        kept.push_back(std::move(record));
    }
    plot["data"] = std::move(kept);  // the records were moved out of it, dropped or not
    if (dropped > 0) {
      plot["output_check"] = std::to_string(dropped) + " record(s) withheld: fewer than " +
                             std::to_string(threshold_) +
                             " records, a rare category, or beyond the safe range";
      withhold(what, "plot records of " + below() + ", a rare category or an extreme position");
    }
  }

  // Strings (and member names) anywhere in `node` that name a rare category: array items are
  // dropped, object members replaced by a note.
  void scrub_text(json& node, const std::string& where) {
    const std::string note = "[withheld by output checking: names a category with " + below() + "]";
    if (node.is_array()) {
      json kept = json::array();
      for (auto& item : node) {
        if (item.is_string() && names_rare(item.get<std::string>())) {
          withhold("text in " + where, "names a category with " + below());
          continue;
        }
        scrub_text(item, where);
        kept.push_back(std::move(item));
      }
      node = std::move(kept);
      return;
    }
    if (!node.is_object()) return;
    std::vector<std::string> rare_keys;
    for (auto& [key, value] : node.items()) {
      if (names_rare(key)) {
        rare_keys.push_back(key);
        continue;
      }
      if (value.is_string()) {
        if (names_rare(value.get<std::string>())) {
          value = note;
          withhold(where + " field " + key, "names a category with " + below());
        }
      } else {
        scrub_text(value, where == "the document" ? key : where);
      }
    }
    for (const auto& key : rare_keys) {
      node.erase(key);
      withhold("member of " + where, "its name is a category with " + below());
    }
  }
};

}  // namespace

void apply_output_checking(nlohmann::json& document, const Table& confidential,
                           const Table* holdout, std::size_t threshold) {
  Checker(confidential, holdout, threshold).check(document);
}

std::string output_check_log(const nlohmann::json& document) {
  if (!document.contains("output_check")) return "";
  const auto& check = document["output_check"];
  std::ostringstream out;
  out << "synthaudit output checking (--safe-output), threshold "
      << check.value("threshold", std::size_t{0}) << " records\n"
      << "Rules after Griffiths et al. (2019), Handbook on Statistical Disclosure Control for "
         "Outputs, and Ritchie's principles-based output SDC:\n";
  for (const auto& rule : check.value("rules", json::array()))
    out << "  - " << rule.get<std::string>() << "\n";
  const auto withheld = check.value("withheld", json::array());
  out << "\nWithheld or changed (" << withheld.size() << " item(s)):\n";
  if (withheld.empty()) out << "  nothing\n";
  for (const auto& item : withheld) {
    out << "  " << escape_controls(item.value("what", "")) << ": "
        << escape_controls(item.value("reason", ""));
    const auto times = item.value("times", std::size_t{1});
    if (times > 1) out << " (" << times << " times)";
    out << "\n";
  }
  out << "\nPercentiles and other quantiles kept in results.json are rounded to 2 significant "
         "digits (each is marked \"output_check\" there).\n";
  return out.str();
}

}  // namespace synthaudit
