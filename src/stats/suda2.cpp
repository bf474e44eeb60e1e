#include "stats/suda2.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "core/threads.hpp"

namespace synthaudit::stats {

int MinimalSampleUnique::size() const { return std::popcount(keys); }

namespace {

// One (key, value) pair and the rows of the current (sub-)table that hold it, ascending.
struct Item {
  std::uint32_t key = 0;
  std::uint32_t value = 0;
  std::vector<std::uint32_t> rows;
};

bool item_rank_less(const Item& a, const Item& b) {
  if (a.rows.size() != b.rows.size()) return a.rows.size() < b.rows.size();
  return a.key != b.key ? a.key < b.key : a.value < b.value;
}

class Search {
 public:
  Search(const SudaKeys& keys, int max_size)
      : keys_(keys.codes.size()), max_size_(max_size), values_(keys.rows * keys.codes.size()) {
    offset_.resize(keys_ + 1, 0);
    levels_ = keys.levels;
    for (std::size_t k = 0; k < keys_; ++k) offset_[k + 1] = offset_[k] + keys.levels[k];
    for (std::size_t r = 0; r < keys.rows; ++r)
      for (std::size_t k = 0; k < keys_; ++k) values_[r * keys_ + k] = keys.codes[k][r];
  }

  std::vector<MinimalSampleUnique> run(std::size_t rows) {
    // The whole table's items.
    std::vector<Item> items;
    std::vector<std::uint32_t> count(offset_[keys_], 0);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t k = 0; k < keys_; ++k)
        if (const auto v = value(r, k); v != kSudaMissing) ++count[offset_[k] + v];
    std::vector<std::int64_t> index(offset_[keys_], -1);
    for (std::size_t k = 0; k < keys_; ++k)
      for (std::uint32_t v = 0; v < offset_[k + 1] - offset_[k]; ++v)
        if (const auto c = count[offset_[k] + v]; c > 0) {
          index[offset_[k] + v] = static_cast<std::int64_t>(items.size());
          items.push_back({static_cast<std::uint32_t>(k), v, {}});
          items.back().rows.reserve(c);
        }
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t k = 0; k < keys_; ++k)
        if (const auto v = value(r, k); v != kSudaMissing)
          items[static_cast<std::size_t>(index[offset_[k] + v])].rows.push_back(
              static_cast<std::uint32_t>(r));

    std::vector<MinimalSampleUnique> found;
    std::vector<Item> candidates = take_candidates(items, rows, found);
    if (max_size_ < 2 || candidates.empty()) return sorted(std::move(found));

