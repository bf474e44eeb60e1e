// Correct attribution probability (CAP) of every confidential record, its averages, the
// confidential baseline and the DCAP ratio, from one group-by of (key, target) cells.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/key_disclosure/key_scenarios.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

MetricResult compute_cap(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (in.context.scenarios.empty())
    throw MetricNotApplicable("no disclosure keys and targets given");
  const auto coding = keydisc::coding_options(params);
  const bool exclude_missing = params.get_string("missing") == "exclude";
  const auto rule = keydisc::matching_rule(params);
  const bool record_level = params.get_bool("record_level");
  MetricResult result;
  result.details["plots"] = nlohmann::json::array();
  double worst_v1 = -1, worst_ratio = -1;
  for (const auto& scenario : in.context.scenarios) {
    const auto s = keydisc::code_scenario({&conf, &syn}, scenario, coding);
    for (std::size_t ti = 0; ti < s.target_names.size(); ++ti) {
      const std::string scope = keydisc::scope_of(s.key_names, s.target_names[ti]);
      const stats::CodedColumn target =
          stats::code_column({&conf, &syn}, s.target_columns[ti], coding);
      const bool numeric_tolerance =
          rule.tolerant() && conf.column(s.target_columns[ti]).is_numeric();
      // Records used: all, or those with no missing key or target (missing = exclude).
      std::vector<std::vector<char>> use(2);
      for (std::size_t t = 0; t < 2; ++t) {
        use[t].assign(s.keys.ids[t].size(), 1);
        if (!exclude_missing) continue;
        for (std::size_t r = 0; r < use[t].size(); ++r) {
          bool miss = target.codes[t][r] == target.missing_level;
          for (const auto& k : s.keys_coded) miss |= k.codes[t][r] == k.missing_level;
          use[t][r] = !miss;
        }
      }
      const std::uint32_t K = s.keys.groups;
      std::vector<double> nk[2] = {std::vector<double>(K, 0.0), std::vector<double>(K, 0.0)};
      for (std::size_t t = 0; t < 2; ++t)
        for (std::size_t r = 0; r < use[t].size(); ++r)
          if (use[t][r]) nk[t][s.keys.ids[t][r]] += 1;
      // A record with a missing key value has no key to match when missing does not match
      // missing: no record shares its key, in either dataset.
      std::vector<char> key_missing(conf.rows(), 0);
      if (!rule.missing_matches)
        for (std::size_t r = 0; r < conf.rows(); ++r)
          for (const auto& k : s.keys_coded) key_missing[r] |= k.codes[0][r] == k.missing_level;
      // Matching records of each confidential record: same cell, or same key and target within
      // the tolerance.
      std::vector<double> match_syn(conf.rows(), 0.0), match_conf(conf.rows(), 0.0);
      if (numeric_tolerance) {
        const auto& cv = conf.column(s.target_columns[ti]).numeric;
        const auto& sv = syn.column(s.target_columns[ti]).numeric;
        const auto sorted_syn = keydisc::sort_by_key(s.keys.ids[1], sv, use[1], K);
        const auto sorted_conf = keydisc::sort_by_key(s.keys.ids[0], cv, use[0], K);
        for (std::size_t r = 0; r < conf.rows(); ++r) {
          if (!use[0][r]) continue;
          match_syn[r] = keydisc::count_matching(sorted_syn, s.keys.ids[0][r], cv[r], rule);
          match_conf[r] = keydisc::count_matching(sorted_conf, s.keys.ids[0][r], cv[r], rule);
        }
      } else {
        const stats::PairIds cells = stats::combine_pair(s.keys, {target.codes, target.levels()});
        std::vector<double> nc[2] = {std::vector<double>(cells.pairs.groups, 0.0),
                                     std::vector<double>(cells.pairs.groups, 0.0)};
        for (std::size_t t = 0; t < 2; ++t)
          for (std::size_t r = 0; r < use[t].size(); ++r)
            if (use[t][r]) nc[t][cells.pairs.ids[t][r]] += 1;
        for (std::size_t r = 0; r < conf.rows(); ++r) {
          if (!rule.missing_matches && target.codes[0][r] == target.missing_level) continue;
          match_syn[r] = nc[1][cells.pairs.ids[0][r]];
          match_conf[r] = nc[0][cells.pairs.ids[0][r]];
        }
      }
      double sum_syn = 0, sum_conf = 0, n = 0, found = 0, rose = 0;
      std::vector<std::size_t> grid(51 * 51, 0);  // scatter binned to 0.02
      // Per record (record_level): NaN for records left out (missing = exclude).
      std::vector<double> record_cap[2];
      if (record_level)
        for (auto& values : record_cap) values.assign(conf.rows(), std::nan(""));
      for (std::size_t r = 0; r < conf.rows(); ++r) {
        if (!use[0][r]) continue;
        const auto k = s.keys.ids[0][r];
        const bool key_matchable = !key_missing[r];
        const double cap_syn = key_matchable && nk[1][k] > 0 ? match_syn[r] / nk[1][k] : 0.0;
        const double cap_conf = key_matchable ? match_conf[r] / nk[0][k] : 0.0;
        n += 1;
        sum_syn += cap_syn;
        sum_conf += cap_conf;
        found += key_matchable && nk[1][k] > 0;
        rose += cap_syn > cap_conf;
        ++grid[static_cast<std::size_t>(cap_conf * 50 + 0.5) * 51 +
               static_cast<std::size_t>(cap_syn * 50 + 0.5)];
        if (record_level) {
          record_cap[0][r] = cap_conf;
          record_cap[1][r] = cap_syn;
        }
      }
      if (n == 0) {
        result.warnings.push_back(scope + ": no confidential record to attack");
        continue;
      }
      const double v1 = sum_syn / n, base = sum_conf / n;
      const double v2 = found > 0 ? sum_syn / found : std::nan("");
      result.add("cap_mean_v1", scope, v1);
      result.add("cap_mean_v2", scope, v2);
      result.add("cap_confidential", scope, base);
      result.add("dcap_ratio_v1", scope, base > 0 ? v1 / base : std::nan(""));
      result.add("dcap_ratio_v2", scope, base > 0 ? v2 / base : std::nan(""));
      // Shares of the `records` confidential records: they reveal their counts.
      result.add("absent_key_share", scope, 1.0 - found / n, n - found);
      result.add_share("risk_rose_share", scope, rose, n);
      result.add("records", scope, n);
      worst_v1 = std::max(worst_v1, v1);
      if (base > 0) worst_ratio = std::max(worst_ratio, v1 / base);
      auto plot =
          make_plot("scatter", "Record-level CAP, confidential vs synthetic (" + scope + ")",
                    "CAP from the confidential data", "CAP from the synthetic data", scope);
      for (std::size_t cell = 0; cell < grid.size(); ++cell)
        if (grid[cell] > 0)
          plot["data"].push_back({{"x", static_cast<double>(cell / 51) / 50.0},
                                  {"y", static_cast<double>(cell % 51) / 50.0},
                                  {"count", grid[cell]},
                                  {"share", static_cast<double>(grid[cell]) / n}});
      result.details["plots"].push_back(plot);
      if (record_level) {
        RecordValues records;
        records.scope = scope;
        records.data = "confidential";
        records.add_field("cap_confidential", std::move(record_cap[0]));
        records.add_field("cap_synthetic", std::move(record_cap[1]));
        result.records.push_back(std::move(records));
      }
    }
  }
  if (worst_v1 >= 0) result.add("cap_mean_v1_max", "all", worst_v1);
  if (worst_ratio >= 0) result.add("dcap_ratio_v1_max", "all", worst_ratio);
  return result;
}

}  // namespace

