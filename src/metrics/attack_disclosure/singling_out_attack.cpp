// Singling-out attack on synthetic data as anonymeter defines it (Giomi et al. 2023): predicates
// that isolate exactly one synthetic record are tried on the training data and on a control set.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/attack_risk.hpp"

namespace synthaudit {

namespace {

// The operators of anonymeter's predicates: generated attacks use ==, >=, <= and "is missing";
// the random baseline also draws !=, >, < and "is not missing".
enum class Op : std::uint8_t { kEq, kNe, kGe, kLe, kGt, kLt, kIsMissing, kNotMissing };

struct Term {
  std::uint32_t column = 0;
  Op op = Op::kEq;
  double value = 0;        // numeric columns
  std::uint32_t code = 0;  // categorical columns
};

// Terms in increasing column order, so equal predicates have equal encodings.
using Predicate = std::vector<Term>;

std::string encode(const Predicate& predicate) {
  std::string key;
  for (const auto& t : predicate) {
    key.append(reinterpret_cast<const char*>(&t.column), sizeof t.column);
    key.push_back(static_cast<char>(t.op));
    key.append(reinterpret_cast<const char*>(&t.value), sizeof t.value);
    key.append(reinterpret_cast<const char*>(&t.code), sizeof t.code);
  }
  return key;
}

bool term_holds(const Column& column, const Term& t, std::size_t row) {
  if (column.is_numeric()) {
    const double x = column.numeric[row];
    switch (t.op) {
      case Op::kEq:
        return x == t.value;
      case Op::kNe:
        return !(x == t.value);  // a missing value is "not equal", as in pandas
      case Op::kGe:
        return x >= t.value;
      case Op::kLe:
        return x <= t.value;
      case Op::kGt:
        return x > t.value;
      case Op::kLt:
        return x < t.value;
      case Op::kIsMissing:
        return std::isnan(x);
      case Op::kNotMissing:
        return !std::isnan(x);
    }
    return false;
  }
  const std::uint32_t code = column.codes[row];
  switch (t.op) {
    case Op::kEq:
      return code == t.code;
    case Op::kNe:
      return code != t.code;
    case Op::kIsMissing:
      return is_missing(code);
    case Op::kNotMissing:
      return !is_missing(code);
    default:
      return false;
  }
}

// The distinct rows of a table (anonymeter drops duplicate records of all three data sets before
// attacking: a predicate that matches two identical records isolates one person's values).
std::vector<std::uint32_t> distinct_rows(const Table& table) {
  std::unordered_map<std::string, std::uint32_t> seen;
  std::vector<std::uint32_t> rows;
  std::string key;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    key.clear();
    for (const auto& column : table.columns()) {
      if (column.is_numeric()) {
        double v = column.numeric[r];
        if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();  // one bit pattern
        if (v == 0) v = 0;                                                // -0 equals 0
        key.append(reinterpret_cast<const char*>(&v), sizeof v);
      } else {
        key.append(reinterpret_cast<const char*>(&column.codes[r]), sizeof(std::uint32_t));
      }
    }
    if (seen.emplace(key, static_cast<std::uint32_t>(r)).second)
      rows.push_back(static_cast<std::uint32_t>(r));
  }
  return rows;
}

// Counts the rows of one table that a predicate matches. Hand-written rather than a generic
// query engine because the attack evaluates hundreds of predicates on up to millions of rows:
// per column the distinct rows are kept sorted by value (numeric) or grouped by code
// (categorical), so each term yields the rows it can match as at most one contiguous span; the
// smallest span is scanned and only its rows are checked against the other terms, with an early
// exit once `limit` matches are found.
class MatchCounter {
 public:
  MatchCounter(const Table& table, std::vector<std::uint32_t> rows,
               std::span<const std::size_t> columns)
      : table_(table), rows_(std::move(rows)), index_(table.column_count()) {
    for (auto c : columns) {
      const Column& column = table.column(c);
      ColumnIndex& index = index_[c];
      if (column.is_numeric()) {
        for (auto r : rows_)
          (std::isnan(column.numeric[r]) ? index.missing : index.sorted).push_back(r);
        std::stable_sort(index.sorted.begin(), index.sorted.end(),
                         [&](std::uint32_t a, std::uint32_t b) {
                           return column.numeric[a] < column.numeric[b];
                         });
        index.values.reserve(index.sorted.size());
        for (auto r : index.sorted) index.values.push_back(column.numeric[r]);
      } else {
        const std::size_t levels = column.cardinality();
        std::vector<std::uint32_t> count(levels + 1, 0);
        for (auto r : rows_) {
          const std::uint32_t code = column.codes[r];
          if (is_missing(code))
            index.missing.push_back(r);
          else
            ++count[code + 1];
        }
        std::partial_sum(count.begin(), count.end(), count.begin());
        index.level_start = count;
        index.sorted.resize(rows_.size() - index.missing.size());
        for (auto r : rows_) {
          const std::uint32_t code = column.codes[r];
          if (!is_missing(code)) index.sorted[count[code]++] = r;
        }
      }
    }
  }