    // Level 0 is shared by all threads (read only); each top-level item's branch is independent.
    std::vector<std::int32_t> rank0(offset_[keys_], -1);
    for (std::size_t i = 0; i < candidates.size(); ++i)
      rank0[offset_[candidates[i].key] + candidates[i].value] = static_cast<std::int32_t>(i);
    std::vector<std::vector<MinimalSampleUnique>> per_item(candidates.size());
    std::vector<std::vector<Pending>> pending_per_item(candidates.size());
    const auto n = static_cast<std::int64_t>(candidates.size());
    std::vector<Pending> pending;
    std::vector<std::size_t> group_starts;
#pragma omp parallel num_threads(parallel_threads())
    {
      Workspace work(static_cast<std::size_t>(max_size_) + 1);
      work.rank[0] = &rank0;
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t i = 0; i < n; ++i)
        pivot_branch(candidates, static_cast<std::size_t>(i), 0, max_size_, work,
                     per_item[static_cast<std::size_t>(i)],
                     pending_per_item[static_cast<std::size_t>(i)]);
#pragma omp single
      {
        for (auto& part : pending_per_item) {
          pending.insert(pending.end(), part.begin(), part.end());
          part = {};
        }
        group_starts = group_checks(pending, candidates, 0, work);
      }
      std::vector<MinimalSampleUnique> confirmed;
      const auto groups = static_cast<std::int64_t>(group_starts.size()) - 1;
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t g = 0; g < groups; ++g)
        check_group(pending, group_starts[static_cast<std::size_t>(g)],
                    group_starts[static_cast<std::size_t>(g) + 1], candidates, confirmed);
#pragma omp critical
      found.insert(found.end(), confirmed.begin(), confirmed.end());
    }
    for (auto& part : per_item) found.insert(found.end(), part.begin(), part.end());
    return sorted(std::move(found));
  }

 private:
  struct Workspace {
    explicit Workspace(std::size_t depths) : rank(depths, nullptr), own(depths) {}
    // rank[d][offset(key) + value]: the item's rank among the candidates of the table being
    // searched at depth d, −1 when it is not one.
    std::vector<const std::vector<std::int32_t>*> rank;
    std::vector<std::vector<std::int32_t>> own;
    std::vector<std::uint32_t> count;  // scratch of build_child
  };

  std::uint32_t value(std::size_t row, std::size_t key) const { return values_[row * keys_ + key]; }

  static std::vector<MinimalSampleUnique> sorted(std::vector<MinimalSampleUnique> found) {
    std::sort(found.begin(), found.end());
    return found;
  }

  // Items held by one row are MSUs of size 1 (of this table); items held by every row cannot be
  // part of an MSU. The rest, ranked by count, are returned.
  std::vector<Item> take_candidates(std::vector<Item>& items, std::size_t table_rows,
                                    std::vector<MinimalSampleUnique>& found) const {
    std::vector<Item> candidates;
    for (auto& item : items) {
      if (item.rows.size() == 1)
        found.push_back({item.rows[0], std::uint64_t{1} << item.key});
      else if (item.rows.size() < table_rows)
        candidates.push_back(std::move(item));
    }
    std::sort(candidates.begin(), candidates.end(), item_rank_less);
    return candidates;
  }

  // The items ranked after candidates[i] within the rows holding candidates[i].
  std::vector<Item> build_child(const std::vector<Item>& candidates, std::size_t i,
                                std::size_t depth, Workspace& work) const {
    const Item& pivot = candidates[i];
    const auto& rank = *work.rank[depth];
    // count[p], zero outside this call: rows of the pivot holding candidate p; then p's slot.
    auto& count = work.count;
    if (count.size() < candidates.size()) count.resize(candidates.size(), 0);
    std::vector<std::uint32_t> touched;
    for (const auto r : pivot.rows)
      for (std::size_t k = 0; k < keys_; ++k) {
        if (k == pivot.key) continue;
        const auto v = value(r, k);
        if (v == kSudaMissing) continue;
        const auto p = rank[offset_[k] + v];
        if (p <= static_cast<std::int32_t>(i)) continue;
        if (count[static_cast<std::size_t>(p)]++ == 0)
          touched.push_back(static_cast<std::uint32_t>(p));
      }
    std::vector<Item> child(touched.size());
    for (std::size_t t = 0; t < touched.size(); ++t) {
      const Item& parent = candidates[touched[t]];
      child[t].key = parent.key;
      child[t].value = parent.value;
      child[t].rows.reserve(count[touched[t]]);
      count[touched[t]] = static_cast<std::uint32_t>(t);  // from now on: the child's slot
    }
    for (const auto r : pivot.rows)
      for (std::size_t k = 0; k < keys_; ++k) {
        if (k == pivot.key) continue;
        const auto v = value(r, k);
        if (v == kSudaMissing) continue;
        const auto p = rank[offset_[k] + v];
        if (p <= static_cast<std::int32_t>(i)) continue;
        child[count[static_cast<std::size_t>(p)]].rows.push_back(r);
      }
    for (const auto p : touched) count[p] = 0;
    return child;
  }

  // An MSU M of the sub-table of candidates[pivot] waiting for the check that M ∪ {pivot} is an
  // MSU of the table: M is held by another row of the table (outside the sub-table, where M is
  // unique). The check does not depend on the pivot, so the checks of all pivots of one table are
  // grouped by (the least held item of M, M's keys): one sort of that item's rows answers them.
  struct Pending {
    MinimalSampleUnique msu;
    std::uint32_t pivot = 0;  // index in the table's candidates
    std::uint32_t scan = 0;   // index of M's least held item in the table's candidates
  };

  // Fills in each check's scan item, sorts the checks into groups and returns the groups' starts
  // (and the end).
  std::vector<std::size_t> group_checks(std::vector<Pending>& pending,
                                        const std::vector<Item>& candidates, std::size_t depth,
                                        const Workspace& work) const {
    const auto& rank = *work.rank[depth];
    for (auto& p : pending) {
      std::int32_t best = -1;
      for (std::uint64_t bits = p.msu.keys; bits != 0; bits &= bits - 1) {
        const auto k = static_cast<std::size_t>(std::countr_zero(bits));
        const auto q = rank[offset_[k] + value(p.msu.row, k)];
        if (best < 0 || candidates[static_cast<std::size_t>(q)].rows.size() <
                            candidates[static_cast<std::size_t>(best)].rows.size())
          best = q;
      }
      p.scan = static_cast<std::uint32_t>(best);
    }
    std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      if (a.scan != b.scan) return a.scan < b.scan;
      if (a.msu.keys != b.msu.keys) return a.msu.keys < b.msu.keys;
      return a.msu.row != b.msu.row ? a.msu.row < b.msu.row : a.pivot < b.pivot;
    });
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < pending.size(); ++i)
      if (i == 0 || pending[i].scan != pending[i - 1].scan ||
          pending[i].msu.keys != pending[i - 1].msu.keys)
        starts.push_back(i);
    starts.push_back(pending.size());
    return starts;
  }

  // Lexicographic order of two rows' values on `keys`.
  int compare_on(std::uint32_t a, std::uint32_t b, std::uint64_t keys) const {
    for (std::uint64_t bits = keys; bits != 0; bits &= bits - 1) {
      const auto k = static_cast<std::size_t>(std::countr_zero(bits));
      const auto x = value(a, k), y = value(b, k);
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }

  // The checks pending[first, last) (one scan item, one key set): each confirmed MSU (with its
  // pivot's key) goes to `found`.
  void check_group(const std::vector<Pending>& pending, std::size_t first, std::size_t last,
                   const std::vector<Item>& candidates,
                   std::vector<MinimalSampleUnique>& found) const {
    const auto keys = pending[first].msu.keys;
    const auto& rows = candidates[pending[first].scan].rows;
    auto confirm = [&](const Pending& p) {
      found.push_back({p.msu.row, p.msu.keys | std::uint64_t{1} << candidates[p.pivot].key});
    };
    if (last - first == 1) {  // one check: a scan is cheaper than a sort
      std::size_t holding = 0;
      for (const auto r : rows)
        if (compare_on(r, pending[first].msu.row, keys) == 0 && ++holding == 2) break;
      if (holding >= 2) confirm(pending[first]);
      return;
    }
    // Values on the key set as one mixed-radix number when it fits in 64 bits (the usual case):
    // a sort of plain numbers; else a sort of the rows by their values.
    std::uint64_t capacity = 1;
    bool fits = true;
    for (std::uint64_t bits = keys; bits != 0 && fits; bits &= bits - 1) {
      const std::uint64_t radix = levels_[static_cast<std::size_t>(std::countr_zero(bits))] + 1;
      fits = capacity <= (std::uint64_t{1} << 62) / radix;
      capacity *= radix;
    }
    if (fits) {
      auto code = [&](std::uint32_t r) {
        std::uint64_t c = 0;
        for (std::uint64_t bits = keys; bits != 0; bits &= bits - 1) {
          const auto k = static_cast<std::size_t>(std::countr_zero(bits));
          c = c * (levels_[k] + 1) + value(r, k);
        }
        return c;
      };
      std::vector<std::uint64_t> codes(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) codes[i] = code(rows[i]);
      std::sort(codes.begin(), codes.end());
      for (std::size_t i = first; i < last; ++i) {
        const auto range = std::equal_range(codes.begin(), codes.end(), code(pending[i].msu.row));
        if (range.second - range.first >= 2) confirm(pending[i]);
      }
      return;
    }
    std::vector<std::uint32_t> order(rows.begin(), rows.end());
    auto less = [&](std::uint32_t a, std::uint32_t b) { return compare_on(a, b, keys) < 0; };
    std::sort(order.begin(), order.end(), less);
    for (std::size_t i = first; i < last; ++i) {
      const auto range = std::equal_range(order.begin(), order.end(), pending[i].msu.row, less);
      if (range.second - range.first >= 2) confirm(pending[i]);
    }
  }

  // The MSUs of size 2.. of the table at `depth` (its candidates ranked, its rank table in
  // work.rank[depth]) whose lowest-ranked item is candidates[i]: found now (size 2), or waiting
  // in `pending` for the check against the table.
  void pivot_branch(const std::vector<Item>& candidates, std::size_t i, std::size_t depth,
                    int max_size, Workspace& work, std::vector<MinimalSampleUnique>& found,
                    std::vector<Pending>& pending) const {
    const Item& pivot = candidates[i];
    std::vector<Item> child = build_child(candidates, i, depth, work);
    std::vector<MinimalSampleUnique> below;
    std::vector<Item> child_candidates = take_candidates(child, pivot.rows.size(), below);
    const std::uint64_t pivot_bit = std::uint64_t{1} << pivot.key;
    // An item held once in the sub-table is held by other rows of this table (it is a candidate
    // here, so held at least twice): it and the pivot are an MSU.
    for (const auto& msu : below) found.push_back({msu.row, msu.keys | pivot_bit});
    if (max_size < 3 || child_candidates.empty()) return;

    // Entries are −1 outside the branch that fills them.
    auto& rank = work.own[depth + 1];
    if (rank.empty()) rank.assign(offset_[keys_], -1);
    for (std::size_t j = 0; j < child_candidates.size(); ++j)
      rank[offset_[child_candidates[j].key] + child_candidates[j].value] =
          static_cast<std::int32_t>(j);
    work.rank[depth + 1] = &rank;
    below.clear();
    std::vector<Pending> child_pending;
    for (std::size_t j = 0; j < child_candidates.size(); ++j)
      pivot_branch(child_candidates, j, depth + 1, max_size - 1, work, below, child_pending);
    const auto starts = group_checks(child_pending, child_candidates, depth + 1, work);
    for (std::size_t g = 0; g + 1 < starts.size(); ++g)
      check_group(child_pending, starts[g], starts[g + 1], child_candidates, below);
    for (const auto& item : child_candidates) rank[offset_[item.key] + item.value] = -1;
    for (const auto& msu : below) pending.push_back({msu, static_cast<std::uint32_t>(i), 0});
  }

  std::size_t keys_;
  int max_size_;
  std::vector<std::uint32_t> values_;  // row-major: values_[row * keys_ + key]
  std::vector<std::uint32_t> levels_;
  std::vector<std::uint32_t> offset_;  // offset_[key]: start of the key's levels in rank tables
};

