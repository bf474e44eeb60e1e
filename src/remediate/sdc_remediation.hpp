#pragma once
// `synthaudit sdc`: a remediated copy of a synthetic file, by the steps of synthpop's sdc()
// (Nowok, Raab & Dibben 2016; R/IO.r of synthpop 1.9-2), in its order:
//   1. top and bottom coding of numeric columns: values above (below) a threshold become the
//      threshold; here the threshold is a quantile (R type 7) of the confidential column, where
//      sdc() takes the value itself. Missing values and declared missing codes are left alone
//      (sdc()'s recode.exclude).
//   2. recoding of rare categories (not in sdc()): levels of a categorical column held by fewer
//      than a count of confidential records become one named level.
//   3. removal of replicated uniques (sdc()'s rm.replicated.uniques, replicated.uniques()):
//      synthetic records unique on the keys among the synthetic records whose key values are
//      also unique in the confidential data; computed after steps 1 and 2 on the synthetic side,
//      on the confidential data as read. A missing key value equals a missing value (sdc()
//      pastes NA as text).
//   4. a label column first in the file (sdc()'s label, a column named "flag" there).
// Fields not changed are written as read; changed numeric fields are the shortest round-trip
// text of the new value.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/load.hpp"

namespace synthaudit {

struct QuantileCoding {
  std::string column;
  double probability = 1;  // of the confidential column
};

struct RareRecoding {
  std::string column;
  std::size_t min_count = 1;  // levels held by fewer confidential records are recoded
  std::string level = "other";
};

struct RemediationOptions {
  std::string confidential, synthetic;
  ReadSettings read;
  std::vector<std::string> keys;
  bool remove_replicated_uniques = false;
  std::vector<QuantileCoding> top_code, bottom_code;
  std::vector<RareRecoding> recode_rare;
  std::optional<std::string> label_column;  // the column's name
  std::string label = "synthetic";          // its value in every record
};

struct Remediation {
  std::string csv;  // the remediated synthetic file
  std::string log;  // what changed, one line per rule with its counts
  std::size_t rows_in = 0, rows_out = 0;
};

// Reads both files and applies the steps asked for. Bad options (an unknown column, a column of
// the wrong kind, a quantile outside [0, 1], a label column that exists) and bad files are
// InputError with one line naming the flag, column or file.
Remediation remediate(const RemediationOptions& options);

}  // namespace synthaudit
