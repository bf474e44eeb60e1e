// Membership inference attacks that calibrate against reference data, scored where they matter:
// on the most isolated records, with the attack and its thresholds chosen on one half of the
// challenge records and judged on the other, so that the worst case over attacks is not an
// artefact of picking the luckiest one. Exact on the full data: every challenge record is
// attacked, through the evaluation's exact neighbour searches.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "core/error.hpp"
#include "core/random.hpp"
#include "metrics/distance_disclosure/distance_params.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/membership_audit.hpp"
#include "stats/nearest_neighbours.hpp"
#include "stats/neighbour_cache.hpp"
#include "stats/roc.hpp"

namespace synthaudit {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum Attack : std::size_t { kDcr, kDcrDiff, kDomias, kAttackCount };
constexpr std::array<const char*, kAttackCount> kAttackNames = {"dcr", "dcr_diff", "domias"};

// The record groups every attack is scored on: all challenge records, and the most isolated
// share of members and of non-members (at least min_group_records of each where there are as
// many).
struct RecordGroup {
  const char* scope;
  double share;
};
constexpr std::array<RecordGroup, 3> kGroups = {
    {{"all", 1.0}, {"isolated_1%", 0.01}, {"isolated_0.1%", 0.001}}};

constexpr std::array<double, 3> kFprTargets = {0.001, 0.01, 0.1};
constexpr std::array<const char*, 3> kTprNames = {
    "worst_case_tpr_at_fpr_0.001", "worst_case_tpr_at_fpr_0.01", "worst_case_tpr_at_fpr_0.1"};
constexpr std::array<const char*, 3> kFprNames = {
    "worst_case_fpr_at_fpr_0.001", "worst_case_fpr_at_fpr_0.01", "worst_case_fpr_at_fpr_0.1"};
constexpr std::array<double, 3> kBaseRates = {0.5, 0.1, 0.01};
constexpr std::array<const char*, 3> kPpvNames = {"worst_case_ppv_at_base_rate_0.5",
                                                  "worst_case_ppv_at_base_rate_0.1",
                                                  "worst_case_ppv_at_base_rate_0.01"};

// Every challenge record: the confidential records (members) first, in file order, then the
// holdout's challenge records (non-members) in file order.
struct Challenge {
  std::vector<std::uint8_t> member;
  std::vector<std::uint8_t> judged;  // 0: the half that chooses the attack, 1: the half it is
                                     // judged on
  std::vector<double> isolation;
  std::array<std::vector<double>, kAttackCount> score;
  std::vector<std::size_t> by_isolation;  // the records from the most isolated, ties by order

  std::size_t size() const { return member.size(); }
};

// A record's cell: whether it is a member, and which half it is in.
std::size_t cell_of(std::uint8_t member, std::uint8_t judged) { return 2u * member + judged; }

constexpr std::size_t kNoRow = std::numeric_limits<std::size_t>::max();

// The finite distances of a row of a top-k list, without `self` (the query's own row when the
// query table is the reference).
std::vector<double> row_distances(const stats::Neighbours& n, std::size_t row,
                                  std::size_t self = kNoRow) {
  std::vector<double> out;
  out.reserve(n.k);
  bool skipped = false;
  for (std::size_t r = 0; r < n.k; ++r) {
    if (!skipped && self != kNoRow && n.idx(row, r) == self) {
      skipped = true;
      continue;
    }
    if (std::isfinite(n.dist(row, r))) out.push_back(n.dist(row, r));
  }
  // The query is in the reference but its own row was not among the k + 1 listed (k + 1 rows tie
  // at distance 0 and rows earlier in the file came first): one of its duplicates stands for it.
  if (self != kNoRow && !skipped && !out.empty()) out.pop_back();
  return out;
}

// Mean of the k smallest of three sorted lists together: the record's isolation (mean distance
// to its k nearest neighbours among all other confidential, non-member and reference records,
// whatever its class, so that members and non-members are ranked on the same footing).
double mean_of_smallest(const std::vector<double>& a, const std::vector<double>& b,
                        const std::vector<double>& c, std::size_t k) {
  std::vector<double> ab, merged;
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(ab));
  std::merge(ab.begin(), ab.end(), c.begin(), c.end(), std::back_inserter(merged));
  const std::size_t take = std::min(k, merged.size());
  if (take == 0) return NAN;
  double sum = 0.0;
  for (std::size_t i = 0; i < take; ++i) sum += merged[i];
  return sum / static_cast<double>(take);
}