void check_keys(const SudaKeys& keys, int max_size) {
  if (keys.codes.size() > kSudaMaxKeys) throw std::invalid_argument("SUDA2: more than 64 keys");
  if (keys.codes.size() != keys.levels.size())
    throw std::invalid_argument("SUDA2: keys and levels differ in number");
  if (max_size < 1) throw std::invalid_argument("SUDA2: maximum MSU size below 1");
  for (const auto& column : keys.codes)
    if (column.size() != keys.rows) throw std::invalid_argument("SUDA2: key of another length");
}

}  // namespace

SudaKeys suda_keys(const Table& table, const std::vector<std::size_t>& columns) {
  SudaKeys keys;
  keys.rows = table.rows();
  for (const auto c : columns) {
    const Column& column = table.column(c);
    std::vector<std::uint32_t> codes(table.rows(), kSudaMissing);
    std::uint32_t levels = 0;
    if (column.is_numeric()) {
      std::vector<double> distinct;
      for (const double v : column.numeric)
        if (!std::isnan(v)) distinct.push_back(v);
      std::sort(distinct.begin(), distinct.end());
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      for (std::size_t r = 0; r < table.rows(); ++r)
        if (const double v = column.numeric[r]; !std::isnan(v))
          codes[r] = static_cast<std::uint32_t>(
              std::lower_bound(distinct.begin(), distinct.end(), v) - distinct.begin());
      levels = static_cast<std::uint32_t>(distinct.size());
    } else {
      for (std::size_t r = 0; r < table.rows(); ++r)
        if (!is_missing(column.codes[r])) codes[r] = column.codes[r];
      levels = static_cast<std::uint32_t>(column.cardinality());
    }
    keys.codes.push_back(std::move(codes));
    keys.levels.push_back(levels);
  }
  return keys;
}

