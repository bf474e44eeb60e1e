#include "stats/cart.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace synthaudit::stats {

int CartTree::leaves() const {
  int count = 0;
  for (const auto& node : nodes) count += node.feature < 0;
  return count;
}

BinnedData bin_features(const std::vector<FeatureColumn>& features, std::uint32_t max_bins) {
  BinnedData out;
  out.rows = features.empty()
                 ? 0
                 : (features[0].categorical ? features[0].codes.size() : features[0].values.size());
  out.features.resize(features.size());
#pragma omp parallel for schedule(dynamic, 1) if (out.rows > 50000)
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
    std::vector<double> sorted = in.values;
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> distinct;
    for (double v : sorted)
      if (distinct.empty() || v != distinct.back()) distinct.push_back(v);
    if (distinct.size() <= max_bins) {
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
      b.code[i] = static_cast<std::uint32_t>(
          std::lower_bound(b.upper.begin(), b.upper.end(), in.values[i]) - b.upper.begin());
  }
  return out;
}

namespace {

struct SplitCandidate {
  double improve = 0.0;
  std::uint32_t split_bin = 0;
  std::vector<char> left_levels;
  double threshold = 0.0;
};

// Gini criterion of one side pair, computed term by term in rpart's order (gini.c, with the
// altered priors equal to 1 as they are for the default priors proportional to the data).
inline double gini_total(double l0, double l1, double r0, double r1) {
  const double lwt = l0 + l1, rwt = r0 + r1;
  double temp = 0.0;
  double p = l0 / lwt;
  temp += lwt * (1 - p * p);
  p = r0 / rwt;
  temp += rwt * (1 - p * p);
  p = l1 / lwt;
  temp += lwt * (1 - p * p);
  p = r1 / rwt;
  temp += rwt * (1 - p * p);
  return temp;
}

class Builder {
 public:
  Builder(const BinnedData& d, const std::vector<std::uint8_t>& y, const CartOptions& o)
      : d_(d), y_(y), o_(o) {}

  CartTree build(std::vector<std::size_t> rows) {
    tree_.importance.assign(d_.features.size(), 0.0);
    tree_.nodes.emplace_back();
    set_counts(0, rows);
    alpha_ = o_.cp * tree_.nodes[0].risk;
    tree_.nodes[0].complexity = tree_.nodes[0].risk;  // rpart.c: tree->complexity = tree->risk
    double sumrisk = 0.0;
    tree_.splits = partition(0, 1, std::move(rows), sumrisk);
    // Drop the nodes of collapsed subtrees: keep those reachable from the root.
    compact();
    return std::move(tree_);
  }

 private:
  void set_counts(int idx, const std::vector<std::size_t>& rows) {
    double n0 = 0, n1 = 0;
    for (auto r : rows) (y_[r] ? n1 : n0) += 1.0;
    auto& node = tree_.nodes[static_cast<std::size_t>(idx)];
    node.n0 = n0;
    node.n1 = n1;
    node.risk = std::min(n0, n1);
  }

  // Small node, many bins: sort the node's (bin, class) pairs instead of scanning every bin
  // (rpart's own approach); same candidate splits in the same order, same arithmetic.
  SplitCandidate best_split_sorted(const BinnedFeature& feat, const std::vector<std::size_t>& rows) const {
    std::vector<std::uint64_t> keys(rows.size());
    double n0 = 0, n1 = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const std::size_t r = rows[k];
      keys[k] = (static_cast<std::uint64_t>(feat.code[r]) << 1) | y_[r];
      (y_[r] ? n1 : n0) += 1.0;
    }
    std::sort(keys.begin(), keys.end());
    const double n = n0 + n1;
    const double edge = static_cast<double>(o_.minbucket);
    double total_ss = 0.0;
    {
      double p = n0 / n;
      total_ss += n * (1 - p * p);
      p = n1 / n;
      total_ss += n * (1 - p * p);
    }
    double best = total_ss;
    SplitCandidate cand;
    double l0 = 0, l1 = 0;
    for (std::size_t k = 0; k < keys.size();) {
      const std::uint64_t bin = keys[k] >> 1;
      std::size_t e = k;
      while (e < keys.size() && (keys[e] >> 1) == bin) {
        ((keys[e] & 1) ? l1 : l0) += 1.0;
        ++e;
      }
      if (e < keys.size()) {
        const double lt = l0 + l1, rt = n - lt;
        if (lt >= edge && rt >= edge) {
          const double temp = gini_total(l0, l1, n0 - l0, n1 - l1);
          if (temp < best) {
            best = temp;
            cand.split_bin = static_cast<std::uint32_t>(bin);
            const auto next_bin = static_cast<std::size_t>(keys[e] >> 1);
            cand.threshold = feat.upper.empty() ? 0.0 : 0.5 * (feat.upper[bin] + feat.upper[next_bin]);
          }
        }
      }
      k = e;
    }
    cand.improve = total_ss - best;
    return cand;
  }

