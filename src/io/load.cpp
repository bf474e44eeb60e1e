#include "io/load.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/worker_threads.hpp"
#include "io/file.hpp"
#include "io/format.hpp"
#include "io/level_index.hpp"
#include "io/number_text.hpp"

namespace synthaudit {

namespace {

// The missing-value spellings, checked once per field: a mask per first byte of the lengths of
// the spellings that start with it rejects nearly every field with one load ("no" has the length
// of "NA" and the first byte of "null", but no spelling starts with 'n' and has two bytes).
class MissingSpellings {
 public:
  explicit MissingSpellings(const std::vector<std::string>& spellings) : spellings_(spellings) {
    for (const auto& s : spellings_) {
      if (s.empty())
        has_empty_ = true;
      else if (s.size() < 64)
        lengths_by_first_byte_[static_cast<unsigned char>(s[0])] |= std::uint64_t{1} << s.size();
      else
        has_long_ = true;
    }
  }
  bool contains(std::string_view field) const {
    if (field.empty()) return has_empty_;
    if (field.size() < 64) {
      if (((lengths_by_first_byte_[static_cast<unsigned char>(field[0])] >> field.size()) & 1) == 0)
        return false;
    } else if (!has_long_) {
      return false;
    }
    for (const auto& s : spellings_)
      if (field == s) return true;
    return false;
  }