  std::size_t size() const { return rows_.size(); }
  const std::vector<std::uint32_t>& rows() const { return rows_; }

  std::size_t count(const Predicate& predicate, std::size_t limit) const {
    std::span<const std::uint32_t> best(rows_);
    for (const auto& t : predicate) {
      const auto span = candidates(t);
      if (span.size() < best.size()) best = span;
    }
    std::size_t matches = 0;
    for (auto r : best) {
      bool all = true;
      for (const auto& t : predicate)
        if (!(all = term_holds(table_.column(t.column), t, r))) break;
      if (all && ++matches >= limit) break;
    }
    return matches;
  }

 private:
  struct ColumnIndex {
    std::vector<std::uint32_t> sorted;       // numeric: by value; categorical: grouped by code
    std::vector<double> values;              // numeric: the values of `sorted`
    std::vector<std::uint32_t> level_start;  // categorical: code -> first position in `sorted`
    std::vector<std::uint32_t> missing;
  };

  // A superset of the rows term `t` matches, as one span.
  std::span<const std::uint32_t> candidates(const Term& t) const {
    const ColumnIndex& index = index_[t.column];
    const std::span<const std::uint32_t> sorted(index.sorted);
    if (t.op == Op::kIsMissing) return index.missing;
    if (t.op == Op::kNotMissing) return sorted;
    if (table_.column(t.column).is_categorical()) {
      if (t.op != Op::kEq) return rows_;
      if (t.code + 1 >= index.level_start.size()) return {};
      return sorted.subspan(index.level_start[t.code],
                            index.level_start[t.code + 1] - index.level_start[t.code]);
    }
    const auto& v = index.values;
    const auto lower =
        static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), t.value) - v.begin());
    const auto upper =
        static_cast<std::size_t>(std::upper_bound(v.begin(), v.end(), t.value) - v.begin());
    switch (t.op) {
      case Op::kEq:
        return sorted.subspan(lower, upper - lower);
      case Op::kGe:
        return sorted.subspan(lower);
      case Op::kGt:
        return sorted.subspan(upper);
      case Op::kLe:
        return sorted.first(upper);
      case Op::kLt:
        return sorted.first(lower);
      default:
        return rows_;
    }
  }

  const Table& table_;
  std::vector<std::uint32_t> rows_;
  std::vector<ColumnIndex> index_;
};

// Probability that a simple random sample (without replacement) of n of N records holds exactly
// one of the m records a predicate matches: the hypergeometric P(X = 1) =
// m·C(N − m, n − 1)/C(N, n), computed as the product m·(n/N)·Π_{j=1}^{m−1} (N − n − j + 1)/(N − j)
// (no cancellation; the product falls below 1e-300 long before m is large).
double single_match_probability(std::size_t m, std::size_t population, std::size_t sample) {
  if (m == 0 || sample == 0) return 0;
  if (sample == population) return m == 1 ? 1.0 : 0.0;
  const double N = static_cast<double>(population), n = static_cast<double>(sample);
  double p = static_cast<double>(m) * n / N;
  for (std::size_t j = 1; j < m && p > 1e-300; ++j) {
    const double remaining = N - n - static_cast<double>(j) + 1;
    if (remaining <= 0) return 0;
    p *= remaining / (N - static_cast<double>(j));
  }
  return p;
}

