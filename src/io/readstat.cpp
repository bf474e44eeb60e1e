#include "io/readstat.hpp"

#include <readstat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/worker_threads.hpp"

namespace synthaudit {

namespace {

// ReadStat reads through these handlers from the bytes in memory rather than opening the path
// itself: the file was read once, within the input_bytes bound, by io/file.hpp.
struct MemoryInput {
  std::string_view bytes;
  std::size_t position = 0;
};

int memory_open(const char*, void* io) {
  static_cast<MemoryInput*>(io)->position = 0;
  return 0;
}
int memory_close(void*) { return 0; }
readstat_off_t memory_seek(readstat_off_t offset, readstat_io_flags_t whence, void* io) {
  auto* in = static_cast<MemoryInput*>(io);
  const auto size = static_cast<readstat_off_t>(in->bytes.size());
  readstat_off_t base = 0;
  if (whence == READSTAT_SEEK_CUR) base = static_cast<readstat_off_t>(in->position);
  if (whence == READSTAT_SEEK_END) base = size;
  const readstat_off_t target = base + offset;
  if (target < 0 || target > size) return -1;
  in->position = static_cast<std::size_t>(target);
  return target;
}
ssize_t memory_read(void* buffer, size_t bytes, void* io) {
  auto* in = static_cast<MemoryInput*>(io);
  const std::size_t n = std::min(bytes, in->bytes.size() - in->position);
  // ReadStat asks for zero bytes into a null buffer on some damaged SPSS files (found by
  // fuzz/stat_file_fuzz.cpp); memcpy with a null pointer is undefined even for zero bytes.
  if (n == 0) return 0;
  std::memcpy(buffer, in->bytes.data() + in->position, n);
  in->position += n;
  return static_cast<ssize_t>(n);
}
readstat_error_t memory_update(long, readstat_progress_handler, void*, void*) {
  return READSTAT_OK;
}

// The library's version, from its file name at build time (CMakeLists.txt).
#ifndef SYNTHAUDIT_READSTAT_VERSION
#define SYNTHAUDIT_READSTAT_VERSION ""
#endif
const std::string kReadStatVersion = std::string(SYNTHAUDIT_READSTAT_VERSION).empty()
                                         ? std::string("ReadStat")
                                         : std::string("ReadStat ") + SYNTHAUDIT_READSTAT_VERSION;

enum CellState : std::uint8_t { kValue, kSystemMissing, kTaggedMissing, kDefinedMissing };

struct RawColumn {
  std::string name, label, label_set;
  bool is_string = false;
  bool is_float = false;
  std::vector<CellState> state;
  std::vector<double> number;       // numeric columns
  std::string text;                 // string columns: the values one after another
  std::vector<std::uint64_t> ends;  // string columns: where each value ends in `text`
};

struct ParseState {
  const StatReadOptions* options = nullptr;
  std::vector<RawColumn> columns;
  std::map<std::string, std::map<double, std::string>> number_labels;
  std::map<std::string, std::map<std::string, std::string>> string_labels;
  std::uint64_t held_bytes = 0;
  std::string failure;  // set by a handler that stops the parse
  std::string library_message;
};

std::string limit_message(const char* what, std::uint64_t limit, const char* name) {
  return std::string(what) + " (limit " + name + " " + std::to_string(limit) +
         "; raise it with --limit " + name + "=N)";
}

int on_metadata(readstat_metadata_t* metadata, void* context) {
  auto* state = static_cast<ParseState*>(context);
  const int variables = readstat_get_var_count(metadata);
  if (variables >= 0 && static_cast<std::uint64_t>(variables) > state->options->max_columns) {
    state->failure = limit_message(("has " + std::to_string(variables) + " columns").c_str(),
                                   state->options->max_columns, "columns");
    return READSTAT_HANDLER_ABORT;
  }
  return READSTAT_HANDLER_OK;
}

int on_variable(int index, readstat_variable_t* variable, const char* label_set, void* context) {
  auto* state = static_cast<ParseState*>(context);
  if (static_cast<std::uint64_t>(index) >= state->options->max_columns) {
    state->failure =
        limit_message("has more columns than allowed", state->options->max_columns, "columns");
    return READSTAT_HANDLER_ABORT;
  }
  if (static_cast<std::size_t>(index) != state->columns.size()) {
    state->failure = "variables out of order";
    return READSTAT_HANDLER_ABORT;
  }
  RawColumn column;
  const char* name = readstat_variable_get_name(variable);
  const char* label = readstat_variable_get_label(variable);
  column.name = name ? name : "";
  column.label = label ? label : "";
  column.label_set = label_set ? label_set : "";
  column.is_string = readstat_variable_get_type_class(variable) == READSTAT_TYPE_CLASS_STRING;
  column.is_float = readstat_variable_get_type(variable) == READSTAT_TYPE_FLOAT;
  if (column.name.empty()) {
    state->failure = "column " + std::to_string(index + 1) + " has no name";
    return READSTAT_HANDLER_ABORT;
  }
  state->columns.push_back(std::move(column));
  return READSTAT_HANDLER_OK;
}

int on_value(int row, readstat_variable_t* variable, readstat_value_t value, void* context) {
  auto* state = static_cast<ParseState*>(context);
  const int index = readstat_variable_get_index(variable);
  if (index < 0 || static_cast<std::size_t>(index) >= state->columns.size() ||
      static_cast<std::size_t>(row) !=
          state->columns[static_cast<std::size_t>(index)].state.size()) {
    state->failure = "values out of order at row " + std::to_string(row + 1);
    return READSTAT_HANDLER_ABORT;
  }
  RawColumn& column = state->columns[static_cast<std::size_t>(index)];
  CellState cell = kValue;
  if (readstat_value_is_system_missing(value))
    cell = kSystemMissing;
  else if (readstat_value_is_tagged_missing(value))
    cell = kTaggedMissing;
  else if (readstat_value_is_defined_missing(value, variable))
    cell = kDefinedMissing;
  column.state.push_back(cell);
  std::uint64_t bytes = 1;
  if (column.is_string) {
    const char* text = cell == kValue ? readstat_string_value(value) : nullptr;
    const std::size_t length = text ? std::strlen(text) : 0;
    if (length > state->options->max_field_bytes) {
      state->failure = "row " + std::to_string(row + 1) + ", column '" + column.name + "': " +
                       limit_message("a value is longer than allowed",
                                     state->options->max_field_bytes, "field_bytes");
      return READSTAT_HANDLER_ABORT;
    }
    if (length) column.text.append(text, length);
    column.ends.push_back(column.text.size());
    bytes += length + 8;
  } else {
    double number = 0;
    if (cell == kValue || cell == kDefinedMissing)
      number = column.is_float ? static_cast<double>(readstat_float_value(value))
                               : readstat_double_value(value);
    column.number.push_back(number);
    bytes += 8;
  }
  state->held_bytes += bytes;
  if (state->held_bytes > state->options->max_input_bytes) {
    state->failure = limit_message("its values take more memory than allowed",
                                   state->options->max_input_bytes, "input_bytes");
    return READSTAT_HANDLER_ABORT;
  }
  return READSTAT_HANDLER_OK;
}

int on_value_label(const char* label_set, readstat_value_t value, const char* label,
                   void* context) {
  auto* state = static_cast<ParseState*>(context);
  if (!label_set || !label || readstat_value_is_tagged_missing(value) ||
      readstat_value_is_system_missing(value))
    return READSTAT_HANDLER_OK;
  if (readstat_value_type_class(value) == READSTAT_TYPE_CLASS_STRING) {
    const char* text = readstat_string_value(value);
    if (text) state->string_labels[label_set][text] = label;
  } else {
    state->number_labels[label_set][readstat_double_value(value)] = label;
  }
  return READSTAT_HANDLER_OK;
}

void on_error(const char* message, void* context) {
  auto* state = static_cast<ParseState*>(context);
  if (message && state->library_message.empty()) {
    state->library_message = message;
    while (!state->library_message.empty() &&
           (state->library_message.back() == '\n' || state->library_message.back() == ' '))
      state->library_message.pop_back();
  }
}

// The shortest text that reads back as the same number; a float column's values as floats, so
// that a value stored as 0.1f reads as 0.1, as the program that wrote it displays it.
void append_number(std::string& out, double value, bool is_float) {
  char buffer[64];
  const auto result = is_float
                          ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value))
                          : std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

readstat_error_t run_parser(readstat_parser_t* parser, DataFormat format, void* context) {
  switch (format) {
    case DataFormat::kStata:
      return readstat_parse_dta(parser, "", context);
    case DataFormat::kSpss:
      return readstat_parse_sav(parser, "", context);
    case DataFormat::kSpssPortable:
      return readstat_parse_por(parser, "", context);
    case DataFormat::kSas:
      return readstat_parse_sas7bdat(parser, "", context);
    case DataFormat::kSasTransport:
      return readstat_parse_xport(parser, "", context);
    case DataFormat::kText:
      break;
  }
  return READSTAT_ERROR_PARSE;
}

}  // namespace