 private:
  std::vector<std::string> spellings_;
  std::array<std::uint64_t, 256> lengths_by_first_byte_{};
  bool has_empty_ = false, has_long_ = false;
};

// The same, for a number written with a decimal comma ("3,14"): a field with a '.' is not one.
bool parse_number_decimal_comma(std::string_view field, double& value) {
  if (field.find('.') != std::string_view::npos) return false;
  char buffer[64];
  if (field.size() > sizeof buffer) {
    std::string copy(field);
    std::replace(copy.begin(), copy.end(), ',', '.');
    return parse_number_field(copy, value);
  }
  std::copy(field.begin(), field.end(), buffer);
  std::replace(buffer, buffer + field.size(), ',', '.');
  return parse_number_field(std::string_view(buffer, field.size()), value);
}

// A field as a number in the decimal mark of its file. The mark is fixed per file, so the branch
// is the same for every field and the '.' path stays what it was. The fast path writes `value`
// itself, the exact parsers a local of their own: `value` never has its address taken, so the
// decoder keeps it in a register instead of a stack slot the store of each number waits on.
inline bool parse_number(std::string_view field, double& value, bool decimal_comma) {
  if (!decimal_comma && parse_plain_decimal(field, value)) return true;
  double parsed;
  if (!(decimal_comma ? parse_number_decimal_comma(field, parsed)
                      : parse_number_exact(field, parsed)))
    return false;
  value = parsed;
  return true;
}

void check_setting_columns(const DataFile& file, const ReadSettings& settings) {
  const auto& header = file.header();
  auto check = [&](const std::string& name, const char* key) {
    if (std::find(header.begin(), header.end(), name) == header.end())
      throw InputError(settings.origin + ": " + key + "." + name + ": " + file.path() +
                       " has no column '" + name + "'" + did_you_mean(name, header));
  };
  for (const auto& [name, kind] : settings.kinds) check(name, "columns");
  for (const auto& [name, codes] : settings.missing_codes) check(name, "missing_codes");
  for (const auto& [name, codes] : settings.missing_text_codes) check(name, "missing_codes");
}

// A column's text codes (missing_text_codes), by the file's column order.
std::vector<std::vector<std::string>> text_codes_by_column(const std::vector<std::string>& names,
                                                           const ReadSettings& settings) {
  std::vector<std::vector<std::string>> out(names.size());
  for (std::size_t c = 0; c < names.size(); ++c)
    if (auto it = settings.missing_text_codes.find(names[c]);
        it != settings.missing_text_codes.end())
      out[c] = it->second;
  return out;
}

bool is_text_code(const std::vector<std::string>& codes, std::string_view field) {
  return std::find(codes.begin(), codes.end(), field) != codes.end();
}

// The numbers of `file` the file itself declares missing (SPSS user-missing values) join the
// column's missing codes.
std::vector<double> with_declared_codes(std::vector<double> codes, const DataFile& file,
                                        std::size_t column) {
  if (file.metadata().empty()) return codes;
  for (double code : file.metadata()[column].declared_missing_codes)
    if (std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
  return codes;
}

// The schema entry of `file`'s column `c` (kind from the user, or `inferred_kind`).
Schema::Entry schema_entry(const DataFile& file, const ReadSettings& settings, std::size_t c,
                           std::vector<std::string> text_codes, ColumnKind inferred_kind) {
  Schema::Entry entry;
  entry.name = file.header()[c];
  if (auto it = settings.kinds.find(entry.name); it != settings.kinds.end()) {
    entry.kind = it->second;
    entry.inferred = false;
  } else {
    entry.kind = inferred_kind;
    entry.inferred = true;
  }
  std::vector<double> codes;
  if (auto it = settings.missing_codes.find(entry.name); it != settings.missing_codes.end())
    codes = it->second;
  entry.missing_codes = with_declared_codes(std::move(codes), file, c);
  entry.missing_text_codes = std::move(text_codes);
  if (entry.missing_codes.size() + entry.missing_text_codes.size() > 255)
    throw InputError(settings.origin + ": missing_codes." + entry.name +
                     ": at most 255 codes per column");
  if (!file.metadata().empty()) entry.label = file.metadata()[c].label;
  return entry;
}

// `count` copies of `value` in `storage` (empty before), its pages mapped by one call first:
// a column of 1M rows is 2,000 pages, which faulting in one by one while filling costs more
// than the fill itself. Where the kernel cannot, the fill faults them in.
template <typename T>
void assign_mapped(std::vector<T>& storage, std::size_t count, T value) {
  storage.reserve(count);
#ifdef MADV_POPULATE_WRITE
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(storage.data());
  const auto from = (begin + page - 1) / page * page;
  const auto to = (begin + count * sizeof(T)) / page * page;
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
#endif
  storage.assign(count, value);
}

// How a column is decoded.
enum class Decoding : std::uint8_t {
  kNumeric,      // every value must be a number
  kCategorical,  // levels
  // Numeric until a field is not a number, then categorical (infer_and_encode): the kind
  // infer_schema would give, decided in the same pass.
  kInferred,
};

// Decodes `file` into columns with the names, missing codes and dictionaries of `schema`, whose
// column c is the file's column source[c]. Columns decoded as kInferred get their kind (and an
// empty dictionary when categorical) in `schema`. Counts what was read as missing by a code into
// hits[c][k] (numeric codes, then text codes).
//
// One pass over the rows on the file's threads. An inferred column is numeric in a thread until
// it meets a field that is not a number; from then on that thread interns its fields. It ends
// categorical when any thread saw such a field; a thread that had stored numbers in it by then
// (the numbers were read before the text) cannot tell their spelling from the parsed value, so
// such a column is decoded again from its text in a second pass over the rows. Each thread first
// codes against its own LevelIndex, merged into the shared dictionary in row order afterwards:
// no lock per field, and the same dictionary (and the same errors) as one thread would give.
std::vector<Column> decode_columns(const DataFile& file, Schema& schema,
                                   const std::vector<std::size_t>& source,
                                   const std::vector<Decoding>& decoding,
                                   const ReadSettings& settings,
                                   std::vector<std::vector<std::uint64_t>>& hits) {
  const std::size_t ncol = schema.columns.size();
  const std::size_t rows = file.rows();
  const auto threads = static_cast<std::size_t>(file.threads());
  const MissingSpellings missing(settings.missing_values);
  const bool decimal_comma = file.decimal_mark() == ',';
  constexpr auto kNoRow = std::numeric_limits<std::size_t>::max();

  std::vector<Column> columns(ncol);
  for (std::size_t c = 0; c < ncol; ++c) columns[c].name = schema.columns[c].name;
  // A column's storage of each kind is allocated (and filled with missing values) once, by the
  // first thread that needs it; a column takes only the storage of its kind unless a thread's
  // first row misleads the guess below.
  auto numeric_once = std::make_unique<std::once_flag[]>(ncol);
  auto codes_once = std::make_unique<std::once_flag[]>(ncol);
  auto allocate_numeric = [&](std::size_t c) {
    assign_mapped(columns[c].numeric, rows, std::numeric_limits<double>::quiet_NaN());
    if (!schema.columns[c].missing_codes.empty())
      assign_mapped(columns[c].missing_code_index, rows, std::uint8_t{0});
  };
  auto allocate_codes = [&](std::size_t c) { assign_mapped(columns[c].codes, rows, kMissingCode); };

  // What the visitor reads per column, in one place.
  struct ColumnPlan {
    std::size_t field;  // in the file's row
    const std::vector<double>* missing_codes;
    const std::vector<std::string>* text_codes;
  };
  std::vector<ColumnPlan> plans(ncol);
  for (std::size_t c = 0; c < ncol; ++c)
    plans[c] = {source[c], &schema.columns[c].missing_codes, &schema.columns[c].missing_text_codes};

  // One thread's view of one column.
  struct ColumnState {
    Decoding decoding = Decoding::kNumeric;  // kInferred: still numeric in this thread
    bool stored_number = false;              // a kInferred column stored a number
    double* numbers = nullptr;               // the column's storage, once this thread needs it
    std::uint8_t* code_index = nullptr;
    std::uint32_t* codes = nullptr;
    LevelIndex levels;
    std::vector<std::uint64_t> hits;
  };
  struct ThreadState {
    std::size_t first_row = kNoRow;
    std::vector<ColumnState> columns;
    std::vector<LevelIndex::Probe> probes;  // a batch's hashes of one categorical column
  };
  // From this many levels (a table of 16 KiB and more) a column's slot and key are fetched
  // kAhead rows before its lookup.
  constexpr std::size_t kLargeLevels = 1024;
  constexpr std::size_t kAhead = 8;
  std::vector<ThreadState> state(threads);
  for (auto& s : state) {
    s.columns.resize(ncol);
    for (std::size_t c = 0; c < ncol; ++c) {
      s.columns[c].decoding = decoding[c];
      s.columns[c].hits.assign(plans[c].missing_codes->size() + plans[c].text_codes->size(), 0);
    }
  }
  auto numbers_of = [&](std::size_t c, ColumnState& cs) {
    std::call_once(numeric_once[c], allocate_numeric, c);
    cs.numbers = columns[c].numeric.data();
    cs.code_index = columns[c].missing_code_index.data();
  };
  auto codes_of = [&](std::size_t c, ColumnState& cs) {
    std::call_once(codes_once[c], allocate_codes, c);
    cs.codes = columns[c].codes.data();
  };
  // At its first row, thread t allocates the columns c with c % threads == t, of the kind the
  // column has or, when inferred, of the kind of this row's field (none when it is missing), so
  // that the threads fill the columns side by side instead of one waiting on the other's
  // allocation. Only where storage goes depends on this, never a value.
  auto allocate_share = [&](std::size_t t, const DataFile::RowBatch& batch) {
    for (std::size_t c = t; c < ncol; c += threads) {
      Decoding kind = decoding[c];
      if (kind == Decoding::kInferred) {
        const std::string_view field = batch.field(0, plans[c].field);
        if (is_absent(field) || missing.contains(field)) continue;
        double value;
        kind =
            parse_number(field, value, decimal_comma) ? Decoding::kNumeric : Decoding::kCategorical;
      }
      if (kind == Decoding::kNumeric)
        std::call_once(numeric_once[c], allocate_numeric, c);
      else
        std::call_once(codes_once[c], allocate_codes, c);
    }
  };

  // Column c of a batch's rows, in row order. `row` is the row being decoded, so that a caller
  // catching what this throws knows where it came from. Two loops: one while the column is
  // numeric in this thread, one once it is categorical (from the row that made it so), each
  // with what it needs in registers.
  auto decode_batch_column = [&](ThreadState& s, std::size_t c, const DataFile::RowBatch& batch,
                                 std::size_t& row) {
    const ColumnPlan& plan = plans[c];
    ColumnState& cs = s.columns[c];
    const std::vector<double>& codes = *plan.missing_codes;
    const std::vector<std::string>& text_codes = *plan.text_codes;
    const bool has_codes = !codes.empty(), has_text_codes = !text_codes.empty();
    const std::size_t n = batch.rows, field_index = plan.field;
    // Missing by spelling or by a text code (counted): nothing to store.
    auto skipped = [&](std::string_view field) {
      if (is_absent(field) || missing.contains(field)) return true;
      if (has_text_codes) {
        if (auto it = std::find(text_codes.begin(), text_codes.end(), field);
            it != text_codes.end()) {
          ++cs.hits[codes.size() + static_cast<std::size_t>(it - text_codes.begin())];
          return true;
        }
      }
      return false;
    };
    std::size_t r = 0;
    if (cs.decoding != Decoding::kCategorical) {
      double* numbers = cs.numbers;
      bool stored = false;
      for (; r < n; ++r) {
        const std::string_view field = batch.field(r, field_index);
        if (skipped(field)) continue;
        double value;
        if (!parse_number(field, value, decimal_comma)) {
          row = batch.first_row + r;
          if (cs.decoding == Decoding::kNumeric)
            throw InputError(
                file.path() + ": row " + std::to_string(row + 1) + ", column '" + columns[c].name +
                "': '" + std::string(field.substr(0, 60)) +
                "' is not a number (the column is numeric" +
                (!decimal_comma && looks_like_decimal_comma_number(field)
                     ? "; if the file writes decimals with a comma, give --decimal , or read: "
                       "decimal: \",\" in the spec)"
                     : ")"));
          // Not a number in an inferred column: categorical from this row on.
          cs.decoding = Decoding::kCategorical;
          break;
        }
        if (numbers == nullptr) {
          numbers_of(c, cs);
          numbers = cs.numbers;
        }
        if (has_codes) {
          if (auto it = std::find(codes.begin(), codes.end(), value); it != codes.end()) {
            const auto k = static_cast<std::size_t>(it - codes.begin());
            cs.code_index[batch.first_row + r] = static_cast<std::uint8_t>(k + 1);
            ++cs.hits[k];
            continue;
          }
        }
        numbers[batch.first_row + r] = value;
        stored = true;
      }
      cs.stored_number = cs.stored_number || stored;
      if (r == n) return;
    }
    // The hashes of the rest of the batch first, in a loop of their own: no lookup waits on its
    // hash, and a large table's slots are fetched a few rows ahead of their lookups.
    if (s.probes.size() < n) s.probes.resize(n);
    LevelIndex::Probe* probes = s.probes.data();
    for (std::size_t k = r; k < n; ++k) {
      const std::string_view field = batch.field(k, field_index);
      probes[k] = is_absent(field) ? LevelIndex::Probe() : LevelIndex::hash(field);
    }
    LevelIndex& levels = cs.levels;
    const bool ahead = levels.size() >= kLargeLevels;
    if (ahead)
      for (std::size_t k = r; k < std::min(n, r + kAhead); ++k) levels.prefetch(probes[k]);
    if (cs.codes == nullptr) codes_of(c, cs);
    std::uint32_t* out = cs.codes;
    for (; r < n; ++r) {
      if (ahead && r + kAhead < n) levels.prefetch(probes[r + kAhead]);
      const std::string_view field = batch.field(r, field_index);
      if (skipped(field)) continue;
      if (has_codes) {
        // A number that is a missing code is missing in a categorical column too.
        double value;
        if (parse_number(field, value, decimal_comma)) {
          if (auto it = std::find(codes.begin(), codes.end(), value); it != codes.end()) {
            ++cs.hits[static_cast<std::size_t>(it - codes.begin())];
            continue;
          }
        }
      }
      bool added = false;
      out[batch.first_row + r] = levels.intern(field, added, probes[r]);
      // Each new level is checked once: results.json and the report need UTF-8 text.
      if (added && !valid_utf8(field)) {
        row = batch.first_row + r;
        throw InputError(file.path() + ": row " + std::to_string(row + 1) + ", column '" +
                         columns[c].name +
                         "': the value is not valid UTF-8 (if the file is Latin-1 or "
                         "Windows-1252, give --encoding latin1, or read: encoding: latin1 "
                         "in the spec)");
      }
    }
  };

  auto visit = [&](const std::vector<std::size_t>& visited) {
    file.visit_row_batches([&](int t, const DataFile::RowBatch& batch) {
      ThreadState& s = state[static_cast<std::size_t>(t)];
      if (s.first_row > batch.first_row) {
        if (s.first_row == kNoRow) allocate_share(static_cast<std::size_t>(t), batch);
        s.first_row = batch.first_row;
      }
      // Column by column over the batch; what is thrown is what row by row would have thrown
      // first: the failure of the lowest row, of the first column visited in that row. Columns
      // do not depend on each other, so each column's own first failure is the same either way.
      std::exception_ptr failure;
      std::size_t failed_row = kNoRow;
      for (const std::size_t c : visited) {
        std::size_t row = batch.first_row;
        try {
          decode_batch_column(s, c, batch, row);
        } catch (...) {
          if (row < failed_row) {
            failure = std::current_exception();
            failed_row = row;
          }
        }
      }
      if (failure) std::rethrow_exception(failure);
    });
  };
  std::vector<std::size_t> all(ncol);
  for (std::size_t c = 0; c < ncol; ++c) all[c] = c;
  visit(all);

  std::vector<std::size_t> again;
  for (std::size_t c = 0; c < ncol; ++c) {
    Schema::Entry& entry = schema.columns[c];
    if (decoding[c] != Decoding::kInferred) {
      // Allocated by a thread's first row, or here when no thread visited a row.
      if (decoding[c] == Decoding::kNumeric && columns[c].numeric.empty()) allocate_numeric(c);
      if (decoding[c] == Decoding::kCategorical && columns[c].codes.empty()) allocate_codes(c);
      continue;
    }
    bool categorical = false, stored_number = false;
    for (const auto& s : state) {
      categorical = categorical || s.columns[c].decoding == Decoding::kCategorical;
      stored_number = stored_number || s.columns[c].stored_number;
    }
    entry.kind = categorical ? ColumnKind::kCategorical : ColumnKind::kNumeric;
    if (!categorical) {
      // Codes allocated on a first row's guess are not the column's.
      std::vector<std::uint32_t>().swap(columns[c].codes);
      if (columns[c].numeric.empty()) allocate_numeric(c);
      continue;
    }
    entry.dictionary = std::make_shared<Dictionary>();
    std::vector<double>().swap(columns[c].numeric);
    std::vector<std::uint8_t>().swap(columns[c].missing_code_index);
    if (columns[c].codes.empty()) allocate_codes(c);
    if (!stored_number) continue;
    again.push_back(c);
    std::fill(columns[c].codes.begin(), columns[c].codes.end(), kMissingCode);
    for (auto& s : state) {
      ColumnState& cs = s.columns[c];
      cs.levels = LevelIndex();
      std::fill(cs.hits.begin(), cs.hits.end(), 0);
      cs.decoding = Decoding::kCategorical;
      cs.numbers = nullptr;
      cs.code_index = nullptr;
      cs.codes = columns[c].codes.data();
    }
  }
  if (!again.empty()) visit(again);

  // Each thread's codes to shared codes, over the rows that thread visited, in row order.
  std::vector<std::size_t> order(threads);
  for (std::size_t t = 0; t < threads; ++t) order[t] = t;
  std::sort(order.begin(), order.end(),
            [&](auto a, auto b) { return state[a].first_row < state[b].first_row; });
  auto merge_column = [&](std::size_t c) {
    Column& column = columns[c];
    column.kind = schema.columns[c].kind;
    if (!column.is_categorical()) {
      if (!schema.columns[c].missing_codes.empty())
        column.missing_codes = schema.columns[c].missing_codes;
      return;
    }
    column.dictionary = schema.columns[c].dictionary;
    for (std::size_t k = 0; k < threads; ++k) {
      const ThreadState& s = state[order[k]];
      if (s.first_row == kNoRow) continue;
      const LevelIndex& levels = s.columns[c].levels;
      std::vector<std::uint32_t> translate(levels.size());
      bool identity = true;
      for (std::uint32_t code = 0; code < levels.size(); ++code) {
        translate[code] = column.dictionary->intern(levels.level(code));
        identity = identity && translate[code] == code;
      }
      // The first thread's levels into a dictionary that was empty keep their codes.
      if (identity) continue;
      const std::size_t end = k + 1 < threads && state[order[k + 1]].first_row != kNoRow
                                  ? state[order[k + 1]].first_row
                                  : rows;
      auto& codes = column.codes;
      for (std::size_t r = s.first_row; r < end; ++r)
        if (codes[r] != kMissingCode) codes[r] = translate[codes[r]];
    }
  };
  // Columns are merged on the file's threads when no two share a dictionary (they never do in
  // a schema built here; a caller's schema could), each column by one thread in row order.
  std::vector<const Dictionary*> dictionaries;
  for (std::size_t c = 0; c < ncol; ++c)
    if (schema.columns[c].kind == ColumnKind::kCategorical)
      dictionaries.push_back(schema.columns[c].dictionary.get());
  std::sort(dictionaries.begin(), dictionaries.end());
  const bool distinct =
      std::adjacent_find(dictionaries.begin(), dictionaries.end()) == dictionaries.end();
  const std::size_t mergers = distinct ? std::min(threads, dictionaries.size()) : 1;
  run_items_on_threads(ncol, mergers, merge_column);
  hits.assign(ncol, {});
  for (std::size_t c = 0; c < ncol; ++c) {
    hits[c].assign(state.front().columns[c].hits.size(), 0);
    for (const auto& s : state)
      for (std::size_t k = 0; k < hits[c].size(); ++k) hits[c][k] += s.columns[c].hits[k];
  }
  return columns;
}

// What `file` had read as missing by a code or by its own declaration, per column.
void append_tallies(const DataFile& file, const Schema& schema,
                    const std::vector<std::size_t>& source,
                    const std::vector<std::vector<std::uint64_t>>& hits,
                    std::vector<MissingTally>& tallies) {
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    const auto& entry = schema.columns[c];
    MissingTally tally;
    tally.column = entry.name;
    for (std::size_t k = 0; k < hits[c].size(); ++k) {
      if (hits[c][k] == 0) continue;
      tally.codes.emplace_back(k < entry.missing_codes.size()
                                   ? format_number(entry.missing_codes[k])
                                   : entry.missing_text_codes[k - entry.missing_codes.size()],
                               hits[c][k]);
    }
    if (!file.metadata().empty())
      tally.declared_in_file = file.metadata()[source[c]].declared_missing_absent;
    if (!tally.codes.empty() || tally.declared_in_file > 0) tallies.push_back(std::move(tally));
  }
}

}  // namespace

Schema infer_schema(const DataFile& file, const ReadSettings& settings) {
  check_setting_columns(file, settings);
  const std::size_t ncol = file.columns();
  const auto text_codes = text_codes_by_column(file.header(), settings);
  // numeric_ok[t][c]: thread t saw only numbers or missing values in column c.
  std::vector<std::vector<char>> numeric_ok(static_cast<std::size_t>(file.threads()),
                                            std::vector<char>(ncol, 1));
  const MissingSpellings missing(settings.missing_values);
  const bool decimal_comma = file.decimal_mark() == ',';
  file.visit_rows([&](int t, std::size_t, const std::vector<std::string_view>& fields) {
    auto& ok = numeric_ok[static_cast<std::size_t>(t)];
    double value;
    for (std::size_t c = 0; c < ncol; ++c) {
      if (!ok[c]) continue;
      if (is_absent(fields[c]) || missing.contains(fields[c])) continue;
      if (!text_codes[c].empty() && is_text_code(text_codes[c], fields[c])) continue;
      if (!parse_number(fields[c], value, decimal_comma)) ok[c] = 0;
    }
  });
  Schema schema;
  for (std::size_t c = 0; c < ncol; ++c) {
    bool all_numeric = true;
    for (const auto& ok : numeric_ok) all_numeric = all_numeric && ok[c];
    Schema::Entry entry =
        schema_entry(file, settings, c, text_codes[c],
                     all_numeric ? ColumnKind::kNumeric : ColumnKind::kCategorical);
    if (entry.kind == ColumnKind::kCategorical) entry.dictionary = std::make_shared<Dictionary>();
    schema.columns.push_back(std::move(entry));
  }
  return schema;
}

Table encode_table(const DataFile& file, const Schema& schema, const ReadSettings& settings,
                   const std::string& role, std::vector<std::string>* ignored,
                   std::vector<MissingTally>* tallies) {
  const auto& header = file.header();
  const std::size_t ncol = schema.columns.size();
  // By name through a hash map: matching stays linear for very wide files.
  std::unordered_map<std::string_view, std::size_t> file_column;
  file_column.reserve(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) file_column.emplace(header[i], i);
  std::vector<std::size_t> source(ncol);  // schema column -> file column
  std::vector<char> used(header.size(), 0);
  for (std::size_t c = 0; c < ncol; ++c) {
    const auto& name = schema.columns[c].name;
    const auto it = file_column.find(name);
    if (it == file_column.end())
      throw InputError(file.path() + ": column '" + name + "' of the confidential data is missing" +
                       did_you_mean(name, header));
    source[c] = it->second;
    used[it->second] = 1;
  }
  if (ignored) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (!used[i]) ignored->push_back(header[i]);
  }
  std::vector<Decoding> decoding(ncol);
  for (std::size_t c = 0; c < ncol; ++c)
    decoding[c] = schema.columns[c].kind == ColumnKind::kNumeric ? Decoding::kNumeric
                                                                 : Decoding::kCategorical;
  // A copy of the entries: it shares their dictionaries, and no kind is inferred.
  Schema fixed = schema;
  std::vector<std::vector<std::uint64_t>> hits;
  std::vector<Column> columns = decode_columns(file, fixed, source, decoding, settings, hits);
  if (tallies) append_tallies(file, schema, source, hits, *tallies);
  return Table(TableSource{file.path(), file.sha256(), role}, std::move(columns));
}

