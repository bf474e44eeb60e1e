#include "engine/partitioned_evaluate.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/wire_bytes.hpp"
#include "engine/data_checks.hpp"
#include "engine/distributed_neighbours.hpp"
#include "engine/memory_use.hpp"
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
constexpr char kMetricCollective[] = "metric collective";
constexpr char kRowKeys[] = "row keys";
constexpr char kColumnSummaries[] = "column summaries";
constexpr char kSubsample[] = "subsample";

std::string level_presence_bytes(const LevelPresence& presence) {
  WireWriter out;
  for (const auto& column : presence.confidential) out.put_vector(column);
  for (const auto& candidate : presence.candidates)
    for (const auto& column : candidate) out.put_vector(column);
  return out.take();
}

LevelPresence level_presence_from(const std::string& bytes, const LevelPresence& like) {
  WireReader in(bytes);
  LevelPresence out = like;
  for (auto& column : out.confidential) column = in.get_vector<std::uint8_t>();
  for (auto& candidate : out.candidates)
    for (auto& column : candidate) column = in.get_vector<std::uint8_t>();
  return out;
}

}  // namespace

void register_partition_hook(PartitionHook hook) {
  const std::lock_guard<std::mutex> lock(hooks_mutex);
  hooks().push_back(std::move(hook));
}

bool needs_whole_tables(const EvaluationSpec& spec) {
  if (!spec.by.empty() || spec.context.synthesis == SynthesisType::kPartial || spec.safe_output ||
      !spec.context.weights.empty() || spec.context.design.declared() ||
      !spec.context.household.empty() || !spec.context.analyses.empty())
    return true;
  try {
    for (const MetricSpec* metric : select_metrics(spec.metrics, spec.origin + ": metrics"))
      if (!metric->mergeable) return true;
  } catch (const InputError&) {
    return true;  // the evaluation reports the selection
  }
  return false;
}

PartitionedData load_partitioned_evaluation_data(const EvaluationSpec& spec,
                                                 Communicator& communicator) {
  // Every rank has the same spec, so every rank stops here alike.
  if (!spec.tables.empty())
    throw InputError(spec.origin +
                     ": tables: related tables are not read by a run over MPI ranks yet; run "
                     "the evaluation in one process");
  PartitionedData out;
  const bool gather = needs_whole_tables(spec);
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
  if (gather)
    for (Table* table : all_tables(data))
      gathered.push_back(communicator.gather(table_rows_bytes(*table)));
  if (gather && communicator.is_root()) {
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
    finish_evaluation_data(*out.whole, spec.context.synthesis, limits, true,
                           spec.context.household);
    check_named_columns_kept(spec, *out.whole);
  });
  // Row correspondence (partial synthesis) is a property of the whole files, checked above.
  run_agreed(communicator, [&] {
    finish_evaluation_data(data, SynthesisType::kFull, limits, false, spec.context.household);
    if (!gather) check_named_columns_kept(spec, data);
  });
  if (!gather) {
    // Levels held on one side only: what every rank holds, merged on the root.
    const LevelPresence own = level_presence(data);
    const auto parts = communicator.gather(level_presence_bytes(own));
    if (communicator.is_root()) {
      LevelPresence merged = own;
      for (const auto& part : parts) merge_level_presence(merged, level_presence_from(part, own));
      warn_about_levels(data, merged);
    }
  }

  const auto parts = all_tables(data);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    extents[i].second.rows = parts[i];
    out.directory.add(extents[i].first, extents[i].second);
  }
  if (communicator.is_root()) {
    EvaluationData& stands_for_whole = out.whole ? *out.whole : data;
    const auto ids = table_ids(stands_for_whole);
    const auto wholes = all_tables(stands_for_whole);
    for (std::size_t i = 0; i < wholes.size(); ++i) out.directory.add_whole(*wholes[i], ids[i]);
  }
  return out;
}