// log(r_R / r_S), the log of the k-nearest-neighbour density ratio p̂_S / p̂_R up to a constant;
// a zero radius is an infinite density: both zero is a ratio of 1.
double log_density_ratio(double radius_reference, double radius_synthetic) {
  if (radius_synthetic == 0.0 && radius_reference == 0.0) return 0.0;
  if (radius_synthetic == 0.0) return kInf;
  if (radius_reference == 0.0) return -kInf;
  return std::log(radius_reference) - std::log(radius_synthetic);
}

// Scores one block of challenge records from their neighbour lists.
void score_records(Challenge& challenge, const stats::Neighbours& to_synthetic,
                   const stats::Neighbours& to_reference, const stats::Neighbours& to_confidential,
                   const stats::Neighbours& to_non_members, std::size_t k, std::uint8_t member) {
  if (to_synthetic.queries == 0) return;
  // The density radius needs k records on both sides: with fewer, the largest k both have.
  std::size_t k_density = std::min(k, to_synthetic.k);
  while (k_density > 1 && !(std::isfinite(to_synthetic.dist(0, k_density - 1)) &&
                            std::isfinite(to_reference.dist(0, k_density - 1))))
    --k_density;
  for (std::size_t q = 0; q < to_synthetic.queries; ++q) {
    const std::size_t own_member = member ? q : kNoRow, own_non_member = member ? kNoRow : q;
    const double ds = to_synthetic.dist(q, 0), dr = to_reference.dist(q, 0);
    challenge.member.push_back(member);
    challenge.score[kDcr].push_back(-ds);
    challenge.score[kDcrDiff].push_back(dr - ds);
    challenge.score[kDomias].push_back(log_density_ratio(to_reference.dist(q, k_density - 1),
                                                         to_synthetic.dist(q, k_density - 1)));
    challenge.isolation.push_back(mean_of_smallest(row_distances(to_confidential, q, own_member),
                                                   row_distances(to_non_members, q, own_non_member),
                                                   row_distances(to_reference, q), k));
  }
}

// The group's records of each half: in each cell (class and half) the `share` most isolated
// (at least one member and `min_non_members` non-members, at most all), ties in isolation broken
// by file order. The members are the records at risk; the non-members are what their scores are
// judged against, and a holdout is often small (1 % of 500 records is 5), so they get a floor.
std::array<std::vector<std::size_t>, 2> select_group(const Challenge& c, double share,
                                                     std::size_t min_non_members) {
  std::array<std::size_t, 4> cells{}, quota{}, taken{};
  for (std::size_t i = 0; i < c.size(); ++i) ++cells[cell_of(c.member[i], c.judged[i])];
  std::size_t wanted_total = 0;
  for (std::size_t cell = 0; cell < 4; ++cell) {
    const bool member = cell >= 2;
    // 1e-9 keeps 1 % of 100 records at 1 despite 0.01 * 100 rounding above 1.
    const auto wanted =
        static_cast<std::size_t>(std::ceil(share * static_cast<double>(cells[cell]) - 1e-9));
    quota[cell] =
        share >= 1.0
            ? cells[cell]
            : std::min(cells[cell], std::max(wanted, member ? std::size_t{1} : min_non_members));
    wanted_total += quota[cell];
  }
  std::array<std::vector<std::size_t>, 2> rows;
  std::size_t total = 0;
  for (std::size_t i : c.by_isolation) {
    if (total == wanted_total) break;
    const std::size_t cell = cell_of(c.member[i], c.judged[i]);
    if (taken[cell] == quota[cell]) continue;
    ++taken[cell];
    ++total;
    rows[cell & 1u].push_back(i);
  }
  return rows;
}

struct Scored {
  std::vector<double> scores;
  std::vector<std::uint8_t> member;
  std::size_t members = 0, non_members = 0;
};

Scored scored(const Challenge& c, Attack attack, const std::vector<std::size_t>& rows) {
  Scored s;
  s.scores.reserve(rows.size());
  s.member.reserve(rows.size());
  for (std::size_t i : rows) {
    s.scores.push_back(c.score[attack][i]);
    s.member.push_back(c.member[i]);
    (c.member[i] ? s.members : s.non_members) += 1;
  }
  return s;
}

// A rule "member when score >= threshold"; `none` calls nobody a member.
struct Rule {
  double threshold = kInf;
  bool none = true;
};

