#include "engine/subgroups.hpp"

#include <algorithm>
#include <iterator>
#include <map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/baselines.hpp"
#include "metrics/registry.hpp"

namespace synthaudit {

namespace {

// Each row's codes in the columns of one subset.
std::vector<std::uint32_t> row_codes(const Table& table, const std::vector<std::size_t>& columns,
                                     std::size_t row) {
  std::vector<std::uint32_t> codes;
  codes.reserve(columns.size());
  for (std::size_t col : columns) codes.push_back(table.column(col).codes[row]);
  return codes;
}

// The rows of `table` grouped by their codes in `columns`: the rows of group g (numbered as in
// `groups`) are rows[start[g] .. start[g + 1]); rows whose codes are in no group are left out.
Subgroups::Buckets bucket_rows(const Table& table, const std::vector<std::size_t>& columns,
                               const std::map<std::vector<std::uint32_t>, std::size_t>& groups) {
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> group_of(table.rows(), kNone);
  Subgroups::Buckets out;
  out.start.assign(groups.size() + 1, 0);
  for (std::size_t row = 0; row < table.rows(); ++row) {
    const auto it = groups.find(row_codes(table, columns, row));
    if (it == groups.end()) continue;
    group_of[row] = it->second;
    ++out.start[it->second + 1];
  }
  for (std::size_t g = 0; g < groups.size(); ++g) out.start[g + 1] += out.start[g];
  out.rows.resize(out.start.back());
  std::vector<std::size_t> next(out.start.begin(), out.start.end() - 1);
  for (std::size_t row = 0; row < table.rows(); ++row)
    if (group_of[row] != kNone) out.rows[next[group_of[row]]++] = row;
  return out;
}

// The median of the replicates' row counts in a subgroup: the size its baselines are drawn at.
std::size_t median_size(const std::vector<std::vector<std::vector<std::size_t>>>& synthetic) {
  std::vector<std::size_t> sizes;
  for (const auto& candidate : synthetic)
    for (const auto& replicate : candidate) sizes.push_back(replicate.size());
  if (sizes.empty()) return 0;
  std::sort(sizes.begin(), sizes.end());
  return sizes[(sizes.size() - 1) / 2];
}

}  // namespace

Subgroups::Subgroups(const EvaluationSpec& spec, const EvaluationData& data)
    : data_(data), by_(spec.by), partial_(spec.context.synthesis == SynthesisType::kPartial) {
  const Table& confidential = data.confidential;
  std::vector<std::size_t> by;
  for (const auto& name : spec.by) {
    const auto index = confidential.find(name);
    if (!index)
      throw InputError(spec.origin + ": by: no column '" + name + "' in the confidential data (" +
                       confidential.source().path + ")" +
                       column_hint(name, confidential.column_names()));
    const Column& column = confidential.column(*index);
    if (!column.is_categorical())
      throw InputError(spec.origin + ": by: column '" + name +
                       "' is numeric; subgroups need a categorical column (declare it "
                       "categorical under columns:, or group its values into a new column)");
    if (confidential.rows() > 0 && column.missing_count() == confidential.rows())
      throw InputError(spec.origin + ": by: column '" + name +
                       "' has no value in the confidential data (every row is missing)");
    by.push_back(*index);
  }
  // Subsets in the order of their size, then of the by-list: bit i of `mask` is by[i].
  const std::size_t k = by.size();
  std::vector<unsigned> masks;
  for (unsigned mask = 1; mask < (1u << k); ++mask) masks.push_back(mask);
  std::stable_sort(masks.begin(), masks.end(), [](unsigned a, unsigned b) {
    const int pa = __builtin_popcount(a), pb = __builtin_popcount(b);
    if (pa != pb) return pa < pb;
    // Lower bits first: {c1, c2} before {c1, c3} before {c2, c3}.
    for (unsigned bit = 1; bit != 0; bit <<= 1)
      if ((a & bit) != (b & bit)) return (a & bit) != 0;
    return false;
  });
  for (unsigned mask : masks) {
    std::vector<std::size_t> columns;
    for (std::size_t i = 0; i < k; ++i)
      if (mask & (1u << i)) columns.push_back(by[i]);
    // Codes sort with missing (the largest code) last, and dictionaries are sorted.
    std::map<std::vector<std::uint32_t>, std::size_t> found;
    for (std::size_t row = 0; row < confidential.rows(); ++row)
      found.emplace(row_codes(confidential, columns, row), 0);
    std::size_t local = 0;
    for (auto& [codes, number] : found) {
      number = local++;
      Subgroup group;
      std::vector<std::string> parts;
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const Column& column = confidential.column(columns[i]);
        group.columns.push_back(column.name);
        group.levels.push_back(is_missing(codes[i]) ? "NA" : column.dictionary->level(codes[i]));
        parts.push_back(group.columns.back() + "=" + group.levels.back());
      }
      group.label = join(parts, ",");
      groups_.push_back(std::move(group));
      place_.emplace_back(sets_.size(), number);
    }
    // Each table's rows, bucketed once: a subgroup's rows are then a slice, whichever metric asks.
    ColumnSet set;
    set.confidential = bucket_rows(confidential, columns, found);
    if (data.holdout) set.holdout = bucket_rows(*data.holdout, columns, found);
    if (!partial_)
      for (const auto& candidate : data.candidates) {
        set.synthetic.emplace_back();
        for (const auto& replicate : candidate.replicates)
          set.synthetic.back().push_back(bucket_rows(replicate, columns, found));
      }
    sets_.push_back(std::move(set));
  }
}

