#include "stats/model_matrix.hpp"

#include <algorithm>
#include <cmath>
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
      throw InputError(where + ": no column '" + name + "'" + did_you_mean(name, table_columns_));

  // The response.
  if (!formula_.has_response) throw InputError(where + ": a model needs a response (y ~ ...)");
  {
    std::vector<std::string> cols;
    formula_.response.collect_columns(cols);
    const Expr& r = formula_.response;
    const bool bare = r.kind == Expr::Kind::kColumn;
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
    if (!fc.empty()) {
      v.is_factor = true;
      v.column = *reference.find(fc);
      v.numeric_factor = reference.column(v.column).is_numeric();
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
      const auto& codes = reference.column(response_column_).codes;
      for (std::size_t i = 0; i < n; ++i)
        if (is_missing(codes[i])) keep[i] = 0;
    } else {
      y = evaluate(formula_.response, reference);
      for (std::size_t i = 0; i < n; ++i)
        if (std::isnan(y[i])) keep[i] = 0;
    }
    for (const auto& v : variables_) {
      if (v.is_factor) {
        const Column& col = reference.column(v.column);
        for (std::size_t i = 0; i < n; ++i)
          if (col.missing(i)) keep[i] = 0;
      } else {
        const auto x = evaluate(*v.expr, reference);
        for (std::size_t i = 0; i < n; ++i)
          if (std::isnan(x[i])) keep[i] = 0;
      }
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
    if (v.numeric_factor) {
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
      if (!v.is_factor) {
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
        }
      }
      return a;
    }
    case Expr::Kind::kCall: {
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

std::vector<int> ModelLayout::level_index(const Variable& v, const Table& table) const {
  const Column& col = table.column(v.column);
  const std::size_t n = table.rows();
  std::vector<int> out(n, -1);
  if (v.numeric_factor) {
    for (std::size_t i = 0; i < n; ++i) {
      const double x = col.numeric[i];
      if (std::isnan(x)) continue;
      const auto it = std::lower_bound(v.numeric_levels.begin(), v.numeric_levels.end(), x);
      out[i] = it != v.numeric_levels.end() && *it == x
                   ? static_cast<int>(it - v.numeric_levels.begin())
                   : -2;
    }
  } else {
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
  if (categorical_response_) {
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
      width.push_back(v.is_factor ? (coding.full[k] ? nl : nl - 1) : 1);
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
        const double* in = numeric[coding.variables[0]];
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
            value *= numeric[var][i];
        }
        out[r] = value;
      }
    }
  }
  return m;
}

}  // namespace synthaudit::stats