struct Outcome {
  std::size_t tp = 0, fp = 0;
};

Outcome apply(const Rule& rule, const Scored& s) {
  Outcome o;
  if (rule.none) return o;
  for (std::size_t i = 0; i < s.scores.size(); ++i)
    if (s.scores[i] >= rule.threshold) (s.member[i] ? o.tp : o.fp) += 1;
  return o;
}

// On the choosing half: the rule with the largest TPR whose FPR is at most `target`
// (no interpolation; "nobody" when even the highest score calls too many non-members), and
// the rule with the largest TPR − FPR.
Rule rule_at_fpr(const std::vector<stats::RocPoint>& curve, double target) {
  Rule best;
  double best_tpr = 0.0;
  for (const auto& p : curve)
    if (p.fpr <= target && p.tpr > best_tpr && std::isfinite(p.threshold)) {
      best = {p.threshold, false};
      best_tpr = p.tpr;
    }
  return best;
}

Rule rule_of_largest_advantage(const std::vector<stats::RocPoint>& curve) {
  Rule best;
  double best_advantage = 0.0;
  for (const auto& p : curve)
    if (p.tpr - p.fpr > best_advantage && std::isfinite(p.threshold)) {
      best = {p.threshold, false};
      best_advantage = p.tpr - p.fpr;
    }
  return best;
}

double rate(std::size_t count, std::size_t of) {
  return of == 0 ? NAN : static_cast<double>(count) / static_cast<double>(of);
}

// The ε no (ε, δ)-differentially private release could exceed given one rule's counts
// (Kairouz, Oh & Viswanath 2015; Jagielski et al. 2020); 0 when neither form is positive.
double epsilon_bound(const Outcome& o, std::size_t members, std::size_t non_members, double delta,
                     double confidence) {
  return std::max(
      0.0, stats::epsilon_bound(stats::clopper_pearson(o.tp, members, confidence),
                                stats::clopper_pearson(o.fp, non_members, confidence), delta));
}

double positive_predictive_value(double tpr, double fpr, double base_rate) {
  const double called = base_rate * tpr + (1.0 - base_rate) * fpr;
  return called > 0.0 ? base_rate * tpr / called : NAN;
}

nlohmann::json interval_json(std::size_t count, std::size_t of, double confidence) {
  if (of == 0) return nullptr;
  const auto ci = stats::clopper_pearson(count, of, confidence);
  return {{"count", count}, {"of", of}, {"lower", ci.lower}, {"upper", ci.upper}};
}

// The sampling fraction the declared weights imply: records over the sum of their weights.
std::optional<double> sampling_fraction(const MetricInput& in) {
  if (in.context.weights.empty()) return std::nullopt;
  const auto c = in.confidential.find(in.context.weights);
  if (!c) return std::nullopt;
  const Column& column = in.confidential.column(*c);
  if (!column.is_numeric()) return std::nullopt;
  double total = 0.0;
  for (double w : column.numeric) total += w;
  if (!(total > 0.0)) return std::nullopt;
  return static_cast<double>(in.confidential.rows()) / total;
}

// Every attack's ROC curve on the group (both halves) on log-log axes, one series per attack:
// the low false-positive rates are where an attack on a few records shows.
void add_roc_plot(MetricResult& result, const Challenge& c, const std::vector<std::size_t>& rows,
                  const std::string& scope) {
  auto plot = make_plot("roc_log", "Membership attacks on " + scope + " challenge records",
                        "false positive rate (log)", "true positive rate (log)", scope);
  plot["data"] = nlohmann::json::array();
  constexpr std::size_t kMaxPoints = 500;
  for (std::size_t a = 0; a < kAttackCount; ++a) {
    const Scored s = scored(c, static_cast<Attack>(a), rows);
    std::vector<stats::RocPoint> points;
    for (const auto& p : stats::roc_curve(s.scores, s.member))
      if (p.fpr > 0.0 && p.tpr > 0.0) points.push_back(p);
    const std::size_t m = points.size();
    for (std::size_t i = 0; i < std::min(m, kMaxPoints); ++i) {
      const auto& p = points[m <= kMaxPoints ? i : i * (m - 1) / (kMaxPoints - 1)];
      plot["data"].push_back({{"fpr", p.fpr}, {"tpr", p.tpr}, {"series", kAttackNames[a]}});
    }
  }
  if (!result.details.contains("plots")) result.details["plots"] = nlohmann::json::array();
  result.details["plots"].push_back(std::move(plot));
}

