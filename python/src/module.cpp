// synthaudit._synthaudit: the Python package's bridge to the library (include/synthaudit/
// synthaudit.hpp). The pure-Python layer (python/synthaudit/) turns pandas columns into numpy
// arrays (float64 values, or int32 codes with their levels) and options into JSON; this file
// turns those into the library's in-memory tables and options, runs the same evaluation as the
// command line with the GIL released, and hands back the results document. Nothing here names a
// metric.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "synthaudit/synthaudit.hpp"

namespace py = pybind11;
namespace sa = synthaudit;

namespace {

// Prefix of messages about the options of a call without a spec file.
constexpr const char* kOrigin = "synthaudit.evaluate";

// A results document as the library returns it; Python reads it through the methods below.
struct Document {
  nlohmann::json json;
};

// results.json's text, exactly as `synthaudit evaluate` writes it (NaN as null).
std::string document_text(const Document& document) {
  return document.json.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One column from the Python layer: (name, float64 array) for numbers (NaN missing), or
// (name, int32 array of codes, list of levels) for categories (a negative code is missing).
// The numbers are read straight from the array's buffer: one copy into the library's column,
// no Python object per value.
sa::InputColumn column_from(const py::handle& item) {
  const auto entry = py::reinterpret_borrow<py::tuple>(item);
  std::string name = entry[0].cast<std::string>();
  if (entry.size() == 2) {
    const auto values = entry[1].cast<py::array_t<double, py::array::c_style>>();
    const double* begin = values.data();
    return sa::InputColumn::numeric(std::move(name),
                                    std::vector<double>(begin, begin + values.size()));
  }
  const auto codes = entry[1].cast<py::array_t<std::int32_t, py::array::c_style>>();
  const std::int32_t* begin = codes.data();
  return sa::InputColumn::categorical(std::move(name),
                                      std::vector<std::int32_t>(begin, begin + codes.size()),
                                      entry[2].cast<std::vector<std::string>>());
}

sa::InputTable table_from(const py::list& columns) {
  sa::InputTable table;
  table.reserve(columns.size());
  for (const auto& column : columns) table.push_back(column_from(column));
  return table;
}

std::vector<std::string> strings(const nlohmann::json& value) {
  return value.get<std::vector<std::string>>();
}

// The options of a call: those of the spec file when one is given, then every option the call
// gives explicitly (as flags override a spec on the command line). `options` holds only the
// options given.
void apply_options(sa::Evaluation& evaluation, const std::optional<sa::EvaluationSpec>& file,
                   const nlohmann::json& options) {
  evaluation.origin = kOrigin;
  if (file) {
    evaluation.origin = file->origin;
    evaluation.missing_codes = file->read.missing_codes;
    evaluation.metrics = file->metrics;
    evaluation.parameters = file->parameters;
    evaluation.scenarios = file->context.scenarios;
    evaluation.synthesis = file->context.synthesis;
    evaluation.seed = file->context.seed;
    evaluation.threads = file->context.threads;
    evaluation.plots = file->plots;
    evaluation.baseline_draws = file->baseline_draws;
    evaluation.policy = file->policy;
    evaluation.synthesised_columns = file->synthesised_columns;
    evaluation.disclosure_matching = file->disclosure_matching;
    evaluation.weights = file->context.weights;
    evaluation.household = file->context.household;
    evaluation.by = file->by;
    evaluation.by_min_rows = file->by_min_rows;
  }
  if (options.contains("metrics")) evaluation.metrics = strings(options["metrics"]);
  // Each parameter given wins over the spec's value of that parameter, as --param does.
  if (options.contains("parameters"))
    for (const auto& [metric, given] : options["parameters"].items()) {
      nlohmann::json& merged = evaluation.parameters[metric];
      if (!merged.is_object() || !given.is_object()) {
        merged = given;
        continue;
      }
      for (const auto& [name, value] : given.items()) merged[name] = value;
    }
  if (options.contains("keys"))
    evaluation.scenarios = {{strings(options["keys"]), strings(options["targets"])}};
  if (options.contains("analyses")) evaluation.analyses = strings(options["analyses"]);
  if (options.contains("missing_codes"))
    for (const auto& [column, codes] : options["missing_codes"].items())
      evaluation.missing_codes[column] = codes.get<std::vector<double>>();
  if (options.contains("synthesis")) {
    const std::string synthesis = options["synthesis"].get<std::string>();
    if (synthesis != "full" && synthesis != "partial")
      throw sa::InputError(std::string(kOrigin) + ": synthesis must be 'full' or 'partial', not '" +
                           synthesis + "'");
    evaluation.synthesis =
        synthesis == "partial" ? sa::SynthesisType::kPartial : sa::SynthesisType::kFull;
  }
  if (options.contains("seed")) evaluation.seed = options["seed"].get<std::uint64_t>();
  if (options.contains("threads")) evaluation.threads = options["threads"].get<int>();
  if (options.contains("plots")) evaluation.plots = options["plots"].get<std::string>();
  if (options.contains("baseline_draws"))
    evaluation.baseline_draws = options["baseline_draws"].get<int>();
  if (options.contains("weights")) evaluation.weights = options["weights"].get<std::string>();
  if (options.contains("household")) evaluation.household = options["household"].get<std::string>();
  if (options.contains("by")) evaluation.by = strings(options["by"]);
  if (options.contains("by_min_rows"))
    evaluation.by_min_rows = options["by_min_rows"].get<std::size_t>();
  if (options.contains("policy"))
    evaluation.policy = sa::load_policy(options["policy"].get<std::string>());
}

// Runs the evaluation. Tables are converted while the GIL is held; the evaluation itself runs
// without it, taking the GIL back only to report progress. The progress callback also lets
// Ctrl-C stop a long evaluation between two metric runs.
Document evaluate(const py::list& confidential, const py::list& candidates,
                  const py::object& holdout, const std::string& options_json,
                  const py::object& progress) {
  const nlohmann::json options = nlohmann::json::parse(options_json);
  std::optional<sa::EvaluationSpec> file;
  if (options.contains("spec")) file = sa::load_spec(options["spec"].get<std::string>());

  sa::Evaluation evaluation;
  apply_options(evaluation, file, options);
  evaluation.confidential = table_from(confidential);
  for (const auto& item : candidates) {
    const auto candidate = py::reinterpret_borrow<py::tuple>(item);
    sa::InputCandidate input{candidate[0].cast<std::string>(), {}};
    for (const auto& replicate : candidate[1].cast<py::list>())
      input.replicates.push_back(table_from(replicate.cast<py::list>()));
    evaluation.candidates.push_back(std::move(input));
  }
  if (!holdout.is_none()) evaluation.holdout = table_from(holdout.cast<py::list>());

  const bool report_progress = !progress.is_none();
  const sa::ProgressFn on_progress = [&](const std::string& line) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (report_progress) progress(line);
  };

  py::gil_scoped_release no_gil;
  sa::EvaluationSpec spec = sa::make_spec(evaluation);
  // A spec file's analyses are already parsed (with their names); the call's own replace them.
  if (file && !options.contains("analyses")) {
    spec.context.analyses = file->context.analyses;
    sa::validate_spec(spec);
  }
  const sa::EvaluationData data = sa::make_evaluation_data(std::move(evaluation));
  return Document{sa::audit(spec, data, on_progress)};
}

// The column kinds a spec file fixes: its SDV metadata, overridden by its `columns:`.
std::map<std::string, std::string> spec_column_kinds(const std::string& path) {
  const sa::EvaluationSpec spec = sa::load_spec(path);
  std::map<std::string, std::string> kinds;
  if (!spec.metadata.empty())
    for (const auto& [name, kind] : sa::read_sdv_metadata(spec.metadata))
      kinds[name] = sa::to_string(kind);
  for (const auto& [name, kind] : spec.read.kinds) kinds[name] = sa::to_string(kind);
  return kinds;
}

// The rows of results.tsv as columns: five lists of text and the values as a float64 array
// (NaN where the file has NA).
py::tuple result_columns(const Document& document) {
  const std::vector<sa::ResultRow> rows = sa::result_rows(document.json);
  py::list candidate, replicate, metric, statistic, scope;
  py::array_t<double> value(static_cast<py::ssize_t>(rows.size()));
  double* out = value.mutable_data();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    candidate.append(rows[i].candidate);
    replicate.append(rows[i].replicate);
    metric.append(rows[i].metric);
    statistic.append(rows[i].statistic);
    scope.append(rows[i].scope);
    out[i] = rows[i].value;
  }
  return py::make_tuple(candidate, replicate, metric, statistic, scope, value);
}

}  // namespace

