// Specific utility: the declared analyses run on the confidential data and on every
// synthetic replicate, the replicates combined with the partial- or full-synthesis rules, and the
// two inferences compared (CI overlap in both definitions, standardised difference, SSO match).
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/column_lookup.hpp"
#include "stats/combining.hpp"
#include "stats/glm.hpp"
#include "stats/level_counts.hpp"
#include "stats/model_matrix.hpp"
#include "stats/ols.hpp"

namespace synthaudit {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One analysis, prepared on the confidential data: which column, which levels, which design.
struct Prepared {
  const AnalysisSpec* spec = nullptr;
  std::size_t column = 0;
  std::vector<std::uint32_t> levels;  // proportion: the levels present in the confidential data
  std::unique_ptr<stats::ModelLayout> layout;
  std::vector<std::string> terms;
};

// Estimates (q, v) of every estimand of one analysis on one table.
struct Estimates {
  std::vector<double> q, v;
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
  if (a.kind == "lm" || a.kind == "glm_logit") {
    auto formula = stats::parse_formula(a.formula, limits);
    try {
      p.layout = std::make_unique<stats::ModelLayout>(
          std::move(formula), conf,
          a.kind == "lm" ? stats::ResponseKind::kNumeric : stats::ResponseKind::kBinary);
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
    p.terms = p.layout->column_names();
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

// Runs one analysis on one table. Throws InputError when the analysis cannot be done on it.
Estimates run_analysis(const Prepared& p, const Table& table, double n_conf_rows,
                       const ResourceLimits& limits) {
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
    e.rows_used = static_cast<std::size_t>(mm.x.rows());
    e.rows_dropped_missing = mm.rows_dropped_missing;
    e.rows_dropped_unknown_level = mm.rows_dropped_unknown_level;
    const auto p_cols = static_cast<std::size_t>(mm.x.cols());
    if (e.rows_used <= p_cols)
      throw InputError(where + ": " + std::to_string(e.rows_used) + " complete rows for " +
                       std::to_string(p_cols) + " coefficients");
    if (a.kind == "lm") {
      const auto fit = stats::fit_ols(mm.x, mm.y);
      if (!fit.aliased.empty())
        throw InputError(where + ": " + alias_message(p.terms, fit.aliased, fit.alias_of));
      for (Eigen::Index j = 0; j < fit.beta.size(); ++j) {
        e.q.push_back(fit.beta[j]);
        e.v.push_back(fit.se[j] * fit.se[j]);
      }
      e.df = fit.df_residual;
    } else {
      const auto fit = stats::fit_glm_logistic(mm.x, mm.y);
      if (!fit.aliased.empty())
        throw InputError(where + ": " + alias_message(p.terms, fit.aliased, fit.alias_of));
      if (fit.separation)
        throw InputError(
            where + ": the outcome is perfectly separated (" + std::to_string(fit.separated_rows) +
            " rows fitted with probability numerically 0 or 1); the maximum-likelihood "
            "estimates do not exist");
      if (!fit.converged)
        throw InputError(where + ": the logistic fit did not converge in " +
                         std::to_string(fit.iterations) + " iterations");
      for (Eigen::Index j = 0; j < fit.beta.size(); ++j) {
        e.q.push_back(fit.beta[j]);
        e.v.push_back(fit.se[j] * fit.se[j]);
      }
      e.df = stats::kInfiniteDf;
    }
    return e;
  }
  const Column& col = table.column(p.column);
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
    est.q *= n_conf_rows;
    est.v *= n_conf_rows * n_conf_rows;
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
    r.add("mean_abs_standardized_difference", scope, count ? abs_std / n : kNaN);
    r.add("estimands_compared", scope, n);
  }
};

MetricResult compute_analysis_inference(const MetricInput& in, const Params& params) {
  MetricResult result;
  const double level = params.get_double("level");
  const bool partial = in.context.synthesis == SynthesisType::kPartial;
  const Table& conf = in.confidential;
  const std::size_t m = in.synthetic.size();
  if (in.context.analyses.empty()) throw MetricNotApplicable("no analyses declared");
  result.details["synthesis"] = to_string(in.context.synthesis);
  result.details["combining_rule"] =
      partial ? "partial synthesis (Reiter 2003): T_p = b/m + v̄, ν_p = (m−1)(1 + v̄/(b/m))²"
              : "full synthesis (Reiter 2002): T_f = (1+1/m)b − v̄, ν_f = (m−1)(1 − v̄/((1+1/m)b))², "
                "T_f* = max(0, T_f) + δ(n_syn/n)v̄";
  result.details["level"] = level;
  result.details["replicates"] = m;
  result.details["analyses"] = nlohmann::json::array();
  result.details["plots"] = nlohmann::json::array();
  if (m == 1)
    result.warnings.push_back(
        "m = 1 synthetic replicate: the between-replicate variance cannot be "
        "estimated, so the synthetic interval leaves out the synthesis "
        "variance (a normal interval on v̄); release m ≥ 2 for valid inference");
  Summary overall;
  const double n_conf_rows = static_cast<double>(conf.rows());
  for (const auto& a : in.context.analyses) {
    const Prepared p = prepare(a, conf, in.context.limits);
    const Estimates ce = run_analysis(p, conf, n_conf_rows, in.context.limits);
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
        re.push_back(run_analysis(p, *in.synthetic[r], n_conf_rows, in.context.limits));
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
    const double n_ratio = n_syn / static_cast<double>(ce.rows_used);

    Summary summary;
    auto forest = make_plot(
        "forest",
        a.name + ": confidential vs synthetic " + short_number(100 * level) + "% intervals",
        "estimate", "estimand", a.name);
    aj["estimands"] = nlohmann::json::array();
    for (std::size_t k = 0; k < p.terms.size(); ++k) {
      const std::string scope = a.name + ":" + p.terms[k];
      const auto ci = stats::make_inference(ce.q[k], ce.v[k], ce.df, level);
      std::vector<double> q(m), v(m);
      for (std::size_t r = 0; r < m; ++r) {
        q[r] = re[r].q[k];
        v[r] = re[r].v[k];
      }
      const auto si =
          partial ? stats::combine_partial(q, v, level) : stats::combine_full(q, v, n_ratio, level);
      const double o1 = stats::ci_overlap(ci.interval, si.interval);
      const double o2 = stats::ci_overlap_signed(ci.interval, si.interval);
      const double sd = (si.estimate - ci.estimate) / ci.standard_error();
      const bool same_sign =
          (ci.estimate > 0) == (si.estimate > 0) && (ci.estimate < 0) == (si.estimate < 0);
      const bool same_sig = stats::significant(ci.interval) == stats::significant(si.interval);
      const bool sso = stats::sso_match(ci.estimate, ci.interval, si.estimate, si.interval);
      result.add("confidential_estimate", scope, ci.estimate);
      result.add("confidential_se", scope, ci.standard_error());
      result.add("confidential_lower", scope, ci.interval.lower);
      result.add("confidential_upper", scope, ci.interval.upper);
      result.add("synthetic_estimate", scope, si.estimate);
      result.add("synthetic_se", scope, si.standard_error());
      result.add("synthetic_lower", scope, si.interval.lower);
      result.add("synthetic_upper", scope, si.interval.upper);
      result.add("synthetic_df", scope, si.df);
      result.add("between_variance", scope, si.between);
      result.add("within_variance", scope, si.within);
      result.add("ci_overlap", scope, o1);
      result.add("ci_overlap_signed", scope, o2);
      result.add("standardized_difference", scope, sd);
      result.add("same_sign", scope, same_sign ? 1.0 : 0.0);
      result.add("same_significance", scope, same_sig ? 1.0 : 0.0);
      result.add("sso_match", scope, sso ? 1.0 : 0.0);
      summary.add(o1, o2, sso ? 1.0 : 0.0, sd);
      overall.add(o1, o2, sso ? 1.0 : 0.0, sd);
      nlohmann::json syn = interval_json(si);
      syn["between_variance"] = number(si.between);
      syn["within_variance"] = number(si.within);
      syn["unadjusted_variance"] = number(si.raw_variance);
      syn["variance_adjusted"] = si.variance_adjusted;
      if (!si.note.empty()) syn["note"] = si.note;
      aj["estimands"].push_back({{"estimand", p.terms[k]},
                                 {"confidential", interval_json(ci)},
                                 {"synthetic", syn},
                                 {"ci_overlap", number(o1)},
                                 {"ci_overlap_signed", number(o2)},
                                 {"standardized_difference", number(sd)},
                                 {"same_sign", same_sign},
                                 {"same_significance", same_sig},
                                 {"sso_match", sso}});
      forest["data"].push_back({{"estimand", p.terms[k]},
                                {"dataset", "confidential"},
                                {"estimate", number(ci.estimate)},
                                {"lower", number(ci.interval.lower)},
                                {"upper", number(ci.interval.upper)}});
      forest["data"].push_back({{"estimand", p.terms[k]},
                                {"dataset", "synthetic"},
                                {"estimate", number(si.estimate)},
                                {"lower", number(si.interval.lower)},
                                {"upper", number(si.interval.upper)}});
    }
    summary.emit(result, a.name);
    result.details["analyses"].push_back(aj);
    result.details["plots"].push_back(forest);
  }
  overall.emit(result, "all");
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
          "Declared analyses (means, proportions, quantiles, totals, lm, logistic glm) on "
          "the confidential data vs the m synthetic replicates combined: CI overlap, "
          "standardised difference, sign/significance/overlap match",
      .doc =
          "For each declared analysis and each estimand (a mean, a level's proportion, a quantile, "
          "a total, a regression coefficient): q and v on every replicate (mean s²/n; proportion "
          "p(1−p)/n; total N·x̄ with N the confidential rows, v = N²s²/n; quantile type 7 with "
          "v = p(1−p)/(n f̂(q)²), f̂ a Gaussian KDE with bw.nrd0; OLS classical SE; logistic "
          "Fisher-information SE). Combined by the synthesis type's rules: partial (Reiter 2003) "
          "q̄, b, v̄, T_p = b/m + v̄, ν_p = (m−1)(1 + v̄/(b/m))²; full (Reiter 2002) T_f = "
          "(1+1/m)b − v̄, ν_f = (m−1)(1 − v̄/((1+1/m)b))², T_f* = max(0,T_f) + δ(n_syn/n)v̄. "
          "m = 1 or b = 0: normal interval (ν infinite; noted). Confidential interval: t with n−1 "
          "df (mean, total), n−p (lm), normal (proportion, quantile, logistic). Comparisons: "
          "ci_overlap (Karr et al. 2006 / Drechsler & Reiter 2009, 0 when disjoint, 1 = "
          "identical), ci_overlap_signed (Snoke et al. 2018, negative when disjoint), "
          "standardized_difference (q̄ − q_conf)/se_conf (synthpop compare.fit), sso_match (same "
          "sign, same significance — interval excludes 0 — and overlap; Barrientos et al. 2024). "
          "Formulas follow R: factor(x) and categorical columns are dummy-coded against their "
          "first level, rows with a missing value are dropped.",
      .params = {{.name = "level",
                  .type = ParamType::kDouble,
                  .default_value = 0.95,
                  .doc = "confidence level of every interval; significance (for SSO) is at "
                         "α = 1 − level",
                  .min = 0.5,
                  .max = 0.9999}},
      .granularity = MetricGranularity::kPerCandidate,
      .needs_analyses = true,
      .headlines = {{.statistic = "mean_ci_overlap",
                     .ideal = Ideal::higher(),
                     .reading = "mean overlap of real and synthetic confidence intervals over the "
                                "declared analyses (1 = identical, 0 = disjoint)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare},
                    {.statistic = "sso_share",
                     .ideal = Ideal::higher(),
                     .reading = "share of estimates with the same sign, significance and "
                                "overlapping intervals in real and synthetic data",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare}},
      .compute = compute_analysis_inference,
      .statistics =
          {{"confidential_{estimate|se|lower|upper}",
            "the estimate on the confidential data, its standard error and confidence interval",
            std::nullopt,
            {kEstimand}},
           {"synthetic_{estimate|se|lower|upper|df}",
            "the combined synthetic estimate q̄, its standard error √T, interval and degrees of "
            "freedom",
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
            "interval overlap without the floor at 0: negative when disjoint, the more so the "
            "farther apart",
            Ideal::higher(),
            {kEstimand}},
           {"standardized_difference", "(q̄ − q_conf)/se_conf", Ideal::at(0.0), {kEstimand}},
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
           {"mean_abs_standardized_difference",
            "mean |standardized_difference| over the estimands",
            Ideal::lower(),
            {kAnalysis, kAll}},
           {"estimands_compared", "estimands compared", std::nullopt, {kAnalysis, kAll}}},
      .references = {cite(reiter_2003(), "combining rules for partially synthetic data"),
                     cite(raghunathan_reiter_rubin_2003(), "full synthesis by multiple imputation"),
                     cite(reiter_2002(),
                          "combining rules for fully synthetic data and the non-negative variance"),
                     cite(karr_2006(), "confidence-interval overlap"),
                     cite(drechsler_reiter_2009(),
                          "interval overlap as used here (0 when disjoint)"),
                     cite(snoke_2018(), "signed interval overlap"),
                     cite(barrientos_2024(), "sign, significance and overlap (SSO) match"),
                     cite(nowok_raab_dibben_2016(),
                          "standardised difference of synthpop's compare.fit.synds"),
                     cite(statsmodels_software(), "OLS and logistic fits reproduced")},
  };
}

}  // namespace synthaudit
