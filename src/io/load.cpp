#include "io/load.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/file.hpp"
#include "io/format.hpp"

namespace synthaudit {

namespace {

// The missing-value spellings, checked once per field in every pass: a mask of their lengths
// rejects most fields before any comparison.
class MissingSpellings {
 public:
  explicit MissingSpellings(const std::vector<std::string>& spellings) : spellings_(spellings) {
    for (const auto& s : spellings_) {
      if (s.size() < 64)
        lengths_ |= std::uint64_t{1} << s.size();
      else
        has_long_ = true;
    }
  }
  bool contains(std::string_view field) const {
    if (field.size() < 64 ? ((lengths_ >> field.size()) & 1) == 0 : !has_long_) return false;
    for (const auto& s : spellings_)
      if (field == s) return true;
    return false;
  }

 private:
  std::vector<std::string> spellings_;
  std::uint64_t lengths_ = 0;
  bool has_long_ = false;
};

// Exact fast path for the common "[-]digits[.digits]" with at most 15 digits: the digits form an
// integer m < 2^53 and 10^k (k <= 15) is exact, so m / 10^k is the correctly rounded value, the
// same double from_chars gives. Returns false to fall back to from_chars.
inline bool parse_simple_decimal(std::string_view field, double& value) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = field.data();
  const char* end = p + field.size();
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  std::uint64_t m = 0;
  int digits = 0, fraction = 0;
  while (p < end && static_cast<unsigned>(*p - '0') < 10) {
    m = m * 10 + static_cast<unsigned>(*p - '0');
    ++p;
    ++digits;
  }
  if (p < end && *p == '.') {
    ++p;
    while (p < end && static_cast<unsigned>(*p - '0') < 10) {
      m = m * 10 + static_cast<unsigned>(*p - '0');
      ++p;
      ++digits;
      ++fraction;
    }
  }
  if (p != end || digits == 0 || digits > 15) return false;
  const double v = static_cast<double>(m) / kPow10[fraction];
  value = negative ? -v : v;
  return true;
}

// Parses a whole field as a finite double; surrounding spaces and one leading '+' are allowed.
// Overflow ("1e999"), inf, nan and hex are not numbers; underflow gives the nearest subnormal
// or zero, as strtod does.
bool parse_number(std::string_view field, double& value) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
  if (!field.empty() && field.front() == '+') {
    field.remove_prefix(1);
    if (!field.empty() && (field.front() == '-' || field.front() == '+')) return false;
  }
  if (field.empty()) return false;
  if (parse_simple_decimal(field, value)) return true;
  const char* end = field.data() + field.size();
  double parsed = 0;
  auto [ptr, ec] = std::from_chars(field.data(), end, parsed);
  if (ptr != end) return false;
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves `parsed` unset here; tell underflow (a number) from overflow (not).
    const std::string copy(field);
    errno = 0;
    const double v = std::strtod(copy.c_str(), nullptr);
    if (!std::isfinite(v)) return false;
    value = v;
    return true;
  }
  if (ec != std::errc() || !std::isfinite(parsed)) return false;
  value = parsed;
  return true;
}

// The same, for a number written with a decimal comma ("3,14"): a field with a '.' is not one.
bool parse_number_decimal_comma(std::string_view field, double& value) {
  if (field.find('.') != std::string_view::npos) return false;
  char buffer[64];
  if (field.size() > sizeof buffer) {
    std::string copy(field);
    std::replace(copy.begin(), copy.end(), ',', '.');
    return parse_number(copy, value);
  }
  std::copy(field.begin(), field.end(), buffer);
  std::replace(buffer, buffer + field.size(), ',', '.');
  return parse_number(std::string_view(buffer, field.size()), value);
}

// A field as a number in the decimal mark of its file. The mark is fixed per file, so the branch
// is the same for every field and the '.' path stays what it was.
inline bool parse_number(std::string_view field, double& value, bool decimal_comma) {
  return decimal_comma ? parse_number_decimal_comma(field, value) : parse_number(field, value);
}

