#include "engine/distributed_neighbours.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/wire_bytes.hpp"
#include "stats/partitioned_neighbours.hpp"

namespace synthaudit {

namespace {

constexpr char kNeighbourSearch[] = "neighbour_search";
constexpr char kTiedNeighbourSearch[] = "tied_neighbour_search";

// What the root's searches pass to its own rank's share of the work: the progress sink lives on
// the root only. One request at a time: cluster requests are collective.
struct RootState {
  std::mutex calls;
  ProgressSink* progress = nullptr;
  std::string progress_task;
};

struct SearchRequest {
  std::string query, reference, scale;  // table ids; a self-search names one table twice
  std::uint8_t distance = 0, mode = 0;
  std::uint64_t k = 0;
  std::vector<std::uint64_t> columns;
};

std::string encode(const SearchRequest& request) {
  WireWriter out;
  out.put_string(request.query);
  out.put_string(request.reference);
  out.put_string(request.scale);
  out.put(request.distance);
  out.put(request.mode);
  out.put(request.k);
  out.put_vector(request.columns);
  return out.take();
}

SearchRequest decode(const std::string& payload) {
  WireReader in(payload, "neighbour search request");
  SearchRequest request;
  request.query = in.get_string();
  request.reference = in.get_string();
  request.scale = in.get_string();
  request.distance = in.get<std::uint8_t>();
  request.mode = in.get<std::uint8_t>();
  request.k = in.get<std::uint64_t>();
  request.columns = in.get_vector<std::uint64_t>();
  in.finish();
  return request;
}

// Every rank looks its tables up, and all agree on a failure before any exchange whose number
// depends on success: a rank that left the request early would leave the others waiting.
std::vector<const PartitionedTable*> find_everywhere(Communicator& communicator,
                                                     const PartitionDirectory& directory,
                                                     const std::vector<std::string>& ids) {
  std::vector<const PartitionedTable*> found;
  std::string problem;
  try {
    for (const auto& id : ids) found.push_back(&directory.find(id));
  } catch (const std::exception& error) {
    problem = error.what();
  }
  const auto problems = communicator.all_gather(problem);
  for (std::size_t rank = 0; rank < problems.size(); ++rank)
    if (!problems[rank].empty())
      throw std::runtime_error(problems[rank] + " (on rank " + std::to_string(rank) + ")");
  return found;
}

// The whole table on every rank: the ranks' partitions in rank order, with this rank's column
// names, kinds and dictionaries (agreed by all ranks). The per-row missing-code markers are not
// carried: no distance reads them.
Table gather_whole_table(Communicator& communicator, const PartitionedTable& part) {
  const Table& rows = *part.rows;
  std::vector<std::string> all;
  {
    WireWriter out;
    out.put<std::uint64_t>(part.first_row);
    out.put<std::uint64_t>(rows.rows());
    for (const Column& column : rows.columns()) {
      if (column.is_numeric()) {
        out.put_vector(column.numeric);
      } else {
        out.put_vector(column.codes);
      }
    }
    all = communicator.all_gather(out.take());
  }
  std::vector<Column> columns;
  columns.reserve(rows.column_count());
  for (const Column& from : rows.columns()) {
    Column to;
    to.name = from.name;
    to.kind = from.kind;
    to.dictionary = from.dictionary;
    to.missing_codes = from.missing_codes;
    if (to.is_numeric()) {
      to.numeric.reserve(part.total_rows);
    } else {
      to.codes.reserve(part.total_rows);
    }
    columns.push_back(std::move(to));
  }
  std::size_t next_row = 0;
  for (std::string& bytes : all) {
    WireReader in(bytes, "table partition");
    const auto first = in.get<std::uint64_t>();
    const auto count = in.get<std::uint64_t>();
    if (first != next_row)
      throw std::runtime_error("partitioned evaluation: the partitions of '" + rows.source().path +
                               "' are not consecutive row ranges");
    for (Column& column : columns) {
      if (column.is_numeric()) {
        const auto values = in.get_vector<double>();
        if (values.size() != count) throw std::runtime_error("malformed table partition bytes");
        column.numeric.insert(column.numeric.end(), values.begin(), values.end());
      } else {
        const auto codes = in.get_vector<std::uint32_t>();
        if (codes.size() != count) throw std::runtime_error("malformed table partition bytes");
        column.codes.insert(column.codes.end(), codes.begin(), codes.end());
      }
    }
    in.finish();
    next_row += count;
    std::string().swap(bytes);
  }
  if (next_row != part.total_rows)
    throw std::runtime_error("partitioned evaluation: the partitions of '" + rows.source().path +
                             "' do not add up to the whole table");
  return Table(rows.source(), std::move(columns));
}

std::string search_here(Communicator& communicator, const PartitionDirectory& directory,
                        RootState& root, const std::string& payload) {
  const SearchRequest request = decode(payload);
  const auto parts =
      find_everywhere(communicator, directory, {request.query, request.reference, request.scale});
  const PartitionedTable& reference = *parts[1];
  auto scales = std::make_shared<const stats::DistanceScales>(
      stats::gather_distance_scales(communicator, *parts[2]->rows));
  const Table query = gather_whole_table(communicator, *parts[0]);
  stats::NeighbourOptions options;
  options.distance = static_cast<stats::DistanceKind>(request.distance);
  options.mode = static_cast<stats::SearchMode>(request.mode);
  options.k = static_cast<std::size_t>(request.k);
  options.columns.assign(request.columns.begin(), request.columns.end());
  if (communicator.is_root()) {
    options.progress = root.progress;
    options.progress_task = root.progress_task;
  }
  return stats::serialise(stats::search_reference_part(query, *reference.rows, reference.first_row,
                                                       reference.total_rows, options,
                                                       std::move(scales)));
}

std::string tied_search_here(Communicator& communicator, const PartitionDirectory& directory,
                             const std::string& payload) {
  const SearchRequest request = decode(payload);
  const auto parts = find_everywhere(communicator, directory, {request.query, request.reference});
  const PartitionedTable& reference = *parts[1];
  const Table query = gather_whole_table(communicator, *parts[0]);
  const std::vector<std::size_t> columns(request.columns.begin(), request.columns.end());
  const auto ranges = stats::gather_attack_ranges(communicator, query, *reference.rows, columns);
  return stats::serialise(stats::tied_candidates_of_part(query, *reference.rows,
                                                         reference.first_row, columns, ranges,
                                                         static_cast<std::size_t>(request.k)));
}

}  // namespace

void register_distributed_neighbours(Cluster& cluster, PartitionDirectory& directory,
                                     stats::NeighbourCache* root_cache) {
  auto root = std::make_shared<RootState>();
  Communicator& communicator = cluster.communicator();
  cluster.on(kNeighbourSearch, [&communicator, &directory, root](const std::string& payload) {
    return search_here(communicator, directory, *root, payload);
  });
  cluster.on(kTiedNeighbourSearch, [&communicator, &directory](const std::string& payload) {
    return tied_search_here(communicator, directory, payload);
  });
  if (root_cache == nullptr) return;
  if (!cluster.is_root())
    throw std::logic_error(
        "register_distributed_neighbours: a cache on a rank other than the root");

  root_cache->set_backend(
      [&cluster, &directory, root](
          const Table& query, const Table& reference,
          const stats::NeighbourOptions& options) -> std::optional<stats::Neighbours> {
        if (options.scales) return std::nullopt;  // given scales: not a search of named tables
        const auto query_id = directory.id_of(query);
        const auto reference_id = directory.id_of(reference);
        const auto scale_id = options.scale ? directory.id_of(*options.scale) : reference_id;
        if (!query_id || !reference_id || !scale_id) return std::nullopt;
        SearchRequest request{*query_id,
                              *reference_id,
                              *scale_id,
                              static_cast<std::uint8_t>(options.distance),
                              static_cast<std::uint8_t>(options.mode),
                              options.k,
                              {}};
        request.columns.assign(options.columns.begin(), options.columns.end());
        std::vector<std::string> replies;
        {
          const std::lock_guard<std::mutex> lock(root->calls);
          root->progress = options.progress;
          root->progress_task = options.progress_task;
          replies = cluster.call(kNeighbourSearch, encode(request));
          root->progress = nullptr;
        }
        std::vector<stats::Neighbours> parts;
        parts.reserve(replies.size());
        for (std::string& reply : replies) {
          parts.push_back(stats::deserialise_neighbours(reply));
          std::string().swap(reply);
        }
        stats::Neighbours merged = stats::merge_neighbours(parts);
        if (merged.queries != query.rows())
          throw std::logic_error(
              "distributed neighbour search: the ranks searched another query table");
        return merged;
      });

  root_cache->set_tied_backend(
      [&cluster, &directory, root](
          const Table& query, const Table& reference, const std::vector<std::size_t>& columns,
          std::size_t k) -> std::shared_ptr<const stats::TiedNeighbourLists> {
        const auto query_id = directory.id_of(query);
        const auto reference_id = directory.id_of(reference);
        if (!query_id || !reference_id) return nullptr;
        SearchRequest request{*query_id, *reference_id, {}, 0, 0, k, {}};
        request.columns.assign(columns.begin(), columns.end());
        std::vector<std::string> replies;
        {
          const std::lock_guard<std::mutex> lock(root->calls);
          replies = cluster.call(kTiedNeighbourSearch, encode(request));
        }
        std::vector<stats::TiedCandidates> parts;
        parts.reserve(replies.size());
        for (std::string& reply : replies) {
          parts.push_back(stats::deserialise_tied_candidates(reply));
          std::string().swap(reply);
        }
        return stats::merge_tied_candidates(parts, reference.rows());
      });
}

}  // namespace synthaudit
