#pragma once
// Gradient-boosted trees through Debian's libxgboost (C API). A thin wrapper: binary:logistic
// objective by default (multi:softprob and reg:squarederror on request), hist tree method, a fixed
// seed and a fixed xgboost thread count (a parameter, independent of synthaudit's --threads), so a
// result depends only on the data and these options.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/cart.hpp"

namespace synthaudit::stats {

struct BoostOptions {
  int rounds = 100;
  int max_depth = 6;
  double eta = 0.3;
  double min_child_weight = 1.0;
  int threads = 4;
  std::uint64_t seed = 0;
  // "binary:logistic" (labels 0/1), "multi:softprob" (labels 0..num_class-1; num_class
  // probabilities per predicted row, row after row) or "reg:squarederror" (numeric labels).
  std::string objective = "binary:logistic";
  int num_class = 0;  // multi:softprob only
};

struct BoostResult {
  // P(y = 1) for the predicted rows; with multi:softprob num_class probabilities per row; with
  // reg:squarederror the predicted value.
  std::vector<double> predictions;
  std::vector<double> importance;  // per feature: total gain of its splits
};

// Numeric features and categorical codes (as ordered numbers) in one float matrix.
class BoostData {
 public:
  explicit BoostData(const std::vector<FeatureColumn>& features);
  ~BoostData();
  BoostData(const BoostData&) = delete;
  BoostData& operator=(const BoostData&) = delete;
  std::size_t rows() const { return rows_; }
  std::size_t columns() const { return cols_; }
  void* handle() const { return handle_; }

 private:
  std::size_t rows_ = 0, cols_ = 0;
  void* handle_ = nullptr;
};

// Fits on `train` rows (all when empty) with labels y (full length) and predicts `predict` rows
// (all when empty). Throws std::runtime_error with xgboost's message on failure.
BoostResult fit_predict_boosted(const BoostData& data, const std::vector<std::uint8_t>& y,
                                const BoostOptions& options,
                                const std::vector<std::size_t>& train = {},
                                const std::vector<std::size_t>& predict = {});
// The same with labels as numbers, for every objective.
BoostResult fit_predict_boosted(const BoostData& data, const std::vector<float>& y,
                                const BoostOptions& options,
                                const std::vector<std::size_t>& train = {},
                                const std::vector<std::size_t>& predict = {});

std::string xgboost_version();

}  // namespace synthaudit::stats
