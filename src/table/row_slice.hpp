#pragma once
// Consecutive row ranges of a table: the partitions of a row-partitioned evaluation.
#include <cstddef>

#include "table/table.hpp"

namespace synthaudit {

// Rows [begin, end) of `table` as a new table with the same source and shared dictionaries, so
// codes keep their meaning. Throws std::out_of_range unless begin <= end <= table.rows().
Table slice_rows(const Table& table, std::size_t begin, std::size_t end);

}  // namespace synthaudit
