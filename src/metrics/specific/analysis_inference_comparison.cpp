// Specific utility: the declared analyses run on the confidential data and on every
// synthetic replicate, the replicates combined under synthpop's rules (its default and
// population inference) and Reiter's partial- and full-synthesis rules, and the two inferences
// compared (CI overlap in both definitions, standardised coefficient difference, SSO match,
// synthpop's lack-of-fit test for models).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "metrics/specific/analysis_models.hpp"
#include "stats/categorical_models.hpp"
#include "stats/column_lookup.hpp"
#include "stats/combining.hpp"
#include "stats/glm.hpp"
#include "stats/level_counts.hpp"
#include "stats/model_matrix.hpp"
#include "stats/ols.hpp"
#include "stats/survey.hpp"

namespace synthaudit {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One analysis, prepared on the confidential data: which column, which levels, which design.
struct Prepared {
  const AnalysisSpec* spec = nullptr;
  std::size_t column = 0;
  std::vector<std::uint32_t> levels;  // proportion: the levels present in the confidential data
  std::unique_ptr<stats::ModelLayout> layout;
  std::optional<ModelAnalysisKind> model;
  std::vector<std::string> terms;
};

// Estimates (q, v) of every estimand of one analysis on one table.
struct Estimates {
  std::vector<double> q, v;
  std::vector<double> deff;        // design effects of weighted means, proportions and totals
  Eigen::MatrixXd covariance;      // models: of all coefficients (lack-of-fit test)
  double df = stats::kInfiniteDf;  // for the single-table interval
  std::size_t rows_used = 0, rows_dropped_missing = 0, rows_dropped_unknown_level = 0;
};

std::string analysis_where(const AnalysisSpec& a) { return "analysis '" + a.name + "'"; }

// "0.9" rather than the round-trip "0.90000000000000002", for scopes and titles.
std::string short_number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.15g", x);
  return buffer;
}

Prepared prepare(const AnalysisSpec& a, const Table& conf, const ResourceLimits& limits) {
  Prepared p;
  p.spec = &a;
  const std::string where = analysis_where(a);
  p.model = model_analysis_kind(a.kind);
  if (p.model) {
    auto formula = stats::parse_formula(a.formula, limits);
    try {
      p.layout = std::make_unique<stats::ModelLayout>(std::move(formula), conf, p.model->response);
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
    const auto& columns = p.layout->column_names();
    if (p.model->model == AnalysisModel::kMultinomial) {
      // nnet::multinom's names: one equation per level after the first.
      const auto& levels = p.layout->response_levels();
      for (std::size_t k = 1; k < levels.size(); ++k)
        for (const auto& column : columns) p.terms.push_back(levels[k] + ":" + column);
    } else if (p.model->model == AnalysisModel::kOrdinal) {
      // MASS::polr's: the slopes (no intercept), then the cut-points "a|b".
      for (const auto& column : columns)
        if (column != "(Intercept)") p.terms.push_back(column);
      const auto& levels = p.layout->response_levels();
      for (std::size_t k = 0; k + 1 < levels.size(); ++k)
        p.terms.push_back(levels[k] + "|" + levels[k + 1]);
    } else {
      p.terms = columns;
    }
    return p;
  }
  p.column = stats::resolve_column(conf, a.column, where);
  const Column& col = conf.column(p.column);
  if (a.kind == "proportion") {
    if (!col.is_categorical())
      throw InputError(where + ": proportion needs a categorical column, '" + a.column +
                       "' is numeric (declare it categorical under columns:)");
    const auto counts = stats::level_counts(col);
    for (std::uint32_t c = 0; c + 1 < counts.size(); ++c)
      if (counts[c] > 0) {
        p.levels.push_back(c);
        p.terms.push_back(col.dictionary->level(c));
      }
    if (p.levels.empty())
      throw MetricNotApplicable(where + ": column '" + a.column +
                                "' has no values in the confidential data");
  } else {
    if (!col.is_numeric())
      throw InputError(where + ": " + a.kind + " needs a numeric column, '" + a.column +
                       "' is categorical");
    p.terms.push_back(a.kind == "quantile" ? a.column + "@" + short_number(a.probability)
                                           : a.column);
  }
  return p;
}

std::string alias_message(const std::vector<std::string>& names,
                          const std::vector<std::size_t>& aliased,
                          const std::vector<std::vector<std::size_t>>& alias_of) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < aliased.size(); ++k) {
    std::vector<std::string> of;
    for (auto j : alias_of[k]) of.push_back(names[j]);
    parts.push_back("'" + names[aliased[k]] + "'" +
                    (of.empty() ? std::string(" is constant zero")
                                : " is a linear combination of " + join(of, ", ")));
  }
  return "singular design: " + join(parts, "; ");
}

// A mean, proportion, total or quantile as R's survey package estimates it (svymean, svytotal,
// svyquantile with qrule = "hf7" and its Woodruff interval), missing values as na.rm = TRUE.
Estimates run_weighted_estimate(const Prepared& p, const Column& col,
                                const stats::SurveyDesign& design, const std::string& where) {
  const AnalysisSpec& a = *p.spec;
  const auto weights = design.weights();
  Estimates e;
  std::size_t positive = 0;
  for (std::size_t i = 0; i < col.size(); ++i)
    positive += (!col.missing(i) && weights[i] > 0) ? 1 : 0;
  e.rows_dropped_missing = col.missing_count();
  e.rows_used = col.size() - e.rows_dropped_missing;
  if (positive < 2)
    throw InputError(where + ": column '" + a.column +
                     "' has fewer than 2 values of positive weight");
  if (a.kind == "proportion") {
    std::vector<double> indicator(col.codes.size());
    for (auto level : p.levels) {
      for (std::size_t i = 0; i < indicator.size(); ++i)
        indicator[i] = col.missing(i) ? kNaN : (col.codes[i] == level ? 1.0 : 0.0);
      const auto share = stats::survey_mean(indicator, design);
      e.q.push_back(share.estimate);
      e.v.push_back(share.se * share.se);
      e.deff.push_back(share.deff);
    }
    return e;
  }
  stats::SurveyEstimate est;
  if (a.kind == "quantile") {
    const auto q = stats::survey_quantile(col.numeric, design, a.probability);
    if (std::isnan(q.se))
      throw InputError(where + ": the Woodruff interval of the " + short_number(a.probability) +
                       " quantile of '" + a.column +
                       "' reaches beyond the data (probability outside [0, 1]); choose a less "
                       "extreme probability");
    est = {q.estimate, q.se, q.n};
  } else {
    est = a.kind == "total" ? stats::survey_total(col.numeric, design)
                            : stats::survey_mean(col.numeric, design);
  }
  e.q.push_back(est.estimate);
  e.v.push_back(est.se * est.se);
  if (a.kind != "quantile") e.deff.push_back(est.deff);
  // survey's degrees of freedom for this design (degf: PSUs − strata among the rows of positive
  // weight where the value is present, rows − 1 for weights alone; t intervals); the quantile keeps
  // the normal interval of the unweighted analysis.
  e.df = a.kind == "quantile"
             ? stats::kInfiniteDf
             : design.degrees_of_freedom([&](std::size_t row) { return !col.missing(row); });
  return e;
}