// Which columns the attacker uses: every column but the survey design columns.
std::vector<std::size_t> attack_columns(const Table& table, const EvaluationContext& context) {
  std::vector<std::size_t> columns;
  for (std::size_t c = 0; c < table.column_count(); ++c) {
    const auto& name = table.column(c).name;
    if (name == context.weights || name == context.household) continue;
    columns.push_back(c);
  }
  return columns;
}

// Draws n_cols distinct columns uniformly (a partial Fisher–Yates shuffle of a pool kept between
// draws: from any order of the pool the first n_cols are a uniform draw), in increasing order.
class ColumnDraw {
 public:
  ColumnDraw(std::vector<std::size_t> columns, std::size_t n_cols)
      : pool_(std::move(columns)), n_cols_(n_cols) {}
  const std::vector<std::size_t>& next(Rng& rng) {
    for (std::size_t i = 0; i < n_cols_; ++i)
      std::swap(pool_[i], pool_[i + rng.below(pool_.size() - i)]);
    drawn_.assign(pool_.begin(), pool_.begin() + static_cast<std::ptrdiff_t>(n_cols_));
    std::sort(drawn_.begin(), drawn_.end());
    return drawn_;
  }

 private:
  std::vector<std::size_t> pool_, drawn_;
  std::size_t n_cols_;
};

// Predicates that single out one distinct synthetic record, without repeats.
struct SinglingOutSet {
  std::vector<Predicate> predicates;
  std::unordered_set<std::string> seen;

  // Adds `p` when it is new and matches exactly one synthetic record; returns whether it is new.
  bool offer(const Predicate& p, const MatchCounter& synthetic) {
    if (!seen.insert(encode(p)).second) return false;  // drawn before: same outcome
    if (synthetic.count(p, 2) == 1) predicates.push_back(p);
    return true;
  }
};

// anonymeter's univariate attack: from each column, "is missing" when exactly one record is
// missing, the minimum (<=) and maximum (>=) of a numeric column, and every value held by exactly
// one record (==); shuffled, kept when they single out, until n_attacks are found.
std::vector<Predicate> univariate_predicates(const Table& syn, const MatchCounter& counter,
                                             const std::vector<std::size_t>& columns,
                                             std::size_t n_attacks, Rng& rng) {
  std::vector<Predicate> candidates;
  for (auto c : columns) {
    const Column& column = syn.column(c);
    const auto c32 = static_cast<std::uint32_t>(c);
    std::size_t missing = 0;
    for (auto r : counter.rows()) missing += column.missing(r) ? 1 : 0;
    if (missing == 1) candidates.push_back({{c32, Op::kIsMissing}});
    if (column.is_numeric()) {
      std::vector<double> values;
      for (auto r : counter.rows())
        if (!std::isnan(column.numeric[r])) values.push_back(column.numeric[r]);
      if (values.empty()) continue;
      std::sort(values.begin(), values.end());
      candidates.push_back({{c32, Op::kLe, values.front()}});
      candidates.push_back({{c32, Op::kGe, values.back()}});
      for (std::size_t i = 0; i < values.size();) {
        std::size_t j = i;
        while (j < values.size() && values[j] == values[i]) ++j;
        if (j - i == 1) candidates.push_back({{c32, Op::kEq, values[i]}});
        i = j;
      }
    } else {
      std::vector<std::uint32_t> count(column.cardinality(), 0);
      for (auto r : counter.rows())
        if (!is_missing(column.codes[r])) ++count[column.codes[r]];
      for (std::uint32_t code = 0; code < count.size(); ++code)
        if (count[code] == 1) candidates.push_back({{c32, Op::kEq, 0, code}});
    }
  }
  for (std::size_t i = candidates.size(); i > 1; --i)
    std::swap(candidates[i - 1], candidates[rng.below(i)]);
  SinglingOutSet found;
  for (const auto& p : candidates) {
    if (found.predicates.size() >= n_attacks) break;
    found.offer(p, counter);
  }
  return std::move(found.predicates);
}

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t half = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half),
                   values.end());
  const double upper = values[half];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half)) +
          upper) /
         2;
}

