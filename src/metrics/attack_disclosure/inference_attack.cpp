// Inference attack (Giomi et al. 2023, after the Article 29 Working Party's inference criterion):
// the attacker knows some attributes of a target and guesses a secret one from the closest
// synthetic record.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "core/error.hpp"
#include "metrics/attack_disclosure/attack_common.hpp"
#include "metrics/key_disclosure/key_scenarios.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/neighbour_cache.hpp"
#include "stats/tied_neighbours.hpp"

namespace synthaudit {

namespace {

constexpr const char* kName = "inference_attack";

// Whether a guess of the secret is right.
class SecretMatch {
 public:
  SecretMatch(const Column& truth, const Column& guesses, const Params& params)
      : truth_(truth), guesses_(guesses) {
    anonymeter_ = params.get_string("secret_match") == "anonymeter";
    tolerance_ = params.get_double("tolerance");
    if (!anonymeter_) rule_ = keydisc::matching_rule(params);
  }

  bool operator()(std::size_t target, std::size_t guess_row) const {
    if (truth_.is_categorical())
      return codes_match(truth_.codes[target], guesses_.codes[guess_row]);
    return values_match(truth_.numeric[target], guesses_.numeric[guess_row]);
  }

  bool codes_match(std::uint32_t t, std::uint32_t g) const {
    if (is_missing(t) || is_missing(g))
      return is_missing(t) && is_missing(g) && (anonymeter_ || rule_.missing_matches);
    return t == g;
  }

  bool values_match(double t, double g) const {
    if (!anonymeter_) return rule_.matches(t, g);
    // anonymeter's rule: relative to the guess, missing matches missing. anonymeter divides by
    // g + 1e-12, which makes every negative guess right; the absolute value keeps the rule
    // symmetric in sign and equal to it for guesses >= 0.
    if (is_missing(t) || is_missing(g)) return is_missing(t) && is_missing(g);
    return std::fabs(g - t) / (std::fabs(g) + 1e-12) <= tolerance_;
  }

  // An interval [lo, hi] of guesses, in exact arithmetic, outside which no guess of a secret `t`
  // is right and inside which every guess is (within the rounding of the comparison); false when
  // there is none to give (missing t, or a tolerance whose set is not one narrow interval).
  bool right_interval(double t, double& lo, double& hi) const {
    if (is_missing(t) || !std::isfinite(t)) return false;
    if (!anonymeter_) {
      const double r = rule_.radius(t);
      lo = t - r;
      hi = t + r;
      return std::isfinite(r);
    }
    // |g − t| ≤ tol (|g| + ε) with 1e-6 ≤ tol ≤ 0.5 and |t| ≥ 1e-6 (far above tol ε): g has t's
    // sign, and for t > 0 the set is [(t − tol ε)/(1 + tol), (t + tol ε)/(1 − tol)].
    constexpr double kEpsilon = 1e-12;
    if (tolerance_ < 1e-6 || tolerance_ > 0.5 || std::fabs(t) < 1e-6) return false;
    const double a = std::fabs(t);
    const double low = (a - tolerance_ * kEpsilon) / (1 + tolerance_);
    const double high = (a + tolerance_ * kEpsilon) / (1 - tolerance_);
    lo = t > 0 ? low : -high;
    hi = t > 0 ? high : -low;
    return true;
  }

