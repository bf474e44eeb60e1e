#pragma once
// Columns named by the user (parameters, disclosure scenarios, analyses) to column indices, with
// one error wording for every caller.
#include <cstddef>
#include <string>
#include <vector>

#include "table/table.hpp"

namespace synthaudit::stats {

// Index of column `name` in `table`; InputError "<what>: no column 'name'" with a did-you-mean
// hint otherwise. `what` names where the name came from, e.g. "parameter columns".
std::size_t resolve_column(const Table& table, const std::string& name, const std::string& what);

// The same for several names, in their order.
std::vector<std::size_t> resolve_columns(const Table& table, const std::vector<std::string>& names,
                                         const std::string& what);

}  // namespace synthaudit::stats
