// synthaudit._synthaudit: the Python package's bridge to the library (include/synthaudit/
// synthaudit.hpp). The pure-Python layer (python/synthaudit/) turns pandas columns into numpy
// arrays (float64 values, or int32 codes with their levels) and options into JSON; this file
// turns those into the library's in-memory tables and options, runs the same evaluation as the
// command line with the GIL released, and hands back the results document. Nothing here names a
// metric.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "synthaudit/synthaudit.hpp"

namespace py = pybind11;
namespace sa = synthaudit;

namespace {

// Prefix of messages about the options of a call without a spec file.
constexpr const char* kOrigin = "synthaudit.evaluate";

// Ctrl-C during an evaluation: Python's signal handler only sets a flag, which the thread that
// runs the evaluation (the interpreter's main thread, GIL released) checks here whenever a long
// step reports progress (core/progress.hpp), so a long step stops within a fraction of a second,
// not at the next metric. The KeyboardInterrupt is kept to be raised once the work has stopped.
class InterruptibleWork : public sa::ProgressSink {
 public:
  void report(const std::string&, std::size_t, std::size_t, double, bool) override {}
  bool stop_requested() override {
    if (stopped_.load()) return true;
    if (std::this_thread::get_id() != caller_) return false;  // signals reach the main thread
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      error_.emplace();  // takes the pending KeyboardInterrupt
      stopped_.store(true);
    }
    return stopped_.load();
  }
  // Raises the interrupt that stopped the work (GIL held).
  [[noreturn]] void raise() {
    if (error_) throw *error_;
    throw py::error_already_set();
  }

 private:
  const std::thread::id caller_ = std::this_thread::get_id();
  std::atomic<bool> stopped_{false};
  std::optional<py::error_already_set> error_;
};

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

// Runs the evaluation. Tables are converted while the GIL is held; the evaluation itself runs
// without it, taking the GIL back only to report progress. The progress callback also lets
// Ctrl-C stop a long evaluation between two metric runs. `options_json` holds the keyword
// arguments given (not None), by their declared names: the library checks and applies them as
// it does a spec file's keys and the command line's flags (spec/options.hpp).
Document evaluate(const py::list& confidential, const py::list& candidates,
                  const py::object& holdout, const std::string& options_json,
                  const py::object& progress) {
  sa::Evaluation evaluation;
  evaluation.origin = kOrigin;
  evaluation.options = nlohmann::json::parse(options_json);
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

  InterruptibleWork work;
  sa::EvaluationSinks sinks;
  sinks.work_progress = &work;
  try {
    py::gil_scoped_release no_gil;
    const sa::EvaluationSpec spec = sa::make_spec(evaluation);
    const sa::EvaluationData data = sa::make_evaluation_data(std::move(evaluation), spec);
    return Document{sa::audit(spec, data, on_progress, sinks)};
  } catch (const sa::WorkStopped&) {
    work.raise();
  }
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
  m.def("options_json", [] { return sa::options_to_json().dump(); });
  m.def("describe_json",
        [](const std::string& name) { return sa::metric_to_json(sa::describe(name)).dump(); });
  m.def("describe_text",
        [](const std::string& name) { return sa::describe_text(sa::describe(name)); });
}
