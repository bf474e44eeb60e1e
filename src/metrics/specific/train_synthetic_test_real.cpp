// Machine-learning efficacy: train on synthetic, test on real (TSTR). The same model is fitted on
// each synthetic replicate and on the confidential data and both are scored on the holdout, a real
// sample neither was fitted on; the confidential-trained score is the reference the synthetic
// scores are read against.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/boosted_trees.hpp"
#include "stats/column_lookup.hpp"
#include "stats/formula.hpp"
#include "stats/logistic.hpp"
#include "stats/model_matrix.hpp"
#include "stats/ols.hpp"
#include "stats/roc.hpp"

namespace synthaudit {

namespace {

constexpr const char* kName = "train_synthetic_test_real";

enum class Task { kBinary, kMulticlass, kRegression };
enum class Model { kLogistic, kLinear, kBoostedTrees };

// The prediction problem, fixed once on the confidential data so that every fit means the same.
struct Problem {
  std::size_t target = 0;
  std::vector<std::size_t> predictors;
  Task task = Task::kRegression;
  Model model = Model::kLinear;
  // Classification: the target's classes, in order (categorical: dictionary codes of the levels
  // the confidential data have, R's sorted order; numeric 0/1: 0 and 1); the last is the positive
  // class of a binary target.
  std::vector<double> classes;
  std::vector<std::string> class_names;
  std::unique_ptr<stats::ModelLayout> layout;  // logistic and linear models
};

// One table's records for the problem: predictors (a design matrix or boosting features) and the
// target (class index or value), rows with a missing or unusable target or predictor left out.
struct Records {
  Eigen::MatrixXd x;
  std::vector<stats::FeatureColumn> features;
  std::vector<double> y;  // class index (classification) or value (regression)
  std::size_t dropped = 0;
};

// Class index of each row of `table` (−1: missing, or a class the confidential data do not have);
// the value itself for a regression.
std::vector<double> target_values(const Problem& p, const Table& table) {
  const Column& col = table.column(p.target);
  std::vector<double> out(table.rows(), -1.0);
  for (std::size_t i = 0; i < table.rows(); ++i) {
    if (col.missing(i)) {
      out[i] = std::nan("");
      continue;
    }
    const double v = col.is_numeric() ? col.numeric[i] : static_cast<double>(col.codes[i]);
    if (p.task == Task::kRegression) {
      out[i] = v;
      continue;
    }
    const auto it = std::find(p.classes.begin(), p.classes.end(), v);
    out[i] = it == p.classes.end() ? std::nan("") : static_cast<double>(it - p.classes.begin());
  }
  return out;
}

Records prepare_records(const Problem& p, const Table& table) {
  Records r;
  const auto target = target_values(p, table);
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < table.rows(); ++i)
    if (!std::isnan(target[i])) keep.push_back(i);
  if (p.model == Model::kBoostedTrees) {
    // xgboost routes missing predictor values itself, so only the target decides which rows stay;
    // categorical levels enter as their (shared, sorted) dictionary codes, as ordered numbers.
    for (const std::size_t c : p.predictors) {
      const Column& col = table.column(c);
      stats::FeatureColumn f;
      f.name = col.name;
      f.values.reserve(keep.size());
      for (const std::size_t i : keep)
        f.values.push_back(col.missing(i)     ? std::nan("")
                           : col.is_numeric() ? col.numeric[i]
                                              : static_cast<double>(col.codes[i]));
      r.features.push_back(std::move(f));
    }
    for (const std::size_t i : keep) r.y.push_back(target[i]);
    r.dropped = table.rows() - keep.size();
    return r;
  }
  const Table kept = select_rows(table, keep, table.source());
  stats::ModelMatrix mm = p.layout->build(kept);
  r.x = std::move(mm.x);
  for (const std::size_t row : mm.rows) r.y.push_back(target[keep[row]]);
  r.dropped = table.rows() - r.y.size();
  return r;
}

Eigen::VectorXd indicator(const std::vector<double>& y, double value) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(y.size()));
  for (std::size_t i = 0; i < y.size(); ++i) out[static_cast<Eigen::Index>(i)] = y[i] == value;
  return out;
}