  SplitCandidate best_split(std::size_t f, const std::vector<std::size_t>& rows) const {
    const BinnedFeature& feat = d_.features[f];
    if (!feat.categorical && rows.size() * 8 < feat.bins) return best_split_sorted(feat, rows);
    std::vector<double> c0(feat.bins, 0.0), c1(feat.bins, 0.0);
    for (auto r : rows) (y_[r] ? c1 : c0)[feat.code[r]] += 1.0;
    double n0 = 0, n1 = 0;
    for (std::uint32_t b = 0; b < feat.bins; ++b) {
      n0 += c0[b];
      n1 += c1[b];
    }
    const double n = n0 + n1;
    const double edge = static_cast<double>(o_.minbucket);
    double total_ss = 0.0;
    {
      double p = n0 / n;
      total_ss += n * (1 - p * p);
      p = n1 / n;
      total_ss += n * (1 - p * p);
    }
    double best = total_ss;
    SplitCandidate cand;
    if (!feat.categorical) {
      double l0 = 0, l1 = 0;
      std::uint32_t prev = feat.bins;
      for (std::uint32_t b = 0; b < feat.bins; ++b) {
        if (c0[b] + c1[b] == 0) continue;
        if (prev != feat.bins) {
          // boundary between bin prev and bin b
          const double lt = l0 + l1, rt = n - lt;
          if (lt >= edge && rt >= edge) {
            const double temp = gini_total(l0, l1, n0 - l0, n1 - l1);
            if (temp < best) {
              best = temp;
              cand.split_bin = prev;
              cand.threshold = feat.upper.empty() ? 0.0 : 0.5 * (feat.upper[prev] + feat.upper[b]);
            }
          }
        }
        l0 += c0[b];
        l1 += c1[b];
        prev = b;
      }
    } else {
      // Two classes: order the present levels by their class-0 rate; the best partition is a
      // prefix of that order (rpart's graycode_init2 shortcut).
      std::vector<std::uint32_t> present;
      for (std::uint32_t b = 0; b < feat.bins; ++b)
        if (c0[b] + c1[b] > 0) present.push_back(b);
      std::stable_sort(present.begin(), present.end(), [&](auto a, auto b) {
        return c0[a] / (c0[a] + c1[a]) < c0[b] / (c0[b] + c1[b]);
      });
      double l0 = 0, l1 = 0;
      std::size_t best_k = 0;
      for (std::size_t k = 0; k + 1 < present.size(); ++k) {
        l0 += c0[present[k]];
        l1 += c1[present[k]];
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
        for (std::size_t k = 0; k < best_k; ++k) cand.left_levels[present[k]] = 1;
      }
    }
    cand.improve = total_ss - best;
    return cand;
  }

  bool goes_left(const CartNode& node, std::size_t row) const {
    const auto code = d_.features[static_cast<std::size_t>(node.feature)].code[row];
    if (node.left_levels.empty()) return code <= node.split_bin;
    return node.left_levels[code] != 0;
  }

