#include "stats/cart.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "core/threads.hpp"
#include "stats/summary.hpp"

namespace synthaudit::stats {

int CartTree::leaves() const {
  int count = 0;
  for (const auto& node : nodes) count += node.feature < 0;
  return count;
}

namespace {

// std::lower_bound over the bin edges without data-dependent branches: on unordered values the
// branchy search mispredicts about half its steps, and binning 10^6-row columns is most of a
// single tree fit's time.
std::uint32_t first_edge_not_below(const std::vector<double>& edges, double v) {
  const double* base = edges.data();
  std::size_t length = edges.size();
  while (length > 1) {
    const std::size_t half = length / 2;
    base = base[half - 1] < v ? base + half : base;
    length -= half;
  }
  return static_cast<std::uint32_t>((base - edges.data()) + (*base < v ? 1 : 0));
}

}  // namespace

BinnedData bin_features(const std::vector<FeatureColumn>& features, std::uint32_t max_bins,
                        std::uint32_t histogram_max_bins) {
  BinnedData out;
  out.rows = features.empty()
                 ? 0
                 : (features[0].categorical ? features[0].codes.size() : features[0].values.size());
  out.features.resize(features.size());
#pragma omp parallel for schedule(dynamic, 1) if (out.rows > 50000) num_threads(parallel_threads())
  for (std::size_t f = 0; f < features.size(); ++f) {
    const FeatureColumn& in = features[f];
    BinnedFeature& b = out.features[f];
    b.name = in.name;
    b.categorical = in.categorical;
    if (in.categorical) {
      b.bins = in.levels;
      b.code = in.codes;
      continue;
    }
    const std::vector<double> sorted = sorted_values(in.values);  // radix sort; no NaN here
    std::vector<double> distinct;
    for (double v : sorted)
      if (distinct.empty() || v != distinct.back()) distinct.push_back(v);
    if (max_bins == 0 || distinct.size() <= max_bins) {
      b.upper = distinct;
    } else {
      // Quantile bins: upper edges at equally spaced order statistics (distinct edges only).
      b.exact = false;
      for (std::uint32_t k = 1; k <= max_bins; ++k) {
        const double edge = sorted[std::min(sorted.size() - 1, (sorted.size() * k) / max_bins - 1)];
        if (b.upper.empty() || edge > b.upper.back()) b.upper.push_back(edge);
      }
      if (b.upper.back() < distinct.back()) b.upper.push_back(distinct.back());
    }
    b.bins = static_cast<std::uint32_t>(b.upper.size());
    b.code.resize(in.values.size());
    for (std::size_t i = 0; i < in.values.size(); ++i)
      b.code[i] = first_edge_not_below(b.upper, in.values[i]);
    if (b.bins > histogram_max_bins) {
      // Counting sort of the rows by code (stable: ties by row).
      b.sorted_search = true;
      std::vector<std::uint32_t> start(static_cast<std::size_t>(b.bins) + 1, 0);
      for (const std::uint32_t c : b.code) ++start[c + 1];
      for (std::uint32_t k = 0; k < b.bins; ++k) start[k + 1] += start[k];
      b.order.resize(b.code.size());
      for (std::size_t i = 0; i < b.code.size(); ++i)
        b.order[start[b.code[i]]++] = static_cast<std::uint32_t>(i);
    }
  }
  // Global slot numbers of the histogram features, packed row-major.
  out.slot_offset.assign(features.size() + 1, 0);
  for (std::size_t f = 0; f < features.size(); ++f) {
    const bool histogram = !out.features[f].sorted_search;
    if (histogram) out.histogram_features.push_back(static_cast<std::uint32_t>(f));
    out.slot_offset[f + 1] = out.slot_offset[f] + (histogram ? out.features[f].bins : 0);
  }
  const std::size_t nh = out.histogram_features.size();
  auto pack = [&](auto& slots) {
    slots.resize(out.rows * nh);
#pragma omp parallel for schedule(static) if (out.rows > 50000) num_threads(parallel_threads())
    for (std::size_t r = 0; r < out.rows; ++r)
      for (std::size_t h = 0; h < nh; ++h) {
        const std::size_t f = out.histogram_features[h];
        slots[r * nh + h] = static_cast<std::remove_reference_t<decltype(slots[0])>>(
            out.slot_offset[f] + out.features[f].code[r]);
      }
  };
  if (out.total_bins() <= 65536)
    pack(out.slots16);
  else
    pack(out.slots32);
  return out;
}

namespace {

struct SplitCandidate {
  double improve = 0.0;
  std::uint32_t split_bin = 0;
  std::vector<char> left_levels;
  double threshold = 0.0;
};

// Gini criterion of one side pair, computed term by term in rpart's order (gini.c: for each
// class, the left then the right side's weight × impurity, with the altered priors equal to 1 as
// they are for the default priors proportional to the data). The impurity term is p(1 − p), as the
// rpart that R 4.2 / Debian bookworm ships (4.1.19) computes it: mathematically the same split as
// 1 − p², but the rounding differs, and on exactly tied candidates (common on small nodes with
// random labels) the rounding decides which split rpart keeps (tests/golden/propensity, rpart).
inline double gini_term(double weight, double p) { return weight * (p * (1 - p)); }

inline double gini_total(double l0, double l1, double r0, double r1) {
  const double lwt = l0 + l1, rwt = r0 + r1;
  double temp = 0.0;
  temp += gini_term(lwt, l0 / lwt);
  temp += gini_term(rwt, r0 / rwt);
  temp += gini_term(lwt, l1 / lwt);
  temp += gini_term(rwt, r1 / rwt);
  return temp;
}

inline double node_impurity(double n0, double n1) {
  const double n = n0 + n1;
  double total = 0.0;
  total += gini_term(n, n0 / n);
  total += gini_term(n, n1 / n);
  return total;
}

// Class counts of one feature at a node: counts[2 * i + class] for entry i, entries in bin order;
// bin_of maps an entry to its bin (identity when empty).
struct FeatureCounts {
  const std::uint32_t* counts = nullptr;
  std::size_t entries = 0;
  const std::uint32_t* bin_of = nullptr;
  std::uint32_t bin(std::size_t i) const {
    return bin_of ? bin_of[i] : static_cast<std::uint32_t>(i);
  }
};

// Histograms are reused across nodes: a fit holds at most one per level of the recursion plus
// the one being built.
class HistogramPool {
 public:
  explicit HistogramPool(std::size_t size) : size_(size) {}
  std::vector<std::uint32_t> take() {
    if (free_.empty()) return std::vector<std::uint32_t>(size_);
    auto h = std::move(free_.back());
    free_.pop_back();
    return h;
  }
  void give(std::vector<std::uint32_t>&& h) {
    if (!h.empty()) free_.push_back(std::move(h));
    h = {};
  }

