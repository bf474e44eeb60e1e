// Identity disclosure by matching for partial synthesis with row correspondence: for each
// confidential record, the synthetic records that match its keys; expected match risk, true and
// false match rates.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/key_disclosure/key_scenarios.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

struct Matches {
  std::vector<double> candidates;  // c_i
  std::vector<char> true_in;       // T_i
};

// Whether confidential record i has a missing value in any coded key.
bool any_key_missing(const keydisc::ScenarioCodes& s, std::size_t i) {
  for (const auto& k : s.keys_coded)
    if (k.codes[0][i] == k.missing_level) return true;
  return false;
}

// Exact matching on coded keys: one group-by. A record with a missing key value has no
// candidate when missing does not match missing.
Matches exact_matches(const keydisc::ScenarioCodes& s, std::size_t n, bool missing_matches) {
  const stats::GroupIds& keys = s.keys;
  Matches m;
  const auto counts = stats::count_ids(keys.ids[1], keys.groups);
  m.candidates.resize(n);
  m.true_in.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!missing_matches && any_key_missing(s, i)) continue;
    m.candidates[i] = counts[keys.ids[0][i]];
    m.true_in[i] = keys.ids[0][i] == keys.ids[1][i];
  }
  return m;
}

// Categorical keys exact, numeric keys within the rule's tolerance: synthetic records are sorted
// by (categorical group, first numeric key); each confidential record scans only its window.
Matches tolerance_matches(const Table& conf, const Table& syn, const keydisc::ScenarioCodes& s,
                          const keydisc::MatchingRule& rule) {
  const std::size_t n = conf.rows();
  std::vector<std::size_t> numeric;
  std::vector<const stats::CodedColumn*> categorical;
  for (std::size_t i = 0; i < s.key_columns.size(); ++i) {
    if (conf.column(s.key_columns[i]).is_numeric())
      numeric.push_back(s.key_columns[i]);
    else
      categorical.push_back(&s.keys_coded[i]);
  }
  stats::GroupIds groups;
  if (categorical.empty()) {
    groups.ids = {std::vector<std::uint32_t>(n, 0), std::vector<std::uint32_t>(syn.rows(), 0)};
    groups.groups = 1;
  } else {
    groups = stats::combine(categorical);
  }
  const auto& first_c = conf.column(numeric[0]).numeric;
  const auto& first_s = syn.column(numeric[0]).numeric;
  // Synthetic rows ordered by (group, first numeric value), missing values last in a group.
  std::vector<std::uint32_t> start(groups.groups + 1, 0), order(syn.rows());
  for (auto g : groups.ids[1]) ++start[g + 1];
  for (std::uint32_t g = 0; g < groups.groups; ++g) start[g + 1] += start[g];
  std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
  for (std::size_t j = 0; j < syn.rows(); ++j)
    order[fill[groups.ids[1][j]]++] = static_cast<std::uint32_t>(j);
  auto value_less = [&](std::uint32_t a, std::uint32_t b) {
    const double x = first_s[a], y = first_s[b];
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return x < y || (x == y && a < b);
  };
  for (std::uint32_t g = 0; g < groups.groups; ++g)
    std::sort(order.begin() + start[g], order.begin() + start[g + 1], value_less);

  Matches m;
  m.candidates.assign(n, 0);
  m.true_in.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    bool categorical_missing = false;
    for (const auto* c : categorical) categorical_missing |= c->codes[0][i] == c->missing_level;
    if (categorical_missing && !rule.missing_matches) continue;
    const auto g = groups.ids[0][i];
    const auto first = order.begin() + start[g], last = order.begin() + start[g + 1];
    const auto nonmissing_end =
        std::partition_point(first, last, [&](std::uint32_t j) { return !std::isnan(first_s[j]); });
    auto lo = nonmissing_end, hi = rule.missing_matches ? last : nonmissing_end;
    const double v = first_c[i];
    if (!std::isnan(v)) {
      const double radius = rule.radius(v);
      lo = std::partition_point(first, nonmissing_end,
                                [&](std::uint32_t j) { return first_s[j] < v - radius; });
      hi = std::partition_point(lo, nonmissing_end,
                                [&](std::uint32_t j) { return first_s[j] <= v + radius; });
    }
    for (auto it = lo; it != hi; ++it) {
      bool ok = true;
      for (std::size_t k = 1; k < numeric.size() && ok; ++k)
        ok = rule.matches(conf.column(numeric[k]).numeric[i], syn.column(numeric[k]).numeric[*it]);
      if (!ok) continue;
      m.candidates[i] += 1;
      if (*it == i) m.true_in[i] = 1;
    }
  }
  return m;
}

