// Unit tests of typed loading (src/io/load.*): missing values, missing codes, type inference and
// overrides (spec kinds and SDV metadata), the shared dictionary across datasets, column order,
// and independence from the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "input_error_of.hpp"
#include "io/load.hpp"

using namespace synthaudit;

namespace {

using synthaudit::testing::error_of;

// Cell as text: the level for categorical, the number for numeric, "<NA>" when missing.
std::string cell(const Table& t, const std::string& column, std::size_t row) {
  const Column& c = t.column(column);
  if (c.missing(row)) return "<NA>";
  if (c.is_categorical()) return c.dictionary->level(c.codes[row]);
  std::ostringstream out;
  out << c.numeric[row];
  return out.str();
}

struct Loaded {
  Schema schema;
  Table confidential;
  std::vector<Table> others;
  std::vector<std::vector<std::string>> ignored;
};

void expect_same_columns(const Schema& a_schema, const Table& a, const Schema& b_schema,
                         const Table& b) {
  ASSERT_EQ(a_schema.columns.size(), b_schema.columns.size());
  ASSERT_EQ(a.column_count(), b.column_count());
  ASSERT_EQ(a.rows(), b.rows());
  for (std::size_t c = 0; c < a.column_count(); ++c) {
    const Schema::Entry& ea = a_schema.columns[c];
    const Schema::Entry& eb = b_schema.columns[c];
    EXPECT_EQ(ea.name, eb.name);
    EXPECT_EQ(ea.kind, eb.kind) << ea.name;
    EXPECT_EQ(ea.inferred, eb.inferred) << ea.name;
    EXPECT_EQ(ea.missing_codes, eb.missing_codes) << ea.name;
    EXPECT_EQ(ea.missing_text_codes, eb.missing_text_codes) << ea.name;
    EXPECT_EQ(ea.dictionary == nullptr, eb.dictionary == nullptr) << ea.name;
    const Column& x = a.column(c);
    const Column& y = b.column(c);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind) << x.name;
    ASSERT_EQ(x.numeric.size(), y.numeric.size()) << x.name;
    // Bit for bit, NaN included.
    // (memcmp of an empty vector's null data is undefined: compare only when there are values.)
    EXPECT_TRUE(x.numeric.empty() || std::memcmp(x.numeric.data(), y.numeric.data(),
                                                 x.numeric.size() * sizeof(double)) == 0)
        << x.name;
    EXPECT_EQ(x.codes, y.codes) << x.name;
    EXPECT_EQ(x.missing_codes, y.missing_codes) << x.name;
    EXPECT_EQ(x.missing_code_index, y.missing_code_index) << x.name;
    EXPECT_EQ(x.dictionary == nullptr, y.dictionary == nullptr) << x.name;
    // The dictionaries before finalize_dictionaries: levels in the order first seen.
    if (x.dictionary && y.dictionary) {
      EXPECT_EQ(x.dictionary->levels(), y.dictionary->levels());
    }
  }
}

std::string tallies_text(const std::vector<MissingTally>& tallies) {
  std::string out;
  for (const auto& t : tallies) {
    out += t.column + ":";
    for (const auto& [code, hits] : t.codes) out += " " + code + "=" + std::to_string(hits);
    out += " declared=" + std::to_string(t.declared_in_file) + "\n";
  }
  return out;
}

