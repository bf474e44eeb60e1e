#pragma once
// Checks of the data and of the spec that run before any metric (docs/cli.md, "Checks before
// the metrics"): mistakes that make every number meaningless stop the run (InputError, exit 2);
// mistakes that can be told but not proven are findings, which become warnings, lines of the
// terminal summary and, for a candidate that is a copy of the confidential data, a fail in the
// verdict.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "spec/spec.hpp"
#include "table/table.hpp"

namespace synthaudit {

struct EvaluationData;

struct DataFinding {
  std::string check;          // identical_to_confidential, copies_confidential_rows, ...
  std::string candidate;      // "" when the finding is about the confidential data or the holdout
  std::size_t replicate = 0;  // 1-based; 0 when not about one replicate
  std::string column;         // "" when not about one column
  bool fails_candidate = false;
  std::string message;  // one sentence, names the file and the column
  nlohmann::json numbers = nlohmann::json::object();
};

nlohmann::json finding_to_json(const DataFinding& finding);

// Numbers in findings' sentences: a count with thousands separators ("12,345"), a share as a
// percentage ("3.1 %").
std::string count_text(std::size_t n);
std::string percent(double share);

// Every column the spec names (disclosure keys and targets, the analyses' columns and formula
// variables, synthesised_columns, metric parameters declared as naming columns, for every metric
// given parameters whether selected or not) exists in the confidential table with a kind its use
// needs, and has a value there. InputError naming the spec key, with a did-you-mean hint over
// all column names, otherwise.
// `whole`, when given, holds the whole table's row and missing counts (a partitioned run passes
// its partition as `confidential` for the names and kinds); weights and analyses, which read the
// rows themselves, then are a std::logic_error (such a run holds the whole table).
struct WholeColumnCounts {
  std::size_t rows = 0;
  std::vector<std::size_t> missing;  // per column
};
WholeColumnCounts column_counts(const Table& table);
void merge_column_counts(WholeColumnCounts& into, const WholeColumnCounts& part);
void check_named_columns(const EvaluationSpec& spec, const Table& confidential,
                         const WholeColumnCounts* whole = nullptr);

// Partial synthesis: the columns not synthesised must equal the confidential data row by row.
// With spec.synthesised_columns, the others are checked (InputError naming the first differing
// row and column); without it, the columns equal row by row in every replicate are taken as not
// synthesised, and a replicate with no such column is refused. Returns the names of the columns
// not synthesised (empty for a full synthesis).
std::vector<std::string> check_partial_synthesis(const EvaluationSpec& spec,
                                                 const EvaluationData& data);

// Row-level equality across tables of one schema (missing equals missing, a declared missing
// code equals the same code).
struct RowCopies {
  std::size_t rows = 0;    // rows of the table checked
  std::size_t copies = 0;  // of them, rows equal to some row of the reference
  double share() const { return rows == 0 ? 0.0 : static_cast<double>(copies) / rows; }
};

// The classes of equal rows of one reference table, for exact counts of the rows of other tables
// (of the same schema) that equal one of its rows. Built in one pass over the rows; each count
// is a pass over the other table's rows, whatever the thread count.
class ExactRowIndex {
 public:
  explicit ExactRowIndex(const Table& reference);
  ~ExactRowIndex();
  ExactRowIndex(const ExactRowIndex&) = delete;
  ExactRowIndex& operator=(const ExactRowIndex&) = delete;

  const Table& reference() const { return *reference_; }
  // Rows of the reference equal to another of its rows (count_repeated_rows).
  RowCopies repeated() const { return repeated_; }
  // Rows of `table` equal to some row of the reference (count_row_copies).
  RowCopies copies_in(const Table& table) const;

