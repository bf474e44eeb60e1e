// synthaudit command line. Argument parsing only: it reads the files into tables and calls the
// library's entry point (include/synthaudit/synthaudit.hpp), like any host program; everything it
// prints about metrics comes from the registry, everything about results from the results
// document.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/launcher.hpp"
#include "core/limits.hpp"
#include "core/mpi_round_bytes.hpp"
#include "core/progress.hpp"
#include "core/text.hpp"
#include "core/thread_environment.hpp"
#include "engine/partitioned_evaluate.hpp"
#include "io/file.hpp"
#include "io/partitioned_read.hpp"
#include "remediate/sdc_remediation.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "result/document.hpp"
#include "result/output_files.hpp"
#include "result/verdict.hpp"
#include "sim/simulator.hpp"
#include "spec/options.hpp"
#include "synthaudit/synthaudit.hpp"

namespace fs = std::filesystem;
using namespace synthaudit;

namespace {

// One line on stderr per message, whatever the message holds: a parser's message may quote a
// line break, a NUL or a terminal escape from the file it read (docs/limits.md).
void say(const char* kind, std::string_view message) {
  std::cerr << "synthaudit: " << kind << ": " << escape_controls(message) << "\n";
}

// Exit codes (docs/cli.md): 0 done, 1 internal error, 2 bad input, 3 no candidate passes the
// release policy (the outputs are written in full).
constexpr int kExitNoCandidatePasses = 3;

// The evaluation options as flags, generated from their declarations (spec/options.hpp): the
// flag, its value's form and its --help text. What was given becomes the options' JSON, which
// spec_from_options applies exactly as it applies a spec file's or a binding's.
class OptionFlags {
 public:
  // Registers the flags of every declared option that `wanted` accepts.
  void add_to(CLI::App& cmd, const std::function<bool(const EvaluationOption&)>& wanted) {
    for (const auto& option : evaluation_options()) {
      if (option.cli_flag.empty() || !wanted(option)) continue;
      Entry& entry = entries_.emplace_back();
      entry.option = &option;
      const std::string help = help_text(option);
      if (option.type == OptionType::kSwitch)
        entry.flag = cmd.add_flag(option.cli_flag, help);
      else if (option.cli_repeatable)
        entry.flag =
            cmd.add_option(option.cli_flag, entry.texts, help)->type_name(option.cli_value);
      else
        entry.flag = cmd.add_option(option.cli_flag, entry.text, help)->type_name(option.cli_value);
    }
  }

  // option name -> value, for the flags given (an empty value is given too: --na '').
  nlohmann::json given() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& entry : entries_) {
      if (entry.flag->count() == 0) continue;
      if (entry.option->type == OptionType::kSwitch)
        out[entry.option->name] = true;
      else if (entry.option->cli_repeatable)
        out[entry.option->name] = entry.texts;
      else
        out[entry.option->name] = entry.text;
    }
    return out;
  }

 private:
  struct Entry {
    const EvaluationOption* option = nullptr;
    CLI::Option* flag = nullptr;
    std::string text;
    std::vector<std::string> texts;
  };

  static std::string help_text(const EvaluationOption& option) {
    std::string help = option.description;
    if (!option.default_value.is_null() && option.type != OptionType::kSwitch)
      help += " (default " +
              (option.default_value.is_string() ? option.default_value.get<std::string>()
                                                : option.default_value.dump()) +
              ")";
    if (option.cli_repeatable) help += "; repeatable";
    return help;
  }

  std::deque<Entry> entries_;  // stable addresses: CLI11 writes into them
};

bool is_read_option(const EvaluationOption& option) { return option.spec_key.starts_with("read."); }

// The read options of `init` and `sdc` (the same flags as evaluate's).
ReadSettings read_settings_of(const OptionFlags& flags) {
  const EvaluationSpec spec =
      spec_from_options(flags.given(), {OptionSource::Kind::kCommandLine, "command line", ""});
  check_read_options(spec.read, "--delimiter and --decimal");
  return spec.read;
}

