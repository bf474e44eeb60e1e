// Unit tests of the format detection (src/io/format.*), the Stata/SPSS/SAS reader
// (src/io/readstat.*, files written by R haven: tests/golden/io/make_stat_files.R) and missing
// codes in text (src/io/load.*). The reference for the SD2011 files is the CSV they were written
// from: every cell must decode to the same value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "input_error_of.hpp"
#include "io/format.hpp"
#include "io/load.hpp"

using namespace synthaudit;

namespace {

const std::string kData = SYNTHAUDIT_TEST_DATA;

using synthaudit::testing::error_of;

std::string cell(const Table& t, std::size_t column, std::size_t row) {
  const Column& c = t.column(column);
  if (c.missing(row)) {
    if (!c.missing_code_index.empty() && c.missing_code_index[row] > 0)
      return "<code " + std::to_string(c.missing_codes[c.missing_code_index[row] - 1]) + ">";
    return "<NA>";
  }
  if (c.is_categorical()) return c.dictionary->level(c.codes[row]);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", c.numeric[row]);
  return buffer;
}

struct Read {
  std::unique_ptr<DataFile> file;
  Schema schema;
  Table table;
  std::vector<MissingTally> tallies;
};

Read read(const std::string& path, const ReadSettings& settings = {}) {
  Read r;
  r.file = open_data_file(path, settings);
  r.schema = infer_schema(*r.file, settings);
  r.table = encode_table(*r.file, r.schema, settings, "confidential", nullptr, &r.tallies);
  finalize_dictionaries(r.schema, {&r.table});
  return r;
}

}  // namespace

TEST(DataFormat, ChosenByContent) {
  EXPECT_EQ(detect_data_format("<stata_dta><header>", "x.csv"), DataFormat::kStata);
  EXPECT_EQ(detect_data_format(std::string("\x72\x02\x01\x00", 4), "x"), DataFormat::kStata);
  EXPECT_EQ(detect_data_format("$FL2@(#) SPSS", "x.dat"), DataFormat::kSpss);
  EXPECT_EQ(detect_data_format("$FL3@(#) SPSS", "x"), DataFormat::kSpss);
  EXPECT_EQ(detect_data_format("HEADER RECORD*******LIBV8 HEADER RECORD!!!!!!!", "x"),
            DataFormat::kSasTransport);
  EXPECT_EQ(detect_data_format("a,b\n1,2\n", "x.txt"), DataFormat::kText);
  // Old-format-looking bytes that are text stay text.
  EXPECT_EQ(detect_data_format("r,b\n", "x"), DataFormat::kText);
}

TEST(DataFormat, RefusesWhatItCannotRead) {
  EXPECT_EQ(error_of([] { detect_data_format("PAR1\x15", "d.parquet"); }),
            "d.parquet: this is a Parquet file, which synthaudit cannot read; export the data to "
            "CSV, or to a Stata (.dta), SPSS (.sav) or SAS (.sas7bdat, .xpt) file");
  EXPECT_NE(error_of([] {
              detect_data_format("PK\x03\x04....xl/workbook.xml", "b");
            }).find("b: this is an Excel workbook (.xlsx)"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              detect_data_format("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "b.xls");
            }).find("Excel 97-2003"),
            std::string::npos);
  EXPECT_NE(error_of([] { detect_data_format("PK\x03\x04 data.csv", "z"); }).find("ZIP archive"),
            std::string::npos);
  EXPECT_EQ(error_of([] { detect_data_format("id,x\n1,2\n", "d.dta"); }),
            "d.dta: the name says a Stata .dta file, but the content does not start as one (is "
            "the file damaged, truncated or renamed?)");
}

