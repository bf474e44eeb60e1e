// The output-set protocol (result/output_files.hpp): what each step leaves on disk, checked
// in-process; tests/cli/output_set.sh kills real runs with SIGKILL and plants links.
#include "result/output_files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/error.hpp"

namespace fs = std::filesystem;
using namespace synthaudit;

namespace {

const std::vector<std::string> kNames = {"results.json", "results.tsv", "report.html"};

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/synthaudit-output-files-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    root_ = name;
    out_ = root_ / "out";
  }
  void TearDown() override { fs::remove_all(root_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  std::vector<OutputFile> set_of(const std::string& run) const {
    return {{"results.json", "json " + run},
            {"results.tsv", "tsv " + run},
            {"report.html", "html " + run}};
  }
  void expect_set(const std::string& run) const {
    EXPECT_EQ(read(out_ / "results.json"), "json " + run);
    EXPECT_EQ(read(out_ / "results.tsv"), "tsv " + run);
    EXPECT_EQ(read(out_ / "report.html"), "html " + run);
  }
  std::set<std::string> state_entries() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(out_ / kOutputStateFolder))
      names.insert(e.path().filename().string());
    return names;
  }

  fs::path root_, out_;
};

TEST_F(OutputFiles, PublishesANewSetAndReplacesThePreviousOne) {
  publish_output_set(out_.string(), set_of("1"));
  expect_set("1");
  EXPECT_TRUE(is_published_output_set(out_.string(), kNames));
  EXPECT_EQ(fs::read_symlink(out_ / "results.json"), ".synthaudit/current/results.json");
  publish_output_set(out_.string(), set_of("2"));
  expect_set("2");
  // Only `current` and the set it names remain.
  EXPECT_EQ(state_entries().size(), 2u);
}

TEST_F(OutputFiles, KeepsFilesByNameFromThePublishedSet) {
  publish_output_set(out_.string(), set_of("1"));
  publish_output_set(out_.string(), {{"results.json", std::nullopt},
                                     {"results.tsv", std::nullopt},
                                     {"report.html", "html again"}});
  EXPECT_EQ(read(out_ / "results.json"), "json 1");
  EXPECT_EQ(read(out_ / "results.tsv"), "tsv 1");
  EXPECT_EQ(read(out_ / "report.html"), "html again");
  EXPECT_EQ(state_entries().size(), 2u);
}

TEST_F(OutputFiles, TurnsAnOlderVersionsPlainFilesIntoASetAndLeavesOtherFilesAlone) {
  fs::create_directories(out_ / "user_folder");
  for (const auto& name : kNames) write(out_ / name, "old " + name);
  write(out_ / "results.json.tmp.4242", "stale temporary of an older version");
  write(out_ / "notes.txt", "mine");
  write(out_ / "user_folder" / "results.json", "mine too");
  publish_output_set(out_.string(), set_of("1"));
  expect_set("1");
  EXPECT_FALSE(fs::exists(out_ / "results.json.tmp.4242"));
  EXPECT_EQ(read(out_ / "notes.txt"), "mine");
  EXPECT_EQ(read(out_ / "user_folder" / "results.json"), "mine too");
  EXPECT_EQ(state_entries().size(), 2u);
}

TEST_F(OutputFiles, ANextRunRemovesWhatAKilledRunLeft) {
  publish_output_set(out_.string(), set_of("1"));
  // A run killed while writing leaves a set nobody points at, and maybe a temporary link.
  const fs::path state = out_ / kOutputStateFolder;
  fs::create_directory(state / "set-abcdefghij12");
  write(state / "set-abcdefghij12" / "results.json", "half");
  fs::create_symlink("set-abcdefghij12", state / "link-abcdefghij12");
  // Not ours by name: left alone.
  write(state / "keep-me", "x");
  publish_output_set(out_.string(), set_of("2"));
  expect_set("2");
  const auto names = state_entries();
  EXPECT_EQ(names.count("set-abcdefghij12"), 0u);
  EXPECT_EQ(names.count("link-abcdefghij12"), 0u);
  EXPECT_EQ(names.count("keep-me"), 1u);
  EXPECT_EQ(names.size(), 3u);
}

TEST_F(OutputFiles, NeverFollowsPlantedLinks) {
  const fs::path outside = root_ / "outside";
  fs::create_directories(outside);
  write(outside / "victim", "victim");
  fs::create_directories(out_ / kOutputStateFolder);
  fs::create_symlink(outside, out_ / kOutputStateFolder / "current");
  fs::create_symlink(outside, out_ / kOutputStateFolder / "set-aaaaaaaaaaaa");
  fs::create_symlink(outside / "victim", out_ / "results.json");
  publish_output_set(out_.string(), set_of("1"));
  expect_set("1");
  EXPECT_EQ(read(outside / "victim"), "victim");
  EXPECT_EQ(std::distance(fs::directory_iterator(outside), fs::directory_iterator()), 1);
  EXPECT_TRUE(fs::is_symlink(out_ / kOutputStateFolder / "set-aaaaaaaaaaaa"));
}

TEST_F(OutputFiles, RefusesAStateFolderThatIsALink) {
  fs::create_directories(out_);
  fs::create_directories(root_ / "elsewhere");
  fs::create_symlink(root_ / "elsewhere", out_ / kOutputStateFolder);
  EXPECT_THROW(publish_output_set(out_.string(), set_of("1")), InputError);
  EXPECT_THROW(check_output_folder(out_.string(), kNames, {}), InputError);
  EXPECT_TRUE(fs::is_empty(root_ / "elsewhere"));
}

TEST_F(OutputFiles, RefusesAnOutputFolderThatIsOrHoldsAnInput) {
  fs::create_directories(out_ / "nested");
  write(out_ / "conf.csv", "a\n1\n");
  write(out_ / "nested" / "syn.csv", "a\n1\n");
  try {
    check_output_folder(out_.string(), kNames, {(out_ / "conf.csv").string()});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds the input file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      check_output_folder((out_ / "conf.csv").string(), kNames, {(out_ / "conf.csv").string()}),
      InputError);
  // A file in a folder below is safe: the set only ever writes its own names.
  EXPECT_NO_THROW(check_output_folder(out_.string(), kNames, {(out_ / "nested/syn.csv").string()}));
  // An input reached through a link named like a result.
  fs::create_symlink(out_ / "nested" / "syn.csv", out_ / "results.tsv");
  EXPECT_THROW(check_output_folder(out_.string(), kNames, {(out_ / "nested/syn.csv").string()}),
               InputError);
  fs::remove(out_ / "results.tsv");
  fs::create_directories(out_ / "report.html");
  EXPECT_THROW(check_output_folder(out_.string(), kNames, {}), InputError);
  // A folder that does not exist yet is fine.
  EXPECT_NO_THROW(check_output_folder((root_ / "new").string(), kNames, {}));
}

TEST_F(OutputFiles, WriteFileAtomicReplacesALinkInsteadOfWritingThroughIt) {
  fs::create_directories(out_);
  write(root_ / "victim", "victim");
  fs::create_symlink(root_ / "victim", out_ / "spec.yaml");
  // An older version's predictable temporary name, planted as a link.
  fs::create_symlink(root_ / "victim", out_ / ("spec.yaml.tmp." + std::to_string(::getpid())));
  write_file_atomic((out_ / "spec.yaml").string(), "new");
  EXPECT_EQ(read(root_ / "victim"), "victim");
  EXPECT_FALSE(fs::is_symlink(out_ / "spec.yaml"));
  EXPECT_EQ(read(out_ / "spec.yaml"), "new");
}

}  // namespace