void add_limit_flags(CLI::App& cmd, std::vector<std::string>& limits) {
  cmd.add_option("--limit", limits, find_option("limits")->description + "; repeatable");
}

// The limits of `report`'s flags.
ResourceLimits limits_of(const std::vector<std::string>& assignments) {
  ResourceLimits limits;
  for (const auto& a : assignments) apply_limit_assignment(limits, a);
  return limits;
}

void add_format_flag(CLI::App& cmd, std::string& format) {
  cmd.add_option("--format", format, "what to print: text (short summary) or md (Markdown summary)")
      ->check(CLI::IsMember({"text", "md"}));
}

// evaluate's flags: every evaluation option, then how to print.
struct EvaluateFlags {
  OptionFlags options;
  std::string format = "text";
  bool quiet = false;
};

void add_evaluate_flags(CLI::App& cmd, EvaluateFlags& f) {
  f.options.add_to(cmd, [](const EvaluationOption&) { return true; });
  cmd.add_flag("--quiet", f.quiet, "no progress on stderr");
  add_format_flag(cmd, f.format);
}

EvaluationSpec build_spec(const nlohmann::json& given) {
  EvaluationSpec spec =
      spec_from_options(given, {OptionSource::Kind::kCommandLine, "command line", ""});
  check_read_options(spec.read, "--delimiter and --decimal");
  if (spec.output_dir.empty()) throw InputError("no output folder given (--out DIR)");
  validate_spec(spec);
  if (const std::string warning = cap_threads(spec); !warning.empty()) say("warning", warning);
  return spec;
}

// The files evaluate writes: one output set, published together (result/output_files.hpp).
const std::vector<std::string> kOutputSetNames = {"results.json", "results.tsv", "report.html"};
// Per-record values, when a metric is asked for them (record_level).
const std::string kRecordsFileName = "records.tsv";
// The output-checking log of a --safe-output run.
const std::string kOutputCheckFileName = "output_check.txt";

// Every file the evaluation reads: --out may neither be one nor hold one.
std::vector<std::string> input_files(const EvaluationSpec& spec,
                                     const std::vector<std::string>& also) {
  std::vector<std::string> files = also;
  files.push_back(spec.confidential);
  if (spec.holdout) files.push_back(*spec.holdout);
  for (const auto& candidate : spec.candidates)
    files.insert(files.end(), candidate.replicates.begin(), candidate.replicates.end());
  files.push_back(spec.metadata);
  if (spec.policy.source != "default" && spec.policy.source != "spec")
    files.push_back(spec.policy.source);
  return files;
}