// Probability of class 1 on `test` from a logistic fit on `train`; a training set with one class
// only predicts that class with certainty (there is nothing to fit).
std::vector<double> logistic_probability(const Eigen::MatrixXd& train, const Eigen::VectorXd& y,
                                         const Eigen::MatrixXd& test, const std::string& fit_name,
                                         std::vector<std::string>& notes) {
  const double positives = y.sum();
  if (positives == 0 || positives == static_cast<double>(y.size()))
    return std::vector<double>(static_cast<std::size_t>(test.rows()), positives == 0 ? 0.0 : 1.0);
  stats::LogisticOptions options;
  options.max_iterations = 200;
  const auto fit = stats::fit_logistic(train, y, options);
  if (!fit.converged) notes.push_back(fit_name + " did not converge");
  if (fit.separation)
    notes.push_back(fit_name + " separates some training records (fitted probabilities of 0 or 1)");
  // An aliased column is left out of the fit, as R's glm does: it contributes nothing.
  Eigen::VectorXd beta = fit.coefficients;
  for (Eigen::Index j = 0; j < beta.size(); ++j)
    if (std::isnan(beta[j])) beta[j] = 0.0;
  const Eigen::VectorXd eta = stats::multiply(test, beta);
  std::vector<double> p(static_cast<std::size_t>(eta.size()));
  for (Eigen::Index i = 0; i < eta.size(); ++i)
    p[static_cast<std::size_t>(i)] = 1.0 / (1.0 + std::exp(-eta[i]));
  return p;
}

// Least squares on `train`, leaving out columns aliased on earlier ones (coefficient 0, as R's
// lm reports NA), predicted on `test`.
std::vector<double> linear_prediction(const Eigen::MatrixXd& train, const std::vector<double>& y,
                                      const Eigen::MatrixXd& test) {
  Eigen::VectorXd yv =
      Eigen::Map<const Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(y.size()));
  auto fit = stats::fit_ols(train, yv);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(train.cols());
  if (fit.aliased.empty()) {
    beta = fit.beta;
  } else {
    std::vector<Eigen::Index> kept;
    for (Eigen::Index j = 0; j < train.cols(); ++j)
      if (std::find(fit.aliased.begin(), fit.aliased.end(), static_cast<std::size_t>(j)) ==
          fit.aliased.end())
        kept.push_back(j);
    Eigen::MatrixXd reduced(train.rows(), static_cast<Eigen::Index>(kept.size()));
    for (std::size_t k = 0; k < kept.size(); ++k)
      reduced.col(static_cast<Eigen::Index>(k)) = train.col(kept[k]);
    fit = stats::fit_ols(reduced, yv);
    if (fit.beta.size() != reduced.cols())
      throw MetricNotApplicable(std::string(kName) + ": the linear model cannot be fitted");
    for (std::size_t k = 0; k < kept.size(); ++k)
      beta[kept[k]] = fit.beta[static_cast<Eigen::Index>(k)];
  }
  const Eigen::VectorXd pred = stats::multiply(test, beta);
  return {pred.data(), pred.data() + pred.size()};
}

struct Scores {
  double auc = std::nan(""), accuracy = std::nan(""), rmse = std::nan(""), r2 = std::nan("");
  std::size_t train_rows = 0;
  std::vector<std::string> notes;
};

// Class probabilities (test rows × classes, row after row) of a model fitted on `train`.
std::vector<double> class_probabilities(const Problem& p, const Records& train, const Records& test,
                                        const stats::BoostOptions& boost,
                                        std::vector<std::string>& notes) {
  const std::size_t k = p.classes.size();
  const std::size_t n = test.y.size();
  std::vector<double> prob(n * k, 0.0);
  if (p.model == Model::kBoostedTrees) {
    // Train and test rows in one matrix; the fit sees the train rows only.
    std::vector<stats::FeatureColumn> all = train.features;
    for (std::size_t f = 0; f < all.size(); ++f)
      all[f].values.insert(all[f].values.end(), test.features[f].values.begin(),
                           test.features[f].values.end());
    const std::size_t n_train = train.y.size();
    std::vector<float> labels(n_train + n, 0.0f);
    for (std::size_t i = 0; i < n_train; ++i) labels[i] = static_cast<float>(train.y[i]);
    std::vector<std::size_t> train_rows(n_train), test_rows(n);
    std::iota(train_rows.begin(), train_rows.end(), 0);
    std::iota(test_rows.begin(), test_rows.end(), n_train);
    auto options = boost;
    if (k == 2) {
      options.objective = "binary:logistic";
    } else {
      options.objective = "multi:softprob";
      options.num_class = static_cast<int>(k);
    }
    const auto fit =
        stats::fit_predict_boosted(stats::BoostData(all), labels, options, train_rows, test_rows);
    for (std::size_t i = 0; i < n; ++i) {
      if (k == 2) {
        prob[i * 2 + 1] = fit.predictions[i];
        prob[i * 2] = 1.0 - fit.predictions[i];
      } else {
        for (std::size_t c = 0; c < k; ++c) prob[i * k + c] = fit.predictions[i * k + c];
      }
    }
    return prob;
  }
  if (k == 2) {
    const auto p1 =
        logistic_probability(train.x, indicator(train.y, 1.0), test.x, "the logistic fit", notes);
    for (std::size_t i = 0; i < n; ++i) {
      prob[i * 2 + 1] = p1[i];
      prob[i * 2] = 1.0 - p1[i];
    }
    return prob;
  }
  // One-vs-rest: one logistic fit per class; the probabilities of a record normalised to sum 1.
  for (std::size_t c = 0; c < k; ++c) {
    const auto pc = logistic_probability(
        train.x, indicator(train.y, static_cast<double>(c)), test.x,
        "the logistic fit of class '" + p.class_names[c] + "' against the rest", notes);
    for (std::size_t i = 0; i < n; ++i) prob[i * k + c] = pc[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t c = 0; c < k; ++c) sum += prob[i * k + c];
    if (sum > 0)
      for (std::size_t c = 0; c < k; ++c) prob[i * k + c] /= sum;
  }
  return prob;
}

