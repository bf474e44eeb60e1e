#include "engine/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "core/threads.hpp"
#include "engine/baselines.hpp"
#include "engine/data_checks.hpp"
#include "engine/memory_use.hpp"
#include "engine/permutation_null.hpp"
#include "engine/related_tables.hpp"
#include "engine/subgroups.hpp"
#include "metrics/metric_memo.hpp"
#include "metrics/registry.hpp"
#include "metrics/registry_json.hpp"
#include "stats/formula.hpp"
#include "stats/neighbour_cache.hpp"

namespace synthaudit {

namespace fs = std::filesystem;

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

nlohmann::json fingerprint(const Table& table, std::size_t rows) {
  return {{"role", table.source().role},
          {"path", table.source().path},
          {"sha256", table.source().sha256},
          {"rows", rows},
          {"columns", table.column_count()}};
}

}  // namespace

void sort_drawn_rows(std::vector<std::size_t>& rows, std::size_t pool) {
  // Counting each index is a sort in O(rows + pool) where a comparison sort of 10^6 draws costs
  // about 20 passes; it pays while the pool is not much larger than the draw.
  if (rows.size() < 1024 || pool / 4 > rows.size() ||
      rows.size() >= std::numeric_limits<std::uint32_t>::max()) {
    std::sort(rows.begin(), rows.end());
    return;
  }
  std::vector<std::uint32_t> counts(pool, 0);
  for (std::size_t r : rows) ++counts[r];
  std::size_t k = 0;
  for (std::size_t v = 0; v < pool; ++v)
    for (std::uint32_t c = counts[v]; c > 0; --c) rows[k++] = v;
}