// One half's turn: the attack and rules chosen on the other half, applied to this one.
struct JudgedHalf {
  Attack attack = kDcr;
  double auc = NAN;
  std::size_t members = 0, non_members = 0;
  std::array<Outcome, kFprTargets.size()> at_fpr;
  Outcome at_advantage;
  nlohmann::json chosen_on;  // the AUCs on the choosing half
};

// Chooses on `choose` (the attack with the largest AUC, the first in the list on a tie, and its
// rules) and judges on `judge`; nullopt when a class is empty in either half.
std::optional<JudgedHalf> cross_fit(const Challenge& c, const std::vector<std::size_t>& choose,
                                    const std::vector<std::size_t>& judge) {
  JudgedHalf half;
  std::array<double, kAttackCount> aucs{};
  double chosen_auc = -kInf;
  for (std::size_t a = 0; a < kAttackCount; ++a) {
    const Scored s = scored(c, static_cast<Attack>(a), choose);
    aucs[a] = stats::roc_auc(s.scores, s.member);
    if (!std::isnan(aucs[a]) && aucs[a] > chosen_auc) {
      half.attack = static_cast<Attack>(a);
      chosen_auc = aucs[a];
    }
  }
  const Scored judged = scored(c, half.attack, judge);
  if (std::isinf(chosen_auc) || judged.members == 0 || judged.non_members == 0) return std::nullopt;
  half.auc = stats::roc_auc(judged.scores, judged.member);
  half.members = judged.members;
  half.non_members = judged.non_members;
  half.chosen_on = nlohmann::json::object();
  for (std::size_t a = 0; a < kAttackCount; ++a)
    half.chosen_on[kAttackNames[a]] =
        std::isnan(aucs[a]) ? nlohmann::json(nullptr) : nlohmann::json(aucs[a]);
  const Scored chosen = scored(c, half.attack, choose);
  const auto curve = stats::roc_curve(chosen.scores, chosen.member);
  for (std::size_t t = 0; t < kFprTargets.size(); ++t)
    half.at_fpr[t] = apply(rule_at_fpr(curve, kFprTargets[t]), judged);
  half.at_advantage = apply(rule_of_largest_advantage(curve), judged);
  return half;
}