 private:
  std::size_t size_;
  std::vector<std::vector<std::uint32_t>> free_;
};

class Builder {
 public:
  Builder(const BinnedData& d, const std::vector<std::uint8_t>& y, const CartOptions& o)
      : d_(d), y_(y), o_(o), pool_(2 * d.total_bins()) {
    // A node gets a full histogram when its rows outnumber the bins enough that one pass over
    // its rows costs more than reading the histogram; smaller nodes count each feature apart.
    histogram_min_rows_ = d.histogram_features.empty()
                              ? std::numeric_limits<std::size_t>::max()
                              : std::max<std::size_t>(64, d.total_bins() / 8);
  }

  CartTree build(std::vector<std::uint32_t> rows) {
    index_ = std::move(rows);
    scratch_.resize(index_.size());
    prepare_sorted_search();
    tree_.importance.assign(d_.features.size(), 0.0);
    tree_.primary_importance.assign(d_.features.size(), 0.0);
    tree_.nodes.emplace_back();
    ranges_.emplace_back(0, index_.size());
    std::size_t ones = 0;
    for (const std::uint32_t r : index_) ones += y_[r];
    set_counts(0, ones, index_.size());
    alpha_ = o_.cp * tree_.nodes[0].risk;
    tree_.nodes[0].complexity = tree_.nodes[0].risk;  // rpart.c: tree->complexity = tree->risk
    std::vector<std::uint32_t> hist;
    if (index_.size() >= histogram_min_rows_) {
      hist = pool_.take();
      fill_histogram(0, index_.size(), hist, /*parallel=*/true);
    }
    double sumrisk = 0.0;
    tree_.splits = partition(0, 1, 0, index_.size(), std::move(hist), sumrisk);
    compact();
    add_surrogates();
    return std::move(tree_);
  }

 private:
  void set_counts(int idx, std::size_t ones, std::size_t rows) {
    auto& node = tree_.nodes[static_cast<std::size_t>(idx)];
    node.n1 = static_cast<double>(ones);
    node.n0 = static_cast<double>(rows - ones);
    node.risk = std::min(node.n0, node.n1);
  }

  // hist[2 * slot + class] += 1 for every feature's slot of every row in index_[begin, end).
  template <typename Slot>
  void accumulate(const std::vector<Slot>& slots, std::size_t begin, std::size_t end,
                  std::uint32_t* hist) const {
    const std::size_t nf = d_.histogram_features.size();
    const Slot* base = slots.data();
    const std::uint32_t* rows = index_.data();
    const std::uint8_t* y = y_.data();
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t r = rows[k];
      const Slot* s = base + r * nf;
      const std::uint32_t cls = y[r];
      for (std::size_t f = 0; f < nf; ++f) ++hist[2 * static_cast<std::size_t>(s[f]) + cls];
    }
  }