// Every file these tests read is also read by infer_and_encode, which must give the same
// schema, table, tallies and error as infer_schema followed by encode_table.
Loaded load(const std::string& conf, const std::vector<std::string>& others = {},
            const ReadSettings& settings = {}) {
  Loaded l;
  const CsvFile cf = CsvFile::from_bytes(conf, "conf.csv", settings.csv);
  std::string fused_error;
  InferredTable fused;
  std::vector<MissingTally> fused_tallies;
  try {
    fused = infer_and_encode(cf, settings, "confidential", &fused_tallies);
  } catch (const InputError& e) {
    fused_error = e.what();
  }
  std::vector<MissingTally> tallies;
  try {
    l.schema = infer_schema(cf, settings);
    l.confidential = encode_table(cf, l.schema, settings, "confidential", nullptr, &tallies);
  } catch (const InputError& e) {
    EXPECT_EQ(fused_error, e.what());
    throw;
  }
  EXPECT_EQ(fused_error, "");
  expect_same_columns(fused.schema, fused.table, l.schema, l.confidential);
  EXPECT_EQ(tallies_text(fused_tallies), tallies_text(tallies));
  for (std::size_t i = 0; i < others.size(); ++i) {
    const CsvFile f =
        CsvFile::from_bytes(others[i], "syn" + std::to_string(i + 1) + ".csv", settings.csv);
    l.ignored.emplace_back();
    l.others.push_back(encode_table(f, l.schema, settings, "synthetic", &l.ignored.back()));
  }
  std::vector<Table*> all = {&l.confidential};
  for (auto& t : l.others) all.push_back(&t);
  finalize_dictionaries(l.schema, all);
  return l;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("synthaudit_load_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST(Load, DefaultMissingSpellings) {
  const auto l = load("x,c\n1,a\nNA,NA\nNaN,null\n,\n\"\",\"\"\n2,b\n");
  const Table& t = l.confidential;
  EXPECT_TRUE(t.column("x").is_numeric());
  EXPECT_TRUE(t.column("c").is_categorical());
  EXPECT_EQ(t.column("x").missing_count(), 4u);
  EXPECT_EQ(t.column("c").missing_count(), 4u);
  EXPECT_EQ(t.column("c").dictionary->levels(), (std::vector<std::string>{"a", "b"}));
}

TEST(Load, ConfigurableMissingSpellings) {
  ReadSettings s;
  s.missing_values = {"", ".", "-"};
  const auto l = load("x,c\n1,a\n.,-\nNA,NA\n", {}, s);
  // "NA" is no longer missing: x becomes categorical (NA is text), c keeps the level "NA".
  EXPECT_TRUE(l.confidential.column("x").is_categorical());
  EXPECT_EQ(cell(l.confidential, "x", 1), "<NA>");
  EXPECT_EQ(cell(l.confidential, "x", 2), "NA");
  EXPECT_EQ(cell(l.confidential, "c", 1), "<NA>");
  EXPECT_EQ(cell(l.confidential, "c", 2), "NA");
}

TEST(Load, PerColumnNumericMissingCodes) {
  ReadSettings s;
  s.missing_codes["income"] = {-8, -9};
  const auto l =
      load("income,age\n1000,-8\n-8,30\n-9.0,40\n0,-9\n", {"income,age\n-8,1\n5,2\n"}, s);
  const Table& t = l.confidential;
  EXPECT_EQ(cell(t, "income", 0), "1000");
  EXPECT_EQ(cell(t, "income", 1), "<NA>");
  EXPECT_EQ(cell(t, "income", 2), "<NA>");  // -9.0 is the code -9
  EXPECT_EQ(cell(t, "income", 3), "0");
  EXPECT_EQ(cell(t, "age", 0), "-8");                 // codes apply to their column only
  EXPECT_EQ(cell(l.others[0], "income", 0), "<NA>");  // and to synthetic data too
  // A numeric code of a categorical column matches by value ("-8.0" too).
  ReadSettings categorical;
  categorical.missing_codes["sex"] = {-8};
  const auto coded = load("sex,x\nF,1\n-8.0,2\nM,3\n", {}, categorical);
  EXPECT_EQ(cell(coded.confidential, "sex", 0), "F");
  EXPECT_EQ(cell(coded.confidential, "sex", 1), "<NA>");
  EXPECT_EQ(coded.schema.columns[0].dictionary->levels(), (std::vector<std::string>{"F", "M"}));
  // Codes for an absent column are errors naming it.
  ReadSettings absent;
  absent.missing_codes["incme"] = {-8};
  const auto msg = error_of([&] { load("income\n1\n", {}, absent); });
  EXPECT_NE(msg.find("'incme'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'income'"), std::string::npos) << msg;
}

TEST(Load, TypeInference) {
  const auto l = load(
      "int,real,exp,spaced,signed,mixed,text,word_nan\n"
      "1,1.5,1e3, 7 ,+3,1,a,1\n"
      "2,-0.25,2E-2,8,-4,x,b,nan\n");
  const auto& cols = l.schema.columns;
  ASSERT_EQ(cols.size(), 8u);
  EXPECT_EQ(cols[0].kind, ColumnKind::kNumeric);
  EXPECT_EQ(cols[1].kind, ColumnKind::kNumeric);
  EXPECT_EQ(cols[2].kind, ColumnKind::kNumeric);
  EXPECT_EQ(cols[3].kind, ColumnKind::kNumeric);
  EXPECT_EQ(cols[4].kind, ColumnKind::kNumeric);
  EXPECT_EQ(cols[5].kind, ColumnKind::kCategorical);
  EXPECT_EQ(cols[6].kind, ColumnKind::kCategorical);
  EXPECT_EQ(cols[7].kind, ColumnKind::kCategorical);  // "nan" is not a default missing spelling
  for (const auto& c : cols) EXPECT_TRUE(c.inferred);
  EXPECT_EQ(cell(l.confidential, "exp", 1), "0.02");
  EXPECT_EQ(cell(l.confidential, "spaced", 0), "7");
  EXPECT_EQ(cell(l.confidential, "signed", 0), "3");
  // Levels that look like numbers except one NaN spelling still sort without breaking.
  EXPECT_EQ(l.confidential.column("word_nan").dictionary->levels(),
            (std::vector<std::string>{"1", "nan"}));
}

TEST(Load, NotNumbersAreNotNumeric) {
  // Overflow, a doubled sign, inf and hex are not numbers in a CSV numeric column.
  for (const std::string bad : {"1e999", "+-5", "inf", "-Infinity", "0x10", "1,5", "5 5"}) {
    const auto l = load("v,w\n1,a\n\"" + bad + "\",b\n");
    EXPECT_EQ(l.schema.columns[0].kind, ColumnKind::kCategorical) << bad;
  }
  // Underflow is a number (zero or subnormal), not an error.
  const auto tiny = load("v\n1\n1e-400\n");
  EXPECT_EQ(tiny.schema.columns[0].kind, ColumnKind::kNumeric);
  EXPECT_GE(tiny.confidential.column("v").numeric[1], 0.0);
  EXPECT_LT(tiny.confidential.column("v").numeric[1], 1e-300);
}

TEST(Load, KindOverridesFromSettings) {
  ReadSettings s;
  s.kinds["zip"] = ColumnKind::kCategorical;
  s.kinds["score"] = ColumnKind::kNumeric;
  const auto l = load("zip,score\n02139,1\n10001,2\n", {}, s);
  EXPECT_EQ(l.schema.columns[0].kind, ColumnKind::kCategorical);
  EXPECT_FALSE(l.schema.columns[0].inferred);
  EXPECT_EQ(cell(l.confidential, "zip", 0), "02139");  // leading zero kept
  // Declared numeric but holding text: error naming file, row, column and value.
  const auto msg = error_of([&] { load("zip,score\n1,1\n2,two\n", {}, s); });
  EXPECT_EQ(msg, "conf.csv: row 2, column 'score': 'two' is not a number (the column is numeric)");
  // A kind for a column the file lacks is an error with a hint.
  ReadSettings absent;
  absent.kinds["scroe"] = ColumnKind::kNumeric;
  EXPECT_NE(error_of([&] { load("score\n1\n", {}, absent); }).find("did you mean 'score'"),
            std::string::npos);
}

TEST(Load, SdvMetadata) {
  const auto path = temp_path("meta.json");
  std::ofstream(path) << R"({"columns": {"age": {"sdtype": "numerical"},
      "zip": {"sdtype": "categorical"}, "ok": {"sdtype": "boolean"},
      "when": {"sdtype": "datetime", "datetime_format": "%Y"}, "id": {"sdtype": "id"}}})";
  const auto kinds = read_sdv_metadata(path);
  EXPECT_EQ(kinds.at("age"), ColumnKind::kNumeric);
  EXPECT_EQ(kinds.at("zip"), ColumnKind::kCategorical);
  EXPECT_EQ(kinds.at("ok"), ColumnKind::kCategorical);
  EXPECT_EQ(kinds.at("when"), ColumnKind::kNumeric);
  EXPECT_EQ(kinds.at("id"), ColumnKind::kCategorical);
  ReadSettings s;
  s.kinds = kinds;
  const auto l = load("age,zip,ok,when,id\n30,02139,1,2001,7\n", {}, s);
  EXPECT_EQ(l.schema.columns[1].kind, ColumnKind::kCategorical);
  // Multi-table form with one table.
  std::ofstream(path)
      << R"({"tables": {"people": {"columns": {"age": {"sdtype": "categorical"}}}}})";
  EXPECT_EQ(read_sdv_metadata(path).at("age"), ColumnKind::kCategorical);
  std::ofstream(path) << R"({"columns": {"age": {"type": "numerical"}}})";
  EXPECT_NE(error_of([&] { read_sdv_metadata(path); }).find("columns.age has no string \"sdtype\""),
            std::string::npos);
  std::ofstream(path) << "{not json";
  EXPECT_NE(error_of([&] { read_sdv_metadata(path); }).find(path + ": not valid JSON"),
            std::string::npos);
  std::filesystem::remove(path);
  EXPECT_NE(error_of([&] { read_sdv_metadata(path); }).find("cannot open"), std::string::npos);
}