namespace {

// The synthetic size the baselines are drawn at: the median row count of all replicate files.
std::size_t synthetic_size(const EvaluationData& data,
                           const std::function<std::size_t(const Table&)>& rows_of) {
  std::vector<std::size_t> sizes;
  for (const auto& c : data.candidates)
    for (const auto& t : c.replicates) sizes.push_back(rows_of(t));
  if (sizes.empty()) return 0;
  std::sort(sizes.begin(), sizes.end());
  return sizes[(sizes.size() - 1) / 2];
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

nlohmann::json values_to_json(const std::vector<MetricValue>& values) {
  auto out = nlohmann::json::array();
  for (const auto& v : values) {
    out.push_back(
        {{"statistic", v.statistic},
         {"scope", v.scope},
         {"value", std::isfinite(v.value) ? nlohmann::json(v.value) : nlohmann::json(nullptr)}});
    if (std::isfinite(v.records)) out.back()["records"] = v.records;
  }
  return out;
}

// Mean over replicates of each (statistic, scope) that every replicate reports; NaN when any
// replicate's value is NaN (a mean over fewer replicates would silently change its meaning). The
// mean of shares of records counts, as `records`, the fewest records any replicate's share
// counted (0 only when every replicate counted none), so that output checking withholds the mean
// whenever it would withhold one of its replicates.
std::vector<MetricValue> mean_over_replicates(const std::vector<MetricResult>& results) {
  std::vector<MetricValue> mean;
  if (results.empty()) return mean;
  struct Sum {
    double value = 0.0;
    std::size_t replicates = 0;
    double fewest_records = NAN;
  };
  std::map<std::pair<std::string, std::string>, Sum> sums;
  for (const auto& r : results)
    for (const auto& v : r.values) {
      auto& s = sums[{v.statistic, v.scope}];
      s.value += v.value;
      s.replicates += 1;
      if (std::isfinite(v.records) && (std::isnan(s.fewest_records) || s.fewest_records == 0.0 ||
                                       (v.records > 0.0 && v.records < s.fewest_records)))
        s.fewest_records = v.records;
    }
  for (const auto& v : results.front().values) {
    const auto& s = sums[{v.statistic, v.scope}];
    if (s.replicates == results.size())
      mean.push_back(
          {v.statistic, v.scope, s.value / static_cast<double>(results.size()), s.fewest_records});
  }
  return mean;
}

namespace {

// Bytes of a table once encoded: 8 per cell (doubles; codes take 4, so this errs high).
std::uint64_t table_bytes(std::uint64_t rows, std::uint64_t columns) { return rows * columns * 8; }

// Columns named by the disclosure scenarios and the analyses.
std::vector<std::pair<std::string, std::string>> columns_in_use(const EvaluationContext& context) {
  std::vector<std::pair<std::string, std::string>> out;  // column, where
  for (std::size_t i = 0; i < context.scenarios.size(); ++i) {
    const std::string at = "disclosure[" + std::to_string(i) + "]";
    for (const auto& k : context.scenarios[i].keys) out.emplace_back(k, at + " keys");
    for (const auto& t : context.scenarios[i].targets) out.emplace_back(t, at + " targets");
  }
  for (const auto& a : context.analyses) {
    if (!a.column.empty()) out.emplace_back(a.column, "analysis '" + a.name + "'");
    if (!a.formula.empty()) {
      try {
        for (const auto& c : stats::parse_formula(a.formula, context.limits).columns())
          out.emplace_back(c, "analysis '" + a.name + "'");
      } catch (const InputError&) {
        // validate_spec reports a malformed formula with its place.
      }
    }
  }
  return out;
}

}  // namespace

ReadSettings reading_settings(const EvaluationSpec& spec) {
  const ResourceLimits& limits = spec.context.limits;
  ReadSettings settings = spec.read;
  settings.csv.threads = spec.context.threads;
  settings.csv.max_input_bytes = limits.input_bytes;
  settings.csv.max_field_bytes = limits.field_bytes;
  settings.csv.max_columns = limits.columns;
  settings.csv.pipe_wait_seconds = limits.pipe_wait_seconds;
  settings.csv.memory_budget = limits.memory;
  return settings;
}

EvaluationData load_evaluation_data(const EvaluationSpec& spec) {
  if (!spec.tables.empty()) return load_related_evaluation_data(spec);
  EvaluationData data;
  const ResourceLimits& limits = spec.context.limits;
  ReadSettings settings = reading_settings(spec);
  if (!spec.metadata.empty()) {
    for (const auto& [name, kind] : read_sdv_metadata(spec.metadata, limits))
      settings.kinds.emplace(name, kind);  // explicit `columns:` entries win over metadata
  }
  // Memory is estimated before each step that needs much of it, against what was available when
  // the run started: the tables read so far, the file being read and its table.
  const AvailableMemory available = available_memory(limits);
  std::uint64_t tables = 0;
  auto check = [&](std::uint64_t required, const std::string& what) {
    check_memory(required, what, available);
  };
  // What was assumed about the layout of text files, and the files it was assumed for: one
  // warning for each, however many files.
  std::vector<std::pair<std::string, std::vector<std::string>>> layouts;
  auto open = [&](const std::string& path) {
    std::error_code ec;
    const auto on_disk = fs::file_size(path, ec);
    if (!ec) check(tables + on_disk, path + ": reading it");
    auto file = open_data_file(path, settings);
    if (const std::string layout = file->assumed_layout(); !layout.empty()) {
      auto same = std::find_if(layouts.begin(), layouts.end(),
                               [&](const auto& entry) { return entry.first == layout; });
      if (same == layouts.end()) same = layouts.insert(layouts.end(), {layout, {}});
      if (std::find(same->second.begin(), same->second.end(), path) == same->second.end())
        same->second.push_back(path);
    }
    return file;
  };
  auto check_table = [&](const DataFile& file) {
    // The confidential file is checked before its schema exists: it has one column per field.
    const std::uint64_t table = table_bytes(
        file.rows(), data.schema.columns.empty() ? file.columns() : data.schema.columns.size());
    check(tables + file.size() + file.rows() * 8 + table, file.path() + ": encoding it");
    tables += table;
  };
  auto keep_tallies = [&](const DataFile& file, const std::string& role,
                          std::vector<MissingTally> tallies) {
    if (!tallies.empty())
      data.treated_as_missing.push_back({file.path(), role, std::move(tallies)});
  };
  const std::unique_ptr<DataFile> conf_file = open(spec.confidential);
  check_table(*conf_file);
  std::vector<MissingTally> conf_tallies;
  InferredTable conf = infer_and_encode(*conf_file, settings, "confidential", &conf_tallies);
  data.schema = std::move(conf.schema);
  data.confidential = std::move(conf.table);
  keep_tallies(*conf_file, "confidential", std::move(conf_tallies));
  data.reading_warnings = decimal_comma_warnings(data.schema, *conf_file);
  std::uint64_t largest_synthetic = 0;
  auto load_other = [&](const std::string& path, const std::string& role) {
    const std::unique_ptr<DataFile> file = open(path);
    check_table(*file);
    if (role == "synthetic")
      largest_synthetic =
          std::max(largest_synthetic, table_bytes(file->rows(), data.schema.columns.size()));
    std::vector<std::string> ignored;
    std::vector<MissingTally> tallies;
    Table table = encode_table(*file, data.schema, settings, role, &ignored, &tallies);
    if (!ignored.empty())
      data.warnings.push_back(
          path + ": columns not in the confidential data are ignored: " + join(ignored, ", "));
    // The schema's missing codes are fixed from the confidential file and the spec; a code only
    // this file declares would make its column differ from the others, so it is named instead.
    for (std::size_t i = 0; i < file->metadata().size(); ++i) {
      const auto& name = file->header()[i];
      for (const auto& entry : data.schema.columns) {
        if (entry.name != name) continue;
        std::vector<std::string> undeclared;
        for (double code : file->metadata()[i].declared_missing_codes)
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
    keep_tallies(*file, role, std::move(tallies));
    return table;
  };
  for (const auto& candidate : spec.candidates) {
    EvaluationData::Candidate c{candidate.name, {}};
    for (const auto& path : candidate.replicates)
      c.replicates.push_back(load_other(path, "synthetic"));
    data.candidates.push_back(std::move(c));
  }
  if (spec.holdout) data.holdout = load_other(*spec.holdout, "holdout");
  for (auto it = layouts.rbegin(); it != layouts.rend(); ++it)
    data.reading_warnings.insert(data.reading_warnings.begin(),
                                 join(it->second, ", ") + ": " + it->first);
  data.warnings.insert(data.warnings.begin(), data.reading_warnings.begin(),
                       data.reading_warnings.end());
  finish_evaluation_data(data, spec.context.synthesis, limits, true, spec.context.household);
  check_named_columns_kept(spec, data);
  // The metrics work on the tables plus, at most, copies and per-row work space of one
  // confidential and one synthetic table at a time (sorted columns, coded keys, distances), and
  // keep results per column pair (correlations, two-way tables): about 1 KiB a pair, with their
  // statistics, scopes and JSON.
  const std::uint64_t columns = data.schema.columns.size();
  check(tables + 2 * (table_bytes(data.confidential.rows(), columns) + largest_synthetic) +
            columns * (columns - 1) / 2 * 1024,
        "running the metrics on " + std::to_string(columns) + " columns");
  return data;
}

void check_named_columns_kept(const EvaluationSpec& spec, const EvaluationData& data) {
  auto named = columns_in_use(spec.context);
  for (const auto& column : spec.by) named.emplace_back(column, "by");
  for (const auto& [column, where] : named)
    for (const auto& [excluded, levels] : data.identifiers)
      if (column == excluded)
        throw InputError(spec.origin + ": " + where + ": column '" + column + "' has " +
                         std::to_string(levels) + " distinct values, more than the limit of " +
                         std::to_string(spec.context.limits.levels) +
                         " levels, so it is treated as an identifier and left out (raise it with "
                         "--limit levels=N)");
}

void finish_evaluation_data(EvaluationData& data, SynthesisType synthesis,
                            const ResourceLimits& limits, bool warn_levels,
                            const std::string& household) {
  for (std::size_t col = 0; col < data.schema.columns.size(); ++col) {
    auto& entry = data.schema.columns[col];
    if (household.empty() || entry.name != household || entry.kind != ColumnKind::kCategorical)
      continue;
    auto as_numbers = [col](Table& table) {
      Column& column = table.column(col);
      column.numeric.resize(column.codes.size());
      for (std::size_t r = 0; r < column.codes.size(); ++r)
        column.numeric[r] = is_missing(column.codes[r]) ? NAN : column.codes[r];
      column.codes = {};
      column.kind = ColumnKind::kNumeric;
      column.dictionary.reset();
    };
    as_numbers(data.confidential);
    for (auto& c : data.candidates)
      for (auto& t : c.replicates) as_numbers(t);
    if (data.holdout) as_numbers(*data.holdout);
    entry.kind = ColumnKind::kNumeric;
    entry.dictionary.reset();
    entry.missing_text_codes.clear();
  }
  // Categorical columns with more levels than the limit are identifiers (record ids, free text):
  // every level-based metric would see one level per record, at a cost that grows with the
  // square of the levels. They are left out of every table, with a warning.
  std::vector<char> drop(data.schema.columns.size(), 0);
  bool any = false;
  for (std::size_t col = 0; col < data.schema.columns.size(); ++col) {
    const auto& entry = data.schema.columns[col];
    if (entry.kind != ColumnKind::kCategorical || entry.dictionary->size() <= limits.levels)
      continue;
    drop[col] = 1;
    any = true;
    data.identifiers.emplace_back(entry.name, entry.dictionary->size());
    data.warnings.push_back(
        "column '" + entry.name + "' has " + std::to_string(entry.dictionary->size()) +
        " distinct values, more than the limit of " + std::to_string(limits.levels) +
        " levels: it is treated as an identifier and left out of every metric "
        "(raise the limit with --limit levels=N)");
  }
  if (any) {
    auto keep_columns = [&](Table& table) {
      std::vector<Column> kept;
      for (std::size_t col = 0; col < drop.size(); ++col)
        if (!drop[col]) kept.push_back(std::move(table.column(col)));
      const TableSource source = table.source();
      table = Table(source, std::move(kept));
    };
    keep_columns(data.confidential);
    for (auto& c : data.candidates)
      for (auto& t : c.replicates) keep_columns(t);
    if (data.holdout) keep_columns(*data.holdout);
    std::vector<Schema::Entry> kept;
    for (std::size_t col = 0; col < drop.size(); ++col)
      if (!drop[col]) kept.push_back(std::move(data.schema.columns[col]));
    data.schema.columns = std::move(kept);
    if (data.schema.columns.empty())
      throw InputError(data.confidential.source().path +
                       ": every column is an identifier (more distinct values than the limit of " +
                       std::to_string(limits.levels) + " levels); raise it with --limit levels=N");
  }

  std::vector<Table*> tables = {&data.confidential};
  for (auto& c : data.candidates)
    for (auto& t : c.replicates) tables.push_back(&t);
  if (data.holdout) tables.push_back(&*data.holdout);
  finalize_dictionaries(data.schema, tables);

  if (synthesis == SynthesisType::kPartial) {
    for (const auto& c : data.candidates)
      for (const auto& t : c.replicates)
        if (t.rows() != data.confidential.rows())
          throw InputError(t.source().path +
                           ": partial synthesis needs rows that correspond to "
                           "the confidential rows, but it has " +
                           std::to_string(t.rows()) + " rows and the confidential data " +
                           std::to_string(data.confidential.rows()));
  }
  if (warn_levels) warn_about_levels(data, level_presence(data));
}

LevelPresence level_presence(const EvaluationData& data) {
  LevelPresence out;
  out.confidential.resize(data.schema.columns.size());
  out.candidates.assign(data.candidates.size(), out.confidential);
  for (std::size_t col = 0; col < data.schema.columns.size(); ++col) {
    const auto& entry = data.schema.columns[col];
    if (entry.kind != ColumnKind::kCategorical) continue;
    auto& in_conf = out.confidential[col];
    in_conf.assign(entry.dictionary->size(), 0);
    for (auto code : data.confidential.column(col).codes)
      if (code != kMissingCode) in_conf[code] = 1;
    for (std::size_t c = 0; c < data.candidates.size(); ++c) {
      auto& in_synthetic = out.candidates[c][col];
      in_synthetic.assign(in_conf.size(), 0);
      for (const auto& t : data.candidates[c].replicates)
        for (auto code : t.column(col).codes)
          if (code != kMissingCode) in_synthetic[code] = 1;
    }
  }
  return out;
}

void merge_level_presence(LevelPresence& into, const LevelPresence& part) {
  auto merge = [](std::vector<std::vector<std::uint8_t>>& to,
                  const std::vector<std::vector<std::uint8_t>>& from) {
    for (std::size_t col = 0; col < to.size(); ++col)
      for (std::size_t k = 0; k < to[col].size(); ++k) to[col][k] |= from[col][k];
  };
  merge(into.confidential, part.confidential);
  for (std::size_t c = 0; c < into.candidates.size(); ++c)
    merge(into.candidates[c], part.candidates[c]);
}

void warn_about_levels(EvaluationData& data, const LevelPresence& presence) {
  // Levels one side has and the other lacks are findings: synthetic levels the confidential data
  // never had (a recoding, or made-up values), and confidential levels no replicate of a
  // candidate reproduces (categories the synthesis lost).
  for (std::size_t col = 0; col < data.schema.columns.size(); ++col) {
    const auto& entry = data.schema.columns[col];
    if (entry.kind != ColumnKind::kCategorical) continue;
    const auto& in_conf = presence.confidential[col];
    for (std::size_t c = 0; c < data.candidates.size(); ++c) {
      const auto& in_synthetic = presence.candidates[c][col];
      std::vector<std::string> only_synthetic, only_confidential;
      for (std::size_t k = 0; k < in_conf.size(); ++k) {
        const auto& level = entry.dictionary->level(static_cast<std::uint32_t>(k));
        if (in_synthetic[k] && !in_conf[k]) only_synthetic.push_back(level);
        if (in_conf[k] && !in_synthetic[k]) only_confidential.push_back(level);
      }
      auto warn = [&](const std::vector<std::string>& levels, const char* which) {
        if (levels.empty()) return;
        data.warnings.push_back("candidate '" + data.candidates[c].name + "', column '" +
                                entry.name + "': " + std::to_string(levels.size()) +
                                " level(s) not in the " + which + " data: " + join(levels, ", "));
      };
      warn(only_synthetic, "confidential");
      warn(only_confidential, "synthetic");
    }
  }
}

std::string records_tsv(const std::vector<RecordLevelOutput>& records) {
  std::string out = "candidate\treplicate\tmetric\tscope\tdata\trow\tfield\tvalue\n";
  char number[64];
  for (const auto& r : records) {
    const std::string prefix = r.candidate + "\t" + r.replicate + "\t" + r.metric + "\t" +
                               r.records.scope + "\t" + r.records.data + "\t";
    const std::size_t rows = r.records.values.empty() ? 0 : r.records.values[0].size();
    for (std::size_t row = 0; row < rows; ++row) {
      for (std::size_t f = 0; f < r.records.fields.size(); ++f) {
        out += prefix;
        out += std::to_string(row + 1);
        out += '\t';
        out += r.records.fields[f];
        out += '\t';
        const double value = r.records.values[f][row];
        // Infinities are values (an attack score for an exact copy), written as R reads them.
        if (std::isfinite(value)) {
          std::snprintf(number, sizeof number, "%.17g", value);
          out += number;
        } else if (std::isinf(value)) {
          out += value > 0 ? "Inf" : "-Inf";
        } else {
          out += "NA";
        }
        out += '\n';
      }
    }
  }
  return out;
}

nlohmann::json evaluate(const EvaluationSpec& spec, const EvaluationData& data,
                        const ProgressFn& progress, const EvaluationSinks& sinks) {
  const auto started = std::chrono::steady_clock::now();
  const ThreadCountScope threads(spec.context.threads);
  const auto selected = select_metrics(spec.metrics, spec.origin + ": metrics");

  // Mistakes that make every number meaningless stop here, before any metric runs; the others
  // become findings (warnings, summary lines, a fail in the verdict for copies).
  const std::function<std::size_t(const Table&)> rows_of =
      sinks.whole_rows ? sinks.whole_rows : [](const Table& t) { return t.rows(); };
  auto take_rows = [&](const Table& pool, const std::vector<std::size_t>& rows,
                       const TableSource& source) -> std::shared_ptr<const Table> {
    if (sinks.select_rows) return sinks.select_rows(pool, rows, source);
    return std::make_shared<const Table>(select_rows(pool, rows, source));
  };
  std::vector<DataFinding> findings;
  if (sinks.check_data)
    findings = sinks.check_data(spec, data);
  else
    check_named_columns(spec, data.confidential);
  std::optional<Subgroups> subgroups;
  if (!spec.by.empty()) subgroups.emplace(spec, data);
  // Under output checking no subgroup smaller than its threshold is computed at all.
  const std::size_t subgroup_min_rows =
      spec.safe_output ? std::max(spec.by_min_rows, spec.safe_output_threshold) : spec.by_min_rows;
  const std::vector<std::string> not_synthesised = check_partial_synthesis(spec, data);
  if (!sinks.check_data) {
    findings = check_copies(data, spec.context.synthesis);
    for (auto& f : check_missing_code_spikes(data.confidential)) findings.push_back(std::move(f));
    for (auto& f : check_few_valued_numeric(data.confidential, data.schema, spec.context))
      findings.push_back(std::move(f));
  }
  findings.insert(findings.begin(), data.relation_findings.begin(), data.relation_findings.end());

  nlohmann::json doc;
  doc["schema"] = "synthaudit/1";
  doc["tool"] = {{"name", "synthaudit"}, {"version", SYNTHAUDIT_VERSION}};
  doc["created"] = iso_time_now();
  doc["spec"] = spec_to_json(spec);
  doc["seed"] = spec.context.seed;
  doc["threads"] = threads.threads();
  doc["ranks"] = sinks.ranks;
  doc["inputs"] = nlohmann::json::array();
  doc["inputs"].push_back(fingerprint(data.confidential, rows_of(data.confidential)));
  for (const auto& c : data.candidates)
    for (const auto& t : c.replicates) {
      auto f = fingerprint(t, rows_of(t));
      f["candidate"] = c.name;
      doc["inputs"].push_back(f);
    }
  if (data.holdout) doc["inputs"].push_back(fingerprint(*data.holdout, rows_of(*data.holdout)));
  doc["columns"] = nlohmann::json::array();
  for (const auto& c : data.schema.columns) {
    nlohmann::json col = {{"name", c.name},
                          {"kind", to_string(c.kind)},
                          {"kind_source", c.inferred ? "inferred" : "user"}};
    if (c.dictionary) col["levels"] = c.dictionary->levels();
    if (!c.missing_codes.empty()) col["missing_codes"] = c.missing_codes;
    if (!c.missing_text_codes.empty()) col["missing_text_codes"] = c.missing_text_codes;
    if (!c.label.empty()) col["label"] = c.label;
    doc["columns"].push_back(col);
  }
  doc["treated_as_missing"] = nlohmann::json::array();
  for (const auto& file : data.treated_as_missing)
    for (const auto& tally : file.columns) {
      for (const auto& [code, count] : tally.codes)
        doc["treated_as_missing"].push_back({{"file", file.path},
                                             {"role", file.role},
                                             {"column", tally.column},
                                             {"code", code},
                                             {"count", count}});
      if (tally.declared_in_file > 0)
        doc["treated_as_missing"].push_back({{"file", file.path},
                                             {"role", file.role},
                                             {"column", tally.column},
                                             {"code", nullptr},
                                             {"count", tally.declared_in_file}});
    }
  doc["candidates"] = nlohmann::json::array();
  for (const auto& c : data.candidates)
    doc["candidates"].push_back({{"name", c.name}, {"replicates", c.replicates.size()}});
  if (spec.context.synthesis == SynthesisType::kPartial)
    doc["not_synthesised_columns"] = not_synthesised;
  if (!data.relations.is_null()) doc["relations"] = data.relations;
  doc["data_checks"] = nlohmann::json::array();
  for (const auto& f : findings) doc["data_checks"].push_back(finding_to_json(f));
  doc["warnings"] = data.warnings;
  for (const auto& f : findings) doc["warnings"].push_back(f.message);
  if (!spec.context.weights.empty()) {
    // The weights reach the metrics that declare synthetic_weights (metrics/design_weights) and
    // those that say they use them (uses_weights); the others are said once here rather than in
    // every result.
    std::vector<std::string> unweighted;
    for (const MetricSpec* metric : selected)
      if (!metric->uses_weights &&
          std::none_of(metric->params.begin(), metric->params.end(),
                       [](const ParamSpec& p) { return p.name == "synthetic_weights"; }))
        unweighted.push_back(metric->name);
    if (!unweighted.empty())
      doc["warnings"].push_back("weights: '" + spec.context.weights +
                                "' is used by the survey-weighted metrics only; these treat every "
                                "row alike (no weighted form here): " +
                                join(unweighted, ", "));
  }
  if (subgroups) doc["subgroups"] = subgroups->summary(subgroup_min_rows);
  doc["metrics"] = nlohmann::json::array();

  // The verdict's permutation tests: candidates the checks before the metrics already fail are
  // not tested (their verdict is fail whatever the tests say), and each test may stop as soon as
  // it is decided at the strictest per-test level of the correction over this many headlines.
  std::set<std::string> failed_by_checks;
  for (const auto& finding : findings)
    if (finding.fails_candidate) failed_by_checks.insert(finding.candidate);
  const std::size_t null_family = null_tested_headlines(selected);

  // Baselines are drawn once and shared by every metric that asks for them.
  std::vector<BaselineData> baselines;
  const std::size_t n_synthetic = synthetic_size(data, rows_of);
  if (spec.baseline_draws > 0 && n_synthetic > 0) {
    bool any_holdout = false, any_resample = false, any_floor = false;
    for (const MetricSpec* metric : selected) {
      any_holdout = any_holdout || wants_baseline(*metric, BaselineKind::kHoldout);
      any_resample = any_resample || wants_baseline(*metric, BaselineKind::kResample);
      any_floor = any_floor || wants_independent_marginals(*metric);
    }
    if (any_holdout && data.holdout && rows_of(*data.holdout) > 0)
      baselines.push_back(holdout_baseline(
          *data.holdout, rows_of(*data.holdout), n_synthetic, spec.baseline_draws,
          spec.context.seed,
          DrawUnits(*data.holdout, rows_of(*data.holdout), spec.context.household)));
    if (any_resample && rows_of(data.confidential) > 0)
      baselines.push_back(resample_baseline(
          data.confidential, rows_of(data.confidential), n_synthetic, spec.baseline_draws,
          spec.context.seed,
          DrawUnits(data.confidential, rows_of(data.confidential), spec.context.household)));
    // Column-wise draws need every row of the pool in one place: not under MPI without whole
    // tables (sinks.select_rows), where the verdict says the floor was not measured.
    if (any_floor && spec.policy.default_checks && spec.policy.utility_floor.enabled &&
        !sinks.select_rows && rows_of(data.confidential) > 0)
      baselines.push_back(
          independent_marginals_baseline(data.confidential, n_synthetic, spec.context.seed));
  }
  doc["baselines"] = nlohmann::json::array();
  for (const auto& b : baselines)
    doc["baselines"].push_back(
        {{"name", b.name}, {"description", b.description}, {"rows", b.rows}});

  // Searches between these tables are shared by every metric of this evaluation.
  stats::NeighbourCache own_neighbours;
  stats::NeighbourCache& neighbours = sinks.neighbours ? *sinks.neighbours : own_neighbours;
  neighbours.keep(data.confidential);
  if (data.holdout) neighbours.keep(*data.holdout);
  for (const auto& c : data.candidates)
    for (const auto& t : c.replicates) neighbours.keep(t);

  // Work a metric shares between its calls on this evaluation's confidential data.
  MetricMemo memo;

  for (const MetricSpec* metric : selected) {
    const auto given = given_parameters(spec, *metric);
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
    auto keep_records = [&](MetricResult& result, const std::string& candidate,
                            const std::string& replicate) {
      if (sinks.records == nullptr) return;
      for (auto& r : result.records) {
        if (!r.confidential_only) {
          sinks.records->push_back({metric->name, candidate, replicate, std::move(r)});
          continue;
        }
        const bool kept = std::any_of(
            sinks.records->begin(), sinks.records->end(), [&](const RecordLevelOutput& earlier) {
              return earlier.metric == metric->name && earlier.records.confidential_only &&
                     earlier.records.scope == r.scope && earlier.records.data == r.data;
            });
        if (!kept) sinks.records->push_back({metric->name, "", "", std::move(r)});
      }
      result.records.clear();
    };
    DrawScoring scoring;
    scoring.confidential = &data.confidential;
    scoring.holdout = data.holdout ? &*data.holdout : nullptr;
    scoring.context = &spec.context;
    scoring.seed = spec.context.seed;
    scoring.neighbours = &neighbours;
    scoring.work_progress = sinks.work_progress;
    scoring.memo = &memo;
    scoring.rows_of = rows_of;
    scoring.take_rows = take_rows;
    scoring.compute = sinks.compute;
    scoring.progress = progress;
    scoring.keep_records = keep_records;
    // The holdout baseline when it is smaller than the synthetic data and this metric uses it.
    const BaselineData* size_matched = nullptr;
    for (const auto& b : baselines)
      if (b.name == "holdout" && b.value_is_pool && b.rows < n_synthetic &&
          wants_baseline(*metric, BaselineKind::kHoldout))
        size_matched = &b;
    // A metric that says it does not apply on every run (e.g. a parameter it needs is not set)
    // is reported as skipped with that reason, as a metric whose requirements are not met is,
    // so no headline or verdict shows a row of NA for it and no baseline runs it again.
    std::size_t runs = 0, not_applicable = 0;
    std::string not_applicable_reason;
    bool one_reason = true;
    for (const auto& candidate : data.candidates) {
      nlohmann::json cand = {{"name", candidate.name}, {"replicates", nlohmann::json::array()}};
      auto run_one = [&](std::vector<const Table*> tables, std::size_t replicate,
                         const std::string& label, bool keep_plots) {
        if (progress) progress("running " + metric->name + " on " + candidate.name + " " + label);
        const auto t0 = std::chrono::steady_clock::now();
        MetricInput input{data.confidential,
                          std::move(tables),
                          data.holdout ? &*data.holdout : nullptr,
                          spec.context,
                          candidate.name,
                          derive_seed(spec.context.seed, metric->name, candidate.name, replicate),
                          &neighbours,
                          sinks.work_progress,
                          &memo,
                          keep_plots};
        MetricResult result;
        ++runs;
        try {
          std::optional<MetricResult> elsewhere;
          if (sinks.compute) elsewhere = sinks.compute(*metric, input, params);
          result = elsewhere ? std::move(*elsewhere) : metric->compute(input, params);
        } catch (const MetricNotApplicable& e) {
          result = MetricResult{};
          result.warnings.push_back(std::string("not applicable: ") + e.what());
          if (not_applicable++ == 0)
            not_applicable_reason = e.what();
          else if (not_applicable_reason != e.what())
            one_reason = false;
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
                      std::to_string(r + 1) + "/" + std::to_string(candidate.replicates.size()),
                      !drop_plots(spec.plots, r));
          nlohmann::json replicate = {
              {"replicate", r + 1},
              {"values", values_to_json(result.values)},
              {"details", result.details},
              {"warnings", result.warnings},
              {"seed", derive_seed(spec.context.seed, metric->name, candidate.name, r + 1)},
              {"wall_seconds", seconds}};
          if (drop_plots(spec.plots, r)) omit_plots(replicate);
          cand["replicates"].push_back(std::move(replicate));
          keep_records(result, candidate.name, std::to_string(r + 1));
          results.push_back(std::move(result));
        }
        if (results.size() > 1)
          cand["mean"] = {{"values", values_to_json(mean_over_replicates(results))}};
        if (data.holdout && spec.null_draws > 0 && failed_by_checks.count(candidate.name) > 0)
          for (auto& replicate : cand["replicates"])
            replicate["nulls_skipped"] =
                "no permutation test: the checks before the metrics fail this candidate";
        // The verdict's null: each replicate against re-splits of itself and the holdout. Not
        // under MPI without whole tables (sinks.select_rows): the pooled rows are not in one place.
        if (data.holdout && spec.null_draws > 0 && !sinks.select_rows &&
            has_null_tested_headline(*metric) && not_applicable < runs &&
            failed_by_checks.count(candidate.name) == 0) {
          const MetricOnTables on_tables = [&](const Table& synthetic, const Table* holdout,
                                               std::uint64_t seed) {
            // Re-splits run long in all (up to null_draws of them): between two, and inside
            // their long steps, the caller may stop the work.
            stop_if_requested(sinks.work_progress);
            MetricInput input{
                data.confidential, {&synthetic},        holdout, spec.context, candidate.name, seed,
                &neighbours,       sinks.work_progress, &memo,   false};
            try {
              return metric->compute(input, params).values;
            } catch (const MetricNotApplicable&) {
              return std::vector<MetricValue>{};
            }
          };
          for (std::size_t r = 0; r < candidate.replicates.size(); ++r) {
            const std::size_t pooled = candidate.replicates[r].rows() + data.holdout->rows();
            if (pooled > kNullMaxPooledRows) {
              cand["replicates"][r]["nulls_skipped"] =
                  "no permutation test: " + std::to_string(pooled) +
                  " pooled rows of the replicate and the holdout, above " +
                  std::to_string(kNullMaxPooledRows) + "; the verdict uses the noise rule";
              continue;
            }
            if (progress)
              progress("testing " + metric->name + " on " + candidate.name + " " +
                       std::to_string(r + 1) + "/" + std::to_string(candidate.replicates.size()) +
                       " against re-splits with the holdout");
            nlohmann::json nulls = nlohmann::json::array();
            for (const auto& test : permutation_nulls(
                     *metric, candidate.replicates[r], *data.holdout, spec.null_draws,
                     derive_seed(spec.context.seed, metric->name, candidate.name + " null", r + 1),
                     on_tables,
                     spec.policy.fail_level / static_cast<double>(std::max<std::size_t>(
                                                  1, null_family * candidate.replicates.size())),
                     spec.context.household))
              nulls.push_back(to_json(test));
            cand["replicates"][r]["nulls"] = std::move(nulls);
          }
        }
      } else {
        std::vector<const Table*> tables;
        for (const auto& t : candidate.replicates) tables.push_back(&t);
        auto [result, seconds] = run_one(tables, 0, "(all replicates)", !drop_plots(spec.plots, 0));
        cand["combined"] = {
            {"values", values_to_json(result.values)},
            {"details", result.details},
            {"warnings", result.warnings},
            {"seed", derive_seed(spec.context.seed, metric->name, candidate.name, 0)},
            {"wall_seconds", seconds}};
        if (drop_plots(spec.plots, 0)) omit_plots(cand["combined"]);
        keep_records(result, candidate.name, "combined");
      }
      if (size_matched != nullptr)
        cand["at_baseline_size"] = score_at_baseline_size(
            *metric, candidate.replicates, candidate.name, size_matched->rows,
            static_cast<std::size_t>(std::max(2, spec.baseline_draws)), scoring,
            [&](std::vector<const Table*> tables, std::size_t replicate, const std::string& label) {
              return run_one(std::move(tables), replicate, label, false).first;
            });
      entry["candidates"].push_back(cand);
    }
    if (runs > 0 && not_applicable == runs && one_reason) {
      entry["skipped"] = "not applicable: " + not_applicable_reason;
      entry["candidates"] = nlohmann::json::array();
      doc["metrics"].push_back(entry);
      continue;
    }
    if (subgroups && runs_in_subgroups(metric->family))
      entry["subgroups"] = run_in_subgroups(*metric, params, spec, data, *subgroups,
                                            subgroup_min_rows, progress, sinks.work_progress);
    for (const auto& baseline : baselines)
      if (wants_baseline(*metric, baseline))
        entry["candidates"].push_back(score_baseline(*metric, params, baseline, scoring));
    doc["metrics"].push_back(entry);
    log_memory(metric->name);
  }
  doc["wall_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return doc;
}

}  // namespace synthaudit
