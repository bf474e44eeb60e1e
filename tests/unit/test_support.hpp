#pragma once
// Helpers for tests: build tables from CSV text with one shared schema, and run a registered
// metric on them exactly as the engine does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/load.hpp"
#include "metrics/registry.hpp"

namespace synthaudit::testing {

// A folder under the temporary directory that no other test process uses: ctest runs the tests of
// one file as separate processes in parallel, and the sanitizer build's tests may run beside the
// release build's, so a fixed name would be shared (and removed under another test's feet).
inline std::filesystem::path private_temp_dir(const std::string& name) {
  return std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
}

struct Tables {
  Schema schema;
  Table confidential;
  std::vector<Table> synthetic;
  std::optional<Table> holdout;
};

// confidential and each synthetic text are whole CSV files (header first).
inline Tables make_tables(const std::string& confidential,
                          const std::vector<std::string>& synthetic,
                          const std::optional<std::string>& holdout = std::nullopt,
                          const ReadSettings& settings = {}) {
  Tables t;
  const CsvFile conf = CsvFile::from_bytes(confidential, "confidential.csv", settings.csv);
  t.schema = infer_schema(conf, settings);
  t.confidential = encode_table(conf, t.schema, settings, "confidential");
  for (std::size_t i = 0; i < synthetic.size(); ++i) {
    const CsvFile f = CsvFile::from_bytes(
        synthetic[i], "synthetic_" + std::to_string(i + 1) + ".csv", settings.csv);
    t.synthetic.push_back(encode_table(f, t.schema, settings, "synthetic"));
  }
  if (holdout) {
    const CsvFile f = CsvFile::from_bytes(*holdout, "holdout.csv", settings.csv);
    t.holdout = encode_table(f, t.schema, settings, "holdout");
  }
  std::vector<Table*> all = {&t.confidential};
  for (auto& s : t.synthetic) all.push_back(&s);
  if (t.holdout) all.push_back(&*t.holdout);
  finalize_dictionaries(t.schema, all);
  return t;
}

// Tables from files (e.g. the SD2011 data, copied from ../shared/data/sd2011 into
// tests/data/sd2011).
inline Tables load_tables(const std::string& confidential,
                          const std::vector<std::string>& synthetic,
                          const std::optional<std::string>& holdout = std::nullopt,
                          const ReadSettings& settings = {}) {
  Tables t;
  const CsvFile conf = CsvFile::open(confidential, settings.csv);
  t.schema = infer_schema(conf, settings);
  t.confidential = encode_table(conf, t.schema, settings, "confidential");
  for (const auto& path : synthetic)
    t.synthetic.push_back(
        encode_table(CsvFile::open(path, settings.csv), t.schema, settings, "synthetic"));
  if (holdout)
    t.holdout = encode_table(CsvFile::open(*holdout, settings.csv), t.schema, settings, "holdout");
  std::vector<Table*> all = {&t.confidential};
  for (auto& s : t.synthetic) all.push_back(&s);
  if (t.holdout) all.push_back(&*t.holdout);
  finalize_dictionaries(t.schema, all);
  return t;
}

// Runs metric `name` with `params` (validated like the engine does) on every synthetic table at
// once (per-candidate metrics) or on synthetic[replicate] (per-replicate metrics).
inline MetricResult run_metric(const std::string& name, const Tables& t,
                               const nlohmann::json& params = nlohmann::json::object(),
                               const EvaluationContext& context = {}, std::size_t replicate = 0) {
  const MetricSpec* metric = find_metric(name);
  if (metric == nullptr) throw std::runtime_error("no metric " + name);
  const Params p = Params::resolve(name, metric->params, params, "test");
  std::vector<const Table*> syn;
  if (metric->granularity == MetricGranularity::kPerCandidate) {
    for (const auto& s : t.synthetic) syn.push_back(&s);
  } else {
    syn.push_back(&t.synthetic.at(replicate));
  }
  MetricInput input{t.confidential, syn,    t.holdout ? &*t.holdout : nullptr,
                    context,        "test", context.seed};
  return metric->compute(input, p);
}

// The value of (statistic, scope); fails the test when absent.
inline double value_of(const MetricResult& r, const std::string& statistic,
                       const std::string& scope) {
  for (const auto& v : r.values)
    if (v.statistic == statistic && v.scope == scope) return v.value;
  ADD_FAILURE() << "no value " << statistic << " [" << scope << "]";
  return std::nan("");
}

inline std::string shared_data(const std::string& relative) {
  return std::string(SYNTHAUDIT_SHARED_DATA) + "/" + relative;
}

}  // namespace synthaudit::testing
