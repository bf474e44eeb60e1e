// Membership inference by distance to the synthetic data (Urban Institute syntheval's
// disc_mit), exact on the full data.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "metrics/distance_disclosure/distance_params.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
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
  result.details["plots"] = nlohmann::json::array({plot});
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
          "skips missing values instead of counting them).",
      .params = distance_metrics::selection_params(
          {{.name = "threshold_percentile",
            .type = ParamType::kDouble,
            .default_value = std::nan(""),
            .doc = "quantile of the distances used as threshold (unset/null = disc_mit's "
                   "n_train / (n_train + n_holdout))",
            .min = 0.0,
            .max = 1.0},
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
            {kAll}}},
      .references = {cite(mendelevitch_lesh_2021(),
                          "membership inference by distance to the synthetic data"),
                     cite(syntheval_software(), "disc_mit: threshold rule, counts and AUC"),
                     cite(gower_1971(), "the Gower distance")},
  };
}

}  // namespace synthaudit
