// The option declarations (spec/options.hpp): every option, set through every front end that
// takes it (a spec file's key, the command line's flag as text, a binding's typed argument),
// reaches the evaluation spec as the same value, and that value differs from the default (so the
// option was not dropped on the way). The cases are generated from the table itself.
#include "spec/options.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "spec/spec.hpp"

namespace fs = std::filesystem;
using namespace synthaudit;
using nlohmann::json;

namespace {

// What an option can change: the spec's echo in results.json and what it does not echo.
json fingerprint(const EvaluationSpec& spec) {
  json j = spec_to_json(spec);
  for (const auto& name : limit_names()) j["limits"][name] = limit_value(spec.context.limits, name);
  j["output"] = spec.output_dir;
  j["safe_output"] = spec.safe_output;
  j["safe_output_threshold"] = spec.safe_output_threshold;
  j["by_min_rows"] = spec.by_min_rows;
  j["policy"] = policy_to_json(spec.policy);
  j["policy"].erase("source");
  j["missing_values"] = spec.read.missing_values;
  return j;
}

// keys and targets go together: a case for one sets both.
json with_partner(const EvaluationOption& option, const std::string& key,
                  const std::function<json(const EvaluationOption&)>& value_of,
                  const std::function<std::string(const EvaluationOption&)>& key_of) {
  json given = {{key, value_of(option)}};
  for (const char* pair : {"keys", "targets"})
    if (option.name == "keys" || option.name == "targets") {
      const EvaluationOption& partner = *find_option(pair);
      given[key_of(partner)] = value_of(partner);
    }
  return given;
}

class Options : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("synthaudit_options_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A spec file with the required key and `key: value` (JSON is YAML's flow style).
  EvaluationSpec through_spec_file(const std::vector<std::pair<std::string, json>>& entries) {
    const fs::path path = dir_ / "spec.yaml";
    std::ofstream out(path);
    bool confidential = false;
    std::map<std::string, json> blocks;
    for (const auto& [key, value] : entries) {
      confidential = confidential || key == "confidential";
      if (const auto dot = key.find('.'); dot != std::string::npos)
        blocks[key.substr(0, dot)][key.substr(dot + 1)] = value;
      else
        out << key << ": " << value.dump() << "\n";
    }
    for (const auto& [block, value] : blocks) out << block << ": " << value.dump() << "\n";
    if (!confidential) out << "confidential: conf.csv\n";
    out.close();
    return load_spec(path.string());
  }

  OptionSource command_line() const {
    return {OptionSource::Kind::kCommandLine, "command line", dir_.string()};
  }
  OptionSource binding() const {
    return {OptionSource::Kind::kBinding, "synthaudit.evaluate", dir_.string()};
  }
  // The fingerprint of a spec from another front end, with the spec file's required key.
  json with_confidential(EvaluationSpec spec) {
    if (spec.confidential.empty()) spec.confidential = (dir_ / "conf.csv").string();
    return fingerprint(spec);
  }

  fs::path dir_;
};

}  // namespace

TEST_F(Options, EveryOptionThroughEveryFrontEndReachesTheSpecAlike) {
  const json defaults = fingerprint(through_spec_file({}));
  std::size_t checked = 0;
  for (const auto& option : evaluation_options()) {
    if (option.name == "spec") continue;  // the file itself: SpecFileOptionsApplyInBindings
    ASSERT_FALSE(option.example.is_null()) << option.name << " declares no example";
    std::vector<std::pair<std::string, json>> fingerprints;
    if (!option.spec_key.empty()) {
      std::vector<std::pair<std::string, json>> entries = {{option.spec_key, option.example}};
      fingerprints.emplace_back("spec file", fingerprint(through_spec_file(entries)));
    }
    if (!option.cli_flag.empty() && !option.cli_example.is_null()) {
      const json given = with_partner(
          option, option.name, [](const EvaluationOption& o) { return o.cli_example; },
          [](const EvaluationOption& o) { return o.name; });
      fingerprints.emplace_back("command line",
                                with_confidential(spec_from_options(given, command_line())));
    }
    if (option.in_bindings()) {
      const json given = with_partner(
          option, option.binding(), [](const EvaluationOption& o) { return o.example; },
          [](const EvaluationOption& o) { return o.binding(); });
      fingerprints.emplace_back("binding", with_confidential(spec_from_options(given, binding())));
    }
    ASSERT_FALSE(fingerprints.empty()) << option.name << " reaches no front end";
    EXPECT_NE(fingerprints[0].second, defaults)
        << option.name << " through the " << fingerprints[0].first << " changed nothing";
    for (std::size_t i = 1; i < fingerprints.size(); ++i)
      EXPECT_EQ(fingerprints[i].second, fingerprints[0].second)
          << option.name << ": " << fingerprints[i].first << " differs from "
          << fingerprints[0].first << ": "
          << json::diff(fingerprints[0].second, fingerprints[i].second).dump();
    ++checked;
  }
  EXPECT_GE(checked, 30u);
}

