// Reading a file split over ranks (threads standing in for MPI ranks) gives, once the parts are
// put back together in rank order, exactly the table one process reads: the same kinds, values,
// codes and dictionaries, and the same error for bad input wherever it lies.
#include "io/partitioned_read.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "core/error.hpp"

namespace synthaudit {
namespace {

namespace fs = std::filesystem;

struct Whole {
  Schema schema;
  Table table;
  std::vector<MissingTally> tallies;
  bool by_byte_range = false;
};

Whole read_single(const std::string& path, const ReadSettings& settings) {
  Whole out;
  auto file = open_data_file(path, settings);
  out.schema = infer_schema(*file, settings);
  out.table = encode_table(*file, out.schema, settings, "confidential", nullptr, &out.tallies);
  finalize_dictionaries(out.schema, {&out.table});
  return out;
}

// The ranks' parts, finalised on each rank, concatenated in rank order.
Whole read_partitioned(const std::string& path, const ReadSettings& settings, int ranks) {
  std::vector<Table> parts(static_cast<std::size_t>(ranks));
  std::vector<std::size_t> first_rows(parts.size());
  Whole out;
  std::mutex mutex;
  run_thread_group(ranks, [&](Communicator& communicator) {
    const PartitionedFile file = open_partitioned(path, settings, communicator);
    Schema schema = infer_partitioned_schema(file, settings, communicator);
    std::vector<MissingTally> tallies;
    Table part =
        encode_partitioned(file, schema, settings, "confidential", communicator, nullptr, &tallies);
    finalize_dictionaries(schema, {&part});
    const std::lock_guard<std::mutex> lock(mutex);
    const auto r = static_cast<std::size_t>(communicator.rank());
    parts[r] = std::move(part);
    first_rows[r] = file.first_row;
    if (r == 0) {
      out.schema = schema;
      out.tallies = tallies;
      out.by_byte_range = file.read_by_byte_range;
    }
  });
  std::vector<Column> columns = parts[0].columns();
  std::size_t rows = parts[0].rows();
  for (std::size_t r = 1; r < parts.size(); ++r) {
    EXPECT_EQ(first_rows[r], rows) << "rank " << r;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const Column& from = parts[r].column(c);
      auto& to = columns[c];
      to.numeric.insert(to.numeric.end(), from.numeric.begin(), from.numeric.end());
      to.codes.insert(to.codes.end(), from.codes.begin(), from.codes.end());
      to.missing_code_index.insert(to.missing_code_index.end(), from.missing_code_index.begin(),
                                   from.missing_code_index.end());
    }
    rows += parts[r].rows();
  }
  out.table = Table(parts[0].source(), std::move(columns));
  return out;
}

void expect_same(const Whole& single, const Whole& partitioned) {
  ASSERT_EQ(single.schema.columns.size(), partitioned.schema.columns.size());
  for (std::size_t c = 0; c < single.schema.columns.size(); ++c) {
    const auto& a = single.schema.columns[c];
    const auto& b = partitioned.schema.columns[c];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind) << a.name;
    if (a.dictionary && b.dictionary) {
      EXPECT_EQ(a.dictionary->levels(), b.dictionary->levels());
    }
  }
  const Table& x = single.table;
  const Table& y = partitioned.table;
  EXPECT_EQ(x.source().sha256, y.source().sha256);
  ASSERT_EQ(x.rows(), y.rows());
  ASSERT_EQ(x.column_count(), y.column_count());
  for (std::size_t c = 0; c < x.column_count(); ++c) {
    const Column& a = x.column(c);
    const Column& b = y.column(c);
    EXPECT_EQ(a.codes, b.codes) << a.name;
    EXPECT_EQ(a.missing_code_index, b.missing_code_index) << a.name;
    ASSERT_EQ(a.numeric.size(), b.numeric.size());
    for (std::size_t r = 0; r < a.numeric.size(); ++r)
      ASSERT_EQ(std::memcmp(&a.numeric[r], &b.numeric[r], sizeof(double)), 0)
          << a.name << " row " << r;
  }
  ASSERT_EQ(single.tallies.size(), partitioned.tallies.size());
  for (std::size_t i = 0; i < single.tallies.size(); ++i) {
    EXPECT_EQ(single.tallies[i].column, partitioned.tallies[i].column);
    EXPECT_EQ(single.tallies[i].codes, partitioned.tallies[i].codes);
  }
}