// The .dta, .zsav, .xpt and .sas7bdat versions of train.csv decode cell by cell to what train.csv
// decodes to: value labels become the same levels, numbers the same doubles, NA the same missing
// values.
TEST(StatFile, SameTableAsTheCsv) {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8};
  const Read csv = read(kData + "/sd2011/train.csv", settings);
  for (const char* name : {"train.dta.gz", "train.zsav", "train.xpt.gz", "train.sas7bdat.gz"}) {
    SCOPED_TRACE(name);
    const Read stat = read(kData + "/sd2011/" + name, settings);
    ASSERT_EQ(stat.table.rows(), csv.table.rows());
    ASSERT_EQ(stat.schema.columns.size(), csv.schema.columns.size());
    for (std::size_t c = 0; c < csv.schema.columns.size(); ++c) {
      EXPECT_EQ(stat.schema.columns[c].name, csv.schema.columns[c].name);
      EXPECT_EQ(stat.schema.columns[c].kind, csv.schema.columns[c].kind);
      if (csv.schema.columns[c].dictionary) {
        EXPECT_EQ(stat.schema.columns[c].dictionary->levels(),
                  csv.schema.columns[c].dictionary->levels());
      }
      for (std::size_t r = 0; r < csv.table.rows(); ++r)
        ASSERT_EQ(cell(stat.table, c, r), cell(csv.table, c, r)) << "row " << r << " column " << c;
    }
    EXPECT_EQ(stat.schema.columns[4].label, "Personal net monthly income (PLN)");
    const std::string n = name;
    EXPECT_EQ(stat.file->format(), n.find("xpt") != std::string::npos        ? "SAS transport .xpt"
                                   : n.find("sas7bdat") != std::string::npos ? "SAS .sas7bdat"
                                   : n.find("dta") != std::string::npos      ? "Stata .dta"
                                                                             : "SPSS .sav");
  }
  EXPECT_EQ(csv.schema.columns[4].label, "");
}

TEST(StatFile, CodesInsteadOfLabels) {
  ReadSettings settings;
  settings.value_labels = ValueLabels::kCodes;
  const Read stat = read(kData + "/sd2011/train.dta.gz", settings);
  EXPECT_EQ(stat.schema.columns[0].name, "sex");
  EXPECT_EQ(stat.schema.columns[0].kind, ColumnKind::kNumeric);
  // Factor codes in sorted level order: FEMALE = 1, MALE = 2; the first CSV row is MALE.
  EXPECT_EQ(cell(stat.table, 0, 0), "2");
  EXPECT_EQ(cell(stat.table, 0, 1), "1");
}

// SPSS user-missing values: declared in the file, read as the missing code -8.
TEST(StatFile, SpssUserMissingBecomeMissingCodes) {
  ReadSettings declared;
  const Read stat = read(kData + "/sd2011/train_declared_missing.zsav", declared);
  ReadSettings given;
  given.missing_codes["income"] = {-8};
  const Read csv = read(kData + "/sd2011/train.csv", given);
  EXPECT_EQ(stat.schema.columns[4].missing_codes, std::vector<double>{-8});
  for (std::size_t r = 0; r < csv.table.rows(); ++r)
    ASSERT_EQ(cell(stat.table, 4, r), cell(csv.table, 4, r)) << "row " << r;
  ASSERT_EQ(stat.tallies.size(), 1u);
  EXPECT_EQ(stat.tallies[0].column, "income");
  ASSERT_EQ(stat.tallies[0].codes.size(), 1u);
  EXPECT_EQ(stat.tallies[0].codes[0].first, "-8");
  EXPECT_EQ(stat.tallies[0].codes[0].second, 483u);
}

TEST(StatFile, TaggedAndSystemMissing) {
  const Read stat = read(kData + "/stat/tagged_missing.dta");
  // x: 1 is labelled "one", 2 and 5 are not (they keep their numbers); .a and . are missing.
  EXPECT_EQ(stat.schema.columns[1].kind, ColumnKind::kCategorical);
  EXPECT_EQ(stat.schema.columns[1].label, "A labelled number");
  std::vector<std::string> x, s;
  for (std::size_t r = 0; r < 5; ++r) {
    x.push_back(cell(stat.table, 1, r));
    s.push_back(cell(stat.table, 2, r));
  }
  EXPECT_EQ(x, (std::vector<std::string>{"one", "2", "<NA>", "<NA>", "5"}));
  EXPECT_EQ(s, (std::vector<std::string>{"a", "b", "<NA>", "c", "d"}));
  ASSERT_EQ(stat.tallies.size(), 1u);
  EXPECT_EQ(stat.tallies[0].column, "x");
  EXPECT_EQ(stat.tallies[0].declared_in_file, 1u);
}