Scores score(const Problem& p, const Records& train, const Records& test,
             const stats::BoostOptions& boost) {
  Scores s;
  s.train_rows = train.y.size();
  const std::size_t n = test.y.size();
  if (p.task == Task::kRegression) {
    std::vector<double> pred;
    if (p.model == Model::kBoostedTrees) {
      std::vector<stats::FeatureColumn> all = train.features;
      for (std::size_t f = 0; f < all.size(); ++f)
        all[f].values.insert(all[f].values.end(), test.features[f].values.begin(),
                             test.features[f].values.end());
      std::vector<float> labels(train.y.begin(), train.y.end());
      labels.resize(train.y.size() + n, 0.0f);
      std::vector<std::size_t> train_rows(train.y.size()), test_rows(n);
      std::iota(train_rows.begin(), train_rows.end(), 0);
      std::iota(test_rows.begin(), test_rows.end(), train.y.size());
      auto options = boost;
      options.objective = "reg:squarederror";
      pred =
          stats::fit_predict_boosted(stats::BoostData(all), labels, options, train_rows, test_rows)
              .predictions;
    } else {
      pred = linear_prediction(train.x, train.y, test.x);
    }
    const double mean = std::accumulate(test.y.begin(), test.y.end(), 0.0) / static_cast<double>(n);
    double sse = 0.0, sst = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      sse += (test.y[i] - pred[i]) * (test.y[i] - pred[i]);
      sst += (test.y[i] - mean) * (test.y[i] - mean);
    }
    s.rmse = std::sqrt(sse / static_cast<double>(n));
    s.r2 = sst > 0 ? 1.0 - sse / sst : std::nan("");
    return s;
  }
  const std::size_t k = p.classes.size();
  const auto prob = class_probabilities(p, train, test, boost, s.notes);
  std::size_t correct = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t best = 0;
    if (k == 2) {
      best = prob[i * 2 + 1] > 0.5 ? 1 : 0;  // sklearn's predict: positive when p > 1/2
    } else {
      for (std::size_t c = 1; c < k; ++c)
        if (prob[i * k + c] > prob[i * k + best]) best = c;
    }
    correct += static_cast<double>(best) == test.y[i];
  }
  s.accuracy = static_cast<double>(correct) / static_cast<double>(n);
  // AUC per class against the rest; binary: the positive class only. Classes the holdout lacks
  // (or has only) are left out of the macro average: their AUC is undefined.
  std::vector<double> aucs;
  for (std::size_t c = (k == 2 ? 1 : 0); c < k; ++c) {
    std::vector<double> scores(n);
    std::vector<std::uint8_t> positive(n);
    for (std::size_t i = 0; i < n; ++i) {
      scores[i] = prob[i * k + c];
      positive[i] = test.y[i] == static_cast<double>(c);
    }
    const double auc = stats::roc_auc(scores, positive);
    if (!std::isnan(auc)) aucs.push_back(auc);
  }
  if (!aucs.empty())
    s.auc = std::accumulate(aucs.begin(), aucs.end(), 0.0) / static_cast<double>(aucs.size());
  return s;
}