std::optional<nlohmann::json> evaluate_partitioned(
    const EvaluationSpec& spec, PartitionedData& data, Communicator& communicator,
    const std::function<nlohmann::json(const EvaluationData& whole, EvaluationSinks sinks)>& run,
    const MetricFinder& find) {
  const bool whole_tables =
      communicator.is_root() ? data.whole != nullptr : needs_whole_tables(spec);
  // The subsample tables the root asked for (baseline draws, candidates at the holdout's size):
  // this rank's rows of each, by id; the root's are the tables its evaluation reads.
  std::map<std::string, std::unique_ptr<Table>> subsamples;
  Cluster cluster(communicator);
  cluster.on(kSubsample, [&](const std::string& payload) {
    WireReader in(payload);
    for (const auto& released : in.get_strings()) {
      data.directory.remove(released);
      subsamples.erase(released);
    }
    const std::string id = in.get_string();
    const PartitionedTable pool = data.directory.find(in.get_string());
    TableSource source;
    source.path = in.get_string();
    source.sha256 = in.get_string();
    source.role = in.get_string();
    const auto rows = in.get_vector<std::uint64_t>();  // sorted
    const std::uint64_t first = pool.first_row, end = first + pool.rows->rows();
    const auto from = std::lower_bound(rows.begin(), rows.end(), first);
    const auto to = std::lower_bound(from, rows.end(), end);
    std::vector<std::size_t> own;
    own.reserve(static_cast<std::size_t>(to - from));
    for (auto it = from; it != to; ++it) own.push_back(static_cast<std::size_t>(*it - first));
    auto table = std::make_unique<Table>(select_rows(*pool.rows, own, source));
    data.directory.add(
        id,
        PartitionedTable{table.get(), static_cast<std::size_t>(from - rows.begin()), rows.size()});
    subsamples[id] = std::move(table);
    return std::string();
  });
  // The 128-bit keys of this rank's rows of a table (the copy checks).
  cluster.on(kRowKeys, [&](const std::string& id) {
    const auto keys = row_keys(*data.directory.find(id).rows);
    std::vector<std::uint64_t> flat;
    flat.reserve(2 * keys.size());
    for (const auto& [a, b] : keys) {
      flat.push_back(a);
      flat.push_back(b);
    }
    WireWriter out;
    out.put_vector(flat);
    return out.take();
  });
  // Row and missing counts and the extremes of every column of this rank's rows of a table.
  cluster.on(kColumnSummaries, [&](const std::string& id) {
    const Table& table = *data.directory.find(id).rows;
    const WholeColumnCounts counts = column_counts(table);
    WireWriter out;
    out.put<std::uint64_t>(counts.rows);
    for (const std::size_t missing : counts.missing) out.put<std::uint64_t>(missing);
    for (const auto& column : table.columns()) {
      const ColumnExtremes e = column_extremes(column);
      out.put<std::uint64_t>(e.values);
      out.put<std::uint64_t>(e.at_lo);
      out.put<std::uint64_t>(e.at_hi);
      out.put(e.lo);
      out.put(e.hi);
      out.put(e.above_lo);
      out.put(e.below_hi);
      out.put<std::uint64_t>(e.many_values ? UINT64_MAX : e.distinct.size());
      for (const double v : e.distinct) out.put(v);
    }
    return out.take();
  });
  // The metric a request names, its parameters and this rank's rows of the tables it names.
  struct MetricRequest {
    const MetricSpec* metric;
    Params params;
    std::uint64_t key;
    std::unique_ptr<MetricInput> input;
  };
  auto read_metric_request = [&](const std::string& payload) {
    WireReader in(payload);
    const std::string name = in.get_string();
    const std::string candidate = in.get_string();
    const auto seed = in.get<std::uint64_t>();
    const auto synthetic_ids = in.get_strings();
    const bool with_holdout = in.get<std::uint8_t>() != 0;
    const auto key = in.get<std::uint64_t>();
    const MetricSpec* metric = find ? find(name) : find_metric(name);
    if (metric == nullptr || !metric->mergeable)
      throw std::logic_error("no mergeable metric '" + name + "'");
    Params params = Params::resolve(metric->name, metric->params, given_parameters(spec, *metric),
                                    spec.origin + ": parameters." + metric->name);
    std::vector<const Table*> synthetic;
    for (const auto& id : synthetic_ids) synthetic.push_back(data.directory.find(id).rows);
    auto input = std::make_unique<MetricInput>(
        MetricInput{*data.directory.find("confidential").rows, std::move(synthetic),
                    with_holdout ? data.directory.find("holdout").rows : nullptr, spec.context,
                    candidate, seed, nullptr, nullptr});
    return MetricRequest{metric, std::move(params), key, std::move(input)};
  };
  // A metric's partial state over this rank's rows of the tables the root names.
  cluster.on(kMetricState, [&](const std::string& payload) {
    const MetricRequest request = read_metric_request(payload);
    std::string state = request.metric->mergeable->partial_state(*request.input, request.params);
    if (!communicator.is_root())
      log_memory("rank " + std::to_string(communicator.rank()) + ", " + request.metric->name);
    return state;
  });
  // A metric computed by every rank together over its rows (CollectiveForm); the root keeps its
  // result under the request's key for the caller, since several of the root's threads call.
  std::mutex collective_mutex;
  std::map<std::uint64_t, MetricResult> collective_results;
  cluster.on(kMetricCollective, [&](const std::string& payload) {
    const MetricRequest request = read_metric_request(payload);
    if (!request.metric->collective)
      throw std::logic_error("no collective form of '" + request.metric->name + "'");
    MetricResult result =
        request.metric->collective->run(*request.input, request.params, communicator);
    if (communicator.is_root()) {
      const std::lock_guard<std::mutex> lock(collective_mutex);
      collective_results[request.key] = std::move(result);
    } else {
      log_memory("rank " + std::to_string(communicator.rank()) + ", " + request.metric->name);
    }
    return std::string();
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
  auto forget_subsamples = [&] {
    for (const auto& [id, table] : subsamples) data.directory.remove(id);
    subsamples.clear();
  };
  if (!communicator.is_root()) {
    cluster.serve();
    forget_subsamples();
    return std::nullopt;
  }

  EvaluationSinks sinks;
  sinks.ranks = communicator.size();
  std::atomic<std::uint64_t> next_collective_key{0};
  sinks.neighbours = neighbours.get();
  // Without whole tables nothing can run on the root alone: needs_whole_tables let through a
  // metric or a table that has no partitions, which is a mistake in this file.
  auto cannot = [&](const MetricSpec& metric) -> std::optional<MetricResult> {
    if (whole_tables) return std::nullopt;
    throw std::logic_error("partitioned evaluation without whole tables: '" + metric.name +
                           "' cannot run over the ranks' partitions");
  };
  sinks.compute = [&, cannot](const MetricSpec& metric, const MetricInput& input,
                              const Params& params) -> std::optional<MetricResult> {
    if (!metric.mergeable) return cannot(metric);
    // Only tables with partitions on every rank: the whole tables (or the root's stand-ins for
    // them) and, without whole tables, the subsamples made through select_rows.
    if (data.directory.id_of(input.confidential) != std::optional<std::string>("confidential"))
      return cannot(metric);
    std::vector<std::string> synthetic_ids;
    std::vector<const Table*> synthetic_parts;
    for (const Table* table : input.synthetic) {
      const auto id = data.directory.id_of(*table);
      if (!id) return cannot(metric);
      synthetic_ids.push_back(*id);
      synthetic_parts.push_back(data.directory.find(*id).rows);
    }
    if (input.holdout &&
        data.directory.id_of(*input.holdout) != std::optional<std::string>("holdout"))
      return cannot(metric);
    const MetricInput schema{*data.directory.find("confidential").rows,
                             std::move(synthetic_parts),
                             input.holdout ? data.directory.find("holdout").rows : nullptr,
                             input.context,
                             input.candidate,
                             input.seed,
                             nullptr,
                             nullptr};
    // Without whole tables the ranks compute a metric together where its form allows: no rank
    // then holds more than about its share of what the metric sorts or groups.
    const bool together =
        !whole_tables && metric.collective && metric.collective->applies(schema, params);
    const std::uint64_t key = next_collective_key++;
    WireWriter request;
    request.put_string(metric.name);
    request.put_string(input.candidate);
    request.put(input.seed);
    request.put_strings(synthetic_ids);
    request.put<std::uint8_t>(input.holdout ? 1 : 0);
    request.put(key);
    if (together) {
      cluster.call(kMetricCollective, request.take());
      const std::lock_guard<std::mutex> lock(collective_mutex);
      const auto found = collective_results.find(key);
      if (found == collective_results.end())
        throw std::logic_error("collective metric '" + metric.name + "' left no result");
      MetricResult result = std::move(found->second);
      collective_results.erase(found);
      return result;
    }
    const auto states = cluster.call(kMetricState, request.take());
    return metric.mergeable->finalize(states, schema, params);
  };
  std::mutex released_mutex;
  std::vector<std::string> released;  // subsample ids the root no longer uses, dropped next call
  std::size_t made = 0;               // subsample tables made so far: their ids
  if (!whole_tables) {
    sinks.whole_rows = [&](const Table& table) {
      const auto id = data.directory.id_of(table);
      if (!id) throw std::logic_error("partitioned evaluation: a table with no partitions");
      return data.directory.find(*id).total_rows;
    };
    sinks.select_rows = [&](const Table& pool, const std::vector<std::size_t>& rows,
                            const TableSource& source) {
      const auto pool_id = data.directory.id_of(pool);
      if (!pool_id) throw std::logic_error("partitioned evaluation: a subsample of no partitions");
      const std::string id = "subsample/" + std::to_string(++made);
      WireWriter request;
      {
        const std::lock_guard<std::mutex> lock(released_mutex);
        request.put_strings(released);
        released.clear();
      }
      request.put_string(id);
      request.put_string(*pool_id);
      request.put_string(source.path);
      request.put_string(source.sha256);
      request.put_string(source.role);
      request.put_vector(std::vector<std::uint64_t>(rows.begin(), rows.end()));
      cluster.call(kSubsample, request.take());
      const Table* table = data.directory.find(id).rows;
      data.directory.add_whole(*table, id);
      return std::shared_ptr<const Table>(table, [&, id](const Table* done) {
        const std::lock_guard<std::mutex> lock(released_mutex);
        data.directory.remove_whole(*done);
        released.push_back(id);
      });
    };
    // The checks before the metrics, from what the ranks report about their rows: counts and
    // column extremes merge exactly; the row comparisons use 128-bit row keys gathered from the
    // ranks (16 bytes a row, kept only while the checks run), since equal rows must meet on one
    // rank to be counted and the keys are far smaller than the rows.
    sinks.check_data = [&](const EvaluationSpec& checked, const EvaluationData& tables) {
      WholeColumnCounts counts;
      std::vector<ColumnExtremes> extremes(tables.confidential.column_count());
      for (const auto& reply : cluster.call(kColumnSummaries, "confidential")) {
        WireReader in(reply);
        WholeColumnCounts part;
        part.rows = in.get<std::uint64_t>();
        for (std::size_t c = 0; c < extremes.size(); ++c)
          part.missing.push_back(in.get<std::uint64_t>());
        merge_column_counts(counts, part);
        for (auto& whole : extremes) {
          ColumnExtremes e;
          e.values = in.get<std::uint64_t>();
          e.at_lo = in.get<std::uint64_t>();
          e.at_hi = in.get<std::uint64_t>();
          e.lo = in.get<double>();
          e.hi = in.get<double>();
          e.above_lo = in.get<double>();
          e.below_hi = in.get<double>();
          const auto distinct = in.get<std::uint64_t>();
          e.many_values = distinct == UINT64_MAX;
          for (std::uint64_t i = 0; !e.many_values && i < distinct; ++i)
            e.distinct.push_back(in.get<double>());
          merge_column_extremes(whole, e);
        }
      }
      check_named_columns(checked, tables.confidential, &counts);
      std::map<std::string, std::vector<RowKey>> keys;
      auto keys_of = [&](const Table& table) -> const std::vector<RowKey>& {
        const auto id = data.directory.id_of(table);
        if (!id) throw std::logic_error("partitioned evaluation: row keys of no partitions");
        auto it = keys.find(*id);
        if (it != keys.end()) return it->second;
        // The confidential data's and the holdout's keys are read against every replicate; a
        // replicate's only in the comparisons of that replicate (at most one at a time).
        if (*id != "confidential" && *id != "holdout")
          std::erase_if(keys, [](const auto& entry) {
            return entry.first != "confidential" && entry.first != "holdout";
          });
        std::vector<RowKey> all;
        for (const auto& reply : cluster.call(kRowKeys, *id)) {
          WireReader in(reply);
          const auto flat = in.get_vector<std::uint64_t>();
          for (std::size_t k = 0; k + 1 < flat.size(); k += 2)
            all.push_back({flat[k], flat[k + 1]});
        }
        return keys.emplace(*id, std::move(all)).first->second;
      };
      std::vector<DataFinding> findings =
          check_copies(tables, checked.context.synthesis, row_key_comparisons(keys_of));
      for (auto& f : check_missing_code_spikes(tables.confidential, extremes))
        findings.push_back(std::move(f));
      for (auto& f :
           check_few_valued_numeric(tables.confidential, tables.schema, checked.context, extremes))
        findings.push_back(std::move(f));
      return findings;
    };
  }
  std::optional<nlohmann::json> document;
  std::exception_ptr failure;
  try {
    document = run(data.whole ? *data.whole : *data.part, std::move(sinks));
  } catch (...) {
    failure = std::current_exception();
  }
  cluster.stop();
  forget_subsamples();
  if (failure) std::rethrow_exception(failure);
  return document;
}

}  // namespace synthaudit
