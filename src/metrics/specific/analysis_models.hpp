#pragma once
// The model kinds of the `analyses` spec key: which fit and which response each one takes, and
// the R call it reproduces. Shared by the analysis metric and the data checks that validate a
// spec before any metric runs.
#include <optional>
#include <string>
#include <string_view>

#include "stats/glm.hpp"
#include "stats/model_matrix.hpp"

namespace synthaudit {

enum class AnalysisModel { kLinear, kGlm, kMultinomial, kOrdinal };

struct ModelAnalysisKind {
  AnalysisModel model = AnalysisModel::kLinear;
  stats::ResponseKind response = stats::ResponseKind::kNumeric;
  stats::GlmFamily family = stats::GlmFamily::kGaussian;  // kGlm
  stats::GlmLink link = stats::GlmLink::kIdentity;        // kGlm
  const char* r_call = "";  // what the fit reproduces, for messages and docs
};

// lm, glm_logit, glm_probit, glm_cloglog, glm_poisson, glm_gaussian, multinom, polr; nullopt for
// the other analysis kinds (mean, proportion, quantile, total).
std::optional<ModelAnalysisKind> model_analysis_kind(std::string_view kind);

}  // namespace synthaudit
