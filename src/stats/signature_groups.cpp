#include "stats/signature_groups.hpp"

#include <algorithm>
#include <numeric>

namespace synthaudit::stats {

std::vector<std::size_t> columns_by_distinct_values(const CodeColumns& columns) {
  const std::size_t nc = columns.size();
  std::vector<std::size_t> distinct(nc), perm(nc);
  for (std::size_t c = 0; c < nc; ++c) {
    std::vector<std::int32_t> v = columns[c];
    std::sort(v.begin(), v.end());
    distinct[c] = static_cast<std::size_t>(std::unique(v.begin(), v.end()) - v.begin());
  }
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::size_t a, std::size_t b) { return distinct[a] < distinct[b]; });
  return perm;
}

std::size_t signature_prefix_length(const CodeColumns& columns, std::size_t rows,
                                    std::size_t min_rows_per_group) {
  // Distinct prefixes by hashing (a collision only undercounts: the choice is a heuristic, the
  // grouping itself compares codes).
  std::size_t length = 0;
  std::vector<std::uint64_t> key(rows, 0x9e3779b97f4a7c15ULL), sorted;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    for (std::size_t j = 0; j < rows; ++j)
      key[j] = (key[j] ^ static_cast<std::uint32_t>(columns[c][j])) * 0xff51afd7ed558ccdULL + c;
    sorted = key;
    std::sort(sorted.begin(), sorted.end());
    const auto prefix_groups =
        static_cast<std::size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
    if (prefix_groups * min_rows_per_group > rows) break;
    length = c + 1;
  }
  return length;
}

SignatureGroups group_by_signature(const CodeColumns& columns, std::size_t signature_columns,
                                   std::size_t rows, const std::vector<double>& key) {
  SignatureGroups out;
  out.signature_columns = signature_columns;
  out.order.resize(rows);
  std::iota(out.order.begin(), out.order.end(), 0u);
  const std::size_t ng = signature_columns;
  auto less = [&](std::uint32_t a, std::uint32_t b) {
    for (std::size_t c = 0; c < ng; ++c)
      if (columns[c][a] != columns[c][b]) return columns[c][a] < columns[c][b];
    if (!key.empty() && key[a] != key[b]) return key[a] < key[b];
    return a < b;
  };
  auto same_signature = [&](std::uint32_t a, std::uint32_t b) {
    for (std::size_t c = 0; c < ng; ++c)
      if (columns[c][a] != columns[c][b]) return false;
    return true;
  };
  if (ng > 0 || !key.empty()) std::sort(out.order.begin(), out.order.end(), less);
  for (std::size_t i = 0; i < rows; ++i)
    if (i == 0 || (ng > 0 && !same_signature(out.order[i - 1], out.order[i])))
      out.start.push_back(i);
  out.start.push_back(rows);
  return out;
}

}  // namespace synthaudit::stats
