// Unit tests of row batches (DataFile::visit_row_batches, src/io/csv.cpp) and of the decoder that
// takes them column by column (src/io/load.cpp): the same rows, fields and threads as visit_rows
// (quotes with escaped quotes spread over a batch, CRLF, line breaks in quotes, empty, long and
// UTF-8 fields, row names), the same table as one row at a time (the default batches of one
// row), and the error of the first failing row in row order, then column order.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "input_error_of.hpp"
#include "io/csv.hpp"
#include "io/load.hpp"

using namespace synthaudit;

namespace {

struct VisitedRow {
  int thread = -1;
  std::vector<std::string> fields;
  bool operator==(const VisitedRow& o) const { return thread == o.thread && fields == o.fields; }
};

std::vector<VisitedRow> by_rows(const DataFile& file) {
  std::vector<VisitedRow> out(file.rows());
  file.visit_rows([&](int t, std::size_t r, const std::vector<std::string_view>& fields) {
    out[r].thread = t;
    for (auto f : fields) out[r].fields.emplace_back(f);
  });
  return out;
}

// The rows as batches give them, checking that each thread's batches follow one another.
std::vector<VisitedRow> by_batches(const DataFile& file, std::size_t& largest_batch) {
  std::vector<VisitedRow> out(file.rows());
  constexpr auto kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> next(static_cast<std::size_t>(file.threads()), kNone);
  std::vector<std::size_t> largest(next.size(), 0);
  file.visit_row_batches([&](int t, const DataFile::RowBatch& batch) {
    auto& expected = next[static_cast<std::size_t>(t)];
    EXPECT_GT(batch.rows, 0u);
    if (expected != kNone) {
      EXPECT_EQ(batch.first_row, expected);
    }
    expected = batch.first_row + batch.rows;
    auto& most = largest[static_cast<std::size_t>(t)];
    most = std::max(most, batch.rows);
    for (std::size_t r = 0; r < batch.rows; ++r) {
      VisitedRow& row = out[batch.first_row + r];
      row.thread = t;
      for (std::size_t c = 0; c < file.columns(); ++c) row.fields.emplace_back(batch.field(r, c));
    }
  });
  largest_batch = 0;
  for (auto most : largest) largest_batch = std::max(largest_batch, most);
  return out;
}

// A file read through the DataFile defaults: visit_row_batches gives one row per batch.
class RowByRow final : public DataFile {
 public:
  explicit RowByRow(const DataFile& file) : file_(file) {}
  const std::string& path() const override { return file_.path(); }
  const std::string& sha256() const override { return file_.sha256(); }
  const std::vector<std::string>& header() const override { return file_.header(); }
  std::size_t rows() const override { return file_.rows(); }
  int threads() const override { return file_.threads(); }
  std::size_t size() const override { return file_.size(); }
  std::string format() const override { return file_.format(); }
  char decimal_mark() const override { return file_.decimal_mark(); }
  void visit_rows(const RowVisitor& visit) const override { file_.visit_rows(visit); }

 private:
  const DataFile& file_;
};

// Rows of awkward fields: row i's escaped field grows with i, so the batch's buffer of
// unescaped text moves while a batch is built.
std::string awkward_text(std::size_t rows, const char* line_break, bool row_names) {
  std::string text =
      std::string(row_names ? "\"\"," : "") + "id,quoted,empty,utf8,long,newline" + line_break;
  for (std::size_t i = 0; i < rows; ++i) {
    if (row_names) text += "\"r" + std::to_string(i) + "\",";
    text += std::to_string(i) + ",";
    text += i % 3 == 0 ? "\"say \"\"" + std::string(i % 200, 'q') + "\"\" twice \"\"x\"\"\""
                       : "\"a, b\"";
    text += ",,";
    text += i % 2 == 0 ? "Z\xC3\xBCrich" : "\xE6\x9D\xB1\xE4\xBA\xAC";
    text += ",";
    text += i == rows / 2 ? std::string(200000, 'L') : "short";
    text += ",";
    text += i % 5 == 0 ? "\"line one\nline two\"" : "one line";
    text += line_break;
  }
  return text;
}

void expect_same_tables(const Table& a, const Table& b) {
  ASSERT_EQ(a.column_count(), b.column_count());
  ASSERT_EQ(a.rows(), b.rows());
  for (std::size_t c = 0; c < a.column_count(); ++c) {
    const Column& x = a.column(c);
    const Column& y = b.column(c);
    EXPECT_EQ(x.kind, y.kind) << x.name;
    ASSERT_EQ(x.numeric.size(), y.numeric.size()) << x.name;
    EXPECT_TRUE(x.numeric.empty() || std::memcmp(x.numeric.data(), y.numeric.data(),
                                                 x.numeric.size() * sizeof(double)) == 0)
        << x.name;
    EXPECT_EQ(x.missing_code_index, y.missing_code_index) << x.name;
    EXPECT_EQ(x.codes, y.codes) << x.name;
    ASSERT_EQ(x.dictionary == nullptr, y.dictionary == nullptr) << x.name;
    if (x.dictionary) {
      EXPECT_EQ(x.dictionary->levels(), y.dictionary->levels()) << x.name;
    }
  }
}

using synthaudit::testing::error_of;

}  // namespace

