#include "spec/options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "io/csv.hpp"

namespace synthaudit {

namespace fs = std::filesystem;
using nlohmann::json;

std::string to_string(OptionType type) {
  switch (type) {
    case OptionType::kSwitch:
      return "switch";
    case OptionType::kCount:
      return "count";
    case OptionType::kSeed:
      return "seed";
    case OptionType::kThreads:
      return "threads";
    case OptionType::kChoice:
      return "choice";
    case OptionType::kText:
      return "text";
    case OptionType::kTextList:
      return "text list";
    case OptionType::kPath:
      return "path";
    case OptionType::kStructured:
      return "structured";
  }
  return "?";
}

std::string OptionSite::where() const {
  switch (source.kind) {
    case OptionSource::Kind::kSpecFile:
      return source.origin + ": " + option.spec_key;
    case OptionSource::Kind::kCommandLine:
      return option.cli_flag;
    case OptionSource::Kind::kBinding:
      break;
  }
  return source.origin + ": " + option.binding();
}

void OptionSite::fail(const std::string& what) const { throw InputError(where() + ": " + what); }

std::string OptionSite::path(const std::string& text) const {
  if (text.empty()) fail("empty path");
  const fs::path p(text);
  return p.is_absolute() || source.base_dir.empty() ? text
                                                    : (fs::path(source.base_dir) / p).string();
}

namespace {

// ---- values in one form, whichever front end gave them ------------------------------------------

// A scalar as text: text as it is, numbers and booleans as JSON writes them (a YAML file and the
// command line give text already; a binding may give a number where a column name is meant).
std::string text_of(const json& value, const OptionSite& site, const std::string& at = "") {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer() || value.is_number_unsigned() || value.is_boolean())
    return value.dump();
  if (value.is_number_float()) return format_number(value.get<double>());
  throw InputError(site.where() + at + ": expected a text value");
}

// A list of text: a list, or one text split at commas (as --keys a,b).
std::vector<std::string> text_list(const json& value, const OptionSite& site) {
  if (value.is_array()) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < value.size(); ++i)
      out.push_back(text_of(value[i], site, "[" + std::to_string(i) + "]"));
    return out;
  }
  if (value.is_null() || value.is_object()) site.fail("expected a list");
  return split(text_of(value, site), ',');
}

bool switch_of(const json& value, const OptionSite& site) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_string() && (value == "true" || value == "false")) return value == "true";
  if (value.is_number_integer() && (value == 0 || value == 1)) return value == 1;
  site.fail("expected true or false");
}

// A whole number from text or a number (R gives every number as a double).
std::int64_t whole_number(const json& value, const OptionSite& site) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_unsigned()) {
    const auto n = value.get<std::uint64_t>();
    if (n > static_cast<std::uint64_t>(INT64_MAX)) site.fail("'" + value.dump() + "' is too large");
    return static_cast<std::int64_t>(n);
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740992.0)
      return static_cast<std::int64_t>(d);
    site.fail("'" + format_number(d) + "' is not a whole number");
  }
  if (!value.is_string()) site.fail("expected a whole number");
  const std::string text = trim(value.get<std::string>());
  std::int64_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    site.fail("'" + value.get<std::string>() + "' is not a whole number");
  return n;
}

// A real number from a number or its text.
double number_of(const json& value, const OptionSite& site) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string text = trim(value.get<std::string>());
    double d = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    if (!text.empty() && ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(d))
      return d;
    site.fail("'" + value.get<std::string>() + "' is not a number");
  }
  site.fail("expected a number");
}

std::string range_text(double value) {
  return std::fabs(value) < 1e15 ? std::to_string(static_cast<std::int64_t>(value))
                                 : format_number(value);
}

std::int64_t count_of(const json& value, const OptionSite& site) {
  const std::int64_t n = whole_number(value, site);
  const auto& o = site.option;
  if ((o.minimum && static_cast<double>(n) < *o.minimum) ||
      (o.maximum && static_cast<double>(n) > *o.maximum))
    site.fail("must be between " + range_text(o.minimum.value_or(0)) + " and " +
              range_text(o.maximum.value_or(0)));
  return n;
}

std::uint64_t seed_of(const json& value, const OptionSite& site) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() || value.is_number_float()) {
    const std::int64_t n = whole_number(value, site);
    if (n < 0) site.fail("'" + value.dump() + "': a seed is a non-negative integer");
    return static_cast<std::uint64_t>(n);
  }
  if (!value.is_string()) site.fail("expected a seed (a non-negative integer)");
  return parse_seed(value.get<std::string>(), site.where());
}

int threads_of(const json& value, const OptionSite& site) {
  if (value.is_string()) return parse_threads(value.get<std::string>(), site.where());
  if (value.is_number_unsigned()) return parse_threads(value.dump(), site.where());
  const std::int64_t n = whole_number(value, site);
  return parse_threads(std::to_string(n), site.where());
}

std::string choice_of(const json& value, const OptionSite& site) {
  const std::string text = text_of(value, site);
  const auto& choices = site.option.choices;
  if (std::find(choices.begin(), choices.end(), text) == choices.end())
    site.fail("'" + text + "' is not one of " + join(choices, ", ") + did_you_mean(text, choices));
  return text;
}

// "NAME=VALUE" split at the first '='; false when there is none or the name is empty.
bool assignment_parts(const std::string& text, std::string& name, std::string& value) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = trim(text.substr(0, eq));
  value = text.substr(eq + 1);
  return !name.empty();
}

// A value of NAME=VALUE: JSON when it reads as JSON (a number, true, a quoted string, a list),
// otherwise the bare text.
json assignment_value(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error&) {
    return text;
  }
}

const json& object_of(const json& value, const OptionSite& site, const std::string& expected) {
  if (!value.is_object()) site.fail("expected " + expected);
  return value;
}

// ---- the apply functions of the structured options
// ------------------------------------------------

// The command line gives a mapping as repeated NAME=VALUE flags: a list of text.
bool command_line_list(const json& value, const OptionSite& site) {
  return value.is_array() && site.source.kind == OptionSource::Kind::kCommandLine;
}

