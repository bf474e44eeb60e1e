#include "stats/model_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit::stats {

namespace {

std::vector<double> apply_unary(std::vector<double> x, const std::string& fn) {
  if (fn == "I") return x;
  for (auto& v : x) {
    if (fn == "log")
      v = std::log(v);
    else if (fn == "log2")
      v = std::log2(v);
    else if (fn == "log10")
      v = std::log10(v);
    else if (fn == "log1p")
      v = std::log1p(v);
    else if (fn == "exp")
      v = std::exp(v);
    else if (fn == "sqrt")
      v = std::sqrt(v);
    else if (fn == "abs")
      v = std::abs(v);
  }
  return x;
}

}  // namespace

ModelLayout::ModelLayout(Formula formula, const Table& reference, ResponseKind response)
    : formula_(std::move(formula)), response_kind_(response) {
  table_columns_ = reference.column_names();
  const std::string where = "formula '" + formula_.text + "'";
  for (const auto& name : formula_.columns())
    if (!reference.find(name))
      throw InputError(where + ": no column '" + name + "'" + column_hint(name, table_columns_));

  // The response.
  if (!formula_.has_response) throw InputError(where + ": a model needs a response (y ~ ...)");
  if (response == ResponseKind::kCategorical) {
    const Expr& r = formula_.response;
    const std::string column = r.kind == Expr::Kind::kColumn ? r.name : r.factor_column();
    if (column.empty())
      throw InputError(where +
                       ": the response of a model for a categorical outcome must be a "
                       "column, factor(column) or relevel(column, ref = \"level\")");
    categorical_response_ = true;
    response_column_ = *reference.find(column);
    const Column& col = reference.column(response_column_);
    if (col.is_numeric() && r.kind == Expr::Kind::kColumn)
      throw InputError(where + ": the response '" + column + "' is numeric; write factor(" +
                       column + ") to model its values as categories");
    if (col.is_numeric() && r.kind == Expr::Kind::kCall && r.name == "relevel" &&
        r.args[0].kind == Expr::Kind::kColumn)
      throw InputError(where + ": relevel() of the numeric column '" + column +
                       "': write relevel(factor(" + column + "), ref = ...)");
    response_numeric_levels_ = col.is_numeric();
  } else {
    std::vector<std::string> cols;
    formula_.response.collect_columns(cols);
    const Expr& r = formula_.response;
    const bool bare = r.kind == Expr::Kind::kColumn;
    if (r.kind == Expr::Kind::kCall && !r.factor_column().empty())
      throw InputError(where + ": " + r.name +
                       "() as the response needs a model for a categorical outcome (multinom, "
                       "polr)");
    if (r.is_logical() && response != ResponseKind::kBinary)
      throw InputError(where + ": the response '" + r.label() +
                       "' is a comparison (TRUE/FALSE); use it with a binomial glm");
    for (const auto& c : cols) {
      if (!reference.column(c).is_categorical()) continue;
      if (bare && response == ResponseKind::kBinary) {
        categorical_response_ = true;
        response_column_ = *reference.find(c);
      } else if (bare) {
        throw InputError(where + ": the response '" + c +
                         "' is categorical; a linear model needs a numeric response (use "
                         "glm_logit for a binary outcome)");
      } else {
        throw InputError(where + ": column '" + c +
                         "' is categorical and cannot be used in arithmetic");
      }
    }
  }

  // Variables: factors and numeric expressions.
  for (const auto& e : formula_.variables) {
    Variable v;
    v.expr = &e;
    const std::string fc = e.factor_column();
    if (e.is_logical()) {
      std::vector<std::string> cols;
      e.collect_columns(cols);
      for (const auto& c : cols)
        if (reference.column(c).is_categorical())
          throw InputError(where + ": column '" + c +
                           "' is categorical and cannot be compared in '" + e.label() +
                           "' (compare numeric columns)");
      v.is_factor = true;
      v.numeric_factor = true;
      v.logical = true;
    } else if (!fc.empty()) {
      v.is_factor = true;
      v.column = *reference.find(fc);
      v.numeric_factor = reference.column(v.column).is_numeric();
      if (v.numeric_factor && e.name == "relevel" && e.args[0].kind == Expr::Kind::kColumn)
        throw InputError(where + ": relevel() of the numeric column '" + fc +
                         "': write relevel(factor(" + fc + "), ref = ...)");
    } else if (e.kind == Expr::Kind::kColumn && reference.column(e.name).is_categorical()) {
      v.is_factor = true;
      v.column = *reference.find(e.name);
    } else {
      std::vector<std::string> cols;
      e.collect_columns(cols);
      for (const auto& c : cols)
        if (reference.column(c).is_categorical())
          throw InputError(where + ": column '" + c + "' is categorical and cannot be used in '" +
                           e.label() + "' (use factor(" + c + ") or the bare name)");
    }
    variables_.push_back(std::move(v));
  }

  // Complete cases of the reference data, to fix the factor levels R would see.
  const std::size_t n = reference.rows();
  std::vector<char> keep(n, 1);
  {
    std::vector<double> y;
    if (categorical_response_) {
      const Column& rc = reference.column(response_column_);
      for (std::size_t i = 0; i < n; ++i)
        if (rc.missing(i)) keep[i] = 0;
    } else {
      y = evaluate(formula_.response, reference);
      for (std::size_t i = 0; i < n; ++i)
        if (std::isnan(y[i])) keep[i] = 0;
    }
    for (const auto& v : variables_) {
      if (v.logical) {
        const auto x = evaluate(*v.expr, reference);
        for (std::size_t i = 0; i < n; ++i)
          if (std::isnan(x[i])) keep[i] = 0;
      } else if (v.is_factor) {
        const Column& col = reference.column(v.column);
        for (std::size_t i = 0; i < n; ++i)
          if (col.missing(i)) keep[i] = 0;
      } else {
        const auto x = evaluate(*v.expr, reference);
        for (std::size_t i = 0; i < n; ++i)
          if (std::isnan(x[i])) keep[i] = 0;
      }
    }
    if (response == ResponseKind::kCount) {
      for (std::size_t i = 0; i < n; ++i)
        if (keep[i] && y[i] < 0)
          throw InputError(where + ": the count outcome '" + formula_.response.label() +
                           "' must be >= 0, but it has the value " + format_number(y[i]));
    }
    if (response == ResponseKind::kCategorical) {
      const Column& col = reference.column(response_column_);
      if (response_numeric_levels_) {
        std::set<double> present;
        for (std::size_t i = 0; i < n; ++i)
          if (keep[i]) present.insert(col.numeric[i]);
        response_numeric_levels_values_.assign(present.begin(), present.end());
        for (double d : response_numeric_levels_values_)
          response_level_names_.push_back(format_number(d));
      } else {
        std::vector<char> present(col.cardinality(), 0);
        for (std::size_t i = 0; i < n; ++i)
          if (keep[i]) present[col.codes[i]] = 1;
        for (std::uint32_t c = 0; c < present.size(); ++c)
          if (present[c]) {
            response_numeric_levels_values_.push_back(c);
            response_level_names_.push_back(col.dictionary->level(c));
          }
      }
      // Position of each present level in the model's order (relevel moves one to the front).
      std::vector<std::size_t> order(response_level_names_.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
      const std::string ref = formula_.response.reference_level();
      if (!ref.empty()) {
        const auto it = std::find(response_level_names_.begin(), response_level_names_.end(), ref);
        if (it == response_level_names_.end())
          throw InputError(
              where + ": relevel(): '" + ref + "' is not a level of '" + col.name +
              "' in the confidential data (levels: " + join(response_level_names_, ", ") + ")");
        const auto at = static_cast<std::size_t>(it - response_level_names_.begin());
        std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(at),
                    order.begin() + static_cast<std::ptrdiff_t>(at) + 1);
      }
      // order[k] = the present level placed k-th; invert it.
      response_numeric_order_.assign(order.size(), 0);
      std::vector<std::string> names(order.size());
      for (std::size_t k = 0; k < order.size(); ++k) {
        response_numeric_order_[order[k]] = k;
        names[k] = response_level_names_[order[k]];
      }
      response_level_names_ = names;
      if (!response_numeric_levels_) {
        response_code_index_.assign(col.cardinality(), -2);
        for (std::size_t k = 0; k < order.size(); ++k)
          response_code_index_[static_cast<std::size_t>(response_numeric_levels_values_[k])] =
              static_cast<int>(response_numeric_order_[k]);
      }
      notes_.push_back(formula_.response.label() + ": levels in the order " +
                       join(response_level_names_, ", ") +
                       " (the first is the reference of a multinomial model; an ordinal model "
                       "takes this order)");
      if (response_level_names_.size() < 3)
        throw InputError(where + ": the categorical outcome '" + formula_.response.label() +
                         "' has " + std::to_string(response_level_names_.size()) +
                         " level(s) in the confidential data; a multinomial or ordinal model "
                         "needs at least 3 (use glm_logit for two)");
    }
    // Binary outcome check.
    if (response == ResponseKind::kBinary) {
      const std::string label = formula_.response.label();
      if (categorical_response_) {
        const Column& col = reference.column(response_column_);
        std::set<std::uint32_t> present;
        for (std::size_t i = 0; i < n; ++i)
          if (keep[i]) present.insert(col.codes[i]);
        if (present.size() != 2) {
          std::vector<std::string> names;
          for (auto c : present) names.push_back(col.dictionary->level(c));
          throw InputError(where + ": the logistic outcome '" + label +
                           "' must be binary, but it has " + std::to_string(present.size()) +
                           " level(s)" +
                           (names.empty() ? std::string() : " (" + join(names, ", ") + ")"));
        }
        response_zero_code_ = *present.begin();
        response_one_code_ = *present.rbegin();
        notes_.push_back(label + ": 1 = " + col.dictionary->level(response_one_code_) +
                         ", 0 = " + col.dictionary->level(response_zero_code_) +
                         " (R's glm: the first level is failure)");
      } else {
        bool zero = false, one = false;
        for (std::size_t i = 0; i < n; ++i) {
          if (!keep[i]) continue;
          if (y[i] == 0.0)
            zero = true;
          else if (y[i] == 1.0)
            one = true;
          else
            throw InputError(
                where + ": the logistic outcome '" + label +
                "' must be binary (0/1 or a two-level category), but it has the value " +
                format_number(y[i]));
        }
        if (!(zero && one))
          throw InputError(where + ": the logistic outcome '" + label +
                           "' must be binary, but it takes only the value " + (one ? "1" : "0"));
      }
    }
  }

  // Factor levels present among the complete cases, in dictionary (R's sorted) order.
  for (auto& v : variables_) {
    if (!v.is_factor) continue;
    const Column& col = reference.column(v.column);
    if (v.logical) {
      const auto x = evaluate(*v.expr, reference);
      std::set<double> present;
      for (std::size_t i = 0; i < n; ++i)
        if (keep[i]) present.insert(x[i]);
      v.numeric_levels.assign(present.begin(), present.end());
      for (double d : v.numeric_levels) v.level_names.push_back(d == 1.0 ? "TRUE" : "FALSE");
    } else if (v.numeric_factor) {
      std::set<double> present;
      for (std::size_t i = 0; i < n; ++i)
        if (keep[i]) present.insert(col.numeric[i]);
      v.numeric_levels.assign(present.begin(), present.end());
      for (double d : v.numeric_levels) v.level_names.push_back(format_number(d));
    } else {
      std::vector<char> present(col.cardinality(), 0);
      for (std::size_t i = 0; i < n; ++i)
        if (keep[i]) present[col.codes[i]] = 1;
      for (std::uint32_t c = 0; c < present.size(); ++c)
        if (present[c]) {
          v.levels.push_back(c);
          v.level_names.push_back(col.dictionary->level(c));
        }
    }
  }

  // A factor with no level among the complete cases has no coding (its columns would number
  // levels - 1, below zero); R stops there too ("0 (non-NA) cases").
  for (const auto& v : variables_)
    if (v.is_factor && v.level_names.empty())
      throw InputError(where + ": '" + v.expr->label() +
                       "' has no value in the rows the model is fitted on (every row misses a "
                       "variable of the formula)");

  // relevel: the reference level moves to the front.
  for (auto& v : variables_) {
    if (v.is_factor && v.numeric_factor) {
      v.sorted_to_level.resize(v.numeric_levels.size());
      for (std::size_t k = 0; k < v.sorted_to_level.size(); ++k)
        v.sorted_to_level[k] = static_cast<int>(k);
    }
    const std::string ref = v.is_factor ? v.expr->reference_level() : std::string();
    if (ref.empty()) continue;
    const auto it = std::find(v.level_names.begin(), v.level_names.end(), ref);
    if (it == v.level_names.end())
      throw InputError(where + ": relevel(): '" + ref + "' is not a level of '" +
                       v.expr->factor_column() +
                       "' in the confidential data (levels: " + join(v.level_names, ", ") + ")");
    const auto at = it - v.level_names.begin();
    std::rotate(v.level_names.begin(), it, it + 1);
    if (v.numeric_factor) {
      // Levels before the reference move one place back; the reference becomes level 0.
      for (auto& level : v.sorted_to_level)
        if (level < at) ++level;
      v.sorted_to_level[static_cast<std::size_t>(at)] = 0;
    } else {
      std::rotate(v.levels.begin(), v.levels.begin() + at, v.levels.begin() + at + 1);
    }
  }

  // Term codings (R's rule) and column names.
  auto has_term = [&](const std::vector<std::size_t>& vars) {
    if (vars.empty()) return formula_.intercept;
    for (const auto& t : formula_.terms)
      if (t.variables == vars) return true;
    return false;
  };
  if (formula_.intercept) {
    names_.push_back("(Intercept)");
    column_terms_.push_back(-1);
  }
  std::set<std::size_t> noted;
  for (std::size_t ti = 0; ti < formula_.terms.size(); ++ti) {
    const auto& term = formula_.terms[ti];
    TermCoding coding;
    coding.variables = term.variables;
    for (std::size_t k = 0; k < term.variables.size(); ++k) {
      std::vector<std::size_t> rest = term.variables;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
      const bool full = variables_[term.variables[k]].is_factor && !has_term(rest);
      coding.full.push_back(full);
      const Variable& v = variables_[term.variables[k]];
      if (v.is_factor && !full && !noted.count(term.variables[k]) && !v.level_names.empty()) {
        noted.insert(term.variables[k]);
        notes_.push_back(v.expr->label() + ": reference level " + v.level_names.front());
      }
    }
    // Column names, the first variable varying fastest.
    std::vector<std::vector<std::string>> parts;
    for (std::size_t k = 0; k < term.variables.size(); ++k) {
      const Variable& v = variables_[term.variables[k]];
      std::vector<std::string> p;
      if (!v.is_factor && v.expr->width() > 1) {
        // A matrix variable (poly): R appends the column number.
        for (std::size_t j = 1; j <= v.expr->width(); ++j)
          p.push_back(v.expr->label() + std::to_string(j));
      } else if (!v.is_factor) {
        p.push_back(v.expr->label());
      } else {
        for (std::size_t l = coding.full[k] ? 0 : 1; l < v.level_names.size(); ++l)
          p.push_back(v.expr->label() + v.level_names[l]);
      }
      parts.push_back(std::move(p));
    }
    std::size_t count = 1;
    for (const auto& p : parts) count *= p.size();
    for (std::size_t c = 0; c < count; ++c) {
      std::size_t rem = c;
      std::string name;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        name += (k ? ":" : "") + parts[k][rem % parts[k].size()];
        rem /= parts[k].size();
      }
      names_.push_back(name);
      column_terms_.push_back(static_cast<int>(ti));
    }
    terms_.push_back(std::move(coding));
  }
  if (names_.empty())
    throw InputError(where +
                     ": the design has no columns (a factor with one level and no intercept?)");
}

