// Unit tests of text files as people write them (src/io/csv.*, src/io/load.*): the delimiter and
// decimal mark detected or given, Windows-1252 converted to UTF-8, R's row names left out, and
// the read options of the spec and the command line (src/spec/spec.*). The fixtures in
// tests/data/text were written by R (write.csv, write.csv2, write.table), and by Python as Excel
// and Stata write them (tests/golden/io/make_text_fixtures.{py,R}); each must read to the same
// table as plain.csv.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "input_error_of.hpp"
#include "io/csv.hpp"
#include "io/load.hpp"
#include "spec/spec.hpp"

using namespace synthaudit;

namespace {

const std::string kText = std::string(SYNTHAUDIT_TEST_DATA) + "/text/";
const std::string kGolden = std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/io/";

using synthaudit::testing::error_of;

struct Read {
  std::vector<ColumnKind> kinds;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> cells;  // by column: "<NA>", a number, or a level
  std::string assumed;
  char decimal = 0;
};

Read read(const std::string& path, const ReadSettings& settings = {}) {
  const auto file = open_data_file(path, settings);
  Schema schema = infer_schema(*file, settings);
  Table table = encode_table(*file, schema, settings, "confidential");
  finalize_dictionaries(schema, {&table});
  Read out;
  out.assumed = file->assumed_layout();
  out.decimal = file->decimal_mark();
  for (std::size_t c = 0; c < table.column_count(); ++c) {
    const Column& column = table.column(c);
    out.header.push_back(column.name);
    out.kinds.push_back(column.kind);
    std::vector<std::string> cells;
    for (std::size_t r = 0; r < table.rows(); ++r) {
      if (column.missing(r)) {
        cells.push_back("<NA>");
      } else if (column.is_numeric()) {
        std::ostringstream s;
        s.precision(17);
        s << column.numeric[r];
        cells.push_back(s.str());
      } else {
        cells.push_back(column.dictionary->level(column.codes[r]));
      }
    }
    out.cells.push_back(std::move(cells));
  }
  return out;
}

void expect_same_table(const Read& got, const Read& want, const std::string& name) {
  EXPECT_EQ(got.header, want.header) << name;
  EXPECT_EQ(got.kinds, want.kinds) << name;
  EXPECT_EQ(got.cells, want.cells) << name;
}

ReadSettings windows1252() {
  ReadSettings settings;
  settings.csv.encoding = TextEncoding::kWindows1252;
  return settings;
}

}  // namespace

TEST(TextLayout, EveryWriterReadsToThePlainTable) {
  const Read plain = read(kText + "plain.csv");
  ASSERT_EQ(plain.header, (std::vector<std::string>{"name", "age", "income", "smoke"}));
  EXPECT_EQ(plain.kinds, (std::vector<ColumnKind>{ColumnKind::kCategorical, ColumnKind::kNumeric,
                                                  ColumnKind::kNumeric, ColumnKind::kCategorical}));
  EXPECT_EQ(plain.cells[0][4], "€uro Œuvre");
  EXPECT_EQ(plain.cells[2][2], "0.25");
  EXPECT_TRUE(plain.assumed.empty());
  // Excel's CSV UTF-8 (BOM, CRLF) and Stata's export delimited (".25"): nothing to assume.
  for (const char* name : {"excel_utf8.csv", "stata_export.csv"}) {
    const Read got = read(kText + name);
    expect_same_table(got, plain, name);
    EXPECT_TRUE(got.assumed.empty()) << name << ": " << got.assumed;
  }
  // R's write.csv and write.table: a row names column, left out with a note.
  for (const char* name : {"r_write_csv.csv", "r_write_table.txt"}) {
    const Read got = read(kText + name);
    expect_same_table(got, plain, name);
    EXPECT_NE(got.assumed.find("row names"), std::string::npos) << name;
  }
  // R's write.csv2: semicolons and decimal commas, detected.
  const Read csv2 = read(kText + "r_write_csv2.csv");
  expect_same_table(csv2, plain, "r_write_csv2.csv");
  EXPECT_EQ(csv2.decimal, ',');
  EXPECT_EQ(csv2.assumed.rfind("read as semicolon-separated with a decimal comma (detected; say "
                               "otherwise with --delimiter and --decimal",
                               0),
            0u)
      << csv2.assumed;
  // Windows-1252 text (R on Windows, Excel in a European locale), with --encoding latin1.
  for (const char* name : {"r_write_csv2_cp1252.csv", "excel_european.csv"})
    expect_same_table(read(kText + name, windows1252()), plain, name);
  // Given rather than detected: the same table, nothing assumed about the layout.
  ReadSettings given = windows1252();
  given.csv.delimiter = ';';
  given.csv.decimal = ',';
  const Read european = read(kText + "excel_european.csv", given);
  expect_same_table(european, plain, "excel_european.csv, given");
  EXPECT_TRUE(european.assumed.empty()) << european.assumed;
}

