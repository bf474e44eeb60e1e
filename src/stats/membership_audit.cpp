#include "stats/membership_audit.hpp"

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "stats/roc.hpp"

namespace synthaudit::stats {

ProportionInterval clopper_pearson(std::size_t successes, std::size_t trials, double confidence) {
  if (trials == 0 || successes > trials || !(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("clopper_pearson: needs 0 <= successes <= trials, trials > 0");
  const double tail = (1.0 - confidence) / 2.0;
  const auto x = static_cast<double>(successes), n = static_cast<double>(trials);
  ProportionInterval interval;
  interval.lower = successes == 0 ? 0.0 : boost::math::ibeta_inv(x, n - x + 1.0, tail);
  interval.upper = successes == trials ? 1.0 : boost::math::ibetac_inv(x + 1.0, n - x, tail);
  return interval;
}

double epsilon_bound(const ProportionInterval& tpr, const ProportionInterval& fpr, double delta) {
  double bound = -std::numeric_limits<double>::infinity();
  if (tpr.lower - delta > 0.0) bound = std::log((tpr.lower - delta) / fpr.upper);
  if (1.0 - delta - fpr.upper > 0.0 && tpr.lower < 1.0)
    bound = std::max(bound, std::log((1.0 - delta - fpr.upper) / (1.0 - tpr.lower)));
  return bound;
}

namespace {

// One threshold of the ROC curve as counts: members (tp) and non-members (fp) called members.
struct Threshold {
  std::size_t tp, fp;
};

// Clopper–Pearson bounds per count, computed when first asked (the search below asks for few).
class IntervalMemo {
 public:
  IntervalMemo(std::size_t trials, double confidence)
      : trials_(trials), confidence_(confidence), memo_(trials + 1) {}
  const ProportionInterval& operator()(std::size_t successes) {
    auto& slot = memo_[successes];
    if (!slot.known) {
      slot.interval = clopper_pearson(successes, trials_, confidence_);
      slot.known = true;
    }
    return slot.interval;
  }

 private:
  struct Slot {
    bool known = false;
    ProportionInterval interval;
  };
  std::size_t trials_;
  double confidence_;
  std::vector<Slot> memo_;
};

// The largest ε bound over thresholds. Evaluating the beta quantiles at every threshold of a
// million-record ROC is slow, so thresholds are visited in decreasing order of an optimistic bound
// (TPR_lo ≤ tp/n₁ and FPR_hi ≥ max(fp/n₀, FPR_hi at fp = 0), both forms) and the search stops
// once that bound cannot beat the best exact value found; the result is the same as the full scan.
double epsilon_lower_bound(const std::vector<Threshold>& thresholds, std::size_t n1, std::size_t n0,
                           double delta, double confidence) {
  IntervalMemo tpr(n1, confidence), fpr(n0, confidence);
  const double fpr_floor = fpr(0).upper, fnr_floor = 1.0 - tpr(n1).lower;
  const auto members = static_cast<double>(n1), others = static_cast<double>(n0);
  struct Candidate {
    double optimistic;
    std::size_t threshold;
    int form;
  };
  std::vector<Candidate> candidates;
  candidates.reserve(2 * thresholds.size());
  for (std::size_t i = 0; i < thresholds.size(); ++i) {
    const double t = static_cast<double>(thresholds[i].tp) / members;
    const double f = std::max(static_cast<double>(thresholds[i].fp) / others, fpr_floor);
    if (t - delta > 0.0) candidates.push_back({std::log((t - delta) / f), i, 1});
    if (1.0 - delta - f > 0.0)
      candidates.push_back({std::log((1.0 - delta - f) / std::max(1.0 - t, fnr_floor)), i, 2});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.optimistic != b.optimistic
               ? a.optimistic > b.optimistic
               : std::tie(a.threshold, a.form) < std::tie(b.threshold, b.form);
  });
  double best = 0.0;
  for (const Candidate& c : candidates) {
    // The beta quantiles are accurate to a few ulps, not exactly on the right side of tp/n₁: the
    // margin keeps the stopping rule safe.
    if (c.optimistic <= best - 1e-9) break;
    // Both forms at once: each is a valid bound, so the largest stays the full scan's.
    best = std::max(best, epsilon_bound(tpr(thresholds[c.threshold].tp),
                                        fpr(thresholds[c.threshold].fp), delta));
  }
  return best;
}

}  // namespace

MembershipAudit audit_membership(std::span<const double> scores,
                                 std::span<const std::uint8_t> member,
                                 const MembershipAuditOptions& options) {
  if (!(options.delta >= 0.0 && options.delta < 1.0))
    throw std::invalid_argument("audit_membership: delta must be in [0, 1)");
  const auto runs = score_runs(scores, member);
  MembershipAudit audit;
  for (const auto& run : runs) {
    audit.members += run.positives;
    audit.non_members += run.negatives;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t n1 = audit.members, n0 = audit.non_members;
  if (n1 == 0 || n0 == 0) {
    audit.tpr_at_fpr.assign(options.fpr_targets.size(), nan);
    audit.first_threshold_above_target.assign(options.fpr_targets.size(), false);
    audit.advantage = nan;
    audit.epsilon_lower_bound = nan;
    return audit;
  }
  // Thresholds from the most member-like score down; the first calls nobody a member.
  std::vector<Threshold> thresholds{{0, 0}};
  thresholds.reserve(runs.size() + 1);
  for (auto run = runs.rbegin(); run != runs.rend(); ++run)
    thresholds.push_back(
        {thresholds.back().tp + run->positives, thresholds.back().fp + run->negatives});

  const auto members = static_cast<double>(n1), others = static_cast<double>(n0);
  // Rates as sklearn.metrics.roc_curve divides them, so comparisons with a target agree exactly.
  auto tpr_of = [&](const Threshold& t) { return static_cast<double>(t.tp) / members; };
  auto fpr_of = [&](const Threshold& t) { return static_cast<double>(t.fp) / others; };
  for (double target : options.fpr_targets) {
    double best = 0.0;
    for (const Threshold& t : thresholds)
      if (fpr_of(t) <= target) best = std::max(best, tpr_of(t));
    audit.tpr_at_fpr.push_back(best);
    audit.first_threshold_above_target.push_back(fpr_of(thresholds[1]) > target);
  }
  for (const Threshold& t : thresholds)
    audit.advantage = std::max(audit.advantage, tpr_of(t) - fpr_of(t));
  audit.epsilon_lower_bound =
      epsilon_lower_bound(thresholds, n1, n0, options.delta, options.confidence);
  return audit;
}

}  // namespace synthaudit::stats
