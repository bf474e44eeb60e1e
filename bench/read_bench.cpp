// Benchmark: reading a large CSV into a typed Table (issue 2 target: 1M rows x 20 columns,
// about 150 MB, in <= 3 s on the 2-core machine, peak memory <= 2x the decoded table).
//
//   read_bench generate FILE [ROWS]   writes the test file (10 numeric, 10 categorical columns)
//   read_bench read FILE [THREADS]    reads it like `evaluate` reads the confidential file and
//                                     prints wall time, throughput and peak RSS
//   read_bench read FILE THREADS separate
//                                     the same with infer_schema and encode_table as two passes
//                                     (as before infer_and_encode), for comparison
//   read_bench passes FILE THREADS N  opens the file once and times N inference+encoding passes
//                                     alone (less noise on a shared machine than whole processes)
//
// Both reading modes end with a SHA-256 digest of the decoded table (values, missing cells,
// codes and sorted dictionaries), taken after the timing, so that two builds can be checked to
// read the same table.
//
// Generation and reading are separate processes so that peak RSS (getrusage ru_maxrss) is the
// reader's own. scripts/run-bench drives both.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "io/csv.hpp"
#include "io/load.hpp"

using namespace synthaudit;

namespace {

// CPU seconds of the whole process (all threads), to tell work from waiting on a shared machine.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Census-like columns: counts, amounts with decimals and zeros, codes, low- and high-cardinality
// text (one quoted, with a comma), missing values. About 150 bytes per row.
int generate(const char* path, std::size_t rows) {
  std::FILE* out = std::fopen(path, "wb");
  if (!out) {
    std::perror(path);
    return 1;
  }
  static const char* regions[] = {"north", "south", "east", "west", "centre", "islands"};
  static const char* edu[] = {"none",     "primary", "secondary", "vocational",
                              "bachelor", "master",  "doctorate"};
  static const char* status[] = {"employed", "unemployed", "retired", "student", "inactive"};
  std::fputs(
      "age,income,hours,children,weight,height,savings,rent,score,year,"
      "sex,region,education,status,smoker,occupation,town,marital,tenure,language\n",
      out);
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&] {  // xorshift64*: fast and reproducible
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
  };
  std::string line;
  char buffer[64];
  for (std::size_t r = 0; r < rows; ++r) {
    line.clear();
    const std::uint64_t a = next(), b = next(), c = next();
    auto num = [&](const char* fmt, auto v) {
      std::snprintf(buffer, sizeof buffer, fmt, v);
      line += buffer;
      line += ',';
    };
    num("%d", static_cast<int>(18 + a % 72));
    if (a % 17 == 0)
      line += "NA,";
    else
      num("%.2f", (b % 5 == 0) ? 0.0 : static_cast<double>(b % 9000000) / 100.0);
    num("%d", static_cast<int>(c % 60));
    num("%d", static_cast<int>((a >> 8) % 5));
    num("%.1f", 45.0 + static_cast<double>((b >> 8) % 700) / 10.0);
    num("%d", static_cast<int>(150 + (c >> 8) % 50));
    if ((b >> 16) % 9 == 0)
      line += ",";
    else
      num("%.2f", static_cast<double>((c >> 16) % 10000000) / 100.0);
    num("%d", static_cast<int>((a >> 16) % 2000));
    num("%.6f", static_cast<double>((b >> 24) % 10000000) / 10000000.0);
    num("%d", static_cast<int>(1950 + (c >> 24) % 70));
    line += ((a >> 32) & 1) ? "F," : "M,";
    line += regions[(a >> 33) % 6];
    line += ',';
    line += edu[(b >> 33) % 7];
    line += ',';
    line += status[(c >> 33) % 5];
    line += ',';
    line += ((c >> 40) % 4 == 0) ? "yes," : "no,";
    line += "occupation_";
    line += std::to_string((a >> 40) % 400);
    line += ',';
    line += "\"Town ";
    line += std::to_string((b >> 40) % 5000);
    line += ", district ";
    line += std::to_string((b >> 40) % 5000 % 37);  // a function of the town: 5000 levels
    line += "\",";
    line += ((b >> 50) % 3 == 0) ? "married," : ((b >> 50) % 3 == 1 ? "single," : "NA,");
    line += ((c >> 50) % 2) ? "owner," : "tenant,";
    line += ((a >> 56) % 10 == 0) ? "other_language" : "majority_language";
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), out);
  }
  std::fclose(out);
  return 0;
}

// SHA-256 of what a table holds: per column its name and kind, then the numbers' bytes (NaN for
// a missing cell) and missing-code indexes, or the codes and the dictionary's levels in order.
std::string table_digest(const Table& table) {
  std::string bytes;
  auto append = [&](const void* data, std::size_t size) {
    bytes.append(static_cast<const char*>(data), size);
  };
  for (const Column& c : table.columns()) {
    bytes += c.name;
    bytes += c.is_numeric() ? "\1numeric\1" : "\1categorical\1";
    if (c.is_numeric()) {
      append(c.numeric.data(), c.numeric.size() * sizeof(double));
      append(c.missing_code_index.data(), c.missing_code_index.size());
      append(c.missing_codes.data(), c.missing_codes.size() * sizeof(double));
    } else {
      append(c.codes.data(), c.codes.size() * sizeof(std::uint32_t));
      for (const auto& level : c.dictionary->levels()) {
        bytes += level;
        bytes += '\0';
      }
    }
  }
  return sha256_hex(bytes);
}

