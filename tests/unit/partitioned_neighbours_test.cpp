// Nearest neighbours over a reference split into row partitions: scales, per-partition searches
// and the merge must give what one search over the whole tables gives, bit for bit.
#include "stats/partitioned_neighbours.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>

#include "core/communicator.hpp"
#include "core/random.hpp"
#include "core/threads.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;
using stats::DistanceKind;
using stats::NeighbourOptions;

namespace {

// Mixed columns with ties (few distinct values), exact copies (within the reference and from the
// reference into the queries), missing values in numeric and categorical columns, a constant
// column and query values outside the reference range.
std::string mixed_csv(std::uint64_t seed, std::size_t rows,
                      const std::vector<std::string>* copy_from,
                      std::vector<std::string>* lines_out, double stretch) {
  Rng rng(seed);
  std::ostringstream out;
  out << "n1,n2,n3,c1,c2,n4\n";
  const char* c1[] = {"a", "b", "c", "NA"};
  const char* c2[] = {"u", "v", "w"};
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < rows; ++i) {
    std::ostringstream line;
    if (copy_from && rng.uniform() < 0.2) {
      line << (*copy_from)[rng.below(copy_from->size())];
    } else if (!lines.empty() && rng.uniform() < 0.1) {
      line << lines[rng.below(lines.size())];
    } else {
      line << (rng.uniform() < 0.1 ? std::string("NA") : std::to_string(rng.below(6))) << ",";
      if (rng.uniform() < 0.05) {
        line << "NA";
      } else {
        line << std::round(rng.uniform() * 1000 * stretch) / 10;
      }
      line << "," << (rng.uniform() < 0.1 ? "NA" : "7");
      line << "," << c1[rng.below(4)] << "," << c2[rng.below(3)] << ","
           << std::round(rng.normal() * 40.0 * stretch) / 4;
    }
    lines.push_back(line.str());
    out << lines.back() << "\n";
  }
  if (lines_out) *lines_out = lines;
  return out.str();
}

// Consecutive row ranges of `rows` rows in `ranges` parts, one of them empty when there are three
// or more (a rank may hold no rows).
std::vector<std::pair<std::size_t, std::size_t>> split(std::size_t rows, int ranges) {
  std::vector<std::size_t> sizes(static_cast<std::size_t>(ranges), 0);
  const int filled = ranges >= 3 ? ranges - 1 : ranges;
  for (int r = 0; r < filled; ++r)
    sizes[static_cast<std::size_t>(r)] = rows / static_cast<std::size_t>(filled) +
                                         (static_cast<std::size_t>(r) < rows % filled ? 1 : 0);
  if (ranges >= 3) std::swap(sizes[1], sizes[static_cast<std::size_t>(ranges - 1)]);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t first = 0;
  for (std::size_t size : sizes) {
    out.emplace_back(first, size);
    first += size;
  }
  return out;
}

std::vector<Table> partitions(const Table& whole,
                              const std::vector<std::pair<std::size_t, std::size_t>>& ranges) {
  std::vector<Table> parts;
  for (const auto& [first, size] : ranges) {
    std::vector<std::size_t> rows(size);
    std::iota(rows.begin(), rows.end(), first);
    parts.push_back(select_rows(whole, rows, whole.source()));
  }
  return parts;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Data {
  Tables tables;
  const Table& reference() const { return tables.confidential; }
  const Table& query() const { return tables.synthetic[0]; }
};

Data mixed_data(std::size_t reference_rows, std::size_t query_rows) {
  std::vector<std::string> lines;
  const std::string reference = mixed_csv(41, reference_rows, nullptr, &lines, 1.0);
  const std::string query = mixed_csv(42, query_rows, &lines, nullptr, 1.2);
  return Data{make_tables(reference, {query})};
}

}  // namespace