Model parse_model(const std::string& name, const Column& target) {
  if (name == "logistic") return Model::kLogistic;
  if (name == "linear") return Model::kLinear;
  if (name == "boosted_trees") return Model::kBoostedTrees;
  return target.is_categorical() ? Model::kLogistic : Model::kLinear;  // auto
}

Problem set_up(const MetricInput& in, const Params& params, const std::string& target_name) {
  const Table& conf = in.confidential;
  Problem p;
  p.target = stats::resolve_column(conf, target_name, std::string("parameter target of ") + kName);
  const Column& target = conf.column(p.target);
  const auto& predictor_names = params.get_string_list("predictors");
  if (predictor_names.empty()) {
    for (std::size_t c = 0; c < conf.column_count(); ++c)
      if (c != p.target && !is_design_column(in, c)) p.predictors.push_back(c);
  } else {
    p.predictors = stats::resolve_columns(conf, predictor_names,
                                          std::string("parameter predictors of ") + kName);
    for (const std::size_t c : p.predictors)
      if (c == p.target)
        throw InputError(std::string("parameter predictors of ") + kName + ": '" + target_name +
                         "' is the target");
  }
  if (p.predictors.empty())
    throw MetricNotApplicable(std::string(kName) + ": no predictor column besides the target");
  p.model = parse_model(params.get_string("model"), target);

  if (target.is_categorical()) {
    if (p.model == Model::kLinear)
      throw InputError(std::string("parameter model of ") + kName +
                       ": linear needs a numeric target, and '" + target_name +
                       "' is categorical (use logistic or boosted_trees)");
    std::vector<bool> present(target.cardinality(), false);
    for (std::size_t i = 0; i < conf.rows(); ++i)
      if (!target.missing(i)) present[target.codes[i]] = true;
    for (std::uint32_t code = 0; code < present.size(); ++code)
      if (present[code]) {
        p.classes.push_back(code);
        p.class_names.push_back(target.dictionary->level(code));
      }
    p.task = p.classes.size() == 2 ? Task::kBinary : Task::kMulticlass;
  } else if (p.model == Model::kLogistic) {
    for (std::size_t i = 0; i < conf.rows(); ++i)
      if (!target.missing(i) && target.numeric[i] != 0.0 && target.numeric[i] != 1.0)
        throw InputError(std::string("parameter model of ") + kName +
                         ": logistic needs a categorical or 0/1 target, and '" + target_name +
                         "' has the value " + format_number(target.numeric[i]) + " (row " +
                         std::to_string(i + 1) + " of the confidential data)");
    p.classes = {0.0, 1.0};
    p.class_names = {"0", "1"};
    p.task = Task::kBinary;
  } else {
    p.task = Task::kRegression;
  }
  if (p.task != Task::kRegression && p.classes.size() < 2)
    throw MetricNotApplicable(std::string(kName) + ": the target '" + target_name +
                              "' has fewer than two classes in the confidential data");

  if (p.model != Model::kBoostedTrees) {
    // The layout codes the predictors only: the target is read from its column (a multiclass
    // target has no numeric coding a formula response could carry), so a constant stands in for
    // the response the layout requires.
    std::string formula = "I(0) ~ ";
    for (std::size_t k = 0; k < p.predictors.size(); ++k)
      formula += (k ? " + `" : "`") + conf.column(p.predictors[k]).name + "`";
    // Factor levels are those of the confidential records that have the target.
    const auto target_of = target_values(p, conf);
    std::vector<std::size_t> with_target;
    for (std::size_t i = 0; i < conf.rows(); ++i)
      if (!std::isnan(target_of[i])) with_target.push_back(i);
    p.layout = std::make_unique<stats::ModelLayout>(
        stats::parse_formula(formula, in.context.limits),
        select_rows(conf, with_target, conf.source()), stats::ResponseKind::kNumeric);
  }
  return p;
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// One target's scores, with `scope` on every value ("all" for the target parameter, the
// target's name for a declared one).
MetricResult score_target(const MetricInput& in, const Params& params,
                          const std::string& target_name, const std::string& scope) {
  MetricResult result;
  const Problem p = set_up(in, params, target_name);
  stats::BoostOptions boost;
  boost.rounds = static_cast<int>(params.get_int("rounds"));
  boost.max_depth = static_cast<int>(params.get_int("max_depth"));
  boost.eta = params.get_double("eta");
  boost.threads = static_cast<int>(params.get_int("xgboost_threads"));
  boost.seed = in.seed;

  const Records test = prepare_records(p, *in.holdout);
  if (test.y.size() < 2)
    throw MetricNotApplicable(std::string(kName) +
                              ": fewer than two holdout records have the "
                              "target and every predictor");
  const Records real_train = prepare_records(p, in.confidential);
  if (real_train.y.empty())
    throw MetricNotApplicable(std::string(kName) +
                              ": no confidential record has the target and every predictor");
  const Scores real = score(p, real_train, test, boost);
  // One warning per distinct message (the one-vs-rest fits can repeat one).
  auto warn = [&result](const std::string& message) {
    if (std::find(result.warnings.begin(), result.warnings.end(), message) == result.warnings.end())
      result.warnings.push_back(message);
  };
  for (const auto& note : real.notes) warn("confidential data: " + note);

  std::vector<Scores> synthetic;
  for (std::size_t r = 0; r < in.synthetic.size(); ++r) {
    const Records train = prepare_records(p, *in.synthetic[r]);
    const std::string where = "synthetic replicate " + std::to_string(r + 1);
    if (train.y.empty())
      throw MetricNotApplicable(std::string(kName) + ": no record of " + where +
                                " has the target and every predictor");
    if (p.task != Task::kRegression) {
      std::vector<bool> seen(p.classes.size(), false);
      for (const double y : train.y) seen[static_cast<std::size_t>(y)] = true;
      for (std::size_t c = 0; c < seen.size(); ++c)
        if (!seen[c])
          result.warnings.push_back(where + " has no record of class '" + p.class_names[c] +
                                    "': its model never predicts it");
    }
    synthetic.push_back(score(p, train, test, boost));
    for (const auto& note : synthetic.back().notes) warn(where + ": " + note);
  }

  auto report = [&](const std::string& measure, double real_value, auto member) {
    std::vector<double> values;
    for (const auto& s : synthetic) values.push_back(s.*member);
    result.add(measure + "_real", scope, real_value);
    result.add(measure + "_synthetic", scope, mean_of(values));
    result.add(measure + "_synthetic_min", scope, *std::min_element(values.begin(), values.end()));
    result.add(measure + "_synthetic_max", scope, *std::max_element(values.begin(), values.end()));
    const double ratio = mean_of(values) / real_value;
    result.add(measure + "_ratio", scope, ratio);
    return ratio;
  };
  double headline = std::nan("");
  if (p.task == Task::kRegression) {
    report("rmse", real.rmse, &Scores::rmse);
    headline = report("r2", real.r2, &Scores::r2);
    if (!(real.r2 > 0)) {
      result.warnings.push_back(
          "the confidential-trained model explains nothing of the holdout's target (R² = " +
          format_number(real.r2) + "): there is no utility to compare, efficacy_ratio is NA");
      headline = std::nan("");
    }
  } else {
    headline = report("auc", real.auc, &Scores::auc);
    report("accuracy", real.accuracy, &Scores::accuracy);
  }
  result.add("efficacy_ratio", scope, headline);
  result.add("holdout_records", scope, static_cast<double>(test.y.size()));

  const char* model_names[] = {"logistic", "linear", "boosted_trees"};
  const char* task_names[] = {"binary", "multiclass", "regression"};
  nlohmann::json replicates = nlohmann::json::array();
  for (const auto& s : synthetic)
    replicates.push_back(p.task == Task::kRegression
                             ? nlohmann::json{{"rmse", s.rmse}, {"r2", s.r2}}
                             : nlohmann::json{{"auc", s.auc}, {"accuracy", s.accuracy}});
  result.details["tstr"] = {{"target", in.confidential.column(p.target).name},
                            {"task", task_names[static_cast<int>(p.task)]},
                            {"model", model_names[static_cast<int>(p.model)]},
                            {"replicates", replicates}};
  if (p.model == Model::kBoostedTrees)
    result.details["tstr"]["xgboost_version"] = stats::xgboost_version();
  const std::string of_target = scope == "all" ? "" : " (target " + target_name + ")";
  if (p.task != Task::kRegression) {
    auto bars = make_plot("bars", "Holdout AUC of the model trained on each dataset" + of_target,
                          "dataset", "AUC");
    bars["data"].push_back(
        {{"level", "confidential"}, {"dataset", "confidential"}, {"share", real.auc}});
    for (std::size_t r = 0; r < synthetic.size(); ++r)
      bars["data"].push_back({{"level", "synthetic " + std::to_string(r + 1)},
                              {"dataset", "synthetic"},
                              {"share", synthetic[r].auc}});
    result.details["plots"].push_back(bars);
  } else {
    auto bars = make_plot("bars", "Holdout R² of the model trained on each dataset" + of_target,
                          "dataset", "R²");
    bars["data"].push_back(
        {{"level", "confidential"}, {"dataset", "confidential"}, {"share", real.r2}});
    for (std::size_t r = 0; r < synthetic.size(); ++r)
      bars["data"].push_back({{"level", "synthetic " + std::to_string(r + 1)},
                              {"dataset", "synthetic"},
                              {"share", synthetic[r].r2}});
    result.details["plots"].push_back(bars);
  }
  return result;
}

// The columns to predict when no target parameter is given: the disclosure scenarios' targets,
// then the responses of the declared model analyses (a column, or factor(column); a transformed
// response such as log(income) is a different task and is left out), each once.
std::vector<std::string> declared_targets(const MetricInput& in) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (name.empty() || std::find(out.begin(), out.end(), name) != out.end()) return;
    const auto index = in.confidential.find(name);
    if (index && !is_design_column(in, *index)) out.push_back(name);
  };
  for (const auto& scenario : in.context.scenarios)
    for (const auto& target : scenario.targets) add(target);
  for (const auto& analysis : in.context.analyses) {
    if (analysis.formula.empty()) continue;
    const stats::Formula formula = stats::parse_formula(analysis.formula, in.context.limits);
    if (!formula.has_response) continue;
    const stats::Expr& response = formula.response;
    add(response.kind == stats::Expr::Kind::kColumn ? response.name : response.factor_column());
  }
  return out;
}