TEST(Load, SharedDictionaryAcrossDatasets) {
  const auto l = load("sex,region\nM,north\nF,south\n",
                      {"region,sex\nsouth,F\nwest,M\n", "sex,region\nF,north\nM,north\n"});
  const Table& conf = l.confidential;
  const Table& s1 = l.others[0];
  const Table& s2 = l.others[1];
  // One dictionary object per column, shared by every table.
  EXPECT_EQ(conf.column("sex").dictionary.get(), s1.column("sex").dictionary.get());
  EXPECT_EQ(conf.column("sex").dictionary.get(), s2.column("sex").dictionary.get());
  // Same level, same code, in every dataset.
  EXPECT_EQ(conf.column("sex").codes[1], s1.column("sex").codes[0]);  // F
  EXPECT_EQ(conf.column("sex").codes[0], s2.column("sex").codes[1]);  // M
  // Levels sorted as R's factor() sorts them; "west" only in synthetic data is kept.
  EXPECT_EQ(conf.column("region").dictionary->levels(),
            (std::vector<std::string>{"north", "south", "west"}));
  EXPECT_EQ(conf.column("sex").dictionary->levels(), (std::vector<std::string>{"F", "M"}));
  EXPECT_EQ(cell(s1, "region", 1), "west");
  // Synthetic columns in another order come back in the confidential order.
  EXPECT_EQ(s1.column_names(), (std::vector<std::string>{"sex", "region"}));
  EXPECT_EQ(cell(s1, "sex", 0), "F");
}

