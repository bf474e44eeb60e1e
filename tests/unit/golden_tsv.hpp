#pragma once
// Golden values written by the reference scripts (R, Python) as "name <TAB> value" lines; a name
// may repeat (a coefficient vector). NA and NaN read as NaN.
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace synthaudit::testing {

using GoldenValues = std::map<std::string, std::vector<double>>;

inline GoldenValues read_golden_tsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read golden values " + path);
  GoldenValues golden;
  std::string line;
  while (std::getline(in, line)) {
    const auto tab = line.find('\t');
    const std::string value = line.substr(tab + 1);
    golden[line.substr(0, tab)].push_back(value == "NaN" || value == "NA" ? std::nan("")
                                                                          : std::stod(value));
  }
  return golden;
}

// The first value named `key`; throws when there is none.
inline double golden_value(const GoldenValues& golden, const std::string& key) {
  const auto it = golden.find(key);
  if (it == golden.end()) throw std::runtime_error("no golden value " + key);
  return it->second.front();
}

}  // namespace synthaudit::testing
