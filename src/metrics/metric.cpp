#include "metrics/metric.hpp"

#include <cmath>
#include <limits>

#include "core/text.hpp"

namespace synthaudit {

double Ideal::badness(double value) const {
  switch (kind) {
    case IdealKind::kLower:
      return value;
    case IdealKind::kHigher:
      return -value;
    case IdealKind::kTarget:
      if (scale == TargetScale::kLinear) return std::fabs(value - target);
      if (value <= 0.0 || target <= 0.0) return std::numeric_limits<double>::infinity();
      return std::fabs(std::log(value / target));
  }
  return value;
}

const char* to_string(IdealKind kind) {
  switch (kind) {
    case IdealKind::kLower:
      return "lower";
    case IdealKind::kHigher:
      return "higher";
    case IdealKind::kTarget:
      return "target";
  }
  return "?";
}

const char* to_string(TargetScale scale) {
  return scale == TargetScale::kLinear ? "linear" : "ratio";
}

nlohmann::json to_json(const Ideal& ideal) {
  nlohmann::json out = {{"kind", to_string(ideal.kind)}};
  if (ideal.kind == IdealKind::kTarget) {
    out["target"] = ideal.target;
    out["scale"] = to_string(ideal.scale);
  }
  return out;
}

Ideal ideal_from_json(const nlohmann::json& object, const std::string& legacy_better) {
  if (!object.is_object() || !object.contains("kind") || !object["kind"].is_string())
    return legacy_better == "higher" ? Ideal::higher() : Ideal::lower();
  const std::string kind = object["kind"].get<std::string>();
  if (kind == "higher") return Ideal::higher();
  if (kind != "target") return Ideal::lower();
  const double target = object.contains("target") && object["target"].is_number()
                            ? object["target"].get<double>()
                            : 0.0;
  const bool ratio = object.contains("scale") && object["scale"] == "ratio";
  return Ideal::at(target, ratio ? TargetScale::kRatio : TargetScale::kLinear);
}

std::string describe_ideal(const Ideal& ideal) {
  switch (ideal.kind) {
    case IdealKind::kLower:
      return "lower is better";
    case IdealKind::kHigher:
      return "higher is better";
    case IdealKind::kTarget:
      return "closer to " + format_number(ideal.target) + " is better" +
             (ideal.scale == TargetScale::kRatio ? " (as a ratio: half and double are equally far)"
                                                 : "");
  }
  return "";
}

const char* to_string(BaselineKind kind) {
  switch (kind) {
    case BaselineKind::kNone:
      return "none";
    case BaselineKind::kHoldout:
      return "holdout";
    case BaselineKind::kResample:
      return "resample";
    case BaselineKind::kStatistic:
      return "statistic";
    case BaselineKind::kAnalytic:
      return "analytic";
  }
  return "?";
}

std::string Baseline::name() const {
  switch (kind) {
    case BaselineKind::kNone:
      return "";
    case BaselineKind::kHoldout:
    case BaselineKind::kStatistic:
      return "holdout";
    case BaselineKind::kResample:
      return "resample";
    case BaselineKind::kAnalytic:
      return "analytic";
  }
  return "";
}

nlohmann::json to_json(const Baseline& baseline) {
  if (baseline.kind == BaselineKind::kNone) return nullptr;
  nlohmann::json out = {
      {"kind", to_string(baseline.kind)}, {"name", baseline.name()}, {"note", baseline.note}};
  if (baseline.kind == BaselineKind::kStatistic) out["statistic"] = baseline.statistic;
  if (baseline.kind == BaselineKind::kAnalytic) out["value"] = baseline.value;
  if (!baseline.noise_statistic.empty()) out["noise_statistic"] = baseline.noise_statistic;
  return out;
}

const char* to_string(Unit unit) {
  switch (unit) {
    case Unit::kNumber:
      return "number";
    case Unit::kShare:
      return "share";
    case Unit::kPercent:
      return "percent";
  }
  return "?";
}

nlohmann::json make_plot(const std::string& kind, const std::string& title,
                         const std::string& x_label, const std::string& y_label,
                         const std::string& scope) {
  return {{"kind", kind},       {"title", title}, {"x_label", x_label},
          {"y_label", y_label}, {"scope", scope}, {"data", nlohmann::json::array()}};
}

}  // namespace synthaudit