SubgroupRows Subgroups::rows(std::size_t index) const {
  const auto [set_index, local] = place_[index];
  const ColumnSet& set = sets_[set_index];
  auto slice = [local = local](const Buckets& buckets) {
    return std::vector<std::size_t>(
        buckets.rows.begin() + static_cast<std::ptrdiff_t>(buckets.start[local]),
        buckets.rows.begin() + static_cast<std::ptrdiff_t>(buckets.start[local + 1]));
  };
  SubgroupRows out;
  out.confidential = slice(set.confidential);
  if (set.holdout) out.holdout = slice(*set.holdout);
  for (std::size_t c = 0; c < data_.candidates.size(); ++c) {
    out.synthetic.emplace_back();
    for (std::size_t r = 0; r < data_.candidates[c].replicates.size(); ++r)
      out.synthetic.back().push_back(partial_ ? out.confidential : slice(set.synthetic[c][r]));
  }
  return out;
}

nlohmann::json Subgroups::summary(std::size_t min_rows) const {
  auto groups = nlohmann::json::array();
  for (const auto& g : groups_)
    groups.push_back({{"label", g.label}, {"by", g.columns}, {"levels", g.levels}});
  auto families = nlohmann::json::array();
  for (MetricFamily family : subgroup_families()) families.push_back(to_string(family));
  return {{"by", by_},
          {"min_rows", min_rows},
          {"families", std::move(families)},
          {"groups", std::move(groups)},
          {"note",
           "Each subgroup is the rows of the confidential data, of every synthetic replicate and "
           "of the holdout with these levels (missing values form the level NA). A subgroup with "
           "fewer than " +
               std::to_string(min_rows) +
               " confidential or synthetic rows is suppressed, not computed. Subgroup values are "
               "reported, each with the subgroup's own holdout and resample baselines, not "
               "headlined: the verdict reads the whole data, except for policy criteria that name "
               "a subgroup. The other families "
               "score the release as a whole (propensity models, nearest records, attacks, SDC "
               "risk per key combination) and are not run in subgroups."}};
}

