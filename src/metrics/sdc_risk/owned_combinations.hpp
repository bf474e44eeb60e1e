#pragma once
// Key combinations owned by ranks, for the collective forms (CollectiveForm, metrics/metric.hpp)
// of the sdc-risk measures whose statistics are functions of how many records share each
// combination of key values (k_anonymity, replicated_uniques, individual_risk, l_diversity).
// Each rank counts its own records per combination, and every combination is sent, in one
// all-to-all exchange, to the rank that owns it (a hash of its values modulo the number of ranks),
// which then holds that combination's counts over all ranks. No rank receives every rank's
// combinations: a rank holds its own counts while it sends them and about 1/P of all of them
// afterwards. Each owner summarises what it owns and the root adds the summaries.
//
// Class frequencies under sdcMicro's wildcard rule for missing key values
// (stats/equivalence_classes.hpp) are not functions of one combination: a combination with a
// missing value counts for every combination that agrees on its other keys. They are computed
// here by the owners together, pair of missingness masks by pair, without gathering the
// combinations (owned_class_frequencies).
#include <cstdint>
#include <string>
#include <vector>

#include "core/communicator.hpp"
#include "metrics/key_disclosure/key_combinations.hpp"
#include "stats/equivalence_classes.hpp"

namespace synthaudit::sdc {

// The key names and columns of `scenario` as keydisc::code_scenario resolves and checks them on
// `tables`, without keeping its codes: the collective forms count key combinations from the
// columns and need not hold the coded keys meanwhile.
struct ScenarioKeys {
  std::vector<std::string> names;
  std::vector<std::size_t> columns;
};
ScenarioKeys scenario_keys(const std::vector<const Table*>& tables,
                           const DisclosureScenario& scenario, const stats::CodingOptions& options);

// The rank that owns `combination`: a hash of its first `class_keys` values modulo `ranks`, so
// that the combinations that agree on those (l_diversity's class: the keys without the target)
// have one owner.
int combination_owner(const std::uint64_t* combination, std::size_t class_keys, int ranks);

// Collective: sends each of this rank's combinations (`local`, consumed; its keys, tables and
// weighting the same on every rank) to its owner (above) and returns the combinations this rank
// owns, in ascending order, each with every rank's counts (and first-table weight sums) added in
// rank order. `class_keys` must be the same on every rank.
keydisc::FlatCombinations exchange_to_owners(keydisc::FlatCombinations local,
                                             std::size_t class_keys, Communicator& communicator);

// Class frequencies of the combinations a rank owns, one entry per combination of `owned` with a
// record of table `table`, in `owned`'s order: `sample` is the records of the table that match
// the combination under `rule` (stats::class_frequencies' f_k), `weighted` the sum of their
// first-table weights when `weighted` (F_k; only for table 0, whose weights the counts carry),
// else equal to `sample`.
struct OwnedFrequencies {
  std::vector<double> sample;
  std::vector<double> weighted;
};

// Collective. `owned` is exchange_to_owners' result (its keys the same on every rank). With kValue,
// or when every record of the table has the same keys missing, a combination's frequency is its own
// count and nothing is exchanged beyond its missingness masks. Otherwise, for each pair of masks
// (m_i, m_j) present in the table, the records with mask m_j are totalled by their values on the
// keys both masks have, at the owner of those values, and every combination with mask m_i adds the
// total that matches it: the owners send their totals to every rank when that is smaller than the
// requests, and answer each combination's request otherwise. Counts are exact; a weighted frequency
// adds its terms in another order than stats::class_frequencies (within 1e-12 relative). Throws
// InputError, on every rank, for the wildcard rule over more than 64 keys, as class_frequencies
// does.
OwnedFrequencies owned_class_frequencies(const keydisc::FlatCombinations& owned, std::size_t table,
                                         bool weighted, stats::MissingKeys rule,
                                         Communicator& communicator);

// Collective: the sum over the ranks of `value`, added in rank order on every rank.
double sum_over_ranks(double value, Communicator& communicator);

}  // namespace synthaudit::sdc
