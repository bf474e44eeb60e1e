#include "result/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/registry.hpp"
#include "metrics/risk_side.hpp"
#include "result/headlines.hpp"
#include "result/json_fields.hpp"

namespace synthaudit {

namespace {

using json = nlohmann::json;

using json_fields::optional_json;
using json_fields::text_of;

std::string capitalised(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

// "a fresh real sample (the holdout)": what a baseline name means, for reasons.
std::string baseline_phrase(const std::string& name) {
  if (name == "holdout") return "a fresh real sample (the holdout)";
  if (name == "resample") return "resamples of the confidential data";
  return "data with no link to the confidential records";
}

enum class Status { kPass, kReview, kFail, kNotEvaluated };

const char* to_string(Status status) {
  switch (status) {
    case Status::kPass:
      return "pass";
    case Status::kReview:
      return "review";
    case Status::kFail:
      return "fail";
    case Status::kNotEvaluated:
      return "not_evaluated";
  }
  return "?";
}

struct Check {
  std::string criterion;
  std::optional<double> value, baseline, limit;
  Status status = Status::kNotEvaluated;
  std::string reason;
  bool default_rule = false;
  bool utility_floor = false;
  bool gate = false;
  double severity = 0.0;  // excess over the fail limit's excess (default rule), for ordering
  json extra = json::object();
};

json check_to_json(const Check& c) {
  json out = {{"criterion", c.criterion},
              {"value", optional_json(c.value)},
              {"baseline", optional_json(c.baseline)},
              {"limit", optional_json(c.limit)},
              {"status", to_string(c.status)},
              {"reason", c.reason}};
  for (const auto& [k, v] : c.extra.items()) out[k] = v;
  return out;
}

const json* find_metric_entry(const json& document, const std::string& name) {
  if (!document.contains("metrics")) return nullptr;
  for (const auto& m : document["metrics"])
    if (text_of(m, "name") == name) return &m;
  return nullptr;
}

const json* find_candidate_entry(const json& metric, const std::string& name) {
  if (!metric.contains("candidates")) return nullptr;
  for (const auto& e : metric["candidates"])
    if (text_of(e, "name") == name && !e.value("baseline", false)) return &e;
  return nullptr;
}

// --- the default record-level risk rule -------------------------------------------------------

struct DefaultCriterion {
  const HeadlineRow* row;
  json description;
};

// A headline's permutation test for one candidate after the multiplicity correction: the
// smallest corrected p-value over its replicates, and that replicate's test.
struct CorrectedTest {
  double p_value = 1.0;    // corrected
  NullResult test;         // as the engine reported it
  std::size_t family = 0;  // tests in the candidate's family
  std::string method;
};

std::string method_name(const std::string& method) {
  return method == "bonferroni"           ? "Bonferroni"
         : method == "benjamini-hochberg" ? "Benjamini-Hochberg"
                                          : "Holm";
}

std::string default_criterion_id(const HeadlineRow& row) {
  return row.metric + "." + row.statistic + (row.scope == "all" ? "" : "[" + row.scope + "]");
}

json describe_default_criterion(const HeadlineRow& row, const ReleasePolicy& policy) {
  const RiskMargins& margins = policy.margins;
  const std::string name = text_of(row.baseline_declaration, "name");
  const bool analytic = name == "analytic";
  const char* bound = row.ideal.kind == IdealKind::kLower    ? "max"
                      : row.ideal.kind == IdealKind::kHigher ? "min"
                                                             : "target";
  json value = 0.0;
  if (analytic && row.baseline_declaration.contains("value"))
    value = row.baseline_declaration["value"];
  const std::string text =
      capitalised(row.reading) + ": not materially worse than " + baseline_phrase(name) +
      ". Review when worse by more than " + plain_number(margins.review_sd) +
      " standard deviations of the baseline; fail when worse by more than both " +
      plain_number(margins.fail_sd) + " standard deviations and " +
      plain_number(100.0 * margins.fail_relative) + " % of the baseline value." +
      " Where a permutation test against re-splits of the candidate and the holdout was made: "
      "fail when its p-value, corrected (" +
      method_name(policy.multiplicity) + ") over every test of the candidate, is at most " +
      plain_number(policy.fail_level) + " and the excess is material (more than " +
      plain_number(100.0 * margins.fail_relative) +
      " % of a holdout baseline; any excess over an analytic one); review when it is at most " +
      plain_number(policy.review_level) + "; risk is one-sided.";
  return {{"id", default_criterion_id(row)},
          {"text", text},
          {"metric", row.metric},
          {"statistic", row.statistic},
          {"scope", row.scope},
          {"bound", bound},
          {"value", value},
          {"tolerance", nullptr},
          {"relative_to", analytic ? json(nullptr) : json(name)},
          {"rule", "default record-level risk"},
          {"margins",
           {{"review_sd", margins.review_sd},
            {"fail_sd", margins.fail_sd},
            {"fail_relative", margins.fail_relative}}}};
}

// A holdout smaller than the synthetic data is compared with the candidate at its size.
bool compared_at_baseline_size(const HeadlineRow& row, std::size_t candidate) {
  const auto& baseline = row.baselines[candidate];
  return baseline && baseline->kind == "holdout" && row.size_matched_rows[candidate].has_value();
}

// A default-rule check of `row` with the values it compares, not yet decided.
Check default_rule_check(const HeadlineRow& row, std::size_t candidate) {
  Check check;
  check.criterion = default_criterion_id(row);
  check.default_rule = true;
  const bool size_matched = compared_at_baseline_size(row, candidate);
  check.value = size_matched ? row.size_matched_values[candidate] : row.values[candidate];
  if (size_matched) check.extra["compared_at_rows"] = *row.size_matched_rows[candidate];
  if (const auto& baseline = row.baselines[candidate]) check.baseline = baseline->value;
  return check;
}

Check permutation_check(const HeadlineRow& row, std::size_t candidate, const ReleasePolicy& policy,
                        const CorrectedTest& corrected);

// The standard deviation of the difference between the candidate's value and its baseline
// (0 when the baseline's noise is unknown).
double difference_sd(const HeadlineRow& row, std::size_t candidate) {
  const auto& baseline = row.baselines[candidate];
  if (!baseline) return 0.0;
  const bool size_matched = compared_at_baseline_size(row, candidate);
  // The noise of a difference: a baseline drawn by the engine is one sample and the candidate
  // another of the same size, so their difference spreads sqrt(2) times as much; the noise
  // statistics a metric declares already describe the candidate's spread around the baseline.
  // When the candidate was scored on subsamples at the holdout's size, its own spread over
  // those draws is the candidate's side of the difference.
  const bool two_samples = baseline->kind == "holdout" || baseline->kind == "resample";
  const double baseline_sd = baseline->sd && std::isfinite(*baseline->sd) ? *baseline->sd : 0.0;
  const auto& candidate_sd = row.size_matched_sd[candidate];
  // The holdout's own noise is estimated from half-size subsamples of it, which understates
  // the spread of statistics that are not means over its rows (CAP and repU depend on which key
  // cells a sample happens to fill: on the simulator, a 250-row holdout's CAP spread 0.2 points
  // by that estimate and about 0.6 points from sample to sample). Under the hypothesis being
  // tested, that the candidate is as safe as a fresh sample, one fresh sample of this size
  // spreads as the candidate's own draws at this size do, so the larger of the two estimates
  // stands for the holdout's side.
  return size_matched && candidate_sd && std::isfinite(*candidate_sd)
                        ? std::sqrt(std::pow(std::max(baseline_sd, *candidate_sd), 2) +
                                    *candidate_sd * *candidate_sd)
                        : baseline_sd * (two_samples ? std::sqrt(2.0) : 1.0);
}

Check default_check(const HeadlineRow& row, std::size_t candidate, const ReleasePolicy& policy,
                    const std::optional<CorrectedTest>& corrected) {
  const RiskMargins& margins = policy.margins;
  if (corrected) return permutation_check(row, candidate, policy, *corrected);
  const auto& baseline = row.baselines[candidate];
  const bool size_matched = compared_at_baseline_size(row, candidate);
  Check check = default_rule_check(row, candidate);
  const std::string name = baseline ? baseline->name : "";
  const std::string reading = capitalised(row.reading);
  if (!check.value) {
    check.reason = reading + ": no value for this candidate, so it could not be compared.";
    return check;
  }
  if (!baseline || !baseline->value) {
    check.reason = reading + ": " + plain_number(*check.value, row.unit) + ", but the baseline (" +
                   baseline_phrase(name) + ") could not be computed, so it could not be compared.";
    return check;
  }
  const double v = *check.value, b = *baseline->value;
  const double sd = difference_sd(row, candidate);
  const double excess = row.ideal.badness(v) - row.ideal.badness(b);
  const double review_at = margins.review_sd * sd;
  const double fail_at = std::max(margins.fail_sd * sd, margins.fail_relative * std::fabs(b));
  // The limits in the statistic's own units, on the side the candidate is worse.
  const double direction = row.ideal.kind == IdealKind::kHigher            ? -1.0
                           : row.ideal.kind == IdealKind::kTarget && v < b ? -1.0
                                                                           : 1.0;
  const double fail_limit = b + direction * fail_at;
  const double review_limit = b + direction * review_at;
  check.limit = fail_limit;
  check.extra["review_limit"] = review_limit;
  check.extra["baseline_sd"] = baseline->sd ? json(*baseline->sd) : json(nullptr);
  check.extra["baseline_name"] = name;
  check.severity = fail_at > 0.0 ? excess / fail_at : (excess > 0.0 ? INFINITY : 0.0);
  const std::string unit = row.unit;
  const std::string against =
      plain_number(v, unit) + " for this candidate" +
      (size_matched ? " (on subsamples of " + plain_number(*row.size_matched_rows[candidate]) +
                          " rows, the holdout's size)"
                    : "") +
      " against " + plain_number(b, unit) + " for " + baseline_phrase(name);
  const std::string noise =
      sd > 0.0 ? " (standard deviation of the difference " + plain_number(sd, unit) + ")" : "";
  if (excess > fail_at) {
    check.status = Status::kFail;
    check.reason = reading + ": " + against + noise + ", beyond the fail limit of " +
                   plain_number(fail_limit, unit) + ".";
  } else if (excess > review_at) {
    check.status = Status::kReview;
    check.reason = reading + ": " + against + noise +
                   ", worse than the baseline beyond its noise but within the fail limit of " +
                   plain_number(fail_limit, unit) + ".";
  } else {
    check.status = Status::kPass;
    check.reason = reading + ": " + against + noise +
                   (excess > 0.0 ? ", within the baseline's noise." : ", no worse than it.");
  }
  return check;
}

// The default rule with the candidate's permutation test: significant after the correction and
// material fails, significant at the review level reviews, anything else passes.
Check permutation_check(const HeadlineRow& row, std::size_t candidate, const ReleasePolicy& policy,
                        const CorrectedTest& corrected) {
  const auto& baseline = row.baselines[candidate];
  const bool size_matched = compared_at_baseline_size(row, candidate);
  Check check = default_rule_check(row, candidate);
  const std::string name = baseline ? baseline->name : "";
  const std::string reading = capitalised(row.reading);
  check.extra["p_value"] = corrected.p_value;
  check.extra["p_value_uncorrected"] = corrected.test.p_value;
  check.extra["monte_carlo_error"] = corrected.test.monte_carlo_error;
  check.extra["resplits"] = corrected.test.resplits;
  check.extra["correction"] = corrected.method;
  check.extra["tests"] = corrected.family;
  check.extra["baseline_name"] = name;
  // The Monte Carlo error is in the check's monte_carlo_error; the reason stays short enough for
  // the report's one-page executive summary.
  const std::string test_text =
      "p = " + plain_number(corrected.p_value) + " after " + method_name(corrected.method) +
      " over " + std::to_string(corrected.family) + " test" + (corrected.family == 1 ? "" : "s") +
      ", " + plain_number(corrected.test.resplits) + " re-splits";
  if (!check.value || !baseline || !baseline->value) {
    check.reason = reading + ": no value to compare; " + test_text + ".";
    return check;
  }
  const double v = *check.value, b = *baseline->value;
  const double excess = risk_excess(row.ideal, v, b);
  const bool relative = baseline->kind == "holdout" || baseline->kind == "statistic";
  const double material_at = relative ? policy.margins.fail_relative * std::fabs(b) : 0.0;
  const double direction = row.ideal.kind == IdealKind::kHigher ? -1.0 : 1.0;
  check.limit = b + direction * material_at;
  check.severity = corrected.p_value > 0.0 ? policy.fail_level / corrected.p_value : INFINITY;
  const std::string against =
      plain_number(v, row.unit) + " for this candidate" +
      (size_matched ? " (on subsamples of " + plain_number(*row.size_matched_rows[candidate]) +
                          " rows, the holdout's size)"
                    : "") +
      " against " + plain_number(b, row.unit) + " for " + baseline_phrase(name);
  // No re-split was as extreme, yet the correction leaves the p-value above the fail level: the
  // re-splits allowed (null_draws) cannot resolve a p-value this small. It fails when the noise
  // margins put the excess at least twice beyond their fail limit; otherwise it is to review (on
  // SD2011 a fresh half's DiSCO with no re-split of 199 as extreme had p = 0.0015 with 1999).
  if (corrected.test.as_extreme == 0.0 && corrected.p_value > policy.fail_level && excess > 0.0) {
    Check noise = default_check(row, candidate, policy, std::nullopt);
    const std::string unresolved =
        "No re-split was as extreme (" + test_text + "; more null_draws resolve it).";
    if (noise.status == Status::kFail && noise.severity >= 2.0) {
      noise.reason += " " + unresolved;
      for (const auto& [key, value] : check.extra.items()) noise.extra[key] = value;
      noise.extra["decided_by"] =
          "noise margins: twice beyond the fail limit, re-splits unresolved";
      return noise;
    }
    check.status = Status::kReview;
    check.extra["decided_by"] = "re-splits unresolved";
    check.reason = reading + ": " + against + ". " + unresolved;
    return check;
  }
  if (corrected.p_value <= policy.fail_level && excess > material_at) {
    check.status = Status::kFail;
    check.reason = reading + ": " + against + "; " + test_text +
                   ": riskier than a fresh sample of the population, by a material margin.";
  } else if (corrected.p_value <= policy.review_level && excess > 0.0) {
    check.status = Status::kReview;
    check.reason = reading + ": " + against + "; " + test_text +
                   (corrected.p_value <= policy.fail_level
                        ? ": significantly riskier than a fresh sample, by less than the "
                          "material margin."
                        : ": riskier than a fresh sample at the review level.");
  } else {
    check.status = Status::kPass;
    check.reason =
        reading + ": " + against + "; " + test_text + ": no more risk than a fresh sample shows.";
  }
  return check;
}

// --- the utility floor ------------------------------------------------------------------------

// A utility headline tells the floor from a perfect synthesis when the independent-marginals
// baseline is worse than the perfect reference by more than this many standard deviations (of
// the reference or of the floor's draws, the larger); the others (a per-column measure that
// independent columns keep exactly, a measure blind to relationships on these data) say nothing
// about what a candidate keeps.
constexpr double kFloorSeparationSd = 4.0;

struct KeptUtility {
  const HeadlineRow* row;
  double perfect, floor, value, kept;
  double standard_error;  // of kept
};

std::string headline_label(const HeadlineRow& row) {
  return row.metric + " " + row.statistic + (row.scope == "all" ? "" : " [" + row.scope + "]");
}

// The candidate's share of utility kept per informative headline (spec/spec.hpp: UtilityFloor).
std::vector<KeptUtility> kept_utility(const HeadlineTable& table, std::size_t candidate) {
  std::vector<KeptUtility> out;
  for (const auto& row : table.rows) {
    if (row.axis != "utility" || !row.floor_value || !row.values[candidate]) continue;
    const auto& perfect = row.baselines[candidate];
    if (!perfect || !perfect->value || (perfect->kind != "resample" && perfect->kind != "analytic"))
      continue;
    const double floor_badness = row.ideal.badness(*row.floor_value);
    const double perfect_badness = row.ideal.badness(*perfect->value);
    const double badness = row.ideal.badness(*row.values[candidate]);
    const double gap = floor_badness - perfect_badness;
    // The noise a candidate's value carries: the larger of the reference's spread and the
    // floor's over its draws (a value theory gives often comes without one). With neither, the
    // headline cannot show that the gap is more than noise.
    std::optional<double> sd;
    for (const auto& spread : {perfect->sd, row.floor_sd})
      if (spread && std::isfinite(*spread)) sd = std::max(sd.value_or(0.0), *spread);
    // A ratio measure at 0 (a propensity tree that found nothing to split on) is infinitely far
    // from its ideal on the log scale; such values cannot be placed between floor and reference.
    if (!sd || !std::isfinite(gap) || !std::isfinite(badness) || !(gap > 0.0) ||
        !(gap > kFloorSeparationSd * *sd))
      continue;
    const double kept = (floor_badness - badness) / gap;
    // The candidate's value and the floor each carry about `sd` of noise: their difference,
    // scaled by the gap, is kept's standard error.
    const double standard_error = std::sqrt(2.0) * *sd / gap;
    out.push_back(
        {&row, *perfect->value, *row.floor_value, *row.values[candidate], kept, standard_error});
  }
  return out;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size();
  return m % 2 == 1 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
}

Check utility_floor_check(const HeadlineTable& table, std::size_t candidate,
                          const ReleasePolicy& policy) {
  Check check;
  check.criterion = "utility_floor";
  check.utility_floor = true;
  const std::vector<KeptUtility> kept = kept_utility(table, candidate);
  if (kept.empty()) {
    const bool measured = std::any_of(table.rows.begin(), table.rows.end(),
                                      [](const HeadlineRow& row) { return row.floor_value; });
    check.reason =
        measured ? "Utility floor: no utility measure of this run tells a file whose columns are "
                   "independent from a resample of the confidential data, so how much utility "
                   "the candidate keeps was not judged."
                 : "Utility floor: not measured (no utility metric with a resample or theoretical "
                   "baseline ran, baseline_draws is 0, or the run was partitioned without whole "
                   "tables).";
    return check;
  }
  std::vector<double> shares, errors;
  json headlines = json::array();
  const KeptUtility* lowest = nullptr;
  for (const auto& k : kept) {
    shares.push_back(k.kept);
    errors.push_back(k.standard_error);
    if (lowest == nullptr || k.kept < lowest->kept) lowest = &k;
    headlines.push_back({{"metric", k.row->metric},
                         {"statistic", k.row->statistic},
                         {"scope", k.row->scope},
                         {"value", k.value},
                         {"perfect", k.perfect},
                         {"floor", k.floor},
                         {"kept", k.kept},
                         {"standard_error", k.standard_error}});
  }
  const double median = median_of(shares);
  // Fail only when the candidate is below the floor beyond the noise of one measure (on a small
  // file a fresh sample and independent columns can score alike): the median share plus the
  // median standard error. A heuristic margin, not a test: the measures are correlated, so the
  // median's own error lies between the one-measure error and that over sqrt(measures).
  const double upper = median + median_of(errors);
  check.extra["kept_upper"] = upper;
  check.value = median;
  check.baseline = 1.0;
  check.limit = policy.utility_floor.fail;
  check.extra["review_limit"] = policy.utility_floor.review;
  check.extra["headlines"] = std::move(headlines);
  const std::string measured =
      "keeps " + plain_number(median, "share") +
      " of the utility a perfect synthesis would (median over " + std::to_string(kept.size()) +
      " utility measure" + (kept.size() == 1 ? "" : "s") +
      "; 0 % is a file whose columns are independent, 100 % a resample of the confidential data; "
      "lowest " +
      plain_number(lowest->kept, "share") + ", " + headline_label(*lowest->row) + ")";
  if (upper < policy.utility_floor.fail) {
    check.status = Status::kFail;
    check.reason = "Not fit for use: it " + measured + ", below the utility floor of " +
                   plain_number(policy.utility_floor.fail, "share") + " beyond the noise.";
  } else if (median < policy.utility_floor.review) {
    check.status = Status::kReview;
    check.reason =
        "Utility: it " + measured + ", below the review level of " +
        plain_number(policy.utility_floor.review, "share") +
        (median < policy.utility_floor.fail
             ? " (below the floor of " + plain_number(policy.utility_floor.fail, "share") +
                   " too, but within the noise)"
             : "") +
        ".";
  } else {
    check.status = Status::kPass;
    check.reason = "Utility: it " + measured + ".";
  }
  return check;
}

// --- gates: tests a metric made itself ---------------------------------------------------------

// The scopes of the candidate's entry (any replicate, or combined) where `statistic` is above 0:
// what a gate found ("rule=status_from_16").
std::vector<std::string> gate_findings(const json& document, const HeadlineRow& row,
                                       const std::string& candidate) {
  std::vector<std::string> scopes;
  const json* metric = find_metric_entry(document, row.metric);
  const json* entry = metric ? find_candidate_entry(*metric, candidate) : nullptr;
  if (entry == nullptr) return scopes;
  auto collect = [&](const json& values) {
    if (!values.is_array()) return;
    for (const auto& v : values)
      if (text_of(v, "statistic") == row.gate_names && v.contains("value") &&
          v["value"].is_number() && v["value"].get<double>() > 0 &&
          std::find(scopes.begin(), scopes.end(), text_of(v, "scope")) == scopes.end())
        scopes.push_back(text_of(v, "scope"));
  };
  for (const auto& r : entry->value("replicates", json::array()))
    collect(r.value("values", json()));
  if (entry->contains("combined")) collect((*entry)["combined"].value("values", json()));
  return scopes;
}

Check gate_check(const json& document, const HeadlineRow& row, std::size_t candidate,
                 const std::string& name) {
  Check check;
  check.criterion = default_criterion_id(row);
  check.gate = true;
  check.value = row.values[candidate];
  const auto& baseline = row.baselines[candidate];
  check.baseline = baseline && baseline->value ? *baseline->value : 0.0;
  check.limit = check.baseline;
  const std::string reading = capitalised(row.reading);
  if (!check.value) {
    check.reason = reading + ": no value for this candidate.";
    return check;
  }
  const bool worse = row.ideal.badness(*check.value) > row.ideal.badness(*check.baseline);
  const std::vector<std::string> found = gate_findings(document, row, name);
  if (!found.empty()) check.extra["found"] = found;
  const std::string value =
      plain_number(*check.value, row.unit) + (found.empty() ? "" : " (" + join(found, ", ") + ")");
  check.status = worse ? Status::kFail : Status::kPass;
  check.reason = reading + ": " + value + " for this candidate, against " +
                 plain_number(*check.baseline, row.unit) + " for a fresh real sample" +
                 (worse ? "." : ": none.");
  return check;
}

// --- explicit criteria ------------------------------------------------------------------------

// Fails with the policy key when the metric reports no such statistic or scope anywhere.
void check_names(const json& metric, const PolicyCriterion& c, const std::string& where) {
  std::set<std::string> statistics, scopes;
  auto collect = [&](const json& values) {
    if (!values.is_array()) return;
    for (const auto& v : values) {
      const std::string statistic = text_of(v, "statistic");
      statistics.insert(statistic);
      if (statistic == c.statistic) scopes.insert(text_of(v, "scope"));
    }
  };
  for (const auto& e : metric["candidates"]) {
    if (e.contains("replicates"))
      for (const auto& r : e["replicates"]) collect(r.value("values", json()));
    if (e.contains("combined")) collect(e["combined"].value("values", json()));
  }
  if (statistics.empty()) return;  // nothing computed (not applicable): the check says so
  if (!statistics.count(c.statistic))
    throw InputError(where + ": " + c.key + ".statistic: " + c.metric + " reports no statistic '" +
                     c.statistic + "'" +
                     did_you_mean(c.statistic, {statistics.begin(), statistics.end()}));
  if (!scopes.count(c.scope))
    throw InputError(where + ": " + c.key + ".scope: " + c.metric + " reports " + c.statistic +
                     " for no scope '" + c.scope + "'" +
                     did_you_mean(c.scope, {scopes.begin(), scopes.end()}) +
                     "; scopes: " + join({scopes.begin(), scopes.end()}, ", "));
}

std::string criterion_subject(const PolicyCriterion& c) {
  return c.metric + " " + c.statistic + (c.scope == "all" ? "" : " [" + c.scope + "]") +
         (c.subgroup.empty() ? "" : " in subgroup " + c.subgroup);
}

// "at most the holdout baseline plus 0.01", "within 0.5 of 1".
std::string criterion_requirement(const PolicyCriterion& c) {
  std::string offset;
  if (!c.relative_to.empty())
    offset =
        " the " + c.relative_to + " baseline" +
        (c.value == 0.0 ? std::string()
                        : (c.value > 0 ? " plus " : " minus ") + plain_number(std::fabs(c.value)));
  const std::string reference = offset.empty() ? " " + plain_number(c.value) : offset;
  if (c.bound == "max") return "at most" + reference;
  if (c.bound == "min") return "at least" + reference;
  return "within " + plain_number(c.tolerance.value_or(0.0)) + " of" + reference;
}

std::string describe_criterion(const PolicyCriterion& c) {
  return criterion_subject(c) + " " + criterion_requirement(c);
}

Check policy_check(const json& document, const PolicyCriterion& c, const std::string& candidate,
                   const std::string& where) {
  Check check;
  check.criterion = c.id;
  const std::string subject = describe_criterion(c);
  const json* metric = find_metric_entry(document, c.metric);
  if (metric == nullptr) {
    check.reason =
        "Not evaluated: " + c.metric + " was not run in this evaluation (policy: " + subject + ").";
    return check;
  }
  if (metric->contains("skipped")) {
    check.reason = "Not evaluated: " + c.metric + " was skipped (" + text_of(*metric, "skipped") +
                   "); policy: " + subject + ".";
    return check;
  }
  // A criterion on a subgroup reads the subgroup's entries (its candidates and baselines).
  json subgroup_view;
  if (!c.subgroup.empty()) {
    const json& groups = json_fields::member(*metric, "subgroups");
    if (!groups.is_array())
      throw InputError(where + ": " + c.key + ".subgroup: " + c.metric +
                       " was not run in subgroups (give by: columns)");
    const json* group = nullptr;
    std::vector<std::string> labels;
    for (const auto& g : groups) {
      labels.push_back(text_of(g, "label"));
      if (labels.back() == c.subgroup) group = &g;
    }
    if (group == nullptr)
      throw InputError(where + ": " + c.key + ".subgroup: no subgroup '" + c.subgroup +
                       "' in the confidential data" + did_you_mean(c.subgroup, labels));
    if (group->contains("suppressed")) {
      check.reason = "Not evaluated: subgroup " + c.subgroup + " is suppressed (" +
                     text_of(*group, "suppressed") + "); policy: " + subject + ".";
      return check;
    }
    subgroup_view = {{"name", c.metric},
                     {"headlines", (*metric)["headlines"]},
                     {"candidates", group->value("candidates", json::array())}};
    metric = &subgroup_view;
  }
  check_names(*metric, c, where);
  const json* entry = find_candidate_entry(*metric, candidate);
  if (entry != nullptr) check.value = entry_value(*entry, c.statistic, c.scope);
  if (entry != nullptr && entry->contains("suppressed")) {
    check.reason = "Not evaluated: " + text_of(*entry, "suppressed") + " (policy: " + subject + ").";
    return check;
  }
  double base = 0.0;
  if (!c.relative_to.empty()) {
    json declaration = nullptr;
    for (const auto& h : (*metric)["headlines"])
      if (text_of(h, "statistic") == c.statistic && text_of(h, "scope", "all") == c.scope &&
          text_of(h.value("baseline", json()), "name") == c.relative_to)
        declaration = h["baseline"];
    const auto baseline =
        baseline_value(*metric, declaration, c.relative_to, c.statistic, c.scope, candidate);
    if (!baseline && declaration.is_null()) {
      // The metric has the baseline for other statistics but not for this one.
      throw InputError(where + ": " + c.key + ".relative_to: " + c.metric + " has no " +
                       c.relative_to + " baseline for " + c.statistic);
    }
    if (baseline) check.baseline = baseline->value;
    if (!check.baseline) {
      check.reason = "Not evaluated: the " + c.relative_to + " baseline of " + c.metric +
                     " was not computed (policy: " + subject + ").";
      return check;
    }
    base = *check.baseline;
  }
  if (!check.value) {
    check.reason = "Not evaluated: " + c.metric + " gave no value of " + c.statistic +
                   " for this candidate (policy: " + subject + ").";
    return check;
  }
  const double v = *check.value;
  bool ok = false;
  if (c.bound == "max") {
    check.limit = base + c.value;
    ok = v <= *check.limit;
  } else if (c.bound == "min") {
    check.limit = base + c.value;
    ok = v >= *check.limit;
  } else {
    const double target = base + c.value;
    check.limit = target;
    check.extra["tolerance"] = c.tolerance.value_or(0.0);
    ok = std::fabs(v - target) <= c.tolerance.value_or(0.0);
  }
  check.status = ok ? Status::kPass : Status::kFail;
  const std::string base_text =
      c.relative_to.empty() ? ""
                            : " (the " + c.relative_to + " baseline is " + plain_number(base) + ")";
  check.reason = std::string(ok ? "Meets" : "Fails") + " the release policy's criterion '" + c.id +
                 "': " + criterion_subject(c) + " is " + plain_number(v) + ", required " +
                 criterion_requirement(c) + base_text + ".";
  return check;
}

}  // namespace

std::string plain_number(double value, const std::string& unit) {
  if (std::isnan(value)) return "NA";
  if (std::isinf(value)) return value > 0 ? "infinity" : "minus infinity";
  std::string suffix;
  if (unit == "share") {
    value *= 100.0;
    suffix = " %";
  } else if (unit == "percent") {
    suffix = " %";
  }
  if (value == 0.0) return "0" + suffix;
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  const int decimals = static_cast<int>(std::clamp(3.0 - magnitude, 0.0, 15.0));
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string text = buffer;
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text + suffix;
}

namespace {

bool has_default_risk_check(const MetricSpec& metric) {
  return std::any_of(metric.headlines.begin(), metric.headlines.end(), [](const Headline& h) {
    return h.axis == "risk" && h.baseline.kind != BaselineKind::kNone;
  });
}

// Why a registered metric did not run in this document ("" when it ran).
std::string why_not_run(const json& document, const MetricSpec& metric) {
  std::string reason = "not selected (--metrics, the spec's metrics:)";
  for (const auto& entry : json_fields::member(document, "metrics"))
    if (text_of(entry, "name") == metric.name)
      reason = entry.contains("skipped") ? text_of(entry, "skipped") : "";
  return reason;
}

// The default rule's checks that could not be made in this run: every registered risk headline
// with a baseline whose metric was not selected or was skipped, with the reason, so that a verdict
// reached on fewer checks says so instead of passing silently.
json default_checks_not_run(const json& document) {
  json out = json::array();
  for (const auto& metric : all_metrics()) {
    const std::string reason = why_not_run(document, metric);
    if (reason.empty()) continue;
    for (const auto& h : metric.headlines)
      if (h.axis == "risk" && h.baseline.kind != BaselineKind::kNone)
        out.push_back({{"metric", metric.name},
                       {"family", to_string(metric.family)},
                       {"statistic", h.statistic},
                       {"reason", reason}});
  }
  return out;
}

// The default risk families of which no metric ran, each with the reasons its metrics did not.
// Metrics that need row correspondence (partial synthesis) do not count: for a full synthesis
// they do not apply rather than being left out.
std::vector<std::pair<std::string, std::vector<std::string>>> risk_families_not_run(
    const json& document) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<bool, std::vector<std::string>>> families;
  for (const auto& metric : all_metrics()) {
    if (!has_default_risk_check(metric) || metric.needs_row_correspondence) continue;
    const std::string family = to_string(metric.family);
    if (!families.count(family)) order.push_back(family);
    auto& [ran, reasons] = families[family];
    const std::string reason = why_not_run(document, metric);
    if (reason.empty())
      ran = true;
    else if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end())
      reasons.push_back(reason);
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& family : order)
    if (!families[family].first) out.emplace_back(family, families[family].second);
  return out;
}

}  // namespace

