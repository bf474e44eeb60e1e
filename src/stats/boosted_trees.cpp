#include "stats/boosted_trees.hpp"

#include <xgboost/c_api.h>

#include <cmath>
#include <memory>
#include <stdexcept>

namespace synthaudit::stats {

namespace {

void check(int rc) {
  if (rc != 0) throw std::runtime_error(std::string("libxgboost: ") + XGBGetLastError());
}

struct Matrix {
  DMatrixHandle h = nullptr;
  ~Matrix() {
    if (h) XGDMatrixFree(h);
  }
};
struct Booster {
  BoosterHandle h = nullptr;
  ~Booster() {
    if (h) XGBoosterFree(h);
  }
};

std::vector<int> as_int(const std::vector<std::size_t>& rows) { return {rows.begin(), rows.end()}; }

}  // namespace

BoostData::BoostData(const std::vector<FeatureColumn>& features) {
  cols_ = features.size();
  rows_ = features.empty()
              ? 0
              : (features[0].categorical ? features[0].codes.size() : features[0].values.size());
  std::vector<float> dense(rows_ * cols_);
  for (std::size_t f = 0; f < cols_; ++f)
    for (std::size_t i = 0; i < rows_; ++i)
      dense[i * cols_ + f] = features[f].categorical ? static_cast<float>(features[f].codes[i])
                                                     : static_cast<float>(features[f].values[i]);
  DMatrixHandle h = nullptr;
  check(XGDMatrixCreateFromMat(dense.data(), rows_, cols_, std::nanf(""), &h));
  handle_ = h;
}

BoostData::~BoostData() {
  if (handle_) XGDMatrixFree(handle_);
}

std::string xgboost_version() {
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

BoostResult fit_predict_boosted(const BoostData& data, const std::vector<std::uint8_t>& y,
                                const BoostOptions& o, const std::vector<std::size_t>& train,
                                const std::vector<std::size_t>& predict) {
  return fit_predict_boosted(data, std::vector<float>(y.begin(), y.end()), o, train, predict);
}

BoostResult fit_predict_boosted(const BoostData& data, const std::vector<float>& y,
                                const BoostOptions& o, const std::vector<std::size_t>& train,
                                const std::vector<std::size_t>& predict) {
  if (y.size() != data.rows())
    throw std::invalid_argument("fit_predict_boosted: y and data differ in rows");
  Matrix train_m, pred_m;
  DMatrixHandle dtrain = data.handle(), dpred = data.handle();
  std::vector<float> labels;
  if (!train.empty()) {
    const auto idx = as_int(train);
    check(XGDMatrixSliceDMatrix(data.handle(), idx.data(), idx.size(), &train_m.h));
    dtrain = train_m.h;
    for (auto r : train) labels.push_back(y[r]);
  } else {
    labels.assign(y.begin(), y.end());
  }
  check(XGDMatrixSetFloatInfo(dtrain, "label", labels.data(), labels.size()));
  if (!predict.empty()) {
    const auto idx = as_int(predict);
    check(XGDMatrixSliceDMatrix(data.handle(), idx.data(), idx.size(), &pred_m.h));
    dpred = pred_m.h;
  }
  Booster booster;
  DMatrixHandle cache[1] = {dtrain};
  check(XGBoosterCreate(cache, 1, &booster.h));
  auto set = [&](const char* key, const std::string& value) {
    check(XGBoosterSetParam(booster.h, key, value.c_str()));
  };
  set("objective", o.objective);
  if (o.num_class > 0) set("num_class", std::to_string(o.num_class));
  set("tree_method", "hist");
  set("max_depth", std::to_string(o.max_depth));
  set("eta", std::to_string(o.eta));
  set("min_child_weight", std::to_string(o.min_child_weight));
  set("nthread", std::to_string(o.threads));
  set("seed", std::to_string(o.seed % 2147483647ULL));
  set("verbosity", "0");
  for (int round = 0; round < o.rounds; ++round)
    check(XGBoosterUpdateOneIter(booster.h, round, dtrain));
  bst_ulong len = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(booster.h, dpred, 0, 0, 0, &len, &out));
  BoostResult result;
  result.predictions.assign(out, out + len);
  // Importance: total gain per feature ("f0", "f1", ... names; unused features are absent).
  result.importance.assign(data.columns(), 0.0);
  bst_ulong n_features = 0, dim = 0;
  const char** names = nullptr;
  const bst_ulong* shape = nullptr;
  const float* scores = nullptr;
  if (XGBoosterFeatureScore(booster.h, "{\"importance_type\": \"total_gain\"}", &n_features, &names,
                            &dim, &shape, &scores) == 0) {
    for (bst_ulong k = 0; k < n_features; ++k) {
      const std::string name = names[k];
      if (name.size() > 1 && name[0] == 'f') {
        const auto f = static_cast<std::size_t>(std::stoul(name.substr(1)));
        if (f < result.importance.size()) result.importance[f] = scores[k];
      }
    }
  }
  return result;
}

}  // namespace synthaudit::stats