std::string write_temp(const std::string& name, const std::string& text) {
  // Removed when the process ends.
  static const struct Folder {
    fs::path path = fs::temp_directory_path() /
                    ("synthaudit_partitioned_read_test_" + std::to_string(::getpid()));
    ~Folder() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } folder;
  const fs::path& dir = folder.path;
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PartitionedRead, SurveyFileEqualsOneReaderOnTwoThreeFourRanks) {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8};
  for (const char* name : {"sd2011/orig.csv", "sd2011/holdout.csv", "conf.csv"}) {
    const std::string path = std::string(SYNTHAUDIT_TEST_DATA) + "/" + name;
    ReadSettings own = settings;
    if (std::string(name) != "conf.csv") own.missing_codes.clear();
    const Whole single = read_single(path, own);
    for (int ranks : {2, 3, 4}) {
      SCOPED_TRACE(std::string(name) + " on " + std::to_string(ranks) + " ranks");
      const Whole partitioned = read_partitioned(path, own, ranks);
      if (std::string(name) != "conf.csv") {
        EXPECT_TRUE(partitioned.by_byte_range);
      }
      expect_same(single, partitioned);
    }
  }
}

TEST(PartitionedRead, QuotedFieldsWithLineBreaksAreNotRowBoundaries) {
  // Every row holds a quoted field with line breaks, delimiters and doubled quotes, so many byte
  // ranges start inside one; CRLF line ends and a blank line too.
  std::string text = "id,note,score\r\n";
  for (int i = 0; i < 400; ++i) {
    text += std::to_string(i) + ",\"line one\nline, two\r\n\"\"quoted\"\" " +
            std::to_string(i % 7) + "\n\"," + std::to_string(i * 0.25) + "\r\n";
    if (i == 200) text += "\r\n";
  }
  const std::string path = write_temp("quoted.csv", text);
  const Whole single = read_single(path, {});
  ASSERT_EQ(single.table.rows(), 400u);
  for (int ranks : {2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const Whole partitioned = read_partitioned(path, {}, ranks);
    EXPECT_TRUE(partitioned.by_byte_range);
    expect_same(single, partitioned);
  }
}

TEST(PartitionedRead, FewerRowsThanRanks) {
  const std::string path = write_temp("two_rows.csv", "a,b\n1,x\n2,y\n");
  const Whole single = read_single(path, {});
  for (int ranks : {3, 4}) expect_same(single, read_partitioned(path, {}, ranks));
}

TEST(PartitionedRead, CompressedAndBinaryFilesAreReadWholeOnEveryRank) {
  for (const char* name : {"sd2011/train.dta.gz", "sd2011/train.zsav"}) {
    const std::string path = std::string(SYNTHAUDIT_TEST_DATA) + "/" + name;
    const Whole single = read_single(path, {});
    const Whole partitioned = read_partitioned(path, {}, 3);
    EXPECT_FALSE(partitioned.by_byte_range);
    expect_same(single, partitioned);
  }
}

TEST(PartitionedRead, DecimalCommaAndRowNamesLayoutsAsOneReader) {
  for (const char* name : {"text/r_write_csv2.csv", "text/r_write_table.txt",
                           "text/excel_european.csv", "text/r_write_csv.csv"}) {
    const std::string path = std::string(SYNTHAUDIT_TEST_DATA) + "/" + name;
    ReadSettings settings;
    if (std::string(name) == "text/excel_european.csv")
      settings.csv.encoding = TextEncoding::kWindows1252;
    const Whole single = read_single(path, settings);
    for (int ranks : {2, 3}) {
      SCOPED_TRACE(std::string(name) + " on " + std::to_string(ranks) + " ranks");
      expect_same(single, read_partitioned(path, settings, ranks));
    }
  }
}

TEST(PartitionedRead, DetectedDecimalCommaByByteRanges) {
  // Semicolons and decimal commas, detected from the first rows. On 2 and 3 ranks the first rank
  // holds more rows than the detection looks at, so the ranks read by byte ranges and take its
  // decision, also the ranks whose rows hold no decimal number at all.
  std::string text = "id;height;group\n";
  for (int i = 0; i < 6000; ++i)
    text += std::to_string(i) + ";" +
            (i < 4000 ? std::to_string(150 + i % 40) + "," + std::to_string(i % 10)
                      : std::to_string(150 + i % 40)) +
            ";g" + std::to_string(i % 3) + "\n";
  const std::string path = write_temp("decimal_comma.csv", text);
  const Whole single = read_single(path, {});
  ASSERT_EQ(single.schema.columns[1].kind, ColumnKind::kNumeric);
  for (int ranks : {2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const Whole partitioned = read_partitioned(path, {}, ranks);
    // On 4 ranks the first holds 1,500 rows, fewer than the detection reads, and the last rank
    // (no decimals) guesses otherwise: then every rank reads the whole file, as one reader.
    EXPECT_EQ(partitioned.by_byte_range, ranks < 4);
    expect_same(single, partitioned);
  }
}

TEST(PartitionedRead, BadValueOnOneRankIsTheSameErrorOnEveryRank) {
  std::string text = "age,region\n";
  for (int i = 0; i < 300; ++i)
    text += std::to_string(20 + i % 50) + ",r" + std::to_string(i % 5) + "\n";
  ReadSettings settings;
  settings.kinds["age"] = ColumnKind::kNumeric;
  text += "forty,r1\n";
  for (int i = 0; i < 20; ++i) text += "30,r2\n";
  const std::string path = write_temp("bad_late.csv", text);
  const std::string single = error_of([&] { read_single(path, settings); });
  ASSERT_NE(single.find("row 301"), std::string::npos) << single;
  for (int ranks : {2, 3, 4}) {
    std::vector<std::string> seen(static_cast<std::size_t>(ranks));
    std::mutex mutex;
    run_thread_group(ranks, [&](Communicator& communicator) {
      const std::string message = error_of([&] {
        const PartitionedFile file = open_partitioned(path, settings, communicator);
        Schema schema = infer_partitioned_schema(file, settings, communicator);
        encode_partitioned(file, schema, settings, "confidential", communicator);
      });
      const std::lock_guard<std::mutex> lock(mutex);
      seen[static_cast<std::size_t>(communicator.rank())] = message;
    });
    for (const auto& message : seen) EXPECT_EQ(message, single) << ranks << " ranks";
  }
}

TEST(PartitionedRead, BrokenStructureGivesTheOneReaderError) {
  std::string text = "a,b\n";
  for (int i = 0; i < 200; ++i) text += std::to_string(i) + ",x\n";
  text += "1,2,3\n";
  for (int i = 0; i < 50; ++i) text += "1,y\n";
  const std::string path = write_temp("ragged_late.csv", text);
  const std::string single = error_of([&] { read_single(path, {}); });
  ASSERT_NE(single, "(no error)");
  for (int ranks : {2, 4}) {
    std::vector<std::string> seen(static_cast<std::size_t>(ranks));
    std::mutex mutex;
    run_thread_group(ranks, [&](Communicator& communicator) {
      const std::string message = error_of([&] { open_partitioned(path, {}, communicator); });
      const std::lock_guard<std::mutex> lock(mutex);
      seen[static_cast<std::size_t>(communicator.rank())] = message;
    });
    for (const auto& message : seen) EXPECT_EQ(message, single);
  }
}

}  // namespace
}  // namespace synthaudit