TEST(PartitionedNeighbours, GatheredScalesAreTheWholeTablesBitForBit) {
  const Data data = mixed_data(997, 10);
  const stats::DistanceScales whole = stats::distance_scales(data.reference());
  for (int ranks : {1, 2, 3, 4}) {
    const auto parts = partitions(data.reference(), split(data.reference().rows(), ranks));
    std::vector<stats::DistanceScales> gathered(static_cast<std::size_t>(ranks));
    run_thread_group(ranks, [&](Communicator& comm) {
      const auto r = static_cast<std::size_t>(comm.rank());
      gathered[r] = stats::gather_distance_scales(comm, parts[r]);
    });
    for (const auto& scales : gathered) {
      ASSERT_EQ(scales.size(), whole.size());
      for (std::size_t c = 0; c < whole.size(); ++c) {
        EXPECT_TRUE(same_bits(scales[c].lo, whole[c].lo)) << "ranks " << ranks << " col " << c;
        EXPECT_TRUE(same_bits(scales[c].hi, whole[c].hi)) << "ranks " << ranks << " col " << c;
        EXPECT_TRUE(same_bits(scales[c].mean, whole[c].mean)) << "ranks " << ranks << " col " << c;
        EXPECT_TRUE(same_bits(scales[c].sd, whole[c].sd)) << "ranks " << ranks << " col " << c;
      }
    }
  }
  // The columns have something to compare: a range, a mean and a spread that a partial sum would
  // round differently.
  EXPECT_GT(whole[1].hi - whole[1].lo, 0.0);
  EXPECT_GT(whole[5].sd, 0.0);
}

TEST(PartitionedNeighbours, MergedSearchEqualsTheWholeSearchBitForBit) {
  const Data data = mixed_data(1500, 700);
  const Table& reference = data.reference();
  const Table& query = data.query();
  const auto scales =
      std::make_shared<const stats::DistanceScales>(stats::distance_scales(reference));
  for (auto distance : {DistanceKind::kGower, DistanceKind::kHamming, DistanceKind::kEuclidean,
                        DistanceKind::kCosine}) {
    for (std::size_t k : {1u, 2u, 5u}) {
      for (int threads : {1, 2}) {
        const ThreadCountScope scope(threads);
        NeighbourOptions options;
        options.distance = distance;
        options.k = k;
        const auto whole = stats::nearest_neighbours(query, reference, options);
        std::size_t copies = 0;
        for (std::size_t q = 0; q < whole.queries; ++q) copies += whole.dist(q, k - 1) == 0.0;
        for (int ranks : {1, 2, 3, 4}) {
          const auto ranges = split(reference.rows(), ranks);
          const auto parts = partitions(reference, ranges);
          std::vector<stats::Neighbours> lists;
          for (std::size_t r = 0; r < parts.size(); ++r)
            lists.push_back(
                stats::deserialise_neighbours(stats::serialise(stats::search_reference_part(
                    query, parts[r], ranges[r].first, reference.rows(), options, scales))));
          const auto merged = stats::merge_neighbours(lists);
          ASSERT_EQ(merged.k, whole.k);
          ASSERT_EQ(merged.queries, whole.queries);
          for (std::size_t x = 0; x < whole.distance.size(); ++x) {
            ASSERT_TRUE(same_bits(merged.distance[x], whole.distance[x]))
                << stats::to_string(distance) << " k=" << k << " ranks=" << ranks << " slot " << x;
            ASSERT_EQ(merged.index[x], whole.index[x])
                << stats::to_string(distance) << " k=" << k << " ranks=" << ranks << " slot " << x;
          }
          EXPECT_EQ(merged.exact_copy_shortcuts, copies);
          if (distance == DistanceKind::kGower) {
            EXPECT_EQ(merged.exact_copy_shortcuts, whole.exact_copy_shortcuts);
          }
        }
      }
    }
  }
}

