#include "engine/partitioned_evaluate.hpp"

#include <algorithm>
#include <mutex>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/wire_bytes.hpp"
#include "engine/distributed_neighbours.hpp"
#include "io/partitioned_read.hpp"
#include "metrics/registry.hpp"
#include "spec/spec.hpp"
#include "stats/neighbour_cache.hpp"

namespace synthaudit {

namespace {

std::mutex hooks_mutex;
std::vector<PartitionHook>& hooks() {
  static std::vector<PartitionHook> registered;
  return registered;
}

// The rows of a table, without its column names, kinds and dictionaries (the schema gives them).
std::string table_rows_bytes(const Table& table) {
  WireWriter out;
  out.put<std::uint64_t>(table.rows());
  for (const auto& column : table.columns()) {
    out.put_vector(column.numeric);
    out.put_vector(column.missing_code_index);
    out.put_vector(column.codes);
  }
  return out.take();
}

// The parts of one table, in rank order, as one table with the columns of `like`.
Table concatenate(const std::vector<std::string>& parts, const Table& like,
                  const std::vector<std::shared_ptr<Dictionary>>& dictionaries,
                  TableSource source) {
  std::vector<Column> columns(like.column_count());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    columns[c].name = like.column(c).name;
    columns[c].kind = like.column(c).kind;
    columns[c].missing_codes = like.column(c).missing_codes;
    columns[c].dictionary = dictionaries[c];
  }
  for (const auto& part : parts) {
    WireReader in(part);
    in.get<std::uint64_t>();
    for (auto& column : columns) {
      auto append = [](auto& to, const auto& from) {
        to.insert(to.end(), from.begin(), from.end());
      };
      append(column.numeric, in.get_vector<double>());
      append(column.missing_code_index, in.get_vector<std::uint8_t>());
      append(column.codes, in.get_vector<std::uint32_t>());
    }
  }
  return Table(std::move(source), std::move(columns));
}

std::vector<Table*> all_tables(EvaluationData& data) {
  std::vector<Table*> out = {&data.confidential};
  for (auto& c : data.candidates)
    for (auto& t : c.replicates) out.push_back(&t);
  if (data.holdout) out.push_back(&*data.holdout);
  return out;
}

std::vector<std::string> table_ids(const EvaluationData& data) {
  std::vector<std::string> out = {"confidential"};
  for (const auto& c : data.candidates)
    for (std::size_t r = 0; r < c.replicates.size(); ++r)
      out.push_back(synthetic_table_id(c.name, r + 1));
  if (data.holdout) out.push_back("holdout");
  return out;
}

constexpr char kMetricState[] = "metric state";

}  // namespace

void register_partition_hook(PartitionHook hook) {
  const std::lock_guard<std::mutex> lock(hooks_mutex);
  hooks().push_back(std::move(hook));
}

