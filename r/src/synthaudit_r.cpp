// The R binding: data.frames become the library's in-memory tables (include/synthaudit/
// synthaudit.hpp), the results document comes back as a data.frame with the rows of results.tsv.
// Everything about metrics comes from the registry; nothing here names one.
#include <Rcpp.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "synthaudit/synthaudit.hpp"

namespace {

using synthaudit::InputColumn;
using synthaudit::InputError;
using synthaudit::InputTable;

const char* const kOrigin = "sa_evaluate";

// R strings may be in the native encoding or latin1; the library takes UTF-8.
std::string utf8(SEXP charsxp) { return Rf_translateCharUTF8(charsxp); }

// Codes into levels: a factor's own, or one level per distinct string. R keeps one CHARSXP per
// distinct string, so a character column is coded by pointer without comparing text. Text spelt
// as missing (the option missing_values) is decided by the library, as for every front end.
InputColumn coded_strings(const std::string& name, SEXP strings) {
  const R_xlen_t n = XLENGTH(strings);
  std::vector<std::int32_t> codes(static_cast<std::size_t>(n));
  std::vector<std::string> levels;
  std::unordered_map<SEXP, std::int32_t> level_of;
  for (R_xlen_t row = 0; row < n; ++row) {
    SEXP value = STRING_ELT(strings, row);
    if (value == NA_STRING) {
      codes[row] = -1;
      continue;
    }
    auto [it, added] = level_of.try_emplace(value, -1);
    if (added) {
      it->second = static_cast<std::int32_t>(levels.size());
      levels.push_back(utf8(value));
    }
    codes[row] = it->second;
  }
  return InputColumn::categorical(name, std::move(codes), std::move(levels));
}

InputColumn coded_factor(const std::string& name, SEXP factor, const std::string& where) {
  SEXP level_names = Rf_getAttrib(factor, R_LevelsSymbol);
  const R_xlen_t n_levels = Rf_isString(level_names) ? XLENGTH(level_names) : 0;
  std::vector<std::string> levels;
  std::vector<std::int32_t> code_of(static_cast<std::size_t>(n_levels), -1);
  for (R_xlen_t level = 0; level < n_levels; ++level) {
    SEXP text = STRING_ELT(level_names, level);
    if (text == NA_STRING) continue;
    code_of[level] = static_cast<std::int32_t>(levels.size());
    levels.push_back(utf8(text));
  }
  const R_xlen_t n = XLENGTH(factor);
  const int* values = INTEGER(factor);
  std::vector<std::int32_t> codes(static_cast<std::size_t>(n));
  for (R_xlen_t row = 0; row < n; ++row) {
    const int value = values[row];
    if (value == NA_INTEGER) {
      codes[row] = -1;
    } else if (value < 1 || value > n_levels) {
      // Only a factor built by hand (structure()) can hold such a code.
      throw InputError(where + ", row " + std::to_string(row + 1) + ": code " +
                       std::to_string(value) + " is not one of the factor's " +
                       std::to_string(n_levels) + " levels");
    } else {
      codes[row] = code_of[value - 1];
    }
  }
  return InputColumn::categorical(name, std::move(codes), std::move(levels));
}

InputColumn coded_logical(const std::string& name, SEXP logical) {
  const R_xlen_t n = XLENGTH(logical);
  const int* values = LOGICAL(logical);
  std::vector<std::int32_t> codes(static_cast<std::size_t>(n));
  for (R_xlen_t row = 0; row < n; ++row)
    codes[row] = values[row] == NA_LOGICAL ? -1 : (values[row] ? 1 : 0);
  // As write.csv spells them, so a file and the data.frame it came from agree.
  return InputColumn::categorical(name, std::move(codes), {"FALSE", "TRUE"});
}

InputColumn numeric_column(const std::string& name, SEXP numbers) {
  const R_xlen_t n = XLENGTH(numbers);
  std::vector<double> values(static_cast<std::size_t>(n));
  if (TYPEOF(numbers) == REALSXP) {
    if (n > 0) std::memcpy(values.data(), REAL(numbers), sizeof(double) * n);
  } else {
    const int* integers = INTEGER(numbers);
    for (R_xlen_t row = 0; row < n; ++row)
      values[row] = integers[row] == NA_INTEGER ? std::numeric_limits<double>::quiet_NaN()
                                                : static_cast<double>(integers[row]);
  }
  return InputColumn::numeric(name, std::move(values));
}

std::string class_of(SEXP column) {
  SEXP classes = Rf_getAttrib(column, R_ClassSymbol);
  return Rf_isString(classes) && XLENGTH(classes) > 0 ? utf8(STRING_ELT(classes, 0)) : "";
}

InputTable to_table(SEXP frame, const std::string& label) {
  if (TYPEOF(frame) != VECSXP) throw InputError(label + ": expected a data.frame");
  SEXP names = Rf_getAttrib(frame, R_NamesSymbol);
  const R_xlen_t n_columns = XLENGTH(frame);
  InputTable table;
  table.reserve(static_cast<std::size_t>(n_columns));
  for (R_xlen_t i = 0; i < n_columns; ++i) {
    const std::string name =
        Rf_isString(names) && STRING_ELT(names, i) != NA_STRING ? utf8(STRING_ELT(names, i)) : "";
    if (name.empty())
      throw InputError(label + ": column " + std::to_string(i + 1) + " has no name");
    SEXP column = VECTOR_ELT(frame, i);
    const std::string where = label + ": column '" + name + "'";
    if (Rf_isFactor(column)) {
      table.push_back(coded_factor(name, column, where));
      continue;
    }
    if (Rf_getAttrib(column, R_ClassSymbol) != R_NilValue)
      throw InputError(where + " is of class '" + class_of(column) +
                       "'; give it as a number (as.numeric), text (as.character) or a factor");
    switch (TYPEOF(column)) {
      case REALSXP:
      case INTSXP:
        table.push_back(numeric_column(name, column));
        break;
      case STRSXP:
        table.push_back(coded_strings(name, column));
        break;
      case LGLSXP:
        table.push_back(coded_logical(name, column));
        break;
      default:
        throw InputError(where + " is of type '" + Rf_type2char(TYPEOF(column)) +
                         "'; columns must be numeric, integer, character, logical or factor");
    }
  }
  return table;
}

// R values (params) as JSON: a vector of length one is a scalar, longer ones arrays, named lists
// objects; NA is null.
nlohmann::json to_json(SEXP value, const std::string& where) {
  auto element = [&](R_xlen_t i) -> nlohmann::json {
    switch (TYPEOF(value)) {
      case LGLSXP:
        return LOGICAL(value)[i] == NA_LOGICAL ? nlohmann::json(nullptr)
                                               : nlohmann::json(LOGICAL(value)[i] != 0);
      case INTSXP:
        if (Rf_isFactor(value)) {
          const int code = INTEGER(value)[i];
          if (code == NA_INTEGER) return nullptr;
          return utf8(STRING_ELT(Rf_getAttrib(value, R_LevelsSymbol), code - 1));
        }
        return INTEGER(value)[i] == NA_INTEGER ? nlohmann::json(nullptr)
                                               : nlohmann::json(INTEGER(value)[i]);
      case REALSXP:
        return ISNAN(REAL(value)[i]) ? nlohmann::json(nullptr) : nlohmann::json(REAL(value)[i]);
      case STRSXP:
        return STRING_ELT(value, i) == NA_STRING ? nlohmann::json(nullptr)
                                                 : nlohmann::json(utf8(STRING_ELT(value, i)));
      default:
        throw InputError(where + ": values of type '" + Rf_type2char(TYPEOF(value)) +
                         "' cannot be parameters");
    }
  };
  if (value == R_NilValue) return nullptr;
  if (TYPEOF(value) == VECSXP) {
    SEXP names = Rf_getAttrib(value, R_NamesSymbol);
    if (names == R_NilValue) {
      auto array = nlohmann::json::array();
      for (R_xlen_t i = 0; i < XLENGTH(value); ++i)
        array.push_back(to_json(VECTOR_ELT(value, i), where + "[" + std::to_string(i + 1) + "]"));
      return array;
    }
    auto object = nlohmann::json::object();
    for (R_xlen_t i = 0; i < XLENGTH(value); ++i) {
      const std::string key = utf8(STRING_ELT(names, i));
      if (key.empty())
        throw InputError(where + ": element " + std::to_string(i + 1) + " has no name");
      object[key] = to_json(VECTOR_ELT(value, i), where + "." + key);
    }
    return object;
  }
  if (XLENGTH(value) == 1) return element(0);
  auto array = nlohmann::json::array();
  for (R_xlen_t i = 0; i < XLENGTH(value); ++i) array.push_back(element(i));
  return array;
}

// JSON as R values: objects are named lists, arrays of one scalar type vectors (null is NA),
// other arrays lists.
SEXP to_r(const nlohmann::json& value) {
  using nlohmann::json;
  switch (value.type()) {
    case json::value_t::null:
    case json::value_t::discarded:
      return R_NilValue;
    case json::value_t::boolean:
      return Rf_ScalarLogical(value.get<bool>());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return Rf_ScalarReal(value.get<double>());
    case json::value_t::string:
      return Rcpp::wrap(value.get<std::string>());
    case json::value_t::binary:
      return R_NilValue;
    case json::value_t::object: {
      Rcpp::List list(value.size());
      Rcpp::CharacterVector names(value.size());
      R_xlen_t i = 0;
      for (const auto& item : value.items()) {
        names[i] = Rcpp::String(item.key(), CE_UTF8);
        list[i] = to_r(item.value());
        ++i;
      }
      list.attr("names") = names;
      return list;
    }
    case json::value_t::array:
      break;
  }
  bool all_strings = true, all_numbers = true, all_booleans = true, any_value = false;
  for (const auto& item : value) {
    if (item.is_null()) continue;
    any_value = true;
    all_strings = all_strings && item.is_string();
    all_numbers = all_numbers && item.is_number();
    all_booleans = all_booleans && item.is_boolean();
  }
  const R_xlen_t n = static_cast<R_xlen_t>(value.size());
  if (any_value && all_strings) {
    Rcpp::CharacterVector out(n);
    for (R_xlen_t i = 0; i < n; ++i)
      out[i] = value[i].is_null() ? NA_STRING
                                  : Rf_mkCharCE(value[i].get<std::string>().c_str(), CE_UTF8);
    return out;
  }
  if (any_value && all_numbers) {
    Rcpp::NumericVector out(n);
    for (R_xlen_t i = 0; i < n; ++i) out[i] = value[i].is_null() ? NA_REAL : value[i].get<double>();
    return out;
  }
  if (any_value && all_booleans) {
    Rcpp::LogicalVector out(n);
    for (R_xlen_t i = 0; i < n; ++i)
      out[i] = value[i].is_null() ? NA_LOGICAL : static_cast<int>(value[i].get<bool>());
    return out;
  }
  Rcpp::List out(n);
  for (R_xlen_t i = 0; i < n; ++i) out[i] = to_r(value[i]);
  return out;
}

// The rows of results.tsv, the verdict and every warning of a document.
Rcpp::List results_of(const nlohmann::json& document) {
  const auto rows = synthaudit::result_rows(document);
  const R_xlen_t n = static_cast<R_xlen_t>(rows.size());
  Rcpp::CharacterVector candidate(n), replicate(n), metric(n), statistic(n), scope(n);
  Rcpp::NumericVector value(n);
  for (R_xlen_t i = 0; i < n; ++i) {
    const auto& row = rows[i];
    candidate[i] = Rcpp::String(row.candidate, CE_UTF8);
    replicate[i] = row.replicate;
    metric[i] = row.metric;
    statistic[i] = Rcpp::String(row.statistic, CE_UTF8);
    scope[i] = Rcpp::String(row.scope, CE_UTF8);
    value[i] = std::isnan(row.value) ? NA_REAL : row.value;
  }
  Rcpp::List table =
      Rcpp::List::create(Rcpp::Named("candidate") = candidate, Rcpp::Named("replicate") = replicate,
                         Rcpp::Named("metric") = metric, Rcpp::Named("statistic") = statistic,
                         Rcpp::Named("scope") = scope, Rcpp::Named("value") = value);

  // Warnings about the data first, then each metric's, named by metric, candidate and replicate.
  std::vector<std::string> warnings;
  for (const auto& warning : document.value("warnings", nlohmann::json::array()))
    if (warning.is_string()) warnings.push_back(warning.get<std::string>());
  for (const auto& entry : document.value("metrics", nlohmann::json::array())) {
    const std::string name = entry.value("name", "");
    for (const auto& cand : entry.value("candidates", nlohmann::json::array())) {
      const std::string where = name + ", " + cand.value("name", "");
      for (const auto& rep : cand.value("replicates", nlohmann::json::array()))
        for (const auto& warning : rep.value("warnings", nlohmann::json::array()))
          warnings.push_back(where + " replicate " + std::to_string(rep.value("replicate", 0)) +
                             ": " + warning.get<std::string>());
      if (cand.contains("combined"))
        for (const auto& warning : cand["combined"].value("warnings", nlohmann::json::array()))
          warnings.push_back(where + " (all replicates): " + warning.get<std::string>());
    }
  }
  Rcpp::CharacterVector warning_text(warnings.size());
  for (std::size_t i = 0; i < warnings.size(); ++i)
    warning_text[i] = Rcpp::String(warnings[i], CE_UTF8);

  return Rcpp::List::create(
      Rcpp::Named("table") = table,
      Rcpp::Named("verdict") = to_r(document.value("verdict", nlohmann::json())),
      Rcpp::Named("warnings") = warning_text,
      Rcpp::Named("document") = Rcpp::String(
          document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), CE_UTF8));
}

