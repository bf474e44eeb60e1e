#include "engine/data_checks.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/threads.hpp"
#include "engine/evaluate.hpp"
#include "metrics/registry.hpp"
#include "metrics/specific/analysis_models.hpp"
#include "stats/edit_rule.hpp"
#include "stats/formula.hpp"
#include "stats/model_matrix.hpp"
#include "stats/survey_design.hpp"

namespace synthaudit {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

// One cell as a number that equal cells share: a value's bits (0.0 and -0.0 alike), a declared
// missing code by its index, an ordinary missing value as its own marker, a level by its code.
std::uint64_t cell_key(const Column& column, std::size_t row) {
  if (column.is_categorical()) return column.codes[row];
  const double value = column.numeric[row];
  if (std::isnan(value)) {
    const std::uint64_t code =
        column.missing_code_index.empty() ? 0 : column.missing_code_index[row];
    return 0x7ff8'0000'0000'0000ULL + 1 + code;  // NaN bit patterns never come out of the else
  }
  return std::bit_cast<std::uint64_t>(value == 0.0 ? 0.0 : value);
}

std::uint64_t row_hash(const Table& table, std::size_t row) {
  std::uint64_t h = 0x84222325cbf29ce4ULL;
  for (const auto& column : table.columns()) h = mix(h, cell_key(column, row));
  return h;
}

bool rows_equal(const Table& a, std::size_t row_a, const Table& b, std::size_t row_b) {
  for (std::size_t c = 0; c < a.column_count(); ++c)
    if (cell_key(a.column(c), row_a) != cell_key(b.column(c), row_b)) return false;
  return true;
}

// Row fingerprints for the exact copy checks: a 64-bit hash of the cell keys rows_equal compares,
// so equal rows share a fingerprint and only rows whose fingerprints match are compared cell by
// cell. Each key is folded into a rotated state and multiplied (a double's value sits in its high
// bits; the rotation brings them down to the bits that pick a slot), and the state ends in a full
// avalanche (MurmurHash3's fmix64 finaliser).
std::uint64_t fingerprint_step(std::uint64_t h, std::uint64_t key) {
  return (std::rotl(h, 23) ^ key) * 0x9e3779b97f4a7c15ULL;
}

std::uint64_t fingerprint_end(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

// cell_key of a numeric column without declared missing codes.
std::uint64_t plain_numeric_key(double value) {
  if (std::isnan(value)) return 0x7ff8'0000'0000'0000ULL + 1;
  return std::bit_cast<std::uint64_t>(value == 0.0 ? 0.0 : value);
}

// A block of rows at a time, column by column inside the block: a column's kind is looked at once
// per block, and the block's states stay in cache while every column is folded in.
std::vector<std::uint64_t> row_fingerprints(const Table& table) {
  const std::size_t n = table.rows();
  std::vector<std::uint64_t> out(n);
  constexpr std::size_t kBlock = 4096;
  const auto blocks = static_cast<std::ptrdiff_t>((n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static) num_threads(parallel_threads())
  for (std::ptrdiff_t b = 0; b < blocks; ++b) {
    const std::size_t begin = static_cast<std::size_t>(b) * kBlock;
    const std::size_t end = std::min(n, begin + kBlock);
    std::uint64_t* h = out.data();
    std::fill(h + begin, h + end, 0x84222325cbf29ce4ULL);
    for (const auto& column : table.columns()) {
      if (column.is_categorical()) {
        const std::uint32_t* codes = column.codes.data();
        for (std::size_t r = begin; r < end; ++r) h[r] = fingerprint_step(h[r], codes[r]);
      } else if (column.missing_code_index.empty()) {
        const double* values = column.numeric.data();
        for (std::size_t r = begin; r < end; ++r)
          h[r] = fingerprint_step(h[r], plain_numeric_key(values[r]));
      } else {
        for (std::size_t r = begin; r < end; ++r)
          h[r] = fingerprint_step(h[r], cell_key(column, r));
      }
    }
    for (std::size_t r = begin; r < end; ++r) h[r] = fingerprint_end(h[r]);
  }
  return out;
}

// How far ahead of the row being placed or looked up its slot is fetched: a slot is a random
// access into a table larger than the cache.
constexpr std::size_t kPrefetchDistance = 16;

}  // namespace

// Open addressing over the rows' fingerprints, one slot per class of equal rows (its first row
// and its size), at most half full. Collisions of different rows are resolved by comparing the
// rows themselves, so every count is exact.
struct ExactRowIndex::Slot {
  std::uint64_t fingerprint = 0;
  std::uint32_t row = kEmpty;  // the class's first row
  std::uint32_t members = 0;
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
};

ExactRowIndex::ExactRowIndex(const Table& reference) : reference_(&reference) {
  const std::size_t n = reference.rows();
  if (n >= Slot::kEmpty)
    throw std::length_error("ExactRowIndex: more than 4,294,967,294 rows in " +
                            reference.source().path);
  std::size_t capacity = 16;
  while (capacity < 2 * n) capacity *= 2;
  mask_ = capacity - 1;
  slots_.resize(capacity);
  const auto fingerprints = row_fingerprints(reference);
  for (std::size_t r = 0; r < n; ++r) {
    if (r + kPrefetchDistance < n)
      __builtin_prefetch(&slots_[fingerprints[r + kPrefetchDistance] & mask_], 1);
    const std::uint64_t f = fingerprints[r];
    std::size_t s = f & mask_;
    for (;; s = (s + 1) & mask_) {
      Slot& slot = slots_[s];
      if (slot.row == Slot::kEmpty) {
        slot = {f, static_cast<std::uint32_t>(r), 1};
        break;
      }
      if (slot.fingerprint == f && rows_equal(reference, slot.row, reference, r)) {
        ++slot.members;
        break;
      }
    }
  }
  repeated_.rows = n;
  for (const Slot& slot : slots_)
    if (slot.members > 1) repeated_.copies += slot.members;
}

ExactRowIndex::~ExactRowIndex() = default;

RowCopies ExactRowIndex::copies_in(const Table& table) const {
  RowCopies out;
  out.rows = table.rows();
  const std::size_t n = table.rows();
  const auto fingerprints = row_fingerprints(table);
  const Table& reference = *reference_;
  std::size_t copies = 0;
  const auto rows = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static) reduction(+ : copies) num_threads(parallel_threads())
  for (std::ptrdiff_t i = 0; i < rows; ++i) {
    const auto r = static_cast<std::size_t>(i);
    if (r + kPrefetchDistance < n)
      __builtin_prefetch(&slots_[fingerprints[r + kPrefetchDistance] & mask_], 0);
    const std::uint64_t f = fingerprints[r];
    for (std::size_t s = f & mask_; slots_[s].row != Slot::kEmpty; s = (s + 1) & mask_)
      if (slots_[s].fingerprint == f && rows_equal(table, r, reference, slots_[s].row)) {
        ++copies;
        break;
      }
  }
  out.copies = copies;
  return out;
}

std::string percent(double share) { return format_short(100.0 * share) + " %"; }

std::string count_text(std::size_t n) {
  std::string digits = std::to_string(n);
  for (std::ptrdiff_t pos = static_cast<std::ptrdiff_t>(digits.size()) - 3; pos > 0; pos -= 3)
    digits.insert(static_cast<std::size_t>(pos), ",");
  return digits;
}

namespace {

std::string replicate_text(const EvaluationData::Candidate& candidate, std::size_t r) {
  return "candidate '" + candidate.name + "'" +
         (candidate.replicates.size() > 1 ? " replicate " + std::to_string(r + 1) : "") + " (" +
         candidate.replicates[r].source().path + ")";
}

}  // namespace

nlohmann::json finding_to_json(const DataFinding& finding) {
  nlohmann::json out = {{"check", finding.check},
                        {"fails_candidate", finding.fails_candidate},
                        {"message", finding.message},
                        {"numbers", finding.numbers}};
  if (!finding.candidate.empty()) out["candidate"] = finding.candidate;
  if (finding.replicate > 0) out["replicate"] = finding.replicate;
  if (!finding.column.empty()) out["column"] = finding.column;
  return out;
}

// --- columns named by the spec ------------------------------------------------------------------

namespace {

enum class Needs { kAny, kNumeric, kCategorical };

struct NamedColumnChecker {
  const Table& confidential;
  std::string where;
  const WholeColumnCounts* whole = nullptr;
  std::vector<std::string> names = confidential.column_names();

