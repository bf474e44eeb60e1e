#pragma once
// Risk is one-sided: a candidate whose attack does worse than chance, or whose records are
// further from the confidential ones than a fresh sample's, is not a risk. The excess risk of a
// value over a baseline on a risk headline's own scale: positive when the value is riskier.
// For a target ideal (a membership AUC of 0.5) the risky side is above the target.
#include "metrics/metric.hpp"

namespace synthaudit {

inline double risk_badness(const Ideal& ideal, double value) {
  switch (ideal.kind) {
    case IdealKind::kLower:
      return value;
    case IdealKind::kHigher:
      return -value;
    case IdealKind::kTarget:
      return value - ideal.target;
  }
  return value;
}

inline double risk_excess(const Ideal& ideal, double value, double baseline) {
  return risk_badness(ideal, value) - risk_badness(ideal, baseline);
}

}  // namespace synthaudit