MetricResult compute(const MetricInput& in, const Params& params) {
  if (in.holdout == nullptr)
    throw MetricNotApplicable(std::string(kName) +
                              " needs a holdout file: models are scored on real records neither "
                              "model was fitted on");
  // Machine-learning efficacy is a property of the records as released, so the models are
  // fitted and scored on rows alike; weighted fits and population-weighted scores are not done.
  const std::string unweighted =
      in.context.weights.empty()
          ? std::string()
          : std::string(kName) + " ignores the survey weights (column '" + in.context.weights +
                "'): every model is fitted and scored with the rows weighted alike, so the "
                "scores describe the sample, not the population; the weight column is not a "
                "predictor";
  if (const std::string& target = params.get_string("target"); !target.empty()) {
    MetricResult result = score_target(in, params, target, "all");
    if (!unweighted.empty()) result.warnings.insert(result.warnings.begin(), unweighted);
    return result;
  }
  const std::vector<std::string> targets = declared_targets(in);
  // Not an error: every evaluation runs the specific family, and many declare no target.
  if (targets.empty())
    throw MetricNotApplicable(std::string(kName) +
                              ": no target (give the parameter target, or declare disclosure "
                              "targets or model analyses whose response is a column)");
  MetricResult result;
  if (!unweighted.empty()) result.warnings.push_back(unweighted);
  result.details["tstr"] = {{"targets", nlohmann::json::array()},
                            {"headline",
                             "efficacy_ratio [all] is the ratio farthest from 1 over the "
                             "targets, each target's scores scoped by its name"}};
  result.details["plots"] = nlohmann::json::array();
  std::vector<std::string> not_scored;
  double worst = std::nan("");
  for (const auto& target : targets) {
    MetricResult one;
    // A declared target the models cannot take (too few records, one class) is said and left
    // out; the others are still scored.
    try {
      one = score_target(in, params, target, target);
    } catch (const MetricNotApplicable& e) {
      not_scored.push_back(target + ": " + e.what());
      continue;
    } catch (const InputError& e) {
      not_scored.push_back(target + ": " + e.what());
      continue;
    }
    for (auto& v : one.values) {
      if (v.statistic == "efficacy_ratio" && std::isfinite(v.value) &&
          !(std::fabs(worst - 1.0) >= std::fabs(v.value - 1.0)))
        worst = v.value;
      result.values.push_back(std::move(v));
    }
    for (auto& w : one.warnings) result.warnings.push_back("target " + target + ": " + w);
    result.details["tstr"]["targets"].push_back(one.details["tstr"]);
    for (auto& plot : one.details["plots"]) result.details["plots"].push_back(std::move(plot));
  }
  if (not_scored.size() == targets.size())
    throw MetricNotApplicable(std::string(kName) + ": no declared target could be scored (" +
                              join(not_scored, "; ") + ")");
  for (const auto& reason : not_scored) result.warnings.push_back("not scored: " + reason);
  result.add("efficacy_ratio", "all", worst);
  return result;
}

