#include "metrics/key_disclosure/key_combinations.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "metrics/key_disclosure/key_scenarios.hpp"

namespace synthaudit::keydisc {

namespace {

// A numeric key value as it identifies a level: its bits (-0 folded into 0, as the exact coding
// of stats/keys does) or the index of its interval (a, b] under the breaks.
std::uint64_t numeric_key(double value, const stats::CodingOptions& options) {
  if (is_missing(value)) return kMissingKey;
  if (options.numeric == stats::NumericCoding::kBreaks)
    return static_cast<std::uint64_t>(
        std::lower_bound(options.breaks.begin(), options.breaks.end(), value) -
        options.breaks.begin());
  const double folded = value == 0 ? 0.0 : value;
  std::uint64_t bits;
  std::memcpy(&bits, &folded, sizeof bits);
  return bits;
}

}  // namespace

bool combinations_mergeable(const Params& params) {
  const auto& numeric = params.get_string("numeric");
  return numeric == "exact" || numeric == "breaks";
}

void CombinationCounts::write(StateWriter& out) const {
  out.u64(tables);
  out.u64(counts.size());
  out.u64(counts.empty() ? 0 : counts.begin()->first.size());
  for (const auto& [combination, per_table] : counts) {
    for (auto v : combination) out.u64(v);
    for (auto n : per_table) out.u64(n);
  }
  out.boolean(!first_weight.empty());
  for (const auto& [combination, weight] : first_weight) out.f64(weight);
}

CombinationCounts CombinationCounts::read(StateReader& in) {
  CombinationCounts c;
  c.tables = in.u64();
  const auto entries = in.u64();
  const auto keys = in.u64();
  for (std::uint64_t e = 0; e < entries; ++e) {
    KeyCombination combination(keys);
    for (auto& v : combination) v = in.u64();
    std::vector<std::uint64_t> per_table(c.tables);
    for (auto& n : per_table) n = in.u64();
    c.counts.emplace_hint(c.counts.end(), std::move(combination), std::move(per_table));
  }
  if (in.boolean())
    for (const auto& entry : c.counts)
      if (entry.second[0] > 0)
        c.first_weight.emplace_hint(c.first_weight.end(), entry.first, in.f64());
  return c;
}

void CombinationCounts::add(const CombinationCounts& other) {
  tables = std::max(tables, other.tables);
  for (const auto& [combination, per_table] : other.counts) {
    auto& into = counts[combination];
    if (into.empty()) into.assign(tables, 0);
    add_into(into, per_table);
  }
  for (const auto& [combination, weight] : other.first_weight) first_weight[combination] += weight;
}

std::uint64_t CombinationCounts::records(std::size_t table) const {
  std::uint64_t n = 0;
  for (const auto& entry : counts) n += entry.second[table];
  return n;
}

CombinationCounts count_combinations(const std::vector<const Table*>& tables,
                                     const std::vector<std::size_t>& key_columns,
                                     const stats::CodingOptions& options,
                                     const std::vector<double>* first_weights) {
  CombinationCounts c;
  c.tables = tables.size();
  KeyCombination combination(key_columns.size());
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const Table& table = *tables[t];
    for (std::size_t row = 0; row < table.rows(); ++row) {
      for (std::size_t k = 0; k < key_columns.size(); ++k) {
        const Column& column = table.column(key_columns[k]);
        combination[k] =
            column.is_numeric()
                ? numeric_key(column.numeric[row], options)
                : (column.missing(row) ? kMissingKey : std::uint64_t{column.codes[row]});
      }
      auto& per_table = c.counts[combination];
      if (per_table.empty()) per_table.assign(tables.size(), 0);
      ++per_table[t];
      if (t == 0 && first_weights != nullptr) c.first_weight[combination] += (*first_weights)[row];
    }
  }
  return c;
}

void FlatCombinations::push(const std::uint64_t* key, const std::uint64_t* per_table,
                            double first_weight) {
  values.insert(values.end(), key, key + keys);
  counts.insert(counts.end(), per_table, per_table + tables);
  if (weighted) weight.push_back(first_weight);
}