TEST(TextLayout, InvalidUtf8SuggestsTheEncoding) {
  for (const char* name : {"excel_european.csv", "r_write_csv2_cp1252.csv"}) {
    const std::string message = error_of([&] { read(kText + name); });
    EXPECT_NE(message.find(kText + name + ": row 1, column 'name': the value is not valid UTF-8"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("--encoding latin1"), std::string::npos) << message;
  }
  const std::string header =
      error_of([] { CsvFile::from_bytes("caf\xE9,b\n1,2\n", "h.csv", CsvOptions{}); });
  EXPECT_NE(header.find("h.csv: header column 1 is not valid UTF-8 (if the file is Latin-1"),
            std::string::npos)
      << header;
  CsvOptions latin1;
  latin1.encoding = TextEncoding::kWindows1252;
  EXPECT_EQ(CsvFile::from_bytes("caf\xE9,b\n1,2\n", "h.csv", latin1).header()[0], "café");
}

TEST(TextLayout, Windows1252MatchesPythonsCodec) {
  std::ifstream in(kGolden + "windows1252_utf8.tsv");
  ASSERT_TRUE(in) << kGolden;
  std::string line;
  std::getline(in, line);  // header
  int bytes = 0;
  while (std::getline(in, line)) {
    const auto tab = line.find('\t');
    const int byte = std::stoi(line.substr(0, tab), nullptr, 16);
    std::string expected;
    for (std::size_t i = tab + 1; i + 1 < line.size(); i += 2)
      expected += static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16));
    EXPECT_EQ(windows1252_to_utf8(std::string(1, static_cast<char>(byte))), expected)
        << "byte " << byte;
    ++bytes;
  }
  EXPECT_EQ(bytes, 256);
  // The fingerprint is of the file as stored, not of the converted text.
  CsvOptions latin1;
  latin1.encoding = TextEncoding::kWindows1252;
  const std::string stored = "n\n\xE9\n";
  EXPECT_EQ(CsvFile::from_bytes(stored, "f.csv", latin1).sha256(), sha256_hex(stored));
}

