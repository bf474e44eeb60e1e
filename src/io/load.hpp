#pragma once
// From data files (CSV, Stata, SPSS, SAS: io/data_file.hpp) to typed tables that share one schema
// and one dictionary per categorical column.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/limits.hpp"
#include "io/csv.hpp"
#include "io/data_file.hpp"
#include "io/readstat.hpp"
#include "table/table.hpp"

namespace synthaudit {

struct ReadSettings {
  CsvOptions csv;
  // Field spellings read as missing, in every column (compared after the CSV unquoting).
  std::vector<std::string> missing_values = {"", "NA", "NaN", "null"};
  // Column kinds fixed by the user (spec `columns:` or SDV metadata); others are inferred.
  std::map<std::string, ColumnKind> kinds;
  // Per column, numbers that mean "missing" (synthpop's cont.na, e.g. income: [-8]). In a numeric
  // column they stay distinguishable (Column::missing_codes); in a categorical one a field that
  // reads as one of these numbers is missing.
  std::map<std::string, std::vector<double>> missing_codes;
  // Per column, text codes that mean "missing" (e.g. smoke: [DK, Refused]), compared with the
  // whole field. Fields with these are missing in every file, and ignored when inferring kinds.
  std::map<std::string, std::vector<std::string>> missing_text_codes;
  // Stata, SPSS and SAS files: labelled values read as their labels, or as their codes.
  ValueLabels value_labels = ValueLabels::kLabels;
  // Where `kinds` and `missing_codes` came from (the spec file or "command line"), for errors.
  std::string origin = "command line";
};

// The columns of an evaluation, fixed from the confidential file and shared by all its datasets.
struct Schema {
  struct Entry {
    std::string name;
    ColumnKind kind;
    bool inferred;  // false when the kind came from the user
    std::vector<double> missing_codes;
    std::shared_ptr<Dictionary> dictionary;  // categorical only
    std::vector<std::string> missing_text_codes;
    std::string label;  // the variable label the confidential file gives, if any
  };
  std::vector<Entry> columns;
};

// What was read as missing in one column of one file besides the ordinary spellings
// (missing_values) and blanks: per declared code (its text, "-8" or "DK"), and the cells the
// file itself declares missing (Stata, SPSS and SAS files). Columns with none are not listed.
struct MissingTally {
  std::string column;
  std::vector<std::pair<std::string, std::uint64_t>> codes;
  std::uint64_t declared_in_file = 0;
};

// Reads the data file at `path` in the format its content shows (io/format.hpp): delimited text
// (CSV, gzip-compressed or not) or a Stata, SPSS or SAS file (gzip-compressed or not), within
// the limits of settings.csv. Every problem is an InputError naming the file.
std::unique_ptr<DataFile> open_data_file(const std::string& path, const ReadSettings& settings);

// Infers each column's kind: numeric when every non-missing field parses as a number, else
// categorical; user kinds win. Throws InputError when settings name a column the file lacks.
Schema infer_schema(const DataFile& file, const ReadSettings& settings);

// Decodes a file into a Table with the schema's column order. The file may order its columns
// differently; a schema column missing from the file is an InputError, extra file columns are
// ignored (and reported through `ignored`). What was read as missing by a code or by the file's
// own declaration is counted into `tallies` when given. Categorical levels are interned into the
// schema's shared dictionaries; a field that is not a number in a numeric column is an InputError
// naming file, row, column and value.
Table encode_table(const DataFile& file, const Schema& schema, const ReadSettings& settings,
                   const std::string& role, std::vector<std::string>* ignored = nullptr,
                   std::vector<MissingTally>* tallies = nullptr);

// infer_schema, then encode_table of the same file with that schema, in one pass over its rows:
// every field is split and parsed once. The same schema, table, tallies and errors as the two
// calls. A column whose numbers come before its first text in some part of the file (so
// it is categorical, but the spelling of the numbers read so far is lost) is decoded again in a
// second pass over the rows.
struct InferredTable {
  Schema schema;
  Table table;
};
InferredTable infer_and_encode(const DataFile& file, const ReadSettings& settings,
                               const std::string& role,
                               std::vector<MissingTally>* tallies = nullptr);

// A categorical column with more distinct levels than this that read as numbers with a decimal
// comma is named in a warning (decimal_comma_warnings).
constexpr std::size_t kDecimalCommaLevelsWarning = 10;

// After `file` was encoded with `schema` (before finalize_dictionaries): a warning for each
// inferred categorical column with more than kDecimalCommaLevelsWarning distinct levels that look
// like numbers with a decimal comma, when the file was read with a decimal point: such a column
// is probably numeric, read as text because nobody said `--decimal ,`.
std::vector<std::string> decimal_comma_warnings(const Schema& schema, const DataFile& file);

// Sorts every dictionary's levels (see Dictionary::finalize) and remaps the codes of `tables`,
// which must be every table encoded with this schema.
void finalize_dictionaries(Schema& schema, const std::vector<Table*>& tables);

// Column kinds from an SDV-style metadata JSON: {"columns": {"age": {"sdtype": "numerical"}}}.
// numerical/datetime -> numeric; categorical/boolean/id and others -> categorical.
// The file's size and nesting are bounded by `limits` (input_bytes, json_depth).
std::map<std::string, ColumnKind> read_sdv_metadata(const std::string& path,
                                                    const ResourceLimits& limits = {});

}  // namespace synthaudit
