#include "stats/column_lookup.hpp"

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit::stats {

std::size_t resolve_column(const Table& table, const std::string& name, const std::string& what) {
  if (auto index = table.find(name)) return *index;
  throw InputError(what + ": no column '" + name + "'" + column_hint(name, table.column_names()));
}

std::vector<std::size_t> resolve_columns(const Table& table, const std::vector<std::string>& names,
                                         const std::string& what) {
  std::vector<std::size_t> out;
  out.reserve(names.size());
  for (const auto& name : names) out.push_back(resolve_column(table, name, what));
  return out;
}

}  // namespace synthaudit::stats