PYBIND11_MODULE(_synthaudit, m) {
  m.doc() = "The compiled core of the synthaudit package (use the synthaudit module instead).";
  m.attr("__version__") = SYNTHAUDIT_VERSION;
  // Bad input: a ValueError carrying the command line's one-line message.
  py::register_exception<sa::InputError>(m, "InputError", PyExc_ValueError);

  py::class_<Document>(m, "Document")
      .def_static(
          "parse",
          [](const std::string& text) {
            nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
            if (json.is_discarded() || !json.is_object() || !json.contains("schema") ||
                json["schema"] != sa::kResultsSchema)
              throw sa::InputError(std::string("not a results document (expected \"schema\": \"") +
                                   sa::kResultsSchema + "\")");
            return Document{std::move(json)};
          })
      .def("text", &document_text)
      .def("result_columns", &result_columns)
      .def("html", [](const Document& d) { return sa::render_html(d.json); })
      .def("markdown", [](const Document& d) { return sa::render_markdown(d.json); })
      .def("summary", [](const Document& d) { return sa::render_summary(d.json, {}); })
      .def("write_json",
           [](const Document& d, const std::string& path) {
             sa::write_file_atomic(path, document_text(d));
           })
      .def("write_tsv",
           [](const Document& d, const std::string& path) {
             sa::write_file_atomic(path, sa::results_tsv(d.json));
           })
      .def("write_html", [](const Document& d, const std::string& path) {
        sa::write_file_atomic(path, sa::render_html(d.json));
      });

  m.def("evaluate", &evaluate, py::arg("confidential"), py::arg("candidates"), py::arg("holdout"),
        py::arg("options_json"), py::arg("progress"));
  m.def("spec_column_kinds", &spec_column_kinds, py::arg("path"));
  m.def("registry_json", [] { return sa::registry_to_json().dump(); });
  m.def("describe_json",
        [](const std::string& name) { return sa::metric_to_json(sa::describe(name)).dump(); });
  m.def("describe_text",
        [](const std::string& name) { return sa::describe_text(sa::describe(name)); });
}