// anonymeter's multivariate attack: a random synthetic record and n_cols random columns give the
// predicate "column == value" (categorical), "column >= value" above the column's synthetic
// median and "column <= value" otherwise (numeric), "column is missing" for a missing value; kept
// when it singles out, until n_attacks are found or max_attempts records were drawn. A predicate
// drawn again is not checked again (anonymeter re-checks it; the outcome is the same), and the
// search ends early once kDrought draws in a row brought no predicate not drawn before: on data
// with few distinct predicates anonymeter spins through all max_attempts, and after such a
// drought the predicates not yet drawn hold (with 95% confidence) less than 3/kDrought of the
// draw probability, so hardly any would be found by going on.
constexpr std::size_t kDrought = 1000000;
std::vector<Predicate> multivariate_predicates(const Table& syn, const MatchCounter& counter,
                                               const std::vector<std::size_t>& columns,
                                               std::size_t n_attacks, std::size_t n_cols,
                                               std::size_t max_attempts, Rng& rng) {
  std::vector<double> medians(syn.column_count(), std::numeric_limits<double>::quiet_NaN());
  for (auto c : columns) {
    const Column& column = syn.column(c);
    if (!column.is_numeric()) continue;
    std::vector<double> values;
    for (auto r : counter.rows())
      if (!std::isnan(column.numeric[r])) values.push_back(column.numeric[r]);
    medians[c] = median(std::move(values));
  }
  SinglingOutSet found;
  ColumnDraw draw(columns, n_cols);
  Predicate p;
  std::size_t since_new = 0;
  for (std::size_t attempt = 0; attempt < max_attempts && found.predicates.size() < n_attacks;
       ++attempt) {
    const std::uint32_t row = counter.rows()[rng.below(counter.size())];
    p.clear();
    for (auto c : draw.next(rng)) {
      const Column& column = syn.column(c);
      Term t{.column = static_cast<std::uint32_t>(c)};
      if (column.missing(row)) {
        t.op = Op::kIsMissing;
      } else if (column.is_numeric()) {
        t.value = column.numeric[row];
        t.op = t.value > medians[c] ? Op::kGe : Op::kLe;
      } else {
        t.code = column.codes[row];
        t.op = Op::kEq;
      }
      p.push_back(t);
    }
    if (found.offer(p, counter))
      since_new = 0;
    else if (++since_new >= kDrought)
      break;
  }
  return std::move(found.predicates);
}

// anonymeter's random-guess baseline: n_cols random columns, each with a value drawn uniformly
// from the column's distinct synthetic values (missing included) and a random operator (== or !=
// for categories; ==, !=, >, <, >=, <= for numbers; "is" or "is not" missing for a missing value).
// These predicates need not single out a synthetic record.
std::vector<Predicate> random_predicates(const Table& syn, const MatchCounter& counter,
                                         const std::vector<std::size_t>& columns,
                                         std::size_t n_attacks, std::size_t n_cols, Rng& rng) {
  struct Values {
    std::vector<double> numeric;
    std::vector<std::uint32_t> codes;
    bool missing = false;
    std::size_t size() const { return numeric.size() + codes.size() + (missing ? 1 : 0); }
  };
  std::vector<Values> distinct(syn.column_count());
  for (auto c : columns) {
    const Column& column = syn.column(c);
    Values& v = distinct[c];
    for (auto r : counter.rows()) {
      if (column.missing(r))
        v.missing = true;
      else if (column.is_numeric())
        v.numeric.push_back(column.numeric[r]);
      else
        v.codes.push_back(column.codes[r]);
    }
    std::sort(v.numeric.begin(), v.numeric.end());
    v.numeric.erase(std::unique(v.numeric.begin(), v.numeric.end()), v.numeric.end());
    std::sort(v.codes.begin(), v.codes.end());
    v.codes.erase(std::unique(v.codes.begin(), v.codes.end()), v.codes.end());
  }
  static constexpr Op kNumericOps[] = {Op::kEq, Op::kNe, Op::kGt, Op::kLt, Op::kGe, Op::kLe};
  std::vector<Predicate> predicates;
  ColumnDraw draw(columns, n_cols);
  for (std::size_t i = 0; i < n_attacks; ++i) {
    Predicate p;
    for (auto c : draw.next(rng)) {
      const Values& v = distinct[c];
      Term t{.column = static_cast<std::uint32_t>(c)};
      const std::size_t pick = rng.below(v.size());
      if (pick == v.numeric.size() + v.codes.size()) {
        t.op = rng.below(2) == 0 ? Op::kIsMissing : Op::kNotMissing;
      } else if (syn.column(c).is_numeric()) {
        t.value = v.numeric[pick];
        t.op = kNumericOps[rng.below(6)];
      } else {
        t.code = v.codes[pick];
        t.op = rng.below(2) == 0 ? Op::kEq : Op::kNe;
      }
      p.push_back(t);
    }
    predicates.push_back(std::move(p));
  }
  return predicates;
}

