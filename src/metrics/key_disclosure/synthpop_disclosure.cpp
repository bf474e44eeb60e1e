// synthpop's disclosure() measures for each key set × target, on codes: one group-by of
// (key, target) cells over the confidential and synthetic data, then sums over cells.
#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/key_disclosure/key_scenarios.hpp"
#include "metrics/references.hpp"
#include "stats/column_lookup.hpp"

namespace synthaudit {

namespace {

struct Exclusions {
  std::int64_t denom_lim = 5;
  bool exclude_over_denom_lim = false;
  bool use_target_missing = true;
  bool use_keys_missing = true;
  std::vector<std::string> not_target_levels;
  std::vector<std::string> exclude_keys, exclude_key_levels, exclude_target_levels;
};

double percent(double count, double n) { return n > 0 ? count / n * 100 : std::nan(""); }

// The counts behind synthpop's measures for one key set and target, in records (identity and
// attribute counts over N_d or N_s), whichever way they were counted.
struct DisclosureCounts {
  double uio = 0, uis = 0, uiois = 0, repu = 0, dorig = 0, dsyn = 0, is = 0, dis = 0, disco = 0,
         disdio = 0, capd = 0, caps = 0, dcap = 0;
  double max_denom = 0, positive_denom_sum = 0, positive_denoms = 0;
  double base_cap_share = 0;    // baseCAPd as a share
  double tcap_denominator = 0;  // confidential records whose key occurs in the synthetic data
  double excluded_original = 0, excluded_synthetic = 0;

  // One DiSCO denominator (the correctly attributed confidential records of a cell or key).
  void add_denominator(double records) {
    max_denom = std::max(max_denom, records);
    if (records > 0) {
      positive_denom_sum += records;
      positive_denoms += 1;
    }
  }
};

// The largest percentage over key sets and targets, with the records it counts (it is one
// scenario's measure, so it reveals that scenario's count).
struct LargestPercent {
  double percent = 0, records = 0;
  void offer(double candidate, double candidate_records) {
    if (candidate > percent) {
      percent = candidate;
      records = candidate_records;
    }
  }
};
struct Worst {
  LargestPercent repu, disco;
};

// The statistics of one key set and target, in percent of N_d or N_s. A measure that counts
// confidential records is added as a share of them (MetricValue::records); those counting
// synthetic records only, and the CAP scores (sums of proportions, not counts), are not.

void report_measures(const DisclosureCounts& c, double Nd, double Ns, const std::string& scope,
                     MetricResult& result, Worst& worst) {
  result.add_share("UiO", scope, c.uio, Nd, 100);
  result.add("UiS", scope, percent(c.uis, Ns));
  result.add_share("UiOiS", scope, c.uiois, Nd, 100);
  result.add_share("repU", scope, c.repu, Nd, 100);
  result.add_share("Dorig", scope, c.dorig, Nd, 100);
  result.add("Dsyn", scope, percent(c.dsyn, Ns));
  result.add_share("iS", scope, c.is, Nd, 100);
  result.add_share("DiS", scope, c.dis, Nd, 100);
  result.add_share("DiSCO", scope, c.disco, Nd, 100);
  result.add_share("DiSDiO", scope, c.disdio, Nd, 100);
  result.add("max_denom", scope, c.max_denom);
  result.add("mean_denom", scope,
             c.positive_denoms > 0 ? c.positive_denom_sum / c.positive_denoms : std::nan(""));
  result.add("baseCAPd", scope, c.base_cap_share * 100);
  result.add("CAPd", scope, percent(c.capd, Nd));
  result.add("CAPs", scope, percent(c.caps, Ns));
  result.add("DCAP", scope, percent(c.dcap, Nd));
  result.add_share("TCAP", scope, c.disco, c.tcap_denominator, 100);
  result.add("excluded_original", scope, c.excluded_original);
  result.add("excluded_synthetic", scope, c.excluded_synthetic);
  worst.repu.offer(percent(c.repu, Nd), c.repu);
  worst.disco.offer(percent(c.disco, Nd), c.disco);
}

void disclosure_one(const Table& conf, const Table& syn, const keydisc::ScenarioCodes& s,
                    std::size_t target_index, const stats::CodingOptions& coding,
                    const Exclusions& ex, MetricResult& result, Worst& worst) {
  const std::vector<const Table*> tables = {&conf, &syn};
  const stats::CodedColumn target =
      stats::code_column(tables, s.target_columns[target_index], coding);
  const stats::GroupIds target_ids{target.codes, target.levels()};
  const stats::PairIds cells = stats::combine_pair(s.keys, target_ids);
  const std::uint32_t K = s.keys.groups, C = cells.pairs.groups;
  const auto& key_of = cells.first_of;
  const auto& target_of = cells.second_of;
  const auto nd = stats::count_ids(cells.pairs.ids[0], C);
  const auto ns = stats::count_ids(cells.pairs.ids[1], C);
  const auto ndk_pre = stats::count_ids(s.keys.ids[0], K);
  const auto nsk_pre = stats::count_ids(s.keys.ids[1], K);
  const double Nd = static_cast<double>(conf.rows()), Ns = static_cast<double>(syn.rows());

  // Key components of every key id, for the exclusions that name one key's level.
  std::vector<std::vector<std::uint32_t>> component(s.keys_coded.size(),
                                                    std::vector<std::uint32_t>(K, 0));
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t r = 0; r < s.keys.ids[t].size(); ++r)
      for (std::size_t i = 0; i < s.keys_coded.size(); ++i)
        component[i][s.keys.ids[t][r]] = s.keys_coded[i].codes[t][r];