TEST(StatFile, SpssRangesAndLabelledUserMissing) {
  const Read stat = read(kData + "/stat/user_missing.sav");
  // n: 97..99 declared missing (a range): the values present become missing codes.
  EXPECT_EQ(stat.schema.columns[1].kind, ColumnKind::kNumeric);
  EXPECT_EQ(stat.schema.columns[1].missing_codes, (std::vector<double>{97, 98, 99}));
  EXPECT_EQ(stat.schema.columns[1].label, "Hours");
  std::vector<std::string> n, z;
  for (std::size_t r = 0; r < 5; ++r) {
    n.push_back(cell(stat.table, 1, r));
    z.push_back(cell(stat.table, 2, r));
  }
  EXPECT_EQ(n, (std::vector<std::string>{"10", "<code 97.000000>", "20", "<code 99.000000>",
                                         "<code 98.000000>"}));
  // z: read through its labels, so 9 ("refused", declared missing) is a plain missing value.
  EXPECT_EQ(z, (std::vector<std::string>{"yes", "no", "<NA>", "yes", "no"}));
  ASSERT_EQ(stat.tallies.size(), 2u);
  EXPECT_EQ(stat.tallies[0].column, "n");
  EXPECT_EQ(stat.tallies[0].codes.size(), 3u);
  EXPECT_EQ(stat.tallies[1].column, "z");
  EXPECT_EQ(stat.tallies[1].declared_in_file, 1u);
}

TEST(StatFile, DamagedFilesAreInputErrors) {
  const std::string path = kData + "/stat/tagged_missing.dta";
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // Every truncation either reads (ReadStat does not need the closing tag) or is an InputError
  // naming the file and the format; a cut into the header or the data is always an error.
  std::size_t errors = 0;
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    const std::string msg = error_of(
        [&] { StatFile::parse(bytes.substr(0, cut), DataFormat::kStata, "t.dta", "", {}); });
    if (msg.empty()) continue;
    ++errors;
    ASSERT_EQ(msg.rfind("t.dta: Stata .dta file: ", 0), 0u) << cut << ": " << msg;
  }
  for (std::size_t cut : {std::size_t{20}, std::size_t{300}, bytes.size() / 2})
    EXPECT_NE(error_of([&] {
                StatFile::parse(bytes.substr(0, cut), DataFormat::kStata, "t.dta", "", {});
              }),
              "")
        << cut;
  EXPECT_GT(errors, bytes.size() / 2);
}

// Text codes: ignored when inferring kinds, matched by the whole field, counted per column.
// A damaged SPSS file on which ReadStat asks for a zero-byte read into a null buffer (found by
// fuzz/stat_file_fuzz.cpp; undefined behaviour in our reader callback before the fix, which the
// sanitizer build of this test catches). It must read or be a one-line InputError.
TEST(StatFile, ZeroLengthReadIntoNullBufferIsHarmless) {
  const std::string path = kData + "/stat/fuzz_zero_length_read.sav";
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_EQ(bytes.size(), 428u);
  const std::string msg =
      error_of([&] { StatFile::parse(bytes, DataFormat::kSpss, "f.sav", "", {}); });
  if (!msg.empty()) {
    EXPECT_EQ(msg.rfind("f.sav: ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(MissingCodes, TextCodesInEveryKindOfColumn) {
  ReadSettings settings;
  settings.missing_text_codes["income"] = {"refused"};
  settings.missing_text_codes["smoke"] = {"DK"};
  settings.missing_codes["smoke"] = {99};
  const CsvFile file = CsvFile::from_bytes(
      "income,smoke\n10,YES\nrefused,DK\n30,99.0\n40,NO\nrefused,DKK\n", "t.csv");
  const Schema schema = infer_schema(file, settings);
  EXPECT_EQ(schema.columns[0].kind, ColumnKind::kNumeric);
  EXPECT_EQ(schema.columns[1].kind, ColumnKind::kCategorical);
  std::vector<MissingTally> tallies;
  Table table = encode_table(file, schema, settings, "confidential", nullptr, &tallies);
  EXPECT_TRUE(table.column(0).missing(1));
  EXPECT_EQ(table.column(0).numeric[2], 30.0);
  EXPECT_TRUE(table.column(1).missing(1));
  EXPECT_TRUE(table.column(1).missing(2));   // 99.0 matches the numeric code 99
  EXPECT_FALSE(table.column(1).missing(4));  // DKK is not DK
  ASSERT_EQ(tallies.size(), 2u);
  EXPECT_EQ(tallies[0].column, "income");
  EXPECT_EQ(tallies[0].codes, (std::vector<std::pair<std::string, std::uint64_t>>{{"refused", 2}}));
  EXPECT_EQ(tallies[1].codes,
            (std::vector<std::pair<std::string, std::uint64_t>>{{"99", 1}, {"DK", 1}}));
}
