#pragma once
// Reading fields of a results document that may be absent or of another type (documents written
// by older versions, or hand-made): the verdict, the headlines, the scorecard and the report
// renderers all read the document this way, so a missing field reads as empty, never throws.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace synthaudit::json_fields {

// object[key] when it is a string, else `fallback`.
inline std::string text_of(const nlohmann::json& object, const char* key,
                           const std::string& fallback = "") {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// object[key], or a null value when object has no such member.
inline const nlohmann::json& member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// A number, or null for nullopt.
inline nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace synthaudit::json_fields
