// The partitioned evaluation on threads standing in for ranks: the root's gathered tables equal
// one process's exactly, and a metric with a mergeable form computed from the ranks' partial
// states equals its compute over the whole tables (counts exactly, means within 1e-12 relative).
#include "engine/partitioned_evaluate.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "core/error.hpp"
#include "core/wire_bytes.hpp"
#include "engine/data_checks.hpp"
#include "result/document.hpp"
#include "sim/simulator.hpp"
#include "stats/neighbour_cache.hpp"

namespace synthaudit {
namespace {

namespace fs = std::filesystem;

// Rows of every table and the mean of the first numeric column of each, from sums per partition.
struct Sums {
  std::uint64_t rows = 0, present = 0;
  double sum = 0.0;
};

Sums sums_of(const Table& table) {
  Sums out;
  out.rows = table.rows();
  for (const auto& column : table.columns()) {
    if (!column.is_numeric()) continue;
    for (double v : column.numeric)
      if (!std::isnan(v)) {
        ++out.present;
        out.sum += v;
      }
    break;
  }
  return out;
}

MetricResult result_from(const std::vector<Sums>& tables) {
  MetricResult result;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const std::string scope = i == 0 ? "confidential" : "synthetic" + std::to_string(i);
    result.values.push_back({"rows", scope, static_cast<double>(tables[i].rows)});
    result.values.push_back(
        {"mean", scope, tables[i].sum / static_cast<double>(tables[i].present)});
  }
  return result;
}

std::vector<const Table*> tables_of(const MetricInput& input) {
  std::vector<const Table*> out = {&input.confidential};
  out.insert(out.end(), input.synthetic.begin(), input.synthetic.end());
  return out;
}

MetricSpec row_mean_metric() {
  MetricSpec metric;
  metric.name = "test_row_mean";
  metric.compute = [](const MetricInput& input, const Params&) {
    std::vector<Sums> sums;
    for (const Table* t : tables_of(input)) sums.push_back(sums_of(*t));
    return result_from(sums);
  };
  MergeableForm form;
  form.partial_state = [](const MetricInput& partition, const Params&) {
    WireWriter out;
    for (const Table* t : tables_of(partition)) {
      const Sums s = sums_of(*t);
      out.put(s.rows);
      out.put(s.present);
      out.put(s.sum);
    }
    return out.take();
  };
  form.finalize = [](const std::vector<std::string>& states, const MetricInput& schema,
                     const Params&) {
    std::vector<Sums> sums(tables_of(schema).size());
    for (const auto& state : states) {
      WireReader in(state);
      for (auto& s : sums) {
        s.rows += in.get<std::uint64_t>();
        s.present += in.get<std::uint64_t>();
        s.sum += in.get<double>();
      }
    }
    return result_from(sums);
  };
  metric.mergeable = form;
  return metric;
}

void expect_same_table(const Table& a, const Table& b) {
  EXPECT_EQ(a.source().sha256, b.source().sha256);
  EXPECT_EQ(a.source().path, b.source().path);
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.column_count(), b.column_count());
  for (std::size_t c = 0; c < a.column_count(); ++c) {
    const Column& x = a.column(c);
    const Column& y = b.column(c);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.codes, y.codes) << x.name;
    EXPECT_EQ(x.missing_code_index, y.missing_code_index) << x.name;
    EXPECT_EQ(x.missing_codes, y.missing_codes) << x.name;
    ASSERT_EQ(x.numeric.size(), y.numeric.size());
    // (memcmp of an empty vector's null data is undefined: compare only when there are values.)
    EXPECT_TRUE(x.numeric.empty() || std::memcmp(x.numeric.data(), y.numeric.data(),
                                                 x.numeric.size() * sizeof(double)) == 0)
        << x.name;
    if (x.dictionary) {
      EXPECT_EQ(x.dictionary->levels(), y.dictionary->levels()) << x.name;
    }
  }
}

