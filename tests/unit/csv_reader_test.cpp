// Unit tests of the CSV reader (src/io/csv.*): RFC 4180 quoting, line endings, BOM, delimiters,
// gzip, blank lines and the structural errors, each with the message naming file/row/column.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "input_error_of.hpp"
#include "io/csv.hpp"

using namespace synthaudit;

namespace {

using Rows = std::vector<std::vector<std::string>>;

Rows read_all(const CsvFile& file) {
  Rows rows(file.rows());
  file.visit_rows([&](int, std::size_t r, const std::vector<std::string_view>& fields) {
    for (auto f : fields) rows[r].emplace_back(f);
  });
  return rows;
}

Rows parse(const std::string& text, CsvOptions options = {}) {
  return read_all(CsvFile::from_bytes(text, "t.csv", options));
}

using synthaudit::testing::error_of;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("synthaudit_csv_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST(CsvReader, PlainRows) {
  const CsvFile f = CsvFile::from_bytes("a,b,c\n1,2,3\n4,5,6\n", "t.csv");
  EXPECT_EQ(f.header(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(f.rows(), 2u);
  EXPECT_EQ(f.columns(), 3u);
  EXPECT_EQ(read_all(f), (Rows{{"1", "2", "3"}, {"4", "5", "6"}}));
}

TEST(CsvReader, QuotedFieldsWithDelimitersQuotesAndNewlines) {
  const std::string text =
      "name,comment,n\n"
      "\"Smith, John\",\"He said \"\"hi\"\"\",1\n"
      "\"multi\nline\",\"\"\"\",2\n"
      "\"\",\"a\"\"b\"\"c\",3\n"
      "plain,\"x\r\ny\",4\n";
  EXPECT_EQ(parse(text), (Rows{{"Smith, John", "He said \"hi\"", "1"},
                               {"multi\nline", "\"", "2"},
                               {"", "a\"b\"c", "3"},
                               {"plain", "x\r\ny", "4"}}));
}

TEST(CsvReader, SeveralEscapedFieldsInOneRowKeepTheirOwnText) {
  // Unescaped text lives in one scratch buffer that may move while the row grows.
  std::string long_a(500, 'a'), long_b(700, 'b');
  const std::string text = "x,y,z\n\"" + long_a + "\"\"\",\"\"\"" + long_b + "\",\"q\"\"\"\n";
  EXPECT_EQ(parse(text), (Rows{{long_a + "\"", "\"" + long_b, "q\""}}));
}

TEST(CsvReader, CrlfAndMissingFinalNewline) {
  EXPECT_EQ(parse("a,b\r\n1,2\r\n3,4"), (Rows{{"1", "2"}, {"3", "4"}}));
  EXPECT_EQ(parse("a,b\r\n1,2\r\n3,4\r\n"), (Rows{{"1", "2"}, {"3", "4"}}));
  const CsvFile f = CsvFile::from_bytes("a,b\r\n1,2\r\n", "t.csv");
  EXPECT_EQ(f.header(), (std::vector<std::string>{"a", "b"}));
}

TEST(CsvReader, TrailingDelimiterIsAnEmptyLastField) {
  EXPECT_EQ(parse("a,b\n1,\n,2\n"), (Rows{{"1", ""}, {"", "2"}}));
  EXPECT_EQ(parse("a,b\n1,"), (Rows{{"1", ""}}));
}

TEST(CsvReader, Utf8ByteOrderMarkIsSkipped) {
  const CsvFile f = CsvFile::from_bytes(
      "\xEF\xBB\xBF"
      "age,sex\n30,F\n",
      "t.csv");
  EXPECT_EQ(f.header(), (std::vector<std::string>{"age", "sex"}));
  EXPECT_EQ(read_all(f), (Rows{{"30", "F"}}));
  EXPECT_NE(error_of([] { CsvFile::from_bytes("\xEF\xBB\xBF", "bom.csv"); }).find("empty"),
            std::string::npos);
}

TEST(CsvReader, CustomDelimiters) {
  CsvOptions semi;
  semi.delimiter = ';';
  EXPECT_EQ(parse("a;b\n1,5;\"x;y\"\n", semi), (Rows{{"1,5", "x;y"}}));
  CsvOptions tab;
  tab.delimiter = '\t';
  EXPECT_EQ(parse("a\tb\n1 2\t\"t\tu\"\n", tab), (Rows{{"1 2", "t\tu"}}));
  CsvOptions quote;
  quote.delimiter = '"';
  EXPECT_NE(error_of([&] { CsvFile::from_bytes("a\n1\n", "t.csv", quote); }).find("delimiter"),
            std::string::npos);
}

TEST(CsvReader, BlankLinesAreSkipped) {
  const CsvFile f = CsvFile::from_bytes("a,b\n\n1,2\r\n\r\n\n3,4\n\n", "t.csv");
  EXPECT_EQ(read_all(f), (Rows{{"1", "2"}, {"3", "4"}}));
  // A ragged row after blank lines is reported with its row number and its line number.
  const auto msg = error_of([] { CsvFile::from_bytes("a,b\n1,2\n\n\n3\n", "blank.csv"); });
  EXPECT_NE(msg.find("blank.csv: row 2 (line 5) has 1 fields, header has 2"), std::string::npos)
      << msg;
}

TEST(CsvReader, GzipIsDetectedByMagicBytes) {
  const std::string text = "a,b\n\"x,1\",2\n3,4\n";
  const auto path = temp_path("g.csv.gz");
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  gzclose(gz);
  const CsvFile f = CsvFile::open(path);
  EXPECT_EQ(read_all(f), (Rows{{"x,1", "2"}, {"3", "4"}}));
  // The fingerprint is of the bytes as stored (compressed), not of the decompressed text.
  std::ifstream in(path, std::ios::binary);
  const std::string stored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(f.sha256(), sha256_hex(stored));
  EXPECT_NE(f.sha256(), sha256_hex(text));
  // Truncated gzip is an error naming the file.
  const auto cut = temp_path("cut.csv.gz");
  std::ofstream(cut, std::ios::binary) << stored.substr(0, stored.size() - 12);
  EXPECT_NE(error_of([&] { CsvFile::open(cut); }).find(cut + ": truncated gzip"),
            std::string::npos);
  std::filesystem::remove(path);
  std::filesystem::remove(cut);
}

TEST(CsvReader, Sha256OfKnownText) {
  // FIPS 180-2 example: SHA-256("abc").
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(CsvReader, StructuralErrorsNameFileAndRow) {
  auto msg = [](const std::string& text) {
    return error_of([&] { CsvFile::from_bytes(text, "d.csv"); });
  };
  EXPECT_EQ(msg(""), "d.csv: file is empty");
  EXPECT_EQ(msg("\n\r\n"), "d.csv: file is empty");
  EXPECT_EQ(msg("a,b\n"), "d.csv: header only, no data rows");
  EXPECT_EQ(msg("a,b\n\n"), "d.csv: header only, no data rows");
  EXPECT_EQ(msg("a,b\n1,2\n1,2,3\n"), "d.csv: row 2 (line 3) has 3 fields, header has 2");
  EXPECT_EQ(msg("a,b\n1,\"2\n3,4\n"), "d.csv: row 1 (line 2): unterminated quoted field");
  EXPECT_EQ(msg("a,\"b\n"), "d.csv: header (line 1): unterminated quoted field");
  EXPECT_EQ(msg("a,b\n\"1\"x,2\n"), "d.csv: row 1 (line 2): text after a closing quote");
  EXPECT_EQ(msg("a,b,a\n1,2,3\n"), "d.csv: duplicate column name 'a' in the header");
  EXPECT_EQ(msg("a,,c\n1,2,3\n"), "d.csv: header column 2 has an empty name");
  EXPECT_EQ(
      msg("a,b\xff\n1,2\n"),
      "d.csv: header column 2 is not valid UTF-8 (if the file is Latin-1 or Windows-1252, give "
      "--encoding latin1, or read: encoding: latin1 in the spec)");
  // Row numbers count data rows; a quoted newline makes line numbers run ahead of them.
  EXPECT_EQ(msg("a,b\n\"x\ny\",1\n2\n"), "d.csv: row 2 (line 4) has 1 fields, header has 2");
}

TEST(CsvReader, Utf8HeaderValidation) {
  auto ok = [](const std::string& name) {
    return error_of([&] { CsvFile::from_bytes(name + ",b\n1,2\n", "u.csv"); }).empty();
  };
  EXPECT_TRUE(ok("\xC3\xA9tat"));        // é
  EXPECT_TRUE(ok("\xE2\x82\xAC"));       // €
  EXPECT_TRUE(ok("\xF0\x9F\x98\x80"));   // U+1F600
  EXPECT_FALSE(ok("\xC3"));              // truncated sequence
  EXPECT_FALSE(ok("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(ok("\xE0\x80\xAF"));      // overlong, 3 bytes
  EXPECT_FALSE(ok("\xED\xA0\x80"));      // UTF-16 surrogate
  EXPECT_FALSE(ok("\xF0\x80\x80\xAF"));  // overlong, 4 bytes
  EXPECT_FALSE(ok("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(ok("\x80"));              // lone continuation byte
}

TEST(CsvReader, MissingAndUnreadableFiles) {
  const auto missing = temp_path("does_not_exist.csv");
  const auto msg = error_of([&] { CsvFile::open(missing); });
  EXPECT_EQ(msg.rfind(missing + ": cannot open file", 0), 0u) << msg;
  const auto dir = temp_path("a_directory");
  std::filesystem::create_directories(dir);
  EXPECT_NE(error_of([&] { CsvFile::open(dir); }).find(dir + ": "), std::string::npos);
  std::filesystem::remove(dir);
}

TEST(CsvReader, VisitRowsGivesTheSameFieldsForAnyThreadCount) {
  std::string text = "id,s,q\n";
  for (int i = 0; i < 10000; ++i)
    text +=
        std::to_string(i) + ",v" + std::to_string(i % 37) + ",\"q\"\"" + std::to_string(i) + "\"\n";
  CsvOptions one, two, five;
  one.threads = 1;
  two.threads = 2;
  five.threads = 5;
  const CsvFile f1 = CsvFile::from_bytes(text, "t.csv", one);
  const CsvFile f2 = CsvFile::from_bytes(text, "t.csv", two);
  const CsvFile f5 = CsvFile::from_bytes(text, "t.csv", five);
  std::vector<int> used(5, 0);
  Rows r5(f5.rows());
  f5.visit_rows([&](int t, std::size_t r, const std::vector<std::string_view>& fields) {
    used[static_cast<std::size_t>(t)] = 1;
    for (auto x : fields) r5[r].emplace_back(x);
  });
  EXPECT_EQ(used, (std::vector<int>{1, 1, 1, 0, 0}));  // 10000 rows: 3 workers of >= 4096 rows
  const Rows r1 = read_all(f1);
  EXPECT_EQ(r1, read_all(f2));
  EXPECT_EQ(r1, r5);
  EXPECT_EQ(r1[9999], (std::vector<std::string>{"9999", "v9", "q\"9999"}));
}

TEST(CsvReader, VisitorErrorFromTheLowestRowWins) {
  std::string text = "a\n";
  for (int i = 0; i < 20000; ++i) text += std::to_string(i) + "\n";
  CsvOptions two;
  two.threads = 2;
  const CsvFile f = CsvFile::from_bytes(text, "t.csv", two);
  const auto msg = error_of([&] {
    f.visit_rows([](int, std::size_t r, const std::vector<std::string_view>&) {
      if (r == 15000 || r == 3000) throw InputError("row " + std::to_string(r));
    });
  });
  EXPECT_EQ(msg, "row 3000");
}

TEST(CsvReader, MappedFileReadsTheSameInEveryPass) {
  // A plain file is memory-mapped and its pages are handed back while passes run: every pass
  // must still see the same bytes, on any thread count, and match the in-memory reader.
  std::string text = "id,name,note\n";
  for (int i = 0; i < 60000; ++i)
    text += std::to_string(i) + ",\"n" + std::to_string(i % 97) + "\",\"long text, with a comma " +
            std::to_string(i * 31) + "\"\n";
  const auto path = temp_path("mapped.csv");
  std::ofstream(path, std::ios::binary) << text;
  CsvOptions two;
  two.threads = 2;
  const CsvFile mapped = CsvFile::open(path, two);
  const CsvFile memory = CsvFile::from_bytes(text, path, two);
  EXPECT_EQ(mapped.size(), text.size());
  EXPECT_EQ(mapped.sha256(), memory.sha256());
  const Rows first = read_all(mapped);
  EXPECT_EQ(first, read_all(mapped));
  EXPECT_EQ(first, read_all(memory));
  EXPECT_EQ(first[59999][2], "long text, with a comma " + std::to_string(59999 * 31));
  std::filesystem::remove(path);
}

TEST(CsvReader, ReadsFromAPipe) {
  const auto fifo = temp_path("fifo.csv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << "a,b\n1,2\n3,\"4\"\n"; });
  const CsvFile f = CsvFile::open(fifo);
  writer.join();
  EXPECT_EQ(read_all(f), (Rows{{"1", "2"}, {"3", "4"}}));
  std::filesystem::remove(fifo);
}

namespace {

// An independent reading of the grammar the reader implements, one character at a time: rows of
// unescaped fields, or the first structural error (its kind and row label, 0 for the header).
struct Reference {
  std::string error;  // "", "unterminated", "text after", "longer than", "fields", "header only"
  std::size_t error_row = 0;
  Rows rows;
};

Reference read_reference(const std::string& text, char d, std::size_t max_field) {
  Reference out;
  std::size_t i = 0;
  const std::size_t n = text.size();
  std::size_t longest = 0;
  // 0: a row, 1: unterminated quote, 2: text after a closing quote.
  auto row = [&](std::vector<std::string>& fields) {
    fields.clear();
    longest = 0;
    while (true) {
      std::string field;
      const std::size_t start = i;
      if (i < n && text[i] == '"') {
        ++i;
        while (true) {
          if (i >= n) return 1;
          if (text[i] == '"') {
            if (i + 1 < n && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          field += text[i++];
        }
        if (i < n && text[i] != d && text[i] != '\n' && text[i] != '\r') return 2;
      } else {
        while (i < n && text[i] != d && text[i] != '\n' && text[i] != '\r') field += text[i++];
      }
      longest = std::max(longest, i - start);
      fields.push_back(field);
      if (i >= n) return 0;
      if (text[i] == d) {
        ++i;
        continue;
      }
      i += (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') ? 2 : 1;
      return 0;
    }
  };
  auto fail = [&](int kind, std::size_t label) {
    out.error = kind == 1 ? "unterminated" : "text after";
    out.error_row = label;
    return out;
  };
  std::vector<std::string> fields;
  if (const int kind = row(fields)) return fail(kind, 0);
  std::size_t expected = fields.size();
  bool row_names = false;
  while (i < n) {
    if (text[i] == '\n' || text[i] == '\r') {
      ++i;
      continue;
    }
    const std::size_t label = out.rows.size() + 1;
    if (const int kind = row(fields)) return fail(kind, label);
    if (out.rows.empty() && fields.size() == expected + 1) {
      row_names = true;
      ++expected;
    }
    out.error_row = label;
    if (longest > max_field) {
      out.error = "longer than";
      return out;
    }
    if (fields.size() != expected) {
      out.error = "fields";
      return out;
    }
    if (row_names) fields.erase(fields.begin());
    out.rows.push_back(fields);
  }
  if (out.rows.empty()) out.error = "header only";
  return out;
}

}  // namespace

TEST(CsvReader, StructureMatchesAnIndependentReadingOfRandomText) {
  // Rows that cross the reader's 32-byte blocks at every offset: unquoted fields with quotes
  // inside, quoted fields with delimiters, escaped quotes and line breaks, empty fields, every
  // line ending, blank lines, and now and then a broken row (unterminated or text after a quote,
  // a field too many or too few, a field over the limit).
  std::uint64_t state = 0x2545F4914F6CDD1DULL;
  auto next = [&](std::uint64_t bound) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (state * 2685821657736338717ULL >> 11) % bound;
  };
  std::size_t compared = 0, failed = 0;
  for (int file = 0; file < 600; ++file) {
    const char d = ",;\t"[next(3)];
    const std::size_t max_field = next(4) == 0 ? 12 + next(20) : 1 << 20;
    std::string text = std::string("h1") + d + "h2" + d + "h3\n";
    const std::size_t rows = 1 + next(40);
    for (std::size_t r = 0; r < rows; ++r) {
      std::size_t columns = 3;
      if (next(150) == 0) columns = 2 + next(3);
      if (r == 0 && next(20) == 0) columns = 4;  // row names without a name
      for (std::size_t c = 0; c < columns; ++c) {
        if (c > 0) text += d;
        const std::size_t length = next(4) == 0 ? next(70) : next(9);
        if (next(4) == 0) {
          text += '"';
          for (std::size_t k = 0; k < length; ++k) {
            const std::size_t pick = next(12);
            text += pick == 0   ? std::string("\"\"")
                    : pick == 1 ? std::string(1, d)
                    : pick == 2 ? std::string("\n")
                                : std::string(1, static_cast<char>('a' + next(26)));
          }
          if (next(300) != 0) text += '"';
          if (next(300) == 0) text += 'x';
        } else {
          for (std::size_t k = 0; k < length; ++k)
            text += (k > 0 && next(15) == 0) ? '"' : static_cast<char>('a' + next(26));
        }
      }
      const std::size_t ending = next(10);
      text += ending == 0 ? "\r\n" : ending == 1 ? "\r" : ending == 2 ? "\n\n" : "\n";
    }
    if (next(4) == 0) text.pop_back();  // no final line break
    const Reference want = read_reference(text, d, max_field);
    for (int threads : {1, 2}) {
      CsvOptions options;
      options.delimiter = d;
      options.threads = threads;
      options.max_field_bytes = max_field;
      std::string error;
      Rows got;
      try {
        got = read_all(CsvFile::from_bytes(text, "t.csv", options));
      } catch (const InputError& e) {
        error = e.what();
      }
      ++compared;
      if (want.error.empty()) {
        EXPECT_EQ(error, "") << "file " << file;
        EXPECT_EQ(got, want.rows) << "file " << file;
      } else {
        ++failed;
        const std::string label =
            want.error == "header only"
                ? "header only"
                : (want.error_row == 0 ? "t.csv: header"
                                       : "t.csv: row " + std::to_string(want.error_row) + " ");
        EXPECT_EQ(error.rfind(label, 0), 0u) << "file " << file << ": " << error;
        EXPECT_NE(error.find(want.error), std::string::npos) << "file " << file << ": " << error;
      }
    }
  }
  // Both outcomes were exercised.
  EXPECT_GT(failed, compared / 10);
  EXPECT_LT(failed, compared * 9 / 10);
}