TEST(RowBatches, HoldTheRowsFieldsAndThreadsOfVisitRows) {
  for (const char* line_break : {"\n", "\r\n"}) {
    for (const bool row_names : {false, true}) {
      for (const std::size_t rows : {1u, 127u, 128u, 129u, 300u, 9000u}) {
        const std::string text = awkward_text(rows, line_break, row_names);
        for (const int threads : {1, 2, 3}) {
          CsvOptions options;
          options.threads = threads;
          const CsvFile file = CsvFile::from_bytes(text, "t.csv", options);
          ASSERT_EQ(file.rows(), rows);
          ASSERT_EQ(file.columns(), 6u);
          std::size_t largest = 0;
          const auto batches = by_batches(file, largest);
          const auto expected = by_rows(file);
          ASSERT_TRUE(batches == expected)
              << rows << " rows, " << threads << " threads, row names " << row_names;
          EXPECT_EQ(expected[0].fields[1], rows > 0 ? "say \"\" twice \"x\"" : "");
          EXPECT_LE(largest, 128u);
          if (rows >= 300 && threads == 1) {
            EXPECT_GT(largest, 1u);
          }
          // The default: one row per batch, the same rows.
          const RowByRow one_by_one(file);
          EXPECT_TRUE(by_batches(one_by_one, largest) == expected);
          EXPECT_EQ(largest, 1u);
        }
      }
    }
  }
}

TEST(RowBatches, DecodeToTheTableOfOneRowAtATime) {
  // Columns that change kind inside a batch, missing codes (numeric and text) in numeric and
  // categorical columns, a level seen once, 3000 levels (past the size from which lookups are
  // fetched ahead), levels longer than 32 bytes, escaped quotes, missing spellings that share
  // a first byte and a length with other values ("no" and "NA").
  std::string text = "num,late_text,coded,cat_coded,once,many,long,quoted,yesno\n";
  for (int i = 0; i < 7000; ++i) {
    text += i % 19 == 0 ? "NA" : std::to_string(i % 1000) + "." + std::to_string(i % 7);
    text += ",";
    text += i < 200 || (i > 3500 && i < 3600) ? std::to_string(i) : "t" + std::to_string(i % 9);
    text += ",";
    text += i % 11 == 0 ? "-9" : (i % 13 == 0 ? "refused" : std::to_string(i % 50));
    text += ",";
    text += i % 7 == 0 ? "-9" : (i % 17 == 0 ? "refused" : "c" + std::to_string(i % 5));
    text += ",";
    text += i == 4321 ? "only_here" : "common";
    text += ",";
    text += "level_" + std::to_string((i * 7919) % 3000);
    text += ",";
    text += std::string(40, static_cast<char>('a' + i % 3)) + std::to_string(i % 4);
    text += ",";
    text += "\"he said \"\"" + std::to_string(i % 6) + "\"\"\"";
    text += ",";
    text += i % 3 == 0 ? "no" : (i % 3 == 1 ? "NA" : "nope");
    text += "\n";
  }
  ReadSettings settings;
  settings.missing_codes["coded"] = {-9};
  settings.missing_text_codes["coded"] = {"refused"};
  settings.missing_codes["cat_coded"] = {-9};
  settings.missing_text_codes["cat_coded"] = {"refused"};
  settings.kinds["cat_coded"] = ColumnKind::kCategorical;
  for (const int threads : {1, 2, 3}) {
    settings.csv.threads = threads;
    const CsvFile file = CsvFile::from_bytes(text, "t.csv", settings.csv);
    const RowByRow one_by_one(file);
    std::vector<MissingTally> batch_tallies, row_tallies;
    const InferredTable batched = infer_and_encode(file, settings, "confidential", &batch_tallies);
    const InferredTable single =
        infer_and_encode(one_by_one, settings, "confidential", &row_tallies);
    expect_same_tables(batched.table, single.table);
    ASSERT_EQ(batch_tallies.size(), row_tallies.size());
    for (std::size_t k = 0; k < batch_tallies.size(); ++k)
      EXPECT_EQ(batch_tallies[k].codes, row_tallies[k].codes) << batch_tallies[k].column;
    // And through encode_table with the schema found.
    expect_same_tables(encode_table(file, batched.schema, settings, "synthetic"),
                       encode_table(one_by_one, single.schema, settings, "synthetic"));

    const Table& t = batched.table;
    EXPECT_TRUE(t.column("num").is_numeric());
    EXPECT_TRUE(t.column("coded").is_numeric());
    for (const char* name : {"late_text", "cat_coded", "once", "many", "long", "quoted", "yesno"})
      EXPECT_TRUE(t.column(name).is_categorical()) << name;
    EXPECT_EQ(t.column("many").dictionary->size(), 3000u);
    EXPECT_EQ(t.column("once").dictionary->size(), 2u);
    const Column& once = t.column("once");
    EXPECT_EQ(once.dictionary->level(once.codes[4321]), "only_here");
    EXPECT_EQ(t.column("yesno").missing_count(), 7000u / 3);
    const Column& quoted = t.column("quoted");
    EXPECT_EQ(quoted.dictionary->level(quoted.codes[5]), "he said \"5\"");
    EXPECT_TRUE(t.column("coded").missing(11));
    EXPECT_TRUE(t.column("cat_coded").missing(7));
    EXPECT_TRUE(t.column("cat_coded").missing(17));
  }
}

