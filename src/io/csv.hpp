#pragma once
// RFC 4180 CSV reader (quoted fields with embedded delimiters, quotes and newlines; CRLF; UTF-8
// BOM; configurable or detected delimiter and decimal mark; UTF-8 or Windows-1252 text), plain or
// gzip-compressed (detected by magic bytes).
//
// Text as people write it: R's write.csv (a first column of row names under an empty name),
// write.table (a header one field shorter than the rows), write.csv2 and Excel in European locales
// (semicolons, decimal commas), Excel's BOM and CRLF, Stata's export delimited. The row names
// column is left out of the header and of every row.
//
// Reading is two-step: CsvFile::open reads the bytes, checks the structure once (quotes, field
// counts, header) and records where each row starts; visit_rows then tokenises ranges of rows on
// several threads. Typed decoding (io/load.hpp) is a visitor on top, so a file is never held as
// millions of small strings.
//
// Input: a regular file is read with read() into memory (never memory-mapped: a file truncated
// while mapped would end the process with SIGBUS) and its size and modification time are checked
// again after reading, so a file that changes meanwhile is an InputError. A pipe or FIFO is read
// to its end with the same size bound (a FIFO that no process writes reads as empty); devices,
// sockets and folders are refused. Sizes are bounded by CsvOptions (docs/limits.md): the text
// (after gzip decompression, so a gzip bomb stops at the bound), each field and the columns.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/data_file.hpp"
#include "io/file.hpp"

namespace synthaudit {

// The text's character encoding. Windows-1252 (a superset of ISO 8859-1's printable characters,
// what Excel writes in Western European locales) is converted to UTF-8 when read, so everything
// downstream is UTF-8.
enum class TextEncoding { kUtf8, kWindows1252 };

// "utf-8" / "utf8", or "latin1" / "latin-1" / "iso-8859-1" / "windows-1252" / "cp1252" (any
// case); anything else is an InputError starting with `where`.
TextEncoding parse_text_encoding(const std::string& text, const std::string& where);
const char* to_string(TextEncoding encoding);

// Windows-1252 bytes as UTF-8, mapped as the WHATWG Encoding Standard maps the labels "latin1",
// "iso-8859-1" and "windows-1252" (bytes 0x80-0x9F are Windows-1252's typographic characters;
// the five it leaves undefined become the C1 controls of the same value).
std::string windows1252_to_utf8(std::string_view bytes);

// A field that reads as a number written with a decimal comma ("3,14", "-,5", "12,0"): optional
// sign, digits, one comma, digits, at least one digit on each side of the comma or after it.
bool looks_like_decimal_comma_number(std::string_view field);

struct CsvOptions {
  // The field separator; 0 = detected from the header: the one of ',', ';' and tab that splits it
  // into the most fields (',' on a tie), or ' ' when none splits it and the header is a row of
  // quoted names split by spaces (R's write.table).
  char delimiter = 0;
  // The decimal mark of numbers, '.' or ','; 0 = detected: ',' when the delimiter is not ',' and
  // the first rows hold numbers with a decimal comma and none with a decimal point.
  char decimal = 0;
  TextEncoding encoding = TextEncoding::kUtf8;
  int threads = 0;  // 0 = all cores (at most the hardware's threads)
  // Resource limits (core/limits.hpp, whose defaults these are).
  std::uint64_t max_input_bytes = std::uint64_t{8} << 30;
  std::uint64_t max_field_bytes = std::uint64_t{1} << 20;
  std::uint64_t max_columns = 1000;
  std::uint64_t pipe_wait_seconds = 10;
  // The memory budget (limit memory; 0 = none): with the machine's and the process's own bounds,
  // it bounds the text a gzip file decompresses to, as it grows.
  std::uint64_t memory_budget = 0;
  // The structure check and row index are split into pieces of this many bytes of text, checked
  // on `threads` threads, each piece from the first line break in it as if no quoted field were
  // open there, and then verified in order against where the previous piece's rows really end
  // (a piece that started inside a quoted field is checked again from there), so the rows and
  // every error are those of one pass over the whole text. 0 = automatic: one piece on one
  // thread; with more threads, up to 8 pieces per thread of at least 1 MiB.
  std::uint64_t structure_piece_bytes = 0;
};

class CsvFile : public DataFile {
 public:
  // Throws InputError naming the file (and row) for: missing/unreadable file, a folder, device or
  // socket, a file that changes while it is read, text, a field or a header over the limits,
  // empty file, header only, ragged row, unterminated quote, invalid UTF-8 in the header,
  // duplicate column names.
  static CsvFile open(const std::string& path, const CsvOptions& options = {});
  // Same, from a file as stored, read with its hash running behind (io/file.hpp; gzip is
  // inflated here); `name` is used in messages. The structure check runs while the hash ends.
  static CsvFile from_input(HashedInput input, const std::string& name,
                            const CsvOptions& options = {});
  // Same, from text in memory (never inflated). The fingerprint is `sha256` when given (the
  // file's bytes as stored, when `bytes` were inflated from them), else that of `bytes`.
  static CsvFile from_bytes(std::string bytes, const std::string& name,
                            const CsvOptions& options = {}, std::string sha256 = {});