// A predicate as a pandas query expression (backquoted names; numbers to 17 significant digits;
// categories as quoted strings): what the details list and the independent check re-runs.
std::string to_query(const Table& table, const Predicate& predicate) {
  std::string out;
  for (const auto& t : predicate) {
    if (!out.empty()) out += " & ";
    const Column& column = table.column(t.column);
    const std::string name = "`" + column.name + "`";
    if (t.op == Op::kIsMissing) {
      out += name + ".isna()";
      continue;
    }
    if (t.op == Op::kNotMissing) {
      out += name + ".notna()";
      continue;
    }
    static const char* const kSymbols[] = {"==", "!=", ">=", "<=", ">", "<"};
    out += name + " " + kSymbols[static_cast<int>(t.op)] + " ";
    if (column.is_numeric()) {
      char buffer[40];
      std::snprintf(buffer, sizeof buffer, "%.17g", t.value);
      out += buffer;
    } else {
      std::string level;
      for (char ch : column.dictionary->level(t.code)) {
        if (ch == '\'' || ch == '\\') level.push_back('\\');
        level.push_back(ch);
      }
      out += "'" + level + "'";
    }
  }
  return out;
}

struct ModeOutcome {
  stats::AttackCounts counts;
  double n_success_full = 0, n_control_full = 0;
  nlohmann::json details;
};

// Successes of `predicates` on `counter`'s table compared at `size` records: the expected number
// that single out one record of a random `size`-record subset (the exact count when `size` is
// the table's own), and the plain count on the whole table.
struct Successes {
  double at_size = 0, full = 0;
  std::vector<std::size_t> matches;
};

Successes count_successes(const std::vector<Predicate>& predicates, const MatchCounter& counter,
                          std::size_t size, bool keep_matches) {
  Successes s;
  const bool thinned = size < counter.size();
  for (const auto& p : predicates) {
    const std::size_t m =
        counter.count(p, thinned || keep_matches ? std::numeric_limits<std::size_t>::max() : 2);
    s.full += m == 1 ? 1 : 0;
    s.at_size += single_match_probability(m, counter.size(), size);
    if (keep_matches) s.matches.push_back(m);
  }
  return s;
}