json decide_verdict(const json& document, const ReleasePolicy& policy, const std::string& where) {
  const HeadlineTable table = headline_table(document);
  const std::size_t n = table.candidates.size();

  std::vector<const HeadlineRow*> risk_rows;
  if (policy.default_checks)
    for (const auto& row : table.rows)
      if (row.axis == "risk" && !row.baseline_declaration.is_null()) risk_rows.push_back(&row);

  std::vector<std::vector<Check>> checks(n);
  bool any_default_evaluated = false;
  // The checks the engine made before any metric (a candidate that is the confidential data, or
  // copies its rows far beyond chance) fail the candidate whatever the metrics say.
  bool any_data_check = false;
  for (const auto& finding : json_fields::member(document, "data_checks")) {
    if (!finding.is_object() || !finding.value("fails_candidate", false)) continue;
    const std::string name = text_of(finding, "candidate");
    for (std::size_t c = 0; c < n; ++c) {
      if (table.candidates[c] != name) continue;
      Check check;
      check.criterion = "data_check." + text_of(finding, "check");
      check.status = Status::kFail;
      check.reason = capitalised(text_of(finding, "message")) + ".";
      checks[c].push_back(std::move(check));
      any_data_check = true;
    }
  }
  bool any_permutation_test = false;
  for (std::size_t c = 0; c < n; ++c) {
    // One family per candidate: every permutation test of every risk headline and replicate.
    std::vector<double> family;
    std::vector<std::pair<std::size_t, std::size_t>> places;  // (risk row, replicate)
    for (std::size_t i = 0; i < risk_rows.size(); ++i)
      for (std::size_t r = 0; r < risk_rows[i]->nulls[c].size(); ++r)
        if (const auto& test = risk_rows[i]->nulls[c][r]) {
          family.push_back(test->p_value);
          places.emplace_back(i, r);
        }
    const std::vector<double> corrected = corrected_p_values(family, policy.multiplicity);
    std::vector<std::optional<CorrectedTest>> per_row(risk_rows.size());
    for (std::size_t k = 0; k < family.size(); ++k) {
      auto& best = per_row[places[k].first];
      if (!best || corrected[k] < best->p_value)
        best = CorrectedTest{corrected[k], *risk_rows[places[k].first]->nulls[c][places[k].second],
                             family.size(), policy.multiplicity};
    }
    any_permutation_test = any_permutation_test || !family.empty();
    for (std::size_t i = 0; i < risk_rows.size(); ++i) {
      const HeadlineRow* row = risk_rows[i];
      checks[c].push_back(default_check(*row, c, policy, per_row[i]));
      any_default_evaluated =
          any_default_evaluated || checks[c].back().status != Status::kNotEvaluated;
    }
    if (policy.default_checks && policy.utility_floor.enabled)
      checks[c].push_back(utility_floor_check(table, c, policy));
    if (policy.default_checks)
      for (const auto& row : table.rows)
        if (!row.gate_names.empty())
          checks[c].push_back(gate_check(document, row, c, table.candidates[c]));
    for (const auto& criterion : policy.criteria)
      checks[c].push_back(policy_check(document, criterion, table.candidates[c], where));
  }
  // The default risk families that did not run keep every candidate from passing.
  std::string families_missing;
  if (policy.default_checks && policy.require_default_checks)
    for (const auto& [family, reasons] : risk_families_not_run(document))
      families_missing += std::string(families_missing.empty() ? "" : "; ") + family + " (" +
                          join(reasons, ", ") + ")";
  // A gate (a test a metric made itself) is a check of its own: it makes a verdict too.
  bool any_gate = false;
  for (const auto& list : checks)
    for (const auto& check : list) any_gate = any_gate || (check.gate && check.value);
  if (policy.criteria.empty() && !any_default_evaluated && !any_gate) return nullptr;

  json criteria = json::array();
  if (any_data_check)
    criteria.push_back(
        {{"id", "data_check"},
         {"text",
          "Checks before the metrics: a candidate must not be the confidential data or the "
          "holdout, nor copy confidential rows far beyond chance (docs/cli.md)."},
         {"rule", "checks before the metrics"}});
  for (const HeadlineRow* row : risk_rows)
    criteria.push_back(describe_default_criterion(*row, policy));
  if (policy.default_checks && policy.utility_floor.enabled)
    criteria.push_back(
        {{"id", "utility_floor"},
         {"text",
          "Fit for use: per utility measure that tells them apart, how far the candidate goes "
          "from a file whose columns are independent (each drawn on its own from the confidential "
          "data: 0 %) to a resample of the confidential data or the value theory gives (100 %); "
          "fail when the median over those measures is below " +
              plain_number(policy.utility_floor.fail, "share") + ", review below " +
              plain_number(policy.utility_floor.review, "share") + "."},
         {"rule", "utility floor"},
         {"fail", policy.utility_floor.fail},
         {"review", policy.utility_floor.review}});
  if (policy.default_checks)
    for (const auto& row : table.rows)
      if (!row.gate_names.empty())
        criteria.push_back({{"id", default_criterion_id(row)},
                            {"text", capitalised(row.reading) +
                                         ": fails when above what a fresh real sample shows "
                                         "(the metric's own test, corrected over its "
                                         "hypotheses; docs/metrics.md)."},
                            {"metric", row.metric},
                            {"statistic", row.statistic},
                            {"scope", row.scope},
                            {"rule", "gate"}});
  for (const auto& c : policy.criteria)
    criteria.push_back(
        {{"id", c.id},
         {"text", capitalised(describe_criterion(c)) + "."},
         {"metric", c.metric},
         {"statistic", c.statistic},
         {"scope", c.scope},
         {"bound", c.bound},
         {"value", c.value},
         {"tolerance", optional_json(c.tolerance)},
         {"relative_to", c.relative_to.empty() ? json(nullptr) : json(c.relative_to)},
         {"subgroup", c.subgroup.empty() ? json(nullptr) : json(c.subgroup)}});

  std::vector<Status> status(n, Status::kPass);
  std::vector<std::vector<std::string>> reasons(n);
  for (std::size_t c = 0; c < n; ++c) {
    std::vector<const Check*> fails, reviews, passes, missing_policy;
    std::size_t default_evaluated = 0;
    const Check* floor = nullptr;
    for (const auto& check : checks[c]) {
      if (check.utility_floor) floor = &check;
      if (check.default_rule && check.status != Status::kNotEvaluated) ++default_evaluated;
      if (check.status == Status::kFail) fails.push_back(&check);
      if (check.status == Status::kReview) reviews.push_back(&check);
      if (check.status == Status::kPass) passes.push_back(&check);
      // An agency's criterion that could not be checked is not met; the default rule's checks
      // that could not be made (a metric not run) only count when none could be made at all.
      // The utility floor not judged (nothing to judge it by) is said, not held against it.
      if (check.status == Status::kNotEvaluated && !check.default_rule && !check.utility_floor &&
          !check.gate)
        missing_policy.push_back(&check);
    }
    if (!fails.empty())
      status[c] = Status::kFail;
    else if (!reviews.empty() || !missing_policy.empty() ||
             (!risk_rows.empty() && default_evaluated == 0) || !families_missing.empty())
      status[c] = Status::kReview;
    for (const Check* check : fails) reasons[c].push_back(check->reason);
    for (const Check* check : reviews) reasons[c].push_back(check->reason);
    for (const Check* check : missing_policy) reasons[c].push_back(check->reason);
    if (!risk_rows.empty() && default_evaluated == 0)
      reasons[c].push_back(
          "No record-level disclosure risk measure could be compared with a baseline (give a "
          "holdout file and run the disclosure metrics).");
    if (!families_missing.empty() && status[c] == Status::kReview)
      reasons[c].push_back(
          "Not every default risk family ran, so it cannot pass: " + families_missing +
          ". Run them, or set the policy's require_default_checks: false to judge without them.");
    if (status[c] == Status::kPass) {
      // The passing check closest to its fail limit, so the committee sees the tightest margin.
      const Check* tightest = nullptr;
      for (const Check* check : passes)
        if (check->default_rule && (tightest == nullptr || check->severity > tightest->severity))
          tightest = check;
      std::size_t policy_passes = 0;
      for (const Check* check : passes) policy_passes += !check->default_rule;
      std::string summary;
      if (default_evaluated > 0)
        summary = "All " + std::to_string(default_evaluated) +
                  (any_permutation_test
                       ? " record-level disclosure risk measures show no more risk than a fresh "
                         "sample of the population (permutation tests, " +
                             method_name(policy.multiplicity) + "-corrected)."
                       : " record-level disclosure risk measures are within the noise of their "
                         "baselines or below them.");
      if (policy_passes > 0)
        summary += std::string(summary.empty() ? "" : " ") + "Meets all " +
                   std::to_string(policy_passes) + " criteria of the release policy.";
      reasons[c].push_back(summary);
      if (floor != nullptr && floor->status == Status::kPass) reasons[c].push_back(floor->reason);
      if (tightest != nullptr) reasons[c].push_back("Closest to its limit: " + tightest->reason);
    } else if (floor != nullptr && floor->status == Status::kPass) {
      reasons[c].push_back(floor->reason);
    }
  }

  // The recommendation: never a failing candidate; the best utility among those that pass, or,
  // when none passes, among those to review.
  std::optional<std::size_t> recommended;
  for (Status wanted : {Status::kPass, Status::kReview}) {
    for (std::size_t c = 0; c < n; ++c) {
      if (status[c] != wanted) continue;
      const auto rank = table.utility_rank[c];
      if (!recommended || (rank && (!table.utility_rank[*recommended] ||
                                    *rank < *table.utility_rank[*recommended])))
        recommended = c;
    }
    if (recommended) break;
  }
  if (recommended) {
    const auto rank = table.utility_rank[*recommended];
    const bool floor_judged = std::any_of(
        checks[*recommended].begin(), checks[*recommended].end(),
        [](const Check& check) { return check.utility_floor && check.status == Status::kPass; });
    const std::string passes =
        floor_judged ? "it passes the risk checks and the utility floor" : "it passes";
    reasons[*recommended].insert(
        reasons[*recommended].begin(),
        std::string("Recommended: ") +
            (status[*recommended] == Status::kPass
                 ? passes + ", and has the best utility of the candidates that pass"
                 : std::string("no candidate passes; it has the best utility of those to review, "
                               "and needs that review before release")) +
            (rank ? " (mean utility rank " + plain_number(*rank) + " over " +
                        std::to_string(table.ranked_utility[*recommended]) + " headlines)."
                  : "."));
  }

  json candidates = json::array();
  for (std::size_t c = 0; c < n; ++c) {
    json list = json::array();
    for (const auto& check : checks[c]) list.push_back(check_to_json(check));
    candidates.push_back({{"name", table.candidates[c]},
                          {"status", to_string(status[c])},
                          {"reasons", reasons[c]},
                          {"checks", list}});
  }
  return {{"recommended", recommended ? json(table.candidates[*recommended]) : json(nullptr)},
          {"not_run", policy.default_checks ? default_checks_not_run(document) : json::array()},
          {"policy",
           {{"source", policy.source},
            {"multiplicity", policy.multiplicity},
            {"levels", {{"fail", policy.fail_level}, {"review", policy.review_level}}},
            {"require_default_checks", policy.require_default_checks},
            {"criteria", criteria}}},
          {"candidates", candidates}};
}

