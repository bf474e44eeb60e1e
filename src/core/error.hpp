#pragma once
// The one exception hierarchy of synthaudit. The CLI turns InputError into a one-line message
// and exit code 2; anything else escaping is a bug (exit code 1).
#include <stdexcept>
#include <string>

namespace synthaudit {

// Bad input from the user: a file, a row, a column, a config key or a parameter. The message
// must name the offending place, e.g. "data.csv: row 1042 has 7 fields, header has 8".
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A metric cannot be computed on this data (e.g. no numeric columns); reported as a warning in
// the results, never as a crash.
class MetricNotApplicable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace synthaudit