nlohmann::json parse_document(const std::string& text, const std::string& where) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(where + ": not a JSON results document: " + e.what());
  }
  if (!document.is_object() || document.value("schema", "") != synthaudit::kResultsSchema ||
      !document.contains("metrics") || !document["metrics"].is_array())
    throw InputError(where + ": not a synthaudit results document (schema " +
                     synthaudit::kResultsSchema + ")");
  return document;
}

// Ctrl-C (Esc in RStudio) during an evaluation: R only notes the interrupt, and the thread that
// runs the evaluation (R's main thread) checks for it here whenever a long step reports progress
// (core/progress.hpp) and between two metric runs, so a long step stops within a fraction of a
// second. The check runs R_CheckUserInterrupt inside R_ToplevelExec (Rcpp::checkUserInterrupt),
// which never jumps over C++ frames; the interrupt is signalled to R once the work has stopped.
class InterruptibleWork : public synthaudit::ProgressSink {
 public:
  void report(const std::string&, std::size_t, std::size_t, double, bool) override {}
  bool stop_requested() override {
    if (stopped_.load()) return true;
    if (std::this_thread::get_id() != caller_) return false;  // R may be called from one thread
    try {
      Rcpp::checkUserInterrupt();
    } catch (const Rcpp::internal::InterruptedException&) {
      stopped_.store(true);
    }
    return stopped_.load();
  }