json judge_subgroups(const json& document, const ReleasePolicy& policy) {
  const json& groups = json_fields::member(json_fields::member(document, "subgroups"), "groups");
  if (!groups.is_array()) return nullptr;
  std::vector<std::string> candidates;
  for (const auto& c : json_fields::member(document, "candidates"))
    candidates.push_back(text_of(c, "name"));
  const RiskMargins& margins = policy.margins;
  struct Worst {
    double z = 0.0, value = 0.0, baseline = 0.0, sd = 0.0;
    const HeadlineRow* row = nullptr;
    std::string subgroup;
  };
  struct Tally {
    std::size_t compared = 0, beyond_review = 0, beyond_fail = 0;
    std::optional<Worst> worst;
  };
  std::vector<Tally> tallies(candidates.size());
  // The tables must outlive the tallies' row pointers.
  std::vector<HeadlineTable> tables;
  tables.reserve(groups.size());
  for (const auto& group : groups) {
    const std::string label = text_of(group, "label");
    tables.push_back(headline_table(document, label));
    for (const auto& row : tables.back().rows) {
      if (row.baseline_declaration.is_null() || !row.gate_names.empty()) continue;
      for (std::size_t c = 0; c < candidates.size() && c < row.values.size(); ++c) {
        // Only against a baseline with a measured noise: a value theory gives (a pMSE ratio of
        // 1) has none, and it is the subgroup's own sampling noise that scales the difference.
        const Check compared = default_rule_check(row, c);
        const double sd = difference_sd(row, c);
        if (!compared.value || !compared.baseline || !(sd > 0.0) || !std::isfinite(sd)) continue;
        const double v = *compared.value, b = *compared.baseline;
        const double z = (row.ideal.badness(v) - row.ideal.badness(b)) / sd;
        if (!std::isfinite(z)) continue;
        Tally& t = tallies[c];
        ++t.compared;
        t.beyond_review += z > margins.review_sd;
        t.beyond_fail += z > margins.fail_sd;
        if (!t.worst || z > t.worst->z) t.worst = Worst{z, v, b, sd, &row, label};
      }
    }
  }
  json out = {
      {"rule",
       "Each headline of each subgroup is compared with the subgroup's own baseline (where its "
       "sampling noise was measured): the standardised difference is how many standard "
       "deviations of the difference the candidate is worse than the baseline. The worst "
       "subgroup is where to look first, not a test: with many comparisons and statistics that "
       "are not normal, a fresh real sample is far from its baselines somewhere. Measured on the "
       "SD2011 survey re-split 40 times into 3,000 confidential records, 1,000 as the candidate "
       "and 1,000 as the holdout, by sex and smoking (172 comparisons per split): a fresh real "
       "sample had 10.5 % of its comparisons beyond 2 standard deviations and its worst above 4 "
       "in 37 of 40 splits (median 7.4); the same records with every smoker's age raised by 10 "
       "years had 21 % beyond 2, and their worst subgroup was a smoking one in 34 of 40 splits "
       "and above the fresh sample's worst in 38 (resamples of the confidential data share its "
       "records, so a fresh sample sits further from the data than they do). A subgroup changes "
       "the verdict only through "
       "a policy criterion that names it."},
      {"review_sd", margins.review_sd},
      {"fail_sd", margins.fail_sd},
      {"candidates", json::array()}};
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const Tally& t = tallies[c];
    json entry = {{"name", candidates[c]},
                  {"comparisons", t.compared},
                  {"beyond_review_sd", t.beyond_review},
                  {"beyond_fail_sd", t.beyond_fail},
                  {"worst", nullptr}};
    if (t.worst) {
      const Worst& w = *t.worst;
      const HeadlineRow& row = *w.row;
      const std::string name = row.baselines[c] ? row.baselines[c]->name : "";
      const bool size_matched = compared_at_baseline_size(row, c);
      entry["worst"] = {
          {"subgroup", w.subgroup},
          {"metric", row.metric},
          {"statistic", row.statistic},
          {"scope", row.scope},
          {"axis", row.axis},
          {"value", w.value},
          {"baseline", w.baseline},
          {"baseline_name", name},
          {"difference_sd", w.sd},
          {"standardised_difference", w.z},
          {"reason",
           "In subgroup " + w.subgroup + ", " + row.reading + ": " +
               plain_number(w.value, row.unit) + " for this candidate" +
               (size_matched ? " (at the holdout's size)" : "") + " against " +
               plain_number(w.baseline, row.unit) + " for " + baseline_phrase(name) + ", " +
               plain_number(w.z) + " standard deviations of the difference (" +
               plain_number(w.sd, row.unit) + ") " + (w.z >= 0.0 ? "worse" : "better") + "."}};
    }
    out["candidates"].push_back(std::move(entry));
  }
  return out;
}

void add_verdict(json& document, const ReleasePolicy& policy, const std::string& where) {
  if (document.contains("subgroups") && document["subgroups"].is_object())
    document["subgroups"]["judged"] = judge_subgroups(document, policy);
  document["verdict"] = decide_verdict(document, policy, where);
  if (document["verdict"].is_null()) {
    if (!document.contains("warnings") || !document["warnings"].is_array())
      document["warnings"] = json::array();
    document["warnings"].push_back(
        "no verdict: no record-level disclosure risk measure could be compared with a baseline "
        "(give a holdout file and run the disclosure metrics, or give a release policy)");
  }
}

bool no_candidate_passes(const json& document) {
  if (!document.contains("verdict") || !document["verdict"].is_object()) return false;
  for (const auto& c : document["verdict"].value("candidates", json::array()))
    if (text_of(c, "status") == "pass") return false;
  return true;
}

}  // namespace synthaudit