TEST(Load, NumericLevelsSortNumerically) {
  ReadSettings s;
  s.kinds["edu"] = ColumnKind::kCategorical;
  const auto l = load("edu\n10\n9\n-1\n2.5\n", {}, s);
  EXPECT_EQ(l.confidential.column("edu").dictionary->levels(),
            (std::vector<std::string>{"-1", "2.5", "9", "10"}));
  const auto t = load("w\nb\nB\na\n10\n9\n");
  EXPECT_EQ(t.confidential.column("w").dictionary->levels(),
            (std::vector<std::string>{"10", "9", "B", "a", "b"}));  // bytewise (C locale)
}

TEST(Load, ExtraSyntheticColumnsIgnoredMissingOnesAreErrors) {
  const auto l = load("a,b\n1,x\n", {"b,extra,a,more\ny,9,2,z\n"});
  EXPECT_EQ(l.others[0].column_count(), 2u);
  EXPECT_EQ(l.ignored[0], (std::vector<std::string>{"extra", "more"}));
  const auto msg = error_of([&] { load("age,sex\n1,x\n", {"sex,agee\ny,2\n"}); });
  EXPECT_EQ(msg,
            "syn1.csv: column 'age' of the confidential data is missing (did you mean 'agee'?)");
  // A type clash (text in a column that is numeric in the confidential data) names row/column.
  const auto clash = error_of([&] { load("age\n1\n2\n", {"age\n3\nold\n"}); });
  EXPECT_EQ(clash, "syn1.csv: row 2, column 'age': 'old' is not a number (the column is numeric)");
}

