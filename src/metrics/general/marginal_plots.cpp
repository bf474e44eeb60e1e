#include "metrics/general/marginal_plots.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <tuple>
#include <vector>

#include "metrics/metric.hpp"
#include "stats/binning.hpp"
#include "stats/level_counts.hpp"
#include "stats/quantile.hpp"
#include "stats/summary.hpp"

namespace synthaudit::plots {

namespace {

const char* kConf = "confidential";
const char* kSyn = "synthetic";

std::size_t at_or_below(std::span<const double> sorted, double x) {
  return static_cast<std::size_t>(std::upper_bound(sorted.begin(), sorted.end(), x) -
                                  sorted.begin());
}

std::vector<double> pooled(std::span<const double> a, std::span<const double> b) {
  std::vector<double> all(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), all.begin());
  return all;
}

}  // namespace

std::vector<double> ecdf_probabilities(std::size_t points) {
  std::vector<double> probabilities;
  if (points < 2) return probabilities;
  for (std::size_t k = 0; k < points; ++k)
    probabilities.push_back(static_cast<double>(k) / static_cast<double>(points - 1));
  return probabilities;
}

std::vector<double> ecdf_points(const std::vector<double>& pooled_quantiles) {
  std::vector<double> xs;
  for (double x : pooled_quantiles)
    if (xs.empty() || x != xs.back()) xs.push_back(x);
  return xs;
}

nlohmann::json ecdf_overlay_at(const std::string& column, const std::vector<double>& xs,
                               std::size_t conf_size,
                               const std::vector<std::size_t>& conf_at_or_below,
                               std::size_t syn_size,
                               const std::vector<std::size_t>& syn_at_or_below) {
  auto plot = make_plot("ecdf", "Empirical CDF of " + column, column, "share ≤ x", column);
  for (const auto& [name, size, counts] : {std::tuple{kConf, conf_size, &conf_at_or_below},
                                           std::tuple{kSyn, syn_size, &syn_at_or_below}}) {
    if (size == 0) continue;
    for (std::size_t k = 0; k < xs.size(); ++k)
      plot["data"].push_back(
          {{"x", xs[k]},
           {"dataset", name},
           {"cdf", static_cast<double>((*counts)[k]) / static_cast<double>(size)}});
  }
  return plot;
}

nlohmann::json ecdf_overlay(const std::string& column, std::span<const double> conf_sorted,
                            std::span<const double> syn_sorted, std::size_t points) {
  const auto all = pooled(conf_sorted, syn_sorted);
  std::vector<double> xs;
  if (!all.empty()) {
    std::vector<double> quantiles;
    for (double p : ecdf_probabilities(points))
      quantiles.push_back(stats::quantile_type7(all, p, stats::QuantileArithmetic::kNumpy));
    xs = ecdf_points(quantiles);
  }
  std::vector<std::size_t> conf_counts, syn_counts;
  for (double x : xs) {
    conf_counts.push_back(at_or_below(conf_sorted, x));
    syn_counts.push_back(at_or_below(syn_sorted, x));
  }
  return ecdf_overlay_at(column, xs, conf_sorted.size(), conf_counts, syn_sorted.size(),
                         syn_counts);
}

std::vector<double> qq_probabilities(std::size_t points) {
  std::vector<double> probabilities;
  for (std::size_t k = 0; k < points; ++k)
    probabilities.push_back((static_cast<double>(k) + 0.5) / static_cast<double>(points));
  return probabilities;
}

nlohmann::json qq_pairs_at(const std::string& column, const std::vector<double>& probabilities,
                           const std::vector<double>& conf_quantiles,
                           const std::vector<double>& syn_quantiles) {
  auto plot =
      make_plot("qq", "Quantile–quantile plot of " + column, column + " (confidential quantile)",
                column + " (synthetic quantile)", column);
  if (conf_quantiles.empty() || syn_quantiles.empty()) return plot;
  for (std::size_t k = 0; k < probabilities.size(); ++k)
    plot["data"].push_back({{"probability", probabilities[k]},
                            {"confidential", conf_quantiles[k]},
                            {"synthetic", syn_quantiles[k]}});
  return plot;
}

nlohmann::json qq_pairs(const std::string& column, std::span<const double> conf_sorted,
                        std::span<const double> syn_sorted, std::size_t points) {
  const auto probabilities = qq_probabilities(points);
  std::vector<double> conf, syn;
  if (!conf_sorted.empty() && !syn_sorted.empty())
    for (double p : probabilities) {
      conf.push_back(stats::quantile_type7(conf_sorted, p, stats::QuantileArithmetic::kNumpy));
      syn.push_back(stats::quantile_type7(syn_sorted, p, stats::QuantileArithmetic::kNumpy));
    }
  return qq_pairs_at(column, probabilities, conf, syn);
}