// The scale table is another table than the reference (the distance metrics search every
// direction on the confidential data's scale), and a self-search (query = reference) leaves a
// record out by its whole-table position.
TEST(PartitionedNeighbours, OtherScaleTableAndSelfSearch) {
  const Data data = mixed_data(1200, 900);
  const Table& confidential = data.reference();
  const Table& synthetic = data.query();
  const auto scales =
      std::make_shared<const stats::DistanceScales>(stats::distance_scales(confidential));
  for (auto distance : {DistanceKind::kGower, DistanceKind::kEuclidean}) {
    NeighbourOptions options;
    options.distance = distance;
    options.k = 3;
    options.scale = &confidential;
    options.columns = {0, 1, 3, 5};
    for (const Table* reference : {&synthetic, &confidential}) {
      const Table& query = confidential;  // confidential -> synthetic, confidential -> itself
      const auto whole = stats::nearest_neighbours(query, *reference, options);
      for (int ranks : {2, 3, 4}) {
        const auto ranges = split(reference->rows(), ranks);
        const auto parts = partitions(*reference, ranges);
        std::vector<stats::Neighbours> lists;
        for (std::size_t r = 0; r < parts.size(); ++r)
          lists.push_back(stats::search_reference_part(query, parts[r], ranges[r].first,
                                                       reference->rows(), options, scales));
        const auto merged = stats::merge_neighbours(lists);
        ASSERT_EQ(merged.distance.size(), whole.distance.size());
        for (std::size_t x = 0; x < whole.distance.size(); ++x) {
          ASSERT_TRUE(same_bits(merged.distance[x], whole.distance[x])) << "slot " << x;
          ASSERT_EQ(merged.index[x], whole.index[x]) << "slot " << x;
        }
        if (reference != &confidential) continue;
        // Leave-one-out by position: the nearest other record is the same in both.
        for (std::size_t q = 0; q < query.rows(); ++q) {
          auto other = [&](const stats::Neighbours& n) {
            for (std::size_t r = 0; r < n.k; ++r)
              if (n.idx(q, r) != q) return std::make_pair(n.dist(q, r), n.idx(q, r));
            return std::make_pair(0.0, stats::kNoNeighbour);
          };
          ASSERT_EQ(other(merged), other(whole)) << "query " << q;
        }
      }
    }
  }
}

TEST(PartitionedNeighbours, MoreNeighboursThanPartitionRowsAndEmptyQueries) {
  const Data data = mixed_data(7, 30);
  NeighbourOptions options;
  options.k = 5;
  const auto scales =
      std::make_shared<const stats::DistanceScales>(stats::distance_scales(data.reference()));
  for (std::size_t k : {5u, 9u}) {  // partitions of 2-3 rows; the whole reference has 7 < 9
    options.k = k;
    const auto whole = stats::nearest_neighbours(data.query(), data.reference(), options);
    const auto ranges = split(data.reference().rows(), 4);
    const auto parts = partitions(data.reference(), ranges);
    std::vector<stats::Neighbours> lists;
    for (std::size_t r = 0; r < parts.size(); ++r)
      lists.push_back(stats::search_reference_part(data.query(), parts[r], ranges[r].first,
                                                   data.reference().rows(), options, scales));
    const auto merged = stats::merge_neighbours(lists);
    for (std::size_t x = 0; x < whole.distance.size(); ++x) {
      ASSERT_TRUE(same_bits(merged.distance[x], whole.distance[x])) << "k=" << k << " slot " << x;
      ASSERT_EQ(merged.index[x], whole.index[x]) << "k=" << k << " slot " << x;
    }
  }
  const Table no_queries = select_rows(data.query(), {}, data.query().source());
  const auto empty = stats::merge_neighbours({stats::search_reference_part(
      no_queries, data.reference(), 0, data.reference().rows(), options, scales)});
  EXPECT_EQ(empty.queries, 0u);
  EXPECT_TRUE(empty.distance.empty());
}

