#pragma once
// The fallback of a mergeable form (MergeableForm, metric.hpp) for what it cannot merge: a
// per-record output a parameter asks for (records.tsv in row order), or a key coding whose bin
// breaks need every row. Its partition state then carries the partition's rows, and finalize
// runs the metric's `compute` on the tables put back together in row order: the metric is
// computed on one process with every row gathered there, so the result is exactly the
// single-process one and the memory is that of the whole tables on the merging process.
//
// Every state of a form that uses this begins with its kind (begin_merged_state /
// gathered_state), and finalize starts with finalize_if_gathered.
#include <optional>
#include <string>
#include <vector>

#include "metrics/metric.hpp"
#include "metrics/partial_state.hpp"

namespace synthaudit {

// A writer whose state is marked as a merged one (sufficient statistics follow).
StateWriter begin_merged_state();
// A reader past the mark; std::logic_error when the state is not a merged one.
StateReader open_merged_state(const std::string& state);

// The partition's rows of every table of `partition` (confidential, each synthetic table, the
// holdout), marked as gathered.
std::string gathered_state(const MetricInput& partition);

// When the states are gathered ones: `compute` on the whole tables rebuilt from them in order,
// with `schema`'s columns, dictionaries, sources and context. nullopt when they are merged ones;
// std::logic_error when the kinds are mixed.
std::optional<MetricResult> finalize_if_gathered(const std::vector<std::string>& states,
                                                 const MetricInput& schema, const Params& params,
                                                 const ComputeFn& compute);

}  // namespace synthaudit
