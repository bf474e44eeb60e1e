// The checks before the metrics (engine/data_checks.hpp) and the did-you-mean ranking. Counts on
// the SD2011 files are compared with tests/golden/data_checks/golden.json, made independently
// with the Python standard library by tests/golden/data_checks/make_golden.py.
#include "engine/data_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/threads.hpp"
#include "engine/evaluate.hpp"
#include "input_error_of.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

nlohmann::json golden() {
  std::ifstream in(std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/data_checks/golden.json");
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in);
}

ReadSettings income_codes() {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8};
  return settings;
}

Column numeric_column(std::vector<double> values) {
  Column c;
  c.name = "x";
  c.kind = ColumnKind::kNumeric;
  c.numeric = std::move(values);
  return c;
}

std::vector<double> repeated(double value, std::size_t times) {
  return std::vector<double>(times, value);
}

std::vector<double> joined(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<double> range(double from, double to) {
  std::vector<double> out;
  for (double v = from; v <= to; v += 1) out.push_back(v);
  return out;
}

}  // namespace

TEST(DidYouMean, PrefersTheNameSharingTheStartAmongEqualDistances) {
  // 'wage' is one edit from both 'age' and 'wages'; the typed start decides, whatever the order.
  EXPECT_EQ(did_you_mean("wage", {"age", "wages", "sex"}), " (did you mean 'wages'?)");
  EXPECT_EQ(did_you_mean("wage", {"wages", "age"}), " (did you mean 'wages'?)");
  // Case costs nothing: 'Income' is 'income', not 'come' or 'incomes'.
  EXPECT_EQ(did_you_mean("Income", {"come", "incomes", "income"}), " (did you mean 'income'?)");
  EXPECT_EQ(did_you_mean("agee", {"sex", "age", "edu"}), " (did you mean 'age'?)");
  EXPECT_EQ(did_you_mean("zzzzzz", {"age", "wages"}), "");
}

TEST(DataChecks, RowCopiesAndRepeatsMatchAnIndependentCountOnSd2011) {
  const auto g = golden();
  const auto train =
      load_tables(shared_data("sd2011/train.csv"), {shared_data("sd2011/train_syn.csv")},
                  shared_data("sd2011/holdout.csv"), income_codes());
  const auto orig = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                                shared_data("sd2011/holdout.csv"), income_codes());
  auto expect_counts = [](const RowCopies& got, const nlohmann::json& want, const char* what) {
    EXPECT_EQ(got.rows, want["rows"].get<std::size_t>()) << what;
    EXPECT_EQ(got.copies, want["copies"].get<std::size_t>()) << what;
  };
  expect_counts(count_row_copies(train.synthetic[0], train.confidential),
                g["copies"]["train_syn|train"], "train_syn");
  expect_counts(count_row_copies(*train.holdout, train.confidential), g["copies"]["holdout|train"],
                "holdout vs train");
  expect_counts(count_row_copies(orig.synthetic[0], orig.confidential), g["copies"]["syn|orig"],
                "syn");
  expect_counts(count_row_copies(*orig.holdout, orig.confidential), g["copies"]["holdout|orig"],
                "holdout vs orig");
  expect_counts(count_repeated_rows(orig.confidential), g["repeats"]["orig"], "orig repeats");
  expect_counts(count_repeated_rows(train.confidential), g["repeats"]["train"], "train repeats");

  // synthpop's CART copies 26 % of the training rows against 13 % for the holdout: not flagged;
  // the training file itself (100 %) is.
  const RowCopies chance = count_row_copies(*train.holdout, train.confidential);
  EXPECT_FALSE(copies_far_above(count_row_copies(train.synthetic[0], train.confidential), chance));
  EXPECT_TRUE(copies_far_above(count_row_copies(train.confidential, train.confidential), chance));
  EXPECT_TRUE(same_content(train.confidential, train.confidential));
  EXPECT_FALSE(same_content(train.synthetic[0], train.confidential));
}

TEST(DataChecks, RowEqualityTreatsMissingAndCodesAsValues) {
  ReadSettings settings;
  settings.missing_codes["x"] = {-9};
  const auto t = make_tables("x,c\n1,a\n,b\n-9,a\n0,\n", {"x,c\n1,a\n,b\n,a\n-0,\n2,a\n"},
                             std::nullopt, settings);
  // rows 1, 2 and 4 copy (missing = missing, -0 = 0); row 3 has an ordinary missing value
  // where the confidential row has the code -9; row 5 is new.
  const RowCopies copies = count_row_copies(t.synthetic[0], t.confidential);
  EXPECT_EQ(copies.rows, 5u);
  EXPECT_EQ(copies.copies, 3u);
  EXPECT_EQ(count_repeated_rows(t.confidential).copies, 0u);
  const auto twice = make_tables("x,c\n1,a\n1,a\n2,b\n1,a\n", {});
  EXPECT_EQ(count_repeated_rows(twice.confidential).copies, 3u);
}