  // rpart's partition(): returns the number of splits kept below this node.
  int partition(int idx, long long nodenum, std::vector<std::size_t> rows, double& sumrisk) {
    double tempcp;
    {
      const CartNode& me = tree_.nodes[static_cast<std::size_t>(idx)];
      tempcp = me.risk;
      if (nodenum > 1 && tempcp > me.complexity) tempcp = me.complexity;
      if (rows.size() < o_.minsplit || tempcp <= alpha_ || me.depth >= o_.maxdepth) {
        tree_.nodes[static_cast<std::size_t>(idx)].complexity = alpha_;
        sumrisk = me.risk;
        return 0;
      }
    }
    // Best split over the features (in parallel; chosen in feature order, first best wins).
    const std::size_t nf = d_.features.size();
    std::vector<SplitCandidate> cands(nf);
#pragma omp parallel for schedule(dynamic, 1) if (rows.size() > 20000)
    for (std::size_t f = 0; f < nf; ++f) cands[f] = best_split(f, rows);
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
    std::vector<std::size_t> left_rows, right_rows;
    {
      const CartNode& me = tree_.nodes[static_cast<std::size_t>(idx)];
      for (auto r : rows) (goes_left(me, r) ? left_rows : right_rows).push_back(r);
    }
    rows.clear();
    rows.shrink_to_fit();
    const int depth = tree_.nodes[static_cast<std::size_t>(idx)].depth;
    const double my_risk = tree_.nodes[static_cast<std::size_t>(idx)].risk;

    const int li = static_cast<int>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    tree_.nodes[static_cast<std::size_t>(idx)].left = li;
    set_counts(li, left_rows);
    tree_.nodes[static_cast<std::size_t>(li)].depth = depth + 1;
    tree_.nodes[static_cast<std::size_t>(li)].complexity = tempcp - alpha_;
    double left_risk = 0.0;
    int left_split = partition(li, 2 * nodenum, std::move(left_rows), left_risk);

    tempcp = (my_risk - left_risk) / (left_split + 1);
    const double tempcp2 = my_risk - tree_.nodes[static_cast<std::size_t>(li)].risk;
    if (tempcp < tempcp2) tempcp = tempcp2;
    if (tempcp > tree_.nodes[static_cast<std::size_t>(idx)].complexity)
      tempcp = tree_.nodes[static_cast<std::size_t>(idx)].complexity;

    const int ri = static_cast<int>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    tree_.nodes[static_cast<std::size_t>(idx)].right = ri;
    set_counts(ri, right_rows);
    tree_.nodes[static_cast<std::size_t>(ri)].depth = depth + 1;
    tree_.nodes[static_cast<std::size_t>(ri)].complexity = tempcp - alpha_;
    double right_risk = 0.0;
    int right_split = partition(ri, 2 * nodenum + 1, std::move(right_rows), right_risk);

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
    // Breadth-first copy with remapped child indices.
    std::vector<int> queue = {0};
    std::vector<int> new_index(tree_.nodes.size(), -1);
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const int old = queue[q];
      new_index[static_cast<std::size_t>(old)] = static_cast<int>(kept.size());
      kept.push_back(tree_.nodes[static_cast<std::size_t>(old)]);
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
        tree_.importance[static_cast<std::size_t>(node.feature)] += node.improve;
      } else {
        node.left = node.right = -1;
      }
    }
    tree_.nodes.swap(kept);
  }

  const BinnedData& d_;
  const std::vector<std::uint8_t>& y_;
  CartOptions o_;
  double alpha_ = 0.0;
  double iscale_ = 0.0;
  CartTree tree_;
};

}  // namespace

CartTree fit_cart(const BinnedData& data, const std::vector<std::uint8_t>& y,
                  const CartOptions& options, const std::vector<std::size_t>& rows) {
  if (y.size() != data.rows) throw std::invalid_argument("fit_cart: y and data differ in rows");
  std::vector<std::size_t> use = rows;
  if (use.empty()) {
    use.resize(data.rows);
    std::iota(use.begin(), use.end(), std::size_t{0});
  }
  Builder builder(data, y, options);
  return builder.build(std::move(use));
}

std::vector<double> predict_cart(const CartTree& tree, const BinnedData& data,
                                 const std::vector<std::size_t>& rows) {
  const std::size_t n = rows.empty() ? data.rows : rows.size();
  std::vector<double> out(n);
#pragma omp parallel for schedule(static) if (n > 50000)
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