// A spec file given to a binding brings every option it holds, its privacy controls included;
// an argument given beside it wins.
TEST_F(Options, SpecFileOptionsApplyInBindings) {
  {
    std::ofstream out(dir_ / "audit.yaml");
    out << "confidential: conf.csv\ncandidates: [{name: cart, replicates: cart.csv}]\n"
           "safe_output: {threshold: 15}\nlimits: {field_bytes: 2M}\nseed: 9\n"
           "policy: {default_checks: false}\n";
  }
  const std::string spec_path = (dir_ / "audit.yaml").string();
  EvaluationSpec spec = spec_from_options({{"spec", spec_path}}, binding());
  EXPECT_TRUE(spec.safe_output);
  EXPECT_EQ(spec.safe_output_threshold, 15u);
  EXPECT_EQ(spec.context.limits.field_bytes, 2u << 20);
  EXPECT_EQ(spec.context.seed, 9u);
  EXPECT_FALSE(spec.policy.default_checks);
  spec = spec_from_options({{"spec", spec_path}, {"seed", 3}, {"safe_output_threshold", 30}},
                           binding());
  EXPECT_EQ(spec.context.seed, 3u);
  EXPECT_TRUE(spec.safe_output);
  EXPECT_EQ(spec.safe_output_threshold, 30u);
  // A null argument is not given: the spec's value stays.
  spec = spec_from_options({{"spec", spec_path}, {"safe_output", nullptr}}, binding());
  EXPECT_TRUE(spec.safe_output);
}

TEST_F(Options, BadValuesNameTheFrontEndsKeyOrFlag) {
  auto message = [&](const json& given, const OptionSource& source) {
    try {
      (void)spec_from_options(given, source);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({{"baseline_draws", "2000"}}, command_line()),
            "--baseline-draws: must be between 0 and 1000");
  EXPECT_EQ(message({{"baseline_draws", 2000}}, binding()),
            "synthaudit.evaluate: baseline_draws: must be between 0 and 1000");
  EXPECT_EQ(message({{"seed", -1}}, binding()),
            "synthaudit.evaluate: seed: '-1': a seed is a non-negative integer");
  EXPECT_EQ(message({{"seed", 2.5}}, binding()),
            "synthaudit.evaluate: seed: '2.5' is not a whole number");
  EXPECT_EQ(message({{"plots", "firts"}}, binding()),
            "synthaudit.evaluate: plots: 'firts' is not one of first, all, none (did you mean "
            "'first'?)");
  EXPECT_EQ(message({{"sead", 1}}, binding()),
            "synthaudit.evaluate: unknown option 'sead' (did you mean 'seed'?) (synthaudit "
            "options lists them)");
  // Files-only options are not a binding's.
  EXPECT_EQ(message({{"delimiter", ";"}}, binding())
                .rfind("synthaudit.evaluate: unknown option "
                       "'delimiter'",
                       0),
            0u);
  EXPECT_EQ(message({{"keys", "a"}}, binding()),
            "synthaudit.evaluate: keys: keys and targets go together");
  EXPECT_EQ(message({{"safe_output", "yes"}}, binding()),
            "synthaudit.evaluate: safe_output: expected true or false");
  {
    std::ofstream out(dir_ / "bad.yaml");
    out << "confidential: c.csv\nread: {delimter: ';'}\n";
  }
  EXPECT_EQ(message({{"spec", (dir_ / "bad.yaml").string()}}, binding()),
            (dir_ / "bad.yaml").string() +
                ": read.delimter: unknown key (did you mean 'delimiter'?); allowed: delimiter, "
                "decimal, encoding, missing_values, value_labels");
}

TEST(OptionDeclarations, NamesAreUniqueInEveryFrontEnd) {
  std::set<std::string> names, keys, flags, arguments;
  for (const auto& option : evaluation_options()) {
    EXPECT_TRUE(names.insert(option.name).second) << option.name;
    if (!option.spec_key.empty()) {
      EXPECT_TRUE(keys.insert(option.spec_key).second) << option.name;
    }
    if (!option.cli_flag.empty()) {
      EXPECT_TRUE(flags.insert(option.cli_flag).second) << option.name;
    }
    if (option.in_bindings()) {
      EXPECT_TRUE(arguments.insert(option.binding()).second) << option.name;
    }
    EXPECT_FALSE(option.description.empty()) << option.name;
    EXPECT_TRUE(option.apply) << option.name;
  }
  // The privacy controls reach the bindings: a secure environment's notebook keeps them.
  for (const char* control : {"safe_output", "safe_output_threshold", "limits", "policy"}) {
    const EvaluationOption* option = find_option(control);
    ASSERT_NE(option, nullptr) << control;
    EXPECT_TRUE(option->privacy_control) << control;
    EXPECT_TRUE(option->in_bindings()) << control;
  }
}

TEST_F(Options, ACallCannotLoosenASpecFilesOutputChecking) {
  {
    std::ofstream out(dir_ / "safe.yaml");
    out << "confidential: conf.csv\nsafe_output: {threshold: 15}\n";
  }
  const std::string path = (dir_ / "safe.yaml").string();
  for (const json& loosening : {json{{"spec", path}, {"safe_output", false}},
                                json{{"spec", path}, {"safe_output_threshold", 5}}})
    EXPECT_THROW((void)spec_from_options(loosening, binding()), InputError) << loosening.dump();
  EXPECT_EQ(spec_from_options({{"spec", path}, {"safe_output_threshold", 20}}, binding())
                .safe_output_threshold,
            20u);
}