std::vector<MinimalSampleUnique> minimal_sample_uniques(const SudaKeys& keys, int max_size) {
  check_keys(keys, max_size);
  if (keys.codes.empty() || keys.rows == 0) return {};
  Search search(keys, max_size);
  return search.run(keys.rows);
}

std::vector<MinimalSampleUnique> minimal_sample_uniques_by_enumeration(const SudaKeys& keys,
                                                                       int max_size) {
  check_keys(keys, max_size);
  const std::size_t k = keys.codes.size();
  if (k == 0 || keys.rows == 0) return {};
  // unique[S][row]: the row's values on key set S are all present and held by no other row.
  std::map<std::uint64_t, std::vector<char>> unique;
  std::vector<MinimalSampleUnique> found;
  for (std::uint64_t set = 1; set < (std::uint64_t{1} << k); ++set) {
    if (std::popcount(set) > max_size) continue;
    std::map<std::vector<std::uint32_t>, std::uint32_t> counts;
    std::vector<std::vector<std::uint32_t>> tuples(keys.rows);
    std::vector<char> complete(keys.rows, 1);
    for (std::size_t r = 0; r < keys.rows; ++r) {
      for (std::size_t c = 0; c < k; ++c)
        if (set >> c & 1) {
          tuples[r].push_back(keys.codes[c][r]);
          if (keys.codes[c][r] == kSudaMissing) complete[r] = 0;
        }
      if (complete[r]) ++counts[tuples[r]];
    }
    auto& is_unique = unique[set];
    is_unique.assign(keys.rows, 0);
    for (std::size_t r = 0; r < keys.rows; ++r)
      is_unique[r] = complete[r] && counts[tuples[r]] == 1;
    for (std::size_t r = 0; r < keys.rows; ++r) {
      if (!is_unique[r]) continue;
      bool minimal = true;
      for (std::size_t c = 0; c < k && minimal; ++c)
        if ((set >> c & 1) && set != (std::uint64_t{1} << c))
          minimal = !unique.at(set & ~(std::uint64_t{1} << c))[r];
      if (minimal) found.push_back({static_cast<std::uint32_t>(r), set});
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

double suda_weight(int size, int keys, int max_size) {
  double weight = 1;
  for (int i = size; i <= max_size - 1; ++i) weight *= keys - i;
  return weight;
}

SudaScores suda_scores(const SudaKeys& keys, const std::vector<MinimalSampleUnique>& msus,
                       int max_size, double dis_fraction) {
  check_keys(keys, max_size);
  const int k = static_cast<int>(keys.codes.size());
  SudaScores out;
  out.score.assign(keys.rows, 0.0);
  out.dis_score.assign(keys.rows, 0.0);
  out.msus.assign(keys.rows, 0);
  out.msus_by_size.assign(static_cast<std::size_t>(max_size), 0);
  for (const auto& msu : msus) {
    const int size = msu.size();
    out.score[msu.row] += suda_weight(size, k, max_size);
    ++out.msus[msu.row];
    ++out.msus_by_size[static_cast<std::size_t>(size - 1)];
  }
  // Classes on all keys, a missing value being one more value of its key.
  std::unordered_map<std::string, std::uint32_t> classes;
  std::vector<std::string> signature(keys.rows);
  for (std::size_t r = 0; r < keys.rows; ++r) {
    auto& s = signature[r];
    s.resize(static_cast<std::size_t>(k) * sizeof(std::uint32_t));
    for (int c = 0; c < k; ++c) {
      const std::uint32_t v = keys.codes[static_cast<std::size_t>(c)][r];
      for (std::size_t b = 0; b < sizeof v; ++b)
        s[static_cast<std::size_t>(c) * sizeof v + b] = static_cast<char>(v >> (8 * b) & 0xff);
    }
    ++classes[s];
  }
  for (std::size_t r = 0; r < keys.rows; ++r) {
    const auto size = classes[signature[r]];
    out.sample_uniques += size == 1;
    out.records_in_pairs += size == 2;
  }
  const double u = static_cast<double>(out.sample_uniques);
  const double p = static_cast<double>(out.records_in_pairs);
  const double f = dis_fraction;
  out.dis = out.sample_uniques == 0 ? std::nan("") : u * f / (u * f + p * (1 - f));
  const double q = 1 + (8.0 - k) / 20.0;
  double adjustment = 0;
  for (const double s : out.score)
    if (s > 0) adjustment += 1 / std::pow(s, q);
  for (std::size_t r = 0; r < keys.rows; ++r) {
    const double s = out.score[r];
    if (s > 0) out.dis_score[r] = 1 / (1 + (u / out.dis - u) / (std::pow(s, q) * adjustment));
  }
  return out;
}

}  // namespace synthaudit::stats
