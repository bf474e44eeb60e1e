// synthaudit command line. Argument parsing only: it reads the files into tables and calls the
// library's entry point (include/synthaudit/synthaudit.hpp), like any host program; everything it
// prints about metrics comes from the registry, everything about results from the results
// document.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/launcher.hpp"
#include "core/limits.hpp"
#include "core/mpi_round_bytes.hpp"
#include "core/progress.hpp"
#include "core/text.hpp"
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
#include "synthaudit/synthaudit.hpp"

namespace fs = std::filesystem;
using namespace synthaudit;

namespace {

// Exit codes (docs/cli.md): 0 done, 1 internal error, 2 bad input, 3 no candidate passes the
// release policy (the outputs are written in full).
constexpr int kExitNoCandidatePasses = 3;

// How text files are read: the spec's read: block, as flags (docs/cli.md, "Text files").
struct ReadFlags {
  std::string delimiter, decimal, encoding, na;
  // Given at all (an empty value is given too: --na '' is the empty field alone).
  const CLI::Option *delimiter_option = nullptr, *decimal_option = nullptr,
                    *encoding_option = nullptr, *na_option = nullptr;
};

bool given(const CLI::Option* option) { return option && option->count() > 0; }

void add_read_flags(CLI::App& cmd, ReadFlags& f) {
  f.delimiter_option = cmd.add_option(
      "--delimiter", f.delimiter,
      "field separator of text files: one character, tab, or auto (default: detected "
      "from the header)");
  f.decimal_option =
      cmd.add_option("--decimal", f.decimal,
                     "decimal mark of numbers in text files: . or , (default: detected; ',' only "
                     "when the delimiter is not a comma)");
  f.encoding_option =
      cmd.add_option("--encoding", f.encoding,
                     "character encoding of text files: utf-8 (default), latin1 or windows-1252 "
                     "(converted to UTF-8 when read)");
  f.na_option =
      cmd.add_option("--na", f.na,
                     "spellings of a missing value, comma-separated, in every column (default: "
                     "'',NA,NaN,null; an empty item is the empty field)")
          ->expected(1);
}

// Applies the flags over `read` (the spec's block, when there is one).
void apply_read_flags(const ReadFlags& f, ReadSettings& read) {
  if (given(f.delimiter_option)) read.csv.delimiter = parse_delimiter(f.delimiter, "--delimiter");
  if (given(f.decimal_option)) read.csv.decimal = parse_decimal_mark(f.decimal, "--decimal");
  if (given(f.encoding_option)) read.csv.encoding = parse_text_encoding(f.encoding, "--encoding");
  if (given(f.na_option)) {
    std::vector<std::string> spellings;
    std::size_t start = 0;
    while (true) {
      const auto comma = f.na.find(',', start);
      spellings.push_back(f.na.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    read.missing_values = checked_missing_values(std::move(spellings), "--na");
  }
  check_read_options(read, "--delimiter and --decimal");
}

struct EvaluateFlags {
  std::string spec_file, confidential, holdout, synthesis, keys, targets, metrics, out, metadata,
      plots, policy, memory;
  std::string format = "text";
  std::vector<std::string> synthetic, analyses, params, missing_codes, limits, disclosure_matching;
  std::string value_labels;
  ReadFlags read;
  std::string synthesised_columns;
  std::string weights;
  std::string household;
  // Text, parsed by parse_seed / parse_threads: CLI11 would clamp 2^64 and a negative value
  // cannot be told from "not given".
  std::string seed, threads;
  int baseline_draws = -1;
  bool quiet = false;
  bool safe_output = false;
  std::size_t safe_output_threshold = 0;  // 0: not given
  std::string by;
  CLI::Option* by_option = nullptr;  // given (even empty, which is an error)
  std::size_t by_min_rows = 0;       // 0: not given
};

void add_limit_flags(CLI::App& cmd, std::vector<std::string>& limits) {
  cmd.add_option(
      "--limit", limits,
      "resource limit NAME=VALUE (docs/limits.md: " + join(limit_names(), ", ") + "); repeatable");
}

// The limits of the flags: defaults, each --limit, then --memory.
ResourceLimits limits_of(const std::vector<std::string>& assignments, const std::string& memory) {
  ResourceLimits limits;
  for (const auto& a : assignments) apply_limit_assignment(limits, a);
  if (!memory.empty()) set_limit(limits, "memory", memory, "--memory");
  return limits;
}

void add_format_flag(CLI::App& cmd, std::string& format) {
  cmd.add_option("--format", format, "what to print: text (short summary) or md (Markdown summary)")
      ->check(CLI::IsMember({"text", "md"}));
}

void add_evaluate_flags(CLI::App& cmd, EvaluateFlags& f) {
  cmd.add_option("--spec", f.spec_file, "YAML evaluation spec (flags given here override it)");
  cmd.add_option("--confidential", f.confidential, "confidential CSV (or .csv.gz)");
  cmd.add_option("--synthetic", f.synthetic,
                 "candidate NAME=FILE[,FILE...] (one file per replicate); repeatable");
  cmd.add_option("--holdout", f.holdout, "holdout CSV: records not used to synthesise");
  cmd.add_option("--synthesis", f.synthesis, "full or partial (rows correspond)")
      ->check(CLI::IsMember({"full", "partial"}));
  cmd.add_option("--synthesised-columns", f.synthesised_columns,
                 "partial synthesis: the columns that were synthesised, comma-separated (the "
                 "others must equal the confidential data row by row)");
  cmd.add_option("--weights", f.weights,
                 "sampling-weight column of the confidential (and holdout) data; overrides the "
                 "spec's weights:");
  cmd.add_option("--household", f.household,
                 "household identifier column (household disclosure risk); overrides the spec's "
                 "household:");
  cmd.add_option("--missing-codes", f.missing_codes,
                 "codes that mean missing in a column, COLUMN=CODE[,CODE...] (numbers, or text "
                 "such as DK), in every file; repeatable");
  cmd.add_option("--value-labels", f.value_labels,
                 "Stata, SPSS and SAS files: read labelled values as their labels (default) or "
                 "their codes")
      ->check(CLI::IsMember({"labels", "codes"}));
  add_read_flags(cmd, f.read);
  cmd.add_option("--disclosure-matching", f.disclosure_matching,
                 "how key-disclosure metrics match values, NAME=VALUE with NAME one of "
                 "numeric_tolerance, relative_tolerance, missing_matches (as the spec's "
                 "disclosure_matching block); repeatable");
  cmd.add_option("--keys", f.keys, "disclosure key columns, comma-separated");
  cmd.add_option("--targets", f.targets, "disclosure target columns, comma-separated");
  cmd.add_option("--analysis", f.analyses,
                 "analysis, e.g. 'lm: y ~ x1 + x2' or 'mean: income'; repeatable");
  cmd.add_option("--metrics", f.metrics,
                 "metric names or families (general, propensity, specific, key-disclosure, "
                 "distance-disclosure, attack-disclosure, sdc-risk, all)");
  cmd.add_option("--param", f.params, "metric parameter METRIC.NAME=VALUE; repeatable");
  cmd.add_option("--metadata", f.metadata, "SDV metadata JSON with column sdtypes");
  cmd.add_option("--seed", f.seed, "random seed, 0 to 2^64 - 1 (default 1)");
  cmd.add_option("--threads", f.threads,
                 "threads (0 = all cores; more than the machine has are capped, with a warning)");
  cmd.add_option("--memory", f.memory,
                 "memory budget, e.g. 16G: the run stops with an error before it would need more "
                 "(default: the machine's and the process's limits)");
  add_limit_flags(cmd, f.limits);
  cmd.add_option("--out", f.out, "output folder for results.json, results.tsv and report.html");
  cmd.add_option("--plots", f.plots,
                 "replicates whose plot data results.json keeps: first (default), all or none")
      ->check(CLI::IsMember({"first", "all", "none"}));
  cmd.add_option("--policy", f.policy,
                 "release policy YAML (criteria each candidate must meet); replaces the spec's "
                 "policy block");
  cmd.add_option("--baseline-draws", f.baseline_draws,
                 "replicate draws of the holdout and resample baselines (default 5, 0 = none)")
      ->check(CLI::Range(0, 1000));
  cmd.add_flag("--safe-output", f.safe_output,
               "secure-environment mode: write only aggregates that pass output checking (no "
               "per-record output, no extremes, nothing from fewer than the threshold's records) "
               "and the log DIR/output_check.txt");
  cmd.add_option("--safe-output-threshold", f.safe_output_threshold,
                 "the fewest records a released number or category may come from (default 10; "
                 "implies --safe-output)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  f.by_option = cmd.add_option(
      "--by", f.by,
      "subgroups: categorical columns, comma-separated; the general, specific and key-disclosure "
      "metrics run again within each level and each combination of levels (overrides the "
      "spec's by:)");
  cmd.add_option("--by-min-rows", f.by_min_rows,
                 "the fewest confidential and synthetic rows a subgroup needs to be computed "
                 "(default 50; smaller subgroups are reported as suppressed)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000000}));
  cmd.add_flag("--quiet", f.quiet, "no progress on stderr");
  add_format_flag(cmd, f.format);
}

EvaluationSpec build_spec(const EvaluateFlags& f) {
  const ResourceLimits flag_limits = limits_of(f.limits, f.memory);
  EvaluationSpec spec =
      f.spec_file.empty() ? EvaluationSpec{} : load_spec(f.spec_file, flag_limits);
  // Flags override the spec's limits block.
  for (const auto& a : f.limits) apply_limit_assignment(spec.context.limits, a);
  if (!f.memory.empty()) set_limit(spec.context.limits, "memory", f.memory, "--memory");
  if (!f.confidential.empty()) spec.confidential = f.confidential;
  if (!f.synthetic.empty()) {
    spec.candidates.clear();
    for (const auto& s : f.synthetic) spec.candidates.push_back(parse_candidate(s));
  }
  if (!f.holdout.empty()) spec.holdout = f.holdout;
  if (!f.synthesis.empty())
    spec.context.synthesis =
        f.synthesis == "partial" ? SynthesisType::kPartial : SynthesisType::kFull;
  if (!f.synthesised_columns.empty()) spec.synthesised_columns = split(f.synthesised_columns, ',');
  if (!f.weights.empty()) spec.context.weights = f.weights;
  if (!f.household.empty()) spec.context.household = f.household;
  for (const auto& assignment : f.missing_codes) add_missing_codes(spec, assignment);
  if (!f.value_labels.empty())
    spec.read.value_labels = f.value_labels == "codes" ? ValueLabels::kCodes : ValueLabels::kLabels;
  apply_read_flags(f.read, spec.read);
  if (!f.keys.empty() || !f.targets.empty()) {
    if (f.keys.empty() || f.targets.empty()) throw InputError("--keys and --targets go together");
    spec.context.scenarios = {{split(f.keys, ','), split(f.targets, ',')}};
  }
  if (!f.analyses.empty()) {
    spec.context.analyses.clear();
    for (std::size_t i = 0; i < f.analyses.size(); ++i)
      spec.context.analyses.push_back(parse_analysis(f.analyses[i], i, "--analysis"));
  }
  if (!f.metrics.empty()) spec.metrics = split(f.metrics, ',');
  for (const auto& m : f.disclosure_matching) add_disclosure_matching(spec, m);
  for (const auto& p : f.params) add_param_assignment(spec, p);
  if (!f.metadata.empty()) spec.metadata = f.metadata;
  if (!f.seed.empty()) spec.context.seed = parse_seed(f.seed, "--seed");
  if (!f.threads.empty()) spec.context.threads = parse_threads(f.threads, "--threads");
  if (!f.out.empty()) spec.output_dir = f.out;
  if (!f.plots.empty()) spec.plots = f.plots;
  if (!f.policy.empty()) spec.policy = load_policy(f.policy, spec.context.limits);
  if (f.baseline_draws >= 0) spec.baseline_draws = f.baseline_draws;
  if (f.safe_output) spec.safe_output = true;
  if (f.safe_output_threshold > 0) {
    spec.safe_output = true;
    spec.safe_output_threshold = f.safe_output_threshold;
  }
  if (f.by_option != nullptr && f.by_option->count() > 0) {
    spec.by = split(f.by, ',');
    if (f.by.empty()) throw InputError("--by: expected at least one categorical column");
  }
  if (f.by_min_rows > 0) spec.by_min_rows = f.by_min_rows;
  if (spec.output_dir.empty()) throw InputError("no output folder given (--out DIR)");
  validate_spec(spec);
  if (const std::string warning = cap_threads(spec); !warning.empty())
    std::cerr << "synthaudit: warning: " << warning << "\n";
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
    for (const auto& warning : data.reading_warnings)
      std::cerr << "synthaudit: warning: " << warning << "\n";
    sinks.work_progress = quiet ? nullptr : &work_progress;
    // Safe output writes nothing per record: the records are never collected.
    sinks.records = spec.safe_output ? nullptr : &records;
    return audit(spec, data, progress, sinks);
  };
  auto publish = [&](const nlohmann::json& document) {
    // The checks before the metrics shout even with --quiet: they are mistakes, not progress.
    for (const auto& finding : document.value("data_checks", nlohmann::json::array()))
      std::cerr << "synthaudit: warning: " << finding.value("message", "") << "\n";
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
  std::cout << (as_json ? metric_to_json(m).dump(2) + "\n" : describe_text(m));
  return 0;
}

// `synthaudit sdc`: the remediated synthetic file and its log, published as one output set.
struct SdcFlags {
  std::string confidential, synthetic, keys, out;
  std::vector<std::string> top_code, bottom_code, recode_rare, missing_codes, label;
  ReadFlags read;
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
  EvaluationSpec settings;
  for (const auto& assignment : f.missing_codes) add_missing_codes(settings, assignment);
  apply_read_flags(f.read, settings.read);
  options.read = settings.read;
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
  ReadFlags init_read;
  add_read_flags(*init_cmd, init_read);

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
  sdc_cmd->add_option("--missing-codes", sdc.missing_codes,
                      "numeric codes that mean missing in a column, COLUMN=CODE[,CODE...]; "
                      "repeatable");
  add_read_flags(*sdc_cmd, sdc.read);
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
    if (launcher_rank() == 0) std::cerr << "synthaudit: error: " << e.what() << "\n";
    return 2;
  }
  Communicator& communicator = group->communicator();
  const bool root = communicator.is_root();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (!root) return e.get_exit_code() == 0 ? 0 : 2;
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // A usage error is bad input like any other: one line, exit code 2.
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::cerr << "synthaudit: error: " << message << " (see --help)\n";
    return 2;
  }

  try {
    if (*evaluate_cmd)
      return run_evaluation(build_spec(eval), eval.quiet, eval.format, {eval.spec_file},
                            communicator);
    if (communicator.size() > 1)
      throw InputError(
          "only `synthaudit evaluate` runs over MPI ranks; run this command without "
          "mpirun or srun");
    if (*sdc_cmd) return run_sdc(sdc, label_option->count() > 0);
    if (*report_cmd)
      return rerender_report(report_input, report_out, report_format, limits_of(report_limits, ""));
    if (*init_cmd) {
      ReadSettings init_settings;
      apply_read_flags(init_read, init_settings);
      const std::string text = starter_spec(init_file, init_settings, init_out);
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
    if (root) std::cerr << "synthaudit: error: " << e.what() << "\n";
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