StatFile StatFile::parse(std::string_view bytes, DataFormat format, const std::string& path,
                         std::string sha256, const StatReadOptions& options) {
  const std::string where = path + ": " + format_name(format) + " file: ";
  if (format == DataFormat::kText) throw InputError(where + "not a Stata, SPSS or SAS file");
  ParseState state;
  state.options = &options;
  MemoryInput input{bytes, 0};
  readstat_parser_t* parser = readstat_parser_init();
  if (!parser) throw InputError(where + "cannot start ReadStat");
  readstat_set_open_handler(parser, memory_open);
  readstat_set_close_handler(parser, memory_close);
  readstat_set_seek_handler(parser, memory_seek);
  readstat_set_read_handler(parser, memory_read);
  readstat_set_update_handler(parser, memory_update);
  readstat_set_io_ctx(parser, &input);
  readstat_set_metadata_handler(parser, on_metadata);
  readstat_set_variable_handler(parser, on_variable);
  readstat_set_value_handler(parser, on_value);
  readstat_set_value_label_handler(parser, on_value_label);
  readstat_set_error_handler(parser, on_error);
  const readstat_error_t status = run_parser(parser, format, &state);
  readstat_parser_free(parser);
  if (!state.failure.empty()) throw InputError(where + state.failure);
  if (status != READSTAT_OK) {
    std::string detail = readstat_error_message(status);
    if (!state.library_message.empty()) detail += " (" + state.library_message + ")";
    throw InputError(where + "cannot be read: " + detail +
                     "; is it damaged or truncated? (read with " + kReadStatVersion + ")");
  }
  if (state.columns.empty()) throw InputError(where + "has no columns");
  const std::size_t rows = state.columns.front().state.size();
  if (rows == 0) throw InputError(where + "has no data rows");
  for (const auto& column : state.columns)
    if (column.state.size() != rows)
      throw InputError(where + "column '" + column.name + "' has " +
                       std::to_string(column.state.size()) + " values, not " +
                       std::to_string(rows) + " (is the file truncated?)");

  StatFile file;
  file.path_ = path;
  file.sha256_ = std::move(sha256);
  file.format_ = format;
  file.threads_ = resolve_reader_threads(options.threads);
  file.rows_ = rows;
  const std::size_t ncol = state.columns.size();
  file.metadata_.resize(ncol);
  static const std::map<double, std::string> no_number_labels;
  static const std::map<std::string, std::string> no_string_labels;
  std::vector<const std::map<double, std::string>*> number_labels(ncol, &no_number_labels);
  std::vector<const std::map<std::string, std::string>*> string_labels(ncol, &no_string_labels);
  std::vector<std::set<double>> declared(ncol);
  for (std::size_t c = 0; c < ncol; ++c) {
    const RawColumn& column = state.columns[c];
    file.header_.push_back(column.name);
    file.metadata_[c].label = column.label;
    if (options.value_labels == ValueLabels::kLabels && !column.label_set.empty()) {
      if (auto it = state.number_labels.find(column.label_set); it != state.number_labels.end())
        number_labels[c] = &it->second;
      if (auto it = state.string_labels.find(column.label_set); it != state.string_labels.end())
        string_labels[c] = &it->second;
    }
  }
  // A column reads through its labels when a value that is not declared missing has one; a
  // column whose only labels name its missing codes (SPSS's -8 "no income") stays numeric.
  std::vector<char> uses_labels(ncol, 0);
  for (std::size_t c = 0; c < ncol; ++c) {
    const RawColumn& column = state.columns[c];
    for (std::size_t r = 0; r < rows && !uses_labels[c]; ++r) {
      if (column.state[r] != kValue) continue;
      if (column.is_string) {
        if (string_labels[c]->empty()) break;
        const std::size_t begin = r == 0 ? 0 : column.ends[r - 1];
        uses_labels[c] =
            string_labels[c]->count(column.text.substr(begin, column.ends[r] - begin)) > 0;
      } else {
        if (number_labels[c]->empty()) break;
        uses_labels[c] = number_labels[c]->count(column.number[r]) > 0;
      }
    }
  }
  auto text = std::make_shared<std::string>();
  auto start = std::make_shared<std::vector<std::uint64_t>>();
  auto absent = std::make_shared<std::vector<char>>(rows * ncol, 0);
  start->reserve(rows * ncol + 1);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < ncol; ++c) {
      const RawColumn& column = state.columns[c];
      ColumnMetadata& meta = file.metadata_[c];
      start->push_back(text->size());
      const CellState cell = column.state[r];
      const bool labelled = uses_labels[c] != 0;
      bool is_absent = cell == kSystemMissing || cell == kTaggedMissing;
      // A user-missing value of a column read through its labels has no number to become a
      // missing code of a categorical column: it is read as absent, and counted.
      if (cell == kTaggedMissing || (cell == kDefinedMissing && (labelled || column.is_string))) {
        is_absent = true;
        ++meta.declared_missing_absent;
      }
      if (is_absent) {
        (*absent)[r * ncol + c] = 1;
        continue;
      }
      if (column.is_string) {
        const std::size_t begin = r == 0 ? 0 : column.ends[r - 1];
        const std::string value = column.text.substr(begin, column.ends[r] - begin);
        const auto label = string_labels[c]->find(value);
        text->append(label != string_labels[c]->end() ? label->second : value);
      } else {
        const double value = column.number[r];
        if (cell == kDefinedMissing) declared[c].insert(value);
        const auto label = number_labels[c]->find(value);
        if (label != number_labels[c]->end() && cell == kValue)
          text->append(label->second);
        else
          append_number(*text, value, column.is_float);
      }
      if (text->size() > options.max_input_bytes)
        throw InputError(where + limit_message("its values as text take more memory than allowed",
                                               options.max_input_bytes, "input_bytes"));
    }
  }
  start->push_back(text->size());
  for (std::size_t c = 0; c < ncol; ++c)
    file.metadata_[c].declared_missing_codes.assign(declared[c].begin(), declared[c].end());
  file.text_ = std::move(text);
  file.start_ = std::move(start);
  file.absent_ = std::move(absent);
  return file;
}

void StatFile::visit_rows(const RowVisitor& visit) const {
  const std::size_t n = rows_;
  const std::size_t ncol = header_.size();
  const std::size_t workers = std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(threads_), n / 4096 + 1));
  const std::string& text = *text_;
  const auto& start = *start_;
  const auto& absent = *absent_;
  run_on_threads(workers, [&](std::size_t t) {
    const std::size_t begin = n * t / workers;
    const std::size_t end = n * (t + 1) / workers;
    std::vector<std::string_view> fields(ncol);
    for (std::size_t r = begin; r < end; ++r) {
      for (std::size_t c = 0; c < ncol; ++c) {
        const std::size_t k = r * ncol + c;
        fields[c] = absent[k] ? std::string_view()
                              : std::string_view(text.data() + start[k], start[k + 1] - start[k]);
      }
      visit(static_cast<int>(t), r, fields);
    }
  });
}

}  // namespace synthaudit
