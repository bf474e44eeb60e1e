#pragma once
// R-style model formulas: `log(wage) ~ education + experience + I(experience^2) + factor(region)
// + a:b + c*d - 1`. Parsing only; src/stats/model_matrix.hpp turns a parsed formula and a table
// into a design matrix with R's conventions (treatment contrasts, term order, column names).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/limits.hpp"

namespace synthaudit::stats {

// An arithmetic expression over columns: what R evaluates for one variable of a formula
// (`experience`, `log(wage)`, `I(experience^2)`, `factor(region)`).
struct Expr {
  enum class Kind { kNumber, kColumn, kNegate, kBinary, kCall, kParen, kString };
  Kind kind = Kind::kNumber;
  double number = 0.0;  // kNumber
  std::string name;     // kColumn: column name; kCall: function name
  // kBinary: + - * / ^, and the comparisons > < == != with '}' for >= and '{' for <=
  char op = 0;
  std::vector<Expr> args;              // kNegate, kParen: 1; kBinary: 2; kCall: the arguments
  std::vector<std::string> arg_names;  // kCall: the name of each argument ("" if positional)
  std::string number_text;             // kNumber: as written, for the label
  std::string text;                    // kString: the string's value

  // R's deparse of the expression, used as the variable's label: "I(experience^2)",
  // "log(wage)", "I(a * b)".
  std::string label() const;
  // Names of the columns the expression reads, in order of appearance, without repeats.
  void collect_columns(std::vector<std::string>& out) const;
  // factor(column), relevel(column, ref = "x"), relevel(factor(column), ...): the column name;
  // "" otherwise.
  std::string factor_column() const;
  // relevel(..., ref = "x"): "x"; "" otherwise.
  std::string reference_level() const;
  // A comparison (I(x > 3)): R gives a logical, coded as a factor with levels FALSE, TRUE.
  bool is_logical() const;
  // poly(x, d) and scale(x) are computed from the data they are evaluated on.
  bool is_data_dependent() const {
    return kind == Kind::kCall && (name == "poly" || name == "scale");
  }
  // poly(x, d): d; 1 otherwise.
  std::size_t width() const;
};

// One term: the interaction of the listed variables (indices into Formula::variables, sorted by
// first appearance). The empty term is the intercept and never appears in `terms`.
struct FormulaTerm {
  std::vector<std::size_t> variables;
};

struct Formula {
  std::string text;
  bool has_response = false;
  Expr response;
  std::vector<Expr> variables;     // distinct variables, in order of first appearance
  std::vector<FormulaTerm> terms;  // in R's order: by interaction order, then appearance
  bool intercept = true;

  // Every column the formula reads (response first), without repeats.
  std::vector<std::string> columns() const;
};

// Parses `response ~ rhs` (or `~ rhs`). Operators in the right-hand side: + (add term), - (remove
// term; `- 1` removes the intercept), `0` / `1` (no / explicit intercept), : (interaction),
// * (a*b = a + b + a:b), parentheses. Variables: a column name (backquote names with spaces),
// factor(column), relevel(column, ref = "level"), I(arithmetic), log(), log(x, base), log2(),
// log10(), log1p(), exp(), sqrt(), abs(), poly(x, degree) (orthogonal, as R's poly), scale(x);
// arithmetic inside functions with + - * / ^, numbers and the comparisons > >= < <= == !=
// (I(age > 60) is a logical variable, as in R). relevel, poly and scale stand as a variable of
// their own, not inside other arithmetic. Throws InputError (one line,
// naming the formula and the position) for anything else, and for a formula nested deeper than
// limits.formula_depth or with more than limits.formula_terms terms (docs/limits.md).
Formula parse_formula(std::string_view text, const ResourceLimits& limits = {});

}  // namespace synthaudit::stats