nlohmann::json run_in_subgroups(const MetricSpec& metric, const Params& params,
                                const EvaluationSpec& spec, const EvaluationData& data,
                                const Subgroups& subgroups, std::size_t min_rows,
                                const ProgressFn& progress, ProgressSink* work_progress) {
  nlohmann::json out = nlohmann::json::array();
  const std::string below = "fewer than " + std::to_string(min_rows) + " rows";
  for (std::size_t g = 0; g < subgroups.groups().size(); ++g) {
    const Subgroup& group = subgroups.groups()[g];
    nlohmann::json entry = {{"label", group.label},
                            {"by", group.columns},
                            {"levels", group.levels},
                            {"candidates", nlohmann::json::array()}};
    const SubgroupRows rows = subgroups.rows(g);
    if (rows.confidential.size() < min_rows) {
      entry["suppressed"] = "the confidential data have " + below + " in this subgroup";
      out.push_back(std::move(entry));
      continue;
    }
    entry["rows"] = {{"confidential", rows.confidential.size()}};
    if (rows.holdout && rows.holdout->size() >= min_rows)
      entry["rows"]["holdout"] = rows.holdout->size();
    if (metric.needs_holdout && rows.holdout && rows.holdout->size() < min_rows) {
      entry["suppressed"] = "the holdout has " + below + " in this subgroup";
      out.push_back(std::move(entry));
      continue;
    }
    auto source_of = [&](const Table& table) {
      TableSource source = table.source();
      source.path += " (subgroup " + group.label + ")";
      return source;
    };
    const Table confidential =
        select_rows(data.confidential, rows.confidential, source_of(data.confidential));
    std::optional<Table> holdout;
    if (rows.holdout) holdout = select_rows(*data.holdout, *rows.holdout, source_of(*data.holdout));

    // The subgroup's baselines, drawn from its own rows at its synthetic size (the median of the
    // replicates' subgroup rows), so that its values are judged as the whole data's are.
    DrawScoring scoring;
    scoring.confidential = &confidential;
    scoring.holdout = holdout ? &*holdout : nullptr;
    scoring.context = &spec.context;
    scoring.seed = spec.context.seed;
    scoring.work_progress = work_progress;
    scoring.progress = progress;
    scoring.where = " in subgroup " + group.label;
    scoring.subgroup = true;
    std::vector<BaselineData> baselines;
    auto notes = nlohmann::json::array();
    const std::uint64_t draw_seed =
        derive_seed(spec.context.seed, "subgroup baseline rows", group.label, 0);
    const std::size_t n_synthetic = median_size(rows.synthetic);
    const bool wants_any = wants_baseline(metric, BaselineKind::kHoldout) ||
                           wants_baseline(metric, BaselineKind::kResample);
    // A baseline drawn at fewer rows than the minimum would be a statistic of that few records.
    if (spec.baseline_draws > 0 && wants_any && n_synthetic < min_rows)
      notes.push_back("no baselines: the synthetic data have " + below +
                      " in this subgroup (the size baselines are drawn at)");
    else if (spec.baseline_draws > 0 && n_synthetic > 0) {
      if (wants_baseline(metric, BaselineKind::kHoldout) && holdout) {
        if (holdout->rows() >= min_rows)
          baselines.push_back(holdout_baseline(
              *holdout, holdout->rows(), n_synthetic, spec.baseline_draws, draw_seed,
              DrawUnits(*holdout, holdout->rows(), spec.context.household)));
        else
          notes.push_back("no holdout baseline: the holdout has " + below + " in this subgroup");
      }
      if (wants_baseline(metric, BaselineKind::kResample))
        baselines.push_back(resample_baseline(
            confidential, confidential.rows(), n_synthetic, spec.baseline_draws, draw_seed,
            DrawUnits(confidential, confidential.rows(), spec.context.household)));
    }
    // The holdout baseline when it is smaller than the subgroup's synthetic rows.
    const BaselineData* size_matched = nullptr;
    for (const auto& b : baselines)
      if (b.name == "holdout" && b.value_is_pool && b.rows < n_synthetic) size_matched = &b;

    for (std::size_t c = 0; c < data.candidates.size(); ++c) {
      const auto& candidate = data.candidates[c];
      nlohmann::json cand = {{"name", candidate.name}};
      const auto& replicate_rows = rows.synthetic[c];
      const bool small =
          std::any_of(replicate_rows.begin(), replicate_rows.end(),
                      [&](const std::vector<std::size_t>& r) { return r.size() < min_rows; });
      if (small) {
        cand["suppressed"] =
            "the synthetic data have " + below + " in this subgroup" +
            (candidate.replicates.size() > 1 ? " (in at least one replicate)" : "");
        entry["candidates"].push_back(std::move(cand));
        continue;
      }
      // One replicate's rows at a time where the metric takes one (the copies are the memory a
      // subgroup adds to the run).
      auto replicate_subset = [&](std::size_t r) {
        return select_rows(candidate.replicates[r], replicate_rows[r],
                           source_of(candidate.replicates[r]));
      };
      auto run_one = [&](std::vector<const Table*> tables, std::size_t replicate) {
        if (progress)
          progress("running " + metric.name + " on " + candidate.name + " in subgroup " +
                   group.label);
        MetricInput input{confidential,
                          std::move(tables),
                          holdout ? &*holdout : nullptr,
                          spec.context,
                          candidate.name,
                          derive_seed(spec.context.seed, metric.name, candidate.name, replicate),
                          nullptr,
                          work_progress};
        input.plots = false;  // a subgroup keeps values and warnings only
        MetricResult result;
        // Within a small group an analysis can lose a level or a key set its matches; that
        // group's value is then not available, which the whole evaluation must survive.
        try {
          result = metric.compute(input, params);
        } catch (const MetricNotApplicable& e) {
          result = MetricResult{};
          result.warnings.push_back(std::string("not applicable in this subgroup: ") + e.what());
        } catch (const InputError& e) {
          result = MetricResult{};
          result.warnings.push_back(std::string("not computed in this subgroup: ") + e.what());
        }
        result.records.clear();
        return result;
      };
      if (metric.granularity == MetricGranularity::kPerReplicate) {
        cand["replicates"] = nlohmann::json::array();
        std::vector<MetricResult> results;
        for (std::size_t r = 0; r < candidate.replicates.size(); ++r) {
          const Table replicate = replicate_subset(r);
          MetricResult result = run_one({&replicate}, r + 1);
          cand["replicates"].push_back({{"replicate", r + 1},
                                        {"rows", replicate.rows()},
                                        {"values", values_to_json(result.values)},
                                        {"warnings", result.warnings}});
          results.push_back(std::move(result));
        }
        if (results.size() > 1)
          cand["mean"] = {{"values", values_to_json(mean_over_replicates(results))}};
      } else {
        std::vector<Table> replicates;
        for (std::size_t r = 0; r < candidate.replicates.size(); ++r)
          replicates.push_back(replicate_subset(r));
        std::vector<const Table*> tables;
        for (const auto& t : replicates) tables.push_back(&t);
        MetricResult result = run_one(tables, 0);
        cand["combined"] = {{"values", values_to_json(result.values)},
                            {"warnings", result.warnings}};
      }
      if (size_matched != nullptr) {
        std::vector<Table> replicates;
        for (std::size_t r = 0; r < candidate.replicates.size(); ++r)
          replicates.push_back(replicate_subset(r));
        cand["at_baseline_size"] = score_at_baseline_size(
            metric, replicates, candidate.name, size_matched->rows,
            static_cast<std::size_t>(std::max(2, spec.baseline_draws)), scoring,
            [&](std::vector<const Table*> tables, std::size_t replicate, const std::string&) {
              return run_one(std::move(tables), replicate);
            });
      }
      entry["candidates"].push_back(std::move(cand));
    }
    for (const auto& baseline : baselines)
      entry["candidates"].push_back(score_baseline(metric, params, baseline, scoring));
    if (!notes.empty()) entry["baseline_notes"] = std::move(notes);
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace synthaudit