PartitionedData load_partitioned_evaluation_data(const EvaluationSpec& spec,
                                                 Communicator& communicator) {
  PartitionedData out;
  out.part = std::make_unique<EvaluationData>();
  EvaluationData& data = *out.part;
  const ResourceLimits& limits = spec.context.limits;
  ReadSettings settings = reading_settings(spec);
  if (!spec.metadata.empty()) {
    std::map<std::string, ColumnKind> kinds;
    run_agreed(communicator, [&] { kinds = read_sdv_metadata(spec.metadata, limits); });
    for (const auto& [name, kind] : kinds) settings.kinds.emplace(name, kind);
  }
  // The layout each text file was assumed to have, as load_evaluation_data words it.
  std::vector<std::pair<std::string, std::vector<std::string>>> layouts;
  auto note_layout = [&](const PartitionedFile& file, const std::string& path) {
    if (file.assumed_layout.empty()) return;
    auto same = std::find_if(layouts.begin(), layouts.end(),
                             [&](const auto& entry) { return entry.first == file.assumed_layout; });
    if (same == layouts.end()) same = layouts.insert(layouts.end(), {file.assumed_layout, {}});
    if (std::find(same->second.begin(), same->second.end(), path) == same->second.end())
      same->second.push_back(path);
  };
  auto keep_tallies = [&](const std::string& path, const std::string& role,
                          std::vector<MissingTally> tallies) {
    if (!tallies.empty()) data.treated_as_missing.push_back({path, role, std::move(tallies)});
  };
  std::vector<std::pair<std::string, PartitionedTable>> extents;
  auto note_extent = [&](const std::string& id, const PartitionedFile& file) {
    extents.push_back({id, PartitionedTable{nullptr, file.first_row, file.total_rows}});
  };

  {
    const PartitionedFile conf = open_partitioned(spec.confidential, settings, communicator);
    note_layout(conf, spec.confidential);
    data.schema = infer_partitioned_schema(conf, settings, communicator);
    std::vector<MissingTally> tallies;
    data.confidential = encode_partitioned(conf, data.schema, settings, "confidential",
                                           communicator, nullptr, &tallies);
    keep_tallies(spec.confidential, "confidential", std::move(tallies));
    data.reading_warnings = decimal_comma_warnings(data.schema, *conf.rows);
    note_extent("confidential", conf);
  }
  auto load_other = [&](const std::string& path, const std::string& role, const std::string& id) {
    const PartitionedFile file = open_partitioned(path, settings, communicator);
    note_layout(file, path);
    std::vector<std::string> ignored;
    std::vector<MissingTally> tallies;
    Table table =
        encode_partitioned(file, data.schema, settings, role, communicator, &ignored, &tallies);
    if (!ignored.empty())
      data.warnings.push_back(
          path + ": columns not in the confidential data are ignored: " + join(ignored, ", "));
    const auto& metadata = file.rows->metadata();
    for (std::size_t i = 0; i < metadata.size(); ++i) {
      const auto& name = file.rows->header()[i];
      for (const auto& entry : data.schema.columns) {
        if (entry.name != name) continue;
        std::vector<std::string> undeclared;
        for (double code : metadata[i].declared_missing_codes)
          if (std::find(entry.missing_codes.begin(), entry.missing_codes.end(), code) ==
              entry.missing_codes.end())
            undeclared.push_back(format_number(code));
        if (!undeclared.empty())
          data.warnings.push_back(
              path + ": column '" + name + "': the file declares " + join(undeclared, ", ") +
              " missing, but the confidential data do not, so they are read as values here "
              "(declare them in missing_codes to treat them as missing in every file)");
      }
    }
    keep_tallies(path, role, std::move(tallies));
    note_extent(id, file);
    return table;
  };
  for (const auto& candidate : spec.candidates) {
    EvaluationData::Candidate c{candidate.name, {}};
    for (std::size_t r = 0; r < candidate.replicates.size(); ++r)
      c.replicates.push_back(load_other(candidate.replicates[r], "synthetic",
                                        synthetic_table_id(candidate.name, r + 1)));
    data.candidates.push_back(std::move(c));
  }
  if (spec.holdout) data.holdout = load_other(*spec.holdout, "holdout", "holdout");
  for (auto it = layouts.rbegin(); it != layouts.rend(); ++it)
    data.reading_warnings.insert(data.reading_warnings.begin(),
                                 join(it->second, ", ") + ": " + it->first);
  data.warnings.insert(data.warnings.begin(), data.reading_warnings.begin(),
                       data.reading_warnings.end());

  // The root gathers every table before the dictionaries are sorted, then finishes them as one
  // process does; every rank finishes its partition the same way (the same columns are
  // identifiers and the same sorted order is reached, since the dictionaries are equal).
  std::vector<std::vector<std::string>> gathered;
  for (Table* table : all_tables(data))
    gathered.push_back(communicator.gather(table_rows_bytes(*table)));
  if (communicator.is_root()) {
    EvaluationData whole;
    whole.schema = data.schema;
    std::vector<std::shared_ptr<Dictionary>> dictionaries;
    for (auto& entry : whole.schema.columns) {
      if (entry.dictionary) entry.dictionary = std::make_shared<Dictionary>(*entry.dictionary);
      dictionaries.push_back(entry.dictionary);
    }
    const auto parts = all_tables(data);
    std::size_t next = 0;
    auto rebuild = [&](const Table& part) {
      return concatenate(gathered[next++], part, dictionaries, part.source());
    };
    whole.confidential = rebuild(data.confidential);
    for (const auto& c : data.candidates) {
      EvaluationData::Candidate wc{c.name, {}};
      for (const auto& t : c.replicates) wc.replicates.push_back(rebuild(t));
      whole.candidates.push_back(std::move(wc));
    }
    if (data.holdout) whole.holdout = rebuild(*data.holdout);
    whole.warnings = data.warnings;
    whole.reading_warnings = data.reading_warnings;
    whole.treated_as_missing = data.treated_as_missing;
    out.whole = std::make_unique<EvaluationData>(std::move(whole));
  }
  gathered.clear();
  run_agreed(communicator, [&] {
    if (!out.whole) return;
    finish_evaluation_data(*out.whole, spec.context.synthesis, limits);
    check_named_columns_kept(spec, *out.whole);
  });
  // Row correspondence (partial synthesis) is a property of the whole files, checked above.
  run_agreed(communicator, [&] { finish_evaluation_data(data, SynthesisType::kFull, limits); });

  const auto parts = all_tables(data);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    extents[i].second.rows = parts[i];
    out.directory.add(extents[i].first, extents[i].second);
  }
  if (out.whole) {
    const auto ids = table_ids(*out.whole);
    const auto wholes = all_tables(*out.whole);
    for (std::size_t i = 0; i < wholes.size(); ++i) out.directory.add_whole(*wholes[i], ids[i]);
  }
  return out;
}

