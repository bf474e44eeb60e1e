#include "stats/discrimination.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace synthaudit::stats {

namespace {
std::vector<std::size_t> order_by_score(const std::vector<double>& scores) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  return order;
}
}  // namespace

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
  const auto order = order_by_score(scores);
  double rank_sum1 = 0.0;
  std::size_t cum0 = 0, cum1 = 0;
  for (std::size_t a = 0; a < n;) {
    std::size_t b = a;
    std::size_t c0 = 0, c1 = 0;
    while (b < n && scores[order[b]] == scores[order[a]]) {
      if (groups[order[b]])
        ++c1;
      else
        ++c0;
      ++b;
    }
    const double mid_rank = 0.5 * static_cast<double>(a + 1 + b);  // average of ranks a+1..b
    rank_sum1 += mid_rank * static_cast<double>(c1);
    cum0 += c0;
    cum1 += c1;
    s.ks = std::max(s.ks, std::abs(static_cast<double>(cum1) / static_cast<double>(s.n1) -
                                   static_cast<double>(cum0) / static_cast<double>(s.n0)));
    a = b;
  }
  const double n1 = static_cast<double>(s.n1);
  s.u = rank_sum1 - n1 * (n1 + 1.0) / 2.0;
  s.auc = s.u / (n1 * static_cast<double>(s.n0));
  return s;
}

std::vector<RocPoint> roc_curve(const std::vector<double>& scores,
                                const std::vector<std::uint8_t>& groups, std::size_t max_points) {
  std::vector<RocPoint> points;
  std::size_t n1 = 0, n0 = 0;
  for (auto g : groups) (g ? n1 : n0)++;
  if (n1 == 0 || n0 == 0) return points;
  auto order = order_by_score(scores);
  std::reverse(order.begin(), order.end());
  points.push_back({std::numeric_limits<double>::infinity(), 0.0, 0.0});
  std::size_t tp = 0, fp = 0;
  for (std::size_t a = 0; a < order.size();) {
    std::size_t b = a;
    while (b < order.size() && scores[order[b]] == scores[order[a]]) {
      (groups[order[b]] ? tp : fp)++;
      ++b;
    }
    points.push_back({scores[order[a]], static_cast<double>(fp) / static_cast<double>(n0),
                      static_cast<double>(tp) / static_cast<double>(n1)});
    a = b;
  }
  if (points.size() > max_points && max_points >= 2) {
    std::vector<RocPoint> thin;
    const std::size_t m = points.size();
    for (std::size_t k = 0; k < max_points; ++k)
      thin.push_back(points[k * (m - 1) / (max_points - 1)]);
    points.swap(thin);
  }
  return points;
}

}  // namespace synthaudit::stats