void apply_limits(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  if (command_line_list(value, site)) {  // --limit NAME=VALUE, repeated
    for (const auto& item : value) {
      const std::string text = text_of(item, site);
      std::string name, given;
      if (!assignment_parts(text, name, given))
        site.fail("'" + text + "' should be NAME=VALUE (docs/limits.md)");
      set_limit(spec.context.limits, name, trim(given), site.where());
    }
    return;
  }
  for (const auto& [name, limit] :
       object_of(value, site, "a mapping limit: value (docs/limits.md)").items())
    set_limit(spec.context.limits, name, text_of(limit, site, "." + name),
              site.where() + "." + name);
}

void apply_candidates(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  spec.candidates.clear();
  if (!value.is_array()) site.fail("expected a list");
  for (std::size_t i = 0; i < value.size(); ++i) {
    const json& item = value[i];
    if (item.is_string()) {  // --synthetic NAME=FILE[,FILE...]
      CandidateSpec candidate = parse_candidate(item.get<std::string>());
      for (auto& file : candidate.replicates) file = site.path(file);
      spec.candidates.push_back(std::move(candidate));
      continue;
    }
    const std::string at = "[" + std::to_string(i) + "]";
    if (!item.is_object()) site.fail(at.substr(0) + ": expected a mapping {name, replicates}");
    for (const auto& [key, _] : item.items())
      if (key != "name" && key != "replicates")
        throw InputError(site.where() + at + "." + key + ": unknown key" +
                         did_you_mean(key, {"name", "replicates"}) + "; allowed: name, replicates");
    if (!item.contains("name"))
      throw InputError(site.where() + at + ".name: required key is missing");
    if (!item.contains("replicates"))
      throw InputError(site.where() + at + ".replicates: required key is missing");
    CandidateSpec candidate{text_of(item["name"], site, at + ".name"), {}};
    const json& replicates = item["replicates"];
    if (replicates.is_array()) {
      if (replicates.empty())
        throw InputError(site.where() + at + ".replicates: expected a non-empty list of files");
      for (std::size_t j = 0; j < replicates.size(); ++j)
        candidate.replicates.push_back(
            site.path(text_of(replicates[j], site, at + ".replicates[" + std::to_string(j) + "]")));
    } else {
      candidate.replicates.push_back(site.path(text_of(replicates, site, at + ".replicates")));
    }
    spec.candidates.push_back(std::move(candidate));
  }
}