MetricResult compute_identity_matching(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (in.context.scenarios.empty()) throw MetricNotApplicable("no disclosure keys given");
  if (syn.rows() != conf.rows())
    throw MetricNotApplicable(
        "identity matching needs synthetic rows that correspond to the "
        "confidential rows (partial synthesis)");
  const auto coding = keydisc::coding_options(params);
  const auto rule = keydisc::matching_rule(params);
  MetricResult result;
  double worst = -1, worst_records = 0;
  for (const auto& scenario : in.context.scenarios) {
    const auto s = keydisc::code_scenario({&conf, &syn}, scenario, coding);
    const std::string scope = "keys=" + join(s.key_names, ",");
    if (conf.rows() == 0) {
      result.warnings.push_back(scope + ": no confidential records");
      continue;
    }
    bool any_numeric = false;
    for (auto c : s.key_columns) any_numeric |= conf.column(c).is_numeric();
    const Matches m = rule.tolerant() && any_numeric
                          ? tolerance_matches(conf, syn, s, rule)
                          : exact_matches(s, conf.rows(), rule.missing_matches);
    double expected = 0, unique = 0, true_unique = 0, no_match = 0;
    for (std::size_t i = 0; i < conf.rows(); ++i) {
      if (m.true_in[i]) expected += 1.0 / m.candidates[i];
      if (m.candidates[i] == 1) {
        unique += 1;
        true_unique += m.true_in[i];
      }
      no_match += m.candidates[i] == 0;
    }
    const double n = static_cast<double>(conf.rows());
    result.add("expected_match_risk", scope, expected);
    result.add("expected_match_rate", scope, expected / n);
    result.add_share("true_match_rate", scope, true_unique, n);
    result.add("false_match_rate", scope,
               unique > 0 ? (unique - true_unique) / unique : std::nan(""));
    result.add("unique_matches", scope, unique);
    result.add("true_unique_matches", scope, true_unique);
    result.add_share("no_match_share", scope, no_match, n);
    if (true_unique / n > worst) {
      worst = true_unique / n;
      worst_records = true_unique;
    }
  }
  if (worst >= 0) result.add("true_match_rate_max", "all", worst, worst_records);
  return result;
}

}  // namespace

MetricSpec identity_matching_metric() {
  using enum ScopeKind;
  using namespace references;
  auto params = keydisc::coding_params("exact", 5);
  for (auto& p : keydisc::matching_params()) params.push_back(std::move(p));
  return MetricSpec{
      .name = "identity_matching",
      .family = MetricFamily::kKeyDisclosure,
      .summary =
          "Identity disclosure by key matching for partial synthesis: expected match "
          "risk, true and false match rates",
      .doc =
          "Partial synthesis, synthetic row i corresponds to confidential row i. For each "
          "confidential record i the intruder's candidate set is the synthetic records whose "
          "keys match i's confidential keys (exact on categoricals; numerics within ± "
          "max(numeric_tolerance, relative_tolerance × |confidential value|), or exact as coded "
          "by `numeric` when both are 0); c_i its size and T_i = 1 when synthetic record i is "
          "in it. expected_match_risk = Σ_i T_i / c_i (expected number of correct "
          "re-identifications by an intruder picking uniformly in the candidate set; "
          "expected_match_rate = that / n); true_match_rate = #{c_i = 1, T_i = 1} / n; "
          "false_match_rate = #{c_i = 1, T_i = 0} / #{c_i = 1}; no_match_share = share with "
          "c_i = 0. A missing key value matches only a missing value, and only with "
          "missing_matches. "
          "Reading: higher expected and "
          "true match rates and a lower false match rate mean more identity risk.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_row_correspondence = true,
      .needs_scenarios = true,
      .headlines = {{.statistic = "true_match_rate_max",
                     .ideal = Ideal::lower(),
                     .reading = "share of real records an intruder re-identifies uniquely and "
                                "correctly from the keys (worst key set)",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kShare}},
      .compute = compute_identity_matching,
      .statistics =
          {{"expected_match_risk",
            "Σ T_i/c_i: expected correct re-identifications by an intruder picking uniformly in "
            "each candidate set",
            Ideal::lower(),
            {kScenario}},
           {"expected_match_rate", "expected_match_risk / n", Ideal::lower(), {kScenario}},
           {"true_match_rate",
            "share of confidential records matched uniquely and correctly",
            Ideal::lower(),
            {kScenario}},
           {"false_match_rate",
            "share of unique matches that are wrong",
            Ideal::higher(),
            {kScenario}},
           {"unique_matches",
            "confidential records with exactly one candidate",
            std::nullopt,
            {kScenario}},
           {"true_unique_matches", "unique matches that are correct", Ideal::lower(), {kScenario}},
           {"no_match_share",
            "share of confidential records with no candidate",
            Ideal::higher(),
            {kScenario}},
           {"true_match_rate_max",
            "the largest true_match_rate over the scenarios",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(reiter_mitra_2009(), "expected match risk, true and false match rates"),
                     cite(hornby_hu_2021(), "matching within a radius on continuous keys"),
                     cite(urban_institute_2023(), "worked example of the three rates")},
  };
}

}  // namespace synthaudit