// A model's fit on one design matrix: its coefficients, their variances and covariance, and the
// degrees of freedom of its intervals. Under `design` (one row per row of the table, read at the
// matrix's rows) as svyglm / svyolr where given.
Estimates run_model(const Prepared& p, const stats::ModelMatrix& mm,
                    const stats::SurveyDesign* design, const std::string& where) {
  Estimates e;
  e.rows_used = static_cast<std::size_t>(mm.x.rows());
  e.rows_dropped_missing = mm.rows_dropped_missing;
  e.rows_dropped_unknown_level = mm.rows_dropped_unknown_level;
  const ModelAnalysisKind& model = *p.model;
  const std::string& kind = p.spec->kind;
  const auto set = [&e](const Eigen::VectorXd& beta, const Eigen::VectorXd& se,
                        const Eigen::MatrixXd& covariance, double df) {
    for (Eigen::Index j = 0; j < beta.size(); ++j) {
      e.q.push_back(beta[j]);
      e.v.push_back(se[j] * se[j]);
    }
    e.covariance = covariance;
    e.df = df;
  };
  const auto aliased = [&](const std::vector<std::size_t>& columns,
                           const std::vector<std::vector<std::size_t>>& of) {
    if (!columns.empty())
      throw InputError(where + ": " + alias_message(p.layout->column_names(), columns, of));
  };
  const auto coefficients = static_cast<std::size_t>(p.terms.size());
  if (e.rows_used <= coefficients)
    throw InputError(where + ": " + std::to_string(e.rows_used) + " complete rows for " +
                     std::to_string(coefficients) + " coefficients");

  if (model.model == AnalysisModel::kMultinomial || model.model == AnalysisModel::kOrdinal) {
    const std::size_t levels = p.layout->response_levels().size();
    std::vector<char> present(levels, 0);
    for (Eigen::Index i = 0; i < mm.y.size(); ++i) present[static_cast<std::size_t>(mm.y[i])] = 1;
    for (std::size_t k = 0; k < levels; ++k)
      if (!present[k])
        throw InputError(where + ": the outcome level '" + p.layout->response_levels()[k] +
                         "' does not occur in the rows used, so its coefficients do not exist");
    // Design-weighted: the weighted likelihood's estimate with the linearisation (sandwich)
    // covariance over the table's rows, as svyolr (polr) and by the same formula for multinom.
    stats::CategoricalModelOptions options;
    if (design) {
      const auto weights = design->weights();
      options.weights.resize(static_cast<Eigen::Index>(mm.rows.size()));
      for (std::size_t r = 0; r < mm.rows.size(); ++r)
        options.weights[static_cast<Eigen::Index>(r)] = weights[mm.rows[r]];
      options.design = design;
      options.rows.assign(mm.rows.begin(), mm.rows.end());
      if (!(options.weights.sum() > 0))
        throw InputError(where + ": the rows used have no positive weight");
    }
    stats::CategoricalModelFit fit;
    if (model.model == AnalysisModel::kMultinomial) {
      fit = stats::fit_multinomial_logit(mm.x, mm.y, levels, options);
    } else {
      // polr has no intercept: the cut-points take its place.
      std::vector<Eigen::Index> keep;
      for (std::size_t j = 0; j < p.layout->column_names().size(); ++j)
        if (p.layout->column_names()[j] != "(Intercept)")
          keep.push_back(static_cast<Eigen::Index>(j));
      Eigen::MatrixXd slopes(mm.x.rows(), static_cast<Eigen::Index>(keep.size()));
      for (std::size_t j = 0; j < keep.size(); ++j)
        slopes.col(static_cast<Eigen::Index>(j)) = mm.x.col(keep[j]);
      fit = stats::fit_proportional_odds(slopes, mm.y, levels, options);
      for (auto& column : fit.aliased) column = static_cast<std::size_t>(keep[column]);
      for (auto& list : fit.alias_of)
        for (auto& column : list) column = static_cast<std::size_t>(keep[column]);
    }
    aliased(fit.aliased, fit.alias_of);
    if (fit.diverging)
      throw InputError(where + ": the outcome is separated by the predictors (the " +
                       std::string(model.r_call) +
                       " estimates run off to infinity); the maximum-likelihood estimates do "
                       "not exist");
    if (!fit.converged)
      throw InputError(where + ": the " + std::string(model.r_call) + " fit did not converge in " +
                       std::to_string(fit.iterations) + " iterations");
    set(fit.theta, fit.se, fit.covariance, stats::kInfiniteDf);
    return e;
  }

  if (design) {
    const std::vector<std::size_t> rows(mm.rows.begin(), mm.rows.end());
    if (!(std::any_of(rows.begin(), rows.end(),
                      [&](std::size_t row) { return design->weights()[row] > 0; })))
      throw InputError(where + ": the rows used have no positive weight");
    const auto fit = stats::survey_glm(mm.x, mm.y, *design, rows, model.family, model.link);
    aliased(fit.aliased, fit.alias_of);
    if (fit.separation)
      throw InputError(where +
                       ": the outcome is perfectly separated; the weighted "
                       "maximum-likelihood estimates do not exist");
    if (!fit.converged)
      throw InputError(where + ": the weighted fit did not converge in " +
                       std::to_string(fit.iterations) + " iterations");
    // svyglm's residual degrees of freedom for the Gaussian family: degf of the design of the
    // rows used + 1 − coefficients (rows of positive weight − coefficients for weights alone);
    // the other families take normal intervals.
    const bool t_interval = model.family == stats::GlmFamily::kGaussian;
    std::vector<char> used(design->rows(), 0);
    for (const auto row : rows) used[row] = 1;
    set(fit.beta, fit.se, fit.covariance,
        t_interval ? design->degrees_of_freedom([&](std::size_t row) { return used[row] != 0; }) +
                         1.0 - static_cast<double>(coefficients)
                   : stats::kInfiniteDf);
    return e;
  }
  if (kind == "lm") {
    const auto fit = stats::fit_ols(mm.x, mm.y);
    aliased(fit.aliased, fit.alias_of);
    set(fit.beta, fit.se, fit.covariance, fit.df_residual);
    return e;
  }
  if (kind == "glm_logit") {
    const auto fit = stats::fit_glm_logistic(mm.x, mm.y);
    aliased(fit.aliased, fit.alias_of);
    if (fit.separation)
      throw InputError(where + ": the outcome is perfectly separated (" +
                       std::to_string(fit.separated_rows) +
                       " rows fitted with probability numerically 0 or 1); the maximum-likelihood "
                       "estimates do not exist");
    if (!fit.converged)
      throw InputError(where + ": the logistic fit did not converge in " +
                       std::to_string(fit.iterations) + " iterations");
    set(fit.beta, fit.se, fit.covariance, stats::kInfiniteDf);
    return e;
  }
  const auto fit = stats::fit_glm(mm.x, mm.y, model.family, model.link);
  aliased(fit.aliased, fit.alias_of);
  if (fit.diverging)
    throw InputError(where + ": the " + std::string(model.r_call) +
                     " estimates run off to infinity (separation, or a level whose outcome is "
                     "always 0); the maximum-likelihood estimates do not exist");
  if (!fit.converged)
    throw InputError(where + ": the " + std::string(model.r_call) + " fit did not converge in " +
                     std::to_string(fit.iterations) + " iterations");
  // summary.glm: t intervals on n − p df when the dispersion is estimated (Gaussian).
  set(fit.beta, fit.se, fit.covariance,
      model.family == stats::GlmFamily::kGaussian
          ? static_cast<double>(e.rows_used) - static_cast<double>(coefficients)
          : stats::kInfiniteDf);
  return e;
}

