#include "engine/evaluate.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <map>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "metrics/registry.hpp"
#include "metrics/registry_json.hpp"

namespace synthaudit {

namespace {

// The `plots` setting: plot data of replicates after the first (first) or of every result (none)
// are left out of the document, which otherwise repeats similar plots m times per candidate.
bool drop_plots(const std::string& setting, std::size_t replicate_index) {
  return setting == "none" || (setting == "first" && replicate_index > 0);
}

void omit_plots(nlohmann::json& result) {
  auto& details = result["details"];
  if (!details.is_object() || !details.contains("plots")) return;
  details.erase("plots");
  result["plots_omitted"] = true;
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

nlohmann::json fingerprint(const Table& table) {
  return {{"role", table.source().role},
          {"path", table.source().path},
          {"sha256", table.source().sha256},
          {"rows", table.rows()},
          {"columns", table.column_count()}};
}

nlohmann::json values_to_json(const std::vector<MetricValue>& values) {
  auto out = nlohmann::json::array();
  for (const auto& v : values) {
    out.push_back(
        {{"statistic", v.statistic},
         {"scope", v.scope},
         {"value", std::isfinite(v.value) ? nlohmann::json(v.value) : nlohmann::json(nullptr)}});
  }
  return out;
}

// Mean over replicates of each (statistic, scope) that every replicate reports; NaN when any
// replicate's value is NaN (a mean over fewer replicates would silently change its meaning).
std::vector<MetricValue> mean_over_replicates(const std::vector<MetricResult>& results) {
  std::vector<MetricValue> mean;
  if (results.empty()) return mean;
  std::map<std::pair<std::string, std::string>, std::pair<double, std::size_t>> sums;
  for (const auto& r : results)
    for (const auto& v : r.values) {
      auto& s = sums[{v.statistic, v.scope}];
      s.first += v.value;
      s.second += 1;
    }
  for (const auto& v : results.front().values) {
    const auto& s = sums[{v.statistic, v.scope}];
    if (s.second == results.size())
      mean.push_back({v.statistic, v.scope, s.first / static_cast<double>(results.size())});
  }
  return mean;
}

std::string iso_time_now() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

}  // namespace

std::uint64_t derive_seed(std::uint64_t seed, const std::string& metric,
                          const std::string& candidate, std::size_t replicate) {
  return splitmix64(seed ^ splitmix64(fnv1a(metric) ^ splitmix64(fnv1a(candidate) + replicate)));
}

EvaluationData load_evaluation_data(const EvaluationSpec& spec) {
  EvaluationData data;
  ReadSettings settings = spec.read;
  settings.csv.threads = spec.context.threads;
  if (!spec.metadata.empty()) {
    for (const auto& [name, kind] : read_sdv_metadata(spec.metadata))
      settings.kinds.emplace(name, kind);  // explicit `columns:` entries win over metadata
  }
  const CsvFile conf_file = CsvFile::open(spec.confidential, settings.csv);
  data.schema = infer_schema(conf_file, settings);
  data.confidential = encode_table(conf_file, data.schema, settings, "confidential");
  auto load_other = [&](const std::string& path, const std::string& role) {
    const CsvFile file = CsvFile::open(path, settings.csv);
    std::vector<std::string> ignored;
    Table table = encode_table(file, data.schema, settings, role, &ignored);
    if (!ignored.empty())
      data.warnings.push_back(
          path + ": columns not in the confidential data are ignored: " + join(ignored, ", "));
    return table;
  };
  for (const auto& candidate : spec.candidates) {
    EvaluationData::Candidate c{candidate.name, {}};
    for (const auto& path : candidate.replicates)
      c.replicates.push_back(load_other(path, "synthetic"));
    data.candidates.push_back(std::move(c));
  }
  if (spec.holdout) data.holdout = load_other(*spec.holdout, "holdout");

  std::vector<Table*> tables = {&data.confidential};
  for (auto& c : data.candidates)
    for (auto& t : c.replicates) tables.push_back(&t);
  if (data.holdout) tables.push_back(&*data.holdout);
  finalize_dictionaries(data.schema, tables);

  if (spec.context.synthesis == SynthesisType::kPartial) {
    for (const auto& c : data.candidates)
      for (const auto& t : c.replicates)
        if (t.rows() != data.confidential.rows())
          throw InputError(t.source().path +
                           ": partial synthesis needs rows that correspond to "
                           "the confidential rows, but it has " +
                           std::to_string(t.rows()) + " rows and the confidential data " +
                           std::to_string(data.confidential.rows()));
  }
  // Levels that occur in synthetic data but never in the confidential data are a finding.
  for (std::size_t col = 0; col < data.schema.columns.size(); ++col) {
    if (data.schema.columns[col].kind != ColumnKind::kCategorical) continue;
    std::vector<char> in_conf(data.schema.columns[col].dictionary->size(), 0);
    for (auto code : data.confidential.column(col).codes)
      if (code != kMissingCode) in_conf[code] = 1;
    for (const auto& c : data.candidates) {
      std::vector<char> seen(in_conf.size(), 0);
      for (const auto& t : c.replicates)
        for (auto code : t.column(col).codes)
          if (code != kMissingCode && !in_conf[code]) seen[code] = 1;
      std::vector<std::string> levels;
      for (std::size_t k = 0; k < seen.size(); ++k)
        if (seen[k])
          levels.push_back(
              data.schema.columns[col].dictionary->level(static_cast<std::uint32_t>(k)));
      if (!levels.empty())
        data.warnings.push_back("candidate '" + c.name + "', column '" +
                                data.schema.columns[col].name +
                                "': " + std::to_string(levels.size()) +
                                " level(s) not in the confidential data: " + join(levels, ", "));
    }
  }
  return data;
}

nlohmann::json evaluate(const EvaluationSpec& spec, const EvaluationData& data,
                        const ProgressFn& progress) {
  const auto started = std::chrono::steady_clock::now();
  if (spec.context.threads > 0) omp_set_num_threads(spec.context.threads);
  const auto selected = select_metrics(spec.metrics, spec.origin + ": metrics");

  nlohmann::json doc;
  doc["schema"] = "synthaudit/1";
  doc["tool"] = {{"name", "synthaudit"}, {"version", SYNTHAUDIT_VERSION}};
  doc["created"] = iso_time_now();
  doc["spec"] = spec_to_json(spec);
  doc["seed"] = spec.context.seed;
  doc["threads"] = spec.context.threads > 0 ? spec.context.threads : omp_get_max_threads();
  doc["inputs"] = nlohmann::json::array();
  doc["inputs"].push_back(fingerprint(data.confidential));
  for (const auto& c : data.candidates)
    for (const auto& t : c.replicates) {
      auto f = fingerprint(t);
      f["candidate"] = c.name;
      doc["inputs"].push_back(f);
    }
  if (data.holdout) doc["inputs"].push_back(fingerprint(*data.holdout));
  doc["columns"] = nlohmann::json::array();
  for (const auto& c : data.schema.columns) {
    nlohmann::json col = {{"name", c.name},
                          {"kind", to_string(c.kind)},
                          {"kind_source", c.inferred ? "inferred" : "user"}};
    if (c.dictionary) col["levels"] = c.dictionary->levels();
    if (!c.missing_codes.empty()) col["missing_codes"] = c.missing_codes;
    doc["columns"].push_back(col);
  }
  doc["candidates"] = nlohmann::json::array();
  for (const auto& c : data.candidates)
    doc["candidates"].push_back({{"name", c.name}, {"replicates", c.replicates.size()}});
  doc["warnings"] = data.warnings;
  doc["metrics"] = nlohmann::json::array();

  for (const MetricSpec* metric : selected) {
    const auto given =
        spec.parameters.count(metric->name) ? spec.parameters.at(metric->name) : nlohmann::json();
    const Params params = Params::resolve(metric->name, metric->params, given,
                                          spec.origin + ": parameters." + metric->name);
    nlohmann::json entry = {
        {"name", metric->name},
        {"family", to_string(metric->family)},
        {"summary", metric->summary},
        {"granularity", metric->granularity == MetricGranularity::kPerReplicate ? "per-replicate"
                                                                                : "per-candidate"},
        {"params", params.to_json()},
        {"doc", metric->doc},
        {"headlines", headlines_to_json(metric->headlines)},
        {"statistics", statistics_to_json(*metric)},
        {"references", references_to_json(*metric)},
        {"candidates", nlohmann::json::array()}};
    std::string skip;
    if (metric->needs_holdout && !data.holdout) skip = "needs a holdout file (--holdout)";
    if (metric->needs_row_correspondence && spec.context.synthesis != SynthesisType::kPartial)
      skip = "needs partial synthesis with row correspondence (--synthesis partial)";
    if (metric->needs_scenarios && spec.context.scenarios.empty())
      skip = "needs disclosure keys and targets (--keys, --targets)";
    if (metric->needs_analyses && spec.context.analyses.empty())
      skip = "needs declared analyses (--analysis)";
    if (!skip.empty()) {
      entry["skipped"] = skip;
      doc["metrics"].push_back(entry);
      continue;
    }
    for (const auto& candidate : data.candidates) {
      nlohmann::json cand = {{"name", candidate.name}, {"replicates", nlohmann::json::array()}};
      auto run_one = [&](std::vector<const Table*> tables, std::size_t replicate,
                         const std::string& label) {
        if (progress) progress("running " + metric->name + " on " + candidate.name + " " + label);
        const auto t0 = std::chrono::steady_clock::now();
        MetricInput input{data.confidential,
                          std::move(tables),
                          data.holdout ? &*data.holdout : nullptr,
                          spec.context,
                          candidate.name,
                          derive_seed(spec.context.seed, metric->name, candidate.name, replicate)};
        MetricResult result;
        try {
          result = metric->compute(input, params);
        } catch (const MetricNotApplicable& e) {
          result = MetricResult{};
          result.warnings.push_back(std::string("not applicable: ") + e.what());
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return std::make_pair(std::move(result), seconds);
      };
      if (metric->granularity == MetricGranularity::kPerReplicate) {
        std::vector<MetricResult> results;
        for (std::size_t r = 0; r < candidate.replicates.size(); ++r) {
          auto [result, seconds] =
              run_one({&candidate.replicates[r]}, r + 1,
                      std::to_string(r + 1) + "/" + std::to_string(candidate.replicates.size()));
          nlohmann::json replicate = {
              {"replicate", r + 1},
              {"values", values_to_json(result.values)},
              {"details", result.details},
              {"warnings", result.warnings},
              {"seed", derive_seed(spec.context.seed, metric->name, candidate.name, r + 1)},
              {"wall_seconds", seconds}};
          if (drop_plots(spec.plots, r)) omit_plots(replicate);
          cand["replicates"].push_back(std::move(replicate));
          results.push_back(std::move(result));
        }
        if (results.size() > 1)
          cand["mean"] = {{"values", values_to_json(mean_over_replicates(results))}};
      } else {
        std::vector<const Table*> tables;
        for (const auto& t : candidate.replicates) tables.push_back(&t);
        auto [result, seconds] = run_one(tables, 0, "(all replicates)");
        cand["combined"] = {
            {"values", values_to_json(result.values)},
            {"details", result.details},
            {"warnings", result.warnings},
            {"seed", derive_seed(spec.context.seed, metric->name, candidate.name, 0)},
            {"wall_seconds", seconds}};
        if (drop_plots(spec.plots, 0)) omit_plots(cand["combined"]);
      }
      entry["candidates"].push_back(cand);
    }
    doc["metrics"].push_back(entry);
  }
  doc["wall_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return doc;
}

}  // namespace synthaudit