TEST(DataChecks, CopyRuleNeedsHalfTheRoomAboveChanceAndFourStandardErrors) {
  // Chance 20 % of 1,000 rows: the limit is 20 % + half of 80 % = 60 %.
  const RowCopies chance{1000, 200};
  EXPECT_TRUE(copies_far_above({1000, 600}, chance));
  EXPECT_FALSE(copies_far_above({1000, 599}, chance));
  // Far above in share but on 4 rows: not beyond 4 standard errors (sqrt(.75 × .25 / 4) = 0.22).
  EXPECT_FALSE(copies_far_above({4, 3}, {4, 0}));
  // Every row a copy when chance is none: no spread, flagged.
  EXPECT_TRUE(copies_far_above({4, 4}, {4, 0}));
  // Chance 100 %: nothing is far above it.
  EXPECT_FALSE(copies_far_above({10, 10}, {10, 10}));
}

TEST(DataChecks, CopiesOfTheConfidentialDataAreFindingsThatFailTheCandidate) {
  const auto t = make_tables("x,c\n1,a\n2,b\n3,a\n4,b\n5,a\n6,b\n7,a\n8,b\n",
                             {"x,c\n8,b\n7,a\n6,b\n5,a\n4,b\n3,a\n2,b\n1,a\n",      // shuffled copy
                              "x,c\n1,\"a\"\n2,b\n3,a\n4,b\n5,a\n6,b\n7,a\n8,b\n",  // other bytes
                              "x,c\n1,b\n2,a\n3,b\n4,a\n5,b\n6,a\n7,b\n8,a\n"});
  EvaluationData data;
  data.schema = t.schema;
  data.confidential = t.confidential;
  data.candidates = {
      {"shuffled", {t.synthetic[0]}}, {"same", {t.synthetic[1]}}, {"honest", {t.synthetic[2]}}};
  const auto findings = check_copies(data, SynthesisType::kFull);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].candidate, "shuffled");
  EXPECT_EQ(findings[0].check, "copies_confidential_rows");
  EXPECT_TRUE(findings[0].fails_candidate);
  EXPECT_DOUBLE_EQ(findings[0].numbers["copy_share"].get<double>(), 1.0);
  EXPECT_EQ(findings[1].candidate, "same");
  EXPECT_EQ(findings[1].check, "identical_to_confidential");
  EXPECT_NE(findings[1].message.find("the same values in the same rows"), std::string::npos);
  // A partial synthesis keeps rows by design: only identity is a finding.
  const auto partial = check_copies(data, SynthesisType::kPartial);
  ASSERT_EQ(partial.size(), 1u);
  EXPECT_EQ(partial[0].candidate, "same");
}

TEST(DataChecks, MissingCodeSpikesFollowTheDocumentedRule) {
  auto values_of = [](const Column& c) {
    std::vector<double> out;
    for (const auto& s : find_missing_code_spikes(c)) out.push_back(s.value);
    return out;
  };
  const std::vector<double> none;
  // -9 below a scale 1..5 and 99 above it: both ends.
  EXPECT_EQ(values_of(numeric_column(joined(joined(repeated(-9, 10), range(1, 5)),
                                            joined(range(1, 5), repeated(99, 6))))),
            (std::vector<double>{-9, 99}));
  // A negative code below non-negative values, close to them (income's -8 below 0).
  EXPECT_EQ(values_of(numeric_column(joined(repeated(-8, 20), range(0, 3000)))),
            (std::vector<double>{-8}));
  // 999 far above values up to 500.
  EXPECT_EQ(values_of(numeric_column(joined(range(0, 500), repeated(999, 30)))),
            (std::vector<double>{999}));
  // A common top answer of a 1..9 scale is a value, not a code: 9 is next to 8.
  EXPECT_EQ(values_of(numeric_column(joined(range(1, 8), repeated(9, 40)))), none);
  // 99 next to ages up to 97 is not apart from them.
  EXPECT_EQ(values_of(numeric_column(joined(range(16, 97), repeated(99, 10)))), none);
  // Fewer than 5 rows, or under 0.5 % of the values: not a spike.
  EXPECT_EQ(values_of(numeric_column(joined(range(1, 5), repeated(99, 4)))), none);
  EXPECT_EQ(values_of(numeric_column(joined(range(1, 2000), repeated(-9, 9)))), none);
  // -10 is not a typical code.
  EXPECT_EQ(values_of(numeric_column(joined(repeated(-10, 20), range(0, 50)))), none);
  // Already declared codes are missing (NaN), so nothing is left to report.
  EXPECT_EQ(values_of(numeric_column(joined(repeated(NAN, 20), range(0, 50)))), none);
}