std::vector<StatisticSpec> statistics() {
  std::vector<StatisticSpec> out;
  const struct {
    const char* name;
    const char* what;
    Ideal ideal;
  } measures[] = {
      {"auc", "holdout AUC (binary target; multiclass: macro average of one-vs-rest AUCs)",
       Ideal::higher()},
      {"accuracy", "holdout accuracy (share of holdout records whose class is predicted correctly)",
       Ideal::higher()},
      {"rmse", "holdout root mean squared error (numeric target)", Ideal::lower()},
      {"r2", "holdout R² = 1 − SSE/SST around the holdout mean (numeric target)", Ideal::higher()},
  };
  for (const auto& m : measures) {
    const std::string name = m.name;
    out.push_back({name + "_real",
                   std::string(m.what) + " of the model fitted on the confidential "
                                         "data: the reference",
                   std::nullopt});
    out.push_back({name + "_synthetic",
                   std::string(m.what) + " of the model fitted on a synthetic replicate, mean "
                                         "over replicates",
                   m.ideal});
    out.push_back(
        {name + "_synthetic_min", "the lowest " + name + "_synthetic of the replicates", m.ideal});
    out.push_back(
        {name + "_synthetic_max", "the highest " + name + "_synthetic of the replicates", m.ideal});
    out.push_back(
        {name + "_ratio",
         name + "_synthetic / " + name + "_real: 1 = as good as training on the real data",
         Ideal::at(1.0)});
  }
  out.push_back({"efficacy_ratio",
                 "the headline ratio: auc_ratio for a categorical or 0/1 target, r2_ratio for a "
                 "numeric one (NA when the confidential-trained R² is not positive)",
                 Ideal::at(1.0)});
  out.push_back({"holdout_records",
                 "holdout records scored (with the target and every predictor)",
                 std::nullopt,
                 {ScopeKind::kAll},
                 OutputClass::kCount});
  // Without the target parameter each declared target's scores are scoped by its name.
  for (auto& statistic : out) statistic.scopes = {ScopeKind::kAll, ScopeKind::kColumn};
  return out;
}

}  // namespace

