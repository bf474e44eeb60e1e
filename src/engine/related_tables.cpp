#include "engine/related_tables.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "table/relations.hpp"

namespace synthaudit {

namespace fs = std::filesystem;

namespace {

// One dataset's table of each declared table, root first.
struct Dataset {
  std::string label;      // "confidential", "holdout", "cart" or "cart replicate 2"
  std::string candidate;  // "" for the confidential data and the holdout
  std::size_t replicate = 0;
  std::vector<const Table*> tables;
};

std::vector<std::size_t> key_columns(const Table& table, const std::vector<std::string>& names,
                                     const std::string& where) {
  std::vector<std::size_t> columns;
  for (const auto& name : names) {
    const auto found = table.find(name);
    if (!found)
      throw InputError(where + ": no column '" + name + "' in " + table.source().path +
                       did_you_mean(name, table.column_names()));
    columns.push_back(*found);
  }
  return columns;
}

// Total variation and Kolmogorov-Smirnov distances between two distributions of children per
// parent (whole numbers, 0 for childless parents).
std::pair<double, double> count_distances(const std::vector<std::size_t>& a,
                                          const std::vector<std::size_t>& b) {
  if (a.empty() || b.empty()) return {NAN, NAN};
  std::map<std::size_t, std::pair<double, double>> shares;
  for (auto n : a) shares[n].first += 1.0 / static_cast<double>(a.size());
  for (auto n : b) shares[n].second += 1.0 / static_cast<double>(b.size());
  double tv = 0.0, ks = 0.0, fa = 0.0, fb = 0.0;
  for (const auto& [n, p] : shares) {
    tv += std::abs(p.first - p.second);
    fa += p.first;
    fb += p.second;
    ks = std::max(ks, std::abs(fa - fb));
  }
  return {0.5 * tv, ks};
}

}  // namespace

std::string table_file(const std::string& folder, const std::string& table,
                       const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw InputError(folder + ": with tables declared, the " + what +
                     " is a folder holding one file per table (" + table + ".csv, ...)");
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > table.size() + 1 && name.compare(0, table.size() + 1, table + ".") == 0 &&
        entry.is_regular_file(ec))
      found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end());
  if (found.empty())
    throw InputError(folder + ": no file for the table '" + table + "' of the " + what +
                     " (expected " + table + ".csv, or " + table +
                     ".EXT in another format the readers take)");
  if (found.size() > 1)
    throw InputError(folder + ": several files for the table '" + table + "' of the " + what +
                     ": " + join(found, ", "));
  return found.front();
}