void score_group(MetricResult& result, nlohmann::json& selection, nlohmann::json& intervals,
                 const Challenge& c, const RecordGroup& group, const MetricInput& in,
                 const Params& params) {
  const auto min_non_members = static_cast<std::size_t>(params.get_int("min_non_members"));
  const double delta = params.get_double("delta");
  const double confidence = params.get_double("confidence");
  const auto rows = select_group(c, group.share, min_non_members);
  std::vector<std::size_t> both = rows[0];
  both.insert(both.end(), rows[1].begin(), rows[1].end());
  const std::string scope = group.scope;
  if (in.plots && group.share >= 0.01) add_roc_plot(result, c, both, scope);
  const Scored any = scored(c, kDcr, both);
  result.add("members", scope, static_cast<double>(any.members));
  result.add("non_members", scope, static_cast<double>(any.non_members));
  for (std::size_t a = 0; a < kAttackCount; ++a) {
    const Scored s = scored(c, static_cast<Attack>(a), both);
    result.add(std::string(kAttackNames[a]) + "_auc", scope, stats::roc_auc(s.scores, s.member));
  }

  // Each half is judged by the attack and rules chosen on the other (cross-fitting): every
  // record counts once in what is reported, and never where its own score chose the attack.
  const auto first = cross_fit(c, rows[1], rows[0]);
  const auto second = cross_fit(c, rows[0], rows[1]);
  if (!first || !second) {
    result.warnings.push_back("membership_attacks: the " + scope +
                              " group has too few members or non-members in a half to choose "
                              "and judge an attack; its worst case is NA");
    for (const char* name : {"worst_case_auc", "worst_case_auc_null_sd", "worst_case_advantage",
                             "worst_case_epsilon_lower_bound"})
      result.add(name, scope, NAN);
    for (std::size_t t = 0; t < kFprTargets.size(); ++t) {
      result.add(kTprNames[t], scope, NAN);
      result.add(kFprNames[t], scope, NAN);
    }
    for (const char* name : kPpvNames) result.add(name, scope, NAN);
    if (!in.context.weights.empty()) result.add("worst_case_ppv_at_sampling_fraction", scope, NAN);
    return;
  }
  auto turn = [](const JudgedHalf& h) {
    return nlohmann::json{{"attack", kAttackNames[h.attack]},
                          {"auc_on_choosing_half", h.chosen_on},
                          {"judged_members", h.members},
                          {"judged_non_members", h.non_members}};
  };
  selection[scope] = nlohmann::json::array({turn(*first), turn(*second)});

  const std::size_t members = first->members + second->members;
  const std::size_t non_members = first->non_members + second->non_members;
  auto pooled = [](const Outcome& a, const Outcome& b) {
    return Outcome{a.tp + b.tp, a.fp + b.fp};
  };
  auto null_sd = [](const JudgedHalf& h) {
    const double m = static_cast<double>(h.members), n = static_cast<double>(h.non_members);
    return (m + n + 1.0) / (12.0 * m * n);
  };
  const double worst_case_auc = (first->auc + second->auc) / 2.0;
  result.add("worst_case_auc", scope, worst_case_auc);
  // The two halves' AUCs are independent given the choices: the variance of their mean is a
  // quarter of the sum of their Mann–Whitney variances.
  result.add("worst_case_auc_null_sd", scope, 0.5 * std::sqrt(null_sd(*first) + null_sd(*second)));
  double epsilon = 0.0;
  nlohmann::json group_intervals = nlohmann::json::object();
  for (std::size_t t = 0; t < kFprTargets.size(); ++t) {
    const Outcome o = pooled(first->at_fpr[t], second->at_fpr[t]);
    result.add_share(kTprNames[t], scope, static_cast<double>(o.tp), static_cast<double>(members));
    result.add_share(kFprNames[t], scope, static_cast<double>(o.fp),
                     static_cast<double>(non_members));
    epsilon = std::max(epsilon, epsilon_bound(o, members, non_members, delta, confidence));
    group_intervals[kTprNames[t]] = interval_json(o.tp, members, confidence);
    group_intervals[kFprNames[t]] = interval_json(o.fp, non_members, confidence);
  }
  const Outcome best = pooled(first->at_advantage, second->at_advantage);
  const double tpr = rate(best.tp, members), fpr = rate(best.fp, non_members);
  result.add("worst_case_advantage", scope, tpr - fpr);
  epsilon = std::max(epsilon, epsilon_bound(best, members, non_members, delta, confidence));
  result.add("worst_case_epsilon_lower_bound", scope, epsilon);
  group_intervals["advantage_rule"] = {{"tpr", interval_json(best.tp, members, confidence)},
                                       {"fpr", interval_json(best.fp, non_members, confidence)}};
  intervals[scope] = group_intervals;
  for (std::size_t b = 0; b < kBaseRates.size(); ++b)
    result.add(kPpvNames[b], scope, positive_predictive_value(tpr, fpr, kBaseRates[b]));
  if (!in.context.weights.empty()) {
    const auto fraction = sampling_fraction(in);
    result.add("worst_case_ppv_at_sampling_fraction", scope,
               fraction ? positive_predictive_value(tpr, fpr, *fraction) : NAN);
  }
}