TEST(DataChecks, MissingCodeSpikesOnSd2011AreIncomeMinusEightOnly) {
  const auto g = golden();
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {});
  const auto findings = check_missing_code_spikes(t.confidential);
  std::size_t expected = 0;
  for (const auto& [column, spikes] : g["spikes"].items()) expected += spikes.size();
  ASSERT_EQ(findings.size(), expected);
  ASSERT_EQ(findings.size(), 1u);
  const auto& want = g["spikes"]["income"][0];
  EXPECT_EQ(findings[0].column, "income");
  EXPECT_EQ(findings[0].numbers["value"].get<double>(), want["value"].get<double>());
  EXPECT_EQ(findings[0].numbers["rows"].get<std::size_t>(), want["rows"].get<std::size_t>());
  EXPECT_EQ(findings[0].numbers["values"].get<std::size_t>(), want["values"].get<std::size_t>());
  EXPECT_EQ(findings[0].numbers["nearest_other"].get<double>(),
            want["nearest_other"].get<double>());
  // Declared, it is gone.
  const auto declared =
      load_tables(shared_data("sd2011/orig.csv"), {}, std::nullopt, income_codes());
  EXPECT_TRUE(check_missing_code_spikes(declared.confidential).empty());
}

TEST(DataChecks, NamedColumnsMustExistWithAUsableKind) {
  const auto t = make_tables("age,wages,sex,smoker\n30,1200,F,0\n41,2300,M,1\n52,,F,0\n", {});
  EvaluationSpec spec;
  spec.origin = "spec.yaml";
  spec.context.scenarios = {{{"sex", "wage"}, {"age"}}};
  EXPECT_EQ(error_of([&] { check_named_columns(spec, t.confidential); }),
            "spec.yaml: disclosure[0].keys: no column 'wage' in the confidential data "
            "(confidential.csv) (did you mean 'wages'?)");
  spec.context.scenarios = {{{"sex"}, {"age"}}};
  spec.context.analyses = {parse_analysis("lm: log(wages) ~ age + factor(sex)", 0, "test"),
                           parse_analysis("glm_logit: smoker ~ age", 1, "test"),
                           parse_analysis("proportion: sex", 2, "test")};
  EXPECT_EQ(error_of([&] { check_named_columns(spec, t.confidential); }), "");
  spec.context.analyses.push_back(parse_analysis("mean: sex", 3, "test"));
  EXPECT_EQ(error_of([&] { check_named_columns(spec, t.confidential); }),
            "spec.yaml: analyses[3] ('mean_4'): column 'sex' is categorical, and this use needs "
            "a numeric column");
  spec.context.analyses = {parse_analysis("glm_logit: age ~ sex", 0, "test")};
  EXPECT_NE(error_of([&] {
              check_named_columns(spec, t.confidential);
            }).find("spec.yaml: analyses[0] ('glm_logit_1'): "),
            std::string::npos);
  // A parameter naming columns is checked even when its metric is not selected.
  spec.context.analyses.clear();
  spec.metrics = {"ks_distance"};
  spec.parameters["table_utility"] = {{"columns", nlohmann::json::array({"age", "Sex"})}};
  EXPECT_EQ(error_of([&] { check_named_columns(spec, t.confidential); }),
            "spec.yaml: parameters.table_utility.columns: no column 'Sex' in the confidential "
            "data (confidential.csv) (did you mean 'sex'?)");
}

