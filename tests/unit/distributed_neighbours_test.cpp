// The distance family's searches over reference tables split across ranks (threads standing in
// for ranks), through the evaluation's neighbour cache, against one process's searches: bit for
// bit, and a distance metric and an attack computed on the root give the same values.
#include "engine/distributed_neighbours.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>

#include "core/cluster.hpp"
#include "core/communicator.hpp"
#include "core/error.hpp"
#include "engine/partition.hpp"
#include "sim/simulator.hpp"
#include "stats/neighbour_cache.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Rank `rank`'s consecutive share of `rows` rows; with 4 ranks the second holds none.
std::pair<std::size_t, std::size_t> share(std::size_t rows, int ranks, int rank) {
  std::vector<std::size_t> sizes(static_cast<std::size_t>(ranks), 0);
  const int filled = ranks >= 4 ? ranks - 1 : ranks;
  for (int r = 0, at = 0; r < ranks; ++r) {
    if (ranks >= 4 && r == 1) continue;
    sizes[static_cast<std::size_t>(r)] =
        rows / static_cast<std::size_t>(filled) + (static_cast<std::size_t>(at) < rows % filled);
    ++at;
  }
  std::size_t first = 0;
  for (int r = 0; r < rank; ++r) first += sizes[static_cast<std::size_t>(r)];
  return {first, sizes[static_cast<std::size_t>(rank)]};
}

struct SimulatedTables {
  Tables tables;
  std::string synthetic_id = synthetic_table_id("leaky", 1);
};

const SimulatedTables& simulated() {
  static const SimulatedTables data = [] {
    const auto dir = synthaudit::testing::private_temp_dir("synthaudit_distributed_neighbours");
    SimulationOptions o;
    o.rows = 1800;
    o.holdout_rows = 900;
    o.replicates = 1;
    o.seed = 11;
    o.out_dir = dir.string();
    const auto files = simulate(o);
    std::string leaky;
    for (const auto& [name, replicates] : files.candidates)
      if (name == "leaky") leaky = replicates.front();
    SimulatedTables out;
    out.tables = load_tables(files.confidential, {leaky}, files.holdout);
    std::filesystem::remove_all(dir);
    return out;
  }();
  return data;
}

// Runs `root_body` on the root of `ranks` thread ranks whose directory holds their row ranges of
// the simulated tables (the root also names the whole tables), with the root's cache searching
// through the cluster. `partition_of` picks which whole table a rank partitions under each id.
void with_distributed_cache(
    int ranks, const std::function<void(stats::NeighbourCache&)>& root_body,
    const std::function<const Table&(const std::string& id)>& partition_of = nullptr) {
  const Tables& t = simulated().tables;
  const std::vector<std::pair<std::string, const Table*>> named = {
      {"confidential", &t.confidential},
      {simulated().synthetic_id, &t.synthetic[0]},
      {"holdout", &*t.holdout}};
  run_thread_group(ranks, [&](Communicator& comm) {
    std::vector<Table> mine;
    mine.reserve(named.size());  // the directory points into it
    PartitionDirectory directory;
    for (const auto& [id, whole] : named) {
      const Table& source = partition_of ? partition_of(id) : *whole;
      const auto [first, size] = share(source.rows(), comm.size(), comm.rank());
      std::vector<std::size_t> rows(size);
      std::iota(rows.begin(), rows.end(), first);
      mine.push_back(select_rows(source, rows, source.source()));
      directory.add(id, PartitionedTable{&mine.back(), first, source.rows()});
      if (comm.is_root()) directory.add_whole(*whole, id);
    }
    Cluster cluster(comm);
    stats::NeighbourCache cache;
    register_distributed_neighbours(cluster, directory, comm.is_root() ? &cache : nullptr);
    if (!cluster.is_root()) {
      cluster.serve();
      return;
    }
    struct StopServing {
      Cluster& cluster;
      ~StopServing() { cluster.stop(); }
    } stop_serving{cluster};
    root_body(cache);
  });
}

void expect_same(const stats::Neighbours& got, const stats::Neighbours& expected,
                 const std::string& what) {
  ASSERT_EQ(got.k, expected.k) << what;
  ASSERT_EQ(got.queries, expected.queries) << what;
  for (std::size_t x = 0; x < expected.distance.size(); ++x) {
    ASSERT_TRUE(same_bits(got.distance[x], expected.distance[x])) << what << " slot " << x;
    ASSERT_EQ(got.index[x], expected.index[x]) << what << " slot " << x;
  }
}

