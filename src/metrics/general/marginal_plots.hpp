#pragma once
// Plot data for comparing one column's confidential and synthetic marginals,
// shared by the univariate metrics. Each function returns one plot object in the convention of
// metric.hpp (make_plot), summarised to a bounded number of records.
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "stats/kde.hpp"
#include "table/table.hpp"

namespace synthaudit::plots {

// Both ECDFs evaluated at up to `points` x values: the type-7 quantiles of the pooled sample at
// equally spaced probabilities (so the resolution follows the data), deduplicated. Records
// {x, dataset, cdf} with cdf = share of values ≤ x.
nlohmann::json ecdf_overlay(const std::string& column, std::span<const double> conf_sorted,
                            std::span<const double> syn_sorted, std::size_t points = 200);

// The same from its parts, for samples not held in one place (spread over ranks):
// `ecdf_probabilities` are the probabilities of the pooled quantiles, `ecdf_points` the x values
// they give, and `ecdf_overlay_at` the plot from each sample's size and number of values ≤ each x.
std::vector<double> ecdf_probabilities(std::size_t points = 200);
std::vector<double> ecdf_points(const std::vector<double>& pooled_quantiles);
nlohmann::json ecdf_overlay_at(const std::string& column, const std::vector<double>& xs,
                               std::size_t conf_size,
                               const std::vector<std::size_t>& conf_at_or_below,
                               std::size_t syn_size,
                               const std::vector<std::size_t>& syn_at_or_below);

// Type-7 quantiles of both samples at probabilities (k + 0.5)/points, k = 0..points−1. Records
// {probability, confidential, synthetic}.
nlohmann::json qq_pairs(const std::string& column, std::span<const double> conf_sorted,
                        std::span<const double> syn_sorted, std::size_t points = 100);

// The same from its parts: the probabilities, and both samples' quantiles at them (empty when
// the sample is).
std::vector<double> qq_probabilities(std::size_t points = 100);
nlohmann::json qq_pairs_at(const std::string& column, const std::vector<double>& probabilities,
                           const std::vector<double>& conf_quantiles,
                           const std::vector<double>& syn_quantiles);

// Histogram with `bins` equal-width bins over the pooled range (last bin closed), density =
// count / (n · width) so that both datasets integrate to 1. Records {bin_start, bin_end,
// dataset, density}.
nlohmann::json histogram_overlay(const std::string& column, std::span<const double> conf_sorted,
                                 std::span<const double> syn_sorted, std::size_t bins = 40);

// Gaussian KDE of each dataset (own bandwidth by `rule`, scipy gaussian_kde conventions) on
// `points` equally spaced x values over the pooled range widened by 3 bandwidths. Records
// {x, dataset, density}; the plot object also carries "bandwidth" per dataset, the rule and
// whether the binned approximation was used.
nlohmann::json density_overlay(const std::string& column, std::span<const double> conf_sorted,
                               std::span<const double> syn_sorted, stats::BandwidthRule rule,
                               std::size_t points = 200);

// Level shares of a categorical column in both datasets (missing shown as level "NA" when
// present). At most `max_levels` levels: beyond that the levels with the largest confidential or
// synthetic share are kept and the rest pooled into "(other levels)". Records {level, dataset,
// share}.
nlohmann::json category_bars(const Column& conf, const Column& syn, std::size_t max_levels = 50);
// The same from rows per level (missing last) of each dataset; `column` gives the name and levels.
nlohmann::json category_bars(const Column& column, const std::vector<double>& conf_counts,
                             const std::vector<double>& syn_counts, std::size_t max_levels = 50);

}  // namespace synthaudit::plots