TEST(Load, ResultsDoNotDependOnTheThreadCount) {
  // More than 4096 rows per worker, levels that first appear late (so several per-thread
  // dictionaries contribute new levels) and missing values spread everywhere.
  std::string conf = "id,cat,num,late\n";
  std::string syn = "late,num,cat,id\n";
  for (int i = 0; i < 20000; ++i) {
    const std::string cat = (i % 11 == 0) ? "NA" : "c" + std::to_string((i * 7919) % 53);
    const std::string late = i < 15000 ? "early" : "late" + std::to_string(i % 5);
    const std::string num = (i % 13 == 0) ? "" : std::to_string(i % 1000) + ".5";
    conf += std::to_string(i) + "," + cat + "," + num + "," + late + "\n";
    const std::string syn_cat = i > 17000 ? "s" + std::to_string(i % 3) : cat;
    syn += late + "," + num + "," + syn_cat + "," + std::to_string(i) + "\n";
  }
  auto run = [&](int threads) {
    ReadSettings s;
    s.csv.threads = threads;
    s.kinds["id"] = ColumnKind::kCategorical;
    return load(conf, {syn}, s);
  };
  const auto one = run(1);
  for (int threads : {2, 3, 8}) {
    const auto many = run(threads);
    for (std::size_t c = 0; c < 4; ++c) {
      const Column& a = one.confidential.column(c);
      const Column& b = many.confidential.column(c);
      ASSERT_EQ(a.kind, b.kind);
      if (a.is_numeric()) {
        for (std::size_t r = 0; r < a.numeric.size(); ++r)
          ASSERT_TRUE(a.numeric[r] == b.numeric[r] ||
                      (std::isnan(a.numeric[r]) && std::isnan(b.numeric[r])));
      } else {
        EXPECT_EQ(a.codes, b.codes) << a.name << " threads=" << threads;
        EXPECT_EQ(a.dictionary->levels(), b.dictionary->levels());
        EXPECT_EQ(one.others[0].column(c).codes, many.others[0].column(c).codes) << a.name;
      }
    }
  }
  // And the codes decode to the text of the file.
  const auto two = run(2);
  for (std::size_t r : {0u, 11u, 4095u, 4096u, 9999u, 10000u, 14999u, 15000u, 19999u}) {
    const std::string cat = (r % 11 == 0) ? "<NA>" : "c" + std::to_string((r * 7919) % 53);
    EXPECT_EQ(cell(two.confidential, "cat", r), cat) << r;
    EXPECT_EQ(cell(two.confidential, "id", r), std::to_string(r));
    EXPECT_EQ(cell(two.confidential, "late", r),
              r < 15000 ? "early" : "late" + std::to_string(r % 5));
    EXPECT_EQ(cell(two.others[0], "cat", r), r > 17000 ? "s" + std::to_string(r % 3) : cat);
  }
}

TEST(Load, EveryValueMissingAndOneRow) {
  const auto l = load("a,b\nNA,\n");
  EXPECT_EQ(l.confidential.rows(), 1u);
  EXPECT_EQ(l.schema.columns[0].kind, ColumnKind::kNumeric);  // nothing contradicts numeric
  EXPECT_EQ(l.confidential.column("a").missing_count(), 1u);
}