 private:
  const std::thread::id caller_ = std::this_thread::get_id();
  std::atomic<bool> stopped_{false};
};

// The library's bad-input errors become R errors with the same message; anything else is a bug
// and says so.
template <typename Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const InputError& e) {
    Rcpp::stop(e.what());
  } catch (const nlohmann::json::exception& e) {
    Rcpp::stop(std::string("synthaudit internal error: ") + e.what());
  }
}

}  // namespace

// `options`: the arguments given (not NULL), by their declared names; the library checks and
// applies them as it does a spec file's keys and the command line's flags (spec/options.hpp).
// [[Rcpp::export(.sa_evaluate)]]
Rcpp::List sa_evaluate_impl(SEXP confidential, Rcpp::List candidates, SEXP holdout,
                            Rcpp::List options) {
  return guarded([&] {
    synthaudit::Evaluation evaluation;
    evaluation.origin = kOrigin;
    evaluation.options = to_json(options, kOrigin);
    if (!evaluation.options.is_object()) evaluation.options = nlohmann::json::object();
    evaluation.confidential = to_table(confidential, "confidential");
    SEXP candidate_names = Rf_getAttrib(candidates, R_NamesSymbol);
    for (R_xlen_t c = 0; c < candidates.size(); ++c) {
      synthaudit::InputCandidate candidate{utf8(STRING_ELT(candidate_names, c)), {}};
      Rcpp::List replicates(candidates[c]);
      for (R_xlen_t r = 0; r < replicates.size(); ++r)
        candidate.replicates.push_back(
            to_table(replicates[r],
                     "synthetic '" + candidate.name + "' replicate " + std::to_string(r + 1)));
      evaluation.candidates.push_back(std::move(candidate));
    }
    if (holdout != R_NilValue) evaluation.holdout = to_table(holdout, "holdout");
    InterruptibleWork work;
    synthaudit::EvaluationSinks sinks;
    sinks.work_progress = &work;
    const synthaudit::ProgressFn between_runs = [&](const std::string&) {
      synthaudit::stop_if_requested(&work);
    };
    nlohmann::json document;
    try {
      const synthaudit::EvaluationSpec spec = synthaudit::make_spec(evaluation);
      const synthaudit::EvaluationData data =
          synthaudit::make_evaluation_data(std::move(evaluation), spec);
      document = synthaudit::audit(spec, data, between_runs, sinks);
    } catch (const synthaudit::WorkStopped&) {
      // Rcpp's wrapper (END_RCPP) signals it as R's interrupt once this frame is gone.
      throw Rcpp::internal::InterruptedException();
    }
    return results_of(document);
  });
}

