#include "stats/keys.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stats/binning.hpp"
#include "stats/dense_ids.hpp"
#include "stats/quantile.hpp"

namespace synthaudit::stats {

CodedColumn code_column(const std::vector<const Table*>& tables, std::size_t column,
                        const CodingOptions& options, std::size_t reference) {
  const Column& first = tables.at(0)->column(column);
  if (first.is_categorical()) {
    std::vector<const Column*> columns;
    for (const Table* table : tables) columns.push_back(&table->column(column));
    return code_categorical(columns, "Missing", false);
  }
  CodedColumn out;
  out.name = first.name;
  out.codes.resize(tables.size());
  bool any_missing = false;
  // Level of missing values while coding; it becomes a real level only if one is seen.
  std::uint32_t missing = 0;
  std::vector<double> cuts;  // exact: the distinct values; binned: the breaks
  if (options.numeric == NumericCoding::kExact) {
    // Distinct values through a hash of their bit patterns (O(n), then only the distinct
    // values are sorted); -0.0 is folded into 0.0 so that equal values share a level.
    DenseIds seen(1024);
    for (const Table* table : tables)
      for (double v : table->column(column).numeric) {
        if (is_missing(v)) continue;
        const double w = v == 0 ? 0.0 : v;
        std::uint64_t bits;
        std::memcpy(&bits, &w, sizeof bits);
        if (seen.id(bits) == cuts.size()) cuts.push_back(w);
      }
    std::sort(cuts.begin(), cuts.end());
    missing = static_cast<std::uint32_t>(cuts.size());
    for (double v : cuts) out.labels.push_back(format_number(v));
  } else {
    if (options.numeric == NumericCoding::kBreaks) {
      cuts = options.breaks;
    } else {
      std::vector<double> ref;
      for (double v : tables.at(reference)->column(column).numeric)
        if (!is_missing(v)) ref.push_back(v);
      if (!ref.empty() && options.numeric == NumericCoding::kQuantile) {
        std::vector<double> probs;
        for (int j = 1; j < options.bins; ++j)
          probs.push_back(static_cast<double>(j) / options.bins);
        cuts = quantiles_type7(ref, probs, QuantileArithmetic::kR);
      } else if (!ref.empty()) {
        const auto [lo, hi] = std::minmax_element(ref.begin(), ref.end());
        if (*lo == *hi) {
          if (options.bins > 1) cuts.assign(1, *lo);  // one value: it closes the first bin
        } else {
          const auto edges = equal_width_edges(ref, options.bins);
          const auto inner = interior(edges);
          cuts.assign(inner.begin(), inner.end());
        }
      }
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    }
    out.breaks = cuts;
    missing = static_cast<std::uint32_t>(cuts.size() + 1);
    for (std::size_t b = 0; b <= cuts.size(); ++b)
      out.labels.push_back("(" + (b == 0 ? std::string("-inf") : format_number(cuts[b - 1])) +
                           ", " + (b == cuts.size() ? std::string("inf") : format_number(cuts[b])) +
                           "]");
  }
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const auto& values = tables[t]->column(column).numeric;
    auto& dst = out.codes[t];
    dst.resize(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (is_missing(values[i])) {
        any_missing = true;
        dst[i] = missing;
      } else {
        // exact: the index of the value among the distinct ones
        dst[i] = interval_index(values[i], cuts, IntervalClosure::kRight);
      }
    }
  }
  if (any_missing) {
    out.missing_level = missing;
    out.labels.push_back("Missing");
  }
  return out;
}

