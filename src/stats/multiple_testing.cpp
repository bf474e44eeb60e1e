#include "stats/multiple_testing.hpp"

#include <algorithm>
#include <cstddef>

namespace synthaudit::stats {

std::vector<double> corrected_p_values(const std::vector<double>& p, const std::string& method) {
  const std::size_t m = p.size();
  std::vector<double> out(m, 1.0);
  if (m == 0) return out;
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] < p[b]; });
  const double count = static_cast<double>(m);
  if (method == "bonferroni") {
    for (std::size_t i = 0; i < m; ++i) out[i] = std::min(1.0, count * p[i]);
  } else if (method == "benjamini-hochberg") {
    double running = 1.0;
    for (std::size_t k = m; k-- > 0;) {
      running = std::min(running, count / static_cast<double>(k + 1) * p[order[k]]);
      out[order[k]] = std::min(1.0, running);
    }
  } else {  // holm
    double running = 0.0;
    for (std::size_t k = 0; k < m; ++k) {
      running = std::max(running, (count - static_cast<double>(k)) * p[order[k]]);
      out[order[k]] = std::min(1.0, running);
    }
  }
  return out;
}

}  // namespace synthaudit::stats
