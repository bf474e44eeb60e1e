// What `synthaudit report` does with a results.json it is given (result/document.hpp,
// report/report.hpp): a hostile or damaged document is bad input or renders what it has, never a
// crash. The cases come from fuzz/results_fuzz.cpp and its seeds (fuzz/seeds/results/).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "report/report.hpp"
#include "result/document.hpp"

using namespace synthaudit;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("synthaudit_reader_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

TEST(ResultsReader, RefusesDeepNestingBeforeAnythingRecursesOnIt) {
  const std::string deep = "{\"schema\":\"synthaudit/1\",\"metrics\":" + std::string(100000, '[') +
                           std::string(100000, ']') + "}";
  const std::string path = write_temp("deep.json", deep);
  try {
    (void)read_results_document(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("JSON nested deeper than 128 levels"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove(path);
  // A real document is far shallower.
  const std::string shallow =
      write_temp("shallow.json", "{\"schema\":\"synthaudit/1\",\"x\":" + std::string(100, '[') +
                                     std::string(100, ']') + "}");
  EXPECT_NO_THROW((void)read_results_document(shallow));
  std::filesystem::remove(shallow);
}

TEST(ResultsReader, RefusesWhatIsNotAResultsDocument) {
  for (const std::string text : {"", "NaN", "[1,2]", "{\"schema\": 1}", "{\"schema\":\"x/1\"}",
                                 "{\"schema\":\"synthaudit/1\",\"metrics\":NaN}"}) {
    const std::string path = write_temp("bad.json", text);
    EXPECT_THROW((void)read_results_document(path), InputError) << text;
    std::filesystem::remove(path);
  }
}

TEST(ResultsReader, RendersDamagedDocumentsWithoutCrashing) {
  // Members missing or of the wrong type: each rendering gives what it can, or bad input.
  for (const std::string text :
       {"{\"schema\":\"synthaudit/1\"}",
        "{\"schema\":\"synthaudit/1\",\"metrics\":5,\"verdict\":\"x\",\"spec\":[]}",
        "{\"schema\":\"synthaudit/1\",\"metrics\":[{\"candidates\":[{\"replicates\":[{\"values\":"
        "[{\"value\":1}]}]}]}]}",
        "{\"schema\":\"synthaudit/1\",\"metrics\":[1,[],{\"name\":2,\"candidates\":{}}]}"}) {
    const nlohmann::json document = nlohmann::json::parse(text);
    for (const char* format : {"html", "md", "text", "tsv"}) {
      try {
        (void)render_saved_report(document, format, "results.json");
      } catch (const InputError&) {
      }
    }
  }
  const auto rows = result_rows(nlohmann::json::parse(
      "{\"metrics\":[{\"candidates\":[{\"replicates\":[{\"values\":[{\"value\":1}]}]}]}]}"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].value, 1.0);
  EXPECT_EQ(rows[0].statistic, "");
}

}  // namespace