  const std::string& path() const override { return path_; }
  const std::string& sha256() const override { return sha256_; }
  const std::vector<std::string>& header() const override { return header_; }
  std::size_t rows() const override { return row_starts_.size(); }
  int threads() const override { return threads_; }
  // Size of the (decompressed) text in bytes.
  std::size_t size() const override;
  std::string format() const override { return "CSV"; }
  char decimal_mark() const override { return decimal_; }
  std::string assumed_layout() const override { return assumed_; }
  // The field separator used (as given or detected).
  char delimiter() const { return delimiter_; }

  // Fields are unescaped (quotes removed, "" -> ").
  void visit_rows(const RowVisitor& visit) const override;
  void visit_row_batches(const BatchVisitor& visit) const override;

 private:
  struct Storage;
  static CsvFile build(std::shared_ptr<Storage> storage, const std::string& name,
                       const CsvOptions& options);
  void index_rows(std::uint64_t piece_bytes);
  // The rows of one piece of text: what the serial check finds from `begin` (a row start or a
  // blank line) up to the first position at or past `limit`, or up to its first problem.
  enum class RowProblem { kNone, kUnterminatedQuote, kTextAfterQuote, kLongField, kFieldCount };
  struct RowScan {
    std::size_t begin = 0;
    std::size_t end = 0;     // where the scan stopped; the failing row's start when it failed
    std::size_t lines = 0;   // '\n' passed before `end`
    std::size_t fields = 0;  // of the failing row
    RowProblem problem = RowProblem::kNone;
    std::vector<std::size_t> starts;
  };
  void scan_rows(std::size_t begin, std::size_t limit, std::size_t expected, RowScan& out) const;
  // The InputError for a scan's problem, for its row `row_label` (1-based) at line `line`.
  [[noreturn]] void throw_row_problem(const RowScan& scan, std::size_t row_label, std::size_t line,
                                      std::size_t expected) const;
  // Sets decimal_ from the first rows when it was not given.
  void detect_decimal_mark();
  static constexpr std::size_t kUnterminatedQuote = static_cast<std::size_t>(-1);
  static constexpr std::size_t kTextAfterQuote = static_cast<std::size_t>(-2);
  // Splits the row starting at `offset` into fields; returns the offset after the row, or one of
  // the two error markers above.
  std::size_t tokenize(std::size_t offset, std::vector<std::string_view>& fields,
                       std::string& scratch) const;
  // A quoted field with "" in it, unescaped into scratch: fields[field] is patched to
  // scratch[start, start + length) once nothing more is appended to scratch.
  struct Unescaped {
    std::size_t field, start, length;
  };
  // tokenize's grammar, appending the row's fields to `fields` (and unescaped text to
  // `scratch`, recorded in `unescaped`) without clearing them or patching the views.
  std::size_t append_fields(std::size_t offset, std::vector<std::string_view>& fields,
                            std::string& scratch, std::vector<Unescaped>& unescaped) const;
  static void patch_unescaped(std::vector<std::string_view>& fields, const std::string& scratch,
                              const std::vector<Unescaped>& unescaped);
  // Like tokenize, but only counts the fields and the line breaks inside quoted fields.
  // `longest` is the length of its longest field (quotes included).
  std::size_t scan_row(std::size_t offset, std::size_t& fields, std::size_t& newlines,
                       std::size_t& longest) const;

  std::string path_;
  std::string sha256_;
  std::shared_ptr<const Storage> storage_;  // shared, so moves and copies keep the address
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  char delimiter_ = ',';
  char decimal_ = '.';
  // The header had no name for the first column, or one name fewer than the rows: row names,
  // left out.
  bool row_names_ = false;
  std::string assumed_;
  int threads_ = 1;
  std::uint64_t max_field_bytes_ = 0;
  std::uint64_t max_columns_ = 0;
  std::size_t data_start_ = 0;
  std::vector<std::string> header_;
  std::vector<std::size_t> row_starts_;
};

// gzip (magic bytes 1f 8b).
bool is_gzip(std::string_view bytes);
// Inflates gzip or zlib data, at most `max_bytes` of output (InputError naming `path` beyond),
// and never more than the memory available (core/limits.hpp, available_memory with
// `memory_budget`) would hold while the output buffer grows: a decompression bomb is an
// InputError naming the file and the bound, not an exhausted machine.
std::string gunzip(std::string_view compressed, const std::string& path, std::uint64_t max_bytes,
                   std::uint64_t memory_budget = 0);

// SHA-256 of a byte string, lowercase hex.
std::string sha256_hex(std::string_view bytes);

// Well-formed UTF-8 as defined by Unicode (table 3-7).
bool valid_utf8(std::string_view s);

}  // namespace synthaudit
