#pragma once
// Typed metric parameters, declared once per metric (mlpack-style, without macros): the
// declaration drives validation, `describe`, the spec documentation and later the bindings.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace synthaudit {

enum class ParamType { kInt, kDouble, kBool, kString, kStringList };
const char* to_string(ParamType type);

using ParamValue = std::variant<std::int64_t, double, bool, std::string, std::vector<std::string>>;

struct ParamSpec {
  std::string name;
  ParamType type;
  ParamValue default_value;
  std::string doc;
  std::optional<double> min;         // numeric types, inclusive
  std::optional<double> max;         // numeric types, inclusive
  std::vector<std::string> choices;  // kString: allowed values when non-empty
  // kStringList of column names: the engine checks them against the data before any metric
  // runs, whichever metrics are selected.
  bool names_columns = false;
};

// Validated parameter values for one metric run. Construct only through Params::resolve.
class Params {
 public:
  // Applies defaults, checks every given value's type and range against the declaration.
  // `where` names the origin for errors (e.g. "spec.yaml: metrics.cart_pmse.cp").
  // Throws InputError for unknown names (with a did-you-mean hint), wrong types, out of range.
  static Params resolve(const std::string& metric, const std::vector<ParamSpec>& declared,
                        const nlohmann::json& given, const std::string& where);

  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  const std::vector<std::string>& get_string_list(const std::string& name) const;
  nlohmann::json to_json() const;

 private:
  const ParamValue& at(const std::string& name) const;
  std::map<std::string, ParamValue> values_;
};

nlohmann::json param_value_to_json(const ParamValue& value);

}  // namespace synthaudit
