#pragma once
// Corrections of a family of p-values for multiplicity, shared by the verdict (result/verdict.hpp)
// and metrics that test several hypotheses at once (edit_rules).
#include <string>
#include <vector>

namespace synthaudit::stats {

// The p-values of one family of tests corrected for multiplicity, in the order given: "holm"
// (Holm 1979, step-down family-wise), "bonferroni", or "benjamini-hochberg" (Benjamini &
// Hochberg 1995, false discovery rate); as statsmodels' multipletests (tests/golden/verdict).
std::vector<double> corrected_p_values(const std::vector<double>& p_values,
                                       const std::string& method);

}  // namespace synthaudit::stats
