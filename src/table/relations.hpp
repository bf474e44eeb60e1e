#pragma once
// Related tables: a child table's rows matched to its parent's by key (persons to their
// household), the counts that say whether the relation holds (duplicate keys, orphans, childless
// parents, children per parent), and the child joined with its parent's columns. Keys are matched
// on values, not codes: each table has dictionaries of its own.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "table/table.hpp"

namespace synthaudit {

inline constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);

// The key of each row on `columns` as bytes (a number's value, a level's text; equal keys are
// equal values), or nullopt for a row with a missing key value.
std::vector<std::optional<std::string>> row_keys(const Table& table,
                                                 const std::vector<std::size_t>& columns);

struct RelationCounts {
  std::size_t parents = 0, children = 0;
  std::size_t duplicate_parent_keys = 0;  // parent rows whose key an earlier row has
  std::size_t missing_parent_keys = 0;    // parent rows with a missing key value
  std::size_t duplicate_child_keys = 0;   // child rows whose own key an earlier row has
  std::size_t missing_foreign_keys = 0;   // children with a missing foreign key value
  std::size_t orphans = 0;                // children whose foreign key no parent has
  std::size_t childless_parents = 0;      // parents (distinct keys) no child names
  // Children of each distinct parent key, in order of the key's first parent row (0 for a
  // childless parent).
  std::vector<std::size_t> children_per_parent;
  // For each child row, its parent's row (the first with the key), or kNoRow.
  std::vector<std::size_t> parent_row;
};

// The relation between `parent` (key columns `primary_key`) and `child` (its `foreign_key`
// columns holding the parent's key; its own key `child_key`, for duplicates: none counted when
// empty). Key columns of the
// two tables must be of one kind each (numbers with numbers, text with text).
RelationCounts relate(const Table& parent, const std::vector<std::size_t>& primary_key,
                      const Table& child, const std::vector<std::size_t>& foreign_key,
                      const std::vector<std::size_t>& child_key);

// `child` with the columns `parent_columns` of `parent` appended, each row taking its parent row's
// values (`parent_row`, missing for kNoRow), named `names` (same length as parent_columns).
Table join_parent_columns(const Table& child, const Table& parent,
                          const std::vector<std::size_t>& parent_row,
                          const std::vector<std::size_t>& parent_columns,
                          const std::vector<std::string>& names);

}  // namespace synthaudit