class PartitionedEvaluation : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test and process: ctest runs the tests of this file in parallel.
    dir_ = fs::temp_directory_path() /
           ("synthaudit_partitioned_evaluate_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    SimulationOptions options;
    options.rows = 1500;
    options.holdout_rows = 400;
    options.replicates = 2;
    options.out_dir = dir_.string();
    spec_ = load_spec(simulate(options).spec_path);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  EvaluationSpec spec_;
};

TEST_F(PartitionedEvaluation, GatheredTablesEqualOneProcessOnTwoThreeFourRanks) {
  const EvaluationData single = load_evaluation_data(spec_);
  for (int ranks : {2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    std::unique_ptr<EvaluationData> whole;
    std::vector<std::size_t> part_rows(static_cast<std::size_t>(ranks));
    std::mutex mutex;
    run_thread_group(ranks, [&](Communicator& communicator) {
      PartitionedData data = load_partitioned_evaluation_data(spec_, communicator);
      const std::lock_guard<std::mutex> lock(mutex);
      part_rows[static_cast<std::size_t>(communicator.rank())] = data.part->confidential.rows();
      const auto& extent = data.directory.find("confidential");
      EXPECT_EQ(extent.total_rows, single.confidential.rows());
      if (communicator.is_root()) whole = std::move(data.whole);
    });
    ASSERT_TRUE(whole != nullptr);
    std::size_t total = 0;
    for (auto rows : part_rows) total += rows;
    EXPECT_EQ(total, single.confidential.rows());
    expect_same_table(single.confidential, whole->confidential);
    ASSERT_EQ(single.candidates.size(), whole->candidates.size());
    for (std::size_t c = 0; c < single.candidates.size(); ++c)
      for (std::size_t r = 0; r < single.candidates[c].replicates.size(); ++r)
        expect_same_table(single.candidates[c].replicates[r], whole->candidates[c].replicates[r]);
    ASSERT_TRUE(whole->holdout.has_value());
    expect_same_table(*single.holdout, *whole->holdout);
    EXPECT_EQ(single.warnings, whole->warnings);
    EXPECT_EQ(single.identifiers, whole->identifiers);
  }
}

TEST_F(PartitionedEvaluation, MergeableMetricFromPartialStatesEqualsCompute) {
  const MetricSpec metric = row_mean_metric();
  const MetricFinder find = [&](std::string_view name) {
    return name == metric.name ? &metric : nullptr;
  };
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    std::vector<MetricValue> merged, direct;
    bool subsample_ran_here = false;
    run_thread_group(ranks, [&](Communicator& communicator) {
      PartitionedData data = load_partitioned_evaluation_data(spec_, communicator);
      evaluate_partitioned(
          spec_, data, communicator,
          [&](const EvaluationData& whole, EvaluationSinks sinks) {
            EXPECT_EQ(sinks.ranks, ranks);
            const Params params = Params::resolve(metric.name, {}, nlohmann::json::object(), "");
            const auto& candidate = whole.candidates.front();
            const MetricInput input{whole.confidential,
                                    {&candidate.replicates[0], &candidate.replicates[1]},
                                    nullptr,
                                    spec_.context,
                                    candidate.name,
                                    7,
                                    nullptr,
                                    nullptr};
            const auto result = sinks.compute(metric, input, params);
            EXPECT_TRUE(result.has_value());
            if (result) merged = result->values;
            direct = metric.compute(input, params).values;
            // A table the ranks do not hold (a subsample) runs on the root.
            const Table drawn =
                select_rows(candidate.replicates[0], {0, 1, 2}, candidate.replicates[0].source());
            const MetricInput sub{whole.confidential, {&drawn}, nullptr, spec_.context,
                                  candidate.name,     7,        nullptr, nullptr};
            subsample_ran_here = !sinks.compute(metric, sub, params).has_value();
            return nlohmann::json::object();
          },
          find);
    });
    EXPECT_TRUE(subsample_ran_here);
    ASSERT_EQ(merged.size(), direct.size());
    ASSERT_EQ(merged.size(), 6u);
    for (std::size_t i = 0; i < merged.size(); ++i) {
      EXPECT_EQ(merged[i].statistic, direct[i].statistic);
      EXPECT_EQ(merged[i].scope, direct[i].scope);
      if (merged[i].statistic == "rows") {
        EXPECT_EQ(merged[i].value, direct[i].value);
      } else {
        EXPECT_LE(std::abs(merged[i].value - direct[i].value), 1e-12 * std::abs(direct[i].value));
      }
    }
  }
}

