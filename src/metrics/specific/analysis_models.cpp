#include "metrics/specific/analysis_models.hpp"

namespace synthaudit {

std::optional<ModelAnalysisKind> model_analysis_kind(std::string_view kind) {
  using stats::GlmFamily;
  using stats::GlmLink;
  using stats::ResponseKind;
  if (kind == "lm")
    return ModelAnalysisKind{AnalysisModel::kLinear, ResponseKind::kNumeric, GlmFamily::kGaussian,
                             GlmLink::kIdentity, "lm()"};
  if (kind == "glm_logit")
    return ModelAnalysisKind{AnalysisModel::kGlm, ResponseKind::kBinary, GlmFamily::kBinomial,
                             GlmLink::kLogit, "glm(family = binomial)"};
  if (kind == "glm_probit")
    return ModelAnalysisKind{AnalysisModel::kGlm, ResponseKind::kBinary, GlmFamily::kBinomial,
                             GlmLink::kProbit, "glm(family = binomial(link = \"probit\"))"};
  if (kind == "glm_cloglog")
    return ModelAnalysisKind{AnalysisModel::kGlm, ResponseKind::kBinary, GlmFamily::kBinomial,
                             GlmLink::kCloglog, "glm(family = binomial(link = \"cloglog\"))"};
  if (kind == "glm_poisson")
    return ModelAnalysisKind{AnalysisModel::kGlm, ResponseKind::kCount, GlmFamily::kPoisson,
                             GlmLink::kLog, "glm(family = poisson)"};
  if (kind == "glm_gaussian")
    return ModelAnalysisKind{AnalysisModel::kGlm, ResponseKind::kNumeric, GlmFamily::kGaussian,
                             GlmLink::kIdentity, "glm(family = gaussian)"};
  if (kind == "multinom")
    return ModelAnalysisKind{AnalysisModel::kMultinomial, ResponseKind::kCategorical,
                             GlmFamily::kBinomial, GlmLink::kLogit, "nnet::multinom()"};
  if (kind == "polr")
    return ModelAnalysisKind{AnalysisModel::kOrdinal, ResponseKind::kCategorical,
                             GlmFamily::kBinomial, GlmLink::kLogit, "MASS::polr()"};
  return std::nullopt;
}

}  // namespace synthaudit
