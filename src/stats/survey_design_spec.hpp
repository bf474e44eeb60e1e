#pragma once
// The declaration of a complex sampling design (the spec's `design:` block), apart from
// stats/survey_design.hpp so that the evaluation context (metrics/metric.hpp, and through it the
// public headers) carries it without Eigen.
#include <optional>
#include <string>
#include <vector>

namespace synthaudit::stats {

enum class LonelyPsu { kFail, kRemove, kCertainty, kAdjust, kAverage };
enum class ReplicateType { kBrr, kFay, kJk1, kJkn, kBootstrap, kOther };

// A design as the user declares it: column names and settings (the spec's `design:` block).
// Empty names: not declared. The sampling weights are the evaluation's weights: column.
struct SurveyDesignSpec {
  std::string strata;
  std::vector<std::string> clusters;  // one per stage; only the first stage enters the variance
  std::string fpc;    // population PSUs per stratum (> 1), or the sampling fraction (≤ 1)
  bool nest = false;  // PSU labels repeat across strata (svydesign's nest = TRUE)
  LonelyPsu lonely_psu = LonelyPsu::kFail;
  std::vector<std::string> replicate_weights;  // combined (full) replicate weights
  ReplicateType replicate_type = ReplicateType::kJk1;
  double rho = 0.0;             // Fay's ρ
  std::optional<double> scale;  // overrides the type's scale
  std::vector<double> rscales;  // one per replicate (JKn, other); empty = all 1
  bool mse = false;             // centre replicates on the full-sample estimate

  bool declared() const {
    return !strata.empty() || !clusters.empty() || !fpc.empty() || !replicate_weights.empty();
  }
  bool replicated() const { return !replicate_weights.empty(); }
};

std::string to_string(LonelyPsu rule);
std::string to_string(ReplicateType type);
// Parse the names survey uses ("fail", "remove", "certainty", "adjust", "average"; "BRR", "Fay",
// "JK1", "JKn", "bootstrap", "other"); nullopt for anything else.
std::optional<LonelyPsu> lonely_psu_from(const std::string& name);
std::optional<ReplicateType> replicate_type_from(const std::string& name);

}  // namespace synthaudit::stats
