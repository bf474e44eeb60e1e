#include "table/table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/error.hpp"

namespace synthaudit {

const char* to_string(ColumnKind kind) {
  return kind == ColumnKind::kNumeric ? "numeric" : "categorical";
}

std::uint32_t Dictionary::intern(std::string_view level) {
  if (auto it = index_.find(level); it != index_.end()) return it->second;
  const auto code = static_cast<std::uint32_t>(levels_.size());
  levels_.emplace_back(level);
  index_.emplace(levels_.back(), code);
  return code;
}

std::optional<std::uint32_t> Dictionary::find(std::string_view level) const {
  if (auto it = index_.find(level); it != index_.end()) return it->second;
  return std::nullopt;
}

namespace {
std::optional<double> as_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  // "nan"/"inf" parse but are not levels to sort numerically (NaN breaks the ordering).
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}
}  // namespace

std::vector<std::uint32_t> Dictionary::finalize() {
  std::vector<std::uint32_t> order(levels_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::vector<std::optional<double>> numbers(levels_.size());
  bool all_numeric = !levels_.empty();
  for (std::size_t i = 0; i < levels_.size(); ++i) {
    numbers[i] = as_number(levels_[i]);
    all_numeric = all_numeric && numbers[i].has_value();
  }
  if (all_numeric) {
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return *numbers[a] < *numbers[b]; });
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return levels_[a] < levels_[b]; });
  }
  std::vector<std::uint32_t> remap(levels_.size());
  std::vector<std::string> sorted(levels_.size());
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    remap[order[rank]] = static_cast<std::uint32_t>(rank);
    sorted[rank] = std::move(levels_[order[rank]]);
  }
  levels_ = std::move(sorted);
  index_.clear();
  for (std::size_t i = 0; i < levels_.size(); ++i)
    index_.emplace(levels_[i], static_cast<std::uint32_t>(i));
  return remap;
}

std::size_t Column::missing_count() const {
  if (is_numeric())
    return static_cast<std::size_t>(
        std::count_if(numeric.begin(), numeric.end(), [](double v) { return is_missing(v); }));
  return static_cast<std::size_t>(std::count(codes.begin(), codes.end(), kMissingCode));
}

Table::Table(TableSource source, std::vector<Column> columns)
    : source_(std::move(source)), columns_(std::move(columns)) {
  rows_ = columns_.empty() ? 0 : columns_.front().size();
}

std::optional<std::size_t> Table::find(std::string_view name) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i].name == name) return i;
  return std::nullopt;
}

std::size_t Table::index_of(std::string_view name) const {
  if (auto i = find(name)) return *i;
  throw InputError(source_.path + ": no column named '" + std::string(name) + "'");
}

std::vector<std::string> Table::column_names() const {
  std::vector<std::string> names;
  names.reserve(columns_.size());
  for (const auto& c : columns_) names.push_back(c.name);
  return names;
}

namespace {

Column column_rows(const Column& from, const std::vector<std::size_t>& rows) {
  Column to;
  to.name = from.name;
  to.kind = from.kind;
  to.dictionary = from.dictionary;
  to.missing_codes = from.missing_codes;
  if (from.is_numeric()) {
    to.numeric.reserve(rows.size());
    for (std::size_t r : rows) to.numeric.push_back(from.numeric[r]);
  } else {
    to.codes.reserve(rows.size());
    for (std::size_t r : rows) to.codes.push_back(from.codes[r]);
  }
  if (!from.missing_code_index.empty()) {
    to.missing_code_index.reserve(rows.size());
    for (std::size_t r : rows) to.missing_code_index.push_back(from.missing_code_index[r]);
  }
  return to;
}

}  // namespace

Table select_rows(const Table& table, const std::vector<std::size_t>& rows, TableSource source) {
  std::vector<Column> columns;
  columns.reserve(table.column_count());
  for (const Column& from : table.columns()) columns.push_back(column_rows(from, rows));
  return Table(std::move(source), std::move(columns));
}

Table select_rows_per_column(const Table& table,
                             const std::vector<std::vector<std::size_t>>& rows_per_column,
                             TableSource source) {
  if (rows_per_column.size() != table.column_count())
    throw std::logic_error("select_rows_per_column: one row list per column expected");
  std::vector<Column> columns;
  columns.reserve(table.column_count());
  for (std::size_t j = 0; j < table.column_count(); ++j) {
    if (rows_per_column[j].size() != rows_per_column[0].size())
      throw std::logic_error("select_rows_per_column: row lists of different lengths");
    columns.push_back(column_rows(table.column(j), rows_per_column[j]));
  }
  return Table(std::move(source), std::move(columns));
}

}  // namespace synthaudit
