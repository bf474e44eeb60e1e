#include "metrics/distance_disclosure/distance_params.hpp"

#include <limits>

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
  // The direction names the query data first: "syn_to_conf", "conf_to_syn", "holdout_to_syn".
  const std::string query = direction.substr(0, direction.find("_to_"));
  RecordValues records;
  records.scope = direction;
  records.data = query == "syn" ? "synthetic" : query == "conf" ? "confidential" : query;
  std::vector<double> nearest_row(neighbours.queries);
  for (std::size_t q = 0; q < neighbours.queries; ++q) {
    const std::uint32_t row = neighbours.idx(q, 0);
    nearest_row[q] = row == std::numeric_limits<std::uint32_t>::max()
                         ? std::numeric_limits<double>::quiet_NaN()
                         : static_cast<double>(row) + 1.0;
  }
  records.add_field("nearest_row", std::move(nearest_row));
  records.add_field("distance", neighbours.nearest());
  result.records.push_back(std::move(records));
}

}  // namespace synthaudit::distance_metrics
