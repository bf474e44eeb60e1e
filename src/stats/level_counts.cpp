#include "stats/level_counts.hpp"

namespace synthaudit::stats {

std::vector<std::size_t> level_counts(const Column& column) {
  const std::size_t missing = column.cardinality();
  std::vector<std::size_t> counts(missing + 1, 0);
  for (auto code : column.codes) ++counts[is_missing(code) ? missing : code];
  return counts;
}

}  // namespace synthaudit::stats