void apply_missing_values(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  std::vector<std::string> spellings;
  if (value.is_string()) {
    // An empty item is the empty field: split keeps it.
    const std::string text = value.get<std::string>();
    std::size_t start = 0;
    while (true) {
      const auto comma = text.find(',', start);
      spellings.push_back(text.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    spellings = text_list(value, site);
  }
  spec.read.missing_values = checked_missing_values(std::move(spellings), site.where());
}

void apply_columns(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  for (const auto& [name, kind] :
       object_of(value, site, "a mapping column: numeric|categorical").items())
    spec.read.kinds[name] = parse_kind(text_of(kind, site, "." + name), site.where() + "." + name);
}

void apply_missing_codes(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  auto set_column = [&](const std::string& column, const std::vector<json>& codes,
                        const std::string& at, bool listed) {
    spec.read.missing_codes.erase(column);
    spec.read.missing_text_codes.erase(column);
    for (std::size_t i = 0; i < codes.size(); ++i) {
      const std::string where = at + (listed ? "[" + std::to_string(i) + "]" : "");
      if (codes[i].is_number_float() && !std::isfinite(codes[i].get<double>()))
        throw InputError(where + ": expected a finite number");
      if (!codes[i].is_primitive() || codes[i].is_null())
        throw InputError(where + ": expected a text value");
      // YAML's spellings of non-finite numbers are numbers, not text codes.
      static const std::set<std::string> kYamlNonFinite = {".nan",  ".NaN",  ".NAN",  ".inf",
                                                           ".Inf",  ".INF",  "-.inf", "-.Inf",
                                                           "-.INF", "+.inf", "+.Inf", "+.INF"};
      if (site.source.kind == OptionSource::Kind::kSpecFile && codes[i].is_string() &&
          kYamlNonFinite.count(codes[i].get<std::string>()) > 0)
        throw InputError(where + ": expected a finite number, got " + codes[i].get<std::string>());
      add_missing_code(spec.read, column, text_of(codes[i], site), where);
    }
  };
  if (command_line_list(value, site)) {  // --missing-codes COLUMN=CODE[,CODE...], repeated
    for (const auto& item : value) {
      const std::string text = text_of(item, site);
      std::string column, codes;
      if (!assignment_parts(text, column, codes) || trim(codes).empty())
        site.fail("'" + text + "' should be COLUMN=CODE[,CODE...]");
      std::vector<json> list;
      for (const auto& code : split(codes, ',')) list.emplace_back(code);
      set_column(column, list, site.where() + " " + column, false);
    }
    return;
  }
  for (const auto& [column, codes] : object_of(value, site, "a mapping column: [codes]").items()) {
    std::vector<json> list;
    if (codes.is_array())
      list.assign(codes.begin(), codes.end());
    else
      list.push_back(codes);
    set_column(column, list, site.where() + "." + column, codes.is_array());
  }
}

void apply_parameters(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  if (command_line_list(value, site)) {  // --param METRIC.NAME=VALUE, repeated
    for (const auto& item : value) add_param_assignment(spec, text_of(item, site));
    return;
  }
  // Each parameter given wins over an earlier value of the same parameter (a spec file's).
  for (const auto& [metric, given] :
       object_of(value, site, "a mapping metric: {parameter: value}").items()) {
    if (!given.is_object())
      throw InputError(site.where() + "." + metric + ": expected a mapping parameter: value");
    json& merged = spec.parameters[metric];
    if (!merged.is_object()) merged = json::object();
    for (const auto& [name, parameter] : given.items()) merged[name] = parameter;
  }
}

std::vector<DisclosureScenario> scenarios_of(const json& value, const OptionSite& site) {
  if (!value.is_array()) site.fail("expected a list of {keys, targets}");
  std::vector<DisclosureScenario> scenarios;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    const json& item = value[i];
    if (!item.is_object()) throw InputError(site.where() + at + ": expected a mapping");
    for (const auto& [key, _] : item.items())
      if (key != "keys" && key != "targets")
        throw InputError(site.where() + at + "." + key + ": unknown key" +
                         did_you_mean(key, {"keys", "targets"}) + "; allowed: keys, targets");
    for (const char* key : {"keys", "targets"})
      if (!item.contains(key))
        throw InputError(site.where() + at + "." + key + ": required key is missing");
    scenarios.push_back({text_list(item["keys"], site), text_list(item["targets"], site)});
  }
  return scenarios;
}

void apply_disclosure(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  spec.context.scenarios = scenarios_of(value, site);
}

// keys and targets: one scenario (text lists), or several (lists of lists, one per scenario).
void apply_keys(EvaluationSpec& spec, const json& keys, const OptionSite& site) {
  if (!site.given.contains("targets")) site.fail("keys and targets go together");
  const json& targets = site.given["targets"];
  const bool several = keys.is_array() && !keys.empty() && keys[0].is_array();
  if (!several) {
    spec.context.scenarios = {{text_list(keys, site), text_list(targets, site)}};
    return;
  }
  if (!targets.is_array() || targets.size() != keys.size())
    site.fail("keys and targets must have one entry per scenario (" + std::to_string(keys.size()) +
              " keys, " + std::to_string(targets.is_array() ? targets.size() : 1) + " targets)");
  spec.context.scenarios.clear();
  for (std::size_t i = 0; i < keys.size(); ++i)
    spec.context.scenarios.push_back({text_list(keys[i], site), text_list(targets[i], site)});
}

void apply_targets(EvaluationSpec&, const json&, const OptionSite& site) {
  if (!site.given.contains("keys")) site.fail("keys and targets go together");
}

void apply_disclosure_matching(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  if (!spec.disclosure_matching.is_object()) spec.disclosure_matching = json::object();
  auto set = [&](const std::string& name, json given, const std::string& where) {
    if (std::find(kDisclosureMatchingKeys.begin(), kDisclosureMatchingKeys.end(), name) ==
        kDisclosureMatchingKeys.end())
      throw InputError(where + ": unknown key" + did_you_mean(name, kDisclosureMatchingKeys) +
                       "; allowed: " + join(kDisclosureMatchingKeys, ", "));
    if (name == "missing_matches") {
      if (given.is_string() && (given == "true" || given == "false")) given = given == "true";
      if (!given.is_boolean()) throw InputError(where + ": expected true or false");
    } else {
      if (given.is_string()) given = assignment_value(given.get<std::string>());
      if (!given.is_number() || !std::isfinite(given.get<double>()))
        throw InputError(where + ": expected a number");
      const double most = name == "relative_tolerance" ? 1.0 : INFINITY;
      if (!(given.get<double>() >= 0.0 && given.get<double>() <= most))
        throw InputError(where + ": must be a number " +
                         (std::isinf(most) ? ">= 0" : "between 0 and 1 (a fraction)"));
    }
    spec.disclosure_matching[name] = std::move(given);
  };
  if (command_line_list(value, site)) {  // --disclosure-matching NAME=VALUE, repeated
    for (const auto& item : value) {
      const std::string text = text_of(item, site);
      std::string name, given;
      if (!assignment_parts(text, name, given))
        site.fail("'" + text + "' should be NAME=VALUE, NAME one of " +
                  join(kDisclosureMatchingKeys, ", "));
      set(name, assignment_value(trim(given)), site.where() + " " + name);
    }
    return;
  }
  for (const auto& [name, given] :
       object_of(value, site, "a mapping with " + join(kDisclosureMatchingKeys, ", ")).items())
    set(name, given, site.where() + "." + name);
}

void apply_analyses(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  const json list = value.is_array() ? value : json::array({value});
  spec.context.analyses.clear();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = site.where() + "[" + std::to_string(i) + "]";
    const json& item = list[i];
    if (!item.is_object()) {
      spec.context.analyses.push_back(parse_analysis(text_of(item, site), i, at));
      continue;
    }
    // {name: ..., lm: "y ~ x"}: a spec file's long form.
    std::string name, text;
    for (const auto& [key, body] : item.items()) {
      if (key == "name") {
        name = text_of(body, site, "[" + std::to_string(i) + "].name");
        continue;
      }
      if (std::find(kAnalysisKinds.begin(), kAnalysisKinds.end(), key) == kAnalysisKinds.end()) {
        std::vector<std::string> allowed = {"name"};
        allowed.insert(allowed.end(), kAnalysisKinds.begin(), kAnalysisKinds.end());
        throw InputError(at + "." + key + ": unknown key" + did_you_mean(key, allowed) +
                         "; allowed: " + join(allowed, ", "));
      }
      if (!text.empty()) throw InputError(at + ": give exactly one analysis kind");
      text = key + ": " + text_of(body, site, "[" + std::to_string(i) + "]." + key);
    }
    if (text.empty())
      throw InputError(at + ": no analysis kind given (" + join(kAnalysisKinds, ", ") + ")");
    if (!name.empty()) text = name + "=" + text;
    spec.context.analyses.push_back(parse_analysis(text, i, at));
  }
}

void apply_policy(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  if (value.is_object()) {
    const bool file = site.source.kind == OptionSource::Kind::kSpecFile;
    spec.policy = policy_from_json(value, file ? site.source.origin : site.where(),
                                   file ? site.option.spec_key : "");
    return;
  }
  spec.policy = load_policy(site.path(text_of(value, site)), spec.context.limits);
}

// rules: a list of rules (a spec's block, a binding's list), or a rules file's path.
void apply_rules(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  if (value.is_array()) {
    const bool file = site.source.kind == OptionSource::Kind::kSpecFile;
    spec.context.rules = rules_from_json(
        value, file ? site.source.origin + ": " + site.option.spec_key : site.where());
    return;
  }
  spec.context.rules = load_rules(site.path(text_of(value, site)), spec.context.limits);
}

// tables: the mapping itself, or a YAML file holding it. The household column defaults to the
// root table's key as the next table holds it (persons' db030): the household metrics then group
// the joined records by their root record.
void apply_tables(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  if (value.is_object()) {
    const bool file = site.source.kind == OptionSource::Kind::kSpecFile;
    spec.tables = related_tables_from_json(
        value, file ? site.source.origin + ": " + site.option.spec_key : site.where());
  } else {
    spec.tables = load_related_tables(site.path(text_of(value, site)), spec.context.limits);
  }
  if (spec.context.household.empty() && spec.tables.size() >= 2 &&
      spec.tables[1].foreign_key.size() == 1)
    spec.context.household = spec.tables[1].foreign_key.front();
}