  void accumulate(std::size_t begin, std::size_t end, std::uint32_t* hist) const {
    if (!d_.slots16.empty())
      accumulate(d_.slots16, begin, end, hist);
    else
      accumulate(d_.slots32, begin, end, hist);
  }

  void fill_histogram(std::size_t begin, std::size_t end, std::vector<std::uint32_t>& hist,
                      bool parallel) const {
    std::fill(hist.begin(), hist.end(), 0u);
    const std::size_t n = end - begin;
    const int threads = parallel && !omp_in_parallel() && n >= 200000 ? parallel_threads() : 1;
    if (threads <= 1) {
      accumulate(begin, end, hist.data());
      return;
    }
    // Per-thread partial counts, added up afterwards: integers, so the sum is exact in any order.
    std::vector<std::vector<std::uint32_t>> partial(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t chunk_begin = begin + n * t / static_cast<std::size_t>(threads);
      const std::size_t chunk_end = begin + n * (t + 1) / static_cast<std::size_t>(threads);
      partial[t].assign(hist.size(), 0u);
      accumulate(chunk_begin, chunk_end, partial[t].data());
    }
    for (const auto& part : partial)
      for (std::size_t i = 0; i < hist.size(); ++i) hist[i] += part[i];
  }

  // Best split of one feature from its class counts per bin (entries in bin order).
  SplitCandidate best_split(std::size_t f, const FeatureCounts& fc) const {
    const BinnedFeature& feat = d_.features[f];
    double n0 = 0, n1 = 0;
    for (std::size_t i = 0; i < fc.entries; ++i) {
      n0 += fc.counts[2 * i];
      n1 += fc.counts[2 * i + 1];
    }
    const double n = n0 + n1;
    const double edge = static_cast<double>(o_.minbucket);
    const double total_ss = node_impurity(n0, n1);
    double best = total_ss;
    SplitCandidate cand;
    if (!feat.categorical) {
      double l0 = 0, l1 = 0;
      std::size_t prev = fc.entries, best_below = fc.entries, best_above = fc.entries;
      for (std::size_t i = 0; i < fc.entries; ++i) {
        const double b0 = fc.counts[2 * i], b1 = fc.counts[2 * i + 1];
        if (b0 + b1 == 0) continue;
        if (prev != fc.entries) {
          // Boundary between the previous non-empty bin and this one.
          const double lt = l0 + l1, rt = n - lt;
          if (lt >= edge && rt >= edge) {
            const double temp = gini_total(l0, l1, n0 - l0, n1 - l1);
            if (temp < best) {
              best = temp;
              best_below = prev;
              best_above = i;
            }
          }
        }
        l0 += b0;
        l1 += b1;
        prev = i;
      }
      if (best_below != fc.entries) {
        const std::uint32_t below = fc.bin(best_below), above = fc.bin(best_above);
        cand.split_bin = below;
        if (!feat.upper.empty()) {
          cand.threshold = 0.5 * (feat.upper[below] + feat.upper[above]);
          // rpart cuts at the midpoint between the two training values: bins between them that
          // hold no training row at this node (they matter for records scored out of sample) go
          // left when their values lie below the midpoint.
          const auto first_not_below = std::lower_bound(feat.upper.begin() + below + 1,
                                                        feat.upper.begin() + above, cand.threshold);
          cand.split_bin = static_cast<std::uint32_t>(first_not_below - feat.upper.begin()) - 1;
        }
      }
    } else {
      // Two classes: order the present levels by their class-0 rate; the best partition is a
      // prefix of that order (rpart's graycode_init2 shortcut).
      std::vector<std::uint32_t> present;
      for (std::size_t i = 0; i < fc.entries; ++i)
        if (fc.counts[2 * i] + fc.counts[2 * i + 1] > 0)
          present.push_back(static_cast<std::uint32_t>(i));
      auto rate0 = [&](std::uint32_t i) {
        const double b0 = fc.counts[2 * i], b1 = fc.counts[2 * i + 1];
        return b0 / (b0 + b1);
      };
      std::stable_sort(present.begin(), present.end(),
                       [&](auto a, auto b) { return rate0(a) < rate0(b); });
      double l0 = 0, l1 = 0;
      std::size_t best_k = 0;
      for (std::size_t k = 0; k + 1 < present.size(); ++k) {
        l0 += fc.counts[2 * present[k]];
        l1 += fc.counts[2 * present[k] + 1];
        const double lt = l0 + l1, rt = n - lt;
        if (lt >= edge && rt >= edge) {
          const double temp = gini_total(l0, l1, n0 - l0, n1 - l1);
          if (temp < best) {
            best = temp;
            best_k = k + 1;
          }
        }
      }
      if (best_k > 0) {
        cand.left_levels.assign(feat.bins, 0);
        for (std::size_t k = 0; k < best_k; ++k) cand.left_levels[fc.bin(present[k])] = 1;
      }
    }
    cand.improve = total_ss - best;
    return cand;
  }

