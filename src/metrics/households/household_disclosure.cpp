// Disclosure of whole households: a household is recognised by its signature, the multiset of its
// members' values on the key columns (household-level keys such as region are the same for every
// member, so they enter once in effect). Households unique on their signature in the
// confidential data are the ones an intruder who knows a household's make-up (a couple in their
// forties with three children in one region) can single out; a synthetic household equal to a
// confidential one on every column of every member is a copied household.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_map>

#include "metrics/households/household_groups.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/column_lookup.hpp"

namespace synthaudit {

namespace {

using households::HouseholdGroups;

// Each household's signature on `columns`: its members' values (8 bytes each: a numeric value,
// missing as one NaN, or a level code) as byte strings, sorted and concatenated, so two households
// have the same signature exactly when their members can be paired off with equal values.
std::vector<std::string> signatures(const Table& table, const HouseholdGroups& groups,
                                    const std::vector<std::size_t>& columns) {
  std::vector<std::string> out(groups.households());
  std::vector<std::string> members;
  for (std::size_t h = 0; h < groups.households(); ++h) {
    members.clear();
    for (std::size_t i = groups.start[h]; i < groups.start[h + 1]; ++i) {
      std::string member(8 * columns.size(), '\0');
      for (std::size_t k = 0; k < columns.size(); ++k) {
        const Column& column = table.column(columns[k]);
        std::uint64_t bits = 0;
        if (column.is_numeric()) {
          double x = column.numeric[groups.members[i]];
          if (is_missing(x)) x = std::numeric_limits<double>::quiet_NaN();
          if (x == 0.0) x = 0.0;  // -0 and 0 are one value
          std::memcpy(&bits, &x, sizeof bits);
        } else {
          bits = column.codes[groups.members[i]];
        }
        std::memcpy(member.data() + 8 * k, &bits, sizeof bits);
      }
      members.push_back(std::move(member));
    }
    std::sort(members.begin(), members.end());
    for (const auto& m : members) out[h] += m;
  }
  return out;
}

std::unordered_map<std::string, std::uint32_t> tally(const std::vector<std::string>& signatures) {
  std::unordered_map<std::string, std::uint32_t> counts;
  counts.reserve(signatures.size());
  for (const auto& s : signatures) ++counts[s];
  return counts;
}

// The key columns: `keys`, else every key of the declared disclosure scenarios, else every data
// column.
std::vector<std::size_t> key_columns(const MetricInput& in, const Params& params) {
  std::vector<std::string> names = params.get_string_list("keys");
  if (names.empty()) {
    std::set<std::string> seen;
    for (const auto& scenario : in.context.scenarios)
      for (const auto& key : scenario.keys)
        if (seen.insert(key).second) names.push_back(key);
  }
  if (names.empty()) return households::household_data_columns(in);
  return stats::resolve_columns(in.confidential, names, "household_disclosure keys");
}

MetricResult compute_household_disclosure(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const auto [conf_groups, syn_groups] = households::households_of_both(in);
  MetricResult result;
  const auto nc = static_cast<double>(conf_groups.households());
  const auto ns = static_cast<double>(syn_groups.households());
  if (nc == 0 || ns == 0) {
    result.warnings.push_back("a dataset has no household (every household identifier missing)");
    return result;
  }

  const auto keys = key_columns(in, params);
  const auto conf_keys = tally(signatures(conf, conf_groups, keys));
  const auto syn_key_signatures = signatures(syn, syn_groups, keys);
  const auto syn_keys = tally(syn_key_signatures);
  // k-anonymity on signatures: households whose make-up fewer than k households share.
  const auto k = static_cast<std::uint32_t>(params.get_int("k"));
  double conf_unique = 0.0, conf_below_k = 0.0, syn_below_k = 0.0;
  for (const auto& [signature, count] : conf_keys) {
    conf_unique += count == 1;
    if (count < k) conf_below_k += count;
  }
  for (const auto& [signature, count] : syn_keys)
    if (count < k) syn_below_k += count;
  double replicated = 0.0, syn_unique = 0.0;
  for (const auto& signature : syn_key_signatures) {
    if (syn_keys.at(signature) != 1) continue;
    syn_unique += 1.0;
    const auto found = conf_keys.find(signature);
    replicated += found != conf_keys.end() && found->second == 1;
  }
  result.add_share("conf_unique_household_share", "all", conf_unique, nc);
  result.add("syn_unique_household_share", "all", syn_unique / ns);
  result.add_share("conf_below_k_household_share", "all", conf_below_k, nc);
  result.add("syn_below_k_household_share", "all", syn_below_k / ns);
  result.add("replicated_unique_households", "all", replicated);
  // A share of the released synthetic households: it reveals the count of replicated uniques.
  result.add("replicated_unique_household_share", "all", replicated / ns, replicated);

  const auto data_columns = households::household_data_columns(in);
  const auto conf_full = tally(signatures(conf, conf_groups, data_columns));
  double copies = 0.0, copied_persons = 0.0;
  const auto syn_full = signatures(syn, syn_groups, data_columns);
  for (std::size_t h = 0; h < syn_full.size(); ++h)
    if (conf_full.contains(syn_full[h])) {
      copies += 1.0;
      copied_persons += static_cast<double>(syn_groups.size(h));
    }
  result.add("household_copies", "all", copies);
  result.add("household_copy_share", "all", copies / ns, copies);
  result.add_share("copied_person_share", "all", copied_persons,
                   static_cast<double>(syn_groups.members.size()));
  return result;
}

}  // namespace

MetricSpec household_disclosure_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "household_disclosure",
      .family = MetricFamily::kSdcRisk,
      .summary =
          "Whole households recognisable or copied: households unique on their members' "
          "keys, replicated unique households, and exact household copies",
      .doc =
          "A household (the rows sharing a `household:` identifier) is described by its "
          "signature: the multiset of its members' values on the key columns (`keys`; by "
          "default the keys of the declared disclosure scenarios, else every column but the "
          "design columns). Numeric keys match on exact values, missing equals missing. "
          "conf_unique_household_share = confidential households whose signature no other "
          "confidential household has; conf_below_k_household_share and "
          "syn_below_k_household_share = households whose signature fewer than `k` households "
          "of the same data share (k-anonymity on households); replicated_unique_households = "
          "synthetic households "
          "unique on their signature in the synthetic data whose signature is unique in the "
          "confidential data too (synthpop's replicated uniques, for households: Raab, Nowok "
          "& Dibben 2016), and replicated_unique_household_share = that over the synthetic "
          "households. household_copies = synthetic households equal to a confidential "
          "household on every column of every member (the signature over all columns but "
          "the design columns), household_copy_share = that over the synthetic households, "
          "copied_person_share = their members over the synthetic persons. Computed per "
          "replicate; the holdout baseline (whole households of a fresh real sample) gives "
          "what real households from outside the confidential data score, since small "
          "households of common make-up occur in any sample.",
      .params = {{.name = "keys",
                  .type = ParamType::kStringList,
                  .default_value = std::vector<std::string>{},
                  .doc = "the columns of a household's signature; empty = the disclosure "
                         "scenarios' keys, or every column but the design columns without them",
                  .names_columns = true},
                 {.name = "k",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{3},
                  .doc = "k of k-anonymity on household signatures: households whose signature "
                         "fewer than k households share",
                  .min = 2,
                  .max = 1000}},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "household_copy_share",
                     .ideal = Ideal::lower(),
                     .reading = "share of synthetic households that copy a real household on "
                                "every column of every member",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kShare},
                    {.statistic = "replicated_unique_household_share",
                     .ideal = Ideal::lower(),
                     .reading = "share of synthetic households unique on their members' keys "
                                "whose make-up is unique among real households too",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kShare}},
      .compute = compute_household_disclosure,
      .statistics =
          {{"conf_unique_household_share",
            "confidential households whose key signature is unique",
            Ideal::lower(),
            {kAll}},
           {"syn_unique_household_share",
            "synthetic households whose key signature is unique",
            std::nullopt,
            {kAll}},
           {"{conf|syn}_below_k_household_share",
            "households whose key signature fewer than k households of the same data share "
            "(k-anonymity on household signatures)",
            Ideal::lower(),
            {kAll}},
           {"replicated_unique_households",
            "synthetic households unique on their key signature whose signature is unique "
            "among the confidential households",
            Ideal::lower(),
            {kAll},
            OutputClass::kCount},
           {"replicated_unique_household_share",
            "replicated_unique_households over the synthetic households",
            Ideal::lower(),
            {kAll}},
           {"household_copies",
            "synthetic households equal to a confidential household on every column of every "
            "member",
            Ideal::lower(),
            {kAll},
            OutputClass::kCount},
           {"household_copy_share",
            "household_copies over the synthetic households",
            Ideal::lower(),
            {kAll}},
           {"copied_person_share",
            "members of copied households over the synthetic persons",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(raab_nowok_dibben_2016(),
                          "replicated uniques as a disclosure check, here on households"),
                     cite(hundepool_2012(), "household-level disclosure risk")},
  };
}

}  // namespace synthaudit
