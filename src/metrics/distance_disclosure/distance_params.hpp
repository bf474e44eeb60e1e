#pragma once
// The parameters every distance-based metric shares (which distance, which columns), declared
// once, and the neighbour-search options they resolve to.
#include <string>
#include <vector>

#include "metrics/metric.hpp"
#include "metrics/params.hpp"
#include "stats/nearest_neighbours.hpp"
#include "table/table.hpp"

namespace synthaudit::distance_metrics {

// `distance` (gower|euclidean|hamming|cosine, default gower), `columns` (empty = all) and
// `record_level` (default false), followed by the metric's own parameters.
std::vector<ParamSpec> selection_params(std::vector<ParamSpec> own);

// Search options from those parameters, on the confidential data's scale (ranges, standard
// deviations). Throws InputError for a column the confidential data lacks.
stats::NeighbourOptions neighbour_options(const Table& confidential, const Params& params);

// With record_level = true, adds every query record's nearest row (1-based) and distance to the
// result, under the direction as scope.
void add_record_level(MetricResult& result, const Params& params, const std::string& direction,
                      const stats::Neighbours& neighbours);

}  // namespace synthaudit::distance_metrics