// Runs one analysis on one table, under `design` when it is given (one row per row of the
// table). `expansion` is the size a synthetic total is expanded to when the table is unweighted:
// the confidential rows, or the confidential weights' sum. Throws InputError when the analysis
// cannot be done on it.
Estimates run_analysis(const Prepared& p, const Table& table, double expansion,
                       const ResourceLimits& limits, const stats::SurveyDesign* design) {
  Estimates e;
  const AnalysisSpec& a = *p.spec;
  const std::string where = analysis_where(a) + " on " + table.source().role +
                            (table.source().path.empty() ? "" : " (" + table.source().path + ")");
  if (p.layout) {
    // Checked before the matrix is built: a factor with 10^5 levels would otherwise ask for
    // rows × 10^5 doubles.
    const std::uint64_t design_columns = p.layout->column_names().size();
    const std::uint64_t cells = design_columns * table.rows();
    if (cells > limits.design_cells)
      throw InputError(where + ": the design matrix would have " + std::to_string(table.rows()) +
                       " rows × " + std::to_string(design_columns) +
                       " columns = " + std::to_string(cells) + " cells, more than the limit of " +
                       std::to_string(limits.design_cells) +
                       " (limit design_cells; raise it with --limit design_cells=N)");
    stats::ModelMatrix mm;
    try {
      mm = p.layout->build(table);
    } catch (const InputError& ex) {
      throw InputError(analysis_where(a) + ": " + ex.what());
    }
    const auto rows_used = static_cast<std::size_t>(mm.x.rows());
    const auto p_cols = static_cast<std::size_t>(mm.x.cols());
    if (rows_used <= p_cols)
      throw InputError(where + ": " + std::to_string(rows_used) + " complete rows for " +
                       std::to_string(p_cols) + " coefficients");
    return run_model(p, mm, design, where);
  }
  const Column& col = table.column(p.column);
  if (design) return run_weighted_estimate(p, col, *design, where);
  if (a.kind == "proportion") {
    const auto counts = stats::level_counts(col);
    e.rows_dropped_missing = counts.back();
    e.rows_used = col.codes.size() - e.rows_dropped_missing;
    if (e.rows_used == 0) throw InputError(where + ": column '" + a.column + "' has no values");
    const double n = static_cast<double>(e.rows_used);
    for (auto level : p.levels) {
      const double share = static_cast<double>(counts[level]) / n;
      e.q.push_back(share);
      e.v.push_back(share * (1 - share) / n);
    }
    return e;
  }
  stats::Estimate est = a.kind == "quantile" ? stats::estimate_quantile(col.numeric, a.probability)
                                             : stats::estimate_mean(col.numeric);
  e.rows_used = est.n;
  e.rows_dropped_missing = col.numeric.size() - est.n;
  if (est.n < 2) throw InputError(where + ": column '" + a.column + "' has fewer than 2 values");
  if (a.kind == "total") {
    // Expansion estimate for a data set the size of the confidential one: N x̄, N = its rows.
    est.q *= expansion;
    est.v *= expansion * expansion;
  }
  e.q.push_back(est.q);
  e.v.push_back(est.v);
  e.df = a.kind == "quantile" ? stats::kInfiniteDf : static_cast<double>(est.n) - 1;
  return e;
}