TEST(DataChecks, PartialSynthesisKeepsTheOtherColumnsRowByRow) {
  const auto t = make_tables("a,b,c\n1,x,p\n2,y,q\n3,x,r\n",
                             {"a,b,c\n1,y,p\n2,y,q\n3,x,r\n",    // b changed in row 1
                              "a,b,c\n3,x,r\n1,x,p\n2,y,q\n"});  // rows reordered
  EvaluationData data;
  data.schema = t.schema;
  data.confidential = t.confidential;
  data.candidates = {{"p", {t.synthetic[0]}}};
  EvaluationSpec spec;
  spec.context.synthesis = SynthesisType::kPartial;
  EXPECT_EQ(check_partial_synthesis(spec, data), (std::vector<std::string>{"a", "c"}));
  spec.synthesised_columns = {"b"};
  EXPECT_EQ(check_partial_synthesis(spec, data), (std::vector<std::string>{"a", "c"}));
  spec.synthesised_columns = {"c"};
  EXPECT_EQ(error_of([&] { check_partial_synthesis(spec, data); }),
            "synthetic_1.csv: row 1, column 'b': 'y' where the confidential data have 'x'; a "
            "partial synthesis keeps the columns it does not synthesise (all but "
            "synthesised_columns) row by row");
  spec.synthesised_columns.clear();
  data.candidates = {{"p", {t.synthetic[1]}}};
  EXPECT_EQ(error_of([&] { check_partial_synthesis(spec, data); }),
            "synthetic_2.csv: not a partial synthesis of the confidential data: no column "
            "equals the confidential data row by row (the first difference is row 1, column "
            "'a'); give "
            "synthesised_columns, or synthesis: full");
  spec.context.synthesis = SynthesisType::kFull;
  EXPECT_TRUE(check_partial_synthesis(spec, data).empty());
}

// --- the exact row index against a cell-by-cell comparison --------------------------------------

namespace {

// Each cell as text, independently of the index's fingerprints: the level, "NA", the declared
// missing code's position, or the number's exact bits written in hexadecimal (-0 as 0).
std::string cell_text(const Column& column, std::size_t row) {
  if (column.is_categorical())
    return column.codes[row] == kMissingCode ? "NA"
                                             : "L" + column.dictionary->level(column.codes[row]);
  const double v = column.numeric[row];
  if (std::isnan(v))
    return "NA" +
           std::to_string(column.missing_code_index.empty() ? 0 : column.missing_code_index[row]);
  char text[64];
  std::snprintf(text, sizeof text, "%a", v == 0.0 ? 0.0 : v);
  return text;
}

std::string row_text(const Table& table, std::size_t row) {
  std::string out;
  for (const auto& column : table.columns()) out += cell_text(column, row) + "|";
  return out;
}

RowCopies copies_by_text(const Table& table, const Table& reference) {
  std::set<std::string> rows;
  for (std::size_t r = 0; r < reference.rows(); ++r) rows.insert(row_text(reference, r));
  RowCopies out{table.rows(), 0};
  for (std::size_t r = 0; r < table.rows(); ++r) out.copies += rows.count(row_text(table, r));
  return out;
}

RowCopies repeats_by_text(const Table& table) {
  std::map<std::string, std::size_t> classes;
  for (std::size_t r = 0; r < table.rows(); ++r) ++classes[row_text(table, r)];
  RowCopies out{table.rows(), 0};
  for (const auto& [text, members] : classes)
    if (members > 1) out.copies += members;
  return out;
}

// Few distinct values per column (many equal rows), missing values of both kinds, -0 beside 0,
// "NaN" text, a value no other row has; `copied` of the rows are lines of `from` when given.
std::string random_file(std::uint64_t seed, std::size_t rows, const std::vector<std::string>* from,
                        std::size_t copied, std::vector<std::string>* lines_out = nullptr) {
  std::mt19937_64 rng(seed);
  const std::vector<std::string> xs = {"0", "-0", "0.0", "1", "2.5", "", "NaN", "-9", "1e300"};
  const std::vector<std::string> cs = {"a", "b", "", "c"};
  std::vector<std::string> lines;
  for (std::size_t r = 0; r < rows; ++r) {
    if (from && r < copied) {
      lines.push_back((*from)[rng() % from->size()]);
      continue;
    }
    lines.push_back(xs[rng() % xs.size()] + "," + cs[rng() % cs.size()] + "," +
                    std::to_string(rng() % 3) + "," +
                    (rng() % 50 == 0 ? std::to_string(rng()) : std::string("7")));
  }
  std::shuffle(lines.begin(), lines.end(), rng);
  if (lines_out) *lines_out = lines;
  std::string text = "x,c,k,u\n";
  for (const auto& line : lines) text += line + "\n";
  return text;
}

}  // namespace