 private:
  const Column& truth_;
  const Column& guesses_;
  bool anonymeter_ = true;
  double tolerance_ = 0.05;
  keydisc::MatchingRule rule_;
};

// The random guesser's expected right guesses for every target: the number of synthetic records
// whose secret is right for the target, added over targets (whole counts add exactly), divided
// by the number of synthetic records once. Counted per target without visiting every synthetic
// record: by level for a categorical secret; for a numeric one, the sorted distinct synthetic
// values inside the rule's interval shrunk by a margin are right, those outside it widened by
// the margin wrong, and only the few in the two bands between are tested by the rule itself (the
// margin, 1e-7 relative, is far above the comparison's rounding), so the count equals testing
// every synthetic record.
double baseline_guesses(const Table& targets, const Table& synthetic, std::size_t secret,
                        const SecretMatch& right) {
  const Column& truth = targets.column(secret);
  const Column& guesses = synthetic.column(secret);
  const std::size_t m = synthetic.rows();
  if (truth.is_categorical()) {
    std::uint32_t max_code = 0;
    std::size_t missing = 0;
    for (std::uint32_t g : guesses.codes)
      if (is_missing(g)) {
        ++missing;
      } else {
        max_code = std::max(max_code, g);
      }
    std::vector<std::size_t> per_code(static_cast<std::size_t>(max_code) + 1, 0);
    for (std::uint32_t g : guesses.codes)
      if (!is_missing(g)) ++per_code[g];
    double total = 0.0;
    for (std::uint32_t t : truth.codes) {
      if (is_missing(t)) {
        total += right.codes_match(t, kMissingCode) ? static_cast<double>(missing) : 0.0;
      } else if (t < per_code.size()) {
        total += static_cast<double>(per_code[t]);
      }
    }
    return total / static_cast<double>(m);
  }
  std::vector<double> sorted;
  std::size_t missing = 0;
  for (double g : guesses.numeric)
    if (is_missing(g)) {
      ++missing;
    } else {
      sorted.push_back(g == 0.0 ? 0.0 : g);
    }
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> value;          // distinct
  std::vector<std::size_t> below{0};  // below[i]: values before value[i]
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (i == 0 || sorted[i] != sorted[i - 1]) {
      if (i > 0) below.push_back(i);
      value.push_back(sorted[i]);
    }
  if (!value.empty()) below.push_back(sorted.size());
  auto first_at_least = [&](double x) {
    return static_cast<std::size_t>(std::lower_bound(value.begin(), value.end(), x) -
                                    value.begin());
  };
  auto first_above = [&](double x) {
    return static_cast<std::size_t>(std::upper_bound(value.begin(), value.end(), x) -
                                    value.begin());
  };
  auto tested = [&](double t, std::size_t from, std::size_t to) {
    std::size_t hits = 0;
    for (std::size_t i = from; i < to; ++i)
      if (right.values_match(t, value[i])) hits += below[i + 1] - below[i];
    return hits;
  };
  std::vector<double> per_target(targets.rows(), 0.0);
#pragma omp parallel for schedule(dynamic, 256) num_threads(parallel_threads())
  for (std::size_t r = 0; r < targets.rows(); ++r) {
    const double t = truth.numeric[r];
    std::size_t hits = 0;
    if (is_missing(t)) {
      hits = right.values_match(t, NAN) ? missing : 0;
    } else {
      double lo = 0, hi = 0;
      if (!right.right_interval(t, lo, hi)) {
        hits = tested(t, 0, value.size());
      } else {
        const double margin = 1e-7 * (std::fabs(lo) + std::fabs(hi)) + 1e-300;
        const std::size_t out_lo = first_at_least(lo - margin), out_hi = first_above(hi + margin);
        const std::size_t in_lo = std::max(out_lo, first_above(lo + margin));
        const std::size_t in_hi = std::max(in_lo, std::min(out_hi, first_at_least(hi - margin)));
        hits = below[in_hi] - below[in_lo] + tested(t, out_lo, in_lo) + tested(t, in_hi, out_hi);
      }
    }
    per_target[r] = static_cast<double>(hits);
  }
  double total = 0.0;
  for (double v : per_target) total += v;
  return total / static_cast<double>(m);
}

// Expected right guesses among `targets` from the nearest synthetic record on `aux` (a tie: the
// share of the tied records whose secret is right).
double expected_guesses(const MetricInput& in, const Table& targets, const Table& synthetic,
                        const std::vector<std::size_t>& aux, const SecretMatch& right,
                        const std::string& side) {
  const auto nearest = stats::tied_neighbour_lists(
      in.neighbours, targets, synthetic, aux, 1, in.progress,
      std::string(kName) + ": nearest synthetic records of the " + side);
  return attacks::sum_over_targets(
      targets.rows(), [] { return stats::TiedNeighbourScratch{}; },
      [&](std::size_t target, stats::TiedNeighbourScratch& scratch) {
        const auto found = nearest->of(target, scratch);
        std::size_t hits = 0;
        for (auto r : found.sure) hits += right(target, r);
        for (auto r : found.tied) hits += right(target, r);
        return static_cast<double>(hits) /
               static_cast<double>(found.sure.size() + found.tied.size());
      },
      &nearest->query_order());
}

MetricResult compute_inference(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (syn.rows() == 0) throw MetricNotApplicable("the synthetic data have no rows");
  const auto attributes = attacks::attribute_columns(conf, in.context);
  const auto& secret_names = params.get_string_list("secrets");
  const auto given_aux =
      attacks::named_columns(conf, in.context, params.get_string_list("aux"), kName, "aux");
  // (secret, aux) pairs: the secrets given, else each disclosure scenario's targets with its
  // keys as what the attacker knows.
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> plans;
  auto others = [&](std::size_t secret) {
    std::vector<std::size_t> aux;
    for (std::size_t c : attributes)
      if (c != secret) aux.push_back(c);
    return aux;
  };
  if (!secret_names.empty()) {
    for (std::size_t secret :
         attacks::named_columns(conf, in.context, secret_names, kName, "secrets"))
      plans.emplace_back(secret, given_aux.empty() ? others(secret) : given_aux);
  } else if (!in.context.scenarios.empty()) {
    // The scenarios serve every key-based family (the sdc-risk measures may name a survey
    // design column there): a design column is neither a secret nor attacker knowledge here.
    auto attributes_of = [&](const std::vector<std::string>& names) {
      std::vector<std::string> kept;
      for (const auto& name : names)
        if (!attacks::is_design_column(name, in.context)) kept.push_back(name);
      return kept;
    };
    for (const auto& scenario : in.context.scenarios) {
      const auto keys = attacks::named_columns(conf, in.context, attributes_of(scenario.keys),
                                               kName, "(disclosure scenario keys)");
      for (std::size_t secret :
           attacks::named_columns(conf, in.context, attributes_of(scenario.targets), kName,
                                  "(disclosure scenario targets)")) {
        if (std::any_of(plans.begin(), plans.end(),
                        [&](const auto& p) { return p.first == secret; }))
          continue;  // one attack per secret: the first scenario naming it
        plans.emplace_back(secret, given_aux.empty() ? keys : given_aux);
      }
    }
  } else {
    throw MetricNotApplicable(
        "no secret column: give inference_attack.secrets or a disclosure scenario (keys, "
        "targets)");
  }
  MetricResult result;
  attacks::AttackRisk worst{NAN, NAN};  // the secret with the largest residual risk
  for (const auto& [secret, aux] : plans) {
    const std::string& secret_name = conf.column(secret).name;
    if (std::find(aux.begin(), aux.end(), secret) != aux.end())
      throw InputError(std::string(kName) + " parameter aux: secret column '" + secret_name +
                       "' cannot also be known to the attacker");
    if (aux.empty()) {
      result.warnings.push_back(std::string(kName) + " " + secret_name +
                                ": no other column for the attacker to know; not attacked");
      continue;
    }
    const SecretMatch right(conf.column(secret), syn.column(secret), params);
    stats::AttackCounts counts;
    counts.n_attacks = static_cast<double>(conf.rows());
    counts.n_success = expected_guesses(in, conf, syn, aux, right, "training records");
    counts.n_baseline = baseline_guesses(conf, syn, secret, right);
    if (in.holdout != nullptr && in.holdout->rows() > 0) {
      const SecretMatch control_right(in.holdout->column(secret), syn.column(secret), params);
      counts.n_control_attacks = static_cast<double>(in.holdout->rows());
      counts.n_control =
          expected_guesses(in, *in.holdout, syn, aux, control_right, "holdout records");
    }
    const auto residual = attacks::add_attack(result, kName, secret_name, counts,
                                              params.get_double("confidence_level"));
    if (!std::isnan(residual.risk) && !(residual.risk <= worst.risk)) worst = residual;
    std::string aux_list;
    for (std::size_t i = 0; i < aux.size(); ++i)
      aux_list += (i ? "," : "") + conf.column(aux[i]).name;
    result.details["aux"][secret_name] = aux_list;
  }
  if (result.values.empty()) throw MetricNotApplicable("no secret column could be attacked");
  result.add("residual_risk_max", "all", worst.risk);
  result.add("residual_risk_max_sd", "all", worst.sd);
  return result;
}

}  // namespace

MetricSpec inference_attack_metric() {
  using namespace references;
  auto params = std::vector<ParamSpec>{
      {.name = "secrets",
       .type = ParamType::kStringList,
       .default_value = std::vector<std::string>{},
       .doc = "secret columns, one attack each (empty: the targets of the disclosure "
              "scenarios)"},
      {.name = "aux",
       .type = ParamType::kStringList,
       .default_value = std::vector<std::string>{},
       .doc = "columns the attacker knows (empty: the scenario's keys, or with secrets given "
              "every other column but the survey design columns)"},
      {.name = "secret_match",
       .type = ParamType::kString,
       .default_value = std::string("anonymeter"),
       .doc = "when a numeric guess is right: anonymeter (|guess − secret| ≤ tolerance × "
              "|guess|, missing matches missing) or disclosure_matching (the key-disclosure "
              "family's rule: numeric_tolerance, relative_tolerance, missing_matches, also read "
              "from the spec's disclosure_matching block)",
       .choices = {"anonymeter", "disclosure_matching"}},
      {.name = "tolerance",
       .type = ParamType::kDouble,
       .default_value = 0.05,
       .doc = "relative tolerance of the anonymeter rule",
       .min = 0.0},
  };
  for (auto& p : keydisc::matching_params()) params.push_back(std::move(p));
  params.push_back(attacks::confidence_level_param());
  return MetricSpec{
      .name = kName,
      .family = MetricFamily::kAttackDisclosure,
      .summary =
          "Inference attack against a control set: how often the closest synthetic record "
          "gives away a confidential record's secret attribute",
      .doc =
          std::string(
              "For each secret column (scope: its name; by default each target of the disclosure "
              "scenarios, not attacked without any) the attacker knows the aux columns of a "
              "target (by default the scenario's keys; with secrets given, all other columns "
              "but the survey design columns), finds the "
              "nearest synthetic record on them and takes its secret as the guess, as "
              "anonymeter does (one neighbour). Right guess: a categorical secret must be "
              "equal; a numeric secret, by default anonymeter's rule |g − s| ≤ 0.05 |g| "
              "relative to the guess g (anonymeter divides by g + 10⁻¹², which counts every "
              "negative guess right; here by |g| + 10⁻¹²); with secret_match = "
              "disclosure_matching the family-wide rule |g − s| ≤ max(numeric_tolerance, "
              "relative_tolerance × |s|). A missing secret is guessed right by a missing value "
              "(anonymeter; under disclosure_matching only when missing_matches). Ties: when "
              "several synthetic records are equally close the attacker picks one uniformly "
              "at random, so the target counts the share of them whose secret is right. "
              "Random-guess baseline (anonymeter's): the secret of a uniformly drawn synthetic "
              "record, counted at its expected value, the share of synthetic records whose "
              "secret is right for the target. ") +
          attacks::kAttackRiskDoc,
      .params = std::move(params),
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {attacks::residual_risk_headline(
          "residual_risk_max", "residual_risk_max_sd",
          "inference risk, worst secret: share of records whose secret the closest synthetic "
          "record gives away, beyond what it gives away for records not used to synthesise")},
      .compute = compute_inference,
      .statistics =
          [] {
            auto specs = attacks::attack_statistic_specs(
                {ScopeKind::kColumn}, "the nearest synthetic record's secret is right");
            specs.push_back({"residual_risk_max",
                             "largest residual_risk over the secrets (NA without a holdout)",
                             Ideal::lower()});
            specs.push_back(
                {"residual_risk_max_sd", "residual_risk_sd of that secret", std::nullopt});
            return specs;
          }(),
      .references = {cite(giomi_2023(),
                          "the inference attack, its random-guess baseline and the control set"),
                     cite(article29_2014(), "inference as a criterion of anonymisation"),
                     cite(anonymeter_software(),
                          "mixed-type distance, tolerance rule and counts reproduced where there "
                          "are no ties"),
                     cite(wilson_1927(), "score interval of the success rates"),
                     cite(gower_1971(), "the mixed-type distance anonymeter builds on")},
  };
}

}  // namespace synthaudit