TEST(Load, InferAndEncodeInOnePassAtAnyThreadCount) {
  // Columns whose kind is decided late: numbers for 15000 rows then text (in another thread's
  // part of the file at 2 threads, in the same part at 1), text then numbers, numbers then text
  // within the first rows, missing codes (numeric and text) before the text, and escaped quotes
  // in levels (unescaped into a per-row buffer by the reader).
  std::string conf = "late_text,early_text,mixed,coded,quoted,number\n";
  for (int i = 0; i < 20000; ++i) {
    const std::string late_text = i < 15000 ? std::to_string(i % 97) : "t" + std::to_string(i % 7);
    const std::string early_text = i < 3 ? "start" : std::to_string(i % 31) + ".25";
    const std::string mixed = i == 2 ? "x" : std::to_string(i % 5);
    const std::string coded = i % 9 == 0 ? "-8" : (i % 10 == 0 ? "DK" : (i > 12000 ? "k" : ""));
    const std::string quoted = "\"say \"\"" + std::to_string(i % 4) + "\"\"\"";
    conf += late_text + "," + early_text + "," + mixed + "," + coded + "," + quoted + "," +
            std::to_string(i % 1000) + ".5\n";
  }
  ReadSettings settings;
  settings.missing_codes["coded"] = {-8};
  settings.missing_text_codes["coded"] = {"DK"};
  std::vector<Loaded> runs;
  for (int threads : {1, 2, 3, 8}) {
    settings.csv.threads = threads;
    runs.push_back(load(conf, {}, settings));  // load() compares with the two separate calls
  }
  const Table& t = runs[0].confidential;
  for (const char* name : {"late_text", "early_text", "mixed", "coded", "quoted"})
    EXPECT_TRUE(t.column(name).is_categorical()) << name;
  EXPECT_TRUE(t.column("number").is_numeric());
  EXPECT_EQ(cell(t, "late_text", 14999), std::to_string(14999 % 97));
  EXPECT_EQ(cell(t, "late_text", 15000), "t" + std::to_string(15000 % 7));
  EXPECT_EQ(cell(t, "early_text", 3), "3.25");
  EXPECT_EQ(cell(t, "quoted", 5), "say \"1\"");
  EXPECT_EQ(cell(t, "coded", 9), "<NA>");
  EXPECT_EQ(cell(t, "coded", 12001), "k");
  for (std::size_t k = 1; k < runs.size(); ++k)
    expect_same_columns(runs[0].schema, runs[0].confidential, runs[k].schema, runs[k].confidential);
  // What was read as missing by a code, counted once whatever the number of passes.
  settings.csv.threads = 2;
  const CsvFile file = CsvFile::from_bytes(conf, "conf.csv", settings.csv);
  std::vector<MissingTally> tallies;
  infer_and_encode(file, settings, "confidential", &tallies);
  ASSERT_EQ(tallies.size(), 1u);
  EXPECT_EQ(tallies_text(tallies), "coded: -8=2223 DK=1777 declared=0\n");
}

TEST(Load, InferAndEncodeErrorsAreThoseOfTheSeparateCalls) {
  // Invalid UTF-8 after numbers in an inferred column, before and after a non-number in a
  // numeric column (user kind), in one part of the file or in another.
  for (const int bad_row : {5, 9000}) {
    for (const int clash_row : {3, 7000, 12000}) {
      std::string conf = "text,n\n";
      for (int i = 0; i < 12000; ++i)
        conf += (i == bad_row ? std::string("\xff") : std::to_string(i)) + "," +
                (i == clash_row ? std::string("old") : std::to_string(i)) + "\n";
      for (int threads : {1, 2, 3}) {
        ReadSettings settings;
        settings.csv.threads = threads;
        settings.kinds["n"] = ColumnKind::kNumeric;
        // load() checks that infer_and_encode throws the same message.
        EXPECT_NE(error_of([&] { load(conf, {}, settings); }), "")
            << bad_row << " " << clash_row << " " << threads;
      }
    }
  }
}