std::string ModelLayout::response_label() const { return formula_.response.label(); }

std::vector<double> ModelLayout::evaluate(const Expr& e, const Table& table) const {
  const std::size_t n = table.rows();
  switch (e.kind) {
    case Expr::Kind::kNumber:
      return std::vector<double>(n, e.number);
    case Expr::Kind::kColumn:
      return table.column(e.name).numeric;
    case Expr::Kind::kParen:
      return evaluate(e.args[0], table);
    case Expr::Kind::kNegate: {
      auto x = evaluate(e.args[0], table);
      for (auto& v : x) v = -v;
      return x;
    }
    case Expr::Kind::kBinary: {
      auto a = evaluate(e.args[0], table);
      const auto b = evaluate(e.args[1], table);
      for (std::size_t i = 0; i < n; ++i) {
        switch (e.op) {
          case '+':
            a[i] += b[i];
            break;
          case '-':
            a[i] -= b[i];
            break;
          case '*':
            a[i] *= b[i];
            break;
          case '/':
            a[i] /= b[i];
            break;
          case '^':
            a[i] = b[i] == 2.0 ? a[i] * a[i] : std::pow(a[i], b[i]);
            break;
          default: {
            // A comparison: TRUE = 1, FALSE = 0, missing when either side is (R's NA).
            if (std::isnan(a[i]) || std::isnan(b[i])) {
              a[i] = std::numeric_limits<double>::quiet_NaN();
              break;
            }
            bool value = false;
            switch (e.op) {
              case '>':
                value = a[i] > b[i];
                break;
              case '<':
                value = a[i] < b[i];
                break;
              case '}':
                value = a[i] >= b[i];
                break;
              case '{':
                value = a[i] <= b[i];
                break;
              case '=':
                value = a[i] == b[i];
                break;
              case '!':
                value = a[i] != b[i];
                break;
            }
            a[i] = value ? 1.0 : 0.0;
          }
        }
      }
      return a;
    }
    case Expr::Kind::kString:
      return std::vector<double>(n, std::numeric_limits<double>::quiet_NaN());
    case Expr::Kind::kCall: {
      // poly and scale: the argument here (its missing values drop rows); the transformation over
      // the rows the model uses is numeric_columns'.
      if (e.name == "poly" || e.name == "scale") return evaluate(e.args[0], table);
      if (e.name == "log" && e.args.size() == 2) {
        auto a = evaluate(e.args[0], table);
        const auto b = evaluate(e.args[1], table);
        for (std::size_t i = 0; i < n; ++i) a[i] = std::log(a[i]) / std::log(b[i]);
        return a;
      }
      return apply_unary(evaluate(e.args[0], table), e.name);
    }
  }
  return {};
}

