// The structure check split into pieces (CsvOptions::structure_piece_bytes, src/io/csv.cpp): for
// every piece size from 1 byte to the whole text, at 1 and 2 threads, a file gives the same row
// index, fields, typed table and error message as one pass over it. Also the fingerprint of a
// file read in blocks with the hash following the reader (io/file.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/csv.hpp"
#include "io/file.hpp"
#include "io/load.hpp"

using namespace synthaudit;

namespace {

// Everything a reading of `text` produces that later steps see, as one string: the header, each
// row's fields, the typed table (kinds, numbers, levels), or the error message.
std::string reading_of(const std::string& text, std::uint64_t piece_bytes, int threads,
                       std::uint64_t max_field_bytes = std::uint64_t{1} << 20) {
  CsvOptions options;
  options.threads = threads;
  options.structure_piece_bytes = piece_bytes;
  options.max_field_bytes = max_field_bytes;
  std::string out;
  try {
    const CsvFile file = CsvFile::from_bytes(text, "t.csv", options);
    out += "layout: " + file.assumed_layout() + "\nheader:";
    for (const auto& name : file.header()) out += " [" + name + "]";
    out += "\nrows: " + std::to_string(file.rows()) + "\n";
    std::vector<std::string> rows(file.rows());
    file.visit_rows([&](int, std::size_t r, const std::vector<std::string_view>& fields) {
      for (const auto field : fields) rows[r] += "[" + std::string(field) + "]";
    });
    for (const auto& row : rows) out += row + "\n";
    ReadSettings settings;
    settings.csv = options;
    const InferredTable read = infer_and_encode(file, settings, "confidential");
    for (const Column& column : read.table.columns()) {
      out += column.name + (column.is_numeric() ? " numeric:" : " categorical:");
      for (std::size_t r = 0; r < column.size(); ++r) {
        if (column.missing(r)) {
          out += " NA";
        } else if (column.is_numeric()) {
          char number[32];
          std::snprintf(number, sizeof number, " %.17g", column.numeric[r]);
          out += number;
        } else {
          out += " " + column.dictionary->level(column.codes[r]);
        }
      }
      out += "\n";
    }
  } catch (const InputError& e) {
    out += std::string("error: ") + e.what();
  }
  return out;
}

// Files with what makes a split point hard: quoted fields holding delimiters, line breaks and
// escaped quotes, CRLF, blank lines, no final line break, a BOM, row names, a quote inside an
// unquoted field; and malformed ones, whose error names the row and line.
const std::vector<std::string>& texts() {
  static const std::vector<std::string> all = {
      "a,b,c\n1,x,2.5\n2,y,3\n3,\"z,w\",4\n4,\"multi\nline\",5\n5,\"say \"\"hi\"\"\",6\n",
      "a,b\r\n1,\"p\r\nq\"\r\n2,r\r\n\r\n3,\"s,\"\"t\"\"\r\n\"\r\n4,u",
      "\xEF\xBB\xBFid,name\n\n1,\"\n\n\"\n\n2,plain\n3,\"\"\n",
      "x,y\n1,a\"b\n2,\"c\"\n3,d\"\"e\n\"4\",\"\"\n",
      "\"a\",\"b\"\n\"r1\",1,\"p\"\n\"r2\",2,\"q\nr\"\n\"r3\",3,\"s\"\n",  // write.table row names
      ",v,w\n1,\"a\nb\",2\n2,c,3\n",                                       // write.csv row names
      "a,b\n1,2\n3,\"4\n5,6\n7,8\n",                                       // unterminated quote
      "a,b\n1,2\n3,\"4\"x\n5,6\n",                                         // text after a quote
      "a,b\n1,2\n\"3\n\",4\n5,6,7\n8,9\n",                           // ragged row after a newline
      "a,b\n1,2\n3\n4,5\n",                                          // too few fields
      "a,b\n1,2\n3,\"a long quoted field\nover two lines\"\n4,5\n",  // a field over the limit
      "a\n\"\n\"\n\"\"\"\"\n\n\"\r\n\"\n",                           // one column, all quotes
      "a,b\n1,2\r\r\n3,4\r5,6\n",                                    // lone carriage returns
  };
  return all;
}

}  // namespace

TEST(CsvSplit, EveryPieceSizeGivesTheSerialReading) {
  for (const std::string& text : texts()) {
    // A low field limit makes the long quoted field an error.
    const std::uint64_t max_field = 24;
    const std::string serial = reading_of(text, 0, 1, max_field);
    for (std::uint64_t piece = 1; piece <= text.size(); ++piece)
      for (const int threads : {1, 2})
        ASSERT_EQ(reading_of(text, piece, threads, max_field), serial)
            << "piece " << piece << ", " << threads << " threads, text:\n"
            << text;
  }
}