  // A node too small for a full histogram: count one feature over its rows, by bin when the
  // feature has few bins for the node's size, else by sorting the (bin, class) pairs of the rows
  // (rpart's own approach) and keeping only the bins present.
  SplitCandidate best_split_small(std::size_t f, std::size_t begin, std::size_t end) const {
    const BinnedFeature& feat = d_.features[f];
    const std::size_t n = end - begin;
    if (feat.categorical || n * 8 >= feat.bins) {
      std::vector<std::uint32_t> counts(2 * static_cast<std::size_t>(feat.bins), 0u);
      for (std::size_t k = begin; k < end; ++k) {
        const std::uint32_t r = index_[k];
        ++counts[2 * static_cast<std::size_t>(feat.code[r]) + y_[r]];
      }
      return best_split(f, {counts.data(), feat.bins, nullptr});
    }
    std::vector<std::uint64_t> keys(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t r = index_[begin + k];
      keys[k] = (static_cast<std::uint64_t>(feat.code[r]) << 1) | y_[r];
    }
    std::sort(keys.begin(), keys.end());
    std::vector<std::uint32_t> counts, bins;
    for (const std::uint64_t key : keys) {
      const auto bin = static_cast<std::uint32_t>(key >> 1);
      if (bins.empty() || bins.back() != bin) {
        bins.push_back(bin);
        counts.push_back(0);
        counts.push_back(0);
      }
      ++counts[2 * (bins.size() - 1) + (key & 1)];
    }
    return best_split(f, {counts.data(), bins.size(), bins.data()});
  }

  bool goes_left(const CartNode& node, std::uint32_t row) const {
    const auto code = d_.features[static_cast<std::size_t>(node.feature)].code[row];
    if (node.left_levels.empty()) return code <= node.split_bin;
    return node.left_levels[code] != 0;
  }

  // Stable partition of index_[begin, end) by the node's split; returns the first right row and
  // counts the class-1 rows sent left.
  std::size_t split_rows(const CartNode& node, std::size_t begin, std::size_t end,
                         std::size_t& left_ones) {
    std::size_t left = begin, right = 0;
    left_ones = 0;
    for (std::size_t k = begin; k < end; ++k) {
      const std::uint32_t r = index_[k];
      const bool goes = goes_left(node, r);
      if (!side_.empty()) side_[r] = goes ? 1 : 0;
      if (goes) {
        index_[left++] = r;
        left_ones += y_[r];
      } else {
        scratch_[right++] = r;
      }
    }
    std::copy(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(right),
              index_.begin() + static_cast<std::ptrdiff_t>(left));
    return left;
  }

  // Whether a child could be split at all (rpart's tests at the top of partition()) and is big
  // enough to be searched from a full histogram.
  bool wants_histogram(const CartNode& child, std::size_t rows) const {
    return rows >= histogram_min_rows_ && could_split(child, rows);
  }

  bool could_split(const CartNode& child, std::size_t rows) const {
    return rows >= o_.minsplit && child.risk > alpha_ && child.depth < o_.maxdepth;
  }

  // The fit's rows of every sorted-search feature in bin order, as (code << 32 | row) keys: the
  // binning's order restricted to the fitted rows (repeated rows as often as they are listed).
  void prepare_sorted_search() {
    sorted_.assign(d_.features.size(), {});
    bool any = false;
    for (const auto& feat : d_.features) any |= feat.sorted_search;
    if (!any) return;
    side_.assign(d_.rows, 0);
    std::vector<std::uint32_t> multiplicity(d_.rows, 0);
    for (const std::uint32_t r : index_) ++multiplicity[r];
    for (std::size_t f = 0; f < d_.features.size(); ++f) {
      const BinnedFeature& feat = d_.features[f];
      if (!feat.sorted_search) continue;
      auto& keys = sorted_[f];
      keys.reserve(index_.size());
      for (const std::uint32_t r : feat.order)
        for (std::uint32_t m = 0; m < multiplicity[r]; ++m)
          keys.push_back(static_cast<std::uint64_t>(feat.code[r]) << 32 | r);
    }
  }