GroupIds combine_codes(const std::vector<const std::vector<std::vector<std::uint32_t>>*>& parts,
                       const std::vector<std::uint32_t>& cardinalities) {
  if (parts.empty()) throw std::logic_error("combine_codes: no parts");
  const std::size_t tables = parts[0]->size();
  std::size_t total = 0;
  for (std::size_t t = 0; t < tables; ++t) total += (*parts[0])[t].size();
  // Cells as exact 64-bit mixed-radix numbers id * radix + code, accumulated over the parts;
  // densified (relabelled 0..groups-1) only at the end, or earlier when the next product would
  // overflow 64 bits.
  std::vector<std::vector<std::uint64_t>> cell(tables);
  for (std::size_t t = 0; t < tables; ++t)
    cell[t].assign((*parts[0])[t].begin(), (*parts[0])[t].end());
  std::uint64_t product = std::max<std::uint32_t>(cardinalities[0], 1);
  // Dense-array relabelling while the product stays within this many cells, else a hash.
  const std::uint64_t dense_limit =
      std::max<std::uint64_t>(1u << 22, 4 * static_cast<std::uint64_t>(total));
  auto densify = [&]() -> std::uint32_t {
    if (product <= dense_limit) {
      std::vector<std::uint32_t> relabel(product, 0);
      for (const auto& c : cell)
        for (auto v : c) relabel[v] = 1;
      std::uint32_t next = 0;
      for (auto& r : relabel) r = r ? next++ : kNoLevel;
      for (auto& c : cell)
        for (auto& v : c) v = relabel[v];
      return next;
    }
    // Exact densification through a hash map: no collisions are possible, the hashed value is
    // the exact 64-bit cell. Ids in order of first appearance (deterministic).
    DenseIds hash(std::min<std::uint64_t>(product, total));
    for (auto& c : cell)
      for (auto& v : c) v = hash.id(v);
    return hash.size();
  };
  for (std::size_t p = 1; p < parts.size(); ++p) {
    const std::uint64_t radix = std::max<std::uint32_t>(cardinalities[p], 1);
    if (product > (std::numeric_limits<std::uint64_t>::max() >> 1) / radix) product = densify();
    for (std::size_t t = 0; t < tables; ++t) {
      const auto& codes = (*parts[p])[t];
      auto& c = cell[t];
      for (std::size_t i = 0; i < c.size(); ++i) c[i] = c[i] * radix + codes[i];
    }
    product *= radix;
  }
  GroupIds g;
  g.groups = densify();
  g.ids.resize(tables);
  for (std::size_t t = 0; t < tables; ++t) g.ids[t].assign(cell[t].begin(), cell[t].end());
  return g;
}

GroupIds combine(const std::vector<const CodedColumn*>& parts) {
  std::vector<const std::vector<std::vector<std::uint32_t>>*> codes;
  std::vector<std::uint32_t> cards;
  for (const auto* p : parts) {
    codes.push_back(&p->codes);
    cards.push_back(p->levels());
  }
  return combine_codes(codes, cards);
}

PairIds combine_pair(const GroupIds& a, const GroupIds& b) {
  PairIds out;
  out.pairs = combine_codes({&a.ids, &b.ids}, {a.groups, b.groups});
  out.first_of.assign(out.pairs.groups, 0);
  out.second_of.assign(out.pairs.groups, 0);
  for (std::size_t t = 0; t < a.ids.size(); ++t)
    for (std::size_t i = 0; i < a.ids[t].size(); ++i) {
      const auto id = out.pairs.ids[t][i];
      out.first_of[id] = a.ids[t][i];
      out.second_of[id] = b.ids[t][i];
    }
  return out;
}

std::vector<std::uint32_t> count_ids(const std::vector<std::uint32_t>& ids, std::uint32_t groups) {
  std::vector<std::uint32_t> counts(groups, 0);
  for (auto id : ids) ++counts[id];
  return counts;
}

std::vector<double> parse_breaks(const std::vector<std::string>& text, const std::string& what) {
  std::vector<double> out;
  for (const auto& item : text) {
    const std::string s = trim(item);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
      throw InputError(what + ": '" + item + "' is not a number");
    out.push_back(v);
  }
  for (std::size_t i = 1; i < out.size(); ++i)
    if (!(out[i] > out[i - 1])) throw InputError(what + ": breaks must be strictly increasing");
  return out;
}

}  // namespace synthaudit::stats
