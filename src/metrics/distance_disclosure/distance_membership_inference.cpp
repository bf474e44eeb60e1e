// Membership inference by distance to the synthetic data (Urban Institute syntheval's
// disc_mit), exact on the full data.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "metrics/distance_disclosure/distance_params.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/membership_audit.hpp"
#include "stats/nearest_neighbours.hpp"
#include "stats/neighbour_cache.hpp"
#include "stats/quantile.hpp"
#include "stats/roc.hpp"

namespace synthaudit {

namespace {

struct Confusion {
  std::size_t tp = 0, fp = 0, tn = 0, fn = 0;
};

Confusion confusion(const std::vector<double>& d, const std::vector<std::uint8_t>& member,
                    double threshold) {
  Confusion c;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const bool called = d[i] <= threshold;
    if (member[i]) {
      (called ? c.tp : c.fn) += 1;
    } else {
      (called ? c.fp : c.tn) += 1;
    }
  }
  return c;
}

double ratio(std::size_t a, std::size_t b) {
  return b == 0 ? NAN : static_cast<double>(a) / static_cast<double>(b);
}

MetricResult compute_mia(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (in.holdout == nullptr) throw MetricNotApplicable("membership inference needs a holdout");
  const Table& hold = *in.holdout;
  if (conf.rows() == 0 || hold.rows() == 0 || syn.rows() == 0)
    throw MetricNotApplicable(
        "membership inference needs rows in the confidential, holdout and synthetic data");
  stats::NeighbourOptions opt = distance_metrics::neighbour_options(conf, params);
  opt.k = 1;
  opt.progress = in.progress;
  opt.progress_task = "distance_membership_inference: confidential to synthetic";
  const auto to_training = stats::search_neighbours(in.neighbours, conf, syn, opt);
  opt.progress_task = "distance_membership_inference: holdout to synthetic";
  const auto to_holdout = stats::search_neighbours(in.neighbours, hold, syn, opt);
  distance_metrics::add_record_level(result, params, "conf_to_syn", to_training);
  distance_metrics::add_record_level(result, params, "holdout_to_syn", to_holdout);
  const auto dt = to_training.nearest();
  const auto dh = to_holdout.nearest();
  std::vector<double> d = dt;
  d.insert(d.end(), dh.begin(), dh.end());
  std::vector<std::uint8_t> member(dt.size(), 1);
  member.resize(d.size(), 0);

  // disc_mit's default rule: threshold = quantile (type 7) of all distances at the share of
  // training records among the attacked records.
  double p = params.get_double("threshold_percentile");
  if (std::isnan(p)) p = static_cast<double>(dt.size()) / static_cast<double>(d.size());
  std::vector<double> sorted = d;
  std::sort(sorted.begin(), sorted.end());
  const double threshold = stats::quantile_type7(sorted, p, stats::QuantileArithmetic::kNumpy);
  const Confusion c = confusion(d, member, threshold);
  result.add("threshold", "all", threshold);
  result.add("threshold_percentile", "all", p);
  result.add("tp", "all", static_cast<double>(c.tp));
  result.add("fp", "all", static_cast<double>(c.fp));
  result.add("tn", "all", static_cast<double>(c.tn));
  result.add("fn", "all", static_cast<double>(c.fn));
  result.add("precision", "all", ratio(c.tp, c.tp + c.fp));
  result.add("recall", "all", ratio(c.tp, c.tp + c.fn));
  result.add("accuracy", "all", ratio(c.tp + c.tn, d.size()));
  // A guess that calls everyone a member has precision = share of members.
  result.add("precision_baseline", "all", ratio(dt.size(), d.size()));
  // AUC of disc_mit's pseudo-probability 1 − d / max(d). Mathematically any decreasing function
  // of d gives the same AUC; in floating point this one can merge near-ties, so it is computed
  // exactly as disc_mit does (all distances 0: every score ties, AUC 0.5).
  double dmax = 0.0;
  for (double v : d) dmax = std::max(dmax, v);
  std::vector<double> score(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) score[i] = dmax > 0.0 ? 1.0 - d[i] / dmax : 1.0;
  result.add("auc", "all", stats::roc_auc(score, member));
  // The AUC's standard deviation when members and non-members are alike (the Mann–Whitney null,
  // ties ignored): the noise of the 0.5 baseline. Mann & Whitney (1947); Hanley & McNeil (1982).
  const double members = static_cast<double>(dt.size()), others = static_cast<double>(dh.size());
  result.add("auc_null_sd", "all", std::sqrt((members + others + 1.0) / (12.0 * members * others)));

  // The attack at low false-positive rates, on the distances themselves (−d: exact, unlike the
  // pseudo-probability above, which can merge near-ties).
  std::vector<double> closeness(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) closeness[i] = -d[i];
  stats::MembershipAuditOptions audit_options;
  audit_options.fpr_targets = {0.001, 0.01, 0.1};
  audit_options.delta = params.get_double("delta");
  audit_options.confidence = params.get_double("confidence");
  const auto audit = stats::audit_membership(closeness, member, audit_options);
  const char* const tpr_names[] = {"tpr_at_fpr_0.001", "tpr_at_fpr_0.01", "tpr_at_fpr_0.1"};
  for (std::size_t t = 0; t < audit_options.fpr_targets.size(); ++t) {
    result.add(tpr_names[t], "all", audit.tpr_at_fpr[t]);
    if (audit.first_threshold_above_target[t])
      result.warnings.push_back(
          std::string(tpr_names[t]) +
          " is 0 because the records at the smallest distance already include more than that "
          "share of the holdout (ties at the closest distance, often exact copies at distance 0); "
          "no threshold reaches so low a false-positive rate");
  }
  result.add("membership_advantage", "all", audit.advantage);
  result.add("epsilon_lower_bound", "all", audit.epsilon_lower_bound);

  // Threshold sweep: every distinct distance; ROC plot and a summarised table.
  auto plot = make_plot("roc", "Membership inference by distance to the synthetic data",
                        "false positive rate", "true positive rate");
  for (const auto& point : stats::roc_curve(score, member, 500))
    plot["data"].push_back({{"fpr", point.fpr}, {"tpr", point.tpr}});
  auto sweep = nlohmann::json::array();
  const auto points = static_cast<std::size_t>(params.get_int("sweep_points"));
  for (std::size_t s = 0; s < points; ++s) {
    const double q = points == 1 ? 0.5 : static_cast<double>(s) / static_cast<double>(points - 1);
    const double t = stats::quantile_type7(sorted, q, stats::QuantileArithmetic::kNumpy);
    const Confusion cs = confusion(d, member, t);
    const double prec = ratio(cs.tp, cs.tp + cs.fp), rec = ratio(cs.tp, cs.tp + cs.fn);
    sweep.push_back(
        {{"quantile", q},
         {"threshold", t},
         {"tp", cs.tp},
         {"fp", cs.fp},
         {"tn", cs.tn},
         {"fn", cs.fn},
         {"precision", std::isnan(prec) ? nlohmann::json(nullptr) : nlohmann::json(prec)},
         {"recall", std::isnan(rec) ? nlohmann::json(nullptr) : nlohmann::json(rec)}});
  }
  result.details["threshold_sweep"] = sweep;
  // The same curve on log-log axes, where the low false-positive rates are visible. Points with a
  // zero rate cannot be drawn on a log axis and are left out; the curve is kept whole (no
  // thinning) up to FPR 0.1 and thinned beyond.
  auto log_plot = make_plot("roc_log", "Membership inference at low false-positive rates",
                            "false positive rate (log)", "true positive rate (log)");
  const auto full = stats::roc_curve(closeness, member);
  std::vector<stats::RocPoint> low, high;
  for (const auto& point : full) {
    if (point.fpr <= 0.0 || point.tpr <= 0.0) continue;
    (point.fpr <= 0.1 ? low : high).push_back(point);
  }
  constexpr std::size_t kMaxLogPoints = 2000;
  auto keep = [&](const std::vector<stats::RocPoint>& points, std::size_t budget) {
    const std::size_t m = points.size();
    for (std::size_t k = 0; k < std::min(m, budget); ++k) {
      const auto& point = points[m <= budget ? k : k * (m - 1) / (budget - 1)];
      log_plot["data"].push_back({{"fpr", point.fpr}, {"tpr", point.tpr}});
    }
  };
  keep(low, kMaxLogPoints);
  keep(high, 200);
  result.details["plots"] = nlohmann::json::array({plot, log_plot});
  return result;
}

}  // namespace