  // Best split of a sorted-search feature: one sweep over the node's rows in bin order.
  SplitCandidate best_split_sorted(std::size_t f, std::size_t begin, std::size_t end) const {
    const auto& keys = sorted_[f];
    std::vector<std::uint32_t> counts, bins;
    for (std::size_t k = begin; k < end; ++k) {
      const auto bin = static_cast<std::uint32_t>(keys[k] >> 32);
      if (bins.empty() || bins.back() != bin) {
        bins.push_back(bin);
        counts.push_back(0);
        counts.push_back(0);
      }
      ++counts[2 * (bins.size() - 1) + y_[static_cast<std::uint32_t>(keys[k])]];
    }
    return best_split(f, {counts.data(), bins.size(), bins.data()});
  }

  // After split_rows (which marks side_), the stable partition of every sorted-search feature's
  // keys in [begin, end) into the left rows [begin, mid) and the right rows [mid, end): each half
  // stays in bin order.
  void partition_sorted(std::size_t begin, std::size_t mid, std::size_t end) {
    std::vector<std::size_t> features;
    for (std::size_t f = 0; f < sorted_.size(); ++f)
      if (!sorted_[f].empty()) features.push_back(f);
    if (features.empty()) return;
    const std::size_t n = end - begin;
    const int threads =
        n >= 200000 && !omp_in_parallel() && features.size() > 1 ? parallel_threads() : 1;
#pragma omp parallel num_threads(threads)
    {
      std::vector<std::uint64_t> right(end - mid);
#pragma omp for schedule(dynamic, 1)
      for (std::size_t j = 0; j < features.size(); ++j) {
        auto& keys = sorted_[features[j]];
        std::size_t left = begin, r = 0;
        for (std::size_t k = begin; k < end; ++k) {
          const std::uint64_t key = keys[k];
          if (side_[static_cast<std::uint32_t>(key)])
            keys[left++] = key;
          else
            right[r++] = key;
        }
        std::copy(right.begin(), right.begin() + static_cast<std::ptrdiff_t>(r),
                  keys.begin() + static_cast<std::ptrdiff_t>(left));
      }
    }
  }