TEST(Load, LevelsOfEveryLengthAndThousandsOfLevelsAtAnyThreadCount) {
  // The per-thread level index compares levels of up to 32 bytes by their first and last 16
  // bytes and length, and longer ones byte by byte in between; columns with many levels have
  // their slots fetched ahead. Levels here: lengths 1 to 80, pairs that differ only in a middle
  // byte (same first and last 16 bytes), in length alone, or in one end byte, and a column with
  // 3000 levels, so that each thread's index grows past the fetch-ahead size and rehashes.
  auto level = [](int i) {
    const int length = 1 + i % 80;
    std::string text(static_cast<std::size_t>(length), 'a' + static_cast<char>(i % 3));
    text[static_cast<std::size_t>(length) / 2] = static_cast<char>('A' + (i / 80) % 26);
    return text;
  };
  std::string conf = "lengths,many,number\n";
  std::vector<std::string> lengths, many;
  for (int i = 0; i < 30000; ++i) {
    lengths.push_back(level((i * 7) % 2080));
    many.push_back(i % 17 == 0 ? "" : "level_" + std::to_string((i * 7919) % 3000) + "_x");
    conf += lengths.back() + "," + many.back() + "," + std::to_string(i % 101) + "\n";
  }
  std::vector<Loaded> runs;
  for (int threads : {1, 2, 3}) {
    ReadSettings settings;
    settings.csv.threads = threads;
    runs.push_back(load(conf, {}, settings));  // load() compares with the two separate calls
  }
  const Table& t = runs[0].confidential;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    ASSERT_EQ(cell(t, "lengths", r), lengths[r]) << r;
    ASSERT_EQ(cell(t, "many", r), many[r].empty() ? "<NA>" : many[r]) << r;
  }
  std::set<std::string> distinct_lengths(lengths.begin(), lengths.end());
  std::set<std::string> distinct_many(many.begin(), many.end());
  distinct_many.erase("");
  EXPECT_EQ(t.column("lengths").dictionary->size(), distinct_lengths.size());
  EXPECT_EQ(t.column("many").dictionary->size(), distinct_many.size());
  EXPECT_EQ(distinct_many.size(), 3000u);
  for (std::size_t k = 1; k < runs.size(); ++k)
    expect_same_columns(runs[0].schema, runs[0].confidential, runs[k].schema, runs[k].confidential);
}

TEST(Table, SelectRowsPerColumnTakesEachColumnFromItsOwnRows) {
  Column number{.name = "x",
                .kind = ColumnKind::kNumeric,
                .numeric = {10, 11, 12},
                .missing_codes = {-8},
                .missing_code_index = {0, 1, 0}};
  auto dictionary = std::make_shared<Dictionary>();
  Column level{.name = "g", .kind = ColumnKind::kCategorical};
  for (const char* v : {"a", "b", "c"}) level.codes.push_back(dictionary->intern(v));
  level.dictionary = dictionary;
  const Table table(TableSource{"t.csv", "", "confidential"}, {number, level});
  const Table mixed = select_rows_per_column(table, {{2, 1, 1, 0}, {0, 0, 2, 1}},
                                             TableSource{"t.csv (draw)", "", "synthetic"});
  ASSERT_EQ(mixed.rows(), 4u);
  EXPECT_EQ(mixed.column(0).numeric, (std::vector<double>{12, 11, 11, 10}));
  EXPECT_EQ(mixed.column(0).missing_code_index, (std::vector<std::uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(mixed.column(1).codes, (std::vector<std::uint32_t>{0, 0, 2, 1}));
  EXPECT_EQ(mixed.column(1).dictionary, dictionary);  // codes keep their meaning
  EXPECT_THROW(select_rows_per_column(table, {{0, 1}}, table.source()), std::logic_error);
  EXPECT_THROW(select_rows_per_column(table, {{0, 1}, {0}}, table.source()), std::logic_error);
}