MetricSpec train_synthetic_test_real_metric() {
  std::vector<ParamSpec> params = {
      {.name = "target",
       .type = ParamType::kString,
       .default_value = std::string(),
       .doc = "the column to predict; empty = each disclosure target and each model analysis's "
              "response (a column or factor(column)), scored in turn (skipped when there is "
              "none)"},
      {.name = "predictors",
       .type = ParamType::kStringList,
       .default_value = std::vector<std::string>{},
       .doc = "the columns to predict it from; empty = every other column except the survey "
              "design columns (weights, household)",
       .names_columns = true},
      {.name = "model",
       .type = ParamType::kString,
       .default_value = std::string("auto"),
       .doc = "logistic (categorical or 0/1 target), linear (numeric target), boosted_trees "
              "(either); auto = logistic for a categorical target, linear for a numeric one",
       .choices = {"auto", "logistic", "linear", "boosted_trees"}},
      {.name = "rounds",
       .type = ParamType::kInt,
       .default_value = std::int64_t{100},
       .doc = "boosted_trees: boosting rounds",
       .min = 1,
       .max = 10000},
      {.name = "max_depth",
       .type = ParamType::kInt,
       .default_value = std::int64_t{6},
       .doc = "boosted_trees: depth of each tree",
       .min = 1,
       .max = 20},
      {.name = "eta",
       .type = ParamType::kDouble,
       .default_value = 0.3,
       .doc = "boosted_trees: learning rate",
       .min = 1e-4,
       .max = 1.0},
      {.name = "xgboost_threads",
       .type = ParamType::kInt,
       .default_value = std::int64_t{4},
       .doc = "boosted_trees: threads xgboost uses (fixed here, not taken from --threads, so "
              "results do not depend on the machine)",
       .min = 1,
       .max = 256},
  };
  return MetricSpec{
      .name = kName,
      .family = MetricFamily::kSpecific,
      .summary =
          "Train on synthetic, test on real: does a model fitted on the synthetic data "
          "predict real records as well as one fitted on the confidential data?",
      .doc =
          "Machine-learning efficacy (TSTR, train on synthetic and test on real, Esteban, Hyland "
          "and Rätsch 2017). For the column `target` (or, without it, for each declared target: "
          "the disclosure scenarios' targets, then the responses of the model analyses that are "
          "a column or factor(column), each scored in turn with its name as the scope, and "
          "efficacy_ratio [all] the ratio farthest from 1 over them; a target the models cannot "
          "take is left out with a warning), the same model is fitted on each synthetic "
          "replicate and on the confidential data, and both are scored on the holdout, real "
          "records neither was fitted on (the metric needs a holdout: a split of the confidential "
          "data would score the reference on records from the same file the synthesiser saw, "
          "and is not offered). Models (`model`): `logistic` — maximum likelihood without "
          "penalty (IRLS to a relative deviance change of 1e-12), binary for a two-class or 0/1 "
          "target, one-vs-rest for more classes (one fit per class, a record's probabilities "
          "divided by their sum, as scikit-learn's multi_class = \"ovr\"); `linear` — least "
          "squares; both on the predictors as R's model.matrix codes them (numeric columns as "
          "they are, categorical ones as treatment dummies against their first level in the "
          "confidential data, an intercept), records with a missing value in the target or a "
          "predictor, or a level the confidential data lack, left out; a column aliased on "
          "earlier ones gets coefficient 0. `boosted_trees` — libxgboost (hist, binary:logistic, "
          "multi:softprob or reg:squarederror by the target, `rounds`, `max_depth`, `eta`, seed "
          "from the evaluation seed, `xgboost_threads` fixed so results do not depend on the "
          "machine); categorical predictors enter as their level codes and missing predictor "
          "values are routed by xgboost, so only records without the target are left out. "
          "Scores on the holdout: categorical or 0/1 target — AUC (binary: of the probability of "
          "the second class, sorted order; more classes: the unweighted mean over classes of the "
          "one-vs-rest AUC of the class's probability, scikit-learn's roc_auc_score with "
          "multi_class = \"ovr\", average = \"macro\"; a class the holdout lacks is left out) and "
          "accuracy (binary: positive when p > 0.5; more classes: the most probable class); "
          "numeric target — RMSE and R² = 1 − SSE/SST around the holdout mean. Each score is "
          "reported for the confidential-trained model (_real, the reference: what the real data "
          "achieve with this model and this holdout), the mean over the m replicates (_synthetic) "
          "with its range (_synthetic_min, _synthetic_max), and the ratio synthetic / real "
          "(_ratio). Headline: efficacy_ratio (auc_ratio, or r2_ratio for a numeric target), "
          "ideal 1 = a model trained on the synthetic data predicts real records as well as one "
          "trained on the real data. Below 1 is lost utility; above 1 by more than sampling noise "
          "means the synthetic data make the task look easier than it is, also a departure from "
          "the real relationships, so distance from 1 is what is ranked. The resample baseline "
          "(models trained on resamples of the confidential data) shows how far from 1 sampling "
          "noise alone puts the ratio. A class a replicate lacks is never predicted by its model "
          "(warning); a training set with one class predicts it with certainty. Differs from "
          "SDMetrics' ML-efficacy metrics, which test on the whole real table and use their own "
          "preprocessing and F1; no parity with them is claimed. Survey weights (weights: "
          "declared) are not used: the models are fitted and scored unweighted, so the scores "
          "describe the sample rather than the population (a warning says so), and the weight "
          "and household columns are never predictors.",
      .params = std::move(params),
      .granularity = MetricGranularity::kPerCandidate,
      .needs_holdout = true,
      .headlines = {{.statistic = "efficacy_ratio",
                     .ideal = Ideal::at(1.0),
                     .reading = "holdout score of a model trained on the synthetic data, relative "
                                "to the same model trained on the confidential data (1 = as good)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute,
      .statistics = statistics(),
      .references = {references::cite(references::esteban_hyland_raetsch_2017(),
                                      "train on synthetic, test on real (TSTR)"),
                     references::cite(references::scikit_learn_2011(),
                                      "logistic and linear scores reproduced (roc_auc_score, "
                                      "accuracy_score, r2_score, mean_squared_error)"),
                     references::cite(references::chen_guestrin_2016(),
                                      "gradient-boosted trees (libxgboost through its C API)")},
      .aggregate_details = {"tstr"},
  };
}

}  // namespace synthaudit