InferredTable infer_and_encode(const DataFile& file, const ReadSettings& settings,
                               const std::string& role, std::vector<MissingTally>* tallies) {
  check_setting_columns(file, settings);
  const std::size_t ncol = file.columns();
  const auto text_codes = text_codes_by_column(file.header(), settings);
  InferredTable out;
  std::vector<Decoding> decoding(ncol);
  for (std::size_t c = 0; c < ncol; ++c) {
    Schema::Entry entry = schema_entry(file, settings, c, text_codes[c], ColumnKind::kNumeric);
    decoding[c] = entry.inferred                           ? Decoding::kInferred
                  : entry.kind == ColumnKind::kCategorical ? Decoding::kCategorical
                                                           : Decoding::kNumeric;
    if (entry.kind == ColumnKind::kCategorical) entry.dictionary = std::make_shared<Dictionary>();
    out.schema.columns.push_back(std::move(entry));
  }
  // As encode_table matches columns by name: the first of the file's columns with the name.
  std::unordered_map<std::string_view, std::size_t> file_column;
  for (std::size_t i = 0; i < ncol; ++i) file_column.emplace(file.header()[i], i);
  std::vector<std::size_t> source(ncol);
  for (std::size_t c = 0; c < ncol; ++c) source[c] = file_column.at(file.header()[c]);
  std::vector<std::vector<std::uint64_t>> hits;
  std::vector<Column> columns = decode_columns(file, out.schema, source, decoding, settings, hits);
  if (tallies) append_tallies(file, out.schema, source, hits, *tallies);
  out.table = Table(TableSource{file.path(), file.sha256(), role}, std::move(columns));
  return out;
}

