#include "io/load.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit {

namespace {

bool is_missing_spelling(std::string_view field, const std::vector<std::string>& spellings) {
  for (const auto& s : spellings)
    if (field == s) return true;
  return false;
}

// Parses a whole field as a double; surrounding spaces are allowed.
bool parse_number(std::string_view field, double& value) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec == std::errc::result_out_of_range) return ptr == end;  // keep ±inf/denormal as parsed
  return ec == std::errc() && ptr == end && std::isfinite(value);
}

void check_setting_columns(const CsvFile& file, const ReadSettings& settings) {
  const auto& header = file.header();
  auto check = [&](const std::string& name, const char* what) {
    if (std::find(header.begin(), header.end(), name) == header.end())
      throw InputError(std::string(what) + " names column '" + name + "', which " + file.path() +
                       " does not have" + did_you_mean(name, header));
  };
  for (const auto& [name, kind] : settings.kinds) check(name, "the column types");
  for (const auto& [name, codes] : settings.missing_codes) check(name, "missing_codes");
}

}  // namespace

Schema infer_schema(const CsvFile& file, const ReadSettings& settings) {
  check_setting_columns(file, settings);
  const std::size_t ncol = file.columns();
  // numeric_ok[t][c]: thread t saw only numbers or missing values in column c.
  std::vector<std::vector<char>> numeric_ok(static_cast<std::size_t>(file.threads()),
                                            std::vector<char>(ncol, 1));
  file.visit_rows([&](int t, std::size_t, const std::vector<std::string_view>& fields) {
    auto& ok = numeric_ok[static_cast<std::size_t>(t)];
    double value;
    for (std::size_t c = 0; c < ncol; ++c) {
      if (!ok[c]) continue;
      if (is_missing_spelling(fields[c], settings.missing_values)) continue;
      if (!parse_number(fields[c], value)) ok[c] = 0;
    }
  });
  Schema schema;
  for (std::size_t c = 0; c < ncol; ++c) {
    Schema::Entry entry;
    entry.name = file.header()[c];
    if (auto it = settings.kinds.find(entry.name); it != settings.kinds.end()) {
      entry.kind = it->second;
      entry.inferred = false;
    } else {
      bool all_numeric = true;
      for (const auto& ok : numeric_ok) all_numeric = all_numeric && ok[c];
      entry.kind = all_numeric ? ColumnKind::kNumeric : ColumnKind::kCategorical;
      entry.inferred = true;
    }
    if (auto it = settings.missing_codes.find(entry.name); it != settings.missing_codes.end()) {
      if (entry.kind != ColumnKind::kNumeric)
        throw InputError("missing_codes." + entry.name + ": column '" + entry.name +
                         "' is categorical; missing codes apply to numeric columns (list the "
                         "code among missing_values or make the column numeric)");
      if (it->second.size() > 255)
        throw InputError("missing_codes." + entry.name + ": at most 255 codes per column");
      entry.missing_codes = it->second;
    }
    if (entry.kind == ColumnKind::kCategorical) entry.dictionary = std::make_shared<Dictionary>();
    schema.columns.push_back(std::move(entry));
  }
  return schema;
}

