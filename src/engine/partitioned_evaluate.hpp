#pragma once
// An evaluation split by rows over the ranks of an MPI job (docs/mpi.md). Every rank reads its
// row range of every file (io/partitioned_read.hpp); the root (rank 0) also gathers the whole
// tables and runs the evaluation as one process does (evaluate.hpp: plan, baselines, verdict,
// documents, every output). A metric with a mergeable form (metrics/metric.hpp) runs on every
// rank's partition for a candidate's tables, the root merging the partial states; every other
// metric, and every baseline run, runs on the root over the gathered tables. Without whole tables a
// metric with a CollectiveForm that applies is computed by every rank together instead.
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "core/cluster.hpp"
#include "engine/evaluate.hpp"
#include "engine/partition.hpp"

namespace synthaudit {

namespace stats {
class NeighbourCache;
}

// Held by pointer: the directory refers to the tables by address, which a move keeps.
struct PartitionedData {
  std::unique_ptr<EvaluationData> part;  // this rank's rows of every table
  // On the root when the evaluation needs whole tables (needs_whole_tables): every row, as
  // load_evaluation_data reads. Null otherwise: the root's `part` then stands for the whole tables
  // (its warnings are the whole run's) and everything that reads rows asks the ranks.
  std::unique_ptr<EvaluationData> whole;
  PartitionDirectory directory;  // `part` (and on the root `whole`) by table id
};

// True when some part of the evaluation needs every row of a table on one rank: a selected
// metric without a mergeable form (or a selection that does not resolve), subgroups (`by`),
// partial synthesis (row correspondence), output checking, design weights or a household column
// (their checks and forms read rows in order), or declared analyses (checked by building their
// model layout over the confidential rows). Then the root gathers every table, as before.
bool needs_whole_tables(const EvaluationSpec& spec);

// Collective: load_evaluation_data over the ranks. Every rank throws the same InputError for bad
// input. The tables of `whole` equal load_evaluation_data's exactly (values, codes, dictionaries,
// warnings); those of `part` are row ranges of them, in rank order, with the same dictionaries.
// `whole` is read only when needs_whole_tables(spec); otherwise the root's `part` carries the
// whole run's warnings (levels found on one side only are merged from the ranks).
PartitionedData load_partitioned_evaluation_data(const EvaluationSpec& spec,
                                                 Communicator& communicator);

// Where the others' distributed parts are wired in (a distributed neighbour search, requests of
// their own): called on every rank, in registration order, once the data are loaded and before
// any metric runs, with the rank's cluster and tables and, on the root, the evaluation's
// neighbour cache (null elsewhere). A hook registers its cluster handlers (cluster.on) and may
// set the cache's search backend; it must not communicate, since the ranks reach it at different
// times. Register at start-up, before the first evaluation.
using PartitionHook =
    std::function<void(Cluster& cluster, PartitionDirectory& directory, stats::NeighbourCache*)>;
void register_partition_hook(PartitionHook hook);

// Collective: runs the evaluation. On the root `run` is called with the whole tables, or without
// them the root's partitions, and sinks for evaluate() (compute, neighbours and ranks set, and
// without whole tables whole_rows, check_data and select_rows, answered by the ranks; the caller
// adds its own progress and records) and its result is
// returned once the other ranks are released; the others serve the root's requests and return
// nullopt. An exception from `run` is rethrown on the root only, after the others are released.
// `find` names the metrics the ranks may be asked for (the registry; a test passes its own).
using MetricFinder = std::function<const MetricSpec*(std::string_view name)>;
std::optional<nlohmann::json> evaluate_partitioned(
    const EvaluationSpec& spec, PartitionedData& data, Communicator& communicator,
    const std::function<nlohmann::json(const EvaluationData& whole, EvaluationSinks sinks)>& run,
    const MetricFinder& find = {});

}  // namespace synthaudit