TEST(PartitionedNeighbours, BadBytesAndMismatchedPartsAreRefused) {
  stats::Neighbours n;
  n.k = 2;
  n.queries = 1;
  n.distance = {0.5, 1.0};
  n.index = {3, 4};
  const std::string bytes = stats::serialise(n);
  EXPECT_EQ(stats::deserialise_neighbours(bytes).index, n.index);
  EXPECT_THROW(stats::deserialise_neighbours(bytes.substr(0, bytes.size() - 1)),
               std::runtime_error);
  EXPECT_THROW(stats::deserialise_neighbours(bytes + "x"), std::runtime_error);
  EXPECT_THROW(stats::deserialise_neighbours("garbage"), std::runtime_error);
  EXPECT_THROW(stats::deserialise_tied_candidates(bytes), std::runtime_error);
  stats::Neighbours other = n;
  other.k = 1;
  other.distance = {0.1};
  other.index = {1};
  EXPECT_THROW(stats::merge_neighbours({n, other}), std::logic_error);
  EXPECT_THROW(stats::merge_neighbours({}), std::logic_error);
}

// The attacks' search: every reference row tied at the merged k-th distance is kept.
TEST(PartitionedNeighbours, MergedTiedListsEqualTheWholeListsForEveryQuery) {
  const Data data = mixed_data(1300, 500);
  const Table& reference = data.reference();
  const Table& query = data.query();
  // All columns (several numeric); a few categorical columns (masses of ties); one numeric and
  // the categorical ones (every exact tie compares equal).
  const std::vector<std::vector<std::size_t>> column_sets = {{0, 1, 2, 3, 4, 5}, {3, 4}, {0, 3, 4}};
  for (const auto& columns : column_sets) {
    for (std::size_t k : {1u, 2u, 5u}) {
      for (int threads : {1, 2}) {
        const ThreadCountScope scope(threads);
        const stats::TiedNeighbourLists whole(query, reference, columns, k, std::size_t{1} << 30,
                                              nullptr, "");
        ASSERT_TRUE(whole.stored());
        for (int ranks : {1, 2, 3, 4}) {
          const auto ranges = split(reference.rows(), ranks);
          const auto parts = partitions(reference, ranges);
          std::vector<std::string> replies(static_cast<std::size_t>(ranks));
          run_thread_group(ranks, [&](Communicator& comm) {
            const auto r = static_cast<std::size_t>(comm.rank());
            const auto attack_ranges = stats::gather_attack_ranges(comm, query, parts[r], columns);
            replies[r] = stats::serialise(stats::tied_candidates_of_part(
                query, parts[r], ranges[r].first, columns, attack_ranges, k));
          });
          std::vector<stats::TiedCandidates> candidates;
          for (const auto& reply : replies)
            candidates.push_back(stats::deserialise_tied_candidates(reply));
          const auto merged = stats::merge_tied_candidates(candidates, reference.rows());
          stats::TiedNeighbourScratch a, b;
          for (std::size_t q = 0; q < query.rows(); ++q) {
            const auto x = whole.of(q, a);
            const auto y = merged->of(q, b);
            ASSERT_TRUE(std::equal(x.sure.begin(), x.sure.end(), y.sure.begin(), y.sure.end()))
                << "query " << q << " k=" << k << " ranks=" << ranks;
            ASSERT_TRUE(std::equal(x.tied.begin(), x.tied.end(), y.tied.begin(), y.tied.end()))
                << "query " << q << " k=" << k << " ranks=" << ranks;
            ASSERT_EQ(x.picks, y.picks);
            ASSERT_TRUE(same_bits(x.kth_distance, y.kth_distance)) << "query " << q;
          }
        }
      }
    }
  }
  // The few-column case must tie many rows, or the test would not test the tie rule.
  const stats::TiedNeighbourLists ties(query, reference, {3, 4}, 2, std::size_t{1} << 30, nullptr,
                                       "");
  stats::TiedNeighbourScratch s;
  EXPECT_GT(ties.of(0, s).tied.size(), 10u);
}