// [[Rcpp::export(.sa_options)]]
SEXP sa_options_impl() {
  return guarded([&] { return to_r(synthaudit::options_to_json()); });
}

// [[Rcpp::export(.sa_read_results)]]
Rcpp::List sa_read_results_impl(std::string path) {
  return guarded([&] {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read");
    std::stringstream text;
    text << in.rdbuf();
    return results_of(parse_document(text.str(), path));
  });
}

// [[Rcpp::export(.sa_render)]]
std::string sa_render_impl(std::string document_text, std::string format) {
  return guarded([&] {
    const nlohmann::json document = parse_document(document_text, "sa_report");
    return format == "md" ? synthaudit::render_markdown(document)
                          : synthaudit::render_html(document);
  });
}

// [[Rcpp::export(.sa_write_file)]]
void sa_write_file_impl(std::string path, std::string content) {
  guarded([&] { synthaudit::write_file_atomic(path, content); });
}

// [[Rcpp::export(.sa_registry)]]
SEXP sa_registry_impl() {
  return guarded([&] { return to_r(synthaudit::registry_to_json()); });
}

// [[Rcpp::export(.sa_describe)]]
Rcpp::List sa_describe_impl(std::string name) {
  return guarded([&] {
    const synthaudit::MetricSpec& metric = synthaudit::describe(name);
    return Rcpp::List::create(Rcpp::Named("declaration") = to_r(synthaudit::metric_to_json(metric)),
                              Rcpp::Named("text") = synthaudit::describe_text(metric));
  });
}
