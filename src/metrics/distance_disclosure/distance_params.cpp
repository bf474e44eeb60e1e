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
                                    .doc = "columns to compare (empty = all)"},
                                   {.name = "record_level",
                                    .type = ParamType::kBool,
                                    .default_value = false,
                                    .doc = "write each query record's nearest distance and "
                                           "nearest row to records.tsv beside results.tsv"}};
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

void add_record_level(MetricResult& result, const Params& params, const std::string& direction,
                      const stats::Neighbours& neighbours) {
  if (!params.get_bool("record_level")) return;
  NearestRecords records{direction, neighbours.nearest(), {}};
  records.nearest_row.resize(neighbours.queries);
  for (std::size_t q = 0; q < neighbours.queries; ++q)
    records.nearest_row[q] = neighbours.idx(q, 0);
  result.records.push_back(std::move(records));
}

}  // namespace synthaudit::distance_metrics