  // rpart's partition(): returns the number of splits kept below this node. `hist` holds the
  // node's counts when it is large enough to have them (else it is empty); it is consumed.
  int partition(int idx, long long nodenum, std::size_t begin, std::size_t end,
                std::vector<std::uint32_t> hist, double& sumrisk) {
    const std::size_t n = end - begin;
    double tempcp;
    {
      const CartNode& me = tree_.nodes[static_cast<std::size_t>(idx)];
      tempcp = me.risk;
      if (nodenum > 1 && tempcp > me.complexity) tempcp = me.complexity;
      if (n < o_.minsplit || tempcp <= alpha_ || me.depth >= o_.maxdepth) {
        tree_.nodes[static_cast<std::size_t>(idx)].complexity = alpha_;
        sumrisk = me.risk;
        pool_.give(std::move(hist));
        return 0;
      }
    }
    // Best split over the features, chosen in feature order (first best wins).
    const std::size_t nf = d_.features.size();
    std::vector<SplitCandidate> cands(nf);
    // Features are independent: large nodes search them in parallel (each candidate is computed
    // by one thread from integer counts, so the choice does not depend on the thread count).
#pragma omp parallel for schedule(dynamic, 1) if (n >= 100000 && !omp_in_parallel()) \
    num_threads(parallel_threads())
    for (std::size_t f = 0; f < nf; ++f) {
      if (d_.features[f].sorted_search)
        cands[f] = best_split_sorted(f, begin, end);
      else if (!hist.empty())
        cands[f] = best_split(f, {hist.data() + 2 * static_cast<std::size_t>(d_.slot_offset[f]),
                                  d_.features[f].bins, nullptr});
      else
        cands[f] = best_split_small(f, begin, end);
    }
    int best_f = -1;
    for (std::size_t f = 0; f < nf; ++f) {
      const double improve = cands[f].improve;
      if (improve > iscale_) iscale_ = improve;
      if (improve > iscale_ * 1e-10 &&
          (best_f < 0 || improve > cands[static_cast<std::size_t>(best_f)].improve))
        best_f = static_cast<int>(f);
    }
    if (best_f < 0) {
      tree_.nodes[static_cast<std::size_t>(idx)].complexity = alpha_;
      sumrisk = tree_.nodes[static_cast<std::size_t>(idx)].risk;
      pool_.give(std::move(hist));
      return 0;
    }
    {
      CartNode& me = tree_.nodes[static_cast<std::size_t>(idx)];
      auto& c = cands[static_cast<std::size_t>(best_f)];
      me.feature = best_f;
      me.split_bin = c.split_bin;
      me.left_levels = std::move(c.left_levels);
      me.improve = c.improve;
      me.threshold = c.threshold;
    }
    std::size_t left_ones = 0;
    const std::size_t mid =
        split_rows(tree_.nodes[static_cast<std::size_t>(idx)], begin, end, left_ones);
    const auto ones = static_cast<std::size_t>(tree_.nodes[static_cast<std::size_t>(idx)].n1);
    const int depth = tree_.nodes[static_cast<std::size_t>(idx)].depth;
    const double my_risk = tree_.nodes[static_cast<std::size_t>(idx)].risk;

    const int li = static_cast<int>(tree_.nodes.size());
    const int ri = li + 1;
    tree_.nodes.emplace_back();
    tree_.nodes.emplace_back();
    ranges_.emplace_back(begin, mid);
    ranges_.emplace_back(mid, end);
    tree_.nodes[static_cast<std::size_t>(idx)].left = li;
    tree_.nodes[static_cast<std::size_t>(idx)].right = ri;
    set_counts(li, left_ones, mid - begin);
    set_counts(ri, ones - left_ones, end - mid);
    tree_.nodes[static_cast<std::size_t>(li)].depth = depth + 1;
    tree_.nodes[static_cast<std::size_t>(ri)].depth = depth + 1;
    if (could_split(tree_.nodes[static_cast<std::size_t>(li)], mid - begin) ||
        could_split(tree_.nodes[static_cast<std::size_t>(ri)], end - mid))
      partition_sorted(begin, mid, end);

    // Children's histograms: count the smaller child's rows, derive the larger child's as the
    // parent's minus the smaller's (in the parent's buffer).
    std::vector<std::uint32_t> left_hist, right_hist;
    if (!hist.empty()) {
      const bool want_left =
          wants_histogram(tree_.nodes[static_cast<std::size_t>(li)], mid - begin);
      const bool want_right = wants_histogram(tree_.nodes[static_cast<std::size_t>(ri)], end - mid);
      const bool left_smaller = mid - begin <= end - mid;
      if (want_left || want_right) {
        std::vector<std::uint32_t> small = pool_.take();
        if (left_smaller)
          fill_histogram(begin, mid, small, true);
        else
          fill_histogram(mid, end, small, true);
        const bool want_large = left_smaller ? want_right : want_left;
        const bool want_small = left_smaller ? want_left : want_right;
        if (want_large)
          for (std::size_t i = 0; i < hist.size(); ++i) hist[i] -= small[i];
        else
          pool_.give(std::move(hist));
        if (!want_small) pool_.give(std::move(small));
        (left_smaller ? left_hist : right_hist) = std::move(small);
        (left_smaller ? right_hist : left_hist) = std::move(hist);
      } else {
        pool_.give(std::move(hist));
      }
    }

    tree_.nodes[static_cast<std::size_t>(li)].complexity = tempcp - alpha_;
    double left_risk = 0.0;
    int left_split = partition(li, 2 * nodenum, begin, mid, std::move(left_hist), left_risk);

    tempcp = (my_risk - left_risk) / (left_split + 1);
    const double tempcp2 = my_risk - tree_.nodes[static_cast<std::size_t>(li)].risk;
    if (tempcp < tempcp2) tempcp = tempcp2;
    if (tempcp > tree_.nodes[static_cast<std::size_t>(idx)].complexity)
      tempcp = tree_.nodes[static_cast<std::size_t>(idx)].complexity;

    tree_.nodes[static_cast<std::size_t>(ri)].complexity = tempcp - alpha_;
    double right_risk = 0.0;
    int right_split = partition(ri, 2 * nodenum + 1, mid, end, std::move(right_hist), right_risk);

    const double lc = tree_.nodes[static_cast<std::size_t>(li)].complexity;
    const double rc = tree_.nodes[static_cast<std::size_t>(ri)].complexity;
    tempcp = (my_risk - (left_risk + right_risk)) / (left_split + right_split + 1);
    if (rc > lc) {
      if (tempcp > lc) {
        left_risk = tree_.nodes[static_cast<std::size_t>(li)].risk;
        left_split = 0;
        tempcp = (my_risk - (left_risk + right_risk)) / (left_split + right_split + 1);
        if (tempcp > rc) {
          right_risk = tree_.nodes[static_cast<std::size_t>(ri)].risk;
          right_split = 0;
        }
      }
    } else if (tempcp > rc) {
      right_split = 0;
      right_risk = tree_.nodes[static_cast<std::size_t>(ri)].risk;
      tempcp = (my_risk - (left_risk + right_risk)) / (left_split + right_split + 1);
      if (tempcp > lc) {
        left_risk = tree_.nodes[static_cast<std::size_t>(li)].risk;
        left_split = 0;
      }
    }
    const double complexity = (my_risk - (left_risk + right_risk)) / (left_split + right_split + 1);
    CartNode& me = tree_.nodes[static_cast<std::size_t>(idx)];
    me.complexity = complexity;
    if (complexity <= alpha_) {
      // All was in vain: this node does not split after all.
      me.feature = -1;
      me.left = me.right = -1;
      me.left_levels.clear();
      sumrisk = me.risk;
      return 0;
    }
    sumrisk = left_risk + right_risk;
    return left_split + right_split + 1;
  }

