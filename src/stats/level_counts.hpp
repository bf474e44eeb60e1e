#pragma once
// Rows per level of a categorical column: the counts every categorical comparison starts from.
#include <cstddef>
#include <vector>

#include "table/table.hpp"

namespace synthaudit::stats {

// For a categorical column: counts[k] = rows whose value is level k of its dictionary,
// k < cardinality(), then counts[cardinality()] = rows with a missing value.
std::vector<std::size_t> level_counts(const Column& column);

}  // namespace synthaudit::stats