std::vector<double> ModelLayout::factor_values(const Variable& v, const Table& table) const {
  return v.logical ? evaluate(*v.expr, table) : table.column(v.column).numeric;
}

std::vector<std::vector<double>> ModelLayout::numeric_columns(const Variable& v,
                                                              std::vector<double> values,
                                                              const std::vector<std::size_t>& rows,
                                                              const std::string& where) const {
  const Expr& e = *v.expr;
  if (!e.is_data_dependent()) return {std::move(values)};
  const std::size_t n = values.size();
  const double used = static_cast<double>(rows.size());
  if (e.name == "scale") {
    // R's scale(): centred on the mean, divided by the standard deviation (n − 1).
    double mean = 0.0;
    for (auto i : rows) mean += values[i];
    mean /= used;
    double squares = 0.0;
    for (auto i : rows) squares += (values[i] - mean) * (values[i] - mean);
    const double sd = std::sqrt(squares / (used - 1.0));
    if (!(sd > 0))
      throw InputError(where + ": '" + e.label() + "': the values are constant, so they cannot " +
                       "be scaled");
    for (auto i : rows) values[i] = (values[i] - mean) / sd;
    return {std::move(values)};
  }
  // poly(x, d): the monic polynomials orthogonal over the rows used, by the three-term recurrence
  // P_{k+1} = (x − a_k) P_k − (‖P_k‖²/‖P_{k−1}‖²) P_{k−1}, P_0 = 1, a_k = Σ x P_k² / ‖P_k‖²,
  // each divided by its norm: R's poly() (which gets them from a QR decomposition of the centred
  // powers; predict.poly uses this recurrence).
  const std::size_t degree = e.width();
  std::set<double> distinct;
  for (auto i : rows) distinct.insert(values[i]);
  if (distinct.size() <= degree)
    throw InputError(where + ": '" + e.label() + "': the degree must be less than the number of " +
                     "distinct values (" + std::to_string(distinct.size()) + ")");
  std::vector<std::vector<double>> columns(degree, std::vector<double>(n, 0.0));
  std::vector<double> previous(n, 0.0), current(n, 1.0);
  double previous_norm = 1.0, current_norm = used;
  for (std::size_t k = 0; k < degree; ++k) {
    double centre = 0.0;
    for (auto i : rows) centre += values[i] * current[i] * current[i];
    centre /= current_norm;
    const double ratio = k == 0 ? 0.0 : current_norm / previous_norm;
    std::vector<double> next(n, 0.0);
    double next_norm = 0.0;
    for (auto i : rows) {
      next[i] = (values[i] - centre) * current[i] - ratio * previous[i];
      next_norm += next[i] * next[i];
    }
    const double norm = std::sqrt(next_norm);
    for (auto i : rows) columns[k][i] = next[i] / norm;
    previous = std::move(current);
    current = std::move(next);
    previous_norm = current_norm;
    current_norm = next_norm;
  }
  return columns;
}