  void compact() {
    std::vector<CartNode> kept;
    std::vector<std::pair<std::size_t, std::size_t>> kept_ranges;
    // Breadth-first copy with remapped child indices.
    std::vector<int> queue = {0};
    std::vector<int> new_index(tree_.nodes.size(), -1);
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const int old = queue[q];
      new_index[static_cast<std::size_t>(old)] = static_cast<int>(kept.size());
      kept.push_back(tree_.nodes[static_cast<std::size_t>(old)]);
      kept_ranges.push_back(ranges_[static_cast<std::size_t>(old)]);
      const auto& node = tree_.nodes[static_cast<std::size_t>(old)];
      if (node.feature >= 0) {
        queue.push_back(node.left);
        queue.push_back(node.right);
      }
    }
    for (auto& node : kept) {
      if (node.feature >= 0) {
        node.left = new_index[static_cast<std::size_t>(node.left)];
        node.right = new_index[static_cast<std::size_t>(node.right)];
        tree_.primary_importance[static_cast<std::size_t>(node.feature)] += node.improve;
      } else {
        node.left = node.right = -1;
      }
    }
    tree_.nodes.swap(kept);
    ranges_.swap(kept_ranges);
  }

  // rpart's choose_surg.c for one candidate column at a node whose rows index_[begin, end) the
  // primary split sends left (goes[k] = 1) or right. Agreement counts the rows the candidate sends
  // the same way as the primary (either orientation of its cut), starting from the majority
  // direction; a numeric cut needs at least 2 rows on each side; a level goes the way most of its
  // rows go (ties to the majority direction).
  CartSurrogate surrogate_for(std::size_t f, std::size_t begin, std::size_t end,
                              const std::vector<char>& goes, double total_left,
                              double total_right) const {
    const BinnedFeature& feat = d_.features[f];
    // Rows sent left and right per bin, in bin order: dense when the node has enough rows for the
    // feature's bins, else only the bins present (a continuous column at a small node).
    std::vector<double> left, right;
    if (feat.categorical || (end - begin) * 8 >= feat.bins) {
      left.assign(feat.bins, 0.0);
      right.assign(feat.bins, 0.0);
      for (std::size_t k = begin; k < end; ++k)
        (goes[k - begin] ? left : right)[feat.code[index_[k]]] += 1.0;
    } else {
      std::vector<std::uint64_t> keys(end - begin);
      for (std::size_t k = begin; k < end; ++k)
        keys[k - begin] = static_cast<std::uint64_t>(feat.code[index_[k]]) << 1 |
                          static_cast<std::uint64_t>(goes[k - begin] != 0);
      std::sort(keys.begin(), keys.end());
      std::uint64_t previous = std::numeric_limits<std::uint64_t>::max();
      for (const std::uint64_t key : keys) {
        if (key >> 1 != previous) {
          previous = key >> 1;
          left.push_back(0.0);
          right.push_back(0.0);
        }
        ((key & 1) ? left : right).back() += 1.0;
      }
    }
    const auto entries = static_cast<std::uint32_t>(left.size());
    const double total = total_left + total_right;
    double majority = std::max(total_left, total_right);
    double agree = majority;
    if (!feat.categorical) {
      // Rows below the cut: lr (primary left) and rr (primary right); at or above: ll and rl.
      double ll = total_left, rl = total_right, lr = 0, rr = 0;
      for (std::uint32_t b = 0; b < entries; ++b) {
        if (left[b] + right[b] == 0) continue;
        if (ll + rl < 2) break;
        if (lr + rr >= 2) {
          if (ll + rr > agree)
            agree = ll + rr;
          else if (lr + rl > agree)
            agree = lr + rl;
        }
        ll -= left[b];
        lr += left[b];
        rl -= right[b];
        rr += right[b];
      }
    } else {
      const bool majority_left = total_left > total_right;
      agree = 0.0;
      for (std::uint32_t b = 0; b < feat.bins; ++b) {
        if (left[b] + right[b] == 0) continue;
        if (left[b] < right[b] || (left[b] == right[b] && !majority_left))
          agree += right[b];
        else
          agree += left[b];
      }
    }
    CartSurrogate out;
    out.feature = static_cast<int>(f);
    out.agreement = agree / total;
    majority /= total;
    out.adj = (out.agreement - majority) / (1 - majority);
    return out;
  }