TEST_F(PartitionedEvaluation, BadInputOnOneRankStopsEveryRankWithTheSameError) {
  // A value that is not a number near the end of the holdout: read by the last rank only.
  const std::string holdout = *spec_.holdout;
  const EvaluationData good = load_evaluation_data(spec_);
  std::string header;
  std::getline(std::ifstream(holdout), header);
  std::vector<std::string> names;
  for (std::size_t at = 0;;) {
    const auto comma = header.find(',', at);
    names.push_back(header.substr(at, comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  std::string row;
  bool placed = false;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) row += ",";
    const auto column = good.confidential.find(names[i]);
    if (!placed && column && good.confidential.column(*column).is_numeric()) {
      row += "not-a-number";
      placed = true;
    }
  }
  ASSERT_TRUE(placed);
  std::ofstream(holdout, std::ios::app) << row << "\n";
  std::string single;
  try {
    load_evaluation_data(spec_);
  } catch (const InputError& e) {
    single = e.what();
  }
  ASSERT_FALSE(single.empty());
  for (int ranks : {2, 4}) {
    std::vector<std::string> seen(static_cast<std::size_t>(ranks));
    std::mutex mutex;
    run_thread_group(ranks, [&](Communicator& communicator) {
      std::string message;
      try {
        load_partitioned_evaluation_data(spec_, communicator);
      } catch (const InputError& e) {
        message = e.what();
      }
      const std::lock_guard<std::mutex> lock(mutex);
      seen[static_cast<std::size_t>(communicator.rank())] = message;
    });
    for (const auto& message : seen) EXPECT_EQ(message, single);
  }
}

// Hooks run on every rank before any metric, with the root's neighbour cache on the root only,
// and can register handlers the root then calls. The registry is global: this hook does nothing
// outside this test.
std::atomic<bool> hook_test_active{false};
std::atomic<int> hook_calls{0}, hook_caches{0};
Cluster* hook_root_cluster = nullptr;

TEST_F(PartitionedEvaluation, HooksSeeEveryRankBeforeTheMetrics) {
  static const bool registered = [] {
    register_partition_hook(
        [](Cluster& cluster, PartitionDirectory& directory, stats::NeighbourCache* neighbours) {
          if (!hook_test_active) return;
          ++hook_calls;
          if (neighbours != nullptr) ++hook_caches;
          if (cluster.is_root()) hook_root_cluster = &cluster;
          const std::size_t rows = directory.find("confidential").rows->rows();
          cluster.on("test rows", [rows](const std::string&) { return std::to_string(rows); });
        });
    return true;
  }();
  ASSERT_TRUE(registered);
  hook_test_active = true;
  std::size_t summed = 0;
  run_thread_group(3, [&](Communicator& communicator) {
    PartitionedData data = load_partitioned_evaluation_data(spec_, communicator);
    evaluate_partitioned(spec_, data, communicator,
                         [&](const EvaluationData& whole, EvaluationSinks sinks) {
                           EXPECT_NE(sinks.neighbours, nullptr);
                           for (const auto& reply : hook_root_cluster->call("test rows", ""))
                             summed += std::stoull(reply);
                           EXPECT_EQ(summed, whole.confidential.rows());
                           return nlohmann::json::object();
                         });
  });
  hook_test_active = false;
  EXPECT_EQ(hook_calls.load(), 3);
  EXPECT_EQ(hook_caches.load(), 1);
  EXPECT_EQ(summed, 1500u);
}

// --- a run in which no rank holds whole tables --------------------------------------------------

namespace more {

const std::vector<std::string> kMergeableSelection = {
    "total_variation",        "ratio_of_counts", "zero_cell_agreement",
    "moments_and_covariance", "ks_distance",     "wasserstein_distance",
    "coverage_and_validity",  "k_anonymity",     "replicated_uniques",
    "individual_risk",        "l_diversity"};

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const auto next = text.find(by, at);
    out.push_back(text.substr(at, next - at));
    if (next == std::string::npos) return out;
    at = next + 1;
  }
}