int passes(const char* path, int threads, int count) {
  // Each pass allocates its columns afresh, as one process does: without a fixed threshold,
  // glibc would serve the later passes' columns from freed heap memory without page faults.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  ReadSettings settings;
  settings.csv.threads = threads;
  const CsvFile file = CsvFile::open(path, settings.csv);
  std::vector<double> cpu, wall;
  std::string digest;
  for (int i = 0; i < count; ++i) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    InferredTable read = infer_and_encode(file, settings, "confidential");
    const auto t1 = std::chrono::steady_clock::now();
    cpu.push_back(cpu_seconds() - c0);
    wall.push_back(std::chrono::duration<double>(t1 - t0).count());
    if (i == 0) {
      std::vector<Table*> tables = {&read.table};
      finalize_dictionaries(read.schema, tables);
      digest = table_digest(read.table);
    }
    std::printf("pass %2d  wall %.3f s  cpu %.3f s\n", i + 1, wall.back(), cpu.back());
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("passes %d, threads %d: cpu median %.3f min %.3f, wall median %.3f min %.3f\n", count,
              file.threads(), median(cpu), *std::min_element(cpu.begin(), cpu.end()), median(wall),
              *std::min_element(wall.begin(), wall.end()));
  std::printf("table digest    %s\n", digest.c_str());
  return 0;
}

int read(const char* path, int threads, bool separate) {
  struct stat st {};
  if (stat(path, &st) != 0) {
    std::perror(path);
    return 1;
  }
  const double file_mb = static_cast<double>(st.st_size) / 1e6;
  const double rss_start = peak_rss_mb();
  ReadSettings settings;
  settings.csv.threads = threads;
  using clock = std::chrono::steady_clock;
  const double c0 = cpu_seconds();
  const auto t0 = clock::now();
  CsvFile file = CsvFile::open(path, settings.csv);
  const auto t1 = clock::now();
  const double c1 = cpu_seconds();
  Schema schema;
  Table table;
  auto t2 = t1;
  double c2 = c1;
  if (separate) {
    schema = infer_schema(file, settings);
    t2 = clock::now();
    c2 = cpu_seconds();
    table = encode_table(file, schema, settings, "confidential");
  } else {
    InferredTable read = infer_and_encode(file, settings, "confidential");
    schema = std::move(read.schema);
    table = std::move(read.table);
    t2 = clock::now();
    c2 = cpu_seconds();
  }
  const auto t3 = clock::now();
  const double c3 = cpu_seconds();
  std::vector<Table*> tables = {&table};
  finalize_dictionaries(schema, tables);
  const auto t4 = clock::now();
  const double c4 = cpu_seconds();
  const std::size_t rows = file.rows();
  auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  const double total = seconds(t0, t4);
  double table_bytes = 0;
  std::size_t numeric = 0, categorical = 0;
  for (const Column& c : table.columns()) {
    if (c.is_numeric()) {
      table_bytes += static_cast<double>(c.numeric.size() * sizeof(double));
      ++numeric;
    } else {
      table_bytes += static_cast<double>(c.codes.size() * sizeof(std::uint32_t));
      for (const auto& level : c.dictionary->levels())
        table_bytes += static_cast<double>(level.size() + sizeof(std::string));
      ++categorical;
    }
  }
  const double table_mb = table_bytes / 1e6;
  const double peak = peak_rss_mb() * 1.048576;  // MiB -> MB
  std::printf("file            %s (%.1f MB, %zu rows, %zu columns: %zu numeric, %zu categorical)\n",
              path, file_mb, rows, table.column_count(), numeric, categorical);
  std::printf("threads         %d\n", file.threads());
  std::printf("phase           wall s   cpu s (all threads)\n");
  std::printf(
      "open+index      %6.3f   %6.3f   (read with SHA-256 behind it, structure and row index)\n",
      seconds(t0, t1), c1 - c0);
  if (separate) {
    std::printf("infer_schema    %6.3f   %6.3f\n", seconds(t1, t2), c2 - c1);
    std::printf("encode_table    %6.3f   %6.3f\n", seconds(t2, t3), c3 - c2);
  } else {
    std::printf("infer+encode    %6.3f   %6.3f   (infer_and_encode: one pass)\n", seconds(t1, t2),
                c2 - c1);
  }
  std::printf("finalize        %6.3f   %6.3f\n", seconds(t3, t4), c4 - c3);
  std::printf("total           %6.3f   %6.3f   %.1f MB/s   %.0f rows/s (wall)\n", total, c4 - c0,
              file_mb / total, static_cast<double>(rows) / total);
  std::printf("decoded table   %.1f MB\n", table_mb);
  std::printf("peak RSS        %.1f MB  (%.1f MB at start)  = %.2fx the decoded table\n", peak,
              rss_start * 1.048576, peak / table_mb);
  std::printf("table digest    %s\n", table_digest(table).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "generate") == 0)
    return generate(argv[2], argc >= 4 ? std::strtoull(argv[3], nullptr, 10) : 1000000);
  if (argc >= 3 && std::strcmp(argv[1], "read") == 0)
    return read(argv[2], argc >= 4 ? std::atoi(argv[3]) : 0,
                argc >= 5 && std::strcmp(argv[4], "separate") == 0);
  if (argc >= 5 && std::strcmp(argv[1], "passes") == 0)
    return passes(argv[2], std::atoi(argv[3]), std::max(1, std::atoi(argv[4])));
  std::fprintf(stderr,
               "usage: read_bench generate FILE [ROWS] | read FILE [THREADS] [separate] | "
               "passes FILE THREADS N\n");
  return 2;
}