  // Surrogates of every split of the final tree, and the importance with them (R's
  // rpart:::importance: a split's improvement goes to its column, and times adj to each
  // surrogate's column).
  void add_surrogates() {
    tree_.importance = tree_.primary_importance;
    if (o_.max_surrogates <= 0) return;
    const std::size_t nf = d_.features.size();
#pragma omp parallel for schedule(dynamic, 1) if (index_.size() > 50000) \
    num_threads(parallel_threads())
    for (std::size_t i = 0; i < tree_.nodes.size(); ++i) {
      CartNode& node = tree_.nodes[i];
      if (node.feature < 0) continue;
      const auto [begin, end] = ranges_[i];
      std::vector<char> goes(end - begin);
      double total_left = 0.0;
      for (std::size_t k = begin; k < end; ++k) {
        goes[k - begin] = goes_left(node, index_[k]) ? 1 : 0;
        total_left += goes[k - begin];
      }
      const double total_right = static_cast<double>(end - begin) - total_left;
      std::vector<CartSurrogate> found;
      for (std::size_t f = 0; f < nf; ++f) {
        if (static_cast<int>(f) == node.feature) continue;
        const auto s = surrogate_for(f, begin, end, goes, total_left, total_right);
        if (s.adj > 0) found.push_back(s);
      }
      // rpart's insert_split: by agreement, earlier columns first among equals.
      std::stable_sort(found.begin(), found.end(),
                       [](const auto& a, const auto& b) { return a.agreement > b.agreement; });
      if (found.size() > static_cast<std::size_t>(o_.max_surrogates))
        found.resize(static_cast<std::size_t>(o_.max_surrogates));
      node.surrogates = std::move(found);
    }
    for (const auto& node : tree_.nodes)
      for (const auto& s : node.surrogates)
        tree_.importance[static_cast<std::size_t>(s.feature)] += node.improve * s.adj;
  }

  const BinnedData& d_;
  const std::vector<std::uint8_t>& y_;
  CartOptions o_;
  HistogramPool pool_;
  std::size_t histogram_min_rows_ = 0;
  std::vector<std::uint32_t> index_, scratch_;
  // Sorted-search features: the node's rows in bin order, per feature (empty for the others), and
  // the side (1 = left) each row of the node being split goes to.
  std::vector<std::vector<std::uint64_t>> sorted_;
  std::vector<std::uint8_t> side_;
  // Rows of each node: index_[first, second) (kept after the fit for the surrogates).
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;
  double alpha_ = 0.0;
  double iscale_ = 0.0;
  CartTree tree_;
};

}  // namespace

CartTree fit_cart(const BinnedData& data, const std::vector<std::uint8_t>& y,
                  const CartOptions& options, const std::vector<std::size_t>& rows) {
  if (y.size() != data.rows) throw std::invalid_argument("fit_cart: y and data differ in rows");
  if (data.rows > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("fit_cart: more than 2^32 rows");
  std::vector<std::uint32_t> use(rows.empty() ? data.rows : rows.size());
  if (rows.empty())
    std::iota(use.begin(), use.end(), std::uint32_t{0});
  else
    for (std::size_t k = 0; k < rows.size(); ++k) use[k] = static_cast<std::uint32_t>(rows[k]);
  Builder builder(data, y, options);
  return builder.build(std::move(use));
}

double in_sample_pmse(const CartTree& tree, double c) {
  double sum = 0.0, total = 0.0;
  for (const auto& node : tree.nodes) {
    if (node.feature >= 0) continue;
    const double n = node.n0 + node.n1, d = node.probability() - c;
    sum += n * d * d;
    total += n;
  }
  return total > 0 ? sum / total : 0.0;
}

std::vector<double> predict_cart(const CartTree& tree, const BinnedData& data,
                                 const std::vector<std::size_t>& rows) {
  const std::size_t n = rows.empty() ? data.rows : rows.size();
  std::vector<double> out(n);
#pragma omp parallel for schedule(static) if (n > 50000) num_threads(parallel_threads())
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t r = rows.empty() ? k : rows[k];
    int idx = 0;
    while (tree.nodes[static_cast<std::size_t>(idx)].feature >= 0) {
      const CartNode& node = tree.nodes[static_cast<std::size_t>(idx)];
      const auto& feat = data.features[static_cast<std::size_t>(node.feature)];
      const auto code = feat.code[r];
      bool left;
      if (node.left_levels.empty()) {
        left = code <= node.split_bin;
      } else {
        // Levels absent from the node when it was split go right.
        left = code < node.left_levels.size() && node.left_levels[code] != 0;
      }
      idx = left ? node.left : node.right;
    }
    out[k] = tree.nodes[static_cast<std::size_t>(idx)].probability();
  }
  return out;
}

}  // namespace synthaudit::stats
