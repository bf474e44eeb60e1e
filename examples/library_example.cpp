// Audit a synthetic table held in memory: no files, this call's own thread count.
#include <cmath>
#include <iostream>

#include "synthaudit/synthaudit.hpp"

int main() {
  using synthaudit::InputColumn;
  const double NA = std::nan("");
  synthaudit::Evaluation audit;
  audit.confidential = {InputColumn::numeric("age", {23, 35, 41, 52, 67, 29, NA, 44}),
                        InputColumn::categorical("sex", {"F", "M", "F", "M", "F", "F", "M", {}})};
  audit.candidates = {{"cart",
                       {{InputColumn::numeric("age", {25, 35, 40, 50, 70, 30, 31, 45}),
                         InputColumn::categorical("sex", {0, 1, 0, 1, 0, 0, 1, 1}, {"F", "M"})}}}};
  audit.options = {
      {"metrics", "general"}, {"params", {{"ks_distance", {{"pvalue", true}}}}}, {"threads", 2}};
  try {
    const nlohmann::json document = synthaudit::evaluate(std::move(audit));
    for (const auto& row : synthaudit::result_rows(document))
      std::cout << row.metric << "\t" << row.statistic << "\t" << row.scope << "\t" << row.value
                << "\n";
  } catch (const synthaudit::InputError& error) {
    std::cerr << "bad input: " << error.what() << "\n";
    return 2;
  }
}