void expect_same_values(const MetricResult& got, const MetricResult& expected,
                        const std::string& what) {
  ASSERT_EQ(got.values.size(), expected.values.size()) << what;
  for (std::size_t i = 0; i < expected.values.size(); ++i) {
    EXPECT_EQ(got.values[i].statistic, expected.values[i].statistic) << what;
    EXPECT_EQ(got.values[i].scope, expected.values[i].scope) << what;
    EXPECT_TRUE(same_bits(got.values[i].value, expected.values[i].value))
        << what << " " << expected.values[i].statistic << " [" << expected.values[i].scope
        << "]: " << got.values[i].value << " vs " << expected.values[i].value;
  }
}

}  // namespace

TEST(DistributedNeighbours, SearchesThroughTheCacheEqualOneProcess) {
  const Tables& t = simulated().tables;
  const Table& conf = t.confidential;
  const Table& syn = t.synthetic[0];
  const Table& hold = *t.holdout;
  struct Search {
    const Table* query;
    const Table* reference;
    stats::NeighbourOptions options;
    std::string what;
  };
  std::vector<Search> searches;
  auto add = [&](const Table& q, const Table& r, stats::DistanceKind distance, std::size_t k,
                 const Table* scale, std::vector<std::size_t> columns, std::string what) {
    stats::NeighbourOptions o;
    o.distance = distance;
    o.k = k;
    o.scale = scale;
    o.columns = std::move(columns);
    searches.push_back({&q, &r, o, std::move(what)});
  };
  using stats::DistanceKind;
  add(syn, conf, DistanceKind::kGower, 2, &conf, {}, "synthetic to confidential");
  add(conf, syn, DistanceKind::kGower, 1, &conf, {}, "confidential to synthetic");
  add(hold, conf, DistanceKind::kGower, 2, &conf, {}, "holdout to confidential");
  add(conf, conf, DistanceKind::kGower, 3, nullptr, {}, "confidential to itself");
  add(syn, hold, DistanceKind::kGower, 1, nullptr, {0, 2, 4, 9}, "synthetic to holdout");
  add(syn, conf, DistanceKind::kEuclidean, 2, &conf, {}, "euclidean");
  add(hold, syn, DistanceKind::kCosine, 5, &conf, {}, "cosine");
  add(syn, conf, DistanceKind::kHamming, 2, nullptr, {}, "hamming");
  std::vector<stats::Neighbours> expected;
  for (const auto& s : searches)
    expected.push_back(stats::nearest_neighbours(*s.query, *s.reference, s.options));
  for (int ranks : {2, 4}) {
    with_distributed_cache(ranks, [&](stats::NeighbourCache& cache) {
      for (std::size_t i = 0; i < searches.size(); ++i)
        expect_same(cache.search(*searches[i].query, *searches[i].reference, searches[i].options),
                    expected[i], searches[i].what + ", " + std::to_string(ranks) + " ranks");
      // A table the ranks do not hold (a sample, a key subset) is searched on the root.
      const Table sample = select_rows(syn, {5, 3, 1}, syn.source());
      expect_same(cache.search(sample, conf, searches[0].options),
                  stats::nearest_neighbours(sample, conf, searches[0].options), "sample");
      // Errors come back to the root as they would from one process.
      stats::NeighbourOptions none;
      none.k = 0;
      EXPECT_THROW(cache.search(syn, conf, none), InputError);
      stats::NeighbourOptions categorical;
      categorical.distance = stats::DistanceKind::kEuclidean;
      categorical.columns = {0, 1};  // region, sex
      EXPECT_THROW(cache.search(syn, conf, categorical), MetricNotApplicable);
    });
  }
}

// The search really runs on the ranks' rows: when they hold the synthetic table's rows under the
// confidential id, the root's search returns the synthetic table's neighbours.
TEST(DistributedNeighbours, TheRanksRowsAreWhatIsSearched) {
  const Tables& t = simulated().tables;
  stats::NeighbourOptions o;
  o.k = 2;
  with_distributed_cache(
      3,
      [&](stats::NeighbourCache& cache) {
        expect_same(cache.search(*t.holdout, t.confidential, o),
                    stats::nearest_neighbours(*t.holdout, t.synthetic[0], o), "swapped rows");
      },
      [&](const std::string& id) -> const Table& {
        return id == "confidential" ? t.synthetic[0]
               : id == "holdout"    ? *t.holdout
                                    : t.confidential;
      });
}

