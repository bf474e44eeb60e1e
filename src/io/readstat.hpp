#pragma once
// Stata (.dta), SPSS (.sav, .zsav, .por) and SAS (.sas7bdat, .xpt) files, read with ReadStat
// (Evan Miller, https://github.com/WizardMac/ReadStat; Debian's libreadstat 1.1.8) from bytes
// already in memory, so the same bounded reader (io/file.hpp) opens every input.
//
// The values become the text fields of a DataFile, decoded by io/load.hpp exactly as a CSV file
// would be: numbers as their shortest round-trip text (a 4-byte float as the float's, so 0.1
// stored as float reads as 0.1), strings as they are, and a value with a value label as its label
// (haven's as_factor: a value without a label keeps its number), unless the codes are asked for.
// System-missing values are absent fields; for file-declared missing values see ColumnMetadata.
#include <memory>
#include <string>
#include <vector>

#include "io/data_file.hpp"
#include "io/format.hpp"

namespace synthaudit {

enum class ValueLabels { kLabels, kCodes };

struct StatReadOptions {
  ValueLabels value_labels = ValueLabels::kLabels;
  int threads = 0;  // 0 = all cores
  // Resource limits (docs/limits.md): the values held as text, one string value, the columns.
  std::uint64_t max_input_bytes = std::uint64_t{8} << 30;
  std::uint64_t max_field_bytes = std::uint64_t{1} << 20;
  std::uint64_t max_columns = 1000;
};

class StatFile : public DataFile {
 public:
  // Parses `bytes` (the file's content, decompressed if it was gzip) in `format`, which must not
  // be kText. Every ReadStat error, a file with no columns or no rows, and a limit exceeded is an
  // InputError naming `path`.
  static StatFile parse(std::string_view bytes, DataFormat format, const std::string& path,
                        std::string sha256, const StatReadOptions& options = {});

  const std::string& path() const override { return path_; }
  const std::string& sha256() const override { return sha256_; }
  const std::vector<std::string>& header() const override { return header_; }
  std::size_t rows() const override { return rows_; }
  int threads() const override { return threads_; }
  std::size_t size() const override { return text_ ? text_->size() : 0; }
  std::string format() const override { return format_name(format_); }
  const std::vector<ColumnMetadata>& metadata() const override { return metadata_; }
  void visit_rows(const RowVisitor& visit) const override;

 private:
  std::string path_, sha256_;
  DataFormat format_ = DataFormat::kStata;
  int threads_ = 1;
  std::size_t rows_ = 0;
  std::vector<std::string> header_;
  std::vector<ColumnMetadata> metadata_;
  // Every field's text, row by row; field k is text_[start_[k], start_[k + 1]) unless absent_[k].
  std::shared_ptr<const std::string> text_;
  std::shared_ptr<const std::vector<std::uint64_t>> start_;
  std::shared_ptr<const std::vector<char>> absent_;
};

}  // namespace synthaudit