  const Column& require(const std::string& name, const std::string& key, Needs needs) const {
    const auto index = confidential.find(name);
    if (!index)
      throw InputError(where + ": " + key + ": no column '" + name +
                       "' in the confidential data (" + confidential.source().path + ")" +
                       column_hint(name, names));
    const Column& column = confidential.column(*index);
    if (needs == Needs::kNumeric && !column.is_numeric())
      throw InputError(where + ": " + key + ": column '" + name +
                       "' is categorical, and this use needs a numeric column");
    if (needs == Needs::kCategorical && !column.is_categorical())
      throw InputError(where + ": " + key + ": column '" + name +
                       "' is numeric, and this use needs a categorical column (declare it "
                       "categorical under columns:)");
    const std::size_t rows = whole ? whole->rows : confidential.rows();
    const std::size_t missing = whole ? whole->missing[*index] : column.missing_count();
    if (rows > 0 && missing == rows)
      throw InputError(where + ": " + key + ": column '" + name +
                       "' has no value in the confidential data (every row is missing)");
    return column;
  }
};

}  // namespace

WholeColumnCounts column_counts(const Table& table) {
  WholeColumnCounts out;
  out.rows = table.rows();
  for (const auto& column : table.columns()) out.missing.push_back(column.missing_count());
  return out;
}

void merge_column_counts(WholeColumnCounts& into, const WholeColumnCounts& part) {
  into.rows += part.rows;
  into.missing.resize(part.missing.size(), 0);
  for (std::size_t c = 0; c < part.missing.size(); ++c) into.missing[c] += part.missing[c];
}

void check_named_columns(const EvaluationSpec& spec, const Table& confidential,
                         const WholeColumnCounts* whole) {
  if (whole && (!spec.context.weights.empty() || spec.context.design.declared() ||
                !spec.context.analyses.empty()))
    throw std::logic_error("check_named_columns: weights and analyses need the whole table");
  const NamedColumnChecker checker{confidential, spec.origin, whole};
  for (std::size_t i = 0; i < spec.context.scenarios.size(); ++i) {
    const std::string key = "disclosure[" + std::to_string(i) + "]";
    for (const auto& name : spec.context.scenarios[i].keys)
      checker.require(name, key + ".keys", Needs::kAny);
    for (const auto& name : spec.context.scenarios[i].targets)
      checker.require(name, key + ".targets", Needs::kAny);
  }
  for (const auto& name : spec.synthesised_columns)
    checker.require(name, "synthesised_columns", Needs::kAny);
  if (!spec.context.weights.empty()) {
    const Column& w = checker.require(spec.context.weights, "weights", Needs::kNumeric);
    bool any_positive = false;
    for (std::size_t row = 0; row < w.numeric.size(); ++row) {
      const double value = w.numeric[row];
      if (!std::isfinite(value) || value < 0)
        throw InputError(confidential.source().path + ": row " + std::to_string(row + 1) +
                         ", column '" + w.name + "': the sampling weight (weights: " + w.name +
                         ") is " + (std::isnan(value) ? "missing" : format_number(value)) +
                         "; weights must be finite and >= 0");
      any_positive = any_positive || value > 0;
    }
    if (!any_positive && !w.numeric.empty())
      throw InputError(spec.origin + ": weights: column '" + w.name +
                       "' is 0 in every row of the confidential data");
  }
  if (spec.context.design.declared()) {
    if (spec.context.weights.empty())
      throw InputError(spec.origin +
                       ": design: declares strata, clusters or replicate weights without "
                       "weights: (the sampling weight column); declare it too");
    // Built once here so that a bad design variable is reported before any metric runs.
    (void)stats::SurveyDesign::declared(spec.context.design, confidential,
                                        confidential.column(spec.context.weights).numeric);
  }
  if (!spec.context.household.empty())
    checker.require(spec.context.household, "household", Needs::kAny);
  // Edit rules: their syntax, columns and types, before any metric runs (the table's columns
  // are all a rule needs, so a partition stands for the whole table).
  for (const auto& rule : spec.context.rules) (void)stats::EditRule::compile(rule, confidential);
  for (std::size_t i = 0; i < spec.context.analyses.size(); ++i) {
    const AnalysisSpec& a = spec.context.analyses[i];
    const std::string key = "analyses[" + std::to_string(i) + "] ('" + a.name + "')";
    if (const auto model = model_analysis_kind(a.kind)) {
      stats::Formula formula;
      try {
        formula = stats::parse_formula(a.formula);
      } catch (const InputError& e) {
        throw InputError(spec.origin + ": " + key + ": " + e.what());
      }
      for (const auto& name : formula.columns()) checker.require(name, key, Needs::kAny);
      // The layout is what the analysis will build: it refuses a categorical lm response,
      // arithmetic on a categorical column and a logistic outcome that is not binary.
      try {
        stats::ModelLayout layout(std::move(formula), confidential, model->response);
      } catch (const InputError& e) {
        throw InputError(spec.origin + ": " + key + ": " + e.what());
      }
    } else {
      checker.require(a.column, key,
                      a.kind == "proportion" ? Needs::kCategorical : Needs::kNumeric);
    }
  }
  for (const auto& [metric_name, given] : spec.parameters) {
    const MetricSpec* metric = find_metric(metric_name);
    if (metric == nullptr) continue;  // validate_spec reports it
    const std::string where = spec.origin + ": parameters." + metric_name;
    const Params params = Params::resolve(metric_name, metric->params, given, where);
    for (const auto& declared : metric->params) {
      if (!declared.names_columns || !given.is_object() || !given.contains(declared.name)) continue;
      for (const auto& name : params.get_string_list(declared.name))
        checker.require(name, "parameters." + metric_name + "." + declared.name, Needs::kAny);
    }
  }
}

// --- partial synthesis ---------------------------------------------------------------------------

namespace {

// The first row where column `c` of `table` differs from the confidential data, if any.
std::optional<std::size_t> first_difference(const Table& table, const Table& confidential,
                                            std::size_t c) {
  const Column& a = table.column(c);
  const Column& b = confidential.column(c);
  for (std::size_t r = 0; r < table.rows(); ++r)
    if (cell_key(a, r) != cell_key(b, r)) return r;
  return std::nullopt;
}

std::string cell_text(const Column& column, std::size_t row) {
  if (column.is_categorical())
    return column.codes[row] == kMissingCode
               ? "missing"
               : "'" + column.dictionary->level(column.codes[row]) + "'";
  const double value = column.numeric[row];
  if (!std::isnan(value)) return format_number(value);
  if (!column.missing_code_index.empty() && column.missing_code_index[row] > 0)
    return format_number(column.missing_codes[column.missing_code_index[row] - 1]) +
           " (missing code)";
  return "missing";
}

}  // namespace

std::vector<std::string> check_partial_synthesis(const EvaluationSpec& spec,
                                                 const EvaluationData& data) {
  if (spec.context.synthesis != SynthesisType::kPartial) return {};
  const Table& conf = data.confidential;
  const std::size_t ncol = conf.column_count();
  std::vector<std::string> kept;
  if (!spec.synthesised_columns.empty()) {
    for (std::size_t c = 0; c < ncol; ++c) {
      const std::string& name = conf.column(c).name;
      if (std::find(spec.synthesised_columns.begin(), spec.synthesised_columns.end(), name) !=
          spec.synthesised_columns.end())
        continue;
      kept.push_back(name);
      for (const auto& candidate : data.candidates)
        for (const auto& table : candidate.replicates) {
          if (table.rows() != conf.rows()) continue;  // finish_evaluation_data reports it
          if (const auto row = first_difference(table, conf, c))
            throw InputError(table.source().path + ": row " + std::to_string(*row + 1) +
                             ", column '" + name + "': " + cell_text(table.column(c), *row) +
                             " where the confidential data have " +
                             cell_text(conf.column(c), *row) +
                             "; a partial synthesis keeps the columns it does not synthesise "
                             "(all but synthesised_columns) row by row");
        }
    }
    return kept;
  }
  for (std::size_t c = 0; c < ncol; ++c) {
    bool equal_everywhere = true;
    for (const auto& candidate : data.candidates)
      for (const auto& table : candidate.replicates)
        equal_everywhere = equal_everywhere && table.rows() == conf.rows() &&
                           !first_difference(table, conf, c).has_value();
    if (equal_everywhere) kept.push_back(conf.column(c).name);
  }
  // A replicate with no column equal to the confidential data row by row is not a partial
  // synthesis of it (another file, or rows in another order).
  for (const auto& candidate : data.candidates)
    for (const auto& table : candidate.replicates) {
      if (table.rows() != conf.rows()) continue;
      std::optional<std::size_t> first_row;
      std::size_t first_column = 0;
      bool any = ncol == 0;
      for (std::size_t c = 0; c < ncol && !any; ++c) {
        const auto row = first_difference(table, conf, c);
        any = !row.has_value();
        if (row && (!first_row || *row < *first_row)) {
          first_row = row;
          first_column = c;
        }
      }
      if (!any)
        throw InputError(table.source().path +
                         ": not a partial synthesis of the confidential data: no column equals "
                         "the confidential data row by row (the first difference is row " +
                         std::to_string(*first_row + 1) + ", column '" +
                         conf.column(first_column).name +
                         "'); give synthesised_columns, or synthesis: full");
    }
  return kept;
}

// --- copies of the confidential data
// --------------------------------------------------------------

RowCopies count_row_copies(const Table& table, const Table& reference) {
  return ExactRowIndex(reference).copies_in(table);
}

RowCopies count_repeated_rows(const Table& table) { return ExactRowIndex(table).repeated(); }

bool same_content(const Table& a, const Table& b) {
  if (a.rows() != b.rows() || a.column_count() != b.column_count()) return false;
  for (std::size_t r = 0; r < a.rows(); ++r)
    if (!rows_equal(a, r, b, r)) return false;
  return true;
}

std::vector<RowKey> row_keys(const Table& table) {
  std::vector<RowKey> out(table.rows());
  for (std::size_t r = 0; r < table.rows(); ++r) {
    std::uint64_t second = 0x2545f4914f6cdd1dULL;
    for (const auto& column : table.columns())
      second = (second ^ cell_key(column, r)) * 0x9fb21c651e98df25ULL + 0x632be59bd9b4e019ULL;
    out[r] = {row_hash(table, r), second ^ (second >> 29)};
  }
  return out;
}

RowComparisons row_key_comparisons(
    std::function<const std::vector<RowKey>&(const Table&)> keys_of) {
  RowComparisons out;
  out.repeated = [keys_of](const Table& table) {
    std::vector<RowKey> keys = keys_of(table);
    std::sort(keys.begin(), keys.end());
    RowCopies copies;
    copies.rows = keys.size();
    for (std::size_t begin = 0; begin < keys.size();) {
      std::size_t end = begin + 1;
      while (end < keys.size() && keys[end] == keys[begin]) ++end;
      if (end - begin > 1) copies.copies += end - begin;
      begin = end;
    }
    return copies;
  };
  out.copies = [keys_of](const Table& table, const Table& reference) {
    std::vector<RowKey> index = keys_of(reference);
    std::sort(index.begin(), index.end());
    RowCopies copies;
    const auto& keys = keys_of(table);
    copies.rows = keys.size();
    for (const auto& key : keys)
      if (std::binary_search(index.begin(), index.end(), key)) ++copies.copies;
    return copies;
  };
  out.same_content = [keys_of](const Table& a, const Table& b) {
    return a.column_count() == b.column_count() && keys_of(a) == keys_of(b);
  };
  return out;
}

bool copies_far_above(const RowCopies& candidate, const RowCopies& chance) {
  if (candidate.rows == 0 || chance.rows == 0) return false;
  const double s = candidate.share(), b = chance.share();
  if (b >= 1.0) return false;
  const double excess = s - b;
  // Shares are ratios of counts: a tolerance of rounding keeps 600 / 1000 at the limit.
  if (excess < kCopyExcessFraction * (1.0 - b) - 1e-12) return false;
  const double se = std::sqrt(s * (1.0 - s) / static_cast<double>(candidate.rows) +
                              b * (1.0 - b) / static_cast<double>(chance.rows));
  return excess >= kCopyExcessZ * se;
}

RowComparisons exact_row_comparisons() {
  // check_copies compares every table with the confidential data: its index is built once.
  auto last = std::make_shared<std::unique_ptr<ExactRowIndex>>();
  auto index_of = [last](const Table& reference) -> const ExactRowIndex& {
    if (!*last || &(*last)->reference() != &reference)
      *last = std::make_unique<ExactRowIndex>(reference);
    return **last;
  };
  return {[index_of](const Table& table) { return index_of(table).repeated(); },
          [index_of](const Table& table, const Table& reference) {
            return index_of(reference).copies_in(table);
          },
          same_content};
}

std::vector<DataFinding> check_copies(const EvaluationData& data, SynthesisType synthesis) {
  return check_copies(data, synthesis, exact_row_comparisons());
}

std::vector<DataFinding> check_copies(const EvaluationData& data, SynthesisType synthesis,
                                      const RowComparisons& compare) {
  const auto& count_repeated_rows = compare.repeated;
  const auto& count_row_copies = compare.copies;
  const auto& same_content = compare.same_content;
  std::vector<DataFinding> findings;
  const Table& conf = data.confidential;
  const std::string& conf_sha = conf.source().sha256;
  const std::string& conf_path = conf.source().path;
  const RowCopies repeats = count_repeated_rows(conf);
  RowCopies chance = repeats;
  std::string chance_text = "the confidential data's own repeated rows (" +
                            percent(repeats.share()) + " of its rows equal another of them)";
  if (data.holdout) {
    const Table& holdout = *data.holdout;
    const bool same_file = !conf_sha.empty() && holdout.source().sha256 == conf_sha;
    const RowCopies holdout_copies = count_row_copies(holdout, conf);
    if (same_file || same_content(holdout, conf)) {
      findings.push_back({"holdout_identical_to_confidential",
                          "",
                          0,
                          "",
                          false,
                          holdout.source().path +
                              ": the holdout is the confidential file itself (" +
                              (same_file ? "same SHA-256" : "the same values in the same rows") +
                              "); a holdout must be real records the synthesis did not see",
                          {{"holdout_copy_share", holdout_copies.share()}}});
    } else if (copies_far_above(holdout_copies, repeats)) {
      findings.push_back(
          {"holdout_copies_confidential_rows",
           "",
           0,
           "",
           false,
           holdout.source().path + ": " + percent(holdout_copies.share()) +
               " of the holdout's rows equal a confidential row, against " +
               percent(repeats.share()) +
               " repeated rows within the confidential data: is the holdout part of the "
               "confidential file? Its baselines then understate the risk",
           {{"holdout_copy_share", holdout_copies.share()},
            {"confidential_repeat_share", repeats.share()}}});
    } else {
      chance = holdout_copies;
      chance_text = "the holdout (" + percent(holdout_copies.share()) +
                    " of its rows equal a confidential row)";
    }
  }
  for (const auto& candidate : data.candidates)
    for (std::size_t r = 0; r < candidate.replicates.size(); ++r) {
      const Table& table = candidate.replicates[r];
      const std::string& sha = table.source().sha256;
      DataFinding f{"", candidate.name, r + 1, "", true, "", nlohmann::json::object()};
      if ((!conf_sha.empty() && sha == conf_sha) || same_content(table, conf)) {
        f.check = "identical_to_confidential";
        f.message = replicate_text(candidate, r) + " is the confidential data itself (" +
                    (!conf_sha.empty() && sha == conf_sha
                         ? "the same SHA-256 as " + conf_path
                         : "the same values in the same rows as " + conf_path) +
                    "), not a synthesis";
        findings.push_back(std::move(f));
        continue;
      }
      if (data.holdout) {
        const std::string& holdout_sha = data.holdout->source().sha256;
        const bool same_file = !holdout_sha.empty() && sha == holdout_sha;
        if (same_file || same_content(table, *data.holdout)) {
          f.check = "identical_to_holdout";
          f.message =
              replicate_text(candidate, r) + " is the holdout itself (" +
              (same_file ? "the same SHA-256 as " : "the same values in the same rows as ") +
              data.holdout->source().path + "): real records, not a synthesis";
          findings.push_back(std::move(f));
          continue;
        }
      }
      if (synthesis == SynthesisType::kPartial) continue;
      const RowCopies copies = count_row_copies(table, conf);
      if (!copies_far_above(copies, chance)) continue;
      f.check = "copies_confidential_rows";
      f.numbers = {{"copy_share", copies.share()},
                   {"copies", copies.copies},
                   {"rows", copies.rows},
                   {"chance_share", chance.share()}};
      f.message = replicate_text(candidate, r) + ": " + count_text(copies.copies) + " of its " +
                  count_text(copies.rows) + " rows (" + percent(copies.share()) +
                  ") copy a confidential row exactly, against " + percent(chance.share()) +
                  " by chance as estimated from " + chance_text +
                  "; is it (partly) the confidential data?";
      findings.push_back(std::move(f));
    }
  return findings;
}

// --- missing codes -------------------------------------------------------------------------------

// One pass: a new minimum makes the old one the smallest value above it (likewise the maximum).
namespace {

// Adds `v` to the distinct values kept while they are few.
void note_distinct(ColumnExtremes& e, double v) {
  const auto at = std::lower_bound(e.distinct.begin(), e.distinct.end(), v);
  if (at != e.distinct.end() && *at == v) return;
  if (e.distinct.size() + 1 >= kFewNumericValues) {
    e.many_values = true;
    e.distinct.clear();
    return;
  }
  e.distinct.insert(at, v);
}

}  // namespace

ColumnExtremes column_extremes(const Column& column) {
  ColumnExtremes e;
  if (!column.is_numeric()) return e;
  for (double v : column.numeric) {
    if (std::isnan(v)) continue;
    if (!e.many_values) note_distinct(e, v);
    if (e.values++ == 0) {
      e.lo = e.hi = v;
      e.at_lo = e.at_hi = 1;
      continue;
    }
    if (v < e.lo) {
      e.above_lo = e.lo;
      e.lo = v;
      e.at_lo = 1;
    } else if (v == e.lo) {
      ++e.at_lo;
    } else if (v < e.above_lo) {
      e.above_lo = v;
    }
    if (v > e.hi) {
      e.below_hi = e.hi;
      e.hi = v;
      e.at_hi = 1;
    } else if (v == e.hi) {
      ++e.at_hi;
    } else if (v > e.below_hi) {
      e.below_hi = v;
    }
  }
  return e;
}

// Exact: the smallest value above the merged minimum is a part's minimum when that lies above
// it, else the part's own next value (likewise at the maximum).
void merge_column_extremes(ColumnExtremes& into, const ColumnExtremes& part) {
  if (part.values == 0) return;
  if (into.values == 0) {
    into = part;
    return;
  }
  const double lo = std::min(into.lo, part.lo), hi = std::max(into.hi, part.hi);
  auto next_above = [&](const ColumnExtremes& e) { return e.lo > lo ? e.lo : e.above_lo; };
  auto next_below = [&](const ColumnExtremes& e) { return e.hi < hi ? e.hi : e.below_hi; };
  ColumnExtremes merged;
  merged.values = into.values + part.values;
  merged.lo = lo;
  merged.hi = hi;
  merged.at_lo = (into.lo == lo ? into.at_lo : 0) + (part.lo == lo ? part.at_lo : 0);
  merged.at_hi = (into.hi == hi ? into.at_hi : 0) + (part.hi == hi ? part.at_hi : 0);
  merged.above_lo = std::min(next_above(into), next_above(part));
  merged.below_hi = std::max(next_below(into), next_below(part));
  merged.many_values = into.many_values || part.many_values;
  if (!merged.many_values) {
    merged.distinct = into.distinct;
    for (const double v : part.distinct)
      if (!merged.many_values) note_distinct(merged, v);
  }
  into = merged;
}

std::vector<MissingCodeSpike> find_missing_code_spikes(const Column& column) {
  return missing_code_spikes(column_extremes(column));
}

std::vector<MissingCodeSpike> missing_code_spikes(const ColumnExtremes& e) {
  std::vector<MissingCodeSpike> spikes;
  const std::size_t values = e.values;
  const double lo = e.lo, hi = e.hi, above_lo = e.above_lo, below_hi = e.below_hi;
  const std::size_t at_lo = e.at_lo, at_hi = e.at_hi;
  if (values == 0 || lo == hi) return spikes;
  auto is_code = [](double v) {
    return std::find(std::begin(kTypicalMissingCodes), std::end(kTypicalMissingCodes), v) !=
           std::end(kTypicalMissingCodes);
  };
  auto spike = [&](double v, std::size_t rows) {
    return is_code(v) && rows >= kSpikeMinRows &&
           static_cast<double>(rows) >= kSpikeMinShare * static_cast<double>(values);
  };
  // The other values span from the nearest one to the far end, without the far end when that is
  // a spike of a code too (-9 and 99 around a 1..5 scale: the scale is the rest).
  const bool lo_spike = spike(lo, at_lo), hi_spike = spike(hi, at_hi);
  const double rest_lo = lo_spike ? above_lo : lo, rest_hi = hi_spike ? below_hi : hi;
  if (lo_spike) {
    const double gap = above_lo - lo, others_range = rest_hi - above_lo;
    if ((lo < 0 && above_lo >= 0) || gap >= 0.5 * others_range)
      spikes.push_back({lo, at_lo, values, above_lo, true});
  }
  if (hi_spike) {
    const double gap = hi - below_hi, others_range = below_hi - rest_lo;
    if (gap >= 0.5 * others_range) spikes.push_back({hi, at_hi, values, below_hi, false});
  }
  return spikes;
}

namespace {

// column_extremes of every column of a whole table, columns in parallel.
std::vector<ColumnExtremes> table_extremes(const Table& table) {
  std::vector<ColumnExtremes> extremes(table.column_count());
  const auto columns = static_cast<std::ptrdiff_t>(table.column_count());
#pragma omp parallel for schedule(dynamic) num_threads(parallel_threads())
  for (std::ptrdiff_t c = 0; c < columns; ++c)
    extremes[static_cast<std::size_t>(c)] =
        column_extremes(table.column(static_cast<std::size_t>(c)));
  return extremes;
}

}  // namespace

std::vector<DataFinding> check_missing_code_spikes(const Table& confidential) {
  return check_missing_code_spikes(confidential, table_extremes(confidential));
}

std::vector<DataFinding> check_missing_code_spikes(const Table& confidential,
                                                   const std::vector<ColumnExtremes>& whole) {
  std::vector<DataFinding> findings;
  for (std::size_t c = 0; c < confidential.column_count(); ++c) {
    const Column& column = confidential.column(c);
    for (const auto& s : missing_code_spikes(whole[c])) {
      const std::string value = format_number(s.value);
      findings.push_back(
          {"missing_code_spike",
           "",
           0,
           column.name,
           false,
           confidential.source().path + ", column '" + column.name + "': " + value + " holds " +
               count_text(s.rows) + " of its " + count_text(s.values) + " values (" +
               percent(static_cast<double>(s.rows) / static_cast<double>(s.values)) + ") at the " +
               (s.at_minimum ? "minimum" : "maximum") +
               ", apart from the other values (the nearest is " + format_number(s.nearest_other) +
               "): if it is a code for missing, declare it (spec: missing_codes: {" + column.name +
               ": [" + value + "]}, or --missing-codes " + column.name + "=" + value + ")",
           {{"value", s.value},
            {"rows", s.rows},
            {"values", s.values},
            {"nearest_other", s.nearest_other}}});
    }
  }
  return findings;
}

std::vector<DataFinding> check_few_valued_numeric(const Table& confidential, const Schema& schema,
                                                  const EvaluationContext& context,
                                                  const std::vector<ColumnExtremes>& whole) {
  std::vector<DataFinding> findings;
  // Design variables (strata, clusters, replicate weights) are labels or weights, not data.
  std::vector<std::size_t> design;
  if (context.design.declared()) {
    try {
      design = stats::design_columns(context.design, confidential);
    } catch (const InputError&) {
      // check_named_columns reports the missing column
    }
  }
  for (std::size_t c = 0; c < confidential.column_count() && c < schema.columns.size(); ++c) {
    const Column& column = confidential.column(c);
    const ColumnExtremes& e = whole[c];
    if (!column.is_numeric() || !schema.columns[c].inferred || e.many_values ||
        e.distinct.size() < 2 || column.name == context.weights ||
        column.name == context.household ||
        std::find(design.begin(), design.end(), c) != design.end())
      continue;
    std::vector<std::string> values;
    for (const double v : e.distinct) values.push_back(format_number(v));
    findings.push_back(
        {"few_valued_numeric",
         "",
         0,
         column.name,
         false,
         confidential.source().path + ", column '" + column.name + "': read as numeric, but it " +
             "holds only " + std::to_string(values.size()) + " distinct values (" +
             join(values, ", ") +
             "); if they are codes of categories, declare it (spec: columns: {" + column.name +
             ": categorical}) so that its distributions are compared level by level (synthpop's "
             "syn() treats numeric variables with fewer than " +
             std::to_string(kFewNumericValues) + " values as factors)",
         {{"distinct_values", e.distinct}}});
  }
  return findings;
}

std::vector<DataFinding> check_few_valued_numeric(const Table& confidential, const Schema& schema,
                                                  const EvaluationContext& context) {
  return check_few_valued_numeric(confidential, schema, context, table_extremes(confidential));
}

}  // namespace synthaudit