TEST(TextLayout, DetectionOfDelimiterAndDecimalMark) {
  auto layout = [](const std::string& text) {
    const CsvFile file = CsvFile::from_bytes(text, "t.csv", CsvOptions{});
    return std::string(1, file.delimiter()) + file.decimal_mark();
  };
  EXPECT_EQ(layout("a,b\n1.5,2\n"), ",.");
  EXPECT_EQ(layout("a;b;c\n1;2,5;x\n"), ";,");
  EXPECT_EQ(layout("a;b\n1;2.5\n"), ";.");        // a decimal point: not a decimal comma
  EXPECT_EQ(layout("a;b\n1,5;2.5\n"), ";.");      // both: the point wins, nothing assumed
  EXPECT_EQ(layout("a;b\n1;2\n"), ";.");          // integers only
  EXPECT_EQ(layout("a\tb\n1,5\t2\n"), "\t,");     // tab-separated, decimal comma
  EXPECT_EQ(layout("\"a;b\",c\n1,2\n"), ",.");    // the semicolon is inside quotes
  EXPECT_EQ(layout("a,b;c\n1,2;3\n"), ",.");      // as many fields either way: the comma
  EXPECT_EQ(layout("\"a\" \"b\"\n1 2\n"), " .");  // R's write.table
  EXPECT_EQ(layout("one column\n1\n"), ",.");     // an unquoted name with a space
  // With a comma delimiter, a quoted "1,5" is not taken as a decimal comma.
  EXPECT_EQ(layout("a,b\n\"1,5\",2\n"), ",.");
  // A decimal comma given: the comma cannot be the delimiter.
  CsvOptions comma;
  comma.decimal = ',';
  EXPECT_EQ(CsvFile::from_bytes("a;b\n1,5;2\n", "t.csv", comma).delimiter(), ';');
  comma.delimiter = ',';
  EXPECT_NE(error_of([&] {
              CsvFile::from_bytes("a,b\n1,2\n", "t.csv", comma);
            }).find("t.csv: the decimal mark and the delimiter are both ','"),
            std::string::npos);
}

TEST(TextLayout, RowNamesAreLeftOut) {
  const CsvFile csv = CsvFile::from_bytes("\"\",\"a\",\"b\"\n\"1\",x,2\n\"2\",y,3\n", "r.csv");
  EXPECT_EQ(csv.header(), (std::vector<std::string>{"a", "b"}));
  std::vector<std::vector<std::string>> rows;
  csv.visit_rows([&](int, std::size_t, const std::vector<std::string_view>& fields) {
    rows.emplace_back(fields.begin(), fields.end());
  });
  EXPECT_EQ(rows, (std::vector<std::vector<std::string>>{{"x", "2"}, {"y", "3"}}));
  const CsvFile table = CsvFile::from_bytes("a b\nr1 x 2\nr2 y 3\n", "t.txt", [] {
    CsvOptions o;
    o.delimiter = ' ';
    return o;
  }());
  EXPECT_EQ(table.header(), (std::vector<std::string>{"a", "b"}));
  EXPECT_NE(table.assumed_layout().find("row names"), std::string::npos);
  // A later row with one field more than the header stays a ragged row.
  EXPECT_NE(error_of([] {
              CsvFile::from_bytes("a,b\n1,2\n1,2,3\n", "d.csv");
            }).find("d.csv: row 2 (line 3) has 3 fields, header has 2"),
            std::string::npos);
  // An empty name elsewhere stays an error.
  EXPECT_NE(error_of([] {
              CsvFile::from_bytes("a,,c\n1,2,3\n", "d.csv");
            }).find("header column 2 has an empty name"),
            std::string::npos);
}

TEST(TextLayout, DecimalCommaNumbers) {
  ReadSettings settings;
  settings.csv.delimiter = ';';
  settings.csv.decimal = ',';
  const auto file = CsvFile::from_bytes("x;y\n1,5;-,25\n+2;1e3\n 3,0 ;NA\n", "d.csv", settings.csv);
  const Schema schema = infer_schema(file, settings);
  const Table t = encode_table(file, schema, settings, "confidential");
  ASSERT_TRUE(t.column(0).is_numeric());
  ASSERT_TRUE(t.column(1).is_numeric());
  EXPECT_EQ(t.column(0).numeric, (std::vector<double>{1.5, 2, 3}));
  EXPECT_EQ(t.column(1).numeric[0], -0.25);
  EXPECT_EQ(t.column(1).numeric[1], 1000);
  EXPECT_TRUE(std::isnan(t.column(1).numeric[2]));
  // A decimal point under a decimal comma is not a number: the column is text.
  const auto points = CsvFile::from_bytes("x;y\n1.5;1\n", "p.csv", settings.csv);
  EXPECT_EQ(infer_schema(points, settings).columns[0].kind, ColumnKind::kCategorical);
  // A numeric column (from the confidential file) meeting a decimal comma under a decimal point
  // names the fix.
  ReadSettings plain;
  plain.csv.delimiter = ';';
  plain.csv.decimal = '.';
  const auto conf = CsvFile::from_bytes("x\n1\n", "c.csv", plain.csv);
  const Schema numeric = infer_schema(conf, plain);
  const auto syn = CsvFile::from_bytes("x\n2,5\n", "s.csv", plain.csv);
  EXPECT_NE(error_of([&] { encode_table(syn, numeric, plain, "synthetic"); })
                .find("s.csv: row 1, column 'x': '2,5' is not a number (the column is numeric; if "
                      "the file writes decimals with a comma, give --decimal ,"),
            std::string::npos);
}