FlatCombinations count_flat_combinations(const std::vector<const Table*>& tables,
                                         const std::vector<std::size_t>& key_columns,
                                         const stats::CodingOptions& options,
                                         const std::vector<double>* first_weights) {
  FlatCombinations out;
  out.keys = key_columns.size();
  out.tables = tables.size();
  out.weighted = first_weights != nullptr;
  // A record is its table in the top 16 bits and its row below.
  constexpr int kTableShift = 48;
  constexpr std::uint64_t kRowMask = (std::uint64_t{1} << kTableShift) - 1;
  auto value = [&](std::uint64_t record, std::size_t k) -> std::uint64_t {
    const std::size_t row = record & kRowMask;
    const Column& column = tables[record >> kTableShift]->column(key_columns[k]);
    if (column.is_numeric()) return numeric_key(column.numeric[row], options);
    return column.missing(row) ? kMissingKey : std::uint64_t{column.codes[row]};
  };
  std::vector<std::uint64_t> records;
  std::size_t rows = 0;
  for (const Table* table : tables) rows += table->rows();
  records.reserve(rows);
  for (std::size_t t = 0; t < tables.size(); ++t)
    for (std::size_t row = 0; row < tables[t]->rows(); ++row)
      records.push_back(std::uint64_t{t} << kTableShift | row);
  // Ties in record order, so each weight sum adds its rows in row order.
  std::sort(records.begin(), records.end(), [&](std::uint64_t a, std::uint64_t b) {
    for (std::size_t k = 0; k < out.keys; ++k) {
      const std::uint64_t va = value(a, k), vb = value(b, k);
      if (va != vb) return va < vb;
    }
    return a < b;
  });
  // Sized once: growing the arrays by doubling would hold up to three times their size.
  std::size_t distinct = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    bool same = i > 0;
    for (std::size_t k = 0; same && k < out.keys; ++k)
      same = value(records[i], k) == value(records[i - 1], k);
    distinct += !same;
  }
  out.values.reserve(distinct * out.keys);
  out.counts.reserve(distinct * out.tables);
  if (out.weighted) out.weight.reserve(distinct);
  KeyCombination key(out.keys), next(out.keys);
  std::vector<std::uint64_t> per_table(out.tables, 0);
  double weight = 0;
  bool open = false;
  for (const std::uint64_t record : records) {
    for (std::size_t k = 0; k < out.keys; ++k) next[k] = value(record, k);
    if (open && next != key) {
      out.push(key.data(), per_table.data(), weight);
      std::fill(per_table.begin(), per_table.end(), 0);
      weight = 0;
    }
    key.swap(next);
    open = true;
    const std::size_t t = record >> kTableShift;
    ++per_table[t];
    if (t == 0 && first_weights != nullptr) weight += (*first_weights)[record & kRowMask];
  }
  if (open) out.push(key.data(), per_table.data(), weight);
  return out;
}

CombinationPatterns combination_patterns(const CombinationCounts& counts, std::size_t table) {
  CombinationPatterns out;
  const std::size_t keys = counts.counts.empty() ? 0 : counts.counts.begin()->first.size();
  std::vector<std::vector<std::uint64_t>> values(keys);
  for (const auto& entry : counts.counts)
    for (std::size_t k = 0; k < keys; ++k)
      if (entry.first[k] != kMissingKey) values[k].push_back(entry.first[k]);
  for (auto& v : values) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    out.missing_levels.push_back(static_cast<std::uint32_t>(v.size()));
  }
  for (const auto& [combination, per_table] : counts.counts) {
    if (per_table[table] == 0) continue;
    std::vector<std::uint32_t> levels(keys);
    for (std::size_t k = 0; k < keys; ++k)
      levels[k] = combination[k] == kMissingKey
                      ? out.missing_levels[k]
                      : static_cast<std::uint32_t>(
                            std::lower_bound(values[k].begin(), values[k].end(), combination[k]) -
                            values[k].begin());
    out.patterns.pattern.push_back(out.patterns.patterns());
    out.patterns.levels.push_back(std::move(levels));
    out.records.push_back(static_cast<double>(per_table[table]));
    if (table == 0 && !counts.first_weight.empty())
      out.weight.push_back(counts.first_weight.at(combination));
  }
  return out;
}

}  // namespace synthaudit::keydisc