MetricResult compute_membership_attacks(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (in.holdout == nullptr) throw MetricNotApplicable("membership attacks need a holdout");
  const Table& hold = *in.holdout;
  if (conf.rows() < 2 || hold.rows() < 2 || syn.rows() == 0)
    throw MetricNotApplicable(
        "membership attacks need two confidential and two holdout records and a synthetic "
        "record");

  // The holdout, shuffled with the metric's seed, splits into the reference the attacks
  // calibrate against (the first ⌊n/2⌋) and the non-members they attack.
  Rng rng(in.seed, 1);
  std::vector<std::size_t> order(hold.rows());
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  std::vector<std::size_t> reference_rows(order.begin(), order.begin() + hold.rows() / 2);
  std::vector<std::size_t> challenge_rows(order.begin() + hold.rows() / 2, order.end());
  std::sort(reference_rows.begin(), reference_rows.end());
  std::sort(challenge_rows.begin(), challenge_rows.end());
  const Table reference = select_rows(hold, reference_rows, hold.source());
  const Table non_members = select_rows(hold, challenge_rows, hold.source());

  const auto k = static_cast<std::size_t>(params.get_int("neighbours"));
  stats::NeighbourOptions opt = distance_metrics::neighbour_options(conf, params);
  opt.k = k;
  opt.progress = in.progress;
  auto search = [&](const Table& query, const Table& to, std::size_t neighbours, const char* task) {
    opt.k = neighbours;
    opt.progress_task = std::string("membership_attacks: ") + task;
    return stats::search_neighbours(in.neighbours, query, to, opt);
  };
  Challenge challenge;
  score_records(challenge, search(conf, syn, k, "confidential to synthetic"),
                search(conf, reference, k, "confidential to reference"),
                search(conf, conf, k + 1, "confidential to confidential"),
                search(conf, non_members, k, "confidential to holdout"), k, 1);
  score_records(challenge, search(non_members, syn, k, "holdout to synthetic"),
                search(non_members, reference, k, "holdout to reference"),
                search(non_members, conf, k, "holdout to confidential"),
                search(non_members, non_members, k + 1, "holdout to holdout"), k, 0);
  challenge.by_isolation.resize(challenge.size());
  std::iota(challenge.by_isolation.begin(), challenge.by_isolation.end(), std::size_t{0});
  std::stable_sort(challenge.by_isolation.begin(), challenge.by_isolation.end(),
                   [&](std::size_t a, std::size_t b) {
                     return challenge.isolation[a] > challenge.isolation[b];
                   });

  // Each class splits at random into the half that chooses the attack and the half that judges
  // it, so that choosing the best of several attacks does not inflate what is reported.
  challenge.judged.assign(challenge.size(), 0);
  for (std::uint8_t cls : {std::uint8_t{1}, std::uint8_t{0}}) {
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < challenge.size(); ++i)
      if (challenge.member[i] == cls) rows.push_back(i);
    for (std::size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[rng.below(i)]);
    for (std::size_t i = rows.size() / 2; i < rows.size(); ++i) challenge.judged[rows[i]] = 1;
  }

  MetricResult result;
  result.add("reference_records", "all", static_cast<double>(reference.rows()));
  nlohmann::json selection = nlohmann::json::object(), intervals = nlohmann::json::object();
  for (const auto& group : kGroups)
    score_group(result, selection, intervals, challenge, group, in, params);
  result.details["attack_selection"] = selection;
  result.details["intervals"] = intervals;

  if (params.get_bool("record_level")) {
    const std::size_t n = conf.rows();
    auto block = [&](std::size_t from, std::size_t to) {
      RecordValues r;
      r.scope = "membership_attacks";
      std::vector<double> judged, isolation;
      for (std::size_t i = from; i < to; ++i) {
        judged.push_back(challenge.judged[i]);
        isolation.push_back(challenge.isolation[i]);
      }
      r.add_field("judged_half", std::move(judged));
      r.add_field("isolation", std::move(isolation));
      for (std::size_t a = 0; a < kAttackCount; ++a)
        r.add_field(kAttackNames[a], std::vector<double>(challenge.score[a].begin() + from,
                                                         challenge.score[a].begin() + to));
      return r;
    };
    RecordValues members = block(0, n);
    members.data = "confidential";
    result.records.push_back(std::move(members));
    // The holdout in file order: reference records carry role 0 and no scores.
    RecordValues held = block(n, challenge.size());
    held.data = "holdout";
    std::vector<double> role(hold.rows(), 0.0);
    for (std::size_t row : challenge_rows) role[row] = 1.0;
    std::vector<std::vector<double>> values(held.fields.size(),
                                            std::vector<double>(hold.rows(), NAN));
    for (std::size_t f = 0; f < held.fields.size(); ++f)
      for (std::size_t j = 0; j < challenge_rows.size(); ++j)
        values[f][challenge_rows[j]] = held.values[f][j];
    held.values = std::move(values);
    held.fields.insert(held.fields.begin(), "challenge");
    held.values.insert(held.values.begin(), std::move(role));
    result.records.push_back(std::move(held));
  }
  return result;
}

}  // namespace