std::unique_ptr<DataFile> open_data_file(const std::string& path, const ReadSettings& settings) {
  const CsvOptions& options = settings.csv;
  // The fingerprint is hashed on a second thread while the file is read and, for delimited text,
  // while its structure is checked.
  HashedInput input =
      read_input_file_hashed(path, options.max_input_bytes, options.pipe_wait_seconds);
  const std::string_view stored = input.bytes.view();
  std::string inflated;
  std::string digest;
  if (is_gzip(stored)) {
    digest = input.sha256.get();
    inflated = gunzip(stored, path, options.max_input_bytes, options.memory_budget);
  }
  const std::string_view content = digest.empty() ? stored : std::string_view(inflated);
  const DataFormat format = detect_data_format(content.substr(0, 4096), path);
  if (format == DataFormat::kText) {
    if (digest.empty())
      return std::make_unique<CsvFile>(CsvFile::from_input(std::move(input), path, options));
    input.bytes = ByteBuffer();
    return std::make_unique<CsvFile>(
        CsvFile::from_bytes(std::move(inflated), path, options, std::move(digest)));
  }
  if (digest.empty()) digest = input.sha256.get();
  StatReadOptions stat;
  stat.value_labels = settings.value_labels;
  stat.threads = options.threads;
  stat.max_input_bytes = options.max_input_bytes;
  stat.max_field_bytes = options.max_field_bytes;
  stat.max_columns = options.max_columns;
  return std::make_unique<StatFile>(
      StatFile::parse(content, format, path, std::move(digest), stat));
}