MetricSpec distance_membership_inference_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "distance_membership_inference",
      .family = MetricFamily::kDistanceDisclosure,
      .summary =
          "Membership inference: are training records closer to the synthetic data than "
          "holdout records? (Urban syntheval disc_mit, exact)",
      .doc =
          "The attacker holds the confidential (training) records and the holdout records and "
          "calls a record a member when its distance to the closest synthetic record is at or "
          "below a threshold. Default threshold rule of syntheval's disc_mit: the quantile "
          "(type 7) of all attacked records' distances at n_train / (n_train + n_holdout) "
          "(parameter threshold_percentile overrides it). Reports tp, fp, tn, fn, precision, "
          "recall, accuracy at that threshold, precision_baseline (= n_train / (n_train + "
          "n_holdout), what guessing achieves) and the AUC over all thresholds (0.5 = no "
          "better than guessing; auc_null_sd, its Mann–Whitney standard deviation when members and "
          "non-members are alike, is the noise of that 0.5: Hanley & McNeil, 1982), computed like "
          "disc_mit (yardstick roc_auc_vec) on the "
          "pseudo-probability 1 − d/max d, ties counted ½; details.threshold_sweep gives the "
          "counts at "
          "sweep_points quantiles and the ROC plot data. Distance as in "
          "distance_to_closest_record (Gower by default, ranges from the confidential data; "
          "disc_mit uses R gower::gower_topn, whose ranges come from both tables and which "
          "skips missing values instead of counting them).\n\n"
          "At low false-positive rates (Carlini et al., 2022): tpr_at_fpr_0.001, "
          "tpr_at_fpr_0.01 and tpr_at_fpr_0.1 are read off the full ROC curve of the distances "
          "(score −d, one threshold per distinct distance) without interpolation: the largest TPR "
          "among the thresholds whose FPR does not exceed the target. When many records tie at "
          "the smallest distance (exact copies at distance 0), the first threshold already calls "
          "more holdout records than the target allows; then no threshold qualifies and the TPR is "
          "0, with a warning saying so. A holdout of n records resolves FPRs down to 1/n only. "
          "membership_advantage is max(TPR − FPR) over thresholds (Yeom et al., 2018). "
          "epsilon_lower_bound is the ε that no (ε, delta)-differentially private release could "
          "exceed given this attack: every threshold gives ε ≥ log((TPR_lo − δ)/FPR_hi) and ε ≥ "
          "log((1 − δ − FPR_hi)/(1 − TPR_lo)) (Kairouz et al., 2015), with TPR_lo and FPR_hi the "
          "two-sided Clopper–Pearson bounds at `confidence` on the counts, as in Jagielski et al. "
          "(2020) and Nasr et al. (2021); the largest over thresholds and both forms, 0 when "
          "none is positive. The default δ = 1e-5 is the value used for differentially private "
          "training in those audits, below 1/n for files up to 100,000 records; set delta below "
          "1/n for larger ones. The bound assumes the synthesis was released once: it says what "
          "the attack proves, not the ε of the synthesiser. The report draws the ROC curve on "
          "log-log axes as well.",
      .params = distance_metrics::selection_params(
          {{.name = "threshold_percentile",
            .type = ParamType::kDouble,
            .default_value = std::nan(""),
            .doc = "quantile of the distances used as threshold (unset/null = disc_mit's "
                   "n_train / (n_train + n_holdout))",
            .min = 0.0,
            .max = 1.0},
           {.name = "delta",
            .type = ParamType::kDouble,
            .default_value = 1e-5,
            .doc = "δ of the (ε, δ) whose ε epsilon_lower_bound bounds",
            .min = 0.0,
            .max = 0.1},
           {.name = "confidence",
            .type = ParamType::kDouble,
            .default_value = 0.95,
            .doc = "level of the two-sided Clopper–Pearson intervals on TPR and FPR behind "
                   "epsilon_lower_bound",
            .min = 0.5,
            .max = 0.9999},
           {.name = "sweep_points",
            .type = ParamType::kInt,
            .default_value = std::int64_t{21},
            .doc = "thresholds (distance quantiles) listed in details.threshold_sweep",
            .min = 1,
            .max = 1000}}),
      .granularity = MetricGranularity::kPerReplicate,
      .needs_holdout = true,
      .headlines =
          {{.statistic = "auc",
            .ideal = Ideal::at(0.5),
            .reading = "membership-inference AUC from distance to the synthetic data "
                       "(0.5 = attacker no better than guessing)",
            .axis = "risk",
            .baseline = Baseline::analytic(
                0.5, "auc_null_sd",
                "an attacker with no signal scores an AUC of 0.5; its spread is the Mann–Whitney "
                "null standard deviation for these numbers of members and non-members"),
            .unit = Unit::kNumber}},
      .compute = compute_mia,
      .statistics =
          {{"{threshold|threshold_percentile}",
            "the distance threshold and the quantile it was taken at",
            std::nullopt,
            {kAll}},
           {"{tp|fp|tn|fn}",
            "members and non-members called members or not at the threshold",
            std::nullopt,
            {kAll}},
           {"precision",
            "share of records called members that are members; compare with precision_baseline",
            Ideal::lower(),
            {kAll}},
           {"{recall|accuracy}",
            "recall and accuracy of the attack at the threshold",
            std::nullopt,
            {kAll}},
           {"precision_baseline",
            "n_train / (n_train + n_holdout): the precision of calling everyone a member",
            std::nullopt,
            {kAll}},
           {"auc",
            "AUC of the attack over all thresholds: 0.5 = guessing; far from 0.5 either way "
            "informs an attacker",
            Ideal::at(0.5),
            {kAll}},
           {"auc_null_sd",
            "the Mann–Whitney standard deviation of the AUC of an attacker with no signal, "
            "sqrt((m + n + 1) / (12 m n)) for m members and n non-members: the sampling noise of "
            "the AUC's baseline of 0.5",
            std::nullopt,
            {kAll}},
           {"{tpr_at_fpr_0.001|tpr_at_fpr_0.01|tpr_at_fpr_0.1}",
            "share of training records the attack finds while calling at most that share of the "
            "holdout records members (largest TPR with FPR at or below the target, no "
            "interpolation)",
            Ideal::lower(),
            {kAll}},
           {"membership_advantage",
            "max(TPR − FPR) over thresholds: 0 = the attack does no better than guessing",
            Ideal::lower(),
            {kAll}},
           {"epsilon_lower_bound",
            "the smallest ε an (ε, δ)-differentially private release would need to allow this "
            "attack at the stated confidence; 0 = no evidence against any ε",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(carlini_2022(), "TPR at low FPR from the ROC curve"),
                     cite(yeom_2018(), "membership advantage"),
                     cite(kairouz_oh_viswanath_2015(), "the two inequalities of (ε, δ)-DP tests"),
                     cite(jagielski_ullman_oprea_2020(),
                          "ε lower bound from Clopper–Pearson bounds on the attack's rates"),
                     cite(nasr_2021(), "ε lower bound from both error rates"),
                     cite(clopper_pearson_1934(), "the intervals on TPR and FPR"),
                     cite(mendelevitch_lesh_2021(),
                          "membership inference by distance to the synthetic data"),
                     cite(syntheval_software(), "disc_mit: threshold rule, counts and AUC"),
                     cite(gower_1971(), "the Gower distance")},
  };
}

}  // namespace synthaudit