nlohmann::json number(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

nlohmann::json interval_json(const stats::Inference& inf) {
  return {{"estimate", number(inf.estimate)},
          {"se", number(inf.standard_error())},
          {"df", number(inf.df)},
          {"lower", number(inf.interval.lower)},
          {"upper", number(inf.interval.upper)}};
}

// The ways to combine the replicates and set the confidential interval beside them. Every
// statistic that depends on the rule carries it in its scope ("wage:age;rule=synthpop").
enum class Rule { kSynthpop, kSynthpopPopulation, kReiterPartial, kReiterFull };

const char* rule_name(Rule rule) {
  switch (rule) {
    case Rule::kSynthpop:
      return "synthpop";
    case Rule::kSynthpopPopulation:
      return "synthpop_population";
    case Rule::kReiterPartial:
      return "reiter_partial";
    case Rule::kReiterFull:
      return "reiter_full";
  }
  return "?";
}

const char* rule_description(Rule rule) {
  switch (rule) {
    case Rule::kSynthpop:
      return "synthpop's default (compare.fit.synds, population.inference = FALSE): q̄ with the "
             "confidential standard error, normal intervals";
    case Rule::kSynthpopPopulation:
      return "synthpop's population.inference = TRUE: V = v_conf (1 + n/(k m)) (proper: "
             "v_conf (1 + (n/k + 1)/m)), or b/m + v_conf when the response was not synthesised; "
             "normal intervals";
    case Rule::kReiterPartial:
      return "Reiter (2003) partial synthesis: T_p = b/m + v̄, ν_p = (m−1)(1 + v̄/(b/m))², t "
             "intervals";
    case Rule::kReiterFull:
      return "Reiter (2002) full synthesis: T_f = (1+1/m)b − v̄, ν_f = (m−1)(1 − "
             "v̄/((1+1/m)b))², t intervals; T_f* = max(0, T_f) + (n_syn/n)v̄ with a normal "
             "interval when T_f ≤ 0 or ν_f < reiter_min_df";
  }
  return "?";
}

bool is_synthpop(Rule rule) { return rule == Rule::kSynthpop || rule == Rule::kSynthpopPopulation; }

// synthpop's default always comes first: the headlines read it.
std::vector<Rule> resolve_rules(const std::vector<std::string>& names, SynthesisType synthesis) {
  std::vector<Rule> rules = {Rule::kSynthpop};
  auto add = [&rules](Rule r) {
    if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(r);
  };
  for (const auto& name : names) {
    if (name == "synthpop_population") add(Rule::kSynthpopPopulation);
    if (name == "reiter_partial") add(Rule::kReiterPartial);
    if (name == "reiter_full") add(Rule::kReiterFull);
    if (name == "reiter")
      add(synthesis == SynthesisType::kPartial ? Rule::kReiterPartial : Rule::kReiterFull);
  }
  return rules;
}

std::string with_rule(const std::string& scope, Rule rule) {
  return scope + ";rule=" + rule_name(rule);
}

// The columns that hold what an analysis analyses: a model's response, or the analysed column.
std::vector<std::size_t> outcome_columns(const Prepared& p, const Table& conf) {
  if (!p.layout) return {p.column};
  std::vector<std::string> names;
  p.layout->formula().response.collect_columns(names);
  std::vector<std::size_t> columns;
  for (const auto& name : names)
    columns.push_back(stats::resolve_column(conf, name, analysis_where(*p.spec)));
  return columns;
}

// True when every replicate carries the confidential values of `columns` row by row: in a
// partial synthesis, those columns were not synthesised.
bool copied_row_by_row(const Table& conf, const std::vector<const Table*>& replicates,
                       const std::vector<std::size_t>& columns) {
  if (columns.empty()) return false;
  for (const Table* t : replicates) {
    if (t->rows() != conf.rows()) return false;
    for (auto c : columns) {
      const Column& a = conf.column(c);
      const Column& b = t->column(c);
      if (a.is_numeric()) {
        for (std::size_t i = 0; i < a.numeric.size(); ++i)
          if (a.numeric[i] != b.numeric[i] &&
              !(std::isnan(a.numeric[i]) && std::isnan(b.numeric[i])))
            return false;
      } else if (a.codes != b.codes) {
        return false;
      }
    }
  }
  return true;
}

struct Summary {
  double overlap = 0, overlap_signed = 0, sso = 0, abs_std = 0;
  std::size_t count = 0;
  void add(double o, double os, double s, double d) {
    if (std::isnan(o) || std::isnan(os) || std::isnan(d)) return;
    overlap += o;
    overlap_signed += os;
    sso += s;
    abs_std += std::abs(d);
    ++count;
  }
  void emit(MetricResult& r, const std::string& scope) const {
    const double n = static_cast<double>(count);
    r.add("mean_ci_overlap", scope, count ? overlap / n : kNaN);
    r.add("mean_ci_overlap_signed", scope, count ? overlap_signed / n : kNaN);
    r.add("sso_share", scope, count ? sso / n : kNaN);
    r.add("mean_abs_std_coef_diff", scope, count ? abs_std / n : kNaN);
    r.add("estimands_compared", scope, n);
  }
};

// What the rules share for one analysis.
struct AnalysisData {
  const Prepared* prepared = nullptr;
  const Estimates* confidential = nullptr;
  const std::vector<Estimates>* replicates = nullptr;
  stats::SynthpopSetting synthpop;  // population_inference set per rule
  double reiter_n_ratio = 1.0;      // n_syn/n over the rows each fit used
  double reiter_min_df = 1.0;
  double level = 0.95;
};

// One estimand under one rule: the confidential and synthetic inferences and their comparison.
void compare_estimand(const AnalysisData& d, Rule rule, std::size_t k, MetricResult& result,
                      Summary& summary, Summary& overall, nlohmann::json& rules_json,
                      nlohmann::json* forest, std::vector<std::string>& fallbacks) {
  const Estimates& ce = *d.confidential;
  const auto& re = *d.replicates;
  const std::size_t m = re.size();
  const std::string& term = d.prepared->terms[k];
  const std::string scope = with_rule(d.prepared->spec->name + ":" + term, rule);
  std::vector<double> q(m), v(m);
  for (std::size_t r = 0; r < m; ++r) {
    q[r] = re[r].q[k];
    v[r] = re[r].v[k];
  }
  double within = 0.0;
  for (double x : v) within += x / static_cast<double>(m);

  stats::Inference ci, si;
  nlohmann::json syn;
  if (is_synthpop(rule)) {
    stats::SynthpopSetting setting = d.synthpop;
    setting.population_inference = rule == Rule::kSynthpopPopulation;
    ci = stats::make_inference(ce.q[k], ce.v[k], stats::kInfiniteDf, d.level);
    const auto with_conf = stats::combine_synthpop(q, ce.v[k], setting, d.level);
    const auto alone = stats::combine_synthpop(q, within * setting.k / setting.n, setting, d.level);
    si = with_conf;
    result.add("synthetic_only_se", scope, alone.standard_error());
    result.add("synthetic_only_z", scope, alone.estimate / alone.standard_error());
    syn = interval_json(si);
    syn["variance"] = !setting.population_inference ? "v_conf"
                      : setting.incomplete && m > 1 ? "b/m + v_conf"
                      : setting.proper              ? "v_conf (1 + (n/k + 1)/m)"
                                                    : "v_conf (1 + n/(k m))";
    syn["synthetic_only"] = interval_json(alone);
    if (!with_conf.note.empty()) syn["note"] = with_conf.note;
  } else {
    ci = stats::make_inference(ce.q[k], ce.v[k], ce.df, d.level);
    const auto combined =
        rule == Rule::kReiterPartial
            ? stats::combine_partial(q, v, d.level)
            : stats::combine_full(q, v, d.reiter_n_ratio, d.level, d.reiter_min_df);
    si = combined;
    syn = interval_json(si);
    syn["variance"] = rule == Rule::kReiterPartial ? "T_p"
                      : combined.variance_adjusted ? "T_f*"
                                                   : "T_f";
    syn["unadjusted_variance"] = number(combined.raw_variance);
    if (!combined.note.empty()) syn["note"] = combined.note;
    if (rule == Rule::kReiterFull && combined.variance_adjusted && m > 1) fallbacks.push_back(term);
  }
  syn["rule"] = rule_name(rule);
  const double o1 = stats::ci_overlap(ci.interval, si.interval);
  const double o2 = stats::ci_overlap_signed(ci.interval, si.interval);
  const double sd = (si.estimate - ci.estimate) / ci.standard_error();
  const bool same_sign =
      (ci.estimate > 0) == (si.estimate > 0) && (ci.estimate < 0) == (si.estimate < 0);
  const bool same_sig = stats::significant(ci.interval) == stats::significant(si.interval);
  const bool sso = stats::sso_match(ci.estimate, ci.interval, si.estimate, si.interval);
  result.add("confidential_lower", scope, ci.interval.lower);
  result.add("confidential_upper", scope, ci.interval.upper);
  result.add("synthetic_estimate", scope, si.estimate);
  result.add("synthetic_se", scope, si.standard_error());
  result.add("synthetic_z", scope, si.estimate / si.standard_error());
  result.add("synthetic_lower", scope, si.interval.lower);
  result.add("synthetic_upper", scope, si.interval.upper);
  result.add("synthetic_df", scope, si.df);
  result.add("ci_overlap", scope, o1);
  result.add("ci_overlap_signed", scope, o2);
  result.add("std_coef_diff", scope, sd);
  result.add("same_sign", scope, same_sign ? 1.0 : 0.0);
  result.add("same_significance", scope, same_sig ? 1.0 : 0.0);
  result.add("sso_match", scope, sso ? 1.0 : 0.0);
  summary.add(o1, o2, sso ? 1.0 : 0.0, sd);
  overall.add(o1, o2, sso ? 1.0 : 0.0, sd);
  nlohmann::json conf = interval_json(ci);
  conf["rule"] = rule_name(rule);
  rules_json[rule_name(rule)] = {{"confidential", conf},          {"synthetic", syn},
                                 {"ci_overlap", number(o1)},      {"ci_overlap_signed", number(o2)},
                                 {"std_coef_diff", number(sd)},   {"same_sign", same_sign},
                                 {"same_significance", same_sig}, {"sso_match", sso}};
  if (forest == nullptr) return;
  for (const auto& [dataset, inf] :
       {std::pair<const char*, const stats::Inference*>{"confidential", &ci}, {"synthetic", &si}})
    (*forest)["data"].push_back({{"estimand", term},
                                 {"dataset", dataset},
                                 {"rule", rule_name(rule)},
                                 {"estimate", number(inf->estimate)},
                                 {"lower", number(inf->interval.lower)},
                                 {"upper", number(inf->interval.upper)}});
}

// One analysis as the coefficient table a statistician reads (details.tables, the report's
// convention in metrics/metric.hpp): a row per estimand and rule with both estimates and
// intervals, their overlap, the standardised difference and the sign and significance agreement.
nlohmann::json coefficient_table(const AnalysisSpec& a, const Prepared& p,
                                 const std::vector<Rule>& rules, const nlohmann::json& aj) {
  nlohmann::json table = {
      {"title",
       a.name + (p.layout ? " (" + a.formula + ")" : " (" + a.kind + " of " + a.column + ")")},
      {"scope", a.name},
      {"columns",
       {"estimand", "rule", "confidential", "confidential CI", "synthetic", "synthetic CI",
        "CI overlap", "std. difference", "same sign", "same significance"}},
      {"rows", nlohmann::json::array()}};
  for (std::size_t k = 0; k < p.terms.size(); ++k)
    for (const Rule rule : rules) {
      const auto& r = aj["estimands"][k]["rules"][rule_name(rule)];
      const auto interval = [](const nlohmann::json& i) {
        return nlohmann::json::array({i["lower"], i["upper"]});
      };
      table["rows"].push_back({p.terms[k], rule_name(rule), r["confidential"]["estimate"],
                               interval(r["confidential"]), r["synthetic"]["estimate"],
                               interval(r["synthetic"]), r["ci_overlap"], r["std_coef_diff"],
                               r["same_sign"], r["same_significance"]});
    }
  return table;
}

// synthpop's lack-of-fit test for a model analysis under one of synthpop's rules.
nlohmann::json lack_of_fit(const AnalysisData& d, Rule rule, MetricResult& result) {
  const Estimates& ce = *d.confidential;
  const auto& re = *d.replicates;
  const auto p = static_cast<Eigen::Index>(ce.q.size());
  const auto m = static_cast<Eigen::Index>(re.size());
  Eigen::VectorXd difference(p);
  Eigen::MatrixXd estimates(m, p);
  for (Eigen::Index j = 0; j < p; ++j) {
    double mean = 0.0;
    for (Eigen::Index r = 0; r < m; ++r) {
      estimates(r, j) = re[static_cast<std::size_t>(r)].q[static_cast<std::size_t>(j)];
      mean += estimates(r, j) / static_cast<double>(m);
    }
    difference[j] = mean - ce.q[static_cast<std::size_t>(j)];
  }
  const auto test = stats::synthpop_lack_of_fit(difference, ce.covariance, estimates, d.synthpop);
  const std::string scope = with_rule(d.prepared->spec->name, rule);
  result.add("lack_of_fit", scope, test.statistic);
  result.add("lack_of_fit_df", scope, test.df);
  if (d.synthpop.incomplete) result.add("lack_of_fit_df2", scope, test.df2);
  result.add("lack_of_fit_p", scope, test.p_value);
  result.add("lack_of_fit_ratio", scope, test.statistic / test.df);
  nlohmann::json j = {{"test", d.synthpop.incomplete ? "Hotelling T², F(p, m − p)" : "χ²_p"},
                      {"statistic", number(test.statistic)},
                      {"df", number(test.df)},
                      {"p_value", number(test.p_value)}};
  if (d.synthpop.incomplete) j["df2"] = number(test.df2);
  if (!test.note.empty()) j["note"] = test.note;
  if (!test.note.empty() && rule == Rule::kSynthpop) {
    result.warnings.push_back(analysis_where(*d.prepared->spec) +
                              ": no lack-of-fit test: " + test.note);
  }
  return j;
}

MetricResult compute_analysis_inference(const MetricInput& in, const Params& params) {
  MetricResult result;
  const double level = params.get_double("level");
  const bool partial = in.context.synthesis == SynthesisType::kPartial;
  const std::vector<Rule> rules =
      resolve_rules(params.get_string_list("rules"), in.context.synthesis);
  const Table& conf = in.confidential;
  const std::size_t m = in.synthetic.size();
  if (in.context.analyses.empty()) throw MetricNotApplicable("no analyses declared");
  result.details["synthesis"] = to_string(in.context.synthesis);
  result.details["rules"] = nlohmann::json::array();
  for (auto rule : rules)
    result.details["rules"].push_back(
        {{"name", rule_name(rule)}, {"description", rule_description(rule)}});
  result.details["headline_rule"] = rule_name(Rule::kSynthpop);
  result.details["level"] = level;
  result.details["replicates"] = m;
  result.details["analyses"] = nlohmann::json::array();
  result.details["tables"] = nlohmann::json::array();
  result.details["plots"] = nlohmann::json::array();
  if (m == 1)
    result.warnings.push_back(
        "m = 1 synthetic replicate: the between-replicate variance cannot be "
        "estimated, so the synthetic interval leaves out the synthesis "
        "variance (a normal interval on v̄); release m ≥ 2 for valid inference");
  std::vector<Summary> overall(rules.size());
  const double n_conf_rows = static_cast<double>(conf.rows());
  double k_rows = 0.0;
  for (const Table* t : in.synthetic)
    k_rows += static_cast<double>(t->rows()) / static_cast<double>(m);
  std::vector<DesignWeights> weights;
  for (const Table* t : in.synthetic)
    weights.push_back(design_weights(in, *t, params, result.warnings));
  // An unweighted synthetic total estimates the population the confidential weights sum to.
  double expansion = n_conf_rows;
  if (weights.front().declared()) {
    expansion = 0.0;
    for (const double w : weights.front().confidential) expansion += w;
    result.details["weights"] = {{"column", in.context.weights},
                                 {"synthetic_weighted", nlohmann::json::array()}};
    for (const auto& w : weights)
      result.details["weights"]["synthetic_weighted"].push_back(!w.synthetic.empty());
    result.details["design"] = design_summary(in, weights);
  }
  for (const auto& a : in.context.analyses) {
    const Prepared p = prepare(a, conf, in.context.limits);
    const bool weighted = weights.front().declared();
    const Estimates ce =
        run_analysis(p, conf, expansion, in.context.limits,
                     weighted ? weights.front().confidential_design.get() : nullptr);
    nlohmann::json aj = {{"name", a.name}, {"kind", a.kind}};
    if (p.layout) {
      aj["formula"] = a.formula;
      aj["notes"] = p.layout->notes();
      aj["columns"] = p.terms;
    } else {
      aj["column"] = a.column;
      if (a.kind == "quantile") aj["probability"] = a.probability;
    }
    aj["confidential_rows"] = {{"used", ce.rows_used},
                               {"dropped_missing", ce.rows_dropped_missing}};
    if (ce.rows_dropped_missing)
      result.warnings.push_back(analysis_where(a) + ": " + std::to_string(ce.rows_dropped_missing) +
                                " confidential row(s) with missing values dropped (na.omit)");

    // Every replicate.
    std::vector<Estimates> re;
    std::string failure;
    nlohmann::json reps = nlohmann::json::array();
    for (std::size_t r = 0; r < m && failure.empty(); ++r) {
      try {
        re.push_back(run_analysis(p, *in.synthetic[r], expansion, in.context.limits,
                                  weighted ? weights[r].synthetic_design.get() : nullptr));
      } catch (const InputError& e) {
        failure = "replicate " + std::to_string(r + 1) + ": " + e.what();
        break;
      }
      const auto& e = re.back();
      reps.push_back({{"replicate", r + 1},
                      {"rows_used", e.rows_used},
                      {"dropped_missing", e.rows_dropped_missing},
                      {"dropped_unknown_level", e.rows_dropped_unknown_level},
                      {"q", e.q},
                      {"v", e.v}});
      if (e.rows_dropped_unknown_level)
        result.warnings.push_back(analysis_where(a) + ", replicate " + std::to_string(r + 1) +
                                  ": " + std::to_string(e.rows_dropped_unknown_level) +
                                  " row(s) with a level the confidential data lack dropped");
    }
    aj["replicates"] = reps;
    if (!failure.empty()) {
      result.warnings.push_back("analysis skipped for this candidate: " + failure);
      aj["skipped"] = failure;
      result.details["analyses"].push_back(aj);
      continue;
    }
    double n_syn = 0.0;
    for (const auto& e : re) n_syn += static_cast<double>(e.rows_used);
    n_syn /= static_cast<double>(m);

    AnalysisData d;
    d.prepared = &p;
    d.confidential = &ce;
    d.replicates = &re;
    d.level = level;
    d.reiter_n_ratio = n_syn / static_cast<double>(ce.rows_used);
    d.reiter_min_df = params.get_double("reiter_min_df");
    d.synthpop.proper = params.get_bool("proper");
    d.synthpop.n = n_conf_rows;
    d.synthpop.k = k_rows;
    d.synthpop.incomplete =
        partial && copied_row_by_row(conf, in.synthetic, outcome_columns(p, conf));
    aj["synthpop"] = {{"n", n_conf_rows},
                      {"k", k_rows},
                      {"proper", d.synthpop.proper},
                      {"response_synthesised", !d.synthpop.incomplete}};
    if (d.synthpop.incomplete && m < 5 &&
        std::find(rules.begin(), rules.end(), Rule::kSynthpopPopulation) != rules.end())
      result.warnings.push_back(
          analysis_where(a) +
          ": the analysed variable was not synthesised and m = " + std::to_string(m) +
          " < 5: synthpop_population's variance b/m + v_conf rests on few replicates");

    const std::string intervals = ": confidential vs synthetic " + short_number(100 * level) +
                                  "% intervals (rule synthpop: synthpop's default)";
    auto forest = make_plot("forest", a.name + intervals, "estimate", "estimand", a.name);
    // A model's intercept (or polr's cut-points) sits on the outcome's scale, its slopes on the
    // outcome per unit of each predictor: on one axis the slopes' intervals shrink to dots, so
    // the intercept terms get a plot of their own.
    auto intercepts =
        make_plot("forest", a.name + " (intercept)" + intervals, "estimate", "estimand", a.name);
    const auto is_intercept = [&](const std::string& term) {
      return p.layout &&
             (term == "(Intercept)" || (p.model && p.model->model == AnalysisModel::kOrdinal &&
                                        term.find('|') != std::string::npos));
    };
    aj["estimands"] = nlohmann::json::array();
    for (std::size_t k = 0; k < p.terms.size(); ++k) {
      double within = 0.0;
      std::vector<double> q(m);
      for (std::size_t r = 0; r < m; ++r) {
        q[r] = re[r].q[k];
        within += re[r].v[k] / static_cast<double>(m);
      }
      const auto between = stats::combine_partial(q, std::vector<double>(m, 0.0), level).between;
      const std::string scope = a.name + ":" + p.terms[k];
      result.add("confidential_estimate", scope, ce.q[k]);
      result.add("confidential_se", scope, std::sqrt(ce.v[k]));
      result.add("between_variance", scope, between);
      result.add("within_variance", scope, within);
      aj["estimands"].push_back({{"estimand", p.terms[k]},
                                 {"confidential_estimate", number(ce.q[k])},
                                 {"confidential_se", number(std::sqrt(ce.v[k]))},
                                 {"between_variance", number(between)},
                                 {"within_variance", number(within)},
                                 {"rules", nlohmann::json::object()}});
      if (k < ce.deff.size()) {
        result.add("confidential_deff", scope, ce.deff[k]);
        aj["estimands"].back()["confidential_deff"] = number(ce.deff[k]);
      }
    }
    aj["lack_of_fit"] = nlohmann::json::object();
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
      const Rule rule = rules[ri];
      Summary summary;
      std::vector<std::string> fallbacks;
      for (std::size_t k = 0; k < p.terms.size(); ++k)
        compare_estimand(d, rule, k, result, summary, overall[ri], aj["estimands"][k]["rules"],
                         rule != Rule::kSynthpop    ? nullptr
                         : is_intercept(p.terms[k]) ? &intercepts
                                                    : &forest,
                         fallbacks);
      summary.emit(result, with_rule(a.name, rule));
      if (!fallbacks.empty())
        result.warnings.push_back(
            analysis_where(a) + ", rule reiter_full: T_f ≤ 0 or ν_f < " +
            short_number(d.reiter_min_df) + " for " + std::to_string(fallbacks.size()) + " of " +
            std::to_string(p.terms.size()) + " estimands (" + join(fallbacks, ", ") +
            "); their intervals use Reiter's non-negative T_f* = max(0, T_f) + (n_syn/n)v̄ "
            "with a normal interval instead of an unusable t interval");
      if (p.layout && is_synthpop(rule)) {
        d.synthpop.population_inference = rule == Rule::kSynthpopPopulation;
        aj["lack_of_fit"][rule_name(rule)] = lack_of_fit(d, rule, result);
      }
    }
    result.details["tables"].push_back(coefficient_table(a, p, rules, aj));
    result.details["analyses"].push_back(aj);
    if (!forest["data"].empty()) result.details["plots"].push_back(forest);
    if (!intercepts["data"].empty()) result.details["plots"].push_back(intercepts);
  }
  for (std::size_t ri = 0; ri < rules.size(); ++ri)
    overall[ri].emit(result, with_rule("all", rules[ri]));
  return result;
}

}  // namespace

