// Classifier attribute attack with k nearest neighbours (Hittmeir, Mayer & Ekelhart 2020): the
// intruder trains on the synthetic data (keys -> target) and predicts each confidential record's
// target; the same attack trained on the confidential data (leave-one-out) is the baseline.
#include <algorithm>
#include <cmath>
#include <deque>

#include "core/error.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/column_lookup.hpp"
#include "stats/nearest_neighbours.hpp"

namespace synthaudit {

namespace {

// The key columns of `table`, restricted to `rows` (all rows when empty).
Table key_table(const Table& table, const std::vector<std::size_t>& keys,
                const std::vector<std::uint32_t>* rows) {
  std::vector<Column> cols;
  for (auto k : keys) {
    const Column& src = table.column(k);
    Column c;
    c.name = src.name;
    c.kind = src.kind;
    c.dictionary = src.dictionary;
    if (rows == nullptr) {
      c.numeric = src.numeric;
      c.codes = src.codes;
    } else {
      for (auto r : *rows) {
        if (src.is_numeric()) {
          c.numeric.push_back(src.numeric[r]);
        } else {
          c.codes.push_back(src.codes[r]);
        }
      }
    }
    cols.push_back(std::move(c));
  }
  return Table(table.source(), std::move(cols));
}

std::vector<std::uint32_t> rows_with_target(const Column& target) {
  std::vector<std::uint32_t> rows;
  for (std::size_t i = 0; i < target.size(); ++i)
    if (!target.missing(i)) rows.push_back(static_cast<std::uint32_t>(i));
  return rows;
}

// Prediction from neighbour rows (indices into the training table's original rows).
double predict(const Column& target, const std::vector<std::uint32_t>& neighbours) {
  if (neighbours.empty()) return NAN;
  if (target.is_numeric()) {
    double s = 0.0;
    for (auto r : neighbours) s += target.numeric[r];
    return s / static_cast<double>(neighbours.size());
  }
  // Majority vote; ties go to the smallest code (= first level in sorted order, as sklearn).
  std::vector<std::uint32_t> codes;
  for (auto r : neighbours) codes.push_back(target.codes[r]);
  std::sort(codes.begin(), codes.end());
  std::uint32_t best = codes[0];
  std::size_t best_count = 0;
  for (std::size_t i = 0; i < codes.size();) {
    std::size_t e = i;
    while (e < codes.size() && codes[e] == codes[i]) ++e;
    if (e - i > best_count) {
      best_count = e - i;
      best = codes[i];
    }
    i = e;
  }
  return static_cast<double>(best);
}

MetricResult compute_attack(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const auto k = static_cast<std::size_t>(params.get_int("k"));
  if (in.context.scenarios.empty())
    throw MetricNotApplicable("no disclosure scenario (keys, targets)");
  result.details["plots"] = nlohmann::json::array();
  for (const auto& scenario : in.context.scenarios) {
    const auto keys = stats::resolve_columns(conf, scenario.keys, "disclosure key");
    if (keys.empty()) throw InputError("knn_attribute_attack: a scenario has no key columns");
    // Targets of one scenario whose records with a value are the same rows (every target without
    // missing values) need the same two searches: each runs once per distinct row set, with the
    // same k, so the result is what a search per target gives.
    const Table queries = key_table(conf, keys, nullptr);
    // A deque: a reference to a stored search stays valid while others are added.
    std::deque<std::pair<std::vector<std::uint32_t>, stats::Neighbours>> syn_searches,
        conf_searches;
    auto search = [&](auto& done, const Table& table, const std::vector<std::uint32_t>& rows,
                      std::size_t neighbours, const std::string& task) -> const stats::Neighbours& {
      for (const auto& [searched_rows, found] : done)
        if (searched_rows == rows) return found;
      stats::NeighbourOptions opt;  // Gower on the keys, ranges from the training table
      opt.k = neighbours;
      opt.progress = in.progress;
      opt.progress_task = task;
      done.emplace_back(rows,
                        stats::nearest_neighbours(queries, key_table(table, keys, &rows), opt));
      return done.back().second;
    };
    for (const auto& target_name : scenario.targets) {
      const std::size_t t = stats::resolve_column(conf, target_name, "disclosure target");
      if (std::find(keys.begin(), keys.end(), t) != keys.end())
        throw InputError("knn_attribute_attack: target '" + target_name + "' is also a key");
      std::string scope = "keys=";
      for (std::size_t i = 0; i < scenario.keys.size(); ++i)
        scope += (i ? "," : "") + scenario.keys[i];
      scope += ";target=" + target_name;
      const Column& ytrue = conf.column(t);
      const Column& ysyn = syn.column(t);
      const auto syn_rows = rows_with_target(ysyn);
      const auto conf_rows = rows_with_target(ytrue);
      if (syn_rows.empty() || conf_rows.size() < 2) {
        result.warnings.push_back(scope + ": too few records with the target to attack");
        continue;
      }
      const stats::Neighbours& from_syn = search(
          syn_searches, syn, syn_rows, k, "knn_attribute_attack " + scope + ": to synthetic");
      const stats::Neighbours& from_conf =
          search(conf_searches, conf, conf_rows, k + 1,
                 "knn_attribute_attack " + scope + ": to confidential (leave one out)");

      std::vector<double> err_s, err_c;  // numeric: absolute errors; categorical: 0 right, 1 wrong
      double se_s = 0, se_c = 0, rel_s = 0, rel_c = 0;
      std::size_t rel_n = 0, less = 0, n = 0;
      for (std::uint32_t i : conf_rows) {
        std::vector<std::uint32_t> ns, nc;
        for (std::size_t r = 0; r < k; ++r)
          if (from_syn.idx(i, r) != stats::kNoNeighbour) ns.push_back(syn_rows[from_syn.idx(i, r)]);
        for (std::size_t r = 0; r <= k; ++r) {
          const auto j = from_conf.idx(i, r);
          if (j == stats::kNoNeighbour || conf_rows[j] == i) continue;  // leave the record out
          if (nc.size() < k) nc.push_back(conf_rows[j]);
        }
        const double ps = predict(ysyn, ns), pc = predict(ytrue, nc);
        ++n;
        if (ytrue.is_numeric()) {
          const double y = ytrue.numeric[i];
          const double es = std::fabs(ps - y), ec = std::fabs(pc - y);
          se_s += es * es;
          se_c += ec * ec;
          if (y != 0.0) {
            rel_s += es / std::fabs(y);
            rel_c += ec / std::fabs(y);
            ++rel_n;
          }
          less += es > ec;
          err_s.push_back(y != 0.0 ? es / std::fabs(y) : NAN);
          err_c.push_back(y != 0.0 ? ec / std::fabs(y) : NAN);
        } else {
          const double y = static_cast<double>(ytrue.codes[i]);
          const double ws = ps != y, wc = pc != y;
          err_s.push_back(ws);
          err_c.push_back(wc);
          less += ws > wc;
        }
      }
      const double dn = static_cast<double>(n);
      if (ytrue.is_numeric()) {
        result.add("mse_synthetic", scope, se_s / dn);
        result.add("mse_confidential", scope, se_c / dn);
        result.add("mean_relative_abs_error_synthetic", scope, rel_n ? rel_s / double(rel_n) : NAN);
        result.add("mean_relative_abs_error_confidential", scope,
                   rel_n ? rel_c / double(rel_n) : NAN);
        auto plot =
            make_plot("scatter", "Record-level relative absolute error of the kNN attack",
                      "trained on confidential (leave-one-out)", "trained on synthetic", scope);
        const std::size_t step = std::max<std::size_t>(1, err_s.size() / 2000);
        for (std::size_t i = 0; i < err_s.size(); i += step)
          if (std::isfinite(err_s[i]) && std::isfinite(err_c[i]))
            plot["data"].push_back({{"x", err_c[i]}, {"y", err_s[i]}});
        result.details["plots"].push_back(plot);
      } else {
        double right_s = 0, right_c = 0;
        for (std::size_t i = 0; i < err_s.size(); ++i) {
          right_s += 1.0 - err_s[i];
          right_c += 1.0 - err_c[i];
        }
        result.add("accuracy_synthetic", scope, right_s / dn);
        result.add("accuracy_confidential", scope, right_c / dn);
      }
      result.add_share("share_less_accurate_from_synthetic", scope, static_cast<double>(less), dn);
      result.add("records_attacked", scope, dn);
    }
  }
  return result;
}

}  // namespace

MetricSpec knn_attribute_attack_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "knn_attribute_attack",
      .family = MetricFamily::kDistanceDisclosure,
      .summary =
          "Attribute attack: a k-nearest-neighbour model trained on the synthetic data "
          "predicts each confidential record's target from its keys",
      .doc =
          "For each scenario (keys, targets) and target: the intruder fits kNN (k = 3 by "
          "default, Gower distance on the keys with ranges from the training data, ties by the "
          "lowest row) on the synthetic records whose target is present and predicts every "
          "confidential record with a target: the mean of the k neighbours' targets (numeric) "
          "or their majority level (categorical; ties to the first level). Numeric: "
          "mse_synthetic = mean (ŷ − y)², mean_relative_abs_error_synthetic = mean |ŷ − y|/|y| "
          "(records with y = 0 left out). Categorical: accuracy_synthetic. Baseline: the same "
          "attack trained on the confidential data, leaving the record itself out "
          "(mse_confidential, accuracy_confidential, ...). share_less_accurate_from_synthetic = "
          "share of records predicted less accurately from the synthetic data than from the "
          "confidential data (larger absolute error; categorical: wrong from synthetic, right "
          "from confidential); a high share and synthetic errors well above the baseline mean "
          "low risk.",
      .params = {{.name = "k",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{3},
                  .doc = "neighbours",
                  .min = 1,
                  .max = 100}},
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .compute = compute_attack,
      .statistics =
          {{"{mse_synthetic|mean_relative_abs_error_synthetic}",
            "error of a numeric target predicted from the synthetic data (larger is safer)",
            Ideal::higher(),
            {kScenario}},
           {"accuracy_synthetic",
            "share of categorical targets predicted correctly from the synthetic data",
            Ideal::lower(),
            {kScenario}},
           {"{mse_confidential|mean_relative_abs_error_confidential|accuracy_confidential}",
            "the same attack trained on the confidential data leaving the record out: the baseline",
            std::nullopt,
            {kScenario}},
           {"share_less_accurate_from_synthetic",
            "share of records predicted less accurately from the synthetic than from the "
            "confidential data",
            Ideal::higher(),
            {kScenario}},
           {"records_attacked", "confidential records with a target", std::nullopt, {kScenario}}},
      .references = {cite(hittmeir_2020(),
                          "attribute attack trained on the synthetic data against a baseline "
                          "trained on the original"),
                     cite(choi_2017(), "classification-based attribute disclosure"),
                     cite(gower_1971(), "the Gower distance"),
                     cite(scikit_learn_2011(),
                          "KNeighborsRegressor and KNeighborsClassifier, reproduced")},
  };
}

}  // namespace synthaudit