// safe_output: true or false; a spec file's block {threshold: N} turns it on (the threshold is
// its own option, safe_output_threshold, read from safe_output.threshold).
void apply_safe_output(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  spec.safe_output = value.is_object() || switch_of(value, site);
}

void apply_safe_output_threshold(EvaluationSpec& spec, const json& value, const OptionSite& site) {
  spec.safe_output = true;
  spec.safe_output_threshold = static_cast<std::size_t>(count_of(value, site));
}

// ---- the table
// ------------------------------------------------------------------------------------

using Apply = std::function<void(EvaluationSpec&, const json&, const OptionSite&)>;

struct Declare {
  EvaluationOption o;
  Declare(std::string name, OptionType type) {
    o.name = std::move(name);
    o.type = type;
  }
  Declare& spec(std::string key) {
    o.spec_key = std::move(key);
    return *this;
  }
  Declare& cli(std::string flag, std::string value = "", bool repeatable = false) {
    o.cli_flag = std::move(flag);
    o.cli_value = std::move(value);
    o.cli_repeatable = repeatable;
    return *this;
  }
  Declare& binding(std::string name) {
    o.binding_name = std::move(name);
    return *this;
  }
  Declare& files_only() { return binding("-"); }
  Declare& defaults(json value) {
    o.default_value = std::move(value);
    return *this;
  }
  Declare& range(double low, double high) {
    o.minimum = low;
    o.maximum = high;
    return *this;
  }
  Declare& choices(std::vector<std::string> values) {
    o.choices = std::move(values);
    return *this;
  }
  Declare& privacy() {
    o.privacy_control = true;
    return *this;
  }
  Declare& typed() {
    o.typed_in_spec_file = true;
    return *this;
  }
  Declare& example(json value, json cli_value) {
    o.example = std::move(value);
    o.cli_example = std::move(cli_value);
    return *this;
  }
  Declare& doc(std::string text) {
    o.description = std::move(text);
    return *this;
  }
  EvaluationOption apply(Apply fn) {
    o.apply = std::move(fn);
    return std::move(o);
  }
};