TEST(CsvSplit, ErrorsNameTheRowAndLineOfOnePass) {
  // The messages one pass gives (as before the split), at a split point inside the bad row.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a,b\n1,2\n3,\"4\n5,6\n7,8\n", "t.csv: row 2 (line 3): unterminated quoted field"},
      {"a,b\n1,2\n3,\"4\"x\n5,6\n", "t.csv: row 2 (line 3): text after a closing quote"},
      {"a,b\n1,2\n\"3\n\",4\n5,6,7\n8,9\n", "t.csv: row 3 (line 5) has 3 fields, header has 2"},
      {"a,b\n1,2\n3\n4,5\n", "t.csv: row 2 (line 3) has 1 fields, header has 2"},
  };
  for (const auto& [text, message] : cases)
    for (std::uint64_t piece = 1; piece <= text.size(); ++piece)
      for (const int threads : {1, 2})
        EXPECT_EQ(reading_of(text, piece, threads), "error: " + message)
            << "piece " << piece << ", " << threads << " threads";
}

TEST(CsvSplit, LargeFileWithQuotedLineBreaksAtAutomaticPieces) {
  // About 3 MB: several automatic pieces of 1 MiB at 2 threads, and rows whose quoted line
  // breaks make some pieces start inside a quoted field.
  std::string text = "id,note,value,tag\n";
  for (int r = 0; r < 60000; ++r) {
    text += std::to_string(r) + ",";
    text += (r % 7 == 0) ? "\"line one\nline two, \"\"quoted\"\"\r\nthree\"" : "plain note";
    text += "," + std::to_string(r % 1000) + "." + std::to_string(r % 10) + ",";
    text += (r % 3 == 0) ? "\"a,b\"" : "c";
    text += (r % 11 == 0) ? "\r\n" : "\n";
  }
  const std::string serial = reading_of(text, 0, 1);
  EXPECT_EQ(serial.find("error"), std::string::npos);
  EXPECT_EQ(reading_of(text, 0, 2), serial);
  for (const std::uint64_t piece : {4096u, 65536u, 1000003u})
    EXPECT_EQ(reading_of(text, piece, 2), serial) << "piece " << piece;
}

TEST(CsvSplit, FingerprintOfABlockwiseReadIsTheFilesSha256) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("synthaudit_csv_split_" + std::to_string(::getpid()) + ".csv"))
                               .string();
  // FIPS 180-2's example "abc", as a file of its own.
  { std::ofstream(path, std::ios::binary) << "abc"; }
  HashedInput small = read_input_file_hashed(path, 1 << 20);
  EXPECT_EQ(small.sha256.get(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(small.bytes.view(), "abc");
  // Several read blocks (4 MiB each) and a part block: the one-shot hash of the same bytes.
  std::string text = "a,b\n";
  while (text.size() < (std::size_t{9} << 20)) text += std::to_string(text.size()) + ",x\n";
  { std::ofstream(path, std::ios::binary) << text; }
  const CsvFile file = CsvFile::open(path);
  EXPECT_EQ(file.sha256(), sha256_hex(text));
  EXPECT_EQ(file.rows(), CsvFile::from_bytes(text, path).rows());
  ReadSettings settings;
  EXPECT_EQ(open_data_file(path, settings)->sha256(), sha256_hex(text));
  std::filesystem::remove(path);
}

TEST(CsvSplit, HashedReadGivesTheErrorsOfThePlainRead) {
  // A missing file, a folder, a device, a file over the size bound, and a file that "grows"
  // while read (/proc reports size 0): the last one fails after the hashing thread started.
  const std::string folder = std::filesystem::temp_directory_path().string();
  const std::string large = folder + "/synthaudit_csv_split_large_" + std::to_string(::getpid());
  { std::ofstream(large, std::ios::binary) << std::string(100, 'x'); }
  for (const std::string& path :
       {std::string("/nonexistent/x.csv"), folder, std::string("/dev/zero"), large,
        std::string("/proc/self/status"), std::string("/proc/self/cmdline")}) {
    std::string plain, hashed;
    try {
      read_input_file(path, 16);
    } catch (const InputError& e) {
      plain = e.what();
    }
    try {
      HashedInput input = read_input_file_hashed(path, 16);
    } catch (const InputError& e) {
      hashed = e.what();
    }
    EXPECT_FALSE(plain.empty()) << path;
    EXPECT_EQ(hashed, plain) << path;
  }
  std::filesystem::remove(large);
}