MetricResult compute_singling_out(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& syn = in.first_synthetic();
  const Table& conf = in.confidential;
  const auto n_attacks = static_cast<std::size_t>(params.get_int("n_attacks"));
  const auto n_cols = static_cast<std::size_t>(params.get_int("n_cols"));
  const auto max_attempts = static_cast<std::size_t>(params.get_int("max_attempts"));
  const double level = params.get_double("confidence_level");
  const bool list = params.get_bool("list_predicates");
  const std::string& mode = params.get_string("mode");

  const std::vector<std::size_t> columns = attack_columns(conf, in.context);
  if (columns.empty()) throw MetricNotApplicable("no columns to build predicates from");
  const bool multivariate = mode == "both" || mode == "multivariate";
  if (multivariate && n_cols > columns.size())
    throw InputError("parameters.singling_out_attack.n_cols: " + std::to_string(n_cols) +
                     " columns per predicate asked for, but the data have " +
                     std::to_string(columns.size()) + " attack columns");
  MatchCounter syn_counter(syn, distinct_rows(syn), columns);
  if (syn_counter.size() == 0) throw MetricNotApplicable("no synthetic rows");
  MatchCounter train_counter(conf, distinct_rows(conf), columns);
  std::optional<MatchCounter> control_counter;
  if (in.holdout != nullptr && in.holdout->rows() > 0)
    control_counter.emplace(*in.holdout, distinct_rows(*in.holdout), columns);
  // A predicate isolates a record of a small file more easily than of a large one, so training
  // and control are compared at the same size: the smaller one's (see the doc).
  const std::size_t compared_size = control_counter
                                        ? std::min(train_counter.size(), control_counter->size())
                                        : train_counter.size();

  std::vector<std::pair<std::string, std::size_t>> runs;  // mode, columns per predicate
  if (mode == "both" || mode == "univariate") runs.emplace_back("univariate", 1);
  if (multivariate) runs.emplace_back("multivariate", n_cols);
  nlohmann::json details = nlohmann::json::array();
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const auto& [name, cols] = runs[k];
    const std::string scope =
        "mode=" + name + (name == "multivariate" ? ";n_cols=" + std::to_string(cols) : "");
    Rng attack_rng(in.seed, 2 * k + 1), baseline_rng(in.seed, 2 * k + 2);
    const std::vector<Predicate> predicates =
        name == "univariate"
            ? univariate_predicates(syn, syn_counter, columns, n_attacks, attack_rng)
            : multivariate_predicates(syn, syn_counter, columns, n_attacks, cols, max_attempts,
                                      attack_rng);
    const std::vector<Predicate> baseline =
        random_predicates(syn, syn_counter, columns, n_attacks, cols, baseline_rng);
    if (predicates.size() < n_attacks)
      result.warnings.push_back(
          scope + ": the synthetic data gave " + std::to_string(predicates.size()) +
          " distinct singling-out predicates of the " + std::to_string(n_attacks) +
          " asked for; rates are over the predicates found");

    const Successes train = count_successes(predicates, train_counter, compared_size, list);
    const Successes base = count_successes(baseline, train_counter, compared_size, list);
    stats::AttackCounts counts{.n_attacks = static_cast<double>(predicates.size()),
                               .n_success = train.at_size,
                               .n_baseline = base.at_size * static_cast<double>(predicates.size()) /
                                             static_cast<double>(n_attacks)};
    Successes control;
    if (control_counter) {
      control = count_successes(predicates, *control_counter, compared_size, list);
      counts.n_control_attacks = static_cast<double>(predicates.size());
      counts.n_control = control.at_size;
    }
    if (!predicates.empty()) {
      for (auto& [statistic, value] :
           stats::attack_statistics(stats::summarize_attack(counts, level)))
        result.add(statistic, scope, value);
    }
    result.add("n_requested", scope, static_cast<double>(n_attacks));
    result.add("compared_size", scope, static_cast<double>(compared_size));
    result.add("n_success_full", scope, train.full);
    if (control_counter) result.add("n_control_full", scope, control.full);

    nlohmann::json entry = {{"scope", scope},
                            {"mode", name},
                            {"n_cols", cols},
                            {"training_records", train_counter.size()},
                            {"control_records", control_counter ? control_counter->size() : 0},
                            {"synthetic_records", syn_counter.size()},
                            {"compared_size", compared_size},
                            {"baseline_queries", baseline.size()},
                            {"baseline_successes", base.at_size}};
    if (list) {
      nlohmann::json rows = nlohmann::json::array();
      for (std::size_t i = 0; i < predicates.size(); ++i) {
        nlohmann::json row = {{"query", to_query(syn, predicates[i])},
                              {"training_matches", train.matches[i]}};
        if (control_counter) row["control_matches"] = control.matches[i];
        rows.push_back(std::move(row));
      }
      entry["predicates"] = std::move(rows);
      nlohmann::json random_rows = nlohmann::json::array();
      for (std::size_t i = 0; i < baseline.size(); ++i)
        random_rows.push_back(
            {{"query", to_query(syn, baseline[i])}, {"training_matches", base.matches[i]}});
      entry["baseline_predicates"] = std::move(random_rows);
    }
    details.push_back(std::move(entry));
  }
  std::vector<std::string> categorical;
  for (auto c : columns)
    if (conf.column(c).is_categorical()) categorical.push_back(conf.column(c).name);
  result.details["singling_out"] = std::move(details);
  result.details["categorical_columns"] = categorical;
  if (!control_counter)
    result.warnings.push_back(
        "no holdout: without a control set the risk is the attack's success rate itself; the "
        "random-predicate baseline (baseline_rate) is the comparison");
  return result;
}

}  // namespace

