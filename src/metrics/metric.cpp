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

const char* to_string(OutputClass output) {
  switch (output) {
    case OutputClass::kAggregate:
      return "aggregate";
    case OutputClass::kCount:
      return "count";
    case OutputClass::kQuantile:
      return "quantile";
    case OutputClass::kExtreme:
      return "extreme";
  }
  return "aggregate";
}

const char* to_string(ScopeKind kind) {
  switch (kind) {
    case ScopeKind::kAll:
      return "all";
    case ScopeKind::kColumn:
      return "column";
    case ScopeKind::kColumnPair:
      return "column pair";
    case ScopeKind::kColumnTriple:
      return "column triple";
    case ScopeKind::kColumnLevel:
      return "column level";
    case ScopeKind::kFeature:
      return "model feature";
    case ScopeKind::kTableOrder:
      return "table order";
    case ScopeKind::kScenario:
      return "scenario";
    case ScopeKind::kAnalysis:
      return "analysis";
    case ScopeKind::kEstimand:
      return "estimand";
    case ScopeKind::kRule:
      return "rule";
    case ScopeKind::kRecordGroup:
      return "record group";
  }
  return "?";
}

std::vector<std::string> expand_statistic_name(const std::string& pattern) {
  const auto open = pattern.find('{');
  if (open == std::string::npos) return {pattern};
  const auto close = pattern.find('}', open);
  if (close == std::string::npos) return {pattern};
  const std::string head = pattern.substr(0, open);
  const std::vector<std::string> tails = expand_statistic_name(pattern.substr(close + 1));
  std::vector<std::string> names;
  std::size_t start = open + 1;
  while (start <= close) {
    std::size_t bar = pattern.find('|', start);
    if (bar == std::string::npos || bar > close) bar = close;
    for (const auto& tail : tails)
      names.push_back(head + pattern.substr(start, bar - start) + tail);
    start = bar + 1;
  }
  return names;
}

std::string format_reference(const Reference& r) {
  std::string text = r.authors + " (" +
                     (r.year > 0 ? std::to_string(r.year) : std::string("n.d.")) + "). " + r.title +
                     ".";
  if (!r.venue.empty()) text += " " + r.venue + ".";
  if (!r.software.empty())
    text += " Software: " + r.software + (r.version.empty() ? "" : " " + r.version) + ".";
  if (!r.doi.empty())
    text += " doi:" + r.doi;
  else if (!r.url.empty())
    text += " " + r.url;
  return text;
}

nlohmann::json make_plot(const std::string& kind, const std::string& title,
                         const std::string& x_label, const std::string& y_label,
                         const std::string& scope) {
  return {{"kind", kind},       {"title", title}, {"x_label", x_label},
          {"y_label", y_label}, {"scope", scope}, {"data", nlohmann::json::array()}};
}

}  // namespace synthaudit
