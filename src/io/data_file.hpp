#pragma once
// What the typed decoding (io/load.hpp) reads: a table of text fields with a header, visited
// row by row on several threads, whatever format the file was in (CSV, io/csv.hpp; Stata, SPSS
// and SAS files, io/readstat.hpp).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace synthaudit {

// A field that holds no value at all (a system-missing or file-declared missing value of a
// Stata, SPSS or SAS file) is a view with no data: it is missing whatever `missing_values`
// says. A CSV field is never absent (an empty field is a view of length 0 into the text).
inline bool is_absent(std::string_view field) { return field.data() == nullptr; }

// What a file says about one of its columns beyond the values (Stata, SPSS and SAS files; a
// CSV file has none of this).
struct ColumnMetadata {
  std::string label;  // the variable label
  // Numeric values the file declares missing (SPSS user-missing values and ranges) that occur
  // in the data; they are read as values and become the column's missing codes.
  std::vector<double> declared_missing_codes;
  // Cells the file declares missing that are read as absent: Stata's and SAS's tagged missing
  // values (.a to .z), and user-missing values of a column read through its value labels.
  std::uint64_t declared_missing_absent = 0;
};

// The threads a reader visits rows on: `requested`, or all cores for 0; bounded like every
// call's threads (core/threads.hpp), since each costs a dictionary per column.
int resolve_reader_threads(int requested);

class DataFile {
 public:
  virtual ~DataFile() = default;
  virtual const std::string& path() const = 0;
  // SHA-256 of the file's bytes as stored (compressed if gzip), lowercase hex.
  virtual const std::string& sha256() const = 0;
  virtual const std::vector<std::string>& header() const = 0;
  virtual std::size_t rows() const = 0;
  std::size_t columns() const { return header().size(); }
  virtual int threads() const = 0;
  // Bytes the fields take in memory (the decompressed text of a CSV file).
  virtual std::size_t size() const = 0;
  // The format in words, for messages ("CSV", "Stata .dta").
  virtual std::string format() const = 0;
  // The decimal mark its numbers are written with: '.' or ','.
  virtual char decimal_mark() const { return '.'; }
  // What the reader assumed about the file's layout that it was not told (a detected delimiter
  // or decimal mark, a row names column left out), in words; empty when nothing.
  virtual std::string assumed_layout() const { return {}; }
  // One entry per column, or empty when the format carries no metadata.
  virtual const std::vector<ColumnMetadata>& metadata() const {
    static const std::vector<ColumnMetadata> none;
    return none;
  }

  // Calls visit(thread_index, row, fields) for every data row, rows split into contiguous
  // ranges over `threads()` threads. thread_index is in [0, threads()). The visitor may throw;
  // the exception from the lowest row is rethrown after all threads stop.
  using RowVisitor =
      std::function<void(int thread_index, std::size_t row, const std::vector<std::string_view>&)>;
  virtual void visit_rows(const RowVisitor& visit) const = 0;

  // Consecutive rows of one thread, their fields side by side: field(r, c) is column c of row
  // first_row + r. The views stay valid for the call.
  struct RowBatch {
    std::size_t first_row = 0;
    std::size_t rows = 0;
    const std::string_view* fields = nullptr;
    std::size_t stride = 0;  // views per row
    std::size_t skip = 0;    // views before a row's first column (a CSV file's row names)
    std::string_view field(std::size_t r, std::size_t c) const {
      return fields[r * stride + skip + c];
    }
  };
  // As visit_rows, a batch of rows at a time, so that a decoder can take one column over many
  // rows in a loop of its own (one kind of field, one level table) instead of every column of
  // each row in turn. Each thread visits its rows in order, in batches of up to a few hundred;
  // the rows and the thread that visits each are those of visit_rows. By default one row per
  // batch, through visit_rows.
  using BatchVisitor = std::function<void(int thread_index, const RowBatch&)>;
  virtual void visit_row_batches(const BatchVisitor& visit) const;
};

}  // namespace synthaudit