MetricSpec singling_out_attack_metric() {
  using enum ScopeKind;
  using namespace references;
  const auto attack_stat = [](std::string name, std::string meaning, std::optional<Ideal> ideal,
                              OutputClass output = OutputClass::kAggregate) {
    return StatisticSpec{std::move(name), std::move(meaning), ideal, {kScenario}, output};
  };
  return MetricSpec{
      .name = "singling_out_attack",
      .family = MetricFamily::kAttackDisclosure,
      .summary =
          "Singling-out attack (anonymeter): predicates isolating one synthetic record, tried "
          "on the training data against a control set",
      .doc =
          "The attacker writes predicates that match exactly one (distinct) synthetic record and "
          "claims each isolates one real person; a predicate succeeds when it matches exactly one "
          "(distinct) training record, and the control attack tries the same predicates on the "
          "holdout (Giomi et al. 2023; singling out as in Article 29 Working Party 2014 and "
          "Cohen & Nissim 2020). Duplicate records are dropped from all three data sets first, "
          "as anonymeter does; survey design columns (weights:, household:) are not used.\n\n"
          "- mode=univariate: from every column the value held by one synthetic record (==), the "
          "minimum (<=) and maximum (>=) of a numeric column and \"is missing\" when one record "
          "is missing; shuffled and kept while they single out, up to n_attacks.\n"
          "- mode=multivariate;n_cols=K: a random synthetic record and K random columns give a "
          "conjunction of \"== value\" (categorical), \">= value\" above the column's synthetic "
          "median and \"<= value\" otherwise (numeric), \"is missing\"; kept when it singles out "
          "and is new, until n_attacks are found, max_attempts records were drawn, or "
          "1,000,000 draws in a row brought no predicate not drawn before (anonymeter goes on "
          "to max_attempts; the predicates still undrawn then carry under 3·10⁻⁶ of the draws).\n"
          "- Baseline: n_attacks random predicates on the same number of columns, values drawn "
          "from the synthetic values and operators at random (anonymeter's random attacker); "
          "their successes on the training data, scaled to the number of predicates found.\n\n"
          "Rates are Wilson score centres and risk = (attack_rate − control_rate)/(1 − "
          "control_rate) with its propagated interval clipped to [0, 1] (anonymeter's "
          "conventions). When the synthetic data yield fewer distinct predicates than "
          "n_attacks, a warning says so and the rates are over the predicates found; anonymeter "
          "divides by n_attacks instead, which understates the rates by the ratio "
          "found/n_attacks.\n\n"
          "Sizes: the chance that a predicate of weight w isolates one of n records, n·w·(1 − "
          "w)^(n−1), depends on n, so training and control are compared at the same size, the "
          "smaller one's (compared_size): the larger file's success is the exact expected "
          "number of predicates that single out one record of a simple random sample of "
          "compared_size of its records, Σ m·C(N − m, n − 1)/C(N, n) over predicates matching "
          "m of its N records (no random draw, so no sampling noise). anonymeter instead scales "
          "the control count up to the training size with a model fitted to random subsamples "
          "of the control set; its risk is on the training size, ours on the smaller size. "
          "n_success_full and n_control_full are the plain counts on each whole file. Without a "
          "holdout the risk is the attack rate and the random baseline is the comparison.",
      .params = {{.name = "mode",
                  .type = ParamType::kString,
                  .default_value = std::string("both"),
                  .doc = "which attacks run: univariate, multivariate or both",
                  .choices = {"both", "univariate", "multivariate"}},
                 {.name = "n_attacks",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{500},
                  .doc = "predicates to generate per mode (anonymeter's default: 500)",
                  .min = 1.0,
                  .max = 1e7},
                 {.name = "n_cols",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{3},
                  .doc = "columns per multivariate predicate (anonymeter's default: 3)",
                  .min = 1.0,
                  .max = 1e4},
                 {.name = "max_attempts",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{10000000},
                  .doc = "records drawn at most while building multivariate predicates "
                         "(anonymeter's default: 10,000,000)",
                  .min = 1.0,
                  .max = 1e12},
                 {.name = "confidence_level",
                  .type = ParamType::kDouble,
                  .default_value = 0.95,
                  .doc = "level of the Wilson intervals and the risk interval",
                  .min = 0.5,
                  .max = 0.999},
                 {.name = "list_predicates",
                  .type = ParamType::kBool,
                  .default_value = false,
                  .doc = "list every predicate (as a pandas query) with its match counts in "
                         "the details of results.json"}},
      .granularity = MetricGranularity::kPerReplicate,
      .compute = compute_singling_out,
      .statistics =
          {attack_stat("n_attacks", "singling-out predicates found on the synthetic data",
                       std::nullopt, OutputClass::kCount),
           attack_stat("n_success",
                       "predicates that single out one training record (expected number at "
                       "compared_size)",
                       std::nullopt, OutputClass::kCount),
           attack_stat("n_baseline",
                       "successes of the random predicates on the training data, per n_attacks "
                       "predicates",
                       std::nullopt, OutputClass::kCount),
           attack_stat("n_control_attacks", "predicates tried on the control set (NA without one)",
                       std::nullopt, OutputClass::kCount),
           attack_stat("n_control",
                       "predicates that single out one control record (expected number at "
                       "compared_size)",
                       std::nullopt, OutputClass::kCount),
           attack_stat("attack_rate", "Wilson centre of the attack's success rate", Ideal::lower()),
           attack_stat("baseline_rate", "Wilson centre of the random predicates' success rate",
                       std::nullopt),
           attack_stat("control_rate", "Wilson centre of the success rate on the control set",
                       std::nullopt),
           attack_stat("risk",
                       "residual singling-out risk (attack − control)/(1 − control), clipped to "
                       "[0, 1]; the attack rate without a control set",
                       Ideal::lower()),
           attack_stat("risk_ci_lo", "lower end of the risk interval", Ideal::lower()),
           attack_stat("risk_ci_hi", "upper end of the risk interval", Ideal::lower()),
           attack_stat("attack_fraction", "n_success / n_attacks", Ideal::lower()),
           attack_stat("baseline_fraction", "n_baseline / n_attacks", std::nullopt),
           attack_stat("control_fraction", "n_control / n_control_attacks", std::nullopt),
           attack_stat("n_requested", "predicates asked for (n_attacks parameter)", std::nullopt),
           attack_stat("compared_size",
                       "records (distinct) at which training and control are compared: the "
                       "smaller file's",
                       std::nullopt, OutputClass::kCount),
           attack_stat("n_success_full",
                       "predicates that single out one record of the whole training data",
                       std::nullopt, OutputClass::kCount),
           attack_stat("n_control_full",
                       "predicates that single out one record of the whole control set",
                       std::nullopt, OutputClass::kCount)},
      .references = {cite(giomi_2023(),
                          "the univariate and multivariate singling-out attacks, the random "
                          "baseline and the residual risk against a control set"),
                     cite(anonymeter_software(),
                          "attack rules and default settings; risk band "
                          "reproduced on SD2011"),
                     cite(article29_2014(), "singling out as a criterion of anonymisation"),
                     cite(cohen_nissim_2020(),
                          "predicate singling out and its dependence on the data size")},
  };
}

}  // namespace synthaudit