std::vector<int> ModelLayout::level_index(const Variable& v, const Table& table) const {
  const std::size_t n = table.rows();
  std::vector<int> out(n, -1);
  if (v.numeric_factor) {
    const auto values = factor_values(v, table);
    for (std::size_t i = 0; i < n; ++i) {
      const double x = values[i];
      if (std::isnan(x)) continue;
      const auto it = std::lower_bound(v.numeric_levels.begin(), v.numeric_levels.end(), x);
      out[i] = it != v.numeric_levels.end() && *it == x
                   ? v.sorted_to_level[static_cast<std::size_t>(it - v.numeric_levels.begin())]
                   : -2;
    }
  } else {
    const Column& col = table.column(v.column);
    std::vector<int> map(col.cardinality(), -2);
    for (std::size_t l = 0; l < v.levels.size(); ++l) map[v.levels[l]] = static_cast<int>(l);
    for (std::size_t i = 0; i < n; ++i)
      if (!is_missing(col.codes[i])) out[i] = map[col.codes[i]];
  }
  return out;
}

ModelMatrix ModelLayout::build(const Table& table) const {
  const std::size_t n = table.rows();
  const std::string where =
      "formula '" + formula_.text + "' on " +
      (table.source().path.empty() ? std::string("the data") : table.source().path);
  ModelMatrix m;
  m.rows_total = n;
  // 0 = keep, 1 = missing, 2 = unknown level.
  std::vector<unsigned char> status(n, 0);
  auto mark = [&](std::size_t i, unsigned char s) {
    if (status[i] == 0 || (s == 1 && status[i] == 2)) status[i] = s;
  };
  auto check_finite = [&](const std::vector<double>& x, const std::string& label) {
    std::size_t inf = 0;
    for (double v : x)
      if (std::isinf(v)) ++inf;
    if (inf)
      throw InputError(where + ": '" + label + "' is infinite in " + std::to_string(inf) +
                       " row(s) (log of 0?)");
  };

  std::vector<double> y;
  if (response_kind_ == ResponseKind::kCategorical) {
    const Column& col = table.column(response_column_);
    y.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (col.missing(i)) {
        mark(i, 1);
        continue;
      }
      int index = -2;
      if (response_numeric_levels_) {
        const auto& values = response_numeric_levels_values_;
        const auto it = std::lower_bound(values.begin(), values.end(), col.numeric[i]);
        if (it != values.end() && *it == col.numeric[i])
          index = static_cast<int>(
              response_numeric_order_[static_cast<std::size_t>(it - values.begin())]);
      } else if (col.codes[i] < response_code_index_.size()) {
        index = response_code_index_[col.codes[i]];
      }
      if (index < 0)
        mark(i, 2);
      else
        y[i] = index;
    }
  } else if (categorical_response_) {
    const auto& codes = table.column(response_column_).codes;
    y.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (is_missing(codes[i])) {
        mark(i, 1);
      } else if (codes[i] == response_one_code_) {
        y[i] = 1.0;
      } else if (codes[i] == response_zero_code_) {
        y[i] = 0.0;
      } else {
        mark(i, 2);
      }
    }
  } else {
    y = evaluate(formula_.response, table);
    check_finite(y, formula_.response.label());
    for (std::size_t i = 0; i < n; ++i)
      if (std::isnan(y[i])) mark(i, 1);
    if (response_kind_ == ResponseKind::kCount)
      for (std::size_t i = 0; i < n; ++i)
        if (y[i] < 0)
          throw InputError(where + ": the count outcome '" + formula_.response.label() +
                           "' must be >= 0, but row " + std::to_string(i + 1) + " has " +
                           format_number(y[i]));
  }
  // Numeric variables: a plain column is read in place; an expression is evaluated once.
  std::vector<std::vector<double>> evaluated(variables_.size());
  std::vector<const double*> numeric(variables_.size(), nullptr);
  std::vector<std::vector<int>> levels(variables_.size());
  for (std::size_t k = 0; k < variables_.size(); ++k) {
    const Variable& v = variables_[k];
    if (v.is_factor) {
      levels[k] = level_index(v, table);
      for (std::size_t i = 0; i < n; ++i)
        if (levels[k][i] < 0) mark(i, levels[k][i] == -1 ? 1 : 2);
    } else {
      if (v.expr->kind == Expr::Kind::kColumn) {
        numeric[k] = table.column(v.expr->name).numeric.data();
        for (std::size_t i = 0; i < n; ++i)
          if (std::isinf(numeric[k][i]))
            check_finite(table.column(v.expr->name).numeric, v.expr->label());
      } else {
        evaluated[k] = evaluate(*v.expr, table);
        check_finite(evaluated[k], v.expr->label());
        numeric[k] = evaluated[k].data();
      }
      for (std::size_t i = 0; i < n; ++i)
        if (std::isnan(numeric[k][i])) mark(i, 1);
    }
  }
  std::vector<std::size_t> rows;
  rows.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (status[i] == 0)
      rows.push_back(i);
    else if (status[i] == 1)
      ++m.rows_dropped_missing;
    else
      ++m.rows_dropped_unknown_level;
  }
  if (response_kind_ == ResponseKind::kBinary && !categorical_response_)
    for (auto i : rows)
      if (y[i] != 0.0 && y[i] != 1.0)
        throw InputError(where + ": the logistic outcome '" + formula_.response.label() +
                         "' must be 0/1, but it has the value " + format_number(y[i]));

  // Design columns of each numeric variable: poly and scale computed over the rows used.
  std::vector<std::vector<std::vector<double>>> transformed(variables_.size());
  std::vector<std::vector<const double*>> numeric_columns_of(variables_.size());
  for (std::size_t k = 0; k < variables_.size(); ++k) {
    const Variable& v = variables_[k];
    if (v.is_factor) continue;
    if (v.expr->is_data_dependent()) {
      // As R's model.frame: evaluated on every row where the argument is present, before the
      // rows with a missing value elsewhere are dropped.
      std::vector<std::size_t> present;
      for (std::size_t i = 0; i < n; ++i)
        if (!std::isnan(evaluated[k][i])) present.push_back(i);
      if (present.size() < 2)
        throw InputError(where + ": '" + v.expr->label() + "' needs at least 2 values");
      transformed[k] = numeric_columns(v, evaluated[k], present, where);
      for (const auto& column : transformed[k]) numeric_columns_of[k].push_back(column.data());
    } else {
      numeric_columns_of[k].push_back(numeric[k]);
    }
  }

  const auto used = static_cast<Eigen::Index>(rows.size());
  m.rows = rows;
  m.x.resize(used, static_cast<Eigen::Index>(names_.size()));
  m.y.resize(used);
  for (Eigen::Index r = 0; r < used; ++r) m.y[r] = y[rows[static_cast<std::size_t>(r)]];
  Eigen::Index col = 0;
  if (formula_.intercept) m.x.col(col++).setOnes();
  for (const auto& coding : terms_) {
    // Per variable of the term: how many columns it contributes and its first level.
    std::vector<std::size_t> width, first;
    for (std::size_t k = 0; k < coding.variables.size(); ++k) {
      const Variable& v = variables_[coding.variables[k]];
      const std::size_t nl = v.level_names.size();
      width.push_back(v.is_factor ? (coding.full[k] ? nl : nl - 1) : v.expr->width());
      first.push_back(v.is_factor && !coding.full[k] ? 1 : 0);
    }
    std::size_t count = 1;
    for (auto w : width) count *= w;
    for (std::size_t c = 0; c < count; ++c, ++col) {
      std::vector<std::size_t> digit(width.size());
      std::size_t rem = c;
      for (std::size_t k = 0; k < width.size(); ++k) {
        digit[k] = rem % width[k];
        rem /= width[k];
      }
      double* out = m.x.col(col).data();
      if (width.size() == 1 && !variables_[coding.variables[0]].is_factor) {
        // A numeric main effect: a plain gather.
        const double* in = numeric_columns_of[coding.variables[0]][digit[0]];
        for (Eigen::Index r = 0; r < used; ++r) out[r] = in[rows[static_cast<std::size_t>(r)]];
        continue;
      }
      for (Eigen::Index r = 0; r < used; ++r) {
        const std::size_t i = rows[static_cast<std::size_t>(r)];
        double value = 1.0;
        for (std::size_t k = 0; k < width.size(); ++k) {
          const std::size_t var = coding.variables[k];
          if (variables_[var].is_factor)
            value *= levels[var][i] == static_cast<int>(digit[k] + first[k]) ? 1.0 : 0.0;
          else
            value *= numeric_columns_of[var][digit[k]][i];
        }
        out[r] = value;
      }
    }
  }
  return m;
}

}  // namespace synthaudit::stats