// Fewer reference rows than k: every row is sure.
TEST(PartitionedNeighbours, TiedListsWithFewerRowsThanK) {
  const Data data = mixed_data(6, 20);
  const std::vector<std::size_t> columns = {0, 1, 3};
  for (std::size_t k : {3u, 6u, 8u}) {
    const stats::TiedNeighbourLists whole(data.query(), data.reference(), columns, k,
                                          std::size_t{1} << 30, nullptr, "");
    const auto ranges = split(data.reference().rows(), 3);
    const auto parts = partitions(data.reference(), ranges);
    std::vector<stats::TiedCandidates> candidates(parts.size());
    run_thread_group(3, [&](Communicator& comm) {
      const auto r = static_cast<std::size_t>(comm.rank());
      const auto attack_ranges = stats::gather_attack_ranges(comm, data.query(), parts[r], columns);
      candidates[r] = stats::tied_candidates_of_part(data.query(), parts[r], ranges[r].first,
                                                     columns, attack_ranges, k);
    });
    const auto merged = stats::merge_tied_candidates(candidates, data.reference().rows());
    stats::TiedNeighbourScratch a, b;
    for (std::size_t q = 0; q < data.query().rows(); ++q) {
      const auto x = whole.of(q, a);
      const auto y = merged->of(q, b);
      ASSERT_TRUE(std::equal(x.sure.begin(), x.sure.end(), y.sure.begin(), y.sure.end()));
      ASSERT_TRUE(std::equal(x.tied.begin(), x.tied.end(), y.tied.begin(), y.tied.end()));
      ASSERT_EQ(x.picks, y.picks);
      ASSERT_TRUE(same_bits(x.kth_distance, y.kth_distance));
    }
  }
}

// Large enough for every pruning path (signature groups, projection bounds, exact-copy hashing)
// to run inside each partition: 50k queries against 50k reference rows over two and four ranks'
// shares (one of the four empty).
TEST(PartitionedNeighbours, FiftyThousandByFiftyThousand) {
  const Data data = mixed_data(50000, 50000);
  const Table& reference = data.reference();
  const Table& query = data.query();
  const auto scales =
      std::make_shared<const stats::DistanceScales>(stats::distance_scales(reference));
  for (std::size_t k : {1u, 5u}) {
    NeighbourOptions options;
    options.k = k;
    const auto whole = stats::nearest_neighbours(query, reference, options);
    EXPECT_GT(whole.exact_copy_shortcuts, 0u);
    for (int ranks : {2, 4}) {
      const auto ranges = split(reference.rows(), ranks);
      const auto parts = partitions(reference, ranges);
      std::vector<stats::Neighbours> lists;
      for (std::size_t r = 0; r < parts.size(); ++r)
        lists.push_back(stats::search_reference_part(query, parts[r], ranges[r].first,
                                                     reference.rows(), options, scales));
      const auto merged = stats::merge_neighbours(lists);
      ASSERT_EQ(merged.distance.size(), whole.distance.size());
      for (std::size_t x = 0; x < whole.distance.size(); ++x) {
        ASSERT_TRUE(same_bits(merged.distance[x], whole.distance[x]))
            << "k=" << k << " ranks=" << ranks << " slot " << x;
        ASSERT_EQ(merged.index[x], whole.index[x])
            << "k=" << k << " ranks=" << ranks << " slot " << x;
      }
    }
  }
  // The partitions' own ranges differ from the whole table's: without the gathered scales the
  // partitions would measure other distances.
  const auto own = stats::distance_scales(partitions(reference, split(reference.rows(), 4))[0]);
  bool differs = false;
  for (std::size_t c = 0; c < own.size(); ++c)
    differs = differs || !same_bits(own[c].hi, (*scales)[c].hi) ||
              !same_bits(own[c].lo, (*scales)[c].lo) || !same_bits(own[c].sd, (*scales)[c].sd);
  EXPECT_TRUE(differs);
}
