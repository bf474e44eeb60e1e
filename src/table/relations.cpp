#include "table/relations.hpp"

#include <cmath>
#include <cstring>
#include <unordered_map>

namespace synthaudit {

std::vector<std::optional<std::string>> row_keys(const Table& table,
                                                 const std::vector<std::size_t>& columns) {
  std::vector<std::optional<std::string>> keys(table.rows());
  for (std::size_t r = 0; r < table.rows(); ++r) {
    std::string key;
    bool missing = false;
    for (std::size_t c : columns) {
      const Column& column = table.column(c);
      if (column.missing(r)) {
        missing = true;
        break;
      }
      if (column.is_numeric()) {
        double x = column.numeric[r];
        if (x == 0.0) x = 0.0;  // -0 and 0 are one key
        char bytes[sizeof x];
        std::memcpy(bytes, &x, sizeof x);
        key.append(bytes, sizeof x);
      } else {
        const std::string& level = column.dictionary->level(column.codes[r]);
        const auto length = static_cast<std::uint32_t>(level.size());
        char bytes[sizeof length];
        std::memcpy(bytes, &length, sizeof length);
        key.append(bytes, sizeof length);  // the length keeps ("ab", "c") apart from ("a", "bc")
        key += level;
      }
    }
    if (!missing) keys[r] = std::move(key);
  }
  return keys;
}

RelationCounts relate(const Table& parent, const std::vector<std::size_t>& primary_key,
                      const Table& child, const std::vector<std::size_t>& foreign_key,
                      const std::vector<std::size_t>& child_key) {
  RelationCounts counts;
  counts.parents = parent.rows();
  counts.children = child.rows();
  // Each distinct parent key: its first row and its number among the distinct keys.
  std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> parents;
  parents.reserve(parent.rows());
  for (std::size_t r = 0; const auto& key : row_keys(parent, primary_key)) {
    if (!key)
      ++counts.missing_parent_keys;
    else if (!parents.try_emplace(*key, r, parents.size()).second)
      ++counts.duplicate_parent_keys;
    ++r;
  }
  counts.children_per_parent.assign(parents.size(), 0);
  counts.parent_row.assign(child.rows(), kNoRow);
  for (std::size_t r = 0; const auto& key : row_keys(child, foreign_key)) {
    if (!key) {
      ++counts.missing_foreign_keys;
    } else if (const auto found = parents.find(*key); found == parents.end()) {
      ++counts.orphans;
    } else {
      counts.parent_row[r] = found->second.first;
      ++counts.children_per_parent[found->second.second];
    }
    ++r;
  }
  for (std::size_t n : counts.children_per_parent) counts.childless_parents += n == 0;
  if (child_key.empty()) return counts;
  std::unordered_map<std::string, char> seen;
  seen.reserve(child.rows());
  for (const auto& key : row_keys(child, child_key))
    if (key && !seen.emplace(*key, 0).second) ++counts.duplicate_child_keys;
  return counts;
}

Table join_parent_columns(const Table& child, const Table& parent,
                          const std::vector<std::size_t>& parent_row,
                          const std::vector<std::size_t>& parent_columns,
                          const std::vector<std::string>& names) {
  std::vector<Column> columns = child.columns();
  for (std::size_t i = 0; i < parent_columns.size(); ++i) {
    const Column& from = parent.column(parent_columns[i]);
    Column to;
    to.name = names[i];
    to.kind = from.kind;
    to.dictionary = from.dictionary;
    to.missing_codes = from.missing_codes;
    const std::size_t n = parent_row.size();
    if (from.is_numeric()) {
      to.numeric.resize(n);
      for (std::size_t r = 0; r < n; ++r)
        to.numeric[r] = parent_row[r] == kNoRow ? NAN : from.numeric[parent_row[r]];
    } else {
      to.codes.resize(n);
      for (std::size_t r = 0; r < n; ++r)
        to.codes[r] = parent_row[r] == kNoRow ? kMissingCode : from.codes[parent_row[r]];
    }
    if (!from.missing_code_index.empty()) {
      to.missing_code_index.resize(n, 0);
      for (std::size_t r = 0; r < n; ++r)
        if (parent_row[r] != kNoRow)
          to.missing_code_index[r] = from.missing_code_index[parent_row[r]];
    }
    columns.push_back(std::move(to));
  }
  return Table(child.source(), std::move(columns));
}

}  // namespace synthaudit
