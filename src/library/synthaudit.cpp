#include "synthaudit/synthaudit.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <type_traits>

#include "core/limits.hpp"
#include "core/text.hpp"
#include "engine/safe_output.hpp"
#include "io/csv.hpp"
#include "metrics/registry.hpp"

namespace synthaudit {

namespace {

std::string replicate_label(const std::string& candidate, std::size_t replicate) {
  return "synthetic '" + candidate + "' replicate " + std::to_string(replicate + 1);
}

ColumnKind kind_of(const InputColumn& column) {
  return std::holds_alternative<std::vector<double>>(column.values) ? ColumnKind::kNumeric
                                                                    : ColumnKind::kCategorical;
}

std::size_t length_of(const InputColumn& column) {
  return std::visit(
      [](const auto& values) {
        if constexpr (std::is_same_v<std::decay_t<decltype(values)>, CodedLevels>)
          return values.codes.size();
        else
          return values.size();
      },
      column.values);
}

// Text becomes levels, column names and JSON strings: the same UTF-8 rule as for files.
void check_utf8(std::string_view text, const std::string& where) {
  if (!valid_utf8(text)) throw InputError(where + ": the text is not valid UTF-8");
}

// A level: valid UTF-8 and no longer than a field of a file may be (limit field_bytes).
void check_level(std::string_view text, const std::string& where, std::uint64_t max_bytes) {
  if (text.size() > max_bytes)
    throw InputError(where + ": a value is longer than " + format_bytes(max_bytes) +
                     " (limit field_bytes; raise it with the limits option, field_bytes=SIZE)");
  check_utf8(text, where);
}

// The columns of `table`, checked: at least one row, names valid UTF-8, none empty or used twice,
// all columns of one length.
void check_columns(const InputTable& table, const std::string& label) {
  if (table.empty()) throw InputError(label + ": the table has no columns");
  if (length_of(table.front()) == 0) throw InputError(label + ": the table has no rows");
  std::set<std::string_view> names;
  for (const auto& column : table) {
    check_utf8(column.name, label + ": a column name");
    if (column.name.empty()) throw InputError(label + ": a column has an empty name");
    if (!names.insert(column.name).second)
      throw InputError(label + ": column '" + column.name + "' appears twice");
    if (length_of(column) != length_of(table.front()))
      throw InputError(label + ": column '" + column.name + "' has " +
                       std::to_string(length_of(column)) + " values, column '" +
                       table.front().name + "' has " + std::to_string(length_of(table.front())));
  }
}

Schema schema_of(const InputTable& confidential, const ReadSettings& read,
                 const std::string& origin) {
  Schema schema;
  std::vector<std::string> names;
  for (const auto& column : confidential) {
    Schema::Entry entry{column.name, kind_of(column), false, {}, nullptr};
    if (entry.kind == ColumnKind::kCategorical) entry.dictionary = std::make_shared<Dictionary>();
    schema.columns.push_back(std::move(entry));
    names.push_back(column.name);
  }
  auto entry_of = [&](const std::string& name) -> Schema::Entry& {
    auto entry = std::find_if(schema.columns.begin(), schema.columns.end(),
                              [&](const auto& e) { return e.name == name; });
    if (entry == schema.columns.end())
      throw InputError(origin + ": missing_codes." + name + ": confidential has no column '" +
                       name + "'" + column_hint(name, names));
    return *entry;
  };
  for (const auto& [name, codes] : read.missing_codes) {
    if (codes.size() > 255)
      throw InputError(origin + ": missing_codes." + name + ": at most 255 codes per column");
    entry_of(name).missing_codes = codes;
  }
  for (const auto& [name, codes] : read.missing_text_codes)
    entry_of(name).missing_text_codes = codes;
  return schema;
}

// Whether a categorical value's text means missing: a missing-value spelling, one of the
// column's text codes, or text that reads whole as one of its numeric codes (as in a file).
class MissingText {
 public:
  MissingText(const Schema::Entry& entry, const std::vector<std::string>& spellings)
      : entry_(entry), spellings_(spellings) {}
  bool operator()(const std::string& text) const {
    auto listed = [&](const std::vector<std::string>& list) {
      return std::find(list.begin(), list.end(), text) != list.end();
    };
    if (listed(spellings_) || listed(entry_.missing_text_codes)) return true;
    if (entry_.missing_codes.empty() || text.empty()) return false;
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && ptr == text.data() + text.size() &&
           std::find(entry_.missing_codes.begin(), entry_.missing_codes.end(), value) !=
               entry_.missing_codes.end();
  }