TEST(RowBatches, DecodingErrorIsTheFirstInRowOrderThenColumnOrder) {
  // Columns a and b numeric, c categorical. Each case puts bad values in some rows and columns;
  // one row at a time meets the lowest row first and, in it, the leftmost column. Rows 126-129
  // straddle the first batch's end.
  struct Case {
    std::vector<std::pair<int, char>> bad;  // (row, column)
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{5, 'a'}, {3, 'b'}},
       "t.csv: row 4, column 'b': 'bad' is not a number (the column is numeric)"},
      {{{3, 'b'}, {3, 'a'}},
       "t.csv: row 4, column 'a': 'bad' is not a number (the column is numeric)"},
      {{{2, 'c'}, {2, 'b'}},
       "t.csv: row 3, column 'b': 'bad' is not a number (the column is numeric)"},
      {{{1, 'c'}, {2, 'a'}},
       "t.csv: row 2, column 'c': the value is not valid UTF-8 (if the file is Latin-1 or "
       "Windows-1252, give --encoding latin1, or read: encoding: latin1 in the spec)"},
      {{{129, 'a'}, {127, 'b'}, {128, 'c'}},
       "t.csv: row 128, column 'b': 'bad' is not a number (the column is numeric)"},
      {{{6999, 'a'}, {4000, 'c'}},
       "t.csv: row 4001, column 'c': the value is not valid UTF-8 (if the file is Latin-1 or "
       "Windows-1252, give --encoding latin1, or read: encoding: latin1 in the spec)"},
  };
  for (const Case& test : cases) {
    std::string text = "a,b,c\n";
    for (int i = 0; i < 7000; ++i) {
      auto value = [&](char column) -> std::string {
        for (const auto& [row, where] : test.bad)
          if (row == i && where == column) return column == 'c' ? "\xff" : "bad";
        return column == 'c' ? "level" + std::to_string(i % 40) : std::to_string(i);
      };
      text += value('a') + "," + value('b') + "," + value('c') + "\n";
    }
    for (const int threads : {1, 2, 3}) {
      ReadSettings settings;
      settings.csv.threads = threads;
      settings.kinds["a"] = ColumnKind::kNumeric;
      settings.kinds["b"] = ColumnKind::kNumeric;
      settings.kinds["c"] = ColumnKind::kCategorical;
      const CsvFile file = CsvFile::from_bytes(text, "t.csv", settings.csv);
      EXPECT_EQ(error_of([&] { infer_and_encode(file, settings, "confidential"); }), test.message)
          << threads << " threads";
      const RowByRow one_by_one(file);
      EXPECT_EQ(error_of([&] { infer_and_encode(one_by_one, settings, "confidential"); }),
                test.message)
          << threads << " threads, one row at a time";
    }
  }
}