void check_setting_columns(const DataFile& file, const ReadSettings& settings) {
  const auto& header = file.header();
  auto check = [&](const std::string& name, const char* key) {
    if (std::find(header.begin(), header.end(), name) == header.end())
      throw InputError(settings.origin + ": " + key + "." + name + ": " + file.path() +
                       " has no column '" + name + "'" + did_you_mean(name, header));
  };
  for (const auto& [name, kind] : settings.kinds) check(name, "columns");
  for (const auto& [name, codes] : settings.missing_codes) check(name, "missing_codes");
  for (const auto& [name, codes] : settings.missing_text_codes) check(name, "missing_codes");
}

// A column's text codes (missing_text_codes), by the file's column order.
std::vector<std::vector<std::string>> text_codes_by_column(const std::vector<std::string>& names,
                                                           const ReadSettings& settings) {
  std::vector<std::vector<std::string>> out(names.size());
  for (std::size_t c = 0; c < names.size(); ++c)
    if (auto it = settings.missing_text_codes.find(names[c]);
        it != settings.missing_text_codes.end())
      out[c] = it->second;
  return out;
}

bool is_text_code(const std::vector<std::string>& codes, std::string_view field) {
  return std::find(codes.begin(), codes.end(), field) != codes.end();
}

// The numbers of `file` the file itself declares missing (SPSS user-missing values) join the
// column's missing codes.
std::vector<double> with_declared_codes(std::vector<double> codes, const DataFile& file,
                                        std::size_t column) {
  if (file.metadata().empty()) return codes;
  for (double code : file.metadata()[column].declared_missing_codes)
    if (std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
  return codes;
}

}  // namespace