  // Cells zeroed by the exclusion flags (tab_exclude in synthpop), except denom_lim which depends
  // on each table's own cell value.
  std::vector<char> excluded(C, 0);
  auto level_of = [](const stats::CodedColumn& col, const std::string& label) -> std::uint32_t {
    for (std::uint32_t l = 0; l < col.levels(); ++l)
      if (col.labels[l] == label) return l;
    return stats::kNoLevel;
  };
  std::vector<char> target_out(target.levels(), 0);
  for (const auto& label : ex.not_target_levels)
    if (auto l = level_of(target, label); l != stats::kNoLevel) target_out[l] = 1;
  bool conf_target_missing = false;
  if (target.missing_level != stats::kNoLevel)
    for (auto code : target.codes[0]) conf_target_missing |= code == target.missing_level;
  if (!ex.use_target_missing && conf_target_missing) target_out[target.missing_level] = 1;
  for (std::uint32_t c = 0; c < C; ++c) {
    if (target_out[target_of[c]]) excluded[c] = 1;
    if (!ex.use_keys_missing)
      for (std::size_t i = 0; i < s.keys_coded.size(); ++i)
        if (s.keys_coded[i].missing_level != stats::kNoLevel &&
            component[i][key_of[c]] == s.keys_coded[i].missing_level)
          excluded[c] = 1;
    for (std::size_t e = 0; e < ex.exclude_keys.size(); ++e) {
      auto it = std::find(s.key_names.begin(), s.key_names.end(), ex.exclude_keys[e]);
      if (it == s.key_names.end()) continue;
      const auto i = static_cast<std::size_t>(it - s.key_names.begin());
      const auto klev = level_of(s.keys_coded[i], ex.exclude_key_levels[e]);
      const auto tlev = level_of(target, ex.exclude_target_levels[e]);
      if (klev != stats::kNoLevel && tlev != stats::kNoLevel && component[i][key_of[c]] == klev &&
          target_of[c] == tlev)
        excluded[c] = 1;
    }
  }
  auto keep = [&](std::uint32_t c, double x) {
    if (excluded[c]) return 0.0;
    if (ex.exclude_over_denom_lim && x > static_cast<double>(ex.denom_lim)) return 0.0;
    return x;
  };

