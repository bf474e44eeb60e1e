#pragma once
// Every evaluation option, declared once. Each front end walks this table instead of spelling
// the options out: the YAML spec reader (its keys), the command line (its flags and --help), the
// library (Evaluation::options), the Python package (evaluate's keyword arguments, signature and
// docstring), the R package (sa_evaluate's formals and help page) and docs/options.md. A value
// reaches the evaluation spec through the one apply function of its declaration, whichever door
// it came in by, so a privacy control (safe output, limits, policy) cannot be dropped by one of
// them. `synthaudit options --json` prints the table.
//
// To add an option: one entry in evaluation_options() (src/spec/options.cpp) with its apply
// function; `make docs` regenerates docs/options.md; the front ends need no edit.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "spec/spec.hpp"

namespace synthaudit {

// The kind of value an option takes. Every front end may give a scalar as text (the command line
// and a YAML file do), or typed (the bindings do); the checks below accept both and give the
// apply function the value in one form.
enum class OptionType {
  kSwitch,     // true or false (a flag on the command line)
  kCount,      // a whole number within the declared range
  kSeed,       // a whole number from 0 to 2^64 - 1
  kThreads,    // a whole number >= 0 (0 = all cores; above the machine: capped with a warning)
  kChoice,     // one of the declared choices
  kText,       // one text value (a column name)
  kTextList,   // a list of text, or one comma-separated text
  kPath,       // a file or folder (relative paths in a spec file: against the spec's folder)
  kStructured  // a mapping or list whose shape the description gives; checked by apply
};

std::string to_string(OptionType type);

// Where the values of one call of apply_options come from: their front end, for messages.
struct OptionSource {
  enum class Kind { kSpecFile, kCommandLine, kBinding };
  Kind kind = Kind::kBinding;
  std::string origin;    // the spec file's path, or the binding's name (synthaudit.evaluate)
  std::string base_dir;  // the spec file's folder: relative paths resolve against it
};

struct EvaluationOption;

// What apply sees besides its value: the place to name in a message and every value of the
// same call (an option that goes with another, as keys with targets, reads its partner here).
struct OptionSite {
  const EvaluationOption& option;
  const OptionSource& source;
  const nlohmann::json& given;  // option name -> value as given in this call
  // "spec.yaml: seed", "--seed" or "synthaudit.evaluate: seed".
  std::string where() const;
  [[noreturn]] void fail(const std::string& what) const;
  // A file path as given, resolved against the spec file's folder.
  std::string path(const std::string& text) const;
};

struct EvaluationOption {
  std::string name;  // the library's key and, unless binding_name says otherwise,
                     // the Python and R argument
  OptionType type = OptionType::kText;
  nlohmann::json default_value;            // as documented; null: none (not applied)
  std::optional<double> minimum, maximum;  // kCount
  std::vector<std::string> choices;        // kChoice
  std::string description;                 // one paragraph, for --help, docstrings, help pages
  std::string spec_key;          // key in a spec file, dotted within a block (read.delimiter); ""
                                 // = not in a spec file
  std::string cli_flag;          // "--seed"; "" = not on the command line
  std::string cli_value;         // the value's form on the command line ("N", "NAME=VALUE")
  bool cli_repeatable = false;   // the flag may be given several times (a list of its values)
  std::string binding_name;      // the Python/R argument; "" = name; "-" = not in the bindings
  bool privacy_control = false;  // a control of what may leave a secure environment
  // A spec file's structured value as typed JSON (numbers, booleans), as the metrics'
  // parameters need; otherwise every scalar of the file is given as its text.
  bool typed_in_spec_file = false;
  // A value, as a spec file or a binding gives it and as the command line does (text; a list for
  // a repeatable flag; null: no command-line form to show). For the docs and for the test that
  // sets every option through every front end (tests/unit/options_test.cpp).
  nlohmann::json example;
  nlohmann::json cli_example;
  std::function<void(EvaluationSpec&, const nlohmann::json&, const OptionSite&)> apply;

  bool in_bindings() const { return binding_name != "-"; }
  std::string binding() const { return binding_name.empty() ? name : binding_name; }
};

// Every option, in the order they are applied (limits first: they bound the reading of the
// rest; the spec file before everything it may be overridden by).
const std::vector<EvaluationOption>& evaluation_options();

// The option named `name` (library name), or nullptr.
const EvaluationOption* find_option(const std::string& name);

// The evaluation spec of one call: the defaults, then the spec file when `given` names one (key
// "spec"; read within the limits the call gives), then every other given option in table order.
// `given` maps option names to values; an unknown name is an InputError with a did-you-mean hint.
// `base` supplies what is not an option (the spec's origin and output folder for a binding).
// Not validated: the caller runs validate_spec once all is applied.
EvaluationSpec spec_from_options(const nlohmann::json& given, const OptionSource& source,
                                 const ResourceLimits& limits = {});

// Applies `given` (option name -> value) over `spec` in table order.
void apply_options(EvaluationSpec& spec, const nlohmann::json& given, const OptionSource& source);

// The options a spec file gives: every declared spec key found in the parsed YAML document
// (`root`), as option name -> value; unknown keys are InputErrors naming the file and the key.
nlohmann::json options_in_spec_file(const nlohmann::json& root, const nlohmann::json& typed_root,
                                    const std::string& path);

// The table as JSON (`synthaudit options --json`, the bindings' signatures and help pages).
nlohmann::json options_to_json();

// docs/options.md's generated block.
std::string options_markdown();

}  // namespace synthaudit
