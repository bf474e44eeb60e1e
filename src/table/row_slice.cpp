#include "table/row_slice.hpp"

#include <stdexcept>
#include <string>

namespace synthaudit {

Table slice_rows(const Table& table, std::size_t begin, std::size_t end) {
  if (begin > end || end > table.rows())
    throw std::out_of_range("row slice [" + std::to_string(begin) + ", " + std::to_string(end) +
                            ") of a table with " + std::to_string(table.rows()) + " rows");
  const auto first = static_cast<std::ptrdiff_t>(begin), last = static_cast<std::ptrdiff_t>(end);
  std::vector<Column> columns;
  columns.reserve(table.column_count());
  for (const Column& from : table.columns()) {
    Column to;
    to.name = from.name;
    to.kind = from.kind;
    to.dictionary = from.dictionary;
    to.missing_codes = from.missing_codes;
    if (from.is_numeric())
      to.numeric.assign(from.numeric.begin() + first, from.numeric.begin() + last);
    else
      to.codes.assign(from.codes.begin() + first, from.codes.begin() + last);
    if (!from.missing_code_index.empty())
      to.missing_code_index.assign(from.missing_code_index.begin() + first,
                                   from.missing_code_index.begin() + last);
    columns.push_back(std::move(to));
  }
  return Table(table.source(), std::move(columns));
}

}  // namespace synthaudit
