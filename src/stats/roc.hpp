#pragma once
#include <cstdint>

namespace synthaudit::stats {

// One point of a ROC curve: the classifier "positive when score >= threshold" and its false and
// true positive rates.
struct RocPoint {
  double threshold, fpr, tpr;
};

}  // namespace synthaudit::stats