TEST(TextLayout, CategoricalColumnOfDecimalCommaNumbersIsNamed) {
  ReadSettings settings;
  settings.csv.delimiter = ';';
  settings.csv.decimal = '.';
  auto warnings_for = [&](std::size_t levels) {
    std::string text = "x;z\n";
    for (std::size_t i = 0; i < levels; ++i) text += std::to_string(i) + ",5;a\n";
    const auto file = CsvFile::from_bytes(text, "e.csv", settings.csv);
    const Schema schema = infer_schema(file, settings);
    encode_table(file, schema, settings, "confidential");
    return decimal_comma_warnings(schema, file);
  };
  EXPECT_TRUE(warnings_for(kDecimalCommaLevelsWarning).empty());
  const auto warnings = warnings_for(kDecimalCommaLevelsWarning + 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("e.csv: column 'x' is read as categorical, but 11 of its 11 levels "
                              "are numbers with a decimal comma; if the file writes decimals with "
                              "a comma, give --decimal ,",
                              0),
            0u)
      << warnings[0];
  // A column the user declared categorical is what the user said.
  settings.kinds["x"] = ColumnKind::kCategorical;
  EXPECT_TRUE(warnings_for(kDecimalCommaLevelsWarning + 1).empty());
}

TEST(TextLayout, ReadOptionsAreChecked) {
  EXPECT_EQ(parse_delimiter(";", "--delimiter"), ';');
  EXPECT_EQ(parse_delimiter("tab", "--delimiter"), '\t');
  EXPECT_EQ(parse_delimiter("auto", "--delimiter"), 0);
  EXPECT_EQ(error_of([] { parse_delimiter(";;", "--delimiter"); }),
            "--delimiter: ';;' is not a delimiter; expected one character, tab or auto");
  EXPECT_EQ(error_of([] { parse_delimiter("\"", "--delimiter"); }),
            "--delimiter: the delimiter cannot be a quote or a line break");
  EXPECT_EQ(error_of([] { parse_delimiter("", "--delimiter"); }),
            "--delimiter: '' is not a delimiter; expected one character, tab or auto");
  EXPECT_EQ(parse_decimal_mark(",", "--decimal"), ',');
  EXPECT_EQ(error_of([] { parse_decimal_mark(";", "--decimal"); }),
            "--decimal: ';' is not a decimal mark; expected . or , (or auto)");
  EXPECT_EQ(parse_text_encoding("Latin1", "--encoding"), TextEncoding::kWindows1252);
  EXPECT_EQ(parse_text_encoding("UTF-8", "--encoding"), TextEncoding::kUtf8);
  EXPECT_EQ(error_of([] { parse_text_encoding("utf-16", "--encoding"); }),
            "--encoding: 'utf-16' is not an encoding synthaudit reads; use utf-8, latin1 or "
            "windows-1252");
  EXPECT_EQ(error_of([] {
              checked_missing_values({"NA", "a\nb"}, "--na");
            }),
            "--na: the missing-value spelling 'a\\nb' holds a control character");
  ReadSettings both;
  both.csv.delimiter = ',';
  both.csv.decimal = ',';
  EXPECT_EQ(error_of([&] { check_read_options(both, "--decimal"); }),
            "--decimal: the delimiter and the decimal mark are both ','");
}