// results.tsv as docs/mpi.md promises it: the same rows, each field the same string or both
// numbers within 1e-12 relative.
void expect_same_results(const std::string& single, const std::string& partitioned) {
  const auto a = split(single, '\n'), b = split(partitioned, '\n');
  ASSERT_EQ(a.size(), b.size());
  std::size_t numbers_differing = 0;
  for (std::size_t line = 0; line < a.size(); ++line) {
    const auto x = split(a[line], '\t'), y = split(b[line], '\t');
    ASSERT_EQ(x.size(), y.size()) << a[line];
    for (std::size_t f = 0; f < x.size(); ++f) {
      if (x[f] == y[f]) continue;
      char* end_x = nullptr;
      char* end_y = nullptr;
      const double u = std::strtod(x[f].c_str(), &end_x), v = std::strtod(y[f].c_str(), &end_y);
      ASSERT_TRUE(*end_x == '\0' && *end_y == '\0' && !x[f].empty())
          << "line " << line << ": " << a[line] << " vs " << b[line];
      EXPECT_LE(std::abs(u - v), 1e-12 * std::max(std::abs(u), std::abs(v)))
          << "line " << line << ": " << a[line] << " vs " << b[line];
      ++numbers_differing;
    }
  }
  ::testing::Test::RecordProperty("numbers_differing", static_cast<int>(numbers_differing));
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const auto& line : lines) out << line << "\n";
}

// Findings for every check before the metrics: -9 in every 10th income of the confidential data
// (a missing-code spike), and a candidate whose replicates are the confidential file itself, the
// holdout file itself, and mostly confidential rows with some holdout rows (copied rows).
void plant_findings(EvaluationSpec& spec, const fs::path& dir) {
  auto conf = lines_of(spec.confidential);
  const auto header = split(conf[0], ',');
  const auto income =
      static_cast<std::size_t>(std::find(header.begin(), header.end(), "income") - header.begin());
  ASSERT_LT(income, header.size());
  for (std::size_t row = 1; row < conf.size(); row += 10) {
    auto fields = split(conf[row], ',');
    fields[income] = "-9";
    std::string line;
    for (std::size_t f = 0; f < fields.size(); ++f) line += (f ? "," : "") + fields[f];
    conf[row] = line;
  }
  // A level only the last confidential row has (read by the last rank only): the warning that no
  // candidate reproduces it needs every rank's levels.
  const auto region =
      static_cast<std::size_t>(std::find(header.begin(), header.end(), "region") - header.begin());
  ASSERT_LT(region, header.size());
  auto last = split(conf.back(), ',');
  last[region] = "Atlantis";
  conf.back().clear();
  for (std::size_t f = 0; f < last.size(); ++f) conf.back() += (f ? "," : "") + last[f];
  write_lines(spec.confidential, conf);
  const auto holdout = lines_of(*spec.holdout);
  std::vector<std::string> mixed(conf.begin(), conf.begin() + 1201);
  mixed.insert(mixed.end(), holdout.begin() + 1, holdout.begin() + 301);
  const std::string mixed_path = (dir / "mixed.csv").string();
  write_lines(mixed_path, mixed);
  spec.candidates.push_back({"copied", {spec.confidential, *spec.holdout, mixed_path}});
}

}  // namespace more