MetricSpec membership_attacks_metric() {
  using enum ScopeKind;
  using namespace references;
  const std::vector<ScopeKind> groups = {kAll, kRecordGroup};
  std::vector<ParamSpec> params = distance_metrics::selection_params(
      {{.name = "neighbours",
        .type = ParamType::kInt,
        .default_value = std::int64_t{5},
        .doc = "k of the density estimates and of the isolation (Meeus et al. use 5)",
        .min = 1,
        .max = 100},
       {.name = "min_non_members",
        .type = ParamType::kInt,
        .default_value = std::int64_t{40},
        .doc = "the fewest non-members of each half in an isolated group (the most isolated "
               "beyond the group's share, where there are as many): the attacks are judged "
               "against them",
        .min = 1,
        .max = 100000},
       {.name = "delta",
        .type = ParamType::kDouble,
        .default_value = 1e-5,
        .doc = "δ of the (ε, δ) whose ε worst_case_epsilon_lower_bound bounds",
        .min = 0.0,
        .max = 0.1},
       {.name = "confidence",
        .type = ParamType::kDouble,
        .default_value = 0.95,
        .doc = "level of the two-sided Clopper–Pearson intervals",
        .min = 0.5,
        .max = 0.9999}});
  for (auto& p : params)
    if (p.name == "record_level")
      p.doc =
          "write every challenge record's attack scores, isolation and half, and which "
          "holdout records formed the reference, to records.tsv beside results.tsv";
  return MetricSpec{
      .name = "membership_attacks",
      .family = MetricFamily::kDistanceDisclosure,
      .summary =
          "Membership attacks calibrated on reference data, aimed at the most isolated "
          "records; the worst case over attacks, chosen on one half and judged on the other",
      .doc =
          "The attacker holds the released synthetic data S and a reference sample R of the same "
          "population that was not used for the synthesis, and scores every challenge record x "
          "(higher = more likely a member): the confidential records are the members, and the "
          "holdout, shuffled with the metric's seed, splits into R (the first ⌊n/2⌋ records) and "
          "the non-members (the rest); the sizes are in the results. Attacks, all from the "
          "release alone, with the distance of distance_to_closest_record (Gower by default, "
          "ranges from the confidential data):\n"
          "- dcr: −d(x, S), the distance to the closest synthetic record (the uncalibrated "
          "proxy);\n"
          "- dcr_diff: d(x, R) − d(x, S), the closest-record distance calibrated by the "
          "reference (Chen et al., 2020);\n"
          "- domias: the density ratio p̂_S(x) / p̂_R(x) of DOMIAS (van Breugel et al., 2023) "
          "with k-nearest-neighbour density estimates (Loftsgaarden & Quesenberry, 1965), "
          "p̂(x) ∝ k / (n r_k(x)^D) with r_k the distance to the k-th nearest record "
          "(`neighbours`); only the ranking of the scores matters, so the score is "
          "log r_k,R(x) − log r_k,S(x), whatever the dimension D (a zero radius is an infinite "
          "density; both zero score 0). The k-NN estimate replaces DOMIAS's kernel density "
          "estimate because it is exact on the Gower geometry with no bandwidth to choose.\n\n"
          "Records at risk (Meeus et al., 2023): each challenge record's isolation is the mean "
          "distance to its k nearest records among the confidential data, the non-members and R "
          "(itself excluded), whatever its label. "
          "Every attack is scored on all challenge records (scope all) and on the most isolated "
          "1 % and 0.1 % of the members (scopes isolated_1% and isolated_0.1%, at least one) "
          "against the most isolated non-members (the same share, at least min_non_members of "
          "each half where there are as many; ties broken by file order).\n\n"
          "Honest worst case: each class splits at random (seeded) into two halves, and each half "
          "is judged by the attack chosen on the other (cross-fitting): the attack with the "
          "largest AUC there (the first of dcr, dcr_diff, domias on a tie), with its thresholds: "
          "for each target FPR (0.001, 0.01, 0.1) the one with the largest TPR whose FPR does not "
          "exceed the target (no interpolation), and the one with the largest TPR − FPR. They are "
          "applied unchanged to the judged half. worst_case_auc is the mean of the two judged "
          "halves' AUCs; the TPRs and FPRs reached, worst_case_advantage (TPR − FPR of the second "
          "rule) and the positive predictive value of that rule at base rates 50 %, 10 % and 1 % "
          "of members among the people attacked (and at the sampling fraction n / Σw when weights "
          "are declared) pool the two judged halves' counts, with two-sided Clopper–Pearson "
          "intervals at `confidence` in details.intervals (conservative for counts pooled over "
          "two rules); worst_case_epsilon_lower_bound is the largest over the four rules of "
          "log((TPR_lo − δ) / FPR_hi) and log((1 − δ − FPR_hi) / (1 − TPR_lo)) (Kairouz et al., "
          "2015; Jagielski et al., 2020). Because no record is judged where its own score chose "
          "the attack, the judged AUC of an attack with no signal is 0.5, with the Mann–Whitney "
          "standard deviation worst_case_auc_null_sd (the two halves' variances over 4). "
          "The verdict tests the isolated_1% worst case against the fresh-sample null (re-splits "
          "of the synthetic data and the holdout). With the "
          "group's non-members less isolated than its members, dcr scores them closer to S: "
          "dcr_auc on an isolated group reads below 0.5 for a fresh sample, while dcr_diff and "
          "domias, calibrated by R's local density, stay near it. details.attack_selection names "
          "the attack chosen for each half with the AUCs it was chosen on.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_holdout = true,
      .uses_weights = true,
      .headlines = {{.statistic = "worst_case_auc",
                     .scope = "isolated_1%",
                     .ideal = Ideal::at(0.5),
                     .reading = "AUC of the strongest membership attack on the 1 % most isolated "
                                "records, judged on records it was not chosen on (0.5 = guessing)",
                     .axis = "risk",
                     .baseline = Baseline::analytic(
                         0.5, "worst_case_auc_null_sd",
                         "an attack with no signal scores an AUC of 0.5 on the half it was not "
                         "chosen on; its spread is the Mann–Whitney null standard deviation for "
                         "that half's numbers of members and non-members"),
                     .unit = Unit::kNumber}},
      .compute = compute_membership_attacks,
      .statistics =
          {{"reference_records",
            "holdout records the attacks calibrate against",
            std::nullopt,
            {kAll},
            OutputClass::kCount},
           {"{members|non_members}", "challenge records of the group, both halves", std::nullopt,
            groups, OutputClass::kCount},
           {"{dcr|dcr_diff|domias}_auc",
            "AUC of one attack on the group's records, both halves (0.5 = guessing)",
            Ideal::at(0.5), groups},
           {"worst_case_auc", "AUC, on the judging half, of the attack chosen on the other half",
            Ideal::at(0.5), groups},
           {"worst_case_auc_null_sd",
            "the Mann–Whitney standard deviation of that AUC for an attack with no signal",
            std::nullopt, groups},

           {"{worst_case_tpr_at_fpr_0.001|worst_case_tpr_at_fpr_0.01|worst_case_tpr_at_fpr_0.1}",
            "share of the judging half's members found by the threshold chosen for that FPR",
            Ideal::lower(), groups},
           {"{worst_case_fpr_at_fpr_0.001|worst_case_fpr_at_fpr_0.01|worst_case_fpr_at_fpr_0.1}",
            "share of the judging half's non-members that threshold calls members", std::nullopt,
            groups},
           {"worst_case_advantage",
            "TPR − FPR on the judging half of the threshold chosen for the largest advantage",
            Ideal::lower(), groups},
           {"worst_case_epsilon_lower_bound",
            "the smallest ε an (ε, δ)-differentially private release would need to allow the "
            "chosen rules' results on the judging half",
            Ideal::lower(), groups},
           {"{worst_case_ppv_at_base_rate_0.5|worst_case_ppv_at_base_rate_0.1|"
            "worst_case_ppv_at_base_rate_0.01|worst_case_ppv_at_sampling_fraction}",
            "share of members among those the advantage rule calls members, when that share of "
            "the people attacked are members",
            Ideal::lower(), groups}},
      .references = {cite(stadler_oprisanu_troncoso_2022(),
                          "attacks on synthetic data aimed at outliers"),
                     cite(chen_2020_gan_leaks(), "distance attack calibrated by reference data"),
                     cite(van_breugel_2023(), "DOMIAS: the density-ratio attack"),
                     cite(loftsgaarden_quesenberry_1965(), "k-nearest-neighbour density"),
                     cite(meeus_2023(), "vulnerable records by isolation"),
                     cite(carlini_2022(), "TPR at low FPR"),
                     cite(kairouz_oh_viswanath_2015(), "the two inequalities of (ε, δ)-DP tests"),
                     cite(jagielski_ullman_oprea_2020(), "ε lower bound from Clopper–Pearson"),
                     cite(clopper_pearson_1934(), "intervals on TPR and FPR"),
                     cite(gower_1971(), "the Gower distance")},
      .aggregate_details = {"attack_selection"},
  };
}

}  // namespace synthaudit
