#pragma once
// Runs an evaluation: load every dataset with one shared schema, run the selected metrics for
// every candidate and replicate, and build the results document (result/document.hpp).
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/progress.hpp"
#include "engine/data_checks.hpp"
#include "io/load.hpp"
#include "metrics/metric.hpp"
#include "spec/spec.hpp"

namespace synthaudit {

struct EvaluationData {
  Schema schema;
  Table confidential;
  std::optional<Table> holdout;
  struct Candidate {
    std::string name;
    std::vector<Table> replicates;
  };
  std::vector<Candidate> candidates;
  std::vector<std::string> warnings;
  // The warnings about how text files were read (a detected layout, a column that looks numeric
  // with a decimal comma): also in `warnings`; the command line shows them as it reads.
  std::vector<std::string> reading_warnings;
  // What was read as missing by a declared code or by a file's own declaration, per file.
  struct FileMissing {
    std::string path;
    std::string role;
    std::vector<MissingTally> columns;
  };
  std::vector<FileMissing> treated_as_missing;
  // Categorical columns left out as identifiers (more levels than limits.levels): name, levels.
  std::vector<std::pair<std::string, std::size_t>> identifiers;
  // Related tables (engine/related_tables.hpp): each relation's counts per dataset (results.json
  // "relations"; null without tables) and the findings they give (orphans fail a candidate).
  nlohmann::json relations;
  std::vector<DataFinding> relation_findings;
};

// Reads and encodes every file of the spec within spec.context.limits (docs/limits.md): the
// memory the reading and the metrics will need is estimated before each step and compared with
// the memory available (core/limits.hpp). Throws InputError for bad input.
EvaluationData load_evaluation_data(const EvaluationSpec& spec);

// The spec's reading settings with the evaluation's thread count and the limits of
// spec.context.limits applied (what load_evaluation_data and a partitioned read use).
ReadSettings reading_settings(const EvaluationSpec& spec);

// The steps after every table is encoded with data.schema, wherever the tables came from: leaves
// out categorical columns with more than limits.levels levels (identifiers, with a warning),
// sorts the dictionaries (finalize_dictionaries), checks that partial synthesis has row
// correspondence, and warns about levels found only in synthetic data.
// A partitioned read passes warn_levels = false and warns from the ranks' merged level_presence.
// A text `household` column becomes numbers first (each identifier's code): an identifier, not
// data, kept whatever its number of levels, and one that a household drawn twice can be given an
// identifier of its own in without a level the shared dictionary lacks (engine/baselines.hpp).
void finish_evaluation_data(EvaluationData& data, SynthesisType synthesis,
                            const ResourceLimits& limits = {}, bool warn_levels = true,
                            const std::string& household = "");

// Which levels of each categorical column the confidential data and each candidate (all its
// replicates) hold: [column][code] and [candidate][column][code], 1 when held. An OR merges
// row partitions exactly.
struct LevelPresence {
  std::vector<std::vector<std::uint8_t>> confidential;
  std::vector<std::vector<std::vector<std::uint8_t>>> candidates;
};
LevelPresence level_presence(const EvaluationData& data);
void merge_level_presence(LevelPresence& into, const LevelPresence& part);
void warn_about_levels(EvaluationData& data, const LevelPresence& presence);

// Reports progress lines ("running ks_distance on ideal 1/5") when set.
using ProgressFn = std::function<void(const std::string&)>;

// The per-record outputs of one metric run (metric.hpp's RecordValues), labelled. Values of the
// confidential data alone are kept once, with candidate and replicate empty.
struct RecordLevelOutput {
  std::string metric;
  std::string candidate;  // a candidate, or a baseline's name ("holdout"); empty: confidential_only
  std::string replicate;  // "1".."m", or "combined"; empty: confidential_only
  RecordValues records;
};

// What an evaluation reports besides its document; every member is optional.
struct EvaluationSinks {
  // Done/total and time left of long steps inside metrics (core/progress.hpp).
  ProgressSink* work_progress = nullptr;
  // Receives the per-record outputs that parameters ask for (record_level); they are dropped
  // when null. The runs at the holdout's size and the baselines' noise draws write none.
  std::vector<RecordLevelOutput>* records = nullptr;
  // A partitioned evaluation (engine/partitioned_evaluate.hpp) sets the three below. `compute`
  // runs a metric on a candidate's tables in place of its own compute when it can (a mergeable
  // metric over the ranks' partitions) and returns nullopt when it cannot; the baselines always
  // run here. `neighbours` is the evaluation's neighbour cache, made by the caller so that a
  // search backend can be set on it first. `ranks` is results.json's "ranks".
  std::function<std::optional<MetricResult>(const MetricSpec&, const MetricInput&, const Params&)>
      compute;
  stats::NeighbourCache* neighbours = nullptr;
  int ranks = 1;
  // A partitioned evaluation in which no rank holds whole tables sets the three below; the
  // tables evaluate() is given are then the root's partitions, standing for the whole tables,
  // and every metric must be computed by `compute`. `whole_rows` is a table's row count as a
  // whole; `check_data` runs the checks before the metrics (check_named_columns, check_copies,
  // check_missing_code_spikes) over the whole tables; `select_rows` makes a table of the given
  // rows (sorted, 0-based, of the whole pool) that `compute` accepts (a baseline's draw, a
  // candidate's subsample at the holdout's size), held until the pointer is released.
  std::function<std::size_t(const Table&)> whole_rows;
  std::function<std::vector<DataFinding>(const EvaluationSpec&, const EvaluationData&)> check_data;
  std::function<std::shared_ptr<const Table>(
      const Table& pool, const std::vector<std::size_t>& rows, const TableSource& source)>
      select_rows;
};

// Throws InputError when a column the spec names (disclosure keys and targets, analyses, `by`)
// was left out as an identifier by finish_evaluation_data.
void check_named_columns_kept(const EvaluationSpec& spec, const EvaluationData& data);

// records.tsv, long format: header `candidate replicate metric scope data row field value`, one
// line per record and field, rows 1-based as in the data files (the first data row is 1), values
// with 17 significant digits, NA for NaN.
std::string records_tsv(const std::vector<RecordLevelOutput>& records);

// Sorts the row indices of a baseline draw (each below `pool`) ascending, so that taking the rows
// reads each column forward: by counting when the pool is at most 4 times the draw, else by a
// comparison sort (the same sequence either way).
void sort_drawn_rows(std::vector<std::size_t>& rows, std::size_t pool);

// Runs the metrics and returns the "synthaudit/1" results document. This is the one entry point
// of every front end (the command line after reading files; the library, include/synthaudit).
// It runs on spec.context.threads threads (0 = omp_get_max_threads() of the calling thread)
// without changing the calling thread's OpenMP settings (core/threads.hpp).
nlohmann::json evaluate(const EvaluationSpec& spec, const EvaluationData& data,
                        const ProgressFn& progress = {}, const EvaluationSinks& sinks = {});

// A result's values as the document's `values` array (NaN as null).
nlohmann::json values_to_json(const std::vector<MetricValue>& values);

// Mean over replicates of each (statistic, scope) that every replicate reports; NaN when any
// replicate's value is NaN.
std::vector<MetricValue> mean_over_replicates(const std::vector<MetricResult>& results);

// Seed for one (metric, candidate, replicate), independent of run order and thread count.
std::uint64_t derive_seed(std::uint64_t seed, const std::string& metric,
                          const std::string& candidate, std::size_t replicate);

}  // namespace synthaudit
