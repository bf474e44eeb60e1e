#pragma once
// RFC 4180 CSV reader (quoted fields with embedded delimiters, quotes and newlines; CRLF; UTF-8
// BOM; configurable delimiter), plain or gzip-compressed (detected by magic bytes).
//
// Reading is two-step: CsvFile::open maps the bytes, checks the structure once (quotes, field
// counts, header) and records where each row starts; visit_rows then tokenises ranges of rows on
// several threads. Typed decoding (io/load.hpp) is a visitor on top, so a file is never held as
// millions of small strings.
//
// Memory: a plain file is memory-mapped read-only, and the pages a pass has finished with are
// handed back to the page cache (madvise MADV_DONTNEED) while the pass runs and when it ends, so
// the process holds only a window of the file next to the table being built; a later pass
// faults them in again from the page cache. A gzip file is decompressed into memory and stays
// there. The file must not change while it is being read.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace synthaudit {

struct CsvOptions {
  char delimiter = ',';
  int threads = 0;  // 0 = all cores
};

class CsvFile {
 public:
  // Throws InputError naming the file (and row) for: missing/unreadable file, empty file, header
  // only, ragged row, unterminated quote, invalid UTF-8 in the header, duplicate column names.
  static CsvFile open(const std::string& path, const CsvOptions& options = {});
  // Same, from bytes in memory (`name` is used in messages). For tests and the fuzzer.
  static CsvFile from_bytes(std::string bytes, const std::string& name,
                            const CsvOptions& options = {});

  const std::string& path() const { return path_; }
  const std::string& sha256() const { return sha256_; }
  const std::vector<std::string>& header() const { return header_; }
  std::size_t rows() const { return row_starts_.size(); }
  std::size_t columns() const { return header_.size(); }
  int threads() const { return threads_; }
  // Size of the (decompressed) text in bytes.
  std::size_t size() const;

  // Calls visit(thread_index, row, fields) for every data row, rows split into contiguous
  // ranges over `threads()` threads; fields are unescaped (quotes removed, "" -> ").
  // thread_index is in [0, threads()). The visitor may throw; the exception from the lowest
  // row is rethrown after all threads stop.
  using RowVisitor =
      std::function<void(int thread_index, std::size_t row, const std::vector<std::string_view>&)>;
  void visit_rows(const RowVisitor& visit) const;

 private:
  struct Storage;
  static CsvFile build(std::shared_ptr<Storage> storage, const std::string& name,
                       const CsvOptions& options);
  void index_rows();
  static constexpr std::size_t kUnterminatedQuote = static_cast<std::size_t>(-1);
  static constexpr std::size_t kTextAfterQuote = static_cast<std::size_t>(-2);
  // Splits the row starting at `offset` into fields; returns the offset after the row, or one of
  // the two error markers above.
  std::size_t tokenize(std::size_t offset, std::vector<std::string_view>& fields,
                       std::string& scratch) const;
  // Like tokenize, but only counts the fields and the line breaks inside quoted fields.
  std::size_t scan_row(std::size_t offset, std::size_t& fields, std::size_t& newlines) const;

  std::string path_;
  std::string sha256_;
  std::shared_ptr<const Storage> storage_;  // shared, so moves and copies keep the address
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  char delimiter_ = ',';
  int threads_ = 1;
  std::size_t data_start_ = 0;
  std::vector<std::string> header_;
  std::vector<std::size_t> row_starts_;
};

// SHA-256 of a byte string, lowercase hex.
std::string sha256_hex(std::string_view bytes);

// Well-formed UTF-8 as defined by Unicode (table 3-7).
bool valid_utf8(std::string_view s);

}  // namespace synthaudit