  // Tables before exclusions (synthpop computes them from the unexcluded proportions).
  std::vector<std::uint32_t> syn_levels(K, 0);  // target levels seen per key in synthetic
  for (std::uint32_t c = 0; c < C; ++c)
    if (ns[c] > 0) ++syn_levels[key_of[c]];
  std::vector<double> base_td(target.levels(), 0.0);
  for (std::uint32_t c = 0; c < C; ++c) base_td[target_of[c]] += nd[c];

  std::vector<double> ndx(C), nsx(C), ndk(K, 0.0), nsk(K, 0.0);
  DisclosureCounts counts;
  for (std::uint32_t c = 0; c < C; ++c) {
    ndx[c] = keep(c, nd[c]);
    nsx[c] = keep(c, ns[c]);
    counts.excluded_original += nd[c] - ndx[c];
    counts.excluded_synthetic += ns[c] - nsx[c];
    ndk[key_of[c]] += ndx[c];
    nsk[key_of[c]] += nsx[c];
  }
  for (std::uint32_t c = 0; c < C; ++c) {
    const auto k = key_of[c];
    const bool pd1 = nd[c] > 0 && nd[c] == ndk_pre[k];
    const bool ps1 = ns[c] > 0 && ns[c] == nsk_pre[k];
    const bool in_syn = nsk_pre[k] > 0;
    counts.dorig += keep(c, pd1 ? nd[c] : 0.0);
    counts.dsyn += keep(c, ps1 ? ns[c] : 0.0);
    counts.is += keep(c, in_syn ? nd[c] : 0.0);
    counts.dis += keep(c, syn_levels[k] == 1 ? nd[c] : 0.0);
    const double dc = keep(c, ps1 ? nd[c] : 0.0);
    counts.disco += dc;
    counts.disdio += keep(c, ps1 && pd1 ? nd[c] : 0.0);
    counts.add_denominator(dc);
    if (ndk[k] > 0) counts.capd += ndx[c] * ndx[c] / ndk[k];
    if (nsk[k] > 0) {
      counts.caps += nsx[c] * nsx[c] / nsk[k];
      counts.dcap += nsx[c] / nsk[k] * ndx[c];
    }
  }
  for (std::uint32_t k = 0; k < K; ++k) {
    counts.uis += nsk[k] == 1;
    counts.uio += ndk[k] == 1;
    counts.uiois += ndk[k] == 1 && nsk_pre[k] > 0;
    counts.repu += nsk[k] == 1 && ndk[k] == 1;
    if (nsk[k] > 0) counts.tcap_denominator += ndk[k];
  }
  for (double t : base_td) counts.base_cap_share += (t / Nd) * (t / Nd);

