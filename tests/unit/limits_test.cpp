// Resource limits and the checks of hostile input (docs/limits.md): each limit stops its input
// with an InputError that names the place and the limit; the command-line side is
// tests/cli/hostile_input.sh.
#include "core/limits.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/evaluate.hpp"
#include "input_error_of.hpp"
#include "io/csv.hpp"
#include "io/file.hpp"
#include "metrics/params.hpp"
#include "spec/spec.hpp"
#include "stats/formula.hpp"

using namespace synthaudit;

namespace {

using synthaudit::testing::error_of;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("synthaudit_limits_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST(Limits, SetLimitReadsCountsAndSizes) {
  ResourceLimits limits;
  set_limit(limits, "columns", "25", "test");
  EXPECT_EQ(limits.columns, 25u);
  set_limit(limits, "memory", "16G", "test");
  EXPECT_EQ(limits.memory, std::uint64_t{16} << 30);
  set_limit(limits, "field_bytes", "3 KiB", "test");
  EXPECT_EQ(limits.field_bytes, 3u * 1024u);
  apply_limit_assignment(limits, "input_bytes=2m");
  EXPECT_EQ(limits.input_bytes, std::uint64_t{2} << 20);
  EXPECT_EQ(limit_value(limits, "input_bytes"), std::uint64_t{2} << 20);
  EXPECT_EQ(limit_names().size(), 12u);

  EXPECT_TRUE(contains(error_of([&] { set_limit(limits, "colums", "5", "x.yaml: limits.colums"); }),
                       "x.yaml: limits.colums: unknown limit 'colums' (did you mean 'columns'?)"));
  EXPECT_TRUE(contains(error_of([&] { set_limit(limits, "levels", "-1", "w"); }),
                       "limit levels: '-1' is not a non-negative integer"));
  EXPECT_TRUE(contains(error_of([&] { set_limit(limits, "levels", "10K", "w"); }),
                       "is not a non-negative integer"));  // sizes only for byte limits
  EXPECT_TRUE(
      contains(error_of([&] { set_limit(limits, "memory", "99999999T", "w"); }), "is too large"));
  EXPECT_TRUE(
      contains(error_of([&] { set_limit(limits, "memory", "12Q", "w"); }), "is not a size"));
  EXPECT_TRUE(contains(error_of([&] { apply_limit_assignment(limits, "columns"); }),
                       "should be NAME=VALUE"));
}

TEST(Limits, MemoryCheckNamesTheBound) {
  ResourceLimits limits;
  limits.memory = 1000;
  const AvailableMemory available = available_memory(limits);
  EXPECT_EQ(available.bytes, 1000u);
  EXPECT_EQ(available.bound, "the memory budget (--memory or limits: memory)");
  EXPECT_NO_THROW(check_memory(1000, "x", available));
  EXPECT_EQ(error_of([&] { check_memory(4096, "data.csv: reading it", available); })
                .rfind("data.csv: reading it needs about 4 KiB, more than the 1000 bytes available "
                       "(bounded by the memory budget (--memory or limits: memory))",
                       0),
            0u);
  // Without a budget the machine bounds it: physical memory at most.
  const AvailableMemory machine = available_memory(ResourceLimits{});
  EXPECT_GT(machine.bytes, 0u);
  EXPECT_LE(machine.bytes, static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                               static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
}

TEST(Limits, EscapeControlsMakesEveryControlCharacterVisible) {
  EXPECT_EQ(escape_controls("plain text, é ×"), "plain text, é ×");
  EXPECT_EQ(escape_controls(std::string("a\0b", 3)), "a\\0b");
  EXPECT_EQ(escape_controls("a\tb\nc\rd\x1b[31m\x7f"), "a\\tb\\nc\\rd\\x1b[31m\\x7f");
  EXPECT_EQ(escape_controls("line\nnext", /*keep_newlines=*/true), "line\nnext");
  EXPECT_EQ(escape_controls("csi\xC2\x9B"), "csi\\u009b");  // C1 control U+009B
}

TEST(Limits, SeedsAndThreadCounts) {
  EXPECT_EQ(parse_seed("0", "--seed"), 0u);
  EXPECT_EQ(parse_seed("18446744073709551615", "--seed"),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_TRUE(contains(error_of([] { parse_seed("18446744073709551616", "--seed"); }),
                       "--seed: '18446744073709551616' is larger than the largest seed"));
  EXPECT_TRUE(contains(error_of([] { parse_seed("-1", "s.yaml: seed"); }),
                       "s.yaml: seed: '-1': a seed is a non-negative integer"));
  EXPECT_TRUE(contains(error_of([] { parse_seed("1.5", "--seed"); }), "is not a seed"));
  EXPECT_EQ(parse_threads("0", "--threads"), 0);
  EXPECT_EQ(parse_threads("100000", "--threads"), 100000);
  EXPECT_EQ(parse_threads("99999999999999999999", "--threads"), std::numeric_limits<int>::max());
  EXPECT_TRUE(contains(error_of([] { parse_threads("-3", "--threads"); }), "cannot be negative"));
  EXPECT_TRUE(contains(error_of([] { parse_threads("two", "--threads"); }), "not a thread count"));

  EvaluationSpec spec;
  spec.context.threads = 100000;
  const std::string warning = cap_threads(spec);
  EXPECT_EQ(spec.context.threads, hardware_threads());
  EXPECT_TRUE(contains(warning, "threads: 100000 requested, but this machine has"));
  EXPECT_EQ(cap_threads(spec), "");
}

TEST(Limits, FormulaDepthAndTerms) {
  ResourceLimits limits;
  limits.formula_depth = 10;
  std::string deep = "y ~ x";
  for (int i = 0; i < 5000; ++i) deep = "y ~ (" + deep.substr(4) + ")";
  EXPECT_TRUE(contains(error_of([&] { stats::parse_formula(deep); }),
                       "nested deeper than 100 levels (limit formula_depth"));
  EXPECT_TRUE(contains(
      error_of([&] { stats::parse_formula("y ~ I(" + std::string(50, '-') + "x)", limits); }),
      "nested deeper than 10 levels"));
  EXPECT_NO_THROW(stats::parse_formula("y ~ ((((a + b))))", limits));
  // A 12-way interaction has 4,095 terms; 5 ways have 31.
  const std::string twelve = "y ~ a*b*c*d*e*f*g*h*i*j*k*l";
  EXPECT_TRUE(contains(error_of([&] { stats::parse_formula(twelve); }),
                       "the model would have more than 1000 terms (limit formula_terms"));
  limits.formula_terms = 5000;
  EXPECT_EQ(stats::parse_formula(twelve, limits).terms.size(), 4095u);
  EXPECT_EQ(stats::parse_formula("y ~ a*b*c*d*e").terms.size(), 31u);
  // The message quotes a long formula shortened.
  EXPECT_LT(error_of([&] { stats::parse_formula(deep); }).size(), 250u);
}

TEST(Limits, NonFiniteParametersAreRejected) {
  ParamSpec eta{.name = "eta", .type = ParamType::kDouble, .default_value = 0.3, .min = 0.0};
  ParamSpec folds{.name = "folds", .type = ParamType::kInt, .default_value = std::int64_t{5}};
  const std::vector<ParamSpec> declared = {eta, folds};
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()})
    EXPECT_TRUE(contains(error_of([&] {
                           Params::resolve("m", declared, nlohmann::json{{"eta", bad}}, "p.m");
                         }),
                         "p.m.eta: expected a finite number"));
  EXPECT_TRUE(contains(error_of([&] {
                         Params::resolve("m", declared, nlohmann::json{{"folds", 1e300}}, "p.m");
                       }),
                       "p.m.folds: expected an integer"));
}

TEST(Limits, CsvFieldAndColumnLimits) {
  CsvOptions options;
  options.max_field_bytes = 8;
  EXPECT_EQ(error_of([&] { CsvFile::from_bytes("a,b\n1,2\n3,\"123456789\"\n", "t.csv", options); }),
            "t.csv: row 2 (line 3), column 'b': a field is longer than 8 bytes (limit field_bytes; "
            "raise it with --limit field_bytes=SIZE)");
  EXPECT_NO_THROW(CsvFile::from_bytes("a,b\n1,2\n3,12345678\n", "t.csv", options));
  options.max_columns = 2;
  EXPECT_TRUE(contains(error_of([&] { CsvFile::from_bytes("a,b,c\n1,2,3\n", "t.csv", options); }),
                       "t.csv: header has 3 columns, more than the limit of 2"));
}

TEST(Limits, InputFilesAreRegularAndBounded) {
  EXPECT_EQ(error_of([] { read_input_file("/dev/zero", 1 << 20); }),
            "/dev/zero: is a device or socket, not a file (give a regular file or a pipe)");
  const auto folder = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(error_of([&] { read_input_file(folder, 1 << 20); }),
            folder + ": is a folder, not a file");
  // procfs says 0 bytes, then has text: read as a file that changed while it was read.
  EXPECT_TRUE(contains(error_of([] { read_input_file("/proc/self/status", 1 << 20); }),
                       "/proc/self/status: the file grew while it was being read"));
  const auto path = temp_path("small.csv");
  std::ofstream(path) << "a,b\n1,2\n";
  EXPECT_EQ(read_input_file(path, 100), "a,b\n1,2\n");
  EXPECT_TRUE(contains(error_of([&] { read_input_file(path, 4); }), "larger than 4 bytes"));
  std::filesystem::remove(path);
}

TEST(Limits, GzipBombStopsAtTheBound) {
  // 32 MiB of one byte compress to a few KiB.
  const std::string text(std::size_t{32} << 20, 'a');
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string packed(size, '\0');
  z_stream stream{};
  ASSERT_EQ(deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(packed.data());
  stream.avail_out = static_cast<uInt>(packed.size());
  ASSERT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  packed.resize(stream.total_out);
  deflateEnd(&stream);
  const auto path = temp_path("bomb.csv.gz");
  std::ofstream(path, std::ios::binary) << packed;
  CsvOptions options;
  options.max_input_bytes = 1 << 20;
  EXPECT_EQ(error_of([&] { CsvFile::open(path, options); }),
            path +
                ": decompresses to more than 1 MiB (limit input_bytes; raise it with --limit "
                "input_bytes=SIZE)");
  std::filesystem::remove(path);
}

TEST(Limits, JsonDepthIsBoundedWhileParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(
      error_of([&] { parse_json_bounded(deep, "deep.json", 128); }),
      "deep.json: JSON nested deeper than 128 levels (limit json_depth; raise it with --limit "
      "json_depth=N)");
  EXPECT_EQ(parse_json_bounded("{\"a\": [[1]]}", "ok.json", 3)["a"][0][0], 1);
  EXPECT_TRUE(contains(error_of([] { parse_json_bounded("{\"a\": ", "bad.json", 8); }),
                       "bad.json: not valid JSON (byte"));
}

TEST(Limits, IdentifierColumnsAreLeftOutWithAWarning) {
  EvaluationData data;
  ReadSettings settings;
  std::string text = "id,sex,age\n";
  for (int i = 0; i < 20; ++i)
    text +=
        "r" + std::to_string(i) + "," + (i % 2 ? "F" : "M") + "," + std::to_string(20 + i) + "\n";
  const CsvFile file = CsvFile::from_bytes(text, "conf.csv");
  data.schema = infer_schema(file, settings);
  data.confidential = encode_table(file, data.schema, settings, "confidential");
  data.candidates.push_back({"s", {}});
  data.candidates[0].replicates.push_back(encode_table(file, data.schema, settings, "synthetic"));
  ResourceLimits limits;
  limits.levels = 10;
  finish_evaluation_data(data, SynthesisType::kFull, limits);
  ASSERT_EQ(data.schema.columns.size(), 2u);
  EXPECT_EQ(data.schema.columns[0].name, "sex");
  EXPECT_EQ(data.confidential.column_count(), 2u);
  EXPECT_EQ(data.candidates[0].replicates[0].column_count(), 2u);
  EXPECT_EQ(data.confidential.column(0).name, "sex");
  ASSERT_EQ(data.identifiers.size(), 1u);
  EXPECT_EQ(data.identifiers[0].first, "id");
  EXPECT_EQ(data.identifiers[0].second, 20u);
  ASSERT_FALSE(data.warnings.empty());
  EXPECT_TRUE(contains(data.warnings[0],
                       "column 'id' has 20 distinct values, more than the limit of 10 levels"));
}
