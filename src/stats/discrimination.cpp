#include "stats/discrimination.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace synthaudit::stats {

double pmse(const std::vector<double>& scores, double c) {
  if (scores.empty()) return std::nan("");
  double s = 0.0;
  for (double p : scores) s += (p - c) * (p - c);
  return s / static_cast<double>(scores.size());
}

DiscriminationSummary summarise_discrimination(const std::vector<double>& scores,
                                               const std::vector<std::uint8_t>& groups, double c) {
  if (scores.size() != groups.size())
    throw std::invalid_argument("summarise_discrimination: size mismatch");
  DiscriminationSummary s;
  const std::size_t n = scores.size();
  std::size_t correct = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (groups[i])
      ++s.n1;
    else
      ++s.n0;
    if ((scores[i] > 0.5 && groups[i]) || (scores[i] <= 0.5 && !groups[i])) ++correct;
  }
  s.pmse = pmse(scores, c);
  s.po50 = n ? 100.0 * static_cast<double>(correct) / static_cast<double>(n) - 50.0 : std::nan("");
  if (s.n0 == 0 || s.n1 == 0) {
    s.ks = s.u = s.auc = std::nan("");
    return s;
  }
  std::size_t cum0 = 0, cum1 = 0;
  const auto runs = score_runs(scores, groups);
  for (const auto& run : runs) {
    cum0 += run.negatives;
    cum1 += run.positives;
    s.ks = std::max(s.ks, std::abs(static_cast<double>(cum1) / static_cast<double>(s.n1) -
                                   static_cast<double>(cum0) / static_cast<double>(s.n0)));
  }
  s.u = mann_whitney_u(runs);
  s.auc = s.u / (static_cast<double>(s.n1) * static_cast<double>(s.n0));
  return s;
}

}  // namespace synthaudit::stats
