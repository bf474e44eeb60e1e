#include "metrics/params.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit {

const char* to_string(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "int";
    case ParamType::kDouble:
      return "double";
    case ParamType::kBool:
      return "bool";
    case ParamType::kString:
      return "string";
    case ParamType::kStringList:
      return "string list";
  }
  return "?";
}

nlohmann::json param_value_to_json(const ParamValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

namespace {

// A given value as JSON text for a message; bytes that are not UTF-8 (a YAML spec can hold them)
// are replaced rather than thrown on.
std::string shown(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ParamValue convert(const ParamSpec& spec, const nlohmann::json& given, const std::string& where) {
  auto fail = [&](const std::string& what) -> ParamValue { throw InputError(where + ": " + what); };
  auto check_range = [&](double v) {
    if ((spec.min && v < *spec.min) || (spec.max && v > *spec.max)) {
      std::string range = "[" + (spec.min ? format_number(*spec.min) : "-inf") + ", " +
                          (spec.max ? format_number(*spec.max) : "inf") + "]";
      fail("value " + format_number(v) + " is out of range " + range);
    }
  };
  switch (spec.type) {
    case ParamType::kInt: {
      if (given.is_number_integer()) {
        const auto v = given.get<std::int64_t>();
        check_range(static_cast<double>(v));
        return v;
      }
      // |v| < 2^63: the cast below is defined (NaN and infinity fail the comparison).
      if (given.is_number_float() && given.get<double>() == std::floor(given.get<double>()) &&
          std::fabs(given.get<double>()) < 9.2e18) {
        const auto v = static_cast<std::int64_t>(given.get<double>());
        check_range(static_cast<double>(v));
        return v;
      }
      return fail("expected an integer, got " + shown(given));
    }
    case ParamType::kDouble: {
      if (!given.is_number()) return fail("expected a number, got " + shown(given));
      const double v = given.get<double>();
      // NaN passes every range comparison (an `eta: .nan` would never converge).
      if (!std::isfinite(v))
        return fail(std::string("expected a finite number, got ") + (std::isnan(v) ? "NaN"
                                                                     : v > 0       ? "infinity"
                                                                                   : "-infinity"));
      check_range(v);
      return v;
    }
    case ParamType::kBool:
      if (!given.is_boolean()) return fail("expected true or false, got " + shown(given));
      return given.get<bool>();
    case ParamType::kString: {
      if (!given.is_string()) return fail("expected a string, got " + shown(given));
      auto v = given.get<std::string>();
      if (!spec.choices.empty() &&
          std::find(spec.choices.begin(), spec.choices.end(), v) == spec.choices.end())
        return fail("'" + v + "' is not one of " + join(spec.choices, ", ") +
                    did_you_mean(v, spec.choices));
      return v;
    }
    case ParamType::kStringList: {
      std::vector<std::string> list;
      if (given.is_string()) {
        list = split(given.get<std::string>(), ',');
      } else if (given.is_array()) {
        for (const auto& item : given) {
          if (!item.is_string()) return fail("expected a list of strings, got " + shown(given));
          list.push_back(item.get<std::string>());
        }
      } else {
        return fail("expected a list of strings, got " + shown(given));
      }
      if (!spec.choices.empty())
        for (const auto& v : list)
          if (std::find(spec.choices.begin(), spec.choices.end(), v) == spec.choices.end())
            return fail("'" + v + "' is not one of " + join(spec.choices, ", ") +
                        did_you_mean(v, spec.choices));
      return list;
    }
  }
  return fail("unsupported parameter type");
}

}  // namespace

Params Params::resolve(const std::string& metric, const std::vector<ParamSpec>& declared,
                       const nlohmann::json& given, const std::string& where) {
  Params params;
  for (const auto& spec : declared) params.values_[spec.name] = spec.default_value;
  if (given.is_null()) return params;
  if (!given.is_object())
    throw InputError(where + ": parameters of metric '" + metric + "' must be a mapping");
  std::vector<std::string> names;
  for (const auto& spec : declared) names.push_back(spec.name);
  for (const auto& item : given.items()) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda (fuzz build).
    const std::string& key = item.key();
    const auto& value = item.value();
    auto it = std::find_if(declared.begin(), declared.end(),
                           [&](const ParamSpec& s) { return s.name == key; });
    if (it == declared.end()) {
      throw InputError(where + "." + key + ": metric '" + metric + "' has no parameter '" + key +
                       "'" + did_you_mean(key, names) + (names.empty() ? " (it takes none)" : ""));
    }
    params.values_[key] = convert(*it, value, where + "." + key);
  }
  return params;
}

const ParamValue& Params::at(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("undeclared parameter '" + name + "'");
  return it->second;
}

std::int64_t Params::get_int(const std::string& name) const {
  return std::get<std::int64_t>(at(name));
}
double Params::get_double(const std::string& name) const {
  const auto& v = at(name);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}
bool Params::get_bool(const std::string& name) const { return std::get<bool>(at(name)); }
const std::string& Params::get_string(const std::string& name) const {
  return std::get<std::string>(at(name));
}
const std::vector<std::string>& Params::get_string_list(const std::string& name) const {
  return std::get<std::vector<std::string>>(at(name));
}

nlohmann::json Params::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : values_) out[name] = param_value_to_json(value);
  return out;
}

}  // namespace synthaudit