std::vector<EvaluationOption> declare_options() {
  std::vector<EvaluationOption> t;
  using T = OptionType;
  t.push_back(
      Declare("limits", T::kStructured)
          .example({{"field_bytes", "2M"}}, json::array({"field_bytes=2M"}))
          .spec("limits")
          .cli("--limit", "NAME=VALUE", true)
          .privacy()
          .doc("resource limits (docs/limits.md: " + join(limit_names(), ", ") +
               "): a mapping NAME: VALUE, or NAME=VALUE on the command line (repeatable); they "
               "also bound the reading of the spec file")
          .apply(apply_limits));
  t.push_back(Declare("memory", T::kText)
                  .example("16G", "16G")
                  .cli("--memory", "SIZE")
                  .privacy()
                  .doc("memory budget, e.g. 16G: the run stops with an error before it would need "
                       "more (default: the machine's and the process's limits); the same as the "
                       "limit memory")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    set_limit(s.context.limits, "memory", text_of(v, site), site.where());
                  }));
  t.push_back(Declare("spec", T::kPath)
                  .example(nullptr, nullptr)
                  .cli("--spec", "FILE")
                  .doc("a YAML evaluation spec (docs/config.md); every option given with it "
                       "overrides the spec's value")
                  .apply([](EvaluationSpec&, const json&, const OptionSite&) {
                    // Read first, by spec_from_options.
                  }));
  t.push_back(Declare("confidential", T::kPath)
                  .example("confidential.csv", "confidential.csv")
                  .spec("confidential")
                  .cli("--confidential", "FILE")
                  .files_only()
                  .doc("the confidential data file (CSV, .csv.gz, Stata, SPSS, SAS)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.confidential = site.path(text_of(v, site));
                  }));
  t.push_back(
      Declare("candidates", T::kStructured)
          .example(json::array({{{"name", "cart"}, {"replicates", {"cart_1.csv", "cart_2.csv"}}}}),
                   json::array({"cart=cart_1.csv,cart_2.csv"}))
          .spec("candidates")
          .cli("--synthetic", "NAME=FILE[,FILE...]", true)
          .files_only()
          .doc("the candidate syntheses, each with its replicate files: a list of {name, "
               "replicates} in a spec, NAME=FILE[,FILE...] on the command line (repeatable)")
          .apply(apply_candidates));
  t.push_back(Declare("holdout", T::kPath)
                  .example("holdout.csv", "holdout.csv")
                  .spec("holdout")
                  .cli("--holdout", "FILE")
                  .files_only()
                  .doc("records of the same population not used to synthesise")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.holdout = site.path(text_of(v, site));
                  }));
  t.push_back(Declare("output", T::kPath)
                  .example("out", "out")
                  .spec("output")
                  .cli("--out", "DIR")
                  .files_only()
                  .doc("output folder for results.json, results.tsv and report.html")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.output_dir = site.path(text_of(v, site));
                  }));
  t.push_back(Declare("synthesis", T::kChoice)
                  .example("partial", "partial")
                  .spec("synthesis")
                  .cli("--synthesis", "TYPE")
                  .choices({"full", "partial"})
                  .defaults("full")
                  .doc("full, or partial (synthetic row i corresponds to confidential row i)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.synthesis = choice_of(v, site) == "partial" ? SynthesisType::kPartial
                                                                          : SynthesisType::kFull;
                  }));
  t.push_back(Declare("synthesised_columns", T::kTextList)
                  .example(json::array({"income", "wage"}), "income,wage")
                  .spec("synthesised_columns")
                  .cli("--synthesised-columns", "COLUMNS")
                  .doc("partial synthesis: the columns that were synthesised (the others must "
                       "equal the confidential data row by row)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.synthesised_columns = text_list(v, site);
                  }));
  t.push_back(Declare("weights", T::kText)
                  .example("w", "w")
                  .spec("weights")
                  .cli("--weights", "COLUMN")
                  .doc("sampling-weight column of the confidential (and holdout) data: the "
                       "estimate-type utility measures are design-weighted")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.weights = text_of(v, site);
                  }));
  // The sampling design (R's survey::svydesign and svrepdesign, Lumley 2004): one option per
  // argument, all under the spec's design: block.
  t.push_back(Declare("strata", T::kText)
                  .example("stratum", "stratum")
                  .spec("design.strata")
                  .cli("--strata", "COLUMN")
                  .doc("stratum column of the sampling design (with weights): variances as R's "
                       "svydesign(strata = )")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.design.strata = text_of(v, site);
                  }));
  t.push_back(Declare("clusters", T::kTextList)
                  .example(json::array({"psu"}), "psu")
                  .spec("design.clusters")
                  .cli("--clusters", "COLUMNS")
                  .doc("cluster (PSU) column of the sampling design, one per stage; the first "
                       "stage gives the variance (svydesign(ids = ))")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.design.clusters = text_list(v, site);
                  }));
  t.push_back(Declare("fpc", T::kText)
                  .example("fpc", "fpc")
                  .spec("design.fpc")
                  .cli("--fpc", "COLUMN")
                  .doc("finite-population correction column: the population's PSUs in the "
                       "stratum, or (every value <= 1) the sampling fraction (svydesign(fpc = ))")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.design.fpc = text_of(v, site);
                  }));
  t.push_back(Declare("nest", T::kSwitch)
                  .example(true, true)
                  .spec("design.nest")
                  .cli("--nest")
                  .defaults(false)
                  .doc("cluster labels restart in each stratum (svydesign(nest = TRUE))")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.design.nest = switch_of(v, site);
                  }));
  t.push_back(Declare("lonely_psu", T::kChoice)
                  .example("adjust", "adjust")
                  .spec("design.lonely_psu")
                  .cli("--lonely-psu", "RULE")
                  .choices({"fail", "remove", "certainty", "adjust", "average"})
                  .defaults("fail")
                  .doc("a stratum with one PSU: as R's options(survey.lonely.psu = )")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.design.lonely_psu = *stats::lonely_psu_from(choice_of(v, site));
                  }));
  t.push_back(Declare("replicate_weights", T::kTextList)
                  .example(json::array({"rep1", "rep2"}), "rep1,rep2")
                  .spec("design.replicate_weights")
                  .cli("--replicate-weights", "COLUMNS")
                  .doc("replicate-weight columns (combined with the sampling weight, as "
                       "svrepdesign(combined.weights = TRUE)); a name with * matches every "
                       "column it fits, in table order")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.design.replicate_weights = text_list(v, site);
                  }));
  t.push_back(Declare("replicate_type", T::kChoice)
                  .example("bootstrap", "bootstrap")
                  .spec("design.type")
                  .cli("--replicate-type", "TYPE")
                  .choices({"BRR", "Fay", "JK1", "JKn", "bootstrap", "other"})
                  .defaults("JK1")
                  .doc("how the replicate weights were made (svrepdesign(type = )); it sets the "
                       "variance's scale")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.design.replicate_type =
                        *stats::replicate_type_from(choice_of(v, site));
                  }));
  t.push_back(Declare("fay_rho", T::kStructured)
                  .example(0.5, "0.5")
                  .spec("design.rho")
                  .cli("--fay-rho", "RHO")
                  .doc("Fay's rho for replicate_type Fay, between 0 and 1")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    const double rho = number_of(v, site);
                    if (!(rho >= 0 && rho < 1)) site.fail("must be at least 0 and below 1");
                    s.context.design.rho = rho;
                  }));
  t.push_back(Declare("replicate_scale", T::kStructured)
                  .example(0.25, "0.25")
                  .spec("design.scale")
                  .cli("--replicate-scale", "SCALE")
                  .doc("the replicate variance's overall scale, instead of the type's "
                       "(svrepdesign(scale = ))")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    const double scale = number_of(v, site);
                    if (!(scale > 0)) site.fail("must be a positive number");
                    s.context.design.scale = scale;
                  }));
  t.push_back(Declare("replicate_rscales", T::kStructured)
                  .example(json::array({0.5, 0.5}), "0.5,0.5")
                  .spec("design.rscales")
                  .cli("--replicate-rscales", "NUMBERS")
                  .doc("one scale per replicate ((n_h - 1)/n_h for JKn; svrepdesign(rscales = ))")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    std::vector<double> scales;
                    if (v.is_array()) {
                      for (const auto& item : v) scales.push_back(number_of(item, site));
                    } else {
                      for (const auto& part : split(text_of(v, site), ','))
                        scales.push_back(number_of(json(part), site));
                    }
                    for (const double r : scales)
                      if (!(r >= 0)) site.fail("every rscale must be a number >= 0");
                    s.context.design.rscales = scales;
                  }));
  t.push_back(Declare("replicate_mse", T::kSwitch)
                  .example(true, true)
                  .spec("design.mse")
                  .cli("--replicate-mse")
                  .defaults(false)
                  .doc("centre the replicates on the full-sample estimate rather than their "
                       "mean (svrepdesign(mse = TRUE))")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.design.mse = switch_of(v, site);
                  }));
  t.push_back(Declare("household", T::kText)
                  .example("hh", "hh")
                  .spec("household")
                  .cli("--household", "COLUMN")
                  .doc("household identifier column (household disclosure risk)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.household = text_of(v, site);
                  }));
  t.push_back(
      Declare("tables", T::kStructured)
          .example({{"households", {{"primary_key", "hid"}}},
                    {"persons",
                     {{"primary_key", "pid"}, {"parent", "households"}, {"foreign_key", "hid"}}}},
                   nullptr)
          .spec("tables")
          .cli("--tables", "FILE")
          .files_only()
          .doc("related tables (docs/config.md): a mapping of each table to {primary_key, parent, "
               "foreign_key}, one chain from the root (households, persons, ...), or a YAML file "
               "holding it; every dataset is then a folder with one file per table "
               "(TABLE.csv, or any format read), joined into one record per row of the last "
               "table; the household column defaults to the root's key")
          .apply(apply_tables));
  t.push_back(Declare("delimiter", T::kText)
                  .example(";", ";")
                  .spec("read.delimiter")
                  .cli("--delimiter", "CHAR")
                  .files_only()
                  .defaults("auto")
                  .doc("field separator of text files: one character, tab, or auto (detected "
                       "from the header)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.read.csv.delimiter = parse_delimiter(text_of(v, site), site.where());
                  }));
  t.push_back(Declare("decimal", T::kText)
                  .example(",", ",")
                  .spec("read.decimal")
                  .cli("--decimal", "MARK")
                  .files_only()
                  .defaults("auto")
                  .doc("decimal mark of numbers in text files: . or , or auto (detected; ',' only "
                       "when the delimiter is not a comma)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.read.csv.decimal = parse_decimal_mark(text_of(v, site), site.where());
                  }));
  t.push_back(Declare("encoding", T::kText)
                  .example("latin1", "latin1")
                  .spec("read.encoding")
                  .cli("--encoding", "NAME")
                  .files_only()
                  .defaults("utf-8")
                  .doc("character encoding of text files: utf-8, latin1 or windows-1252 "
                       "(converted to UTF-8 when read)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.read.csv.encoding = parse_text_encoding(text_of(v, site), site.where());
                  }));
  t.push_back(Declare("missing_values", T::kTextList)
                  .example(json::array({"", "NA", "-"}), ",NA,-")
                  .spec("read.missing_values")
                  .cli("--na", "SPELLINGS")
                  .binding("na_strings")
                  .defaults(json::array({"", "NA", "NaN", "null"}))
                  .doc("text that means a missing value, in every column (comma-separated on the "
                       "command line; an empty item is the empty field); applies to text columns "
                       "of data frames as to fields of files")
                  .apply(apply_missing_values));
  t.push_back(Declare("value_labels", T::kChoice)
                  .example("codes", "codes")
                  .spec("read.value_labels")
                  .cli("--value-labels", "HOW")
                  .files_only()
                  .choices({"labels", "codes"})
                  .defaults("labels")
                  .doc("Stata, SPSS and SAS files: read labelled values as their labels or their "
                       "codes")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.read.value_labels =
                        choice_of(v, site) == "codes" ? ValueLabels::kCodes : ValueLabels::kLabels;
                  }));
  t.push_back(Declare("metadata", T::kPath)
                  .example("metadata.json", "metadata.json")
                  .spec("metadata")
                  .cli("--metadata", "FILE")
                  .files_only()
                  .doc("SDV metadata JSON with the columns' sdtypes")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.metadata = site.path(text_of(v, site));
                  }));
  t.push_back(Declare("columns", T::kStructured)
                  .example({{"age", "numeric"}}, nullptr)
                  .spec("columns")
                  .files_only()
                  .doc("column kinds fixed by the user: a mapping column: numeric|categorical "
                       "(the Python package reads them from the spec too)")
                  .apply(apply_columns));
  t.push_back(Declare("missing_codes", T::kStructured)
                  .example({{"income", {-8, "DK"}}}, json::array({"income=-8,DK"}))
                  .spec("missing_codes")
                  .cli("--missing-codes", "COLUMN=CODE[,CODE...]", true)
                  .doc("codes that mean missing in a column (numbers, as synthpop's cont.na, or "
                       "text such as DK): a mapping column: [codes], or COLUMN=CODE[,CODE...] on "
                       "the command line (repeatable)")
                  .apply(apply_missing_codes));
  t.push_back(Declare("metrics", T::kTextList)
                  .example(json::array({"general", "sdc-risk"}), "general,sdc-risk")
                  .spec("metrics")
                  .cli("--metrics", "NAMES")
                  .defaults(json::array({"all"}))
                  .doc("metric names or families (general, propensity, specific, key-disclosure, "
                       "distance-disclosure, attack-disclosure, sdc-risk) or all")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.metrics = text_list(v, site);
                  }));
  t.push_back(
      Declare("parameters", T::kStructured)
          .example({{"ks_distance", {{"pvalue", true}}}}, json::array({"ks_distance.pvalue=true"}))
          .spec("parameters")
          .cli("--param", "METRIC.NAME=VALUE", true)
          .binding("params")
          .typed()
          .doc("metric parameters: a mapping metric: {parameter: value}, or "
               "METRIC.NAME=VALUE on the command line (repeatable); each is checked "
               "against the metric's declaration (synthaudit describe METRIC)")
          .apply(apply_parameters));
  t.push_back(
      Declare("disclosure", T::kStructured)
          .example(json::array({{{"keys", {"age", "sex"}}, {"targets", {"income"}}}}), nullptr)
          .spec("disclosure")
          .doc("disclosure scenarios (what an intruder knows, what they want to learn): "
               "a list of {keys, targets}")
          .apply(apply_disclosure));
  t.push_back(
      Declare("rules", T::kStructured)
          .example(json::array({{{"name", "status_from_16"},
                                 {"when", "age < 16"},
                                 {"then", "is_missing(status)"}}}),
                   nullptr)
          .spec("rules")
          .cli("--rules", "FILE")
          .doc("edit rules the data should meet (docs/config.md): a YAML file, or the list "
               "itself, each {name, then} with optional when, severity (error, warning) and "
               "group_by; counted by the edit_rules metric")
          .apply(apply_rules));
  t.push_back(Declare("keys", T::kStructured)
                  .example(json::array({"age", "sex"}), "age,sex")
                  .cli("--keys", "COLUMNS")
                  .doc("one disclosure scenario's key columns (comma-separated text or a list; "
                       "the bindings also take a list of lists, one per scenario); with targets")
                  .apply(apply_keys));
  t.push_back(Declare("targets", T::kStructured)
                  .example(json::array({"income"}), "income")
                  .cli("--targets", "COLUMNS")
                  .doc("the disclosure scenario's target columns; with keys")
                  .apply(apply_targets));
  t.push_back(
      Declare("disclosure_matching", T::kStructured)
          .example({{"numeric_tolerance", 0.5}, {"missing_matches", true}},
                   json::array({"numeric_tolerance=0.5", "missing_matches=true"}))
          .spec("disclosure_matching")
          .cli("--disclosure-matching", "NAME=VALUE", true)
          .typed()
          .doc("how the key-disclosure metrics match values: a mapping with numeric_tolerance "
               "(>= 0), relative_tolerance (0 to 1) and missing_matches (true or false), or "
               "NAME=VALUE on the command line (repeatable); a metric's own parameters win")
          .apply(apply_disclosure_matching));
  t.push_back(Declare("analyses", T::kStructured)
                  .example(json::array({"lm: income ~ age", "mean: income"}),
                           json::array({"lm: income ~ age", "mean: income"}))
                  .spec("analyses")
                  .cli("--analysis", "ANALYSIS", true)
                  .doc("specific-utility analyses, e.g. 'lm: log(income) ~ age' or 'mean: "
                       "income' ([name=]kind: body; kinds " +
                       join(kAnalysisKinds, ", ") + "); a list, or repeat the flag")
                  .apply(apply_analyses));
  t.push_back(Declare("seed", T::kSeed)
                  .example(42, "42")
                  .spec("seed")
                  .cli("--seed", "N")
                  .defaults(1)
                  .doc("the master seed, 0 to 2^64 - 1: every random step derives its own from it")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.seed = seed_of(v, site);
                  }));
  t.push_back(Declare("threads", T::kThreads)
                  .example(3, "3")
                  .spec("threads")
                  .cli("--threads", "N")
                  .defaults(0)
                  .doc("threads (0 = all cores; more than the machine has are capped, with a "
                       "warning); results never depend on it")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.context.threads = threads_of(v, site);
                  }));
  t.push_back(Declare("plots", T::kChoice)
                  .example("all", "all")
                  .spec("plots")
                  .cli("--plots", "WHICH")
                  .choices({"first", "all", "none"})
                  .defaults("first")
                  .doc("replicates whose plot data results.json keeps: first, all or none")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.plots = choice_of(v, site);
                  }));
  t.push_back(Declare("baseline_draws", T::kCount)
                  .example(7, "7")
                  .spec("baseline_draws")
                  .cli("--baseline-draws", "N")
                  .range(0, 1000)
                  .defaults(5)
                  .doc("replicate draws of the holdout and resample baselines and of their "
                       "sampling noise (0 = none)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.baseline_draws = static_cast<int>(count_of(v, site));
                  }));
  t.push_back(Declare("null_draws", T::kCount)
                  .example(99, "99")
                  .spec("null_draws")
                  .cli("--null-draws", "N")
                  .range(0, 100000)
                  .defaults(kDefaultNullDraws)
                  .doc("the most re-splits of each replicate with the holdout for the verdict's "
                       "permutation test (it stops earlier once 10 re-splits are as extreme as "
                       "the observed difference); 0 = no permutation test (the noise margins "
                       "decide)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.null_draws = static_cast<int>(count_of(v, site));
                  }));
  t.push_back(
      Declare("policy", T::kStructured)
          .example({{"default_checks", false}, {"margins", {{"review_sd", 3}, {"fail_sd", 5}}}},
                   nullptr)
          .spec("policy")
          .cli("--policy", "FILE")
          .privacy()
          .doc("the release policy the verdict applies (docs/config.md): a YAML file, or "
               "the policy itself as a mapping {criteria, default_checks, margins}")
          .apply(apply_policy));
  t.push_back(Declare("safe_output", T::kSwitch)
                  .example(true, true)
                  .spec("safe_output")
                  .cli("--safe-output")
                  .privacy()
                  .defaults(false)
                  .doc("secure-environment mode: only aggregates that pass output checking (no "
                       "record's value, no extremes, nothing from fewer than "
                       "safe_output_threshold records), with a log of what was withheld")
                  .apply(apply_safe_output));
  t.push_back(Declare("safe_output_threshold", T::kCount)
                  .example(25, "25")
                  .spec("safe_output.threshold")
                  .cli("--safe-output-threshold", "N")
                  .privacy()
                  .range(1, 1000000)
                  .defaults(10)
                  .doc("the fewest records a released number or category may come from (implies "
                       "safe_output)")
                  .apply(apply_safe_output_threshold));
  t.push_back(Declare("by", T::kTextList)
                  .example(json::array({"sex"}), "sex")
                  .spec("by")
                  .cli("--by", "COLUMNS")
                  .doc("subgroups: categorical columns within whose levels, and each combination "
                       "of levels, the general, specific and key-disclosure metrics run again")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.by = text_list(v, site);
                    if (s.by.empty() || (s.by.size() == 1 && s.by[0].empty()))
                      site.fail("expected at least one categorical column");
                  }));
  t.push_back(Declare("by_min_rows", T::kCount)
                  .example(20, "20")
                  .spec("by_min_rows")
                  .cli("--by-min-rows", "N")
                  .range(1, 1000000000)
                  .defaults(static_cast<std::int64_t>(kDefaultByMinRows))
                  .doc("the fewest confidential and synthetic rows a subgroup needs to be computed "
                       "(smaller subgroups are reported as suppressed)")
                  .apply([](EvaluationSpec& s, const json& v, const OptionSite& site) {
                    s.by_min_rows = static_cast<std::size_t>(count_of(v, site));
                  }));
  return t;
}

