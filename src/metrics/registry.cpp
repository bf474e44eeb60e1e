#include "metrics/registry.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit {

// Each metric file defines one factory. Adding a metric: write the file, add its declaration
// here and its line in the table below. No static-initialiser registration.
MetricSpec ks_distance_metric();
MetricSpec total_variation_metric();
MetricSpec k_marginal_metric();
MetricSpec table_utility_metric();
MetricSpec correlation_fit_metric();
MetricSpec record_level_change_metric();
MetricSpec column_summaries_metric();
MetricSpec ratio_of_counts_metric();
MetricSpec wasserstein_distance_metric();
MetricSpec moments_and_covariance_metric();
MetricSpec mean_in_confidence_interval_metric();
MetricSpec coverage_and_validity_metric();
MetricSpec correct_attribution_probability_metric();
MetricSpec synthpop_disclosure_metric();
MetricSpec disclosure_protection_metric();
MetricSpec identity_matching_metric();
MetricSpec distance_to_closest_record_metric();
MetricSpec distance_membership_inference_metric();
MetricSpec membership_attacks_metric();
MetricSpec knn_attribute_attack_metric();
MetricSpec new_row_synthesis_metric();
MetricSpec epsilon_identifiability_metric();
MetricSpec propensity_logistic_metric();
MetricSpec propensity_cart_metric();
MetricSpec propensity_boosted_trees_metric();
MetricSpec analysis_inference_comparison_metric();
MetricSpec linkability_attack_metric();
MetricSpec inference_attack_metric();
MetricSpec k_anonymity_metric();
MetricSpec l_diversity_metric();
MetricSpec t_closeness_metric();
MetricSpec individual_risk_metric();
MetricSpec replicated_uniques_metric();
MetricSpec singling_out_attack_metric();
MetricSpec suda2_metric();
MetricSpec tail_agreement_metric();
MetricSpec zero_cell_agreement_metric();
MetricSpec edit_rules_metric();
MetricSpec train_synthetic_test_real_metric();
MetricSpec household_structure_metric();
MetricSpec household_composition_metric();
MetricSpec household_disclosure_metric();

const std::vector<MetricSpec>& all_metrics() {
  static const std::vector<MetricSpec> metrics = [] {
    std::vector<MetricSpec> table = {
        ks_distance_metric(),
        total_variation_metric(),
        k_marginal_metric(),
        table_utility_metric(),
        correlation_fit_metric(),
        record_level_change_metric(),
        column_summaries_metric(),
        ratio_of_counts_metric(),
        wasserstein_distance_metric(),
        moments_and_covariance_metric(),
        mean_in_confidence_interval_metric(),
        coverage_and_validity_metric(),
        correct_attribution_probability_metric(),
        synthpop_disclosure_metric(),
        disclosure_protection_metric(),
        identity_matching_metric(),
        distance_to_closest_record_metric(),
        distance_membership_inference_metric(),
        membership_attacks_metric(),
        knn_attribute_attack_metric(),
        new_row_synthesis_metric(),
        epsilon_identifiability_metric(),
        propensity_logistic_metric(),
        propensity_cart_metric(),
        propensity_boosted_trees_metric(),
        analysis_inference_comparison_metric(),
        linkability_attack_metric(),
        inference_attack_metric(),
        k_anonymity_metric(),
        l_diversity_metric(),
        t_closeness_metric(),
        individual_risk_metric(),
        replicated_uniques_metric(),
        singling_out_attack_metric(),
        suda2_metric(),
        tail_agreement_metric(),
        zero_cell_agreement_metric(),
        edit_rules_metric(),
        train_synthetic_test_real_metric(),
        household_structure_metric(),
        household_composition_metric(),
        household_disclosure_metric(),
    };
    for (std::size_t i = 0; i < table.size(); ++i)
      for (std::size_t j = i + 1; j < table.size(); ++j)
        if (table[i].name == table[j].name)
          throw std::logic_error("metric registered twice: " + table[i].name);
    return table;
  }();
  return metrics;
}

const char* to_string(MetricFamily family) {
  switch (family) {
    case MetricFamily::kGeneral:
      return "general";
    case MetricFamily::kPropensity:
      return "propensity";
    case MetricFamily::kSpecific:
      return "specific";
    case MetricFamily::kKeyDisclosure:
      return "key-disclosure";
    case MetricFamily::kDistanceDisclosure:
      return "distance-disclosure";
    case MetricFamily::kAttackDisclosure:
      return "attack-disclosure";
    case MetricFamily::kSdcRisk:
      return "sdc-risk";
  }
  return "?";
}

std::optional<MetricFamily> family_from_string(std::string_view name) {
  for (auto family : {MetricFamily::kGeneral, MetricFamily::kPropensity, MetricFamily::kSpecific,
                      MetricFamily::kKeyDisclosure, MetricFamily::kDistanceDisclosure,
                      MetricFamily::kAttackDisclosure, MetricFamily::kSdcRisk})
    if (name == to_string(family)) return family;
  return std::nullopt;
}

const char* to_string(SynthesisType type) {
  return type == SynthesisType::kFull ? "full" : "partial";
}

const MetricSpec* find_metric(std::string_view name) {
  for (const auto& metric : all_metrics())
    if (metric.name == name) return &metric;
  return nullptr;
}

std::vector<const MetricSpec*> select_metrics(const std::vector<std::string>& selection,
                                              const std::string& where) {
  std::vector<bool> chosen(all_metrics().size(), false);
  std::vector<std::string> known = {"all",      "general",        "propensity",
                                    "specific", "key-disclosure", "distance-disclosure"};
  for (const auto& metric : all_metrics()) known.push_back(metric.name);
  for (const auto& item : selection) {
    const auto& metrics = all_metrics();
    if (item == "all") {
      std::fill(chosen.begin(), chosen.end(), true);
    } else if (auto family = family_from_string(item)) {
      for (std::size_t i = 0; i < metrics.size(); ++i)
        if (metrics[i].family == *family) chosen[i] = true;
    } else if (const MetricSpec* metric = find_metric(item)) {
      chosen[static_cast<std::size_t>(metric - metrics.data())] = true;
    } else {
      throw InputError(where + ": unknown metric or family '" + item + "'" +
                       did_you_mean(item, known));
    }
  }
  std::vector<const MetricSpec*> result;
  for (std::size_t i = 0; i < chosen.size(); ++i)
    if (chosen[i]) result.push_back(&all_metrics()[i]);
  return result;
}

const std::vector<MetricFamily>& subgroup_families() {
  static const std::vector<MetricFamily> families = {
      MetricFamily::kGeneral, MetricFamily::kSpecific, MetricFamily::kKeyDisclosure};
  return families;
}

bool runs_in_subgroups(MetricFamily family) {
  const auto& families = subgroup_families();
  return std::find(families.begin(), families.end(), family) != families.end();
}

}  // namespace synthaudit