MetricSpec analysis_inference_comparison_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "analysis_inference_comparison",
      .family = MetricFamily::kSpecific,
      .summary =
          "Declared analyses (means, proportions, quantiles, totals, lm, glm with binomial "
          "(logit, probit, cloglog), Poisson and Gaussian families, multinomial and ordinal "
          "logit) on "
          "the confidential data vs the m synthetic replicates combined by synthpop's and "
          "Reiter's rules: CI overlap, standardised coefficient difference, sign/significance/"
          "overlap match, synthpop's lack-of-fit test",
      .doc =
          "For each declared analysis and each estimand (a mean, a level's proportion, a quantile, "
          "a total, a regression coefficient): q and v on every replicate (mean s²/n; proportion "
          "p(1−p)/n; total N·x̄ with N the confidential rows, v = N²s²/n; quantile type 7 with "
          "v = p(1−p)/(n f̂(q)²), f̂ a Gaussian KDE with bw.nrd0; OLS classical SE; logistic "
          "Fisher-information SE; glm_probit, glm_cloglog, glm_poisson, glm_gaussian as R's glm "
          "with that family and link, SE φ(X'WX)⁻¹, φ = 1 or, Gaussian, RSS/(n − p) with t "
          "intervals; multinom as nnet::multinom, baseline-category logit against the first "
          "level, estimands LEVEL:TERM; polr as MASS::polr, logit P(Y ≤ k) = ζ_k − x'β, "
          "estimands the slopes then the cut-points a|b; multinom and polr SEs from the inverse "
          "observed information, normal intervals), q̄ = Σq/m, b = Σ(q − q̄)²/(m−1), v̄ = Σv/m. The "
          "replicates are "
          "combined under each rule of `rules`, and every rule-dependent number carries its rule "
          "in its scope (`wage:age;rule=synthpop`, `wage;rule=synthpop`, `all;rule=synthpop`). "
          "**synthpop** (synthpop's default, compare.fit.synds with population.inference = FALSE; "
          "Raab, Nowok & Dibben 2016): inference to what the confidential data would give, q̄ with "
          "the confidential variance v_conf. **synthpop_population** (population.inference = "
          "TRUE): V = v_conf(1 + n/(k m)), with proper = true V = v_conf(1 + (n/k + 1)/m), n and k "
          "the rows of the confidential file and of one replicate; when the analysed variable was "
          "not synthesised (a partial synthesis whose replicates carry it unchanged row by row) V "
          "= b/m + v_conf. Both take normal intervals for both data sets (confidential q ± z√v), "
          "and report synthetic_only_se, synthetic_only_z: the same rule with v̄ k/n in place of "
          "v_conf, what synthpop's summary.fit.synds gives from the synthetic data alone. "
          "**reiter_partial** (Reiter 2003): T_p = b/m + v̄, ν_p = (m−1)(1 + v̄/(b/m))². "
          "**reiter_full** (Reiter 2002; Raghunathan, Reiter & Rubin 2003): T_f = (1+1/m)b − v̄, "
          "ν_f = (m−1)(1 − v̄/((1+1/m)b))²; when T_f ≤ 0 or ν_f < reiter_min_df (where the t "
          "quantile explodes: 12.7 at ν = 1, about 10^16 at ν = 0.1) Reiter's non-negative T_f* = "
          "max(0, T_f) + (n_syn/n)v̄ with a normal interval, named `T_f*` in results.json and "
          "listed in a warning. `reiter` in `rules` is the rule of the declared synthesis type. "
          "Reiter's rules take the confidential interval as t with n−1 df (mean, total), n−p (lm), "
          "normal (proportion, quantile, logistic). m = 1 or b = 0: normal interval (noted). "
          "Comparisons: ci_overlap (Karr et al. 2006 / Drechsler & Reiter 2009, 0 when disjoint, "
          "1 = identical), ci_overlap_signed (without the floor, negative when disjoint: Snoke et "
          "al. 2018, and synthpop's CI overlap), std_coef_diff (q̄ − q_conf)/se_conf (synthpop), "
          "sso_match (same sign, same significance — interval excludes 0 — and overlap; "
          "Barrientos et al. 2024). **Lack of fit** (synthpop's compare.fit.synds, every "
          "model analysis, under both synthpop rules, which share it): d = q̄ − q_conf over the p "
          "coefficients; χ² = d′V⁺d with V = Σ_conf n/(k m), referred to χ² with p df; when the "
          "response was not synthesised, Hotelling's T² with V = B/m from the replicates' "
          "covariance B, F = T²(m−p)/(p(m−1)) referred to F(p, m−p), which needs m > p. V⁺ is "
          "MASS::ginv's pseudo-inverse and p-values are 1 − F(x), as synthpop computes them. "
          "lack_of_fit_ratio = lack_of_fit/p (synthpop's Mahalanobis distance ratio, target 1). "
          "Formulas follow R: factor(x) and categorical columns are dummy-coded against their "
          "first level (relevel(x, ref = \"level\") picks another), I(x > k) and other "
          "comparisons are logical factors (column I(x > k)TRUE), poly(x, d) and scale(x) are "
          "computed on each data set as R computes them in model.frame, rows with a missing "
          "value are dropped. The forest plots show the "
          "synthpop rule's intervals, a model's intercept (polr: its cut-points) in a plot of "
          "its own, apart from the slopes. **Survey weights** (weights: declared): on the "
          "confidential data, and on a synthetic replicate that carries its own weights, every "
          "analysis is design-weighted as R's survey package with svydesign(ids = ~1, weights = "
          "~w), or under the declared design: (strata, clusters, fpc: linearisation over the "
          "first-stage PSUs; replicate weights: the estimate redone per replicate, svrVar): mean, "
          "proportion and total as svymean/svytotal with t intervals on the design's degf (rows "
          "of positive weight − 1 for weights alone); quantile as svyquantile(qrule = "
          "\"hf7\") with the Woodruff (1952) SE, normal interval; lm and the glms as svyglm "
          "(gaussian; quasibinomial with the link; quasipoisson) with the sandwich (Binder 1983) "
          "covariance (replicate designs: svrVar of the replicate refits), lm on degf + 1 − p df; "
          "rows with a missing value stay in the design with weight 0, "
          "as survey's na.rm; polr as survey::svyolr (the weighted polr likelihood, sandwich "
          "covariance of its scores; svyolr's own SEs take optim's finite-difference Hessian, "
          "whose default steps of 1e-3 can be several per cent off when a coefficient is small "
          "against its column's range); multinom, which survey lacks, as "
          "nnet::multinom(weights = w) with the same linearisation covariance A⁻¹BA⁻¹ (A the "
          "information of the weighted log-likelihood, B = n/(n − 1)Σ(u_i − ū)(u_i − ū)' over "
          "the design's rows of the weighted scores u_i, rows with a missing value scoring 0); "
          "both with normal intervals. An unweighted replicate is analysed as above, its total "
          "expanded to "
          "the sum of the confidential weights. The combining rules take n and k as row counts." +
          std::string(kWeightsDoc),
      .params = {{.name = "level",
                  .type = ParamType::kDouble,
                  .default_value = 0.95,
                  .doc = "confidence level of every interval; significance (for SSO) is at "
                         "α = 1 − level",
                  .min = 0.5,
                  .max = 0.9999},
                 {.name = "rules",
                  .type = ParamType::kStringList,
                  .default_value =
                      std::vector<std::string>{"synthpop", "synthpop_population", "reiter"},
                  .doc = "combining rules to report, each in the scopes of its numbers: "
                         "synthpop, synthpop_population, reiter_partial, reiter_full, reiter "
                         "(the declared synthesis type's); synthpop is always included, the "
                         "headlines read it",
                  .choices = {"synthpop", "synthpop_population", "reiter", "reiter_partial",
                              "reiter_full"}},
                 {.name = "proper",
                  .type = ParamType::kBool,
                  .default_value = false,
                  .doc = "the replicates were made with synthpop's proper = TRUE (synthesis "
                         "models drawn from their posterior): synthpop_population's variance "
                         "adds v_conf/m"},
                 {.name = "reiter_min_df",
                  .type = ParamType::kDouble,
                  .default_value = 1.0,
                  .doc = "reiter_full: below this ν_f the interval falls back to T_f* with a "
                         "normal interval (0 keeps Reiter's rule as published)",
                  .min = 0.0,
                  .max = 1000.0},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerCandidate,
      .needs_analyses = true,
      .headlines = {{.statistic = "mean_ci_overlap",
                     .scope = "all;rule=synthpop",
                     .ideal = Ideal::higher(),
                     .reading = "mean overlap of real and synthetic confidence intervals over the "
                                "declared analyses, synthpop's default rule (1 = identical, 0 = "
                                "disjoint)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare},
                    {.statistic = "sso_share",
                     .scope = "all;rule=synthpop",
                     .ideal = Ideal::higher(),
                     .reading = "share of estimates with the same sign, significance and "
                                "overlapping intervals in real and synthetic data, synthpop's "
                                "default rule",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare}},
      .compute = compute_analysis_inference,
      .statistics =
          {{"confidential_{estimate|se}",
            "the estimate on the confidential data and its standard error",
            std::nullopt,
            {kEstimand}},
           {"confidential_{lower|upper}",
            "the confidential confidence interval under the rule in the scope",
            std::nullopt,
            {kEstimand}},
           {"synthetic_{estimate|se|z|lower|upper|df}",
            "the combined synthetic estimate q̄, its standard error, z = q̄/se, interval and "
            "degrees of freedom under the rule in the scope",
            std::nullopt,
            {kEstimand}},
           {"synthetic_only_{se|z}",
            "synthpop rules: the standard error and z from the synthetic data alone (v̄ k/n in "
            "place of v_conf), as synthpop's summary.fit.synds",
            std::nullopt,
            {kEstimand}},
           {"confidential_deff",
            "with weights: the design effect of a confidential mean, proportion or total "
            "(Kish 1965), its variance under the design over that of a simple random sample of "
            "the same size, as svymean/svytotal(deff = TRUE)",
            std::nullopt,
            {kEstimand}},
           {"{between_variance|within_variance}",
            "between-replicate variance b and mean within-replicate variance v̄",
            std::nullopt,
            {kEstimand}},
           {"ci_overlap",
            "interval overlap: 0 when disjoint, 1 when identical",
            Ideal::higher(),
            {kEstimand}},
           {"ci_overlap_signed",
            "interval overlap without the floor at 0 (synthpop's CI overlap): negative when "
            "disjoint, the more so the farther apart",
            Ideal::higher(),
            {kEstimand}},
           {"std_coef_diff",
            "standardised coefficient difference (q̄ − q_conf)/se_conf",
            Ideal::at(0.0),
            {kEstimand}},
           {"{same_sign|same_significance|sso_match}",
            "1 when the two estimates have the same sign, the same significance, and (sso_match) "
            "also overlapping intervals",
            Ideal::higher(),
            {kEstimand}},
           {"{mean_ci_overlap|mean_ci_overlap_signed}",
            "mean interval overlap over the estimands of an analysis (all: of every analysis)",
            Ideal::higher(),
            {kAnalysis, kAll}},
           {"sso_share",
            "share of estimands with the same sign, significance and overlapping intervals",
            Ideal::higher(),
            {kAnalysis, kAll}},
           {"mean_abs_std_coef_diff",
            "mean |std_coef_diff| over the estimands",
            Ideal::lower(),
            {kAnalysis, kAll}},
           {"estimands_compared", "estimands compared", std::nullopt, {kAnalysis, kAll}},
           {"lack_of_fit",
            "synthpop's lack-of-fit statistic of the synthetic vs confidential coefficients (χ², "
            "or F when the response was not synthesised)",
            std::nullopt,
            {kAnalysis}},
           {"{lack_of_fit_df|lack_of_fit_df2}",
            "degrees of freedom of the lack-of-fit test: p; df2 = m − p for the F test",
            std::nullopt,
            {kAnalysis}},
           {"lack_of_fit_p",
            "p-value of the lack-of-fit test (small: the synthesis model does not keep the "
            "relationships the analysis estimates)",
            Ideal::higher(),
            {kAnalysis}},
           {"lack_of_fit_ratio",
            "lack_of_fit / p (synthpop's Mahalanobis distance ratio; target 1)",
            Ideal::at(1.0, TargetScale::kRatio),
            {kAnalysis}}},
      .references = {cite(lumley_2004(),
                          "design-weighted estimates, svyglm and svyolr fits with survey weights"),
                     cite(woodruff_1952(), "standard error of a weighted quantile"),
                     cite(binder_1983(), "linearised (sandwich) covariance of weighted fits"),
                     cite(kish_1965(), "design effect of a weighted mean or total"),
                     cite(judkins_1990(), "Fay's replicate weights (design type Fay)"),
                     cite(synthpop_software(),
                          "compare.fit.synds and summary.fit.synds numbers reproduced (rules "
                          "synthpop, synthpop_population, lack-of-fit test)"),
                     cite(nowok_raab_dibben_2016(),
                          "synthpop's fit comparison and standardised coefficient difference"),
                     cite(raab_nowok_dibben_2016(),
                          "inference from synthetic data in synthpop: the synthpop and "
                          "synthpop_population rules and the lack-of-fit test"),
                     cite(reiter_2003(), "combining rules for partially synthetic data"),
                     cite(raghunathan_reiter_rubin_2003(), "full synthesis by multiple imputation"),
                     cite(reiter_2002(),
                          "combining rules for fully synthetic data and the non-negative variance"),
                     cite(karr_2006(), "confidence-interval overlap"),
                     cite(drechsler_reiter_2009(),
                          "interval overlap as used here (0 when disjoint)"),
                     cite(snoke_2018(), "signed interval overlap"),
                     cite(barrientos_2024(), "sign, significance and overlap (SSO) match"),
                     cite(statsmodels_software(), "OLS and logistic fits reproduced"),
                     cite(nelder_wedderburn_1972(),
                          "generalised linear models fitted by Fisher scoring"),
                     cite(venables_ripley_2002(),
                          "the multinomial logit of nnet::multinom and the proportional-odds "
                          "model of MASS::polr"),
                     cite(mccullagh_1980(), "the proportional-odds (cumulative logit) model"),
                     cite(r_software(),
                          "glm (probit, cloglog, Poisson, Gaussian), multinom, polr, poly and "
                          "scale reproduced")},
      // Estimates, intervals and the rules used: model summaries, no record's value.
      .aggregate_details = {"synthesis", "rules", "headline_rule", "level", "replicates",
                            "analyses", "tables"},
  };
}

}  // namespace synthaudit
