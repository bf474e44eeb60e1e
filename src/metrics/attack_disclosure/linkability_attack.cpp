// Linkability attack (Giomi et al. 2023, after the Article 29 Working Party's linkability
// criterion): the attacker holds two parts of a record's attributes from two sources and links
// them through the synthetic data when a synthetic record is among the k nearest on both parts.
#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "metrics/attack_disclosure/attack_common.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/neighbour_cache.hpp"
#include "stats/tied_neighbours.hpp"

namespace synthaudit {

namespace {

constexpr const char* kName = "linkability_attack";

std::string joined(const Table& table, const std::vector<std::size_t>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += (i ? "," : "") + table.column(columns[i]).name;
  return out;
}

// Expected number of linked targets among the rows of `targets` (`side` names them in progress).
double expected_links(const MetricInput& in, const Table& targets, const Table& synthetic,
                      const std::vector<std::size_t>& aux_a, const std::vector<std::size_t>& aux_b,
                      std::size_t k, const std::string& side) {
  const auto near_a = stats::tied_neighbour_lists(
      in.neighbours, targets, synthetic, aux_a, k, in.progress,
      std::string(kName) + ": nearest synthetic records of the " + side + " on aux_a");
  const auto near_b = stats::tied_neighbour_lists(
      in.neighbours, targets, synthetic, aux_b, k, in.progress,
      std::string(kName) + ": nearest synthetic records of the " + side + " on aux_b");
  struct Buffers {
    stats::TiedNeighbourScratch a, b;
  };
  return attacks::sum_over_targets(
      targets.rows(), [] { return Buffers{}; },
      [&](std::size_t target, Buffers& buffers) {
        return stats::shared_pick_probability(near_a->of(target, buffers.a),
                                              near_b->of(target, buffers.b));
      },
      &near_a->query_order());
}

// The random-guess attacker picks k distinct synthetic rows uniformly for each part
// (anonymeter's baseline); its chance of a common row is the same two-draw probability with
// every synthetic row tied.
double random_link_probability(std::size_t synthetic_rows, std::size_t k) {
  std::vector<std::uint32_t> all(synthetic_rows);
  for (std::size_t r = 0; r < synthetic_rows; ++r) all[r] = static_cast<std::uint32_t>(r);
  stats::TiedNeighbours guess;
  guess.tied = all;
  guess.picks = std::min(k, synthetic_rows);
  return stats::shared_pick_probability(guess, guess);
}

MetricResult compute_linkability(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const auto k = static_cast<std::size_t>(params.get_int("k"));
  const auto& names_a = params.get_string_list("aux_a");
  const auto& names_b = params.get_string_list("aux_b");
  if (names_a.empty() != names_b.empty())
    throw InputError(std::string(kName) +
                     " parameters aux_a and aux_b: give both column sets or neither");
  std::vector<std::size_t> aux_a, aux_b;
  if (names_a.empty()) {
    const auto columns = attacks::attribute_columns(conf, in.context);
    if (columns.size() < 2)
      throw MetricNotApplicable("linkability needs at least two attribute columns");
    const std::size_t half = columns.size() / 2;
    aux_a.assign(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(half));
    aux_b.assign(columns.begin() + static_cast<std::ptrdiff_t>(half), columns.end());
  } else {
    aux_a = attacks::named_columns(conf, in.context, names_a, kName, "aux_a");
    aux_b = attacks::named_columns(conf, in.context, names_b, kName, "aux_b");
    for (std::size_t c : aux_a)
      if (std::find(aux_b.begin(), aux_b.end(), c) != aux_b.end())
        throw InputError(std::string(kName) + " parameters aux_a and aux_b: column '" +
                         conf.column(c).name + "' is in both sets");
  }
  if (syn.rows() == 0) throw MetricNotApplicable("the synthetic data have no rows");

  stats::AttackCounts counts;
  counts.n_attacks = static_cast<double>(conf.rows());
  counts.n_success = expected_links(in, conf, syn, aux_a, aux_b, k, "training records");
  counts.n_baseline = counts.n_attacks * random_link_probability(syn.rows(), k);
  if (in.holdout != nullptr && in.holdout->rows() > 0) {
    counts.n_control_attacks = static_cast<double>(in.holdout->rows());
    counts.n_control = expected_links(in, *in.holdout, syn, aux_a, aux_b, k, "holdout records");
  }
  MetricResult result;
  attacks::add_attack(result, kName, "all", counts, params.get_double("confidence_level"));
  result.details["aux_a"] = joined(conf, aux_a);
  result.details["aux_b"] = joined(conf, aux_b);
  result.details["k"] = k;
  return result;
}

}  // namespace

MetricSpec linkability_attack_metric() {
  using namespace references;
  return MetricSpec{
      .name = kName,
      .family = MetricFamily::kAttackDisclosure,
      .summary =
          "Linkability attack against a control set: can the synthetic data link two parts of "
          "a confidential record?",
      .doc =
          std::string(
              "The attacker knows two disjoint sets of a target's attributes, aux_a and aux_b (by "
              "default the first and second half of the columns in file order, survey design "
              "columns left out), as if from two sources, and finds the k nearest synthetic "
              "records on each set (k = 1 by default, as anonymeter). The attack succeeds when "
              "a synthetic record is among the k nearest on both sets. Ties: for each set the "
              "records strictly closer than the k-th distance are always among the k nearest "
              "and a uniformly random subset of those at the k-th distance completes them, the "
              "two sets broken independently; the target counts P(some record is chosen on "
              "both), in closed form: 1 when the sure records share one; otherwise, with x "
              "records sure on aux_a and tied on aux_b, y the other way round, c tied on both, "
              "t_a, t_b tied records and r_a, r_b of them chosen, P(no common record) = Σ_j "
              "C(c, j) C(t_a − y − c, r_a − j)/C(t_a, r_a) · C(t_b − x − j, r_b)/C(t_b, r_b) "
              "over j = 0..min(c, r_a) (j = the records tied on both that aux_a's draw takes). "
              "Breaking ties by the lowest row, as a sorted search does, makes both sets favour "
              "the same rows and inflates links several-fold; anonymeter's own counts move with "
              "the row order of the synthetic file. Random-guess baseline (anonymeter's): k "
              "distinct synthetic records drawn uniformly for each set, success with "
              "probability 1 − C(m − k, k)/C(m, k) for m synthetic records. ") +
          attacks::kAttackRiskDoc,
      .params = {{.name = "aux_a",
                  .type = ParamType::kStringList,
                  .default_value = std::vector<std::string>{},
                  .doc = "first attribute set known to the attacker (empty: first half of the "
                         "columns)"},
                 {.name = "aux_b",
                  .type = ParamType::kStringList,
                  .default_value = std::vector<std::string>{},
                  .doc = "second attribute set, disjoint from aux_a (empty: the other half)"},
                 {.name = "k",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{1},
                  .doc = "nearest synthetic records considered on each set (anonymeter's "
                         "n_neighbors)",
                  .min = 1,
                  .max = 100},
                 attacks::confidence_level_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {attacks::residual_risk_headline(
          "residual_risk", "residual_risk_sd",
          "linkability risk: share of records whose two parts the synthetic data link, beyond "
          "what they link for records not used to synthesise")},
      .compute = compute_linkability,
      .statistics = attacks::attack_statistic_specs(
          {ScopeKind::kAll}, "a synthetic record among the k nearest on both sets"),
      .references = {cite(giomi_2023(),
                          "the linkability attack, its random-guess baseline and the control "
                          "set"),
                     cite(article29_2014(), "linkability as a criterion of anonymisation"),
                     cite(anonymeter_software(),
                          "mixed-type distance and counts reproduced where there are no ties"),
                     cite(wilson_1927(), "score interval of the success rates"),
                     cite(gower_1971(), "the mixed-type distance anonymeter builds on")},
  };
}

}  // namespace synthaudit