std::vector<std::string> decimal_comma_warnings(const Schema& schema, const DataFile& file) {
  std::vector<std::string> warnings;
  if (file.decimal_mark() == ',') return warnings;
  for (const auto& entry : schema.columns) {
    if (entry.kind != ColumnKind::kCategorical || !entry.inferred || !entry.dictionary) continue;
    std::size_t numeric_looking = 0;
    const Dictionary& levels = *entry.dictionary;
    for (std::uint32_t code = 0; code < levels.size(); ++code)
      if (looks_like_decimal_comma_number(levels.level(code))) ++numeric_looking;
    if (numeric_looking > kDecimalCommaLevelsWarning)
      warnings.push_back(file.path() + ": column '" + entry.name +
                         "' is read as categorical, but " + std::to_string(numeric_looking) +
                         " of its " + std::to_string(levels.size()) +
                         " levels are numbers with a decimal comma; if the file writes decimals "
                         "with a comma, give --decimal , (or read: decimal: \",\" in the spec)");
  }
  return warnings;
}

void finalize_dictionaries(Schema& schema, const std::vector<Table*>& tables) {
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    auto& entry = schema.columns[c];
    if (entry.kind != ColumnKind::kCategorical) continue;
    const auto remap = entry.dictionary->finalize();
    for (Table* table : tables) {
      auto& codes = table->column(c).codes;
      for (auto& code : codes)
        if (code != kMissingCode) code = remap[code];
    }
  }
}