TEST(DataChecks, ExactRowIndexCountsEqualRowsAsACellByCellComparisonDoes) {
  ReadSettings settings;
  settings.missing_codes["x"] = {-9};
  settings.kinds["c"] = ColumnKind::kCategorical;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    std::vector<std::string> conf_lines;
    const std::string conf = random_file(seed, 3000, nullptr, 0, &conf_lines);
    const auto t = make_tables(conf, {random_file(seed + 10, 2500, &conf_lines, 800)},
                               random_file(seed + 20, 700, &conf_lines, 100), settings);
    const RowCopies want_syn = copies_by_text(t.synthetic[0], t.confidential);
    const RowCopies want_holdout = copies_by_text(*t.holdout, t.confidential);
    const RowCopies want_repeats = repeats_by_text(t.confidential);
    ASSERT_GT(want_repeats.copies, 0u);
    ASSERT_LT(want_syn.copies, want_syn.rows);
    for (int threads : {1, 2, 3}) {
      const ThreadCountScope scope(threads);
      const ExactRowIndex index(t.confidential);
      EXPECT_EQ(index.copies_in(t.synthetic[0]).copies, want_syn.copies) << seed << " " << threads;
      EXPECT_EQ(index.copies_in(*t.holdout).copies, want_holdout.copies) << seed;
      EXPECT_EQ(index.repeated().copies, want_repeats.copies) << seed;
      EXPECT_EQ(index.repeated().rows, 3000u);
      // Every row of the reference copies itself.
      EXPECT_EQ(index.copies_in(t.confidential).copies, 3000u);
      EXPECT_EQ(count_repeated_rows(t.synthetic[0]).copies, repeats_by_text(t.synthetic[0]).copies);
      EXPECT_EQ(count_row_copies(t.confidential, t.synthetic[0]).copies,
                copies_by_text(t.confidential, t.synthetic[0]).copies);
    }
  }
}

TEST(DataChecks, ExactRowIndexOnEmptyAndOneColumnTables) {
  const auto t = make_tables("x\n2\n", {"x\n1\n1\n"});
  const Table empty({"empty.csv", "", "confidential"}, {numeric_column({})});
  EXPECT_EQ(ExactRowIndex(empty).repeated().copies, 0u);
  EXPECT_EQ(ExactRowIndex(empty).copies_in(t.synthetic[0]).copies, 0u);
  EXPECT_EQ(ExactRowIndex(t.synthetic[0]).repeated().copies, 2u);
  EXPECT_EQ(ExactRowIndex(t.synthetic[0]).copies_in(empty).rows, 0u);
  EXPECT_EQ(ExactRowIndex(t.confidential).copies_in(t.synthetic[0]).copies, 0u);
}

TEST(DataChecks, ExactComparisonsReuseTheReferenceIndexAndGiveTheSameCounts) {
  std::vector<std::string> conf_lines;
  const std::string conf = random_file(7, 1000, nullptr, 0, &conf_lines);
  const auto t = make_tables(conf, {random_file(8, 900, &conf_lines, 300)});
  const RowComparisons compare = exact_row_comparisons();
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(compare.repeated(t.confidential).copies, repeats_by_text(t.confidential).copies);
    EXPECT_EQ(compare.copies(t.synthetic[0], t.confidential).copies,
              copies_by_text(t.synthetic[0], t.confidential).copies);
    EXPECT_EQ(compare.copies(t.confidential, t.synthetic[0]).copies,
              copies_by_text(t.confidential, t.synthetic[0]).copies);
  }
}

// The one-pass extremes against the definition (sorted distinct values) on ties at both ends,
// negatives, -0 and missing values.
TEST(DataChecks, ColumnExtremesMatchTheSortedDistinctValues) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> values;
    const std::size_t n = rng() % 40;
    for (std::size_t i = 0; i < n; ++i) {
      const auto pick = rng() % 8;
      values.push_back(pick == 0   ? std::nan("")
                       : pick == 1 ? -0.0
                                   : static_cast<double>(static_cast<int>(rng() % 7) - 3));
    }
    const ColumnExtremes e = column_extremes(numeric_column(values));
    std::vector<double> present;
    for (double v : values)
      if (!std::isnan(v)) present.push_back(v);
    std::sort(present.begin(), present.end());
    ASSERT_EQ(e.values, present.size());
    if (present.empty()) continue;
    EXPECT_EQ(e.lo, present.front());
    EXPECT_EQ(e.hi, present.back());
    EXPECT_EQ(e.at_lo, static_cast<std::size_t>(
                           std::count(present.begin(), present.end(), present.front())));
    EXPECT_EQ(e.at_hi,
              static_cast<std::size_t>(std::count(present.begin(), present.end(), present.back())));
    const auto above = std::upper_bound(present.begin(), present.end(), present.front());
    EXPECT_EQ(e.above_lo,
              above == present.end() ? std::numeric_limits<double>::infinity() : *above);
    const auto below = std::lower_bound(present.begin(), present.end(), present.back());
    EXPECT_EQ(e.below_hi,
              below == present.begin() ? -std::numeric_limits<double>::infinity() : *(below - 1));
  }
}
