#include "remediate/sdc_remediation.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stats/column_lookup.hpp"
#include "stats/quantile.hpp"

namespace synthaudit {

namespace {

// RFC 4180: quoted when the field holds the delimiter, a quote or a line break.
void append_field(std::string& out, std::string_view field, char delimiter) {
  if (field.find_first_of(std::string{delimiter} + "\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::size_t column_of(const Table& table, const std::string& name, const std::string& flag,
                      ColumnKind kind) {
  const std::size_t c = stats::resolve_column(table, name, flag);
  if (table.column(c).kind != kind)
    throw InputError(flag + ": column '" + name + "' is " +
                     (kind == ColumnKind::kNumeric ? "not numeric" : "numeric, not categorical"));
  return c;
}

// A record's key values as bytes: numeric values, or categorical codes as doubles (exact below
// 2^53); NaN (missing) equals NaN, as synthpop pastes NA as text.
std::string signature(const std::vector<std::vector<double>>& keys, std::size_t row) {
  std::string s;
  for (const auto& values : keys) {
    double v = values[row];
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
    if (v == 0) v = 0;  // -0 equals 0
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    s.append(bytes, sizeof v);
  }
  return s;
}

}  // namespace

Remediation remediate(const RemediationOptions& options) {
  const CsvFile conf_file = CsvFile::open(options.confidential, options.read.csv);
  const CsvFile syn_file = CsvFile::open(options.synthetic, options.read.csv);
  InferredTable read = infer_and_encode(conf_file, options.read, "confidential");
  Schema schema = std::move(read.schema);
  Table conf = std::move(read.table);
  std::vector<std::string> reading_warnings = decimal_comma_warnings(schema, conf_file);
  Table syn = encode_table(syn_file, schema, options.read, "synthetic");
  finalize_dictionaries(schema, {&conf, &syn});

  // The synthetic file's fields as read: what is written back, changed where a rule says.
  const auto& header = syn_file.header();
  std::vector<std::vector<std::string>> fields(syn_file.rows());
  syn_file.visit_rows([&](int, std::size_t row, const std::vector<std::string_view>& f) {
    fields[row].assign(f.begin(), f.end());
  });
  auto field_index = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  Remediation out;
  out.rows_in = syn.rows();
  std::string& log = out.log;
  log += "synthaudit sdc: remediation of " + options.synthetic + " (" + std::to_string(syn.rows()) +
         " records) against " + options.confidential + " (" + std::to_string(conf.rows()) +
         " records)\n";
  for (const CsvFile* file : {&conf_file, &syn_file})
    if (!file->assumed_layout().empty())
      log += "warning: " + file->path() + ": " + file->assumed_layout() + "\n";
  for (const auto& warning : reading_warnings) log += "warning: " + warning + "\n";

  // Working values of the synthetic keys: numeric values, or categorical codes as doubles
  // (exact below 2^53), changed by the codings before the uniques are compared.
  std::vector<std::vector<double>> working(syn.column_count());
  for (std::size_t c = 0; c < syn.column_count(); ++c) {
    const Column& column = syn.column(c);
    if (column.is_numeric()) {
      working[c] = column.numeric;
    } else {
      working[c].assign(column.codes.begin(), column.codes.end());
    }
  }

  // 1. Top and bottom coding.
  for (const bool top : {true, false}) {
    const auto& codings = top ? options.top_code : options.bottom_code;
    const std::string flag = top ? "--top-code" : "--bottom-code";
    for (const auto& coding : codings) {
      const std::string where = flag + " " + coding.column;
      const std::size_t c = column_of(conf, coding.column, where, ColumnKind::kNumeric);
      if (!(coding.probability >= 0 && coding.probability <= 1))
        throw InputError(where + ": quantile " + format_number(coding.probability) +
                         " is not in [0, 1]");
      std::vector<double> values;
      for (const double v : conf.column(c).numeric)
        if (!std::isnan(v)) values.push_back(v);
      if (values.empty())
        throw InputError(where + ": the confidential column has no value (all missing)");
      std::sort(values.begin(), values.end());
      const double threshold = stats::quantile_type7(values, coding.probability);
      const std::size_t f = field_index(coding.column);
      // In the file's decimal mark, as its other values are written.
      std::string threshold_field = format_number(threshold);
      if (syn_file.decimal_mark() == ',')
        std::replace(threshold_field.begin(), threshold_field.end(), '.', ',');
      std::size_t changed = 0;
      for (std::size_t r = 0; r < syn.rows(); ++r) {
        const double v = working[c][r];
        if (std::isnan(v) || (top ? v <= threshold : v >= threshold)) continue;
        working[c][r] = threshold;
        fields[r][f] = threshold_field;
        ++changed;
      }
      log += (top ? "top-code " : "bottom-code ") + coding.column + " at the " +
             format_number(coding.probability) + " quantile of the confidential data (" +
             format_number(threshold) + "): " + std::to_string(changed) + " values " +
             (top ? "above" : "below") + " it set to it\n";
    }
  }

  // 2. Rare categories.
  for (const auto& recoding : options.recode_rare) {
    const std::string where = "--recode-rare " + recoding.column;
    const std::size_t c = column_of(conf, recoding.column, where, ColumnKind::kCategorical);
    if (recoding.level.empty()) throw InputError(where + ": the new level is empty");
    const Column& conf_column = conf.column(c);
    std::vector<std::size_t> counts(conf_column.cardinality(), 0);
    for (const auto code : conf_column.codes)
      if (!is_missing(code)) ++counts[code];
    // The new level's code when the data know it; else a code no level has.
    const auto known = conf_column.dictionary->find(recoding.level);
    const double new_code =
        known ? *known : static_cast<double>(kMissingCode) + 1 + static_cast<double>(c);
    const std::size_t f = field_index(recoding.column);
    std::size_t changed = 0;
    std::vector<char> level_recoded(counts.size(), 0);
    for (std::size_t r = 0; r < syn.rows(); ++r) {
      const auto code = syn.column(c).codes[r];
      if (is_missing(code) || counts[code] >= recoding.min_count) continue;
      if (known && code == *known) continue;
      level_recoded[code] = 1;
      working[c][r] = new_code;
      fields[r][f] = recoding.level;
      ++changed;
    }
    std::vector<std::string> levels;
    for (std::size_t l = 0; l < level_recoded.size(); ++l)
      if (level_recoded[l])
        levels.push_back(conf_column.dictionary->level(static_cast<std::uint32_t>(l)));
    log += "recode-rare " + recoding.column + ": levels held by fewer than " +
           std::to_string(recoding.min_count) + " confidential records into \"" +
           escape_controls(recoding.level) + "\": " + std::to_string(changed) + " values of " +
           std::to_string(levels.size()) + " levels" +
           (levels.empty() ? "" : " (" + escape_controls(join(levels, ", ")) + ")") + "\n";
  }

  // 3. Replicated uniques.
  std::vector<char> keep(syn.rows(), 1);
  if (options.remove_replicated_uniques) {
    if (options.keys.empty())
      throw InputError("--remove-replicated-uniques: no keys given (--keys a,b,c)");
    const auto key_columns = stats::resolve_columns(conf, options.keys, "--keys");
    std::vector<std::vector<double>> conf_values, syn_values;
    for (const auto c : key_columns) {
      const Column& column = conf.column(c);
      if (column.is_numeric())
        conf_values.push_back(column.numeric);
      else
        conf_values.emplace_back(column.codes.begin(), column.codes.end());
      syn_values.push_back(working[c]);
    }
    std::unordered_map<std::string, std::size_t> conf_counts, syn_counts;
    std::vector<std::string> syn_signatures(syn.rows());
    for (std::size_t r = 0; r < conf.rows(); ++r) ++conf_counts[signature(conf_values, r)];
    for (std::size_t r = 0; r < syn.rows(); ++r)
      ++syn_counts[syn_signatures[r] = signature(syn_values, r)];
    std::size_t removed = 0;
    for (std::size_t r = 0; r < syn.rows(); ++r) {
      if (syn_counts[syn_signatures[r]] != 1) continue;
      const auto it = conf_counts.find(syn_signatures[r]);
      if (it == conf_counts.end() || it->second != 1) continue;
      keep[r] = 0;
      ++removed;
    }
    log += "remove-replicated-uniques on " + join(options.keys, ",") + ": " +
           std::to_string(removed) +
           " synthetic records unique on the keys whose key values are unique in the "
           "confidential data, removed\n";
  }

  // 4. Label.
  if (options.label_column) {
    if (std::find(header.begin(), header.end(), *options.label_column) != header.end())
      throw InputError("--label-synthetic: the synthetic data already have a column '" +
                       *options.label_column + "'");
    if (options.label_column->empty()) throw InputError("--label-synthetic: empty column name");
    log += "label-synthetic: first column \"" + escape_controls(*options.label_column) + "\" = \"" +
           escape_controls(options.label) + "\" in every record\n";
  }

  // Written back in the synthetic file's own layout (its delimiter as given or detected).
  const char delimiter = syn_file.delimiter();
  std::string& csv = out.csv;
  auto write_row = [&](const std::vector<std::string>& row, const std::string* label) {
    bool first = true;
    if (label) {
      append_field(csv, *label, delimiter);
      first = false;
    }
    for (const auto& field : row) {
      if (!first) csv += delimiter;
      append_field(csv, field, delimiter);
      first = false;
    }
    csv += '\n';
  };
  const std::string* label_header = options.label_column ? &*options.label_column : nullptr;
  write_row(header, label_header);
  for (std::size_t r = 0; r < syn.rows(); ++r) {
    if (!keep[r]) continue;
    write_row(fields[r], options.label_column ? &options.label : nullptr);
    ++out.rows_out;
  }
  log += "records written: " + std::to_string(out.rows_out) + " of " + std::to_string(out.rows_in) +
         "\n";
  return out;
}

}  // namespace synthaudit