TEST(DistributedNeighbours, TiedListsThroughTheCacheEqualOneProcess) {
  const Tables& t = simulated().tables;
  const std::vector<std::vector<std::size_t>> column_sets = {{0, 1, 3}, {0, 2, 3, 5, 8}};
  for (int ranks : {2, 4}) {
    with_distributed_cache(ranks, [&](stats::NeighbourCache& cache) {
      for (const auto& columns : column_sets) {
        for (std::size_t k : {1u, 3u}) {
          const stats::TiedNeighbourLists whole(t.confidential, t.synthetic[0], columns, k,
                                                std::size_t{1} << 30, nullptr, "");
          const auto merged = stats::tied_neighbour_lists(&cache, t.confidential, t.synthetic[0],
                                                          columns, k, nullptr, "");
          stats::TiedNeighbourScratch a, b;
          for (std::size_t q = 0; q < t.confidential.rows(); ++q) {
            const auto x = whole.of(q, a);
            const auto y = merged->of(q, b);
            ASSERT_TRUE(std::equal(x.sure.begin(), x.sure.end(), y.sure.begin(), y.sure.end()));
            ASSERT_TRUE(std::equal(x.tied.begin(), x.tied.end(), y.tied.begin(), y.tied.end()));
            ASSERT_EQ(x.picks, y.picks);
            ASSERT_TRUE(same_bits(x.kth_distance, y.kth_distance));
          }
        }
      }
    });
  }
}

// Metrics computed on the root with the distributed cache give the single process's values.
TEST(DistributedNeighbours, DistanceMetricAndAttackOnTheRootEqualOneProcess) {
  const Tables& t = simulated().tables;
  const EvaluationContext context;
  auto run = [&](const std::string& name, const nlohmann::json& params,
                 stats::NeighbourCache* cache) {
    const MetricSpec* metric = find_metric(name);
    const Params p = Params::resolve(name, metric->params, params, "test");
    MetricInput input{t.confidential, {&t.synthetic[0]}, &*t.holdout, context, "leaky", 7};
    input.neighbours = cache;
    return metric->compute(input, p);
  };
  const std::vector<std::pair<std::string, nlohmann::json>> metrics = {
      {"distance_to_closest_record", nlohmann::json::object()},
      {"distance_membership_inference", nlohmann::json::object()},
      {"inference_attack", {{"secrets", {"smoke"}}, {"aux", {"region", "sex", "age"}}}}};
  std::vector<MetricResult> expected;
  for (const auto& [name, params] : metrics) expected.push_back(run(name, params, nullptr));
  for (int ranks : {2, 4}) {
    with_distributed_cache(ranks, [&](stats::NeighbourCache& cache) {
      for (std::size_t i = 0; i < metrics.size(); ++i)
        expect_same_values(run(metrics[i].first, metrics[i].second, &cache), expected[i],
                           metrics[i].first + ", " + std::to_string(ranks) + " ranks");
    });
  }
}

// A rank that lacks a table fails the request on every rank, and the root hears of it.
TEST(DistributedNeighbours, ATableMissingOnARankIsAnErrorNotAHang) {
  const Tables& t = simulated().tables;
  run_thread_group(3, [&](Communicator& comm) {
    PartitionDirectory directory;
    const auto [first, size] = share(t.confidential.rows(), comm.size(), comm.rank());
    std::vector<std::size_t> rows(size);
    std::iota(rows.begin(), rows.end(), first);
    const Table mine = select_rows(t.confidential, rows, t.confidential.source());
    if (comm.rank() != 2) directory.add("confidential", {&mine, first, t.confidential.rows()});
    const Table& hold = *t.holdout;
    const auto [hold_first, hold_size] = share(hold.rows(), comm.size(), comm.rank());
    std::vector<std::size_t> hold_rows(hold_size);
    std::iota(hold_rows.begin(), hold_rows.end(), hold_first);
    const Table my_hold = select_rows(hold, hold_rows, hold.source());
    directory.add("holdout", {&my_hold, hold_first, hold.rows()});
    if (comm.is_root()) {
      directory.add_whole(t.confidential, "confidential");
      directory.add_whole(hold, "holdout");
    }
    Cluster cluster(comm);
    stats::NeighbourCache cache;
    register_distributed_neighbours(cluster, directory, comm.is_root() ? &cache : nullptr);
    if (!cluster.is_root()) {
      cluster.serve();
      return;
    }
    stats::NeighbourOptions o;
    o.k = 1;
    EXPECT_THROW(cache.search(t.confidential, t.confidential, o), std::runtime_error);
    EXPECT_EQ(cache.search(t.confidential, t.synthetic[0], o).queries, t.confidential.rows());
    // A request that is not one: refused on every rank before any exchange.
    EXPECT_THROW(cluster.call("neighbour_search", "not a request"), std::runtime_error);
    EXPECT_THROW(cluster.call("tied_neighbour_search", ""), std::runtime_error);
    // The ranks still serve: a search over tables they all hold works after the failures.
    expect_same(cache.search(hold, hold, o), stats::nearest_neighbours(hold, hold, o),
                "after the failures");
    cluster.stop();
  });
}