Table encode_table(const CsvFile& file, const Schema& schema, const ReadSettings& settings,
                   const std::string& role, std::vector<std::string>* ignored) {
  const auto& header = file.header();
  const std::size_t ncol = schema.columns.size();
  std::vector<std::size_t> source(ncol);  // schema column -> file column
  for (std::size_t c = 0; c < ncol; ++c) {
    const auto& name = schema.columns[c].name;
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw InputError(file.path() + ": column '" + name + "' of the confidential data is missing" +
                       did_you_mean(name, header));
    source[c] = static_cast<std::size_t>(it - header.begin());
  }
  if (ignored) {
    for (const auto& name : header)
      if (std::none_of(schema.columns.begin(), schema.columns.end(),
                       [&](const Schema::Entry& e) { return e.name == name; }))
        ignored->push_back(name);
  }
  const std::size_t rows = file.rows();
  const auto threads = static_cast<std::size_t>(file.threads());
  std::vector<Column> columns(ncol);
  // Categorical fields are first coded against a per-thread dictionary, then merged in thread
  // order into the shared one: no lock in the hot loop, same result for any thread count once the
  // dictionary is finalised (sorted).
  std::vector<std::vector<Dictionary>> local(threads, std::vector<Dictionary>(ncol));
  std::vector<std::vector<std::size_t>> thread_first_row(threads);
  for (std::size_t c = 0; c < ncol; ++c) {
    columns[c].name = schema.columns[c].name;
    columns[c].kind = schema.columns[c].kind;
    if (columns[c].is_numeric()) {
      columns[c].numeric.assign(rows, std::numeric_limits<double>::quiet_NaN());
      if (!schema.columns[c].missing_codes.empty()) {
        columns[c].missing_codes = schema.columns[c].missing_codes;
        columns[c].missing_code_index.assign(rows, 0);
      }
    } else {
      columns[c].codes.assign(rows, kMissingCode);
      columns[c].dictionary = schema.columns[c].dictionary;
    }
  }
  std::vector<std::size_t> first_row(threads, std::numeric_limits<std::size_t>::max());
  file.visit_rows([&](int t, std::size_t row, const std::vector<std::string_view>& fields) {
    const auto ti = static_cast<std::size_t>(t);
    if (first_row[ti] > row) first_row[ti] = row;
    for (std::size_t c = 0; c < ncol; ++c) {
      const std::string_view field = fields[source[c]];
      if (is_missing_spelling(field, settings.missing_values)) continue;
      Column& column = columns[c];
      if (column.is_numeric()) {
        double value;
        if (!parse_number(field, value))
          throw InputError(file.path() + ": row " + std::to_string(row + 1) + ", column '" +
                           column.name + "': '" + std::string(field.substr(0, 60)) +
                           "' is not a number (the column is numeric)");
        const auto& codes = schema.columns[c].missing_codes;
        if (auto it = std::find(codes.begin(), codes.end(), value); it != codes.end()) {
          column.missing_code_index[row] = static_cast<std::uint8_t>(it - codes.begin() + 1);
          continue;
        }
        column.numeric[row] = value;
      } else {
        column.codes[row] = local[ti][c].intern(field);
      }
    }
  });
  for (std::size_t c = 0; c < ncol; ++c) {
    if (!columns[c].is_categorical()) continue;
    // Translate each thread's local codes to shared codes over the rows that thread visited.
    std::vector<std::size_t> order(threads);
    for (std::size_t t = 0; t < threads; ++t) order[t] = t;
    std::sort(order.begin(), order.end(),
              [&](auto a, auto b) { return first_row[a] < first_row[b]; });
    for (std::size_t k = 0; k < threads; ++k) {
      const std::size_t t = order[k];
      if (first_row[t] == std::numeric_limits<std::size_t>::max()) continue;
      const Dictionary& dict = local[t][c];
      std::vector<std::uint32_t> translate(dict.size());
      for (std::uint32_t code = 0; code < dict.size(); ++code)
        translate[code] = schema.columns[c].dictionary->intern(dict.level(code));
      const std::size_t end = k + 1 < threads && first_row[order[k + 1]] != std::numeric_limits<std::size_t>::max()
                                  ? first_row[order[k + 1]]
                                  : rows;
      auto& codes = columns[c].codes;
      for (std::size_t r = first_row[t]; r < end; ++r)
        if (codes[r] != kMissingCode) codes[r] = translate[codes[r]];
    }
  }
  return Table(TableSource{file.path(), file.sha256(), role}, std::move(columns));
}

void finalize_dictionaries(Schema& schema, const std::vector<Table*>& tables) {
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    auto& entry = schema.columns[c];
    if (entry.kind != ColumnKind::kCategorical) continue;
    const auto remap = entry.dictionary->finalize();
    for (Table* table : tables) {
      auto& codes = table->column(c).codes;
      for (auto& code : codes)
        if (code != kMissingCode) code = remap[code];
    }
  }
}

std::map<std::string, ColumnKind> read_sdv_metadata(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open metadata file");
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  // SDV single-table metadata has "columns" at the top; multi-table has tables.<name>.columns.
  const nlohmann::json* columns = nullptr;
  if (meta.contains("columns")) {
    columns = &meta["columns"];
  } else if (meta.contains("tables") && meta["tables"].is_object() && meta["tables"].size() == 1) {
    columns = &meta["tables"].begin().value()["columns"];
  }
  if (columns == nullptr || !columns->is_object())
    throw InputError(path + ": expected an object \"columns\" (SDV metadata)");
  std::map<std::string, ColumnKind> kinds;
  for (const auto& [name, column] : columns->items()) {
    if (!column.is_object() || !column.contains("sdtype") || !column["sdtype"].is_string())
      throw InputError(path + ": columns." + name + " has no string \"sdtype\"");
    const auto sdtype = column["sdtype"].get<std::string>();
    kinds[name] = (sdtype == "numerical" || sdtype == "datetime") ? ColumnKind::kNumeric
                                                                 : ColumnKind::kCategorical;
  }
  return kinds;
}

}  // namespace synthaudit