 private:
  struct Slot;
  const Table* reference_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  RowCopies repeated_;
};

// Rows of `table` equal to some row of `reference`.
RowCopies count_row_copies(const Table& table, const Table& reference);

// Rows of `table` equal to another row of the same table: the chance that a fresh record of the
// population repeats one of the records, estimated leave-one-out.
RowCopies count_repeated_rows(const Table& table);

// True when the two tables hold the same values in the same rows (the content of the same file,
// whatever its quoting or column order).
bool same_content(const Table& a, const Table& b);

// The copy rule (docs/cli.md): a candidate is flagged when the share s of its rows that copy a
// confidential row exceeds the chance share b (the holdout's, else the confidential data's own
// leave-one-out repeats) by at least half of what is left above b, (s − b) / (1 − b) ≥ 0.5, and
// by at least 4 standard errors of the difference of two shares.
inline constexpr double kCopyExcessFraction = 0.5;
inline constexpr double kCopyExcessZ = 4.0;
bool copies_far_above(const RowCopies& candidate, const RowCopies& chance);

// Identical files and rows copied from the confidential data, for every replicate of every
// candidate, and a holdout that is (part of) the confidential data. A partial synthesis keeps
// rows by design, so only its identity with the confidential data is checked.
std::vector<DataFinding> check_copies(const EvaluationData& data, SynthesisType synthesis);

// The row comparisons check_copies makes, as functions of the tables: exact ones over the rows
// (the default), or a partitioned run's over row keys gathered from the ranks.
struct RowComparisons {
  std::function<RowCopies(const Table&)> repeated;
  std::function<RowCopies(const Table& table, const Table& reference)> copies;
  std::function<bool(const Table&, const Table&)> same_content;
};
// The exact comparisons keep the index of the last reference table they were given (by its
// address): use one object while the tables it saw are alive, as check_copies does.
RowComparisons exact_row_comparisons();
std::vector<DataFinding> check_copies(const EvaluationData& data, SynthesisType synthesis,
                                      const RowComparisons& compare);

// A 128-bit key of each row (two independent 64-bit hashes of its cells, as the exact checks
// compare them): equal rows have equal keys; different rows share a key with probability about
// 2^-128 per pair.
using RowKey = std::pair<std::uint64_t, std::uint64_t>;
std::vector<RowKey> row_keys(const Table& table);
RowComparisons row_key_comparisons(std::function<const std::vector<RowKey>&(const Table&)> keys);

// The missing-code rule (docs/cli.md): a value v of a numeric confidential column is reported
// when it is the column's minimum or maximum, is one of kTypicalMissingCodes, holds at least
// kSpikeMinRows rows and kSpikeMinShare of the column's values, and stands apart from the other
// values: negative while all others are non-negative, or further from the nearest other value
// than half the range of the others.
inline constexpr double kTypicalMissingCodes[] = {
    -1,   -2,   -3,   -4,    -5,    -6,     -7,     -8,      -9,       -77,
    -88,  -99,  -777, -888,  -999,  -9999,  -99999, 9,       77,       88,
    97,   98,   99,   777,   888,   997,    998,    999,     7777,     8888,
    9997, 9998, 9999, 99998, 99999, 999998, 999999, 9999999, 99999999, 999999999};
inline constexpr std::size_t kSpikeMinRows = 5;
inline constexpr double kSpikeMinShare = 0.005;

struct MissingCodeSpike {
  double value = 0;
  std::size_t rows = 0;      // rows holding the value
  std::size_t values = 0;    // non-missing rows of the column
  double nearest_other = 0;  // the closest other value
  bool at_minimum = false;
};
// The spikes of a column (at most one at each end); none for categorical columns.
std::vector<MissingCodeSpike> find_missing_code_spikes(const Column& column);

// What the spike rule reads of a column, mergeable over row partitions (exactly: minima, maxima
// and counts).
struct ColumnExtremes {
  std::size_t values = 0;  // non-missing rows
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  std::size_t at_lo = 0, at_hi = 0;
  double above_lo = std::numeric_limits<double>::infinity();   // the smallest value above lo
  double below_hi = -std::numeric_limits<double>::infinity();  // the largest value below hi
  // The distinct values, ascending, while there are fewer than kFewNumericValues of them;
  // many_values once there are more (then `distinct` is empty).
  std::vector<double> distinct;
  bool many_values = false;
};
// A numeric column with fewer distinct values than this is probably codes of categories (synthpop's
// syn() turns such variables into factors: its minnumlevels).
inline constexpr std::size_t kFewNumericValues = 5;
ColumnExtremes column_extremes(const Column& column);
void merge_column_extremes(ColumnExtremes& into, const ColumnExtremes& part);
std::vector<MissingCodeSpike> missing_code_spikes(const ColumnExtremes& extremes);

std::vector<DataFinding> check_missing_code_spikes(const Table& confidential);
// The same from the whole table's extremes per column (`confidential` gives names and path).
std::vector<DataFinding> check_missing_code_spikes(const Table& confidential,
                                                   const std::vector<ColumnExtremes>& whole);

// Numeric columns whose kind was inferred (not declared) with 2 to kFewNumericValues - 1 distinct
// values (0/1 flags, a 1-4 scale): one finding each, suggesting the categorical declaration. The
// weights and household columns are left out. `whole`: per column, as for the spikes.
std::vector<DataFinding> check_few_valued_numeric(const Table& confidential, const Schema& schema,
                                                  const EvaluationContext& context,
                                                  const std::vector<ColumnExtremes>& whole);
std::vector<DataFinding> check_few_valued_numeric(const Table& confidential, const Schema& schema,
                                                  const EvaluationContext& context);

}  // namespace synthaudit