// Under an MPI launcher (docs/mpi.md) every rank runs this with the job's communicator: the
// files are read split by rows, the root (rank 0) runs the evaluation and alone reports and
// writes; the function returns on every rank, with the root's exit code.
int run_evaluation(const EvaluationSpec& spec, bool quiet, const std::string& format,
                   const std::vector<std::string>& other_inputs, Communicator& communicator) {
  const bool root = communicator.is_root();
  // Before the work: a folder that cannot take the results is known now, not after minutes.
  std::vector<std::string> names = kOutputSetNames;
  names.push_back(kRecordsFileName);
  names.push_back(kOutputCheckFileName);
  run_agreed(communicator, [&] {
    if (communicator.size() > 1 && !all_to_all_round_bytes())
      throw InputError(std::string(kAllToAllRoundBytesVariable) +
                       " must be a whole number of bytes from 1 to " +
                       std::to_string(kAllToAllRoundBytes) + ", not '" +
                       std::getenv(kAllToAllRoundBytesVariable) + "' (docs/mpi.md)");
    if (root) check_output_folder(spec.output_dir, names, input_files(spec, other_inputs));
  });
  ProgressFn progress;
  if (!quiet && root)
    progress = [](const std::string& line) { std::cerr << "synthaudit: " << line << "\n"; };
  if (progress)
    progress(communicator.size() > 1
                 ? "reading data on " + std::to_string(communicator.size()) + " ranks"
                 : std::string("reading data"));
  std::optional<EvaluationData> single;
  std::optional<PartitionedData> partitioned;
  if (communicator.size() > 1)
    partitioned = load_partitioned_evaluation_data(spec, communicator);
  else
    single = load_evaluation_data(spec);
  if (progress && partitioned)
    progress(partitioned->whole
                 ? std::string("every table gathered on rank 0 (a selected metric or setting "
                               "needs whole tables)")
                 : "evaluating on " + std::to_string(communicator.size()) +
                       " ranks without whole tables (every selected metric merges)");
  // Inside long metrics: one line rewritten in place on a terminal, plain lines otherwise.
  StreamProgress work_progress(stderr, isatty(fileno(stderr)) != 0);
  std::vector<RecordLevelOutput> records;
  auto run = [&](const EvaluationData& data, EvaluationSinks sinks) {
    // How the files were read shouts even with --quiet: a wrong guess changes every result.
    for (const auto& warning : data.reading_warnings) say("warning", warning);
    sinks.work_progress = quiet ? nullptr : &work_progress;
    // Safe output writes nothing per record: the records are never collected.
    sinks.records = spec.safe_output ? nullptr : &records;
    return audit(spec, data, progress, sinks);
  };
  auto publish = [&](const nlohmann::json& document) {
    // The checks before the metrics shout even with --quiet: they are mistakes, not progress.
    for (const auto& finding : document.value("data_checks", nlohmann::json::array()))
      say("warning", finding.value("message", ""));
    const std::string json_path = (fs::path(spec.output_dir) / "results.json").string();
    const std::string tsv_path = (fs::path(spec.output_dir) / "results.tsv").string();
    const std::string html_path = (fs::path(spec.output_dir) / "report.html").string();
    if (progress) progress("writing results");
    // Text that is not UTF-8 can only come from the spec's own strings (data fields are checked
    // when read); replace it rather than fail after the work is done.
    std::vector<OutputFile> files = {
        {"results.json", document.dump(1, ' ', false, nlohmann::json::error_handler_t::replace)},
        {"results.tsv", results_tsv(document)},
        {"report.html", render_html(document)}};
    // records.tsv belongs to the set when this run wrote per-record values, and also when an
    // earlier run into this folder did (then with the header only), so that it never shows
    // another run's records beside these results.
    const bool records_shown = is_published_output_set(spec.output_dir, {kRecordsFileName});
    if (!records.empty() || records_shown)
      files.push_back({kRecordsFileName, records_tsv(records)});
    // Likewise the output-checking log: a run without --safe-output replaces an earlier one's log
    // with a line saying these results were not checked.
    if (spec.safe_output || is_published_output_set(spec.output_dir, {kOutputCheckFileName}))
      files.push_back({kOutputCheckFileName,
                       spec.safe_output ? output_check_log(document)
                                        : "These results were written without --safe-output: "
                                          "nothing was checked or withheld.\n"});
    publish_output_set(spec.output_dir, files);
    if (spec.safe_output)
      std::cerr << "output checking log: "
                << (fs::path(spec.output_dir) / kOutputCheckFileName).string() << "\n";
    if (!records.empty())
      std::cerr << "per-record distances: "
                << (fs::path(spec.output_dir) / kRecordsFileName).string() << "\n";
    // With --format md, stdout carries only the Markdown (for CI logs); the paths go to stderr.
    if (format == "md") {
      std::cout << render_markdown(document);
      std::cerr << "results: " << json_path << "\n         " << tsv_path
                << "\nreport:  " << html_path << "\n";
    } else {
      std::cout << render_summary(document, {json_path, tsv_path, html_path});
    }
    // A release pipeline can stop on this: the outputs are complete, but nothing may be released.
    return no_candidate_passes(document) ? kExitNoCandidatePasses : 0;
  };
  if (!partitioned) return publish(run(*single, EvaluationSinks{}));
  // The other ranks wait for the root's exit code, so that the job ends as the root does.
  int code = 0;
  try {
    const auto document = evaluate_partitioned(spec, *partitioned, communicator, run);
    if (!root) return std::stoi(communicator.broadcast({}));
    code = publish(*document);
  } catch (const InputError&) {
    if (root) communicator.broadcast("2");
    throw;
  } catch (...) {
    if (root) communicator.broadcast("1");
    throw;
  }
  communicator.broadcast(std::to_string(code));
  return code;
}