 private:
  const Schema::Entry& entry_;
  const std::vector<std::string>& spellings_;
};

Column encode_numeric(std::vector<double>&& values, const Schema::Entry& entry,
                      const std::string& label) {
  Column column{entry.name, ColumnKind::kNumeric};
  column.numeric = std::move(values);
  if (!entry.missing_codes.empty()) {
    column.missing_codes = entry.missing_codes;
    column.missing_code_index.assign(column.numeric.size(), 0);
  }
  for (std::size_t row = 0; row < column.numeric.size(); ++row) {
    double& value = column.numeric[row];
    if (std::isinf(value))
      throw InputError(label + ": row " + std::to_string(row + 1) + ", column '" + entry.name +
                       "': the value is infinite (missing values are NaN)");
    const auto& codes = entry.missing_codes;
    if (auto it = std::find(codes.begin(), codes.end(), value); it != codes.end()) {
      column.missing_code_index[row] = static_cast<std::uint8_t>(it - codes.begin() + 1);
      value = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return column;
}

Column encode_text(const std::vector<std::optional<std::string>>& values,
                   const Schema::Entry& entry, const MissingText& missing, const std::string& label,
                   std::uint64_t max_level_bytes) {
  Column column{entry.name, ColumnKind::kCategorical};
  column.dictionary = entry.dictionary;
  column.codes.assign(values.size(), kMissingCode);
  for (std::size_t row = 0; row < values.size(); ++row) {
    if (!values[row] || missing(*values[row])) continue;
    const std::size_t known = entry.dictionary->size();
    column.codes[row] = entry.dictionary->intern(*values[row]);
    if (entry.dictionary->size() > known)
      check_level(*values[row],
                  label + ": row " + std::to_string(row + 1) + ", column '" + entry.name + "'",
                  max_level_bytes);
  }
  return column;
}

Column encode_coded(const CodedLevels& values, const Schema::Entry& entry,
                    const MissingText& missing, const std::string& label,
                    std::uint64_t max_level_bytes) {
  Column column{entry.name, ColumnKind::kCategorical};
  column.dictionary = entry.dictionary;
  column.codes.assign(values.codes.size(), kMissingCode);
  // Only levels that occur are interned: unused levels (a pandas category or R factor level
  // with no rows) must not change tables or counts against reading the same data from a file.
  // A level spelt as missing stays kMissingCode.
  std::vector<std::uint32_t> shared(values.levels.size(), kMissingCode);
  std::vector<bool> decided(values.levels.size(), false);
  for (std::size_t row = 0; row < values.codes.size(); ++row) {
    const std::int32_t code = values.codes[row];
    if (code < 0) continue;
    const auto level = static_cast<std::size_t>(code);
    if (level >= values.levels.size())
      throw InputError(label + ": row " + std::to_string(row + 1) + ", column '" + entry.name +
                       "': code " + std::to_string(code) + " is not a level (there are " +
                       std::to_string(values.levels.size()) + " levels)");
    if (!decided[level]) {
      decided[level] = true;
      if (!missing(values.levels[level])) {
        check_level(values.levels[level],
                    label + ": column '" + entry.name + "', level " + std::to_string(level),
                    max_level_bytes);
        shared[level] = entry.dictionary->intern(values.levels[level]);
      }
    }
    column.codes[row] = shared[level];
  }
  return column;
}

// The table in the schema's column order, its levels interned into the schema's dictionaries.
Table encode(InputTable&& table, const Schema& schema, const ReadSettings& read,
             std::uint64_t max_level_bytes, const std::string& label, const std::string& role,
             std::vector<std::string>& warnings) {
  check_columns(table, label);
  std::vector<std::string> names;
  for (const auto& column : table) names.push_back(column.name);
  std::vector<Column> columns;
  for (const auto& entry : schema.columns) {
    auto it = std::find_if(table.begin(), table.end(),
                           [&](const auto& c) { return c.name == entry.name; });
    if (it == table.end())
      throw InputError(label + ": column '" + entry.name + "' of the confidential data is missing" +
                       did_you_mean(entry.name, names));
    if (kind_of(*it) != entry.kind)
      throw InputError(label + ": column '" + entry.name + "' is " + to_string(kind_of(*it)) +
                       " here but " + to_string(entry.kind) + " in the confidential data");
    if (auto* numbers = std::get_if<std::vector<double>>(&it->values))
      columns.push_back(encode_numeric(std::move(*numbers), entry, label));
    else if (auto* text = std::get_if<std::vector<std::optional<std::string>>>(&it->values))
      columns.push_back(encode_text(*text, entry, MissingText(entry, read.missing_values), label,
                                    max_level_bytes));
    else
      columns.push_back(encode_coded(std::get<CodedLevels>(it->values), entry,
                                     MissingText(entry, read.missing_values), label,
                                     max_level_bytes));
  }
  std::vector<std::string> ignored;
  for (const auto& name : names)
    if (std::none_of(schema.columns.begin(), schema.columns.end(),
                     [&](const auto& e) { return e.name == name; }))
      ignored.push_back(name);
  if (!ignored.empty())
    warnings.push_back(
        label + ": columns not in the confidential data are ignored: " + join(ignored, ", "));
  return Table(TableSource{label, "", role}, std::move(columns));
}

}  // namespace

InputColumn InputColumn::numeric(std::string name, std::vector<double> values) {
  return {std::move(name), std::move(values)};
}

InputColumn InputColumn::categorical(std::string name,
                                     std::vector<std::optional<std::string>> values) {
  return {std::move(name), std::move(values)};
}

InputColumn InputColumn::categorical(std::string name, std::vector<std::int32_t> codes,
                                     std::vector<std::string> levels) {
  return {std::move(name), CodedLevels{std::move(codes), std::move(levels)}};
}

EvaluationSpec make_spec(const Evaluation& evaluation) {
  EvaluationSpec spec =
      spec_from_options(evaluation.options, {OptionSource::Kind::kBinding, evaluation.origin, ""});
  // Related tables come as folders of files; dropping the declaration would change what is
  // measured without saying so.
  if (!spec.tables.empty())
    throw InputError(evaluation.origin +
                     ": tables: related tables are read from folders of files (synthaudit "
                     "evaluate --tables); here each dataset is one table: join the tables into "
                     "one record per person and declare household instead");
  // The tables are in memory: a spec file's file names are not read.
  spec.confidential = "confidential";
  spec.holdout.reset();
  if (evaluation.holdout) spec.holdout = "holdout";
  spec.candidates.clear();
  for (const auto& candidate : evaluation.candidates) {
    CandidateSpec named{candidate.name, {}};
    for (std::size_t r = 0; r < candidate.replicates.size(); ++r)
      named.replicates.push_back(replicate_label(candidate.name, r));
    spec.candidates.push_back(std::move(named));
  }
  validate_spec(spec);
  // More threads than cores would only cost memory and, far above, crash OpenMP.
  (void)cap_threads(spec);
  return spec;
}

EvaluationData make_evaluation_data(Evaluation&& evaluation, const EvaluationSpec& spec) {
  EvaluationData data;
  check_columns(evaluation.confidential, "confidential");
  data.schema = schema_of(evaluation.confidential, spec.read, spec.origin);
  const std::uint64_t max_level_bytes = spec.context.limits.field_bytes;
  data.confidential = encode(std::move(evaluation.confidential), data.schema, spec.read,
                             max_level_bytes, "confidential", "confidential", data.warnings);
  for (auto& candidate : evaluation.candidates) {
    EvaluationData::Candidate encoded{candidate.name, {}};
    for (std::size_t r = 0; r < candidate.replicates.size(); ++r)
      encoded.replicates.push_back(
          encode(std::move(candidate.replicates[r]), data.schema, spec.read, max_level_bytes,
                 replicate_label(candidate.name, r), "synthetic", data.warnings));
    data.candidates.push_back(std::move(encoded));
  }
  if (evaluation.holdout)
    data.holdout = encode(std::move(*evaluation.holdout), data.schema, spec.read, max_level_bytes,
                          "holdout", "holdout", data.warnings);
  finish_evaluation_data(data, spec.context.synthesis, {}, true, spec.context.household);
  return data;
}

nlohmann::json evaluate(Evaluation evaluation, const ProgressFn& progress) {
  const EvaluationSpec spec = make_spec(evaluation);
  const EvaluationData data = make_evaluation_data(std::move(evaluation), spec);
  return audit(spec, data, progress);
}

nlohmann::json audit(const EvaluationSpec& spec, const EvaluationData& data,
                     const ProgressFn& progress, const EvaluationSinks& sinks) {
  nlohmann::json document = evaluate(spec, data, progress, sinks);
  // Errors about the policy name where it came from: its file, or the spec that holds it.
  const bool inline_policy = spec.policy.source == "spec" || spec.policy.source == "default";
  add_verdict(document, spec.policy, inline_policy ? spec.origin : spec.policy.source);
  // Last, so that the verdict's reasons and every warning pass the checks too.
  if (spec.safe_output)
    apply_output_checking(document, data.confidential, data.holdout ? &*data.holdout : nullptr,
                          spec.safe_output_threshold);
  return document;
}

const std::vector<MetricSpec>& list_metrics() { return all_metrics(); }

namespace {

std::string lowercase(std::string text) {
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return text;
}

// The initials of a metric's name, with and without its short words:
// distance_to_closest_record gives "dtcr" and "dcr", correct_attribution_probability "cap".
std::vector<std::string> acronyms(const std::string& name) {
  static const std::vector<std::string> kShortWords = {"to", "of", "the", "and", "for", "in", "on"};
  std::string all, content;
  for (const auto& word : split(name, '_')) {
    if (word.empty()) continue;
    all += word[0];
    if (std::find(kShortWords.begin(), kShortWords.end(), word) == kShortWords.end())
      content += word[0];
  }
  std::vector<std::string> out;
  for (const auto& a : {all, content})
    if (a.size() >= 2 && std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  return out;
}

// A declared statistic's names: "{repU_max|DiSCO_max}" and "share_{a|b}" name each alternative.
std::vector<std::string> statistic_names(const std::string& pattern) {
  const auto open = pattern.find('{');
  const auto close = pattern.find('}', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return {pattern};
  std::vector<std::string> out;
  for (const auto& choice : split(pattern.substr(open + 1, close - open - 1), '|'))
    out.push_back(pattern.substr(0, open) + choice + pattern.substr(close + 1));
  return out;
}

}  // namespace

const MetricSpec& describe(const std::string& name) {
  if (const MetricSpec* metric = find_metric(name)) return *metric;
  // What users call a metric: its acronym (cap, dcr), a statistic it reports (DiSCO, repU), or
  // the first word of one (tcap), or a word of its name (identity). Each way is tried in turn; the
  // first that finds metrics wins.
  const std::string given = lowercase(trim(name));
  const std::vector<std::function<bool(const MetricSpec&)>> ways = {
      [&](const MetricSpec& m) {
        const auto a = acronyms(m.name);
        return std::find(a.begin(), a.end(), given) != a.end();
      },
      [&](const MetricSpec& m) {
        for (const auto& statistic : m.statistics)
          for (const auto& s : statistic_names(statistic.name))
            if (lowercase(s) == given) return true;
        return false;
      },
      [&](const MetricSpec& m) {
        for (const auto& statistic : m.statistics)
          for (const auto& s : statistic_names(statistic.name))
            if (lowercase(s.substr(0, s.find('_'))) == given) return true;
        return false;
      },
      [&](const MetricSpec& m) {
        const auto words = split(m.name, '_');
        return std::find(words.begin(), words.end(), given) != words.end();
      }};
  if (!given.empty()) {
    for (const auto& matches : ways) {
      std::vector<const MetricSpec*> found;
      for (const auto& m : all_metrics())
        if (matches(m)) found.push_back(&m);
      if (found.size() == 1) return *found.front();
      if (found.size() > 1) {
        std::vector<std::string> names;
        for (const MetricSpec* m : found) names.push_back(m->name);
        throw InputError("describe: '" + name + "' could be any of " + join(names, ", ") +
                         "; give one of these names");
      }
    }
  }
  std::vector<std::string> names;
  for (const auto& m : all_metrics()) names.push_back(m.name);
  const std::string hint = did_you_mean(name, names);
  throw InputError("describe: no metric named '" + name + "'" +
                   (hint.empty() ? "; `synthaudit list-metrics` lists them all" : hint));
}

}  // namespace synthaudit
