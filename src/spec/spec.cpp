#include "spec/spec.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "io/file.hpp"
#include "metrics/registry.hpp"
#include "spec/options.hpp"
#include "stats/formula.hpp"

namespace synthaudit {

namespace fs = std::filesystem;

namespace {

// Reading helpers that name "file: key.path" in every error.
struct Reader {
  std::string file;
  std::string base_dir;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(file + ": " + key + ": " + what);
  }
  void check_keys(const YAML::Node& node, const std::string& key,
                  const std::vector<std::string>& allowed) const {
    if (!node.IsMap()) fail(key.empty() ? "top level" : key, "expected a mapping");
    for (const auto& item : node) {
      const auto name = item.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
        fail(key.empty() ? name : key + "." + name,
             "unknown key" + did_you_mean(name, allowed) + "; allowed: " + join(allowed, ", "));
    }
  }
  std::string string(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail(key, "expected a text value");
    return node.as<std::string>();
  }
  std::string path(const YAML::Node& node, const std::string& key) const {
    const auto value = string(node, key);
    if (value.empty()) fail(key, "empty path");
    const fs::path p(value);
    return p.is_absolute() || base_dir.empty() ? value : (fs::path(base_dir) / p).string();
  }
  std::vector<std::string> strings(const YAML::Node& node, const std::string& key) const {
    std::vector<std::string> out;
    if (node.IsScalar()) return split(node.as<std::string>(), ',');
    if (!node.IsSequence()) fail(key, "expected a list");
    for (std::size_t i = 0; i < node.size(); ++i)
      out.push_back(string(node[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }
  double number(const YAML::Node& node, const std::string& key) const {
    double value = 0.0;
    try {
      value = node.as<double>();
    } catch (const YAML::Exception&) {
      fail(key, "expected a number");
    }
    if (!std::isfinite(value)) fail(key, "expected a finite number, got " + node.as<std::string>());
    return value;
  }
  std::int64_t integer(const YAML::Node& node, const std::string& key) const {
    try {
      return node.as<std::int64_t>();
    } catch (const YAML::Exception&) {
      fail(key, "expected an integer");
    }
  }
};

// Checks the shape of a parsed YAML document before anything reads it: nesting within
// limits.yaml_depth, at most limits.yaml_nodes nodes with every alias expanded (an alias bomb
// stops here, not in yaml_to_json), text keys, and no key twice in one mapping (yaml-cpp keeps
// both and lookups would silently take one).
void check_yaml_shape(const YAML::Node& root, const std::string& file,
                      const ResourceLimits& limits) {
  std::uint64_t visited = 0;
  auto fail = [&](const YAML::Node& at, const std::string& what) {
    throw InputError(file + ": line " + std::to_string(at.Mark().line + 1) + ": " + what);
  };
  auto walk = [&](auto&& self, const YAML::Node& node, std::uint64_t depth) -> void {
    if (++visited > limits.yaml_nodes)
      fail(node, "more than " + std::to_string(limits.yaml_nodes) +
                     " YAML nodes once aliases are expanded (limit yaml_nodes; raise it with "
                     "--limit yaml_nodes=N)");
    if (depth > limits.yaml_depth)
      fail(node, "nested deeper than " + std::to_string(limits.yaml_depth) +
                     " levels (limit yaml_depth; raise it with --limit yaml_depth=N)");
    if (node.IsMap()) {
      std::set<std::string> keys;
      for (const auto& item : node) {
        if (!item.first.IsScalar()) fail(item.first, "a mapping key must be text");
        const auto key = item.first.as<std::string>();
        if (!keys.insert(key).second) fail(item.first, "key '" + key + "' appears twice");
        self(self, item.second, depth + 1);
      }
    } else if (node.IsSequence()) {
      for (const auto& item : node) self(self, item, depth + 1);
    }
  };
  walk(walk, root, 0);
}

// Reads and parses a YAML file (a spec or a policy) within the limits.
YAML::Node load_yaml(const std::string& path, const ResourceLimits& limits) {
  const std::string text = read_input_file(path, limits.input_bytes, limits.pipe_wait_seconds);
  // YAML is text: a NUL is never part of it, and the parser's message would quote it.
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw InputError(path + ": line " +
                     std::to_string(1 + std::count(text.begin(), text.begin() + nul, '\n')) +
                     ": a NUL byte; a spec or policy is YAML text (is this the right file?)");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(path + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  check_yaml_shape(root, path, limits);
  return root;
}

// A YAML document as JSON. Typed: plain scalars that read as booleans or numbers become them
// (the metrics' parameters need types). Not typed: every scalar is its text, as the options'
// checks read the command line's flags (a seed of 2^64 - 1, a column named 2020), so that a
// file and a flag read alike.
nlohmann::json yaml_to_json(const YAML::Node& node, bool typed = true) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Sequence: {
      auto out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(yaml_to_json(item, typed));
      return out;
    }
    case YAML::NodeType::Map: {
      auto out = nlohmann::json::object();
      for (const auto& item : node)
        out[item.first.as<std::string>()] = yaml_to_json(item.second, typed);
      return out;
    }
    case YAML::NodeType::Scalar: {
      const auto text = node.as<std::string>();
      // Quoted in the YAML: keep it a string.
      if (!typed || node.Tag() == "!") return text;
      if (text == "true" || text == "True" || text == "TRUE") return true;
      if (text == "false" || text == "False" || text == "FALSE") return false;
      std::int64_t i;
      if (YAML::convert<std::int64_t>::decode(node, i) &&
          text.find_first_of(".eE") == std::string::npos)
        return i;
      double d;
      if (YAML::convert<double>::decode(node, d)) return d;
      return text;
    }
  }
  return nullptr;
}

}  // namespace

ColumnKind parse_kind(const std::string& text, const std::string& where) {
  if (text == "numeric" || text == "numerical" || text == "continuous") return ColumnKind::kNumeric;
  if (text == "categorical" || text == "factor" || text == "boolean")
    return ColumnKind::kCategorical;
  throw InputError(where + ": '" + text + "' is not a column type; use numeric or categorical" +
                   did_you_mean(text, {"numeric", "categorical"}));
}

// A code that reads whole as a finite number is a numeric code (it also matches "99.0" for 99);
// any other text is compared with the whole field.
void add_missing_code(ReadSettings& read, const std::string& column, const std::string& text,
                      const std::string& where) {
  if (text.empty())
    throw InputError(where +
                     ": an empty code (blank fields are missing already; see "
                     "read.missing_values)");
  std::size_t used = 0;
  double code = 0;
  try {
    code = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == text.size() && !std::isspace(static_cast<unsigned char>(text[0]))) {
    if (!std::isfinite(code)) throw InputError(where + ": expected a finite number, got " + text);
    read.missing_codes[column].push_back(code);
  } else
    read.missing_text_codes[column].push_back(text);
}

char parse_delimiter(const std::string& text, const std::string& where) {
  if (text == "auto") return 0;
  if (text == "tab" || text == "\\t" || text == "\t") return '\t';
  if (text.size() != 1)
    throw InputError(where + ": '" + escape_controls(text) +
                     "' is not a delimiter; expected one character, tab or auto");
  if (text[0] == '"' || text[0] == '\n' || text[0] == '\r')
    throw InputError(where + ": the delimiter cannot be a quote or a line break");
  if (static_cast<unsigned char>(text[0]) >= 0x80)
    throw InputError(where + ": the delimiter must be an ASCII character");
  return text[0];
}

char parse_decimal_mark(const std::string& text, const std::string& where) {
  if (text == "auto") return 0;
  if (text == "." || text == ",") return text[0];
  throw InputError(where + ": '" + escape_controls(text) +
                   "' is not a decimal mark; expected . or , (or auto)");
}

std::vector<std::string> checked_missing_values(std::vector<std::string> spellings,
                                                const std::string& where) {
  for (const auto& spelling : spellings) {
    if (!valid_utf8(spelling))
      throw InputError(where + ": a missing-value spelling is not valid UTF-8");
    if (std::any_of(spelling.begin(), spelling.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      throw InputError(where + ": the missing-value spelling '" + escape_controls(spelling) +
                       "' holds a control character");
  }
  return spellings;
}

void check_read_options(const ReadSettings& read, const std::string& where) {
  if (read.csv.decimal != 0 && read.csv.decimal == read.csv.delimiter)
    throw InputError(where + ": the delimiter and the decimal mark are both '" +
                     std::string(1, read.csv.decimal) + "'");
}

namespace {

// Text that may not be UTF-8, for a message: bytes outside printable ASCII as \xNN.
std::string ascii_escaped(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace

AnalysisSpec parse_analysis(const std::string& text, std::size_t index, const std::string& where) {
  AnalysisSpec analysis;
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    throw InputError(where + ": '" + text + "' should look like 'lm: y ~ x' or 'mean: income'");
  std::string head = trim(text.substr(0, colon));
  const std::string body = trim(text.substr(colon + 1));
  if (const auto eq = head.find('='); eq != std::string::npos) {
    analysis.name = trim(head.substr(0, eq));
    head = trim(head.substr(eq + 1));
  }
  analysis.kind = head;
  if (std::find(kAnalysisKinds.begin(), kAnalysisKinds.end(), head) == kAnalysisKinds.end())
    throw InputError(where + ": unknown analysis kind '" + head + "'" +
                     did_you_mean(head, kAnalysisKinds) + "; use " + join(kAnalysisKinds, ", "));
  if (body.empty()) throw InputError(where + ": analysis '" + text + "' has nothing after ':'");
  if (head == "lm" || head.starts_with("glm_") || head == "multinom" || head == "polr") {
    analysis.formula = body;
  } else if (head == "quantile") {
    // "quantile: income 0.9"
    const auto space = body.find_last_of(' ');
    if (space == std::string::npos)
      throw InputError(where +
                       ": quantile needs a column and a probability, e.g. 'quantile: income 0.9'");
    analysis.column = trim(body.substr(0, space));
    try {
      analysis.probability = std::stod(body.substr(space + 1));
    } catch (const std::exception&) {
      throw InputError(where + ": '" + body.substr(space + 1) + "' is not a probability");
    }
    if (!(analysis.probability > 0 && analysis.probability < 1))
      throw InputError(where + ": the quantile probability must be in (0, 1)");
  } else {
    analysis.column = body;
  }
  if (analysis.name.empty()) analysis.name = head + "_" + std::to_string(index + 1);
  return analysis;
}

CandidateSpec parse_candidate(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError("--synthetic: '" + text + "' should be NAME=FILE[,FILE...]");
  CandidateSpec candidate{trim(text.substr(0, eq)), split(text.substr(eq + 1), ',')};
  for (const auto& file : candidate.replicates)
    if (file.empty()) throw InputError("--synthetic: '" + text + "' has an empty file name");
  return candidate;
}

std::uint64_t parse_seed(const std::string& text, const std::string& where) {
  const std::string t = trim(text);
  std::uint64_t seed = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), seed);
  if (!t.empty() && t[0] == '-')
    throw InputError(where + ": '" + text + "': a seed is a non-negative integer");
  if (ec == std::errc::result_out_of_range)
    throw InputError(where + ": '" + text + "' is larger than the largest seed, 2^64 - 1 (" +
                     std::to_string(UINT64_MAX) + ")");
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
    throw InputError(where + ": '" + text + "' is not a seed (a non-negative integer)");
  return seed;
}

int parse_threads(const std::string& text, const std::string& where) {
  const std::string t = trim(text);
  std::int64_t threads = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), threads);
  if (t.empty() || ec == std::errc::invalid_argument || ptr != t.data() + t.size())
    throw InputError(where + ": '" + text + "' is not a thread count (0 = all cores)");
  if (threads < 0 || (ec == std::errc::result_out_of_range && t[0] == '-'))
    throw InputError(where + ": '" + text +
                     "': the thread count cannot be negative (0 = all cores)");
  // Larger than the machine: capped to it later with a warning (cap_threads).
  if (ec == std::errc::result_out_of_range || threads > INT32_MAX) return INT32_MAX;
  return static_cast<int>(threads);
}

std::string cap_threads(EvaluationSpec& spec) {
  const int hardware = hardware_threads();
  if (spec.context.threads <= hardware) return "";
  // parse_threads reads every count beyond 32 bits as INT32_MAX.
  const std::string requested = spec.context.threads == INT32_MAX
                                    ? std::to_string(INT32_MAX) + " or more"
                                    : std::to_string(spec.context.threads);
  const std::string warning = "threads: " + requested + " requested, but this machine has " +
                              std::to_string(hardware) + "; using " + std::to_string(hardware);
  spec.context.threads = hardware;
  return warning;
}

namespace {

const std::vector<std::string> kBounds = {"max", "min", "target"};

ReleasePolicy read_policy(const Reader& r, const YAML::Node& node, const std::string& key) {
  ReleasePolicy policy;
  r.check_keys(node, key,
               {"criteria", "default_checks", "margins", "multiplicity", "levels", "utility_floor",
                "require_default_checks"});
  const std::string prefix = key.empty() ? "" : key + ".";
  auto flag_of = [&](const YAML::Node& flag, const std::string& at) {
    const auto text = r.string(flag, at);
    if (text != "true" && text != "false") r.fail(at, "expected true or false");
    return text == "true";
  };
  if (const auto flag = node["default_checks"])
    policy.default_checks = flag_of(flag, prefix + "default_checks");
  if (const auto flag = node["require_default_checks"])
    policy.require_default_checks = flag_of(flag, prefix + "require_default_checks");
  if (const auto floor = node["utility_floor"]) {
    const std::string at = prefix + "utility_floor";
    if (floor.IsScalar()) {
      if (flag_of(floor, at))
        r.fail(at, "expected false (no utility floor) or a mapping {fail, review}");
      policy.utility_floor.enabled = false;
    } else {
      r.check_keys(floor, at, {"fail", "review"});
      for (const char* name : {"fail", "review"}) {
        if (!floor[name]) continue;
        const double share = r.number(floor[name], at + "." + name);
        if (!(share >= 0.0 && share <= 1.0)) r.fail(at + "." + name, "must be between 0 and 1");
        (std::string(name) == "fail" ? policy.utility_floor.fail : policy.utility_floor.review) =
            share;
      }
      if (policy.utility_floor.fail > policy.utility_floor.review)
        r.fail(at + ".fail", "must be at most the review share");
    }
  }
  if (const auto margins = node["margins"]) {
    const std::string at = prefix + "margins";
    r.check_keys(margins, at, {"review_sd", "fail_sd", "fail_relative"});
    auto non_negative = [&](const char* name, double& out) {
      if (!margins[name]) return;
      out = r.number(margins[name], at + "." + name);
      if (!(out >= 0.0)) r.fail(at + "." + name, "must be a number >= 0");
    };
    non_negative("review_sd", policy.margins.review_sd);
    non_negative("fail_sd", policy.margins.fail_sd);
    non_negative("fail_relative", policy.margins.fail_relative);
    if (policy.margins.fail_sd < policy.margins.review_sd)
      r.fail(at + ".fail_sd", "must be at least review_sd");
  }
  if (const auto method = node["multiplicity"]) {
    policy.multiplicity = r.string(method, prefix + "multiplicity");
    if (std::find(kMultiplicityMethods.begin(), kMultiplicityMethods.end(), policy.multiplicity) ==
        kMultiplicityMethods.end())
      r.fail(prefix + "multiplicity", "'" + policy.multiplicity + "' is not one of " +
                                          join(kMultiplicityMethods, ", ") +
                                          did_you_mean(policy.multiplicity, kMultiplicityMethods));
  }
  if (const auto levels = node["levels"]) {
    const std::string at = prefix + "levels";
    r.check_keys(levels, at, {"fail", "review"});
    for (const char* name : {"fail", "review"}) {
      if (!levels[name]) continue;
      const double level = r.number(levels[name], at + "." + name);
      if (!(level > 0.0 && level < 1.0)) r.fail(at + "." + name, "must be between 0 and 1");
      (std::string(name) == "fail" ? policy.fail_level : policy.review_level) = level;
    }
    if (policy.fail_level > policy.review_level)
      r.fail(at + ".fail", "must be at most the review level");
  }
  if (const auto criteria = node["criteria"]) {
    if (!criteria.IsSequence()) r.fail(prefix + "criteria", "expected a list");
    for (std::size_t i = 0; i < criteria.size(); ++i) {
      const std::string at = prefix + "criteria[" + std::to_string(i) + "]";
      const YAML::Node& item = criteria[i];
      r.check_keys(item, at,
                   {"id", "metric", "statistic", "scope", "max", "min", "target", "tolerance",
                    "relative_to", "subgroup"});
      PolicyCriterion c;
      c.key = at;
      if (!item["metric"]) r.fail(at + ".metric", "required key is missing");
      if (!item["statistic"]) r.fail(at + ".statistic", "required key is missing");
      c.metric = r.string(item["metric"], at + ".metric");
      c.statistic = r.string(item["statistic"], at + ".statistic");
      if (item["scope"]) c.scope = r.string(item["scope"], at + ".scope");
      for (const auto& bound : kBounds) {
        if (!item[bound]) continue;
        if (!c.bound.empty())
          r.fail(at + "." + bound,
                 "give one of max, min, target (this criterion has " + c.bound + " already)");
        c.bound = bound;
        c.value = r.number(item[bound], at + "." + bound);
      }
      if (c.bound.empty()) r.fail(at, "needs a bound: max, min or target");
      if (item["tolerance"]) {
        if (c.bound != "target") r.fail(at + ".tolerance", "only a target takes a tolerance");
        c.tolerance = r.number(item["tolerance"], at + ".tolerance");
        if (!(*c.tolerance >= 0.0)) r.fail(at + ".tolerance", "must be a number >= 0");
      } else if (c.bound == "target") {
        r.fail(at + ".tolerance", "a target needs a tolerance");
      }
      if (item["relative_to"]) {
        c.relative_to = r.string(item["relative_to"], at + ".relative_to");
        if (std::find(kBaselineNames.begin(), kBaselineNames.end(), c.relative_to) ==
            kBaselineNames.end())
          r.fail(at + ".relative_to", "'" + c.relative_to + "' is not a baseline; use " +
                                          join(kBaselineNames, " or ") +
                                          did_you_mean(c.relative_to, kBaselineNames));
      }
      if (item["subgroup"]) {
        c.subgroup = r.string(item["subgroup"], at + ".subgroup");
        if (c.subgroup.empty() || c.subgroup.find('=') == std::string::npos)
          r.fail(at + ".subgroup",
                 "expected a subgroup label such as sex=female (column=level, several joined "
                 "by commas in the order of by:)");
      }
      c.id = item["id"]
                 ? r.string(item["id"], at + ".id")
                 : c.metric + "." + c.statistic + (c.scope == "all" ? "" : "[" + c.scope + "]") +
                       (c.subgroup.empty() ? "" : "@" + c.subgroup);
      policy.criteria.push_back(std::move(c));
    }
  }
  return policy;
}

// JSON as a YAML node (scalars as their text), for the readers written against YAML.
YAML::Node json_to_yaml(const nlohmann::json& value) {
  YAML::Node node;
  switch (value.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
    case nlohmann::json::value_t::binary:
      return node;
    case nlohmann::json::value_t::object:
      for (const auto& [key, item] : value.items()) node[key] = json_to_yaml(item);
      return node;
    case nlohmann::json::value_t::array:
      for (const auto& item : value) node.push_back(json_to_yaml(item));
      return node;
    case nlohmann::json::value_t::string:
      return YAML::Node(value.get<std::string>());
    case nlohmann::json::value_t::number_float:
      return YAML::Node(format_number(value.get<double>()));
    default:
      return YAML::Node(value.dump());
  }
}

EvaluationSpec load_spec_yaml(const std::string& path, const ResourceLimits& limits) {
  const YAML::Node root = load_yaml(path, limits);
  Reader r{path, fs::path(path).parent_path().string()};
  if (root.IsNull()) r.fail("top level", "the spec is empty");
  if (!root.IsMap()) r.fail("top level", "expected a mapping");
  const nlohmann::json given =
      options_in_spec_file(yaml_to_json(root, false), yaml_to_json(root), path);
  if (!given.contains("confidential")) r.fail("confidential", "required key is missing");
  EvaluationSpec spec;
  spec.origin = path;
  spec.read.origin = path;
  spec.context.limits = limits;
  apply_options(spec, given, {OptionSource::Kind::kSpecFile, path, r.base_dir});
  check_read_options(spec.read, path + ": read");
  if (spec.policy.source == "default" && given.contains("policy")) spec.policy.source = "spec";
  return spec;
}

}  // namespace

EvaluationSpec load_spec(const std::string& path, const ResourceLimits& limits) {
  try {
    return load_spec_yaml(path, limits);
  } catch (const YAML::Exception& e) {
    // A shape the readers above do not expect (e.g. a list used as a mapping key).
    throw InputError(path + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

nlohmann::json given_parameters(const EvaluationSpec& spec, const MetricSpec& metric) {
  nlohmann::json given = nlohmann::json::object();
  const bool matching_family = metric.family == MetricFamily::kKeyDisclosure ||
                               metric.family == MetricFamily::kAttackDisclosure;
  if (matching_family && spec.disclosure_matching.is_object())
    for (const auto& item : spec.disclosure_matching.items())
      if (std::any_of(metric.params.begin(), metric.params.end(),
                      [&](const ParamSpec& p) { return p.name == item.key(); }))
        given[item.key()] = item.value();
  if (const auto own = spec.parameters.find(metric.name);
      own != spec.parameters.end() && own->second.is_object())
    for (const auto& item : own->second.items()) given[item.key()] = item.value();
  return given;
}

void add_param_assignment(EvaluationSpec& spec, const std::string& assignment) {
  const auto dot = assignment.find('.');
  const auto eq = assignment.find('=');
  if (dot == std::string::npos || eq == std::string::npos || eq < dot)
    throw InputError("--param: '" + assignment + "' should be METRIC.NAME=VALUE");
  const std::string metric = assignment.substr(0, dot);
  const std::string text = assignment.substr(eq + 1);
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    value = text;  // a bare word is a string
  }
  auto& given = spec.parameters[metric];
  if (given.is_null()) given = nlohmann::json::object();
  if (!given.is_object())
    throw InputError(spec.origin + ": parameters of metric '" + metric + "' must be a mapping");
  given[assignment.substr(dot + 1, eq - dot - 1)] = std::move(value);
}

ReleasePolicy load_policy(const std::string& path, const ResourceLimits& limits) {
  const YAML::Node root = load_yaml(path, limits);
  Reader r{path, fs::path(path).parent_path().string()};
  if (root.IsNull()) r.fail("top level", "the policy is empty");
  try {
    ReleasePolicy policy = read_policy(r, root, "");
    policy.source = path;
    return policy;
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

ReleasePolicy policy_from_json(const nlohmann::json& value, const std::string& file,
                               const std::string& key) {
  Reader r{file, ""};
  try {
    ReleasePolicy policy = read_policy(r, json_to_yaml(value), key);
    policy.source = "spec";
    return policy;
  } catch (const YAML::Exception& e) {
    throw InputError(file + ": " + key + ": " + e.msg);
  }
}

std::vector<stats::EditRuleSpec> rules_from_json(const nlohmann::json& value,
                                                 const std::string& where) {
  if (!value.is_array())
    throw InputError(where +
                     ": expected a list of rules, each {name, then} with optional when, "
                     "severity and group_by");
  std::vector<stats::EditRuleSpec> rules;
  std::set<std::string> names;
  const std::vector<std::string> allowed = {"name",     "when",     "then",
                                            "severity", "group_by", "table"};
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    const nlohmann::json& item = value[i];
    if (!item.is_object()) throw InputError(at + ": expected a mapping {name, then, ...}");
    for (const auto& [key, _] : item.items())
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        throw InputError(at + "." + key + ": unknown key" + did_you_mean(key, allowed) +
                         "; allowed: " + join(allowed, ", "));
    auto text = [&](const char* key, bool required) -> std::string {
      if (!item.contains(key)) {
        if (required) throw InputError(at + "." + key + ": required key is missing");
        return "";
      }
      const nlohmann::json& v = item[key];
      if (v.is_string()) return v.get<std::string>();
      if (v.is_number() || v.is_boolean()) return v.dump();
      throw InputError(at + "." + key + ": expected text");
    };
    stats::EditRuleSpec rule;
    rule.name = text("name", true);
    if (rule.name.empty()) throw InputError(at + ".name: empty");
    if (!valid_utf8(rule.name) || escape_controls(rule.name) != rule.name)
      throw InputError(at + ".name: '" + escape_controls(ascii_escaped(rule.name)) +
                       "' holds control characters or is not UTF-8");
    if (!names.insert(rule.name).second)
      throw InputError(at + ".name: '" + rule.name + "' is used by another rule");
    if (item.contains("table"))
      throw InputError(at +
                       ".table: a rule names no table: rules run on one record per row (with "
                       "related tables, a row of the last table joined with its ancestors' "
                       "columns); a rule over households is a group rule (group_by: the "
                       "household key); leave table out");
    rule.when = text("when", false);
    rule.then = text("then", true);
    if (item.contains("severity")) rule.severity = text("severity", false);
    if (item.contains("group_by")) {
      const nlohmann::json& g = item["group_by"];
      if (g.is_string()) {
        for (auto& column : split(g.get<std::string>(), ',')) rule.group_by.push_back(trim(column));
      } else if (g.is_array()) {
        for (const auto& column : g) {
          if (!column.is_string()) throw InputError(at + ".group_by: expected column names");
          rule.group_by.push_back(column.get<std::string>());
        }
      } else {
        throw InputError(at + ".group_by: expected a column name or a list of them");
      }
      if (rule.group_by.empty() || std::any_of(rule.group_by.begin(), rule.group_by.end(),
                                               [](const std::string& c) { return c.empty(); }))
        throw InputError(at + ".group_by: an empty column name");
    }
    rule.where = at;
    rules.push_back(std::move(rule));
  }
  return rules;
}

std::vector<stats::EditRuleSpec> load_rules(const std::string& path, const ResourceLimits& limits) {
  const YAML::Node root = load_yaml(path, limits);
  if (root.IsNull()) throw InputError(path + ": the rules file is empty");
  try {
    const nlohmann::json value = yaml_to_json(root);
    if (value.is_object()) {
      if (value.size() != 1 || !value.contains("rules"))
        throw InputError(path +
                         ": expected a list of rules, or a mapping with the one key "
                         "'rules'");
      return rules_from_json(value["rules"], path + ": rules");
    }
    return rules_from_json(value, path + ": rules");
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

std::vector<RelatedTable> related_tables_from_json(const nlohmann::json& value,
                                                   const std::string& where) {
  if (!value.is_object() || value.empty())
    throw InputError(where +
                     ": expected a mapping of tables, each {primary_key, parent, foreign_key}");
  auto columns_of = [](const nlohmann::json& v, const std::string& at) {
    std::vector<std::string> out;
    if (v.is_string()) {
      for (const auto& part : split(v.get<std::string>(), ',')) out.push_back(trim(part));
    } else if (v.is_array()) {
      for (const auto& item : v) {
        if (!item.is_string()) throw InputError(at + ": expected column names");
        out.push_back(item.get<std::string>());
      }
    }
    if (out.empty() || std::any_of(out.begin(), out.end(), [](const auto& c) { return c.empty(); }))
      throw InputError(at + ": expected a column name or a list of them");
    return out;
  };
  std::map<std::string, RelatedTable> declared;
  const std::vector<std::string> allowed = {"primary_key", "parent", "foreign_key"};
  for (const auto& [name, entry] : value.items()) {
    const std::string at = where + "." + name;
    if (!entry.is_object())
      throw InputError(at + ": expected a mapping {primary_key, parent, foreign_key}");
    for (const auto& [key, ignored] : entry.items())
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        throw InputError(at + ": unknown key '" + key + "'" + did_you_mean(key, allowed));
    RelatedTable table;
    table.name = name;
    table.where = at;
    if (!entry.contains("primary_key")) throw InputError(at + ": primary_key is missing");
    table.primary_key = columns_of(entry["primary_key"], at + ".primary_key");
    if (entry.contains("parent") != entry.contains("foreign_key"))
      throw InputError(at + ": parent and foreign_key go together");
    if (entry.contains("parent")) {
      if (!entry["parent"].is_string() || entry["parent"].get<std::string>().empty())
        throw InputError(at + ".parent: expected a table name");
      table.parent = entry["parent"].get<std::string>();
      table.foreign_key = columns_of(entry["foreign_key"], at + ".foreign_key");
    }
    declared.emplace(name, std::move(table));
  }
  std::vector<std::string> names, roots;
  for (const auto& [name, table] : declared) {
    names.push_back(name);
    if (table.parent.empty()) roots.push_back(name);
  }
  std::map<std::string, std::string> child_of;
  for (const auto& [name, table] : declared) {
    if (table.parent.empty()) continue;
    const std::string at = where + "." + name + ".parent";
    const auto parent = declared.find(table.parent);
    if (parent == declared.end())
      throw InputError(at + ": no table '" + table.parent + "'" +
                       did_you_mean(table.parent, names));
    if (table.foreign_key.size() != parent->second.primary_key.size())
      throw InputError(where + "." + name +
                       ".foreign_key: " + std::to_string(table.foreign_key.size()) +
                       " column(s) for the " + std::to_string(parent->second.primary_key.size()) +
                       " of the primary key of '" + table.parent + "'");
    if (!child_of.emplace(table.parent, name).second)
      throw InputError(at + ": '" + table.parent + "' already has the child table '" +
                       child_of[table.parent] +
                       "'; several child tables of one table are not supported yet (declare "
                       "one chain of tables, e.g. households, persons, spells)");
  }
  if (roots.size() != 1)
    throw InputError(where + ": expected one table without a parent (the root), found " +
                     std::to_string(roots.size()) +
                     (roots.empty() ? "" : " (" + join(roots, ", ") + ")"));
  std::vector<RelatedTable> chain = {declared[roots.front()]};
  for (auto next = child_of.find(roots.front()); next != child_of.end();
       next = child_of.find(next->second))
    chain.push_back(declared[next->second]);
  if (chain.size() != declared.size())
    throw InputError(where + ": the tables' parents make a cycle (every table must lead up to '" +
                     roots.front() + "')");
  return chain;
}

std::vector<RelatedTable> load_related_tables(const std::string& path,
                                              const ResourceLimits& limits) {
  const YAML::Node root = load_yaml(path, limits);
  if (root.IsNull()) throw InputError(path + ": the tables file is empty");
  try {
    const nlohmann::json value = yaml_to_json(root);
    if (value.is_object() && value.size() == 1 && value.contains("tables"))
      return related_tables_from_json(value["tables"], path + ": tables");
    return related_tables_from_json(value, path + ": tables");
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

void validate_policy(const ReleasePolicy& policy, const std::string& where) {
  std::vector<std::string> known;
  for (const auto& m : all_metrics()) known.push_back(m.name);
  std::set<std::string> ids;
  for (const auto& c : policy.criteria) {
    if (!ids.insert(c.id).second)
      throw InputError(where + ": " + c.key + ".id: '" + c.id + "' is used twice");
    const MetricSpec* metric = find_metric(c.metric);
    if (metric == nullptr)
      throw InputError(where + ": " + c.key + ".metric: no metric named '" + c.metric + "'" +
                       did_you_mean(c.metric, known));
    if (!c.subgroup.empty() && !runs_in_subgroups(metric->family)) {
      std::vector<std::string> families;
      for (MetricFamily family : subgroup_families()) families.push_back(to_string(family));
      throw InputError(where + ": " + c.key + ".subgroup: " + c.metric +
                       " is not run in subgroups (" + to_string(metric->family) + "); only the " +
                       join(families, ", ") + " metrics are");
    }
    // The statistic is checked against the metric's declarations here, before anything runs;
    // its scope can only be checked once the metric has run (scopes are column names, levels...).
    std::vector<std::string> declared;
    for (const auto& statistic : metric->statistics)
      for (auto& name : expand_statistic_name(statistic.name)) declared.push_back(std::move(name));
    if (std::find(declared.begin(), declared.end(), c.statistic) == declared.end())
      throw InputError(where + ": " + c.key + ".statistic: " + c.metric +
                       " declares no statistic '" + c.statistic + "'" +
                       did_you_mean(c.statistic, declared));
    if (c.relative_to.empty()) continue;
    bool has_baseline = false;
    for (const auto& h : metric->headlines)
      has_baseline = has_baseline || h.baseline.name() == c.relative_to;
    if (!has_baseline)
      throw InputError(where + ": " + c.key + ".relative_to: " + c.metric + " has no " +
                       c.relative_to + " baseline (see docs/metrics.md, Baselines)");
  }
}

void validate_spec(const EvaluationSpec& spec) {
  const std::string& where = spec.origin;
  if (spec.plots != "first" && spec.plots != "all" && spec.plots != "none")
    throw InputError(where + ": plots: '" + spec.plots + "' is not one of first, all, none");
  if (spec.confidential.empty())
    throw InputError(where + ": no confidential file given (--confidential or 'confidential:')");
  if (spec.candidates.empty())
    throw InputError(where + ": no synthetic data given (--synthetic NAME=FILE or 'candidates:')");
  std::set<std::string> names;
  for (const auto& c : spec.candidates) {
    if (c.name.empty()) throw InputError(where + ": a candidate has an empty name");
    // The name is written into every output: text only.
    if (!valid_utf8(c.name))
      throw InputError(where + ": candidate name '" + ascii_escaped(c.name) +
                       "' is not valid UTF-8; rename the candidate");
    if (escape_controls(c.name) != c.name)
      throw InputError(where + ": candidate name '" + escape_controls(c.name) +
                       "' contains control characters; rename the candidate");
    if (std::find(kBaselineNames.begin(), kBaselineNames.end(), c.name) != kBaselineNames.end() ||
        c.name == kIndependentMarginalsBaseline)
      throw InputError(where + ": candidate name '" + c.name +
                       "' is reserved for a baseline; rename the candidate");
    if (!names.insert(c.name).second)
      throw InputError(where + ": candidate name '" + c.name + "' is used twice");
    if (c.replicates.empty())
      throw InputError(where + ": candidate '" + c.name + "' has no replicate files");
  }
  (void)select_metrics(spec.metrics, where + ": metrics");
  std::vector<std::string> known;
  for (const auto& m : all_metrics()) known.push_back(m.name);
  for (const auto& [name, given] : spec.parameters) {
    const MetricSpec* metric = find_metric(name);
    if (metric == nullptr)
      throw InputError(where + ": parameters." + name + ": no metric named '" + name + "'" +
                       did_you_mean(name, known));
    (void)Params::resolve(name, metric->params, given, where + ": parameters." + name);
  }
  if (!spec.disclosure_matching.is_object())
    throw InputError(where + ": disclosure_matching must be a mapping");
  for (const auto& item : spec.disclosure_matching.items()) {
    const std::string& key = item.key();
    if (std::find(kDisclosureMatchingKeys.begin(), kDisclosureMatchingKeys.end(), key) ==
        kDisclosureMatchingKeys.end())
      throw InputError(where + ": disclosure_matching." + key + ": unknown key" +
                       did_you_mean(key, kDisclosureMatchingKeys));
  }
  // The values against every key-disclosure metric's declaration (types and ranges).
  for (const auto& metric : all_metrics())
    if (metric.family == MetricFamily::kKeyDisclosure)
      (void)Params::resolve(metric.name, metric.params, given_parameters(spec, metric),
                            where + ": disclosure_matching (for " + metric.name + ")");
  for (std::size_t i = 0; i < spec.context.scenarios.size(); ++i) {
    const auto& s = spec.context.scenarios[i];
    if (s.keys.empty() || s.targets.empty())
      throw InputError(where + ": disclosure[" + std::to_string(i) + "] needs keys and targets");
  }
  if (spec.baseline_draws < 0) throw InputError(where + ": baseline_draws must be 0 or more");
  for (std::size_t i = 0; i < spec.by.size(); ++i) {
    if (spec.by[i].empty()) throw InputError(where + ": by: an empty column name");
    for (std::size_t j = 0; j < i; ++j)
      if (spec.by[j] == spec.by[i])
        throw InputError(where + ": by: column '" + spec.by[i] + "' is named twice");
  }
  if (spec.by_min_rows < 1) throw InputError(where + ": by_min_rows must be 1 or more");
  // A criterion on a subgroup names its by-columns' levels ("sex=female"); the levels can only be
  // checked against the data (result/verdict.cpp), the first column here.
  const std::string policy_where =
      spec.policy.source == "spec" || spec.policy.source == "default" ? where : spec.policy.source;
  for (const auto& c : spec.policy.criteria) {
    if (c.subgroup.empty()) continue;
    if (spec.by.empty())
      throw InputError(policy_where + ": " + c.key + ".subgroup: '" + c.subgroup +
                       "' names a subgroup, but no by: columns are given");
    const std::string first = c.subgroup.substr(0, c.subgroup.find('='));
    if (std::find(spec.by.begin(), spec.by.end(), first) == spec.by.end())
      throw InputError(policy_where + ": " + c.key + ".subgroup: '" + c.subgroup + "': '" + first +
                       "' is not a by: column" + did_you_mean(first, spec.by));
  }
  if (!spec.synthesised_columns.empty() && spec.context.synthesis != SynthesisType::kPartial)
    throw InputError(where +
                     ": synthesised_columns: only a partial synthesis names its synthesised "
                     "columns (synthesis: partial, or --synthesis partial)");
  for (const auto& name : spec.synthesised_columns)
    if (name.empty()) throw InputError(where + ": synthesised_columns: an empty column name");
  // Formulas are parsed now, within the limits, so a malformed or oversized one stops the run
  // before any data is read.
  for (std::size_t i = 0; i < spec.context.analyses.size(); ++i) {
    const auto& a = spec.context.analyses[i];
    if (!valid_utf8(a.name) || escape_controls(a.name) != a.name)
      throw InputError(where + ": analyses[" + std::to_string(i) + "]: the name '" +
                       ascii_escaped(a.name) + "' is not UTF-8 text without control characters");
    if (a.formula.empty()) continue;
    try {
      (void)stats::parse_formula(a.formula, spec.context.limits);
    } catch (const InputError& e) {
      throw InputError(where + ": analysis '" + a.name + "': " + e.what());
    }
  }
  validate_policy(spec.policy, spec.policy.source == "spec" || spec.policy.source == "default"
                                   ? where
                                   : spec.policy.source);
}

nlohmann::json policy_to_json(const ReleasePolicy& policy) {
  nlohmann::json criteria = nlohmann::json::array();
  for (const auto& c : policy.criteria)
    criteria.push_back(
        {{"id", c.id},
         {"metric", c.metric},
         {"statistic", c.statistic},
         {"scope", c.scope},
         {"bound", c.bound},
         {"value", c.value},
         {"tolerance", c.tolerance ? nlohmann::json(*c.tolerance) : nlohmann::json(nullptr)},
         {"relative_to",
          c.relative_to.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.relative_to)},
         {"subgroup", c.subgroup.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.subgroup)}});
  return {{"source", policy.source},
          {"default_checks", policy.default_checks},
          {"margins",
           {{"review_sd", policy.margins.review_sd},
            {"fail_sd", policy.margins.fail_sd},
            {"fail_relative", policy.margins.fail_relative}}},
          {"multiplicity", policy.multiplicity},
          {"levels", {{"fail", policy.fail_level}, {"review", policy.review_level}}},
          {"utility_floor", policy.utility_floor.enabled
                                ? nlohmann::json{{"fail", policy.utility_floor.fail},
                                                 {"review", policy.utility_floor.review}}
                                : nlohmann::json(false)},
          {"require_default_checks", policy.require_default_checks},
          {"criteria", criteria}};
}

nlohmann::json spec_to_json(const EvaluationSpec& spec) {
  nlohmann::json j;
  j["confidential"] = spec.confidential;
  j["holdout"] = spec.holdout ? nlohmann::json(*spec.holdout) : nlohmann::json(nullptr);
  j["candidates"] = nlohmann::json::array();
  for (const auto& c : spec.candidates)
    j["candidates"].push_back({{"name", c.name}, {"replicates", c.replicates}});
  j["synthesis"] = to_string(spec.context.synthesis);
  if (!spec.synthesised_columns.empty()) j["synthesised_columns"] = spec.synthesised_columns;
  if (!spec.context.weights.empty()) j["weights"] = spec.context.weights;
  if (!spec.context.household.empty()) j["household"] = spec.context.household;
  if (!spec.tables.empty()) {
    j["tables"] = nlohmann::json::object();
    for (const auto& t : spec.tables) {
      nlohmann::json entry = {{"primary_key", t.primary_key}};
      if (!t.parent.empty()) {
        entry["parent"] = t.parent;
        entry["foreign_key"] = t.foreign_key;
      }
      j["tables"][t.name] = std::move(entry);
    }
  }
  // The design block, when anything in it was given (the spec file's design: keys).
  const auto design_json = [](const stats::SurveyDesignSpec& d) {
    nlohmann::json out = {{"strata", d.strata},
                          {"clusters", d.clusters},
                          {"fpc", d.fpc},
                          {"nest", d.nest},
                          {"lonely_psu", stats::to_string(d.lonely_psu)},
                          {"replicate_weights", d.replicate_weights},
                          {"type", stats::to_string(d.replicate_type)},
                          {"rho", d.rho},
                          {"rscales", d.rscales},
                          {"mse", d.mse}};
    out["scale"] = d.scale ? nlohmann::json(*d.scale) : nlohmann::json(nullptr);
    return out;
  };
  if (design_json(spec.context.design) != design_json(stats::SurveyDesignSpec{}))
    j["design"] = design_json(spec.context.design);
  j["read"] = {
      {"delimiter", spec.read.csv.delimiter == 0 ? std::string("auto")
                                                 : std::string(1, spec.read.csv.delimiter)},
      {"decimal",
       spec.read.csv.decimal == 0 ? std::string("auto") : std::string(1, spec.read.csv.decimal)},
      {"encoding", to_string(spec.read.csv.encoding)},
      {"missing_values", spec.read.missing_values}};
  if (!spec.metadata.empty()) j["metadata"] = spec.metadata;
  j["columns"] = nlohmann::json::object();
  for (const auto& [name, kind] : spec.read.kinds) j["columns"][name] = to_string(kind);
  j["read"]["value_labels"] = spec.read.value_labels == ValueLabels::kCodes ? "codes" : "labels";
  j["missing_codes"] = nlohmann::json::object();
  for (const auto& [name, codes] : spec.read.missing_codes) j["missing_codes"][name] = codes;
  for (const auto& [name, codes] : spec.read.missing_text_codes)
    for (const auto& code : codes) j["missing_codes"][name].push_back(code);
  j["metrics"] = spec.metrics;
  j["parameters"] = nlohmann::json::object();
  for (const auto& [name, given] : spec.parameters) j["parameters"][name] = given;
  j["disclosure_matching"] = spec.disclosure_matching;
  j["disclosure"] = nlohmann::json::array();
  for (const auto& s : spec.context.scenarios)
    j["disclosure"].push_back({{"keys", s.keys}, {"targets", s.targets}});
  j["rules"] = nlohmann::json::array();
  for (const auto& r : spec.context.rules)
    j["rules"].push_back({{"name", r.name},
                          {"when", r.when},
                          {"then", r.then},
                          {"severity", r.severity},
                          {"group_by", r.group_by}});
  j["analyses"] = nlohmann::json::array();
  for (const auto& a : spec.context.analyses) {
    nlohmann::json item = {{"name", a.name}, {"kind", a.kind}};
    if (!a.formula.empty()) item["formula"] = a.formula;
    if (!a.column.empty()) item["column"] = a.column;
    if (a.kind == "quantile") item["probability"] = a.probability;
    j["analyses"].push_back(item);
  }
  j["seed"] = spec.context.seed;
  j["threads"] = spec.context.threads;
  j["plots"] = spec.plots;
  j["baseline_draws"] = spec.baseline_draws;
  j["null_draws"] = spec.null_draws;
  if (spec.safe_output) j["safe_output"] = {{"threshold", spec.safe_output_threshold}};
  if (!spec.by.empty()) {
    j["by"] = spec.by;
    j["by_min_rows"] = spec.by_min_rows;
  }
  j["limits"] = nlohmann::json::object();
  for (const auto& name : limit_names()) j["limits"][name] = limit_value(spec.context.limits, name);
  j["policy"] = policy_to_json(spec.policy);
  return j;
}

namespace {

// A YAML scalar for `text`: plain when that reads back as the same string, else double-quoted.
std::string yaml_scalar(const std::string& text) {
  static const std::vector<std::string> special = {
      "",      "~",     "null", "Null", "NULL", "true", "True", "TRUE", "false",
      "False", "FALSE", "yes",  "Yes",  "YES",  "no",   "No",   "NO",   "on",
      "On",    "ON",    "off",  "Off",  "OFF",  "y",    "Y",    "n",    "N"};
  bool plain = std::find(special.begin(), special.end(), text) == special.end() &&
               (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_' ||
                text[0] == '/' || text[0] == '.');
  for (unsigned char c : text)
    if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/')) plain = false;
  if (plain) return text;
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

std::string starter_spec(const std::string& confidential_path, const ReadSettings& settings,
                         const std::string& spec_path) {
  const std::unique_ptr<DataFile> file = open_data_file(confidential_path, settings);
  // Encoded once, for the levels of the categorical columns the warnings look at.
  const InferredTable read = infer_and_encode(*file, settings, "confidential");
  const Schema& schema = read.schema;
  const std::vector<std::string> warnings = decimal_comma_warnings(schema, *file);
  // load_spec resolves relative paths against the spec's folder, so write the confidential path
  // relative to where the spec will be (the current folder when it goes to stdout).
  std::string conf = confidential_path;
  if (!fs::path(conf).is_absolute()) {
    std::error_code ec;
    fs::path spec_dir = fs::path(spec_path).parent_path();
    if (spec_dir.empty()) spec_dir = ".";
    const fs::path rel =
        fs::weakly_canonical(conf, ec).lexically_relative(fs::weakly_canonical(spec_dir, ec));
    // Given relative, written relative (../data/conf.csv from a specs/ folder): a project folder
    // that holds both moves as a whole. Absolute only where no relative path leads there.
    if (!ec && !rel.empty())
      conf = rel.string();
    else
      conf = fs::absolute(conf, ec).lexically_normal().string();
  }
  std::ostringstream out;
  out << "# synthaudit evaluation spec (see docs/config.md)\n";
  out << "confidential: " << yaml_scalar(conf) << "\n";
  out << "# holdout: holdout.csv\n";
  out << "candidates:\n  - name: my_synthesis\n    replicates: [synthetic_1.csv]\n";
  out << "synthesis: full   # or partial (rows correspond to confidential rows)\n";
  // The layout as read (given or detected), so the spec reads the file the same way.
  const auto* text_file = dynamic_cast<const CsvFile*>(file.get());
  const char delimiter = text_file ? text_file->delimiter() : ',';
  if (delimiter != ',' || file->decimal_mark() != '.' ||
      settings.csv.encoding != TextEncoding::kUtf8) {
    out << "read:\n";
    if (!file->assumed_layout().empty())
      out << "  # " << escape_controls(file->assumed_layout()) << "\n";
    if (delimiter != ',') {
      const std::string d(1, delimiter);
      out << "  delimiter: " << (d == "\t" ? "tab" : yaml_scalar(d)) << "\n";
    }
    if (file->decimal_mark() != '.') out << "  decimal: \",\"\n";
    if (settings.csv.encoding != TextEncoding::kUtf8)
      out << "  encoding: " << to_string(settings.csv.encoding) << "\n";
  }
  for (const auto& warning : warnings) out << "# warning: " << escape_controls(warning) << "\n";
  out << "columns:          # inferred; edit where a number is really a category\n";
  for (const auto& c : schema.columns)
    out << "  " << yaml_scalar(c.name) << ": " << to_string(c.kind) << "\n";
  out << "# missing_codes:  # codes that mean missing, e.g. income: [-8], smoke: [DK, Refused]\n";
  out << "metrics: [all]\n";
  out << "# parameters:\n#   ks_distance: {pvalue: true}\n";
  out << "# disclosure:\n#   - keys: ["
      << (schema.columns.empty() ? "" : yaml_scalar(schema.columns[0].name))
      << "]\n#     targets: ["
      << (schema.columns.size() > 1 ? yaml_scalar(schema.columns.back().name) : "") << "]\n";
  out << "# disclosure_matching: {numeric_tolerance: 0, relative_tolerance: 0.05, "
         "missing_matches: false}\n";
  out << "# analyses:\n#   - lm: y ~ x1 + x2\n";
  out << "seed: 1\n";
  return out.str();
}

}  // namespace synthaudit