std::map<std::string, ColumnKind> read_sdv_metadata(const std::string& path,
                                                    const ResourceLimits& limits) {
  const nlohmann::json meta = parse_json_bounded(
      read_input_file(path, limits.input_bytes, limits.pipe_wait_seconds), path, limits.json_depth);
  // SDV single-table metadata has "columns" at the top; multi-table has tables.<name>.columns.
  const nlohmann::json* columns = nullptr;
  if (meta.contains("columns")) {
    columns = &meta["columns"];
  } else if (meta.contains("tables") && meta["tables"].is_object() && meta["tables"].size() == 1) {
    columns = &meta["tables"].begin().value()["columns"];
  }
  if (columns == nullptr || !columns->is_object())
    throw InputError(path + ": expected an object \"columns\" (SDV metadata)");
  std::map<std::string, ColumnKind> kinds;
  for (const auto& [name, column] : columns->items()) {
    if (!column.is_object() || !column.contains("sdtype") || !column["sdtype"].is_string())
      throw InputError(path + ": columns." + name + " has no string \"sdtype\"");
    const auto sdtype = column["sdtype"].get<std::string>();
    kinds[name] = (sdtype == "numerical" || sdtype == "datetime") ? ColumnKind::kNumeric
                                                                  : ColumnKind::kCategorical;
  }
  return kinds;
}

}  // namespace synthaudit