std::optional<nlohmann::json> evaluate_partitioned(
    const EvaluationSpec& spec, PartitionedData& data, Communicator& communicator,
    const std::function<nlohmann::json(const EvaluationData& whole, EvaluationSinks sinks)>& run,
    const MetricFinder& find) {
  Cluster cluster(communicator);
  // A metric's partial state over this rank's rows of the tables the root names.
  cluster.on(kMetricState, [&](const std::string& payload) {
    WireReader in(payload);
    const std::string name = in.get_string();
    const std::string candidate = in.get_string();
    const auto seed = in.get<std::uint64_t>();
    const auto synthetic_ids = in.get_strings();
    const bool with_holdout = in.get<std::uint8_t>() != 0;
    const MetricSpec* metric = find ? find(name) : find_metric(name);
    if (metric == nullptr || !metric->mergeable)
      throw std::logic_error("no mergeable metric '" + name + "'");
    const Params params =
        Params::resolve(metric->name, metric->params, given_parameters(spec, *metric),
                        spec.origin + ": parameters." + metric->name);
    std::vector<const Table*> synthetic;
    for (const auto& id : synthetic_ids) synthetic.push_back(data.directory.find(id).rows);
    const MetricInput input{*data.directory.find("confidential").rows,
                            std::move(synthetic),
                            with_holdout ? data.directory.find("holdout").rows : nullptr,
                            spec.context,
                            candidate,
                            seed,
                            nullptr,
                            nullptr};
    return metric->mergeable->partial_state(input, params);
  });

  std::unique_ptr<stats::NeighbourCache> neighbours;
  if (communicator.is_root()) neighbours = std::make_unique<stats::NeighbourCache>();
  // Searches over the gathered tables run on every rank's share of the reference rows, merged
  // exactly (engine/distributed_neighbours.hpp).
  register_distributed_neighbours(cluster, data.directory, neighbours.get());
  {
    std::vector<PartitionHook> registered;
    {
      const std::lock_guard<std::mutex> lock(hooks_mutex);
      registered = hooks();
    }
    for (const auto& hook : registered) hook(cluster, data.directory, neighbours.get());
  }
  if (!communicator.is_root()) {
    cluster.serve();
    return std::nullopt;
  }

  EvaluationSinks sinks;
  sinks.ranks = communicator.size();
  sinks.neighbours = neighbours.get();
  sinks.compute = [&](const MetricSpec& metric, const MetricInput& input,
                      const Params& params) -> std::optional<MetricResult> {
    if (!metric.mergeable) return std::nullopt;
    // Only the whole tables the root gathered have partitions; a subsample does not.
    if (data.directory.id_of(input.confidential) != std::optional<std::string>("confidential"))
      return std::nullopt;
    std::vector<std::string> synthetic_ids;
    std::vector<const Table*> synthetic_parts;
    for (const Table* table : input.synthetic) {
      const auto id = data.directory.id_of(*table);
      if (!id || id->rfind("synthetic/", 0) != 0) return std::nullopt;
      synthetic_ids.push_back(*id);
      synthetic_parts.push_back(data.directory.find(*id).rows);
    }
    if (input.holdout &&
        data.directory.id_of(*input.holdout) != std::optional<std::string>("holdout"))
      return std::nullopt;
    WireWriter request;
    request.put_string(metric.name);
    request.put_string(input.candidate);
    request.put(input.seed);
    request.put_strings(synthetic_ids);
    request.put<std::uint8_t>(input.holdout ? 1 : 0);
    const auto states = cluster.call(kMetricState, request.take());
    const MetricInput schema{*data.directory.find("confidential").rows,
                             std::move(synthetic_parts),
                             input.holdout ? data.directory.find("holdout").rows : nullptr,
                             input.context,
                             input.candidate,
                             input.seed,
                             nullptr,
                             nullptr};
    return metric.mergeable->finalize(states, schema, params);
  };
  std::optional<nlohmann::json> document;
  std::exception_ptr failure;
  try {
    document = run(*data.whole, std::move(sinks));
  } catch (...) {
    failure = std::current_exception();
  }
  cluster.stop();
  if (failure) std::rethrow_exception(failure);
  return document;
}

}  // namespace synthaudit
