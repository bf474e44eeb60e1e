#pragma once
// From CSV files to typed tables that share one schema and one dictionary per categorical column.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/limits.hpp"
#include "io/csv.hpp"
#include "table/table.hpp"

namespace synthaudit {

struct ReadSettings {
  CsvOptions csv;
  // Field spellings read as missing, in every column (compared after the CSV unquoting).
  std::vector<std::string> missing_values = {"", "NA", "NaN", "null"};
  // Column kinds fixed by the user (spec `columns:` or SDV metadata); others are inferred.
  std::map<std::string, ColumnKind> kinds;
  // Per numeric column, values that mean "missing" (synthpop's cont.na, e.g. income: [-8]).
  std::map<std::string, std::vector<double>> missing_codes;
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
  };
  std::vector<Entry> columns;
};

// Infers each column's kind: numeric when every non-missing field parses as a number, else
// categorical; user kinds win. Throws InputError when settings name a column the file lacks.
Schema infer_schema(const CsvFile& file, const ReadSettings& settings);

// Decodes a file into a Table with the schema's column order. The file may order its columns
// differently; a schema column missing from the file is an InputError, extra file columns are
// ignored (and reported through `ignored`). Categorical levels are interned into the schema's
// shared dictionaries; a field that is not a number in a numeric column is an InputError naming
// file, row, column and value.
Table encode_table(const CsvFile& file, const Schema& schema, const ReadSettings& settings,
                   const std::string& role, std::vector<std::string>* ignored = nullptr);

// Sorts every dictionary's levels (see Dictionary::finalize) and remaps the codes of `tables`,
// which must be every table encoded with this schema.
void finalize_dictionaries(Schema& schema, const std::vector<Table*>& tables);

// Column kinds from an SDV-style metadata JSON: {"columns": {"age": {"sdtype": "numerical"}}}.
// numerical/datetime -> numeric; categorical/boolean/id and others -> categorical.
// The file's size and nesting are bounded by `limits` (input_bytes, json_depth).
std::map<std::string, ColumnKind> read_sdv_metadata(const std::string& path,
                                                    const ResourceLimits& limits = {});

}  // namespace synthaudit