// The first part of a dotted spec key ("read" of "read.delimiter").
std::string block_of(const std::string& key) { return key.substr(0, key.find('.')); }

}  // namespace

const std::vector<EvaluationOption>& evaluation_options() {
  static const std::vector<EvaluationOption> options = declare_options();
  return options;
}

const EvaluationOption* find_option(const std::string& name) {
  for (const auto& option : evaluation_options())
    if (option.name == name) return &option;
  return nullptr;
}

void apply_options(EvaluationSpec& spec, const json& given, const OptionSource& source) {
  if (!given.is_object()) throw InputError(source.origin + ": the options must be a mapping");
  std::vector<std::string> names;
  for (const auto& option : evaluation_options())
    if (source.kind != OptionSource::Kind::kBinding || option.in_bindings())
      names.push_back(source.kind == OptionSource::Kind::kBinding ? option.binding() : option.name);
  for (const auto& [name, _] : given.items())
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw InputError(source.origin + ": unknown option '" + name + "'" +
                       did_you_mean(name, names) + " (synthaudit options lists them)");
  for (const auto& option : evaluation_options()) {
    const std::string key =
        source.kind == OptionSource::Kind::kBinding ? option.binding() : option.name;
    if (!given.contains(key) || option.name == "spec") continue;
    const json& value = given[key];
    // A binding's null (None, NULL) is "not given".
    if (value.is_null() && source.kind == OptionSource::Kind::kBinding) continue;
    const OptionSite site{option, source, given};
    option.apply(spec, value, site);
  }
}