nlohmann::json histogram_overlay(const std::string& column, std::span<const double> conf_sorted,
                                 std::span<const double> syn_sorted, std::size_t bins) {
  auto plot = make_plot("histogram", "Histogram of " + column, column, "density", column);
  if ((conf_sorted.empty() && syn_sorted.empty()) || bins == 0) return plot;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (auto s : {conf_sorted, syn_sorted})
    if (!s.empty()) {
      lo = std::min(lo, s.front());
      hi = std::max(hi, s.back());
    }
  if (hi == lo) {  // a single value: one bin of width 1 around it
    lo -= 0.5;
    hi += 0.5;
    bins = 1;
  }
  const double width = (hi - lo) / static_cast<double>(bins);
  for (const auto& [name, sample] : {std::pair{kConf, conf_sorted}, std::pair{kSyn, syn_sorted}}) {
    if (sample.empty()) continue;
    const double n = static_cast<double>(sample.size());
    for (const auto& bin : stats::histogram(sample, lo, hi, bins))
      plot["data"].push_back({{"bin_start", bin.start},
                              {"bin_end", bin.end},
                              {"dataset", name},
                              {"density", static_cast<double>(bin.count) / (n * width)}});
  }
  return plot;
}

nlohmann::json density_overlay(const std::string& column, std::span<const double> conf_sorted,
                               std::span<const double> syn_sorted, stats::BandwidthRule rule,
                               std::size_t points) {
  auto plot = make_plot("density", "Kernel density of " + column, column, "density", column);
  const char* rule_name = rule == stats::BandwidthRule::kScott ? "scott" : "silverman";
  plot["kernel"] = "gaussian";
  plot["bandwidth_rule"] = rule_name;
  const double hc = stats::kde_bandwidth(conf_sorted, rule);
  const double hs = stats::kde_bandwidth(syn_sorted, rule);
  plot["bandwidth"] = {{kConf, std::isfinite(hc) ? nlohmann::json(hc) : nlohmann::json(nullptr)},
                       {kSyn, std::isfinite(hs) ? nlohmann::json(hs) : nlohmann::json(nullptr)}};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, pad = 0;
  for (auto s : {conf_sorted, syn_sorted})
    if (!s.empty()) {
      lo = std::min(lo, s.front());
      hi = std::max(hi, s.back());
    }
  for (double h : {hc, hs})
    if (std::isfinite(h)) pad = std::max(pad, 3.0 * h);
  if (!(std::isfinite(hc) || std::isfinite(hs)) || points < 2) return plot;
  lo -= pad;
  hi += pad;
  std::vector<double> grid(points);
  for (std::size_t k = 0; k < points; ++k)
    grid[k] = lo + (hi - lo) * static_cast<double>(k) / static_cast<double>(points - 1);
  bool binned = false;
  for (const auto& [name, sample, h] :
       {std::tuple{kConf, conf_sorted, hc}, std::tuple{kSyn, syn_sorted, hs}}) {
    if (!std::isfinite(h)) continue;
    const auto curve = stats::kde_evaluate(sample, h, grid);
    binned = binned || curve.binned;
    for (std::size_t k = 0; k < points; ++k)
      plot["data"].push_back({{"x", grid[k]}, {"dataset", name}, {"density", curve.density[k]}});
  }
  plot["binned_approximation"] = binned;
  return plot;
}

nlohmann::json category_bars(const Column& conf, const Column& syn, std::size_t max_levels) {
  auto count = [](const Column& c) {
    const auto counts = stats::level_counts(c);
    return std::vector<double>(counts.begin(), counts.end());
  };
  return category_bars(conf, count(conf), count(syn), max_levels);
}

nlohmann::json category_bars(const Column& conf, const std::vector<double>& cc,
                             const std::vector<double>& cs, std::size_t max_levels) {
  auto plot = make_plot("bars", "Level shares of " + conf.name, conf.name, "share", conf.name);
  const std::size_t k = conf.cardinality();
  double nc = 0, ns = 0;
  for (double c : cc) nc += c;
  for (double c : cs) ns += c;
  auto share = [](double c, double n) { return n > 0 ? c / n : 0.0; };
  std::vector<std::size_t> levels;
  for (std::size_t l = 0; l <= k; ++l)
    if (cc[l] > 0 || cs[l] > 0) levels.push_back(l);
  std::vector<std::size_t> kept = levels, pooled_levels;
  if (levels.size() > max_levels) {
    std::vector<std::size_t> order = levels;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::max(share(cc[a], nc), share(cs[a], ns)) >
             std::max(share(cc[b], nc), share(cs[b], ns));
    });
    kept.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(max_levels - 1));
    std::sort(kept.begin(), kept.end());
    pooled_levels.assign(order.begin() + static_cast<std::ptrdiff_t>(max_levels - 1), order.end());
  }
  for (const auto& [name, counts, n] : {std::tuple{kConf, &cc, nc}, std::tuple{kSyn, &cs, ns}}) {
    if (n == 0) continue;
    // A confidential bar stands for its records (`count`, the plot convention), so output
    // checking drops the bars of few records that their shares would reveal.
    const auto bar = [&, name = name, n = n](std::string level, double records) {
      nlohmann::json record = {
          {"level", std::move(level)}, {"dataset", name}, {"share", records / n}};
      if (std::string_view(name) == kConf) record["count"] = records;
      plot["data"].push_back(std::move(record));
    };
    for (std::size_t l : kept)
      bar(l == k ? std::string("NA") : conf.dictionary->level(static_cast<std::uint32_t>(l)),
          (*counts)[l]);
    if (!pooled_levels.empty()) {
      double other = 0;
      for (std::size_t l : pooled_levels) other += (*counts)[l];
      bar("(other levels)", other);
    }
  }
  return plot;
}

}  // namespace synthaudit::plots
