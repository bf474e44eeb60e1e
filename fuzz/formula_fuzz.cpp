// libFuzzer target for R model formulas: parse_formula, then the design matrix of the parsed
// formula over a small fixed table (ModelLayout and build, as the lm/glm analyses use them).
// The first byte picks the response kind (lm or logistic); the rest is the formula. InputError
// is the only acceptable exception; a crash, a hang, a leak, undefined behaviour or a broken
// invariant is a bug. Built and run by scripts/run-fuzz.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/csv.hpp"
#include "io/load.hpp"
#include "stats/formula.hpp"
#include "stats/model_matrix.hpp"

using namespace synthaudit;

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "formula_fuzz: invariant broken: %s\n", what);
  std::abort();
}

// Numeric, categorical, binary, a name with a space, zeros and negatives (for log and sqrt) and
// missing values, in a table read the way every data file is read.
const Table& reference_table() {
  static const Table table = [] {
    const std::string csv =
        "y,x,z,g,b,two words,k\n"
        "1.5,1,0,a,yes,3,0\n"
        "2.5,2,-1,b,no,4,1\n"
        "0.5,3,2,c,yes,,1\n"
        "3,4,5,a,no,6,0\n"
        "2,,1.5,b,yes,7,1\n"
        "4,6,-2,,no,8,0\n"
        "1,7,3,c,yes,9,1\n"
        "5,8,4,a,no,10,0\n";
    ReadSettings settings;
    const CsvFile file = CsvFile::from_bytes(csv, "formula_fuzz.csv", settings.csv);
    Schema schema = infer_schema(file, settings);
    Table t = encode_table(file, schema, settings, "confidential");
    std::vector<Table*> all = {&t};
    finalize_dictionaries(schema, all);
    return t;
  }();
  return table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto kind = (data[0] & 1) ? stats::ResponseKind::kBinary : stats::ResponseKind::kNumeric;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    stats::Formula formula = stats::parse_formula(text);
    for (const auto& term : formula.terms)
      for (std::size_t v : term.variables)
        if (v >= formula.variables.size()) broken("a term names a variable that does not exist");
    for (const auto& column : formula.columns())
      if (column.empty()) broken("an empty column name");
    for (const auto& variable : formula.variables) (void)variable.label();
    if (formula.has_response) (void)formula.response.label();
    const Table& table = reference_table();
    const stats::ModelLayout layout(std::move(formula), table, kind);
    const stats::ModelMatrix matrix = layout.build(table);
    if (static_cast<std::size_t>(matrix.x.cols()) != layout.column_names().size())
      broken("design columns != column names");
    if (layout.column_terms().size() != layout.column_names().size())
      broken("column terms != column names");
    if (matrix.rows_dropped_missing + static_cast<std::size_t>(matrix.x.rows()) +
            matrix.rows_dropped_unknown_level !=
        matrix.rows_total)
      broken("rows used + dropped != rows");
    for (Eigen::Index i = 0; i < matrix.x.size(); ++i)
      if (!std::isfinite(matrix.x.data()[i])) broken("a design value that is not finite");
  } catch (const InputError&) {
  }
  return 0;
}