Schema infer_schema(const DataFile& file, const ReadSettings& settings) {
  check_setting_columns(file, settings);
  const std::size_t ncol = file.columns();
  const auto text_codes = text_codes_by_column(file.header(), settings);
  // numeric_ok[t][c]: thread t saw only numbers or missing values in column c.
  std::vector<std::vector<char>> numeric_ok(static_cast<std::size_t>(file.threads()),
                                            std::vector<char>(ncol, 1));
  const MissingSpellings missing(settings.missing_values);
  const bool decimal_comma = file.decimal_mark() == ',';
  file.visit_rows([&](int t, std::size_t, const std::vector<std::string_view>& fields) {
    auto& ok = numeric_ok[static_cast<std::size_t>(t)];
    double value;
    for (std::size_t c = 0; c < ncol; ++c) {
      if (!ok[c]) continue;
      if (is_absent(fields[c]) || missing.contains(fields[c])) continue;
      if (!text_codes[c].empty() && is_text_code(text_codes[c], fields[c])) continue;
      if (!parse_number(fields[c], value, decimal_comma)) ok[c] = 0;
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
    std::vector<double> codes;
    if (auto it = settings.missing_codes.find(entry.name); it != settings.missing_codes.end())
      codes = it->second;
    entry.missing_codes = with_declared_codes(std::move(codes), file, c);
    entry.missing_text_codes = text_codes[c];
    if (entry.missing_codes.size() + entry.missing_text_codes.size() > 255)
      throw InputError(settings.origin + ": missing_codes." + entry.name +
                       ": at most 255 codes per column");
    if (!file.metadata().empty()) entry.label = file.metadata()[c].label;
    if (entry.kind == ColumnKind::kCategorical) entry.dictionary = std::make_shared<Dictionary>();
    schema.columns.push_back(std::move(entry));
  }
  return schema;
}

Table encode_table(const DataFile& file, const Schema& schema, const ReadSettings& settings,
                   const std::string& role, std::vector<std::string>* ignored,
                   std::vector<MissingTally>* tallies) {
  const auto& header = file.header();
  const std::size_t ncol = schema.columns.size();
  // By name through a hash map: matching stays linear for very wide files.
  std::unordered_map<std::string_view, std::size_t> file_column;
  file_column.reserve(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) file_column.emplace(header[i], i);
  std::vector<std::size_t> source(ncol);  // schema column -> file column
  std::vector<char> used(header.size(), 0);
  for (std::size_t c = 0; c < ncol; ++c) {
    const auto& name = schema.columns[c].name;
    const auto it = file_column.find(name);
    if (it == file_column.end())
      throw InputError(file.path() + ": column '" + name + "' of the confidential data is missing" +
                       did_you_mean(name, header));
    source[c] = it->second;
    used[it->second] = 1;
  }
  if (ignored) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (!used[i]) ignored->push_back(header[i]);
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
  const MissingSpellings missing(settings.missing_values);
  const bool decimal_comma = file.decimal_mark() == ',';
  // code_hits[t][c][k]: fields thread t read as missing by column c's k-th code (numeric codes,
  // then text codes).
  std::vector<std::vector<std::vector<std::uint64_t>>> code_hits(
      threads, std::vector<std::vector<std::uint64_t>>(ncol));
  for (auto& hits : code_hits)
    for (std::size_t c = 0; c < ncol; ++c)
      hits[c].assign(
          schema.columns[c].missing_codes.size() + schema.columns[c].missing_text_codes.size(), 0);
  file.visit_rows([&](int t, std::size_t row, const std::vector<std::string_view>& fields) {
    const auto ti = static_cast<std::size_t>(t);
    if (first_row[ti] > row) first_row[ti] = row;
    for (std::size_t c = 0; c < ncol; ++c) {
      const std::string_view field = fields[source[c]];
      if (is_absent(field) || missing.contains(field)) continue;
      Column& column = columns[c];
      const auto& codes = schema.columns[c].missing_codes;
      const auto& text_codes = schema.columns[c].missing_text_codes;
      if (!text_codes.empty()) {
        if (auto it = std::find(text_codes.begin(), text_codes.end(), field);
            it != text_codes.end()) {
          ++code_hits[ti][c][codes.size() + static_cast<std::size_t>(it - text_codes.begin())];
          continue;
        }
      }
      if (column.is_numeric()) {
        double value;
        if (!parse_number(field, value, decimal_comma))
          throw InputError(
              file.path() + ": row " + std::to_string(row + 1) + ", column '" + column.name +
              "': '" + std::string(field.substr(0, 60)) +
              "' is not a number (the column is numeric" +
              (!decimal_comma && looks_like_decimal_comma_number(field)
                   ? "; if the file writes decimals with a comma, give --decimal , or read: "
                     "decimal: \",\" in the spec)"
                   : ")"));
        if (auto it = std::find(codes.begin(), codes.end(), value); it != codes.end()) {
          const auto k = static_cast<std::size_t>(it - codes.begin());
          column.missing_code_index[row] = static_cast<std::uint8_t>(k + 1);
          ++code_hits[ti][c][k];
          continue;
        }
        column.numeric[row] = value;
      } else {
        if (!codes.empty()) {
          double value;
          if (parse_number(field, value, decimal_comma)) {
            if (auto it = std::find(codes.begin(), codes.end(), value); it != codes.end()) {
              ++code_hits[ti][c][static_cast<std::size_t>(it - codes.begin())];
              continue;
            }
          }
        }
        Dictionary& levels = local[ti][c];
        const std::size_t known = levels.size();
        column.codes[row] = levels.intern(field);
        // Each new level is checked once: results.json and the report need UTF-8 text.
        if (levels.size() > known && !valid_utf8(field))
          throw InputError(file.path() + ": row " + std::to_string(row + 1) + ", column '" +
                           column.name +
                           "': the value is not valid UTF-8 (if the file is Latin-1 or "
                           "Windows-1252, give --encoding latin1, or read: encoding: latin1 in "
                           "the spec)");
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
      const std::size_t end =
          k + 1 < threads && first_row[order[k + 1]] != std::numeric_limits<std::size_t>::max()
              ? first_row[order[k + 1]]
              : rows;
      auto& codes = columns[c].codes;
      for (std::size_t r = first_row[t]; r < end; ++r)
        if (codes[r] != kMissingCode) codes[r] = translate[codes[r]];
    }
  }
  if (tallies) {
    for (std::size_t c = 0; c < ncol; ++c) {
      const auto& entry = schema.columns[c];
      MissingTally tally;
      tally.column = entry.name;
      for (std::size_t k = 0; k < code_hits.front()[c].size(); ++k) {
        std::uint64_t hits = 0;
        for (const auto& per_thread : code_hits) hits += per_thread[c][k];
        if (hits == 0) continue;
        tally.codes.emplace_back(k < entry.missing_codes.size()
                                     ? format_number(entry.missing_codes[k])
                                     : entry.missing_text_codes[k - entry.missing_codes.size()],
                                 hits);
      }
      if (!file.metadata().empty())
        tally.declared_in_file = file.metadata()[source[c]].declared_missing_absent;
      if (!tally.codes.empty() || tally.declared_in_file > 0) tallies->push_back(std::move(tally));
    }
  }
  return Table(TableSource{file.path(), file.sha256(), role}, std::move(columns));
}

std::unique_ptr<DataFile> open_data_file(const std::string& path, const ReadSettings& settings) {
  const CsvOptions& options = settings.csv;
  std::string stored = read_input_file(path, options.max_input_bytes, options.pipe_wait_seconds);
  std::string inflated;
  std::string digest;
  if (is_gzip(stored)) {
    digest = sha256_hex(stored);
    inflated = gunzip(stored, path, options.max_input_bytes);
  }
  const std::string_view content = digest.empty() ? std::string_view(stored) : inflated;
  const DataFormat format = detect_data_format(content.substr(0, 4096), path);
  if (format == DataFormat::kText) {
    if (digest.empty())
      return std::make_unique<CsvFile>(CsvFile::from_stored(std::move(stored), path, options));
    stored.clear();
    stored.shrink_to_fit();
    return std::make_unique<CsvFile>(
        CsvFile::from_bytes(std::move(inflated), path, options, std::move(digest)));
  }
  if (digest.empty()) digest = sha256_hex(stored);
  StatReadOptions stat;
  stat.value_labels = settings.value_labels;
  stat.threads = options.threads;
  stat.max_input_bytes = options.max_input_bytes;
  stat.max_field_bytes = options.max_field_bytes;
  stat.max_columns = options.max_columns;
  return std::make_unique<StatFile>(
      StatFile::parse(content, format, path, std::move(digest), stat));
}

std::vector<std::string> decimal_comma_warnings(const Schema& schema, const DataFile& file) {
  std::vector<std::string> warnings;
  if (file.decimal_mark() == ',') return warnings;
  for (const auto& entry : schema.columns) {
    if (entry.kind != ColumnKind::kCategorical || !entry.inferred || !entry.dictionary) continue;
    std::size_t numeric_looking = 0;
    const Dictionary& levels = *entry.dictionary;
    for (std::uint32_t code = 0; code < levels.size(); ++code)
      if (looks_like_decimal_comma_number(levels.level(code))) ++numeric_looking;
    if (numeric_looking > kDecimalCommaLevelsWarning)
      warnings.push_back(file.path() + ": column '" + entry.name +
                         "' is read as categorical, but " + std::to_string(numeric_looking) +
                         " of its " + std::to_string(levels.size()) +
                         " levels are numbers with a decimal comma; if the file writes decimals "
                         "with a comma, give --decimal , (or read: decimal: \",\" in the spec)");
  }
  return warnings;
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

std::map<std::string, ColumnKind> read_sdv_metadata(const std::string& path,
                                                    const ResourceLimits& limits) {
  const nlohmann::json meta = parse_json_bounded(
      read_input_file(path, limits.input_bytes, limits.pipe_wait_seconds), path, limits.json_depth);
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