// `synthaudit report`: the HTML report (or the Markdown summary) again from a results.json.
int rerender_report(const std::string& input, const std::string& out, const std::string& format,
                    const ResourceLimits& limits) {
  const nlohmann::json document = read_results_document(input, limits);
  if (format != "html") {
    std::cout << render_saved_report(document, format, input);
    return 0;
  }
  const std::string html = render_saved_report(document, format, input);
  const std::string path =
      out.empty() ? (fs::path(input).parent_path() / "report.html").string() : out;
  const fs::path folder = fs::path(path).parent_path();
  const std::string dir = folder.empty() ? "." : folder.string();
  if (fs::path(path).filename() == "report.html" && is_published_output_set(dir, kOutputSetNames)) {
    // An output set's report: published as a new set with the same results beside it, so the
    // three files stay one set; it must be rendered from those results.
    std::error_code ec;
    if (!fs::equivalent(fs::path(dir) / "results.json", input, ec))
      throw InputError(path + ": belongs to the results.json beside it, not to " + input +
                       "; give --out another file");
    std::vector<OutputFile> files = {
        {"results.json", std::nullopt}, {"results.tsv", std::nullopt}, {"report.html", html}};
    if (is_published_output_set(dir, {kRecordsFileName}))
      files.push_back({kRecordsFileName, std::nullopt});
    if (is_published_output_set(dir, {kOutputCheckFileName}))
      files.push_back({kOutputCheckFileName, std::nullopt});
    publish_output_set(dir, files);
  } else {
    std::error_code ec;
    if (!folder.empty()) fs::create_directories(folder, ec);
    write_file_atomic(path, html);
  }
  std::cout << "report: " << path << "\n";
  return 0;
}

void print_options(bool as_json) {
  if (as_json) {
    std::cout << options_to_json().dump(2) << "\n";
    return;
  }
  for (const auto& option : evaluation_options()) {
    std::cout << option.name << "\t" << (option.spec_key.empty() ? "-" : option.spec_key) << "\t"
              << (option.cli_flag.empty() ? "-" : option.cli_flag) << "\t"
              << (option.in_bindings() ? option.binding() : "-") << "\t" << option.description
              << "\n";
  }
}

void print_metric_list(bool as_json) {
  if (as_json) {
    std::cout << registry_to_json().dump(2) << "\n";
    return;
  }
  for (const auto& m : list_metrics())
    std::cout << m.name << "\t" << to_string(m.family) << "\t" << m.summary << "\n";
}

int describe_metric(const std::string& name, bool as_json) {
  const MetricSpec& m = describe(name);
  // Found by an acronym or a statistic's name: say which metric this is.
  if (m.name != name)
    std::cerr << "synthaudit: '" << escape_controls(name) << "' is " << m.name << "\n";
  std::cout << (as_json ? metric_to_json(m).dump(2) + "\n" : describe_text(m));
  return 0;
}

// `synthaudit sdc`: the remediated synthetic file and its log, published as one output set.
struct SdcFlags {
  std::string confidential, synthetic, keys, out;
  std::vector<std::string> top_code, bottom_code, recode_rare, label;
  OptionFlags read;  // the read options and missing codes, as evaluate's
  bool remove_replicated_uniques = false;
};

// "COLUMN=VALUE" of `flag`: the column and the value text.
std::pair<std::string, std::string> split_assignment(const std::string& flag,
                                                     const std::string& text,
                                                     const std::string& shape) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(flag + ": '" + text + "' should be " + shape);
  return {trim(text.substr(0, eq)), trim(text.substr(eq + 1))};
}

