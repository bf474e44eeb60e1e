#pragma once
// Typed columnar table. Numeric columns hold doubles (NaN = missing); categorical columns hold
// uint32 codes into a Dictionary shared by every dataset of one evaluation (confidential, each
// synthetic replicate, holdout), so equal codes mean equal values across tables.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace synthaudit {

enum class ColumnKind { kNumeric, kCategorical };

const char* to_string(ColumnKind kind);

inline constexpr std::uint32_t kMissingCode = std::numeric_limits<std::uint32_t>::max();

inline bool is_missing(double value) { return std::isnan(value); }
inline bool is_missing(std::uint32_t code) { return code == kMissingCode; }

// Levels of one categorical column. Codes are dense 0..size()-1; after finalize() the levels are
// in sorted order (numerically when every level is a number, else bytewise), as R's factor()
// orders them, so "first level" means the same thing as in the reference tools.
class Dictionary {
 public:
  std::uint32_t intern(std::string_view level);
  std::optional<std::uint32_t> find(std::string_view level) const;
  const std::string& level(std::uint32_t code) const { return levels_[code]; }
  std::size_t size() const { return levels_.size(); }
  const std::vector<std::string>& levels() const { return levels_; }
  // Sorts the levels and returns old code -> new code.
  std::vector<std::uint32_t> finalize();

 private:
  // Transparent hash: lookups take a string_view without building a std::string per field.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> levels_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
};

struct Column {
  std::string name;
  ColumnKind kind = ColumnKind::kNumeric;
  std::vector<double> numeric;             // kind == kNumeric
  std::vector<std::uint32_t> codes;        // kind == kCategorical
  std::shared_ptr<Dictionary> dictionary;  // kind == kCategorical, shared across tables
  // Numeric columns with declared missing codes (synthpop's cont.na, e.g. income: -8): the codes,
  // and per row which one a missing value was (0 = ordinary missing or not missing, k =
  // codes[k-1]). Both empty when the column has no missing codes. The value itself is NaN (missing)
  // either way, so metrics that do not care see one kind of missing.
  std::vector<double> missing_codes;
  std::vector<std::uint8_t> missing_code_index;

  bool is_numeric() const { return kind == ColumnKind::kNumeric; }
  bool is_categorical() const { return kind == ColumnKind::kCategorical; }
  std::size_t size() const { return is_numeric() ? numeric.size() : codes.size(); }
  bool missing(std::size_t row) const {
    return is_numeric() ? is_missing(numeric[row]) : is_missing(codes[row]);
  }
  std::size_t missing_count() const;
  // Number of levels in the shared dictionary (0 for numeric columns).
  std::size_t cardinality() const { return dictionary ? dictionary->size() : 0; }
};

// Where a table came from, for error messages and result fingerprints.
struct TableSource {
  std::string path;
  std::string sha256;  // of the file bytes as stored (compressed if gzip)
  std::string role;    // "confidential", "synthetic", "holdout"
};

class Table {
 public:
  Table() = default;
  Table(TableSource source, std::vector<Column> columns);

  std::size_t rows() const { return rows_; }
  std::size_t column_count() const { return columns_.size(); }
  const Column& column(std::size_t i) const { return columns_[i]; }
  Column& column(std::size_t i) { return columns_[i]; }
  const std::vector<Column>& columns() const { return columns_; }
  // Index of the named column; nullopt when absent.
  std::optional<std::size_t> find(std::string_view name) const;
  // Like find() but throws InputError naming the table's file.
  std::size_t index_of(std::string_view name) const;
  const Column& column(std::string_view name) const { return columns_[index_of(name)]; }
  const TableSource& source() const { return source_; }
  std::vector<std::string> column_names() const;

 private:
  TableSource source_;
  std::vector<Column> columns_;
  std::size_t rows_ = 0;
};

// The rows `rows` of `table` (repeats allowed, in the given order) as a new table with `source`;
// dictionaries stay shared, so codes keep their meaning.
Table select_rows(const Table& table, const std::vector<std::size_t>& rows, TableSource source);

// Column j of the result is rows `rows_per_column[j]` of column j of `table` (each list of the
// same length): a table whose columns come from different records, with the associations between
// columns broken and each column's distribution kept.
Table select_rows_per_column(const Table& table,
                             const std::vector<std::vector<std::size_t>>& rows_per_column,
                             TableSource source);

}  // namespace synthaudit