  report_measures(counts, Nd, Ns, keydisc::scope_of(s.key_names, s.target_names[target_index]),
                  result, worst);
}

// The same measures record by record under a matching rule that is not synthpop's (a numeric
// target matched within a tolerance, or missing values that match nothing), where cells of a
// (key × target) table no longer exist. Keys match as coded levels, a record with a missing key
// value matching nothing when missing values do not match; the target matches under the whole
// rule, the record's own value taken as the confidential one. For a confidential record r with
// d(r), s(r) the confidential and synthetic records sharing its key and d(r,t), s(r,t) those of
// them whose target matches r's: UiO counts d(r) = 1, iS s(r) > 0, repU d(r) = s(r) = 1, Dorig
// d(r,t) = d(r) > 0, DiSCO s(r,t) = s(r) > 0, DiSDiO both; DiS counts s(r) > 0 when some
// synthetic record z of r's key has s(z,t) = s(z) (the synthetic records of the key agree with
// one of them); CAPd = Σ d(r,t)/d(r), DCAP = Σ s(r,t)/s(r) (over s(r) > 0), TCAP = DiSCO /
// #{s(r) > 0}; UiS, Dsyn and CAPs likewise within the synthetic data; baseCAPd = Σ_r #{targets
// matching t_r}/N_d², all over N_d (N_s) in percent; max_denom and mean_denom over the DiSCO
// records of each key. With exact equality and missing a value these are synthpop's cell sums.
void disclosure_by_rule(const Table& conf, const Table& syn, const keydisc::ScenarioCodes& s,
                        std::size_t target_index, const stats::CodingOptions& coding,
                        const keydisc::MatchingRule& rule, MetricResult& result, Worst& worst) {
  const std::size_t column = s.target_columns[target_index];
  const bool tolerant = rule.tolerant() && conf.column(column).is_numeric();
  // Coded targets are compared as level numbers with no tolerance.
  const keydisc::MatchingRule target_rule =
      tolerant ? rule : keydisc::MatchingRule{0.0, 0.0, rule.missing_matches};
  std::vector<double> values[2];
  if (tolerant) {
    values[0] = conf.column(column).numeric;
    values[1] = syn.column(column).numeric;
  } else {
    const stats::CodedColumn target = stats::code_column({&conf, &syn}, column, coding);
    for (std::size_t t = 0; t < 2; ++t) {
      values[t].resize(target.codes[t].size());
      for (std::size_t r = 0; r < values[t].size(); ++r)
        values[t][r] = target.codes[t][r] == target.missing_level
                           ? std::nan("")
                           : static_cast<double>(target.codes[t][r]);
    }
  }
  const std::uint32_t K = s.keys.groups;
  // Key groups whose key has a missing value match nothing when missing does not match missing.
  std::vector<char> group_matchable(K, 1);
  if (!rule.missing_matches)
    for (std::size_t t = 0; t < 2; ++t)
      for (std::size_t r = 0; r < s.keys.ids[t].size(); ++r)
        for (const auto& key : s.keys_coded)
          if (key.codes[t][r] == key.missing_level) group_matchable[s.keys.ids[t][r]] = 0;
  std::vector<double> n_key[2] = {std::vector<double>(K, 0.0), std::vector<double>(K, 0.0)};
  std::vector<char> all[2];
  keydisc::SortedByKey sorted[2];
  for (std::size_t t = 0; t < 2; ++t) {
    for (auto k : s.keys.ids[t])
      if (group_matchable[k]) n_key[t][k] += 1;
    all[t].assign(values[t].size(), 1);
    sorted[t] = keydisc::sort_by_key(s.keys.ids[t], values[t], all[t], K);
  }
  const double Nd = static_cast<double>(conf.rows()), Ns = static_cast<double>(syn.rows());

  DisclosureCounts counts;
  std::vector<char> syn_key_agrees(K, 0);
  for (std::size_t z = 0; z < values[1].size(); ++z) {
    const auto k = s.keys.ids[1][z];
    const double sk = n_key[1][k];
    if (sk == 0) continue;
    const double skt = keydisc::count_matching(sorted[1], k, values[1][z], target_rule);
    counts.uis += sk == 1;
    counts.dsyn += skt == sk;
    counts.caps += skt / sk;
    if (skt == sk) syn_key_agrees[k] = 1;
  }
  std::vector<double> disco_of_key(K, 0.0);
  for (std::size_t r = 0; r < values[0].size(); ++r) {
    const auto k = s.keys.ids[0][r];
    const double dk = n_key[0][k], sk = n_key[1][k];
    if (dk == 0) continue;
    const double v = values[0][r];
    const double dkt = keydisc::count_matching(sorted[0], k, v, target_rule);
    const double skt = sk > 0 ? keydisc::count_matching(sorted[1], k, v, target_rule) : 0.0;
    counts.uio += dk == 1;
    counts.uiois += dk == 1 && sk > 0;
    counts.repu += dk == 1 && sk == 1;
    counts.dorig += dkt == dk;
    counts.capd += dkt / dk;
    if (sk == 0) continue;
    counts.tcap_denominator += 1;
    counts.is += 1;
    counts.dis += syn_key_agrees[k];
    const bool correct = skt == sk;
    counts.disco += correct;
    counts.disdio += correct && dkt == dk;
    disco_of_key[k] += correct;
    counts.dcap += skt / sk;
  }
  for (double c : disco_of_key) counts.add_denominator(c);
  // baseCAPd: the target alone, every confidential record one group.
  const std::vector<std::uint32_t> one_group(values[0].size(), 0);
  const keydisc::SortedByKey everyone = keydisc::sort_by_key(one_group, values[0], all[0], 1);
  double base = 0;
  for (double v : values[0]) base += keydisc::count_matching(everyone, 0, v, target_rule);
  counts.base_cap_share = Nd > 0 ? base / (Nd * Nd) : std::nan("");

  report_measures(counts, Nd, Ns, keydisc::scope_of(s.key_names, s.target_names[target_index]),
                  result, worst);
}

MetricResult compute_synthpop_disclosure(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (in.context.scenarios.empty())
    throw MetricNotApplicable("no disclosure keys and targets given");
  Exclusions ex;
  ex.denom_lim = params.get_int("denom_lim");
  ex.exclude_over_denom_lim = params.get_bool("exclude_over_denom_lim");
  ex.use_target_missing = params.get_bool("use_target_missing");
  ex.use_keys_missing = params.get_bool("use_keys_missing");
  ex.not_target_levels = params.get_string_list("not_target_levels");
  ex.exclude_keys = params.get_string_list("exclude_keys");
  ex.exclude_key_levels = params.get_string_list("exclude_key_levels");
  ex.exclude_target_levels = params.get_string_list("exclude_target_levels");
  if (ex.exclude_key_levels.size() != ex.exclude_keys.size() ||
      ex.exclude_target_levels.size() != ex.exclude_keys.size())
    throw InputError(
        "parameters exclude_keys, exclude_key_levels and exclude_target_levels must "
        "have the same length");
  for (const auto& k : ex.exclude_keys)
    stats::resolve_columns(conf, {k}, "parameter exclude_keys: column");
  const auto coding = keydisc::coding_options(params);
  const auto rule = keydisc::matching_rule(params);
  const bool excludes = ex.exclude_over_denom_lim || !ex.use_target_missing ||
                        !ex.use_keys_missing || !ex.not_target_levels.empty() ||
                        !ex.exclude_keys.empty();
  MetricResult result;
  Worst worst;
  for (const auto& scenario : in.context.scenarios) {
    const auto s = keydisc::code_scenario({&conf, &syn}, scenario, coding);
    if (conf.rows() == 0 || syn.rows() == 0) {
      result.warnings.push_back("keys " + join(scenario.keys, ",") + ": a dataset has no rows");
      continue;
    }
    for (std::size_t t = 0; t < s.target_names.size(); ++t) {
      const bool cells = rule.missing_matches &&
                         !(rule.tolerant() && conf.column(s.target_columns[t]).is_numeric());
      if (cells) {
        disclosure_one(conf, syn, s, t, coding, ex, result, worst);
        continue;
      }
      if (excludes)
        throw InputError(
            "parameters of synthpop_disclosure: synthpop's exclusions (denom_lim with "
            "exclude_over_denom_lim, use_target_missing, use_keys_missing, not_target_levels, "
            "exclude_keys) zero cells of its exact tables; use them with synthpop's matching rule "
            "(numeric_tolerance 0, relative_tolerance 0, missing_matches true)");
      disclosure_by_rule(conf, syn, s, t, coding, rule, result, worst);
    }
  }
  if (!result.values.empty()) {
    result.add("repU_max", "all", worst.repu.percent, worst.repu.records);
    result.add("DiSCO_max", "all", worst.disco.percent, worst.disco.records);
  }
  return result;
}

}  // namespace