TEST_F(PartitionedEvaluation, MergeableSelectionRunsWithoutWholeTablesAndEqualsOneProcess) {
  spec_.metrics = more::kMergeableSelection;
  spec_.context.analyses.clear();  // their check builds model layouts over the whole table
  // Without whole tables the utility floor is not drawn (its columns come from rows on different
  // ranks; the verdict says so): compared without it.
  spec_.policy.utility_floor.enabled = false;
  more::plant_findings(spec_, dir_);
  ASSERT_FALSE(needs_whole_tables(spec_));
  const EvaluationData single_data = load_evaluation_data(spec_);
  nlohmann::json single = evaluate(spec_, single_data);
  // The checks before the metrics found something to compare (the simulator's leaky candidate).
  std::set<std::string> checks;
  for (const auto& finding : single["data_checks"]) checks.insert(finding["check"]);
  EXPECT_EQ(checks, (std::set<std::string>{"identical_to_confidential", "identical_to_holdout",
                                           "copies_confidential_rows", "missing_code_spike"}));
  bool atlantis = false;
  for (const auto& warning : single["warnings"])
    atlantis = atlantis || warning.get<std::string>().find("Atlantis") != std::string::npos;
  EXPECT_TRUE(atlantis);
  ASSERT_FALSE(single["baselines"].empty());
  bool size_matched = false;
  for (const auto& metric : single["metrics"])
    for (const auto& candidate : metric["candidates"])
      size_matched = size_matched || candidate.contains("at_baseline_size");
  ASSERT_TRUE(size_matched);
  for (int ranks : {2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    nlohmann::json partitioned;
    bool root_had_whole = true;
    std::size_t root_rows = 0;
    std::atomic<int> subsamples_left{0};
    run_thread_group(ranks, [&](Communicator& communicator) {
      PartitionedData data = load_partitioned_evaluation_data(spec_, communicator);
      auto document = evaluate_partitioned(
          spec_, data, communicator, [&](const EvaluationData& tables, EvaluationSinks sinks) {
            root_rows = tables.confidential.rows();
            return evaluate(spec_, tables, {}, sinks);
          });
      // Every subsample table was released on every rank.
      for (int k = 1; k < 10000; ++k) {
        try {
          data.directory.find("subsample/" + std::to_string(k));
          ++subsamples_left;
        } catch (const std::logic_error&) {
        }
      }
      if (communicator.is_root()) {
        root_had_whole = data.whole != nullptr;
        partitioned = std::move(*document);
      }
    });
    EXPECT_FALSE(root_had_whole);
    EXPECT_LT(root_rows, single_data.confidential.rows());
    EXPECT_EQ(subsamples_left.load(), 0);
    EXPECT_EQ(partitioned["inputs"], single["inputs"]);
    EXPECT_EQ(partitioned["data_checks"], single["data_checks"]);
    EXPECT_EQ(partitioned["warnings"], single["warnings"]);
    EXPECT_EQ(partitioned["baselines"], single["baselines"]);
    EXPECT_EQ(partitioned["columns"], single["columns"]);
    EXPECT_EQ(partitioned["ranks"], ranks);
    more::expect_same_results(results_tsv(single), results_tsv(partitioned));
  }
}

TEST_F(PartitionedEvaluation, WholeTablesAreGatheredWhenSomethingNeedsRowsInOnePlace) {
  spec_.metrics = more::kMergeableSelection;
  EXPECT_TRUE(needs_whole_tables(spec_));  // the simulator's spec declares analyses
  spec_.context.analyses.clear();
  EXPECT_FALSE(needs_whole_tables(spec_));
  EvaluationSpec with = spec_;
  with.metrics.push_back("k_marginal");  // random row subsamples: no mergeable form
  EXPECT_TRUE(needs_whole_tables(with));
  with = spec_;
  with.by = {"sex"};
  EXPECT_TRUE(needs_whole_tables(with));
  with = spec_;
  with.context.synthesis = SynthesisType::kPartial;
  EXPECT_TRUE(needs_whole_tables(with));
  with = spec_;
  with.safe_output = true;
  EXPECT_TRUE(needs_whole_tables(with));
  with = spec_;
  with.context.weights = "weight";
  EXPECT_TRUE(needs_whole_tables(with));
  with = spec_;
  with.metrics = {"no_such_metric"};
  EXPECT_TRUE(needs_whole_tables(with));

  spec_.metrics = {"total_variation", "k_marginal"};
  bool root_had_whole = false;
  run_thread_group(2, [&](Communicator& communicator) {
    PartitionedData data = load_partitioned_evaluation_data(spec_, communicator);
    if (communicator.is_root()) root_had_whole = data.whole != nullptr;
  });
  EXPECT_TRUE(root_had_whole);
}

TEST(PartitionedDataChecks, ColumnExtremesMergeExactly) {
  std::vector<double> values = {-9, 3, 4, -9, 7, NAN, 99, 99, 5, -9, 3, 99, 2};
  Column whole;
  whole.name = "x";
  whole.kind = ColumnKind::kNumeric;
  whole.numeric = values;
  const ColumnExtremes expected = column_extremes(whole);
  for (std::size_t cut = 0; cut <= values.size(); ++cut)
    for (std::size_t cut2 = cut; cut2 <= values.size(); ++cut2) {
      ColumnExtremes merged;
      for (auto [from, to] : {std::pair{std::size_t{0}, cut}, {cut, cut2}, {cut2, values.size()}}) {
        Column part = whole;
        part.numeric.assign(values.begin() + static_cast<std::ptrdiff_t>(from),
                            values.begin() + static_cast<std::ptrdiff_t>(to));
        merge_column_extremes(merged, column_extremes(part));
      }
      EXPECT_EQ(merged.values, expected.values);
      EXPECT_EQ(merged.lo, expected.lo);
      EXPECT_EQ(merged.hi, expected.hi);
      EXPECT_EQ(merged.at_lo, expected.at_lo);
      EXPECT_EQ(merged.at_hi, expected.at_hi);
      EXPECT_EQ(merged.above_lo, expected.above_lo) << cut << " " << cut2;
      EXPECT_EQ(merged.below_hi, expected.below_hi) << cut << " " << cut2;
    }
  EXPECT_EQ(expected.at_lo, 3u);
  EXPECT_EQ(expected.above_lo, 2.0);
  EXPECT_EQ(expected.below_hi, 7.0);
  // The spikes found from the extremes are those of the column.
  EXPECT_EQ(missing_code_spikes(expected).size(), find_missing_code_spikes(whole).size());
}

TEST_F(PartitionedEvaluation, RowKeyComparisonsCountAsTheExactOnes) {
  const EvaluationData data = load_evaluation_data(spec_);
  std::map<const Table*, std::vector<RowKey>> keys;
  const RowComparisons by_keys = row_key_comparisons([&](const Table& t) -> const auto& {
    auto it = keys.find(&t);
    if (it == keys.end()) it = keys.emplace(&t, row_keys(t)).first;
    return it->second;
  });
  const RowComparisons exact = exact_row_comparisons();
  std::vector<const Table*> tables = {&data.confidential, &*data.holdout};
  for (const auto& c : data.candidates)
    for (const auto& t : c.replicates) tables.push_back(&t);
  std::size_t copies_seen = 0;
  for (const Table* t : tables) {
    EXPECT_EQ(by_keys.repeated(*t).copies, exact.repeated(*t).copies);
    const RowCopies copies = exact.copies(*t, data.confidential);
    EXPECT_EQ(by_keys.copies(*t, data.confidential).copies, copies.copies);
    copies_seen += copies.copies;
    for (const Table* u : tables)
      EXPECT_EQ(by_keys.same_content(*t, *u), exact.same_content(*t, *u));
  }
  EXPECT_GT(copies_seen, data.confidential.rows());  // the confidential data itself, and leaks
  EXPECT_EQ(check_copies(data, SynthesisType::kFull, by_keys).size(),
            check_copies(data, SynthesisType::kFull).size());
}

}  // namespace
}  // namespace synthaudit
