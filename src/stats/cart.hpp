#pragma once
// Two-class classification tree (CART) with rpart's semantics: Gini splits, minbucket/minsplit,
// and complexity-parameter (cp) pruning during growth exactly as rpart's partition.c does it (a
// split is kept only if it lowers the misclassification risk, relative to the root, by more than
// cp per split of the subtree it heads). Every feature is first coded into ordered bins, so
// repeated fits (label permutations, cross-validation folds) share the coding: by default one bin
// per distinct value, so every distinct value is a candidate split and the tree is rpart's; with
// max_bins > 0, columns with more distinct values get that many quantile bins (faster, but no
// longer rpart's tree).
//
// Two ways to find a node's best split, chosen per feature by its number of bins (the tree is the
// same either way, counts are integers):
// - few bins (categorical, or numeric with at most histogram_max_bins values): a node's class
//   counts per bin come from one pass over the rows of the smaller child, the larger child's being
//   the parent's minus the smaller's (the "histogram subtraction" of LightGBM);
// - many bins (a continuous column with thousands of distinct values): the rows are sorted by the
//   feature once (counting sort of the bin codes, at binning), each fit keeps that order within
//   every node by stable partitions, and a split is found by one sweep over the node's rows in
//   order, as classic CART implementations do. Cost per node O(rows) instead of O(bins).
//
// Written by hand rather than taken from a library: rpart is not in Debian as a C library, and
// xgboost/LightGBM grow trees by a different rule (no cp pruning, no rpart tie-breaking), so they
// cannot reproduce synthpop's pMSE.
#include <cstdint>
#include <string>
#include <vector>

namespace synthaudit::stats {

// One predictor: numeric values (no NaN) or categorical codes 0..levels-1.
struct FeatureColumn {
  std::string name;
  bool categorical = false;
  std::vector<double> values;        // numeric
  std::vector<std::uint32_t> codes;  // categorical
  std::uint32_t levels = 0;          // categorical
};

struct BinnedFeature {
  std::string name;
  bool categorical = false;
  std::uint32_t bins = 0;
  std::vector<std::uint32_t> code;  // per row, 0..bins-1
  std::vector<double> upper;        // numeric: largest value in each bin
  bool exact = true;                // numeric: one bin per distinct value
  // Many bins: the split search sweeps the rows in bin order (`order`, every row sorted by code,
  // ties by row) instead of reading a histogram; the feature has no histogram slots.
  bool sorted_search = false;
  std::vector<std::uint32_t> order;
};

struct BinnedData {
  std::size_t rows = 0;
  std::vector<BinnedFeature> features;
  // Every row's bins of the histogram features side by side (rows × histogram_features.size()),
  // each bin numbered globally (slot_offset[f] + bin), the layout the histogram kernel reads: one
  // cache line per row instead of one per feature. 16-bit slots when the histogram features have
  // at most 65536 bins together, else 32. Sorted-search features have no slots.
  std::vector<std::uint32_t> histogram_features;  // feature indices, in the packed order
  std::vector<std::uint32_t> slot_offset;         // per feature; back() = total bins
  std::vector<std::uint16_t> slots16;
  std::vector<std::uint32_t> slots32;
  std::size_t total_bins() const { return slot_offset.empty() ? 0 : slot_offset.back(); }
};

// max_bins = 0: every distinct value of a numeric column is a bin (exact, rpart's candidate
// splits); > 0: columns with more distinct values are cut into max_bins quantile bins. Numeric
// features with more than histogram_max_bins bins use the sorted search (the tree does not depend
// on this threshold, only the speed).
inline constexpr std::uint32_t kHistogramMaxBins = 4096;
BinnedData bin_features(const std::vector<FeatureColumn>& features, std::uint32_t max_bins = 0,
                        std::uint32_t histogram_max_bins = kHistogramMaxBins);

struct CartOptions {
  double cp = 1e-3;
  std::size_t minbucket = 5;
  std::size_t minsplit = 15;  // rpart: 3 * minbucket when only minbucket is given
  int maxdepth = 30;
  // rpart's maxsurrogate: surrogate splits kept per node, used only for the variable importance
  // (the prepared data have no missing values to route). 0 = primary splits only, which is all a
  // refit for a null distribution or a cross-validation fold needs.
  int max_surrogates = 5;
};

// A surrogate split of a node: another column's split that best reproduces the node's primary
// split (rpart's choose_surg.c), with its agreement and rpart's adjusted agreement
// adj = (agreement − majority) / (1 − majority), both as shares of the node's records.
struct CartSurrogate {
  int feature = -1;
  double agreement = 0.0;
  double adj = 0.0;
};

struct CartNode {
  int feature = -1;               // -1: leaf
  std::uint32_t split_bin = 0;    // numeric: rows with bin <= split_bin go left (the bins below
                                  // the midpoint cut between the node's two training values)
  std::vector<char> left_levels;  // categorical: level goes left
  int left = -1, right = -1;
  double n0 = 0, n1 = 0;  // class counts (weights)
  double risk = 0;        // misclassification count min(n0, n1)
  double complexity = 0;  // rpart's node complexity (in risk units)
  double improve = 0;     // Gini improvement of the split (count units)
  double threshold = 0;   // numeric: midpoint between the bins' values (report only)
  int depth = 0;
  std::vector<CartSurrogate> surrogates;  // best first, at most max_surrogates, adj > 0
  double probability() const { return n0 + n1 > 0 ? n1 / (n0 + n1) : 0.0; }
};

struct CartTree {
  std::vector<CartNode> nodes;  // nodes[0] is the root
  // Per feature, rpart's variable.importance: the Gini improvements of the splits it makes plus,
  // for each split where it is a surrogate, that split's improvement times the surrogate's adj.
  std::vector<double> importance;
  std::vector<double> primary_importance;  // the first part only (rpart with maxsurrogate = 0)
  int splits = 0;
  int leaves() const;
};

// Fits on the rows listed in `rows` (all rows when empty); y in {0, 1}.
CartTree fit_cart(const BinnedData& data, const std::vector<std::uint8_t>& y,
                  const CartOptions& options, const std::vector<std::size_t>& rows = {});

// pMSE of the tree's in-sample propensities, Σ(p̂ − c)²/N over the rows it was fitted on, from
// the leaves' class counts (no pass over the rows).
double in_sample_pmse(const CartTree& tree, double c);

// P(y = 1) of the leaf each listed row (all when empty) falls in.
std::vector<double> predict_cart(const CartTree& tree, const BinnedData& data,
                                 const std::vector<std::size_t>& rows = {});

}  // namespace synthaudit::stats