EvaluationSpec spec_from_options(const json& given, const OptionSource& source,
                                 const ResourceLimits& limits) {
  EvaluationSpec spec;
  spec.context.limits = limits;
  if (source.kind == OptionSource::Kind::kBinding) spec.origin = source.origin;
  const bool binding = source.kind == OptionSource::Kind::kBinding;
  const std::string spec_key = "spec";
  if (given.is_object() && given.contains(spec_key) && !given[spec_key].is_null()) {
    // The call's limits bound the spec file's own reading, as they bound every other input.
    json bounds = json::object();
    for (const char* name : {"limits", "memory"}) {
      const EvaluationOption* option = find_option(name);
      const std::string key = binding ? option->binding() : option->name;
      if (given.contains(key)) bounds[key] = given[key];
    }
    EvaluationSpec bounded;
    bounded.context.limits = limits;
    apply_options(bounded, bounds, source);
    const OptionSite site{*find_option("spec"), source, given};
    const std::string path = site.path(text_of(given[spec_key], site));
    spec = load_spec(path, bounded.context.limits);
    // Read through a binding, the spec's file names are not read: its tables come in memory.
    if (binding) spec.origin = path;
    const bool checked = spec.safe_output;
    const std::size_t threshold = spec.safe_output_threshold;
    apply_options(spec, given, source);
    // A spec file's output checking is a control of what may leave a secure environment: the
    // call may tighten it, never loosen it.
    if (checked && (!spec.safe_output || spec.safe_output_threshold < threshold))
      throw InputError(source.origin + ": " + path + " turns safe_output on with threshold " +
                       std::to_string(threshold) +
                       "; an option given with it may raise the threshold but not turn output "
                       "checking off or lower it");
    return spec;
  }
  apply_options(spec, given, source);
  return spec;
}

