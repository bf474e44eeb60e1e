#pragma once
// Design matrices from R-style formulas with R's conventions:
// - a categorical column (or factor(x) of a numeric one) is a factor; its levels are the levels
//   present in the layout's reference table (the confidential data) after missing-value removal,
//   in the shared dictionary's order, which is R's sorted factor order;
// - treatment contrasts: a factor in a term is coded against its first level when the term
//   without that factor is in the model (the intercept counts as the empty term), else with one
//   indicator per level (R's model.matrix rule), so `~ factor(g) - 1` gives every level;
// - columns grouped by term in R's term order, the first variable of an interaction varying
//   fastest, named as R names them: "(Intercept)", "x", "factor(region)R02", "a:b", "I(x^2)";
// - rows with a missing value in any column the formula reads, or where a transformation gives
//   NaN (log of a negative number), are dropped (R's na.omit) and counted;
// - a comparison (I(age > 60)) is a logical variable, coded as R codes one: a factor with levels
//   FALSE, TRUE ("I(age > 60)TRUE"); relevel(f, ref = "x") puts level x first;
// - poly(x, d) (orthogonal polynomials, R's poly) and scale(x) (centred, divided by the standard
//   deviation) are computed from the table the matrix is built from, over its rows where x is
//   present, before rows with a missing value elsewhere are dropped (R's model.frame evaluates
//   them on the data, then na.omit drops rows), so each data set gets its own basis, as R gives
//   each fit (synthpop's glm.synds fits every replicate on its own data).
// The layout is fixed once (from the confidential data) and applied to every synthetic
// replicate, so coefficient j means the same thing in every fit.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/eigen_dense.hpp"
#include "stats/formula.hpp"
#include "table/table.hpp"

namespace synthaudit::stats {

enum class ResponseKind {
  kNumeric,  // any numeric expression (lm)
  kBinary,   // 0/1 numeric, or a categorical column with two levels: 1 = the second (glm logit)
  kCount,    // a numeric expression ≥ 0 (Poisson glm)
  // A categorical column, factor(numeric column) or relevel(...) with at least 3 levels present
  // in the reference data: y is the level index 0..K−1 (multinomial and ordinal models).
  kCategorical,
};

struct ModelMatrix {
  Eigen::MatrixXd x;  // rows used × columns
  Eigen::VectorXd y;  // empty when the formula has no response
  std::size_t rows_total = 0;
  std::size_t rows_dropped_missing = 0;        // na.omit
  std::size_t rows_dropped_unknown_level = 0;  // a level not in the reference data
  std::vector<std::size_t> rows;               // the table's row of each row of x, ascending
};

class ModelLayout {
 public:
  // Resolves every column of `formula` in `reference` (InputError with a did-you-mean hint for
  // an unknown column; for arithmetic on a categorical column; for a categorical response of an
  // lm; for a non-binary logistic outcome) and fixes the factor levels from `reference`.
  ModelLayout(Formula formula, const Table& reference, ResponseKind response);
  // Variables point into formula_: movable, not copyable.
  ModelLayout(const ModelLayout&) = delete;
  ModelLayout& operator=(const ModelLayout&) = delete;
  ModelLayout(ModelLayout&&) = default;
  ModelLayout& operator=(ModelLayout&&) = default;

  // The design matrix of `table` (which has the reference table's columns, same kinds and
  // dictionaries). Throws InputError when a transformation gives ±infinity.
  ModelMatrix build(const Table& table) const;

  const std::vector<std::string>& column_names() const { return names_; }
  // For each design column, the index of its term in formula().terms (−1 for the intercept).
  const std::vector<int>& column_terms() const { return column_terms_; }
  const Formula& formula() const { return formula_; }
  // "factor(region): reference level R01" for each factor coded by contrasts, and
  // "smoke: 1 = yes, 0 = no" for a categorical binary response.
  const std::vector<std::string>& notes() const { return notes_; }
  std::string response_label() const;
  // kCategorical: the response's levels, in order (y is the index into them).
  const std::vector<std::string>& response_levels() const { return response_level_names_; }

 private:
  struct Variable {
    const Expr* expr = nullptr;
    bool is_factor = false;
    std::size_t column = 0;              // factor: table column index
    bool numeric_factor = false;         // factor() of a numeric column, or a logical
    bool logical = false;                // a comparison: levels 0, 1 named FALSE, TRUE
    std::vector<std::uint32_t> levels;   // categorical factor: dictionary codes, in order
    std::vector<double> numeric_levels;  // numeric factor: sorted distinct values
    std::vector<int> sorted_to_level;    // numeric factor: level of each sorted value (relevel)
    std::vector<std::string> level_names;
  };
  struct TermCoding {
    std::vector<std::size_t> variables;
    std::vector<bool> full;  // per variable of the term: all levels (true) or contrasts
  };

  std::vector<double> evaluate(const Expr& e, const Table& table) const;
  // The values behind a numeric factor: the column, or the comparison's 0/1.
  std::vector<double> factor_values(const Variable& v, const Table& table) const;
  // The design columns of a numeric variable over `rows` (poly and scale computed on them);
  // each column has the table's length.
  std::vector<std::vector<double>> numeric_columns(const Variable& v, std::vector<double> values,
                                                   const std::vector<std::size_t>& rows,
                                                   const std::string& where) const;
  // Level index (0..levels-1) of each row for factor variable v, −1 for missing, −2 for a level
  // the reference data does not have.
  std::vector<int> level_index(const Variable& v, const Table& table) const;

  Formula formula_;
  ResponseKind response_kind_;
  std::vector<Variable> variables_;
  std::vector<TermCoding> terms_;
  std::vector<std::string> names_;
  std::vector<int> column_terms_;
  std::vector<std::string> notes_;
  std::vector<std::string> table_columns_;  // for did-you-mean
  // Categorical binary response: the dictionary code that means 1.
  bool categorical_response_ = false;
  std::size_t response_column_ = 0;
  std::uint32_t response_one_code_ = 0;
  std::uint32_t response_zero_code_ = 0;
  // kCategorical response: a column's codes (or numeric values) mapped to 0..K−1.
  bool response_numeric_levels_ = false;
  std::vector<int> response_code_index_;  // categorical: dictionary code → index, −2 unknown
  std::vector<double> response_numeric_levels_values_;  // numeric: sorted level values
  std::vector<std::size_t> response_numeric_order_;     // numeric: sorted position → index
  std::vector<std::string> response_level_names_;
};

}  // namespace synthaudit::stats