MetricSpec synthpop_disclosure_metric() {
  using enum ScopeKind;
  using namespace references;
  auto params = keydisc::coding_params("exact", 5);
  for (auto& p : keydisc::matching_params()) params.push_back(std::move(p));
  params.push_back({.name = "denom_lim",
                    .type = ParamType::kInt,
                    .default_value = std::int64_t{5},
                    .doc = "cells of the key × target tables above this count are zeroed when "
                           "exclude_over_denom_lim is true (synthpop denom_lim)",
                    .min = 1});
  params.push_back({.name = "exclude_over_denom_lim",
                    .type = ParamType::kBool,
                    .default_value = false,
                    .doc = "zero every table cell with a count above denom_lim (synthpop "
                           "exclude_ov_denom_lim)"});
  params.push_back({.name = "use_target_missing",
                    .type = ParamType::kBool,
                    .default_value = true,
                    .doc = "false: records with a missing target are left out of the tables "
                           "(synthpop usetargetNA)"});
  params.push_back({.name = "use_keys_missing",
                    .type = ParamType::kBool,
                    .default_value = true,
                    .doc = "false: records with a missing value in any key are left out "
                           "(synthpop usekeysNA)"});
  params.push_back({.name = "not_target_levels",
                    .type = ParamType::kStringList,
                    .default_value = std::vector<std::string>{},
                    .doc = "target levels whose records are left out (synthpop not.targetlev)"});
  params.push_back({.name = "exclude_keys",
                    .type = ParamType::kStringList,
                    .default_value = std::vector<std::string>{},
                    .doc = "with exclude_key_levels and exclude_target_levels: (key, key level, "
                           "target level) combinations left out (synthpop exclude.keys)",
                    .names_columns = true});
  params.push_back({.name = "exclude_key_levels",
                    .type = ParamType::kStringList,
                    .default_value = std::vector<std::string>{},
                    .doc = "see exclude_keys (synthpop exclude.keylevs)"});
  params.push_back({.name = "exclude_target_levels",
                    .type = ParamType::kStringList,
                    .default_value = std::vector<std::string>{},
                    .doc = "see exclude_keys (synthpop exclude.targetlevs)"});
  return MetricSpec{
      .name = "synthpop_disclosure",
      .family = MetricFamily::kKeyDisclosure,
      .summary =
          "synthpop disclosure(): identity (UiO, UiS, UiOiS, repU) and attribute (Dorig, "
          "Dsyn, iS, DiS, DiSCO, DiSDiO, CAP, DCAP, TCAP) measures per key set and target",
      .doc =
          "For each key set K and target t, with d(k,t) and s(k,t) the confidential and "
          "synthetic counts of key k and target level t (missing a level of its own), N_d and "
          "N_s the row counts, all in percent: UiO = #{k: d(k)=1}/N_d; UiS = #{k: s(k)=1}/N_s; "
          "UiOiS = #{k: d(k)=1, s(k)>0}/N_d; repU = #{k: d(k)=1, s(k)=1}/N_d (replicated "
          "uniques). Dorig = Σ d(k,t)[d(k,t)=d(k)]/N_d (keys whose confidential records all share "
          "one target level); Dsyn likewise in the synthetic data /N_s; iS = Σ d(k,t)[s(k)>0]/N_d; "
          "DiS = Σ d(k,t)[k disclosive in synthetic]/N_d; DiSCO = Σ d(k,t)[s(k,t)=s(k)>0]/N_d "
          "(disclosive in synthetic and correct); DiSDiO = DiSCO also requiring d(k,t)=d(k); "
          "max_denom and mean_denom: largest and mean positive DiSCO cell. baseCAPd = Σ_t "
          "p_d(t)²; CAPd = Σ d(k,t)²/d(k)/N_d; CAPs = Σ s(k,t)²/s(k)/N_s; DCAP = Σ "
          "d(k,t)·s(k,t)/s(k)/N_d; TCAP = DiSCO cells / Σ_{s(k)>0} d(k). Exclusion flags zero "
          "table cells as synthpop's tab_exclude does, after the disclosive cells were found. "
          "Numeric keys are used as exact values unless `numeric` says otherwise (synthpop "
          "makes every remaining numeric a factor). Matching follows the family's rule "
          "(disclosure_matching): with synthpop's (numeric_tolerance 0, relative_tolerance 0, "
          "missing_matches true) these are synthpop's cell sums; otherwise they are counted "
          "record by record — keys as coded levels (a missing key value matching nothing when "
          "missing values do not match), the target under the whole rule with the record's own "
          "value as the confidential one: d(r), s(r) the confidential and synthetic records "
          "sharing r's key, d(r,t), s(r,t) those whose target matches r's; Dorig counts "
          "d(r,t) = d(r), DiSCO s(r,t) = s(r) > 0, DiS s(r) > 0 where some synthetic record z of "
          "the key has s(z,t) = s(z), CAPd = Σ d(r,t)/d(r), DCAP = Σ s(r,t)/s(r), max_denom and "
          "mean_denom over the DiSCO records per key; synthpop's exclusions need synthpop's "
          "rule. Reading: repU and DiSCO are synthpop's "
          "headline identity and attribute risks (lower is safer).",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .headlines = {{.statistic = "repU_max",
                     .ideal = Ideal::lower(),
                     .reading = "percent of real records unique on the keys whose key is also "
                                "unique in the synthetic data (worst key set)",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kPercent},
                    {.statistic = "DiSCO_max",
                     .ideal = Ideal::lower(),
                     .reading = "percent of real records whose target the synthetic data disclose "
                                "correctly from the keys (worst key set and target)",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kPercent}},
      .compute = compute_synthpop_disclosure,
      .statistics =
          {{"UiO", "% of confidential records unique on the keys", std::nullopt, {kScenario}},
           {"UiS", "% of synthetic records unique on the keys", std::nullopt, {kScenario}},
           {"UiOiS",
            "% of confidential records unique on the keys whose key occurs in the synthetic data",
            Ideal::lower(),
            {kScenario}},
           {"repU",
            "replicated uniques: % of confidential records unique on the keys whose key is also "
            "unique in the synthetic data",
            Ideal::lower(),
            {kScenario}},
           {"Dorig",
            "% of confidential records whose key's records all share one target level in the "
            "confidential data",
            std::nullopt,
            {kScenario}},
           {"Dsyn",
            "% of synthetic records whose key's records all share one target level in the "
            "synthetic data",
            std::nullopt,
            {kScenario}},
           {"iS",
            "% of confidential records whose key occurs in the synthetic data",
            std::nullopt,
            {kScenario}},
           {"DiS",
            "% of confidential records whose key is disclosive in the synthetic data",
            Ideal::lower(),
            {kScenario}},
           {"DiSCO",
            "% of confidential records whose key is disclosive in the synthetic data and gives "
            "their correct target",
            Ideal::lower(),
            {kScenario}},
           {"DiSDiO",
            "DiSCO further restricted to keys disclosive in the confidential data too",
            Ideal::lower(),
            {kScenario}},
           {"max_denom",
            "largest size of a positive DiSCO cell (a number of records)",
            std::nullopt,
            {kScenario},
            OutputClass::kCount},
           {"mean_denom", "mean size of a positive DiSCO cell", std::nullopt, {kScenario}},
           {"{baseCAPd|CAPd|CAPs}",
            "CAP baselines: target shares alone, and CAP within the confidential and within the "
            "synthetic data (%)",
            std::nullopt,
            {kScenario}},
           {"DCAP",
            "% CAP of the confidential targets predicted from the synthetic data",
            Ideal::lower(),
            {kScenario}},
           {"TCAP",
            "targeted CAP: DiSCO cells as % of the records whose key occurs in the synthetic data",
            Ideal::lower(),
            {kScenario}},
           {"{excluded_original|excluded_synthetic}",
            "records left out by the exclusion parameters",
            std::nullopt,
            {kScenario},
            OutputClass::kCount},
           {"{repU_max|DiSCO_max}",
            "the largest repU or DiSCO over the scenarios and targets",
            Ideal::lower(),
            {kAll}}},
      .references =
          {cite(raab_nowok_dibben_2024(),
                "the identity and attribute measures of disclosure(); repU and DiSCO recommended"),
           cite(synthpop_software(), "disclosure() reproduced on SD2011"),
           cite(taub_2018(), "DCAP and TCAP")},
  };
}

}  // namespace synthaudit
