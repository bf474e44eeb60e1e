#include "metrics/distance_disclosure/distance_params.hpp"

#include "stats/column_lookup.hpp"

namespace synthaudit::distance_metrics {

std::vector<ParamSpec> selection_params(std::vector<ParamSpec> own) {
  std::vector<ParamSpec> params = {{.name = "distance",
                                    .type = ParamType::kString,
                                    .default_value = std::string("gower"),
                                    .doc = "distance between records",
                                    .choices = {"gower", "euclidean", "hamming", "cosine"}},
                                   {.name = "columns",
                                    .type = ParamType::kStringList,
                                    .default_value = std::vector<std::string>{},
                                    .doc = "columns to compare (empty = all)"}};
  params.insert(params.end(), own.begin(), own.end());
  return params;
}

stats::NeighbourOptions neighbour_options(const Table& confidential, const Params& params) {
  stats::NeighbourOptions options;
  options.distance =
      stats::distance_from_string(params.get_string("distance"), "parameter distance");
  options.columns =
      stats::resolve_columns(confidential, params.get_string_list("columns"), "parameter columns");
  options.scale = &confidential;
  return options;
}

}  // namespace synthaudit::distance_metrics