RemediationOptions remediation_options(const SdcFlags& f, bool label_given) {
  RemediationOptions options;
  options.confidential = f.confidential;
  options.synthetic = f.synthetic;
  options.read = read_settings_of(f.read);
  if (!f.keys.empty()) options.keys = split(f.keys, ',');
  options.remove_replicated_uniques = f.remove_replicated_uniques;
  for (const bool top : {true, false}) {
    const std::string flag = top ? "--top-code" : "--bottom-code";
    for (const auto& text : top ? f.top_code : f.bottom_code) {
      const auto [column, value] = split_assignment(flag, text, "COLUMN=QUANTILE");
      std::size_t used = 0;
      double q = std::nan("");
      try {
        q = std::stod(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || !(q >= 0 && q <= 1))
        throw InputError(flag + " " + column + ": quantile '" + value +
                         "' should be a number in [0, 1]");
      (top ? options.top_code : options.bottom_code).push_back({column, q});
    }
  }
  for (const auto& text : f.recode_rare) {
    const auto [column, value] = split_assignment("--recode-rare", text, "COLUMN=COUNT[:LEVEL]");
    const auto colon = value.find(':');
    const std::string count = value.substr(0, colon);
    RareRecoding recoding{column, 1, "other"};
    if (colon != std::string::npos) recoding.level = value.substr(colon + 1);
    std::size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(count, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (count.empty() || used != count.size() || n < 1)
      throw InputError("--recode-rare " + column + ": count '" + count +
                       "' should be a whole number >= 1");
    recoding.min_count = static_cast<std::size_t>(n);
    options.recode_rare.push_back(recoding);
  }
  if (label_given) {
    // COLUMN[=TEXT]; the column is synthpop's "flag" when not named.
    const std::string given = f.label.empty() ? "" : f.label.front();
    const auto eq = given.find('=');
    options.label_column = given.empty() || eq == 0 ? "flag" : given.substr(0, eq);
    if (eq != std::string::npos) options.label = given.substr(eq + 1);
  }
  if (f.remove_replicated_uniques && options.keys.empty())
    throw InputError("--remove-replicated-uniques needs --keys a,b,c");
  if (!options.remove_replicated_uniques && options.top_code.empty() &&
      options.bottom_code.empty() && options.recode_rare.empty() && !options.label_column)
    throw InputError(
        "sdc: no remediation asked for (--remove-replicated-uniques, --top-code, "
        "--bottom-code, --recode-rare, --label-synthetic)");
  return options;
}

int run_sdc(const SdcFlags& f, bool label_given) {
  const RemediationOptions options = remediation_options(f, label_given);
  // DIR/<the synthetic file's name>.csv ("x.csv.gz" gives "x.csv") and the log beside it.
  std::string name = fs::path(f.synthetic).filename().string();
  if (name.size() > 3 && name.ends_with(".gz")) name.resize(name.size() - 3);
  if (!name.ends_with(".csv")) name += ".csv";
  const std::string log_name = "sdc_log.txt";
  if (name == log_name) name = "remediated_" + name;
  check_output_folder(f.out, {name, log_name}, {f.confidential, f.synthetic});
  const Remediation result = remediate(options);
  publish_output_set(f.out, {{name, result.csv}, {log_name, result.log}});
  std::cout << result.log << "written: " << (fs::path(f.out) / name).string() << "\n         "
            << (fs::path(f.out) / log_name).string() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> environment_warnings = tame_openmp_environment(argv);
  CLI::App app{"synthaudit: audit a synthetic data release against the confidential data"};
  app.require_subcommand(1);
  app.set_version_flag("--version", SYNTHAUDIT_VERSION);

  EvaluateFlags eval;
  auto* evaluate_cmd = app.add_subcommand(
      "evaluate", "run the metrics and write results.json, results.tsv and report.html");
  add_evaluate_flags(*evaluate_cmd, eval);

  std::string init_file, init_out;
  auto* init_cmd =
      app.add_subcommand("init", "write a starter spec with the inferred column types");
  init_cmd->add_option("confidential", init_file, "confidential CSV")->required();
  init_cmd->add_option("--out", init_out, "where to write the spec (default: stdout)");
  OptionFlags init_read;
  init_read.add_to(*init_cmd, is_read_option);

  std::string report_input, report_out, report_format = "html";
  auto* report_cmd =
      app.add_subcommand("report", "render report.html (or --format md) again from a results.json");
  report_cmd->add_option("results", report_input, "results.json written by evaluate or demo")
      ->required();
  report_cmd->add_option("--out", report_out,
                         "HTML file to write (default: report.html beside the results)");
  std::vector<std::string> report_limits;
  add_limit_flags(*report_cmd, report_limits);
  report_cmd
      ->add_option("--format", report_format,
                   "html (write the report), md (print Markdown) or text (print the summary)")
      ->check(CLI::IsMember({"html", "md", "text"}));

  bool options_json = false;
  auto* options_cmd = app.add_subcommand(
      "options", "list every evaluation option: its spec key, flag, Python/R argument, default");
  options_cmd->add_flag("--json", options_json,
                        "print the options as JSON (the declarations every front end is made "
                        "from)");

  bool list_json = false;
  auto* list_cmd = app.add_subcommand("list-metrics", "list every metric: name, family, summary");
  list_cmd->add_flag("--json", list_json,
                     "print the whole registry as JSON: parameters, statistics, references");
  std::string describe_name;
  bool describe_json = false;
  auto* describe_cmd = app.add_subcommand(
      "describe", "show a metric's formula, parameters, statistics and references");
  describe_cmd->add_option("metric", describe_name, "metric name")->required();
  describe_cmd->add_flag("--json", describe_json, "print the metric's declaration as JSON");

  SimulationOptions sim;
  auto* simulate_cmd = app.add_subcommand(
      "simulate", "write a simulated confidential sample, holdout and candidate syntheses");
  simulate_cmd->add_option("--rows", sim.rows, "confidential rows")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000000}));
  simulate_cmd->add_option("--holdout-rows", sim.holdout_rows, "holdout rows (default: rows / 4)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000000}));
  simulate_cmd->add_option("--replicates", sim.replicates, "replicates per candidate")
      ->check(CLI::Range(1, 100));
  std::string simulate_seed;
  simulate_cmd->add_option("--seed", simulate_seed, "random seed, 0 to 2^64 - 1");
  simulate_cmd->add_option("--columns", sim.columns,
                           "columns per file, 12 to 200: the model's 12, then numeric and "
                           "categorical columns in turn (docs/simulator.md)");
  simulate_cmd->add_option("--out", sim.out_dir, "output folder")->required();

  std::string demo_out = "demo-out";
  std::size_t demo_rows = 20000;
  bool demo_quiet = false;
  std::string demo_format = "text";
  auto* demo_cmd =
      app.add_subcommand("demo", "simulate data, evaluate it, and say where the results are");
  demo_cmd->add_option("--out", demo_out, "output folder (default demo-out)");
  demo_cmd->add_option("--rows", demo_rows, "confidential rows (default 20000)")
      ->check(CLI::Range(std::size_t{10}, std::size_t{100000000}));
  demo_cmd->add_flag("--quiet", demo_quiet, "no progress on stderr");
  add_format_flag(*demo_cmd, demo_format);

  SdcFlags sdc;
  auto* sdc_cmd = app.add_subcommand(
      "sdc", "write a remediated copy of a synthetic file and a log of what changed");
  sdc_cmd->add_option("--confidential", sdc.confidential, "confidential CSV")->required();
  sdc_cmd->add_option("--synthetic", sdc.synthetic, "synthetic CSV to remediate")->required();
  sdc_cmd->add_option("--out", sdc.out, "output folder for the remediated CSV and sdc_log.txt")
      ->required();
  sdc_cmd->add_option("--keys", sdc.keys, "key columns, comma-separated (replicated uniques)");
  sdc.read.add_to(*sdc_cmd, [](const EvaluationOption& option) {
    return is_read_option(option) || option.name == "missing_codes";
  });
  sdc_cmd->add_flag("--remove-replicated-uniques", sdc.remove_replicated_uniques,
                    "remove synthetic records unique on the keys whose key values are unique in "
                    "the confidential data");
  sdc_cmd->add_option("--top-code", sdc.top_code,
                      "COLUMN=Q: values above the confidential column's quantile Q become it; "
                      "repeatable");
  sdc_cmd->add_option("--bottom-code", sdc.bottom_code,
                      "COLUMN=Q: values below the confidential column's quantile Q become it; "
                      "repeatable");
  sdc_cmd->add_option("--recode-rare", sdc.recode_rare,
                      "COLUMN=COUNT[:LEVEL]: levels held by fewer than COUNT confidential records "
                      "become LEVEL (default other); repeatable");
  auto* label_option =
      sdc_cmd
          ->add_option("--label-synthetic", sdc.label,
                       "add a first column COLUMN (default flag) saying TEXT (default "
                       "synthetic) in every record: [COLUMN[=TEXT]]")
          ->expected(0, 1);

  // One process, or one rank of an MPI job (docs/mpi.md). Every rank parses the same command
  // line; only the root (rank 0) writes anything, errors included: bad input is the same
  // InputError on every rank, so each ends with exit code 2.
  std::unique_ptr<ProcessGroup> group;
  try {
    group = ProcessGroup::start();
  } catch (const InputError& e) {
    if (launcher_rank() == 0) say("error", e.what());
    return 2;
  }
  Communicator& communicator = group->communicator();
  const bool root = communicator.is_root();
  if (root)
    for (const auto& warning : environment_warnings) say("warning", warning);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (!root) return e.get_exit_code() == 0 ? 0 : 2;
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // A usage error is bad input like any other: one line, exit code 2.
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    say("error", message + " (see --help)");
    return 2;
  }

  try {
    if (*evaluate_cmd) {
      const nlohmann::json given = eval.options.given();
      std::vector<std::string> spec_file;
      if (given.contains("spec")) spec_file.push_back(given["spec"].get<std::string>());
      return run_evaluation(build_spec(given), eval.quiet, eval.format, spec_file, communicator);
    }
    if (*options_cmd) {
      print_options(options_json);
      return 0;
    }
    if (communicator.size() > 1)
      throw InputError(
          "only `synthaudit evaluate` runs over MPI ranks; run this command without "
          "mpirun or srun");
    if (*sdc_cmd) return run_sdc(sdc, label_option->count() > 0);
    if (*report_cmd)
      return rerender_report(report_input, report_out, report_format, limits_of(report_limits));
    if (*init_cmd) {
      const std::string text = starter_spec(init_file, read_settings_of(init_read), init_out);
      if (init_out.empty()) {
        std::cout << text;
      } else {
        write_file_atomic(init_out, text);
        std::cerr << "wrote " << init_out << "\n";
      }
      return 0;
    }
    if (*list_cmd) {
      print_metric_list(list_json);
      return 0;
    }
    if (*describe_cmd) return describe_metric(describe_name, describe_json);
    if (*simulate_cmd) {
      if (!simulate_seed.empty()) sim.seed = parse_seed(simulate_seed, "--seed");
      const auto files = simulate(sim);
      std::cout << "wrote " << files.spec_path << " (and the CSV files beside it)\n";
      return 0;
    }
    if (*demo_cmd) {
      SimulationOptions options;
      options.rows = demo_rows;
      options.holdout_rows = demo_rows / 4;
      options.out_dir = (fs::path(demo_out) / "data").string();
      if (!demo_quiet)
        std::cerr << "synthaudit: simulating " << demo_rows << " rows into " << options.out_dir
                  << "\n";
      const auto files = simulate(options);
      EvaluationSpec spec = load_spec(files.spec_path);
      spec.output_dir = demo_out;
      validate_spec(spec);
      run_evaluation(spec, demo_quiet, demo_format, {}, communicator);
      (demo_format == "md" ? std::cerr : std::cout)
          << "demo: the results are in " << fs::absolute(demo_out).string() << "\n"
          << "demo: open the report " << (fs::absolute(demo_out) / "report.html").string() << "\n";
      return 0;
    }
  } catch (const InputError& e) {
    if (root) say("error", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "synthaudit: internal error"
              << (communicator.size() > 1 ? " on rank " + std::to_string(communicator.rank())
                                          : std::string())
              << ": " << e.what() << "\n";
    // The other ranks may be waiting for this one in a collective: end them all.
    if (communicator.size() > 1) group->abort_all(1);
    return 1;
  }
  return 0;
}
