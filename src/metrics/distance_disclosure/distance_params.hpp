#pragma once
// The parameters every distance-based metric shares (which distance, which columns), declared
// once, and the neighbour-search options they resolve to.
#include <vector>

#include "metrics/params.hpp"
#include "stats/nearest_neighbours.hpp"
#include "table/table.hpp"

namespace synthaudit::distance_metrics {

// `distance` (gower|euclidean|hamming|cosine, default gower) and `columns` (empty = all),
// followed by the metric's own parameters.
std::vector<ParamSpec> selection_params(std::vector<ParamSpec> own);

// Search options from those parameters, on the confidential data's scale (ranges, standard
// deviations). Throws InputError for a column the confidential data lacks.
stats::NeighbourOptions neighbour_options(const Table& confidential, const Params& params);

}  // namespace synthaudit::distance_metrics