json options_in_spec_file(const json& root, const json& typed_root, const std::string& path) {
  if (!root.is_object()) throw InputError(path + ": top level: expected a mapping");
  // Allowed keys per level, from the declared spec keys.
  std::vector<std::string> top;
  std::map<std::string, std::vector<std::string>> blocks;
  for (const auto& option : evaluation_options()) {
    if (option.spec_key.empty()) continue;
    const std::string first = block_of(option.spec_key);
    if (std::find(top.begin(), top.end(), first) == top.end()) top.push_back(first);
    if (first != option.spec_key) blocks[first].push_back(option.spec_key.substr(first.size() + 1));
  }
  for (const auto& [key, _] : root.items())
    if (std::find(top.begin(), top.end(), key) == top.end())
      throw InputError(path + ": " + key + ": unknown key" + did_you_mean(key, top) +
                       "; allowed: " + join(top, ", "));
  for (const auto& [block, keys] : blocks) {
    if (!root.contains(block)) continue;
    const json& node = root[block];
    const bool also_option = std::find_if(evaluation_options().begin(), evaluation_options().end(),
                                          [&](const auto& o) { return o.spec_key == block; }) !=
                             evaluation_options().end();
    if (!node.is_object()) {
      if (also_option) continue;  // safe_output: true
      throw InputError(path + ": " + block + ": expected a mapping");
    }
    for (const auto& [key, _] : node.items())
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        throw InputError(path + ": " + block + "." + key + ": unknown key" +
                         did_you_mean(key, keys) + "; allowed: " + join(keys, ", "));
  }
  json given = json::object();
  for (const auto& option : evaluation_options()) {
    if (option.spec_key.empty()) continue;
    const json& from = option.typed_in_spec_file ? typed_root : root;
    const std::string first = block_of(option.spec_key);
    if (!from.contains(first)) continue;
    if (first == option.spec_key) {
      given[option.name] = from[first];
      continue;
    }
    const json& block = from[first];
    const std::string rest = option.spec_key.substr(first.size() + 1);
    if (block.is_object() && block.contains(rest)) given[option.name] = block[rest];
  }
  return given;
}

json options_to_json() {
  json options = json::array();
  for (const auto& o : evaluation_options()) {
    json entry = {{"name", o.name},
                  {"type", to_string(o.type)},
                  {"default", o.default_value},
                  {"description", o.description},
                  {"spec_key", o.spec_key.empty() ? json(nullptr) : json(o.spec_key)},
                  {"cli_flag", o.cli_flag.empty() ? json(nullptr) : json(o.cli_flag)},
                  {"cli_value", o.cli_value.empty() ? json(nullptr) : json(o.cli_value)},
                  {"cli_repeatable", o.cli_repeatable},
                  {"binding_argument", o.in_bindings() ? json(o.binding()) : json(nullptr)},
                  {"privacy_control", o.privacy_control},
                  {"example", o.example}};
    if (o.minimum || o.maximum) entry["range"] = {*o.minimum, *o.maximum};
    if (!o.choices.empty()) entry["choices"] = o.choices;
    options.push_back(std::move(entry));
  }
  return {{"schema", "synthaudit-options/1"}, {"options", options}};
}

std::string options_markdown() {
  auto cell = [](const std::string& text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  auto code = [](const std::string& text) { return text.empty() ? "—" : "`" + text + "`"; };
  std::ostringstream md;
  md << "| option | type | default | spec key | command line | Python / R | privacy | what it "
        "does |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& o : evaluation_options()) {
    std::string type = to_string(o.type);
    if (!o.choices.empty()) type += ": " + join(o.choices, ", ");
    if (o.minimum) type += " " + range_text(*o.minimum) + " to " + range_text(*o.maximum);
    std::string flag = o.cli_flag;
    if (!flag.empty() && !o.cli_value.empty()) flag += " " + o.cli_value;
    if (o.cli_repeatable) flag += " (repeatable)";
    md << "| " << code(o.name) << " | " << cell(type) << " | "
       << (o.default_value.is_null() ? "—" : code(o.default_value.dump())) << " | "
       << code(o.spec_key) << " | " << code(flag) << " | "
       << (o.in_bindings() ? code(o.binding()) : "—") << " | " << (o.privacy_control ? "yes" : "")
       << " | " << cell(o.description) << " |\n";
  }
  return md.str();
}

}  // namespace synthaudit