MetricSpec correct_attribution_probability_metric() {
  using enum ScopeKind;
  using namespace references;
  auto params = keydisc::coding_params("exact", 5);
  params.push_back({.name = "missing",
                    .type = ParamType::kString,
                    .default_value = std::string("keep"),
                    .doc = "keep: records with a missing key or target are attacked like the "
                           "others (whether their missing values match is missing_matches); "
                           "exclude: they are left out of both datasets",
                    .choices = {"keep", "exclude"}});
  for (auto& p : keydisc::matching_params()) params.push_back(std::move(p));
  params.push_back({.name = "record_level",
                    .type = ParamType::kBool,
                    .default_value = false,
                    .doc = "write every confidential record's CAP from the confidential and "
                           "from the synthetic data to records.tsv beside results.tsv (NA for "
                           "records left out by missing = exclude)"});
  return MetricSpec{
      .name = "correct_attribution_probability",
      .family = MetricFamily::kKeyDisclosure,
      .summary =
          "Correct attribution probability (CAP) of each confidential record's target from "
          "its keys in the synthetic data; averages v1/v2, confidential baseline, DCAP ratio",
      .doc =
          "CAP_i(Z) = #{z in Z: K(z)=K(y_i), T(z)=T(y_i)} / #{z in Z: K(z)=K(y_i)}, 0 when no "
          "synthetic record has y_i's key. cap_mean_v1 = mean over all confidential records "
          "(absent keys count 0); cap_mean_v2 = mean over records whose key occurs in the "
          "synthetic data; cap_confidential = the same with Z = the confidential data (the "
          "upper-bound baseline); dcap_ratio_v1/v2 = cap_mean_v1/v2 ÷ cap_confidential (cmf's "
          "DCAP; Taub et al. 2018). absent_key_share = share of records whose key is absent from "
          "Z; "
          "risk_rose_share = share with CAP_syn > CAP_conf. Plot: (CAP_conf, CAP_syn) pairs "
          "binned to 0.02 with counts. Keys and targets: missing is a "
          "value that matches only another missing value, and only with missing_matches (else "
          "a record with a missing key shares its key with no one and a missing target is never "
          "a correct guess), unless missing = exclude leaves such records out; a numeric target "
          "matches within ± max(numeric_tolerance, relative_tolerance × |confidential value|) "
          "(Elliot 2014), or as coded by `numeric` when both are 0. Reading: mean CAP is the "
          "expected share of correct "
          "guesses by an intruder drawing the target from the synthetic records that share the "
          "key; a ratio near 1 means the synthetic data disclose as much as the real data.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .headlines = {{.statistic = "cap_mean_v1_max",
                     .ideal = Ideal::lower(),
                     .reading =
                         "mean chance that an intruder guesses a real person's target from the "
                         "synthetic records sharing their keys (worst key set and target)",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kShare},
                    {.statistic = "dcap_ratio_v1_max",
                     .ideal = Ideal::lower(),
                     .reading = "mean CAP from synthetic data divided by mean CAP from the real "
                                "data (1 = as disclosive as the real data)",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kNumber}},
      .compute = compute_cap,
      .statistics =
          {{"{cap_mean_v1|cap_mean_v2}",
            "mean correct attribution probability over the confidential records (v1: records whose "
            "key is absent from the synthetic data count 0; v2: they are left out)",
            Ideal::lower(),
            {kScenario}},
           {"cap_confidential",
            "mean CAP of the confidential data against itself: the baseline an intruder with the "
            "real data would reach",
            std::nullopt,
            {kScenario}},
           {"{dcap_ratio_v1|dcap_ratio_v2}",
            "mean CAP from the synthetic data divided by cap_confidential (differential CAP)",
            Ideal::lower(),
            {kScenario}},
           {"absent_key_share",
            "share of confidential records whose key no synthetic record has",
            std::nullopt,
            {kScenario}},
           {"risk_rose_share",
            "share of records whose CAP from the synthetic data exceeds their CAP from the "
            "confidential data",
            Ideal::lower(),
            {kScenario}},
           {"records", "confidential records attacked", std::nullopt, {kScenario}},
           {"{cap_mean_v1_max|dcap_ratio_v1_max}",
            "the largest cap_mean_v1 or dcap_ratio_v1 over the scenarios and targets",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(elliot_2014(), "correct attribution probability"),
                     cite(taub_2018(),
                          "differential CAP and its baseline from the confidential data"),
                     cite(baillargeon_charest_2020(),
                          "CAP with absent keys counted as 0 or left out"),
                     cite(cmf_software(), "DCAP")},
  };
}

}  // namespace synthaudit