EvaluationData load_related_evaluation_data(const EvaluationSpec& spec) {
  const auto& declared = spec.tables;
  // Each table read as a dataset of its own: the confidential file's schema for every file of the
  // table. Key columns are kept whatever their number of levels (they are needed for the joins);
  // the joined data drop identifiers by the real limit.
  // Column settings (`columns:`, SDV metadata, `missing_codes:`) name columns of any table: each
  // table's read takes those its confidential file has, and a setting no table has is an error.
  ReadSettings settings = spec.read;
  if (!spec.metadata.empty())
    for (const auto& [name, kind] : read_sdv_metadata(spec.metadata, spec.context.limits))
      settings.kinds.emplace(name, kind);
  const bool column_settings = !settings.kinds.empty() || !settings.missing_codes.empty() ||
                               !settings.missing_text_codes.empty();
  std::set<std::string> settings_used;
  std::vector<EvaluationData> per_table;
  for (const auto& t : declared) {
    EvaluationSpec one = spec;
    one.tables.clear();
    one.confidential = table_file(spec.confidential, t.name, "confidential data");
    if (column_settings) {
      one.metadata.clear();
      const auto header = open_data_file(one.confidential, reading_settings(one))->header();
      const std::set<std::string> columns(header.begin(), header.end());
      auto keep_present = [&](auto& by_column) {
        std::erase_if(by_column, [&](const auto& entry) { return !columns.count(entry.first); });
        for (const auto& entry : by_column) settings_used.insert(entry.first);
      };
      one.read.kinds = settings.kinds;
      keep_present(one.read.kinds);
      keep_present(one.read.missing_codes);
      keep_present(one.read.missing_text_codes);
    }
    if (spec.holdout) one.holdout = table_file(*spec.holdout, t.name, "holdout");
    for (auto& c : one.candidates)
      for (auto& r : c.replicates) r = table_file(r, t.name, "candidate '" + c.name + "'");
    one.context = EvaluationContext{};
    one.context.threads = spec.context.threads;
    one.context.limits = spec.context.limits;
    one.context.limits.levels = std::numeric_limits<decltype(one.context.limits.levels)>::max();
    one.by.clear();
    one.synthesised_columns.clear();
    per_table.push_back(load_evaluation_data(one));
  }
  auto check_used = [&](const auto& by_column, const char* key) {
    for (const auto& entry : by_column)
      if (!settings_used.count(entry.first))
        throw InputError(spec.read.origin + ": " + key + "." + entry.first +
                         ": no table has a column '" + entry.first + "'");
  };
  check_used(spec.read.kinds, "columns");
  check_used(spec.read.missing_codes, "missing_codes");
  check_used(spec.read.missing_text_codes, "missing_codes");

  std::vector<Dataset> datasets;
  datasets.push_back({"confidential", "", 0, {}});
  for (const auto& data : per_table) datasets.back().tables.push_back(&data.confidential);
  if (spec.holdout) {
    datasets.push_back({"holdout", "", 0, {}});
    for (const auto& data : per_table) datasets.back().tables.push_back(&*data.holdout);
  }
  for (std::size_t c = 0; c < spec.candidates.size(); ++c)
    for (std::size_t r = 0; r < spec.candidates[c].replicates.size(); ++r) {
      const std::string& name = spec.candidates[c].name;
      datasets.push_back({spec.candidates[c].replicates.size() > 1
                              ? name + " replicate " + std::to_string(r + 1)
                              : name,
                          name,
                          r + 1,
                          {}});
      for (const auto& data : per_table)
        datasets.back().tables.push_back(&data.candidates[c].replicates[r]);
    }

  // Key columns, checked on the confidential tables (every file of a table has its columns).
  std::vector<std::vector<std::size_t>> primary(declared.size()), foreign(declared.size());
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const Table& table = per_table[i].confidential;
    primary[i] = key_columns(table, declared[i].primary_key, declared[i].where + ".primary_key");
    if (i == 0) continue;
    foreign[i] = key_columns(table, declared[i].foreign_key, declared[i].where + ".foreign_key");
    for (std::size_t k = 0; k < foreign[i].size(); ++k) {
      const Column& fk = table.column(foreign[i][k]);
      const Column& pk = per_table[i - 1].confidential.column(primary[i - 1][k]);
      if (fk.kind != pk.kind)
        throw InputError(declared[i].where + ".foreign_key: column '" + fk.name + "' is " +
                         to_string(fk.kind) + " but the key '" + pk.name + "' of '" +
                         declared[i - 1].name + "' is " + to_string(pk.kind));
    }
  }

  // Every relation in every dataset.
  EvaluationData joined;
  joined.relations = nlohmann::json::array();
  std::vector<std::vector<RelationCounts>> counts(declared.size());
  for (std::size_t i = 1; i < declared.size(); ++i) {
    nlohmann::json relation = {{"parent", declared[i - 1].name},
                               {"child", declared[i].name},
                               {"primary_key", declared[i - 1].primary_key},
                               {"foreign_key", declared[i].foreign_key},
                               {"datasets", nlohmann::json::array()}};
    for (const auto& dataset : datasets) {
      counts[i].push_back(relate(*dataset.tables[i - 1], primary[i - 1], *dataset.tables[i],
                                 foreign[i], primary[i]));
      const RelationCounts& got = counts[i].back();
      const RelationCounts& conf = counts[i].front();
      const auto [lo, hi] =
          std::minmax_element(conf.children_per_parent.begin(), conf.children_per_parent.end());
      std::size_t outside = 0;
      if (lo != conf.children_per_parent.end())
        for (auto n : got.children_per_parent) outside += n < *lo || n > *hi;
      const auto [tv, ks] = count_distances(conf.children_per_parent, got.children_per_parent);
      const auto share = [](std::size_t k, std::size_t n) {
        return n > 0 ? nlohmann::json(static_cast<double>(k) / static_cast<double>(n))
                     : nlohmann::json(nullptr);
      };
      const std::size_t distinct_parents = got.children_per_parent.size();
      nlohmann::json entry = {
          {"dataset", dataset.label},
          {"parents", got.parents},
          {"children", got.children},
          {"duplicate_parent_keys", got.duplicate_parent_keys},
          {"missing_parent_keys", got.missing_parent_keys},
          {"duplicate_child_keys", got.duplicate_child_keys},
          {"missing_foreign_keys", got.missing_foreign_keys},
          {"orphans", got.orphans},
          {"orphan_share", share(got.orphans, got.children)},
          {"childless_parents", got.childless_parents},
          {"childless_share", share(got.childless_parents, distinct_parents)},
          {"children_per_parent_outside_bounds", outside},
          {"outside_bounds_share", share(outside, distinct_parents)},
          {"mean_children_per_parent",
           share(got.children - got.orphans - got.missing_foreign_keys, distinct_parents)},
          {"cardinality_tv", std::isnan(tv) ? nlohmann::json(nullptr) : nlohmann::json(tv)},
          {"cardinality_ks", std::isnan(ks) ? nlohmann::json(nullptr) : nlohmann::json(ks)}};
      // SDMetrics' multi-table measures of the same relation, in their conventions:
      // CardinalityShapeSimilarity (1 - KS), CardinalityBoundaryAdherence (parents within the
      // confidential range) and ReferentialIntegrity (children whose key names a parent; a
      // missing key is left out when the confidential data have missing keys too).
      entry["cardinality_shape_similarity"] =
          std::isnan(ks) ? nlohmann::json(nullptr) : nlohmann::json(1.0 - ks);
      entry["cardinality_boundary_adherence"] = share(distinct_parents - outside, distinct_parents);
      const bool drop_missing = conf.missing_foreign_keys > 0;
      const std::size_t referenced = got.children - got.orphans - got.missing_foreign_keys;
      entry["referential_integrity"] =
          share(referenced, got.children - (drop_missing ? got.missing_foreign_keys : 0));
      if (!dataset.candidate.empty()) {
        entry["candidate"] = dataset.candidate;
        entry["replicate"] = dataset.replicate;
      }
      relation["datasets"].push_back(std::move(entry));

      // Findings: broken keys fail a candidate when the confidential data have none of them.
      const std::string what = "'" + declared[i].name + "' → '" + declared[i - 1].name + "'";
      // Who the finding is about, as the other data checks name it.
      const std::string who =
          (dataset.candidate.empty()
               ? "the " + dataset.label + " data"
               : "candidate '" + dataset.candidate + "'" +
                     (dataset.label == dataset.candidate
                          ? ""
                          : " replicate " + std::to_string(dataset.replicate))) +
          " (" + dataset.tables[i]->source().path + ")";
      auto finding = [&](const std::string& check, bool fails, std::string message,
                         nlohmann::json numbers) {
        joined.relation_findings.push_back({check, dataset.candidate, dataset.replicate, "",
                                            fails && !dataset.candidate.empty(), std::move(message),
                                            std::move(numbers)});
      };
      const std::size_t unlinked = got.orphans + got.missing_foreign_keys;
      if (unlinked > 0 &&
          (dataset.candidate.empty() || conf.orphans + conf.missing_foreign_keys == 0))
        finding("orphan_records", true,
                who + ": " + count_text(unlinked) + " of its " + count_text(got.children) + " " +
                    declared[i].name + " records (" +
                    percent(static_cast<double>(unlinked) / static_cast<double>(got.children)) +
                    ") belong to no " + declared[i - 1].name + " record of its dataset (" +
                    count_text(got.orphans) + " orphans whose " +
                    join(declared[i].foreign_key, ", ") + " no " + declared[i - 1].name +
                    " record has, " + count_text(got.missing_foreign_keys) +
                    " with it missing) in the relation " + what,
                {{"orphans", got.orphans},
                 {"missing_foreign_keys", got.missing_foreign_keys},
                 {"children", got.children}});
      const std::size_t duplicates = got.duplicate_parent_keys + got.duplicate_child_keys;
      if (duplicates > 0 && (dataset.candidate.empty() ||
                             conf.duplicate_parent_keys + conf.duplicate_child_keys == 0))
        finding("duplicate_keys", true,
                who + ": " + count_text(got.duplicate_parent_keys) + " " + declared[i - 1].name +
                    " records repeat a primary key (" + join(declared[i - 1].primary_key, ", ") +
                    ") and " + count_text(got.duplicate_child_keys) + " " + declared[i].name +
                    " records repeat theirs (" + join(declared[i].primary_key, ", ") + ")",
                {{"duplicate_parent_keys", got.duplicate_parent_keys},
                 {"duplicate_child_keys", got.duplicate_child_keys}});
      if (!dataset.candidate.empty() && got.childless_parents > 0 && conf.childless_parents == 0)
        finding("childless_parents", false,
                who + ": " + count_text(got.childless_parents) + " of its " +
                    count_text(distinct_parents) + " " + declared[i - 1].name + " records (" +
                    percent(static_cast<double>(got.childless_parents) /
                            static_cast<double>(distinct_parents)) +
                    ") have no " + declared[i].name + " record, which no confidential one lacks",
                {{"childless_parents", got.childless_parents}, {"parents", distinct_parents}});
    }
    joined.relations.push_back(std::move(relation));
  }

  // The joined data: the last table's records with every ancestor's columns. A parent column
  // whose name the joined record already has is named TABLE.COLUMN; a parent's key columns are
  // left out (the child's foreign key holds them).
  const std::size_t leaf = declared.size() - 1;
  // (table, column) -> its name in the joined data, filled by the confidential join.
  std::map<std::pair<std::size_t, std::string>, std::string> joined_name;
  for (const auto& c : per_table[leaf].confidential.column_names()) joined_name[{leaf, c}] = c;
  auto join_dataset = [&](std::size_t d, Schema* schema) {
    const Dataset& dataset = datasets[d];
    Table table = *dataset.tables[leaf];
    std::map<std::string, std::string> child_names;  // the child's columns as the join names them
    for (const auto& c : table.column_names()) child_names[c] = c;
    for (std::size_t i = leaf; i >= 1; --i) {
      const Table& parent = *dataset.tables[i - 1];
      std::vector<std::size_t> fk;
      for (std::size_t c : foreign[i])
        fk.push_back(*table.find(child_names.at(per_table[i].confidential.column(c).name)));
      const RelationCounts linked = relate(parent, primary[i - 1], table, fk, {});
      std::vector<std::size_t> columns;
      std::vector<std::string> names;
      std::map<std::string, std::string> parent_names;
      const auto taken = table.column_names();
      std::set<std::string> used(taken.begin(), taken.end());
      for (std::size_t c = 0; c < parent.column_count(); ++c) {
        // A key column that is also the parent's own foreign key is kept: the next join needs it.
        const auto in = [c](const std::vector<std::size_t>& key) {
          return std::find(key.begin(), key.end(), c) != key.end();
        };
        if (in(primary[i - 1]) && !in(foreign[i - 1])) continue;
        std::string name = parent.column(c).name;
        if (used.count(name)) name = declared[i - 1].name + "." + name;
        used.insert(name);
        columns.push_back(c);
        names.push_back(name);
        parent_names[parent.column(c).name] = name;
        if (schema != nullptr) {
          joined_name[{i - 1, parent.column(c).name}] = name;
          Schema::Entry entry = per_table[i - 1].schema.columns[c];
          entry.name = name;
          schema->columns.push_back(std::move(entry));
        }
      }
      table = join_parent_columns(table, parent, linked.parent_row, columns, names);
      child_names = std::move(parent_names);
    }
    return table;
  };
  joined.schema = per_table[leaf].schema;
  joined.confidential = join_dataset(0, &joined.schema);
  std::size_t d = 1;
  if (spec.holdout) joined.holdout = join_dataset(d++, nullptr);
  for (std::size_t c = 0; c < spec.candidates.size(); ++c) {
    EvaluationData::Candidate candidate{spec.candidates[c].name, {}};
    for (std::size_t r = 0; r < spec.candidates[c].replicates.size(); ++r)
      candidate.replicates.push_back(join_dataset(d++, nullptr));
    joined.candidates.push_back(std::move(candidate));
  }

  // Identifiers out: the last table's own key and the keys of intermediate parents; the root's key
  // stays (the household column). Keys of several columns stay: their columns are data as well.
  std::set<std::string> identifiers;
  if (primary[leaf].size() == 1 && leaf > 0)
    identifiers.insert(per_table[leaf].confidential.column(primary[leaf].front()).name);
  for (std::size_t i = 2; i < declared.size(); ++i)
    if (foreign[i].size() == 1)
      identifiers.insert(
          joined_name.at({i, per_table[i].confidential.column(foreign[i].front()).name}));
  if (!identifiers.empty()) {
    auto drop = [&](Table& table) {
      std::vector<Column> kept;
      for (std::size_t c = 0; c < table.column_count(); ++c)
        if (!identifiers.count(table.column(c).name)) kept.push_back(std::move(table.column(c)));
      const TableSource source = table.source();
      table = Table(source, std::move(kept));
    };
    drop(joined.confidential);
    if (joined.holdout) drop(*joined.holdout);
    for (auto& c : joined.candidates)
      for (auto& t : c.replicates) drop(t);
    std::erase_if(joined.schema.columns,
                  [&](const Schema::Entry& e) { return identifiers.count(e.name) > 0; });
  }

  for (auto& data : per_table) {
    joined.warnings.insert(joined.warnings.end(), data.warnings.begin(), data.warnings.end());
    joined.reading_warnings.insert(joined.reading_warnings.end(), data.reading_warnings.begin(),
                                   data.reading_warnings.end());
    for (auto& file : data.treated_as_missing) joined.treated_as_missing.push_back(file);
  }
  finish_evaluation_data(joined, spec.context.synthesis, spec.context.limits, false,
                         spec.context.household);
  check_named_columns_kept(spec, joined);
  return joined;
}

}  // namespace synthaudit
