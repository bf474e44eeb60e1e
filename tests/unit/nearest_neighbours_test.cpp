#include "stats/nearest_neighbours.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/random.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;
using stats::DistanceKind;
using stats::NeighbourOptions;
using stats::SearchMode;

namespace {

// Mixed data built to have ties (few distinct values), exact duplicates (rows copied from the
// reference into the queries and within the reference), missing values in numeric and
// categorical columns, a constant numeric column (range 0) and query values outside the
// reference range.
std::string random_csv(std::uint64_t seed, std::size_t rows,
                       const std::vector<std::string>* copy_from,
                       std::vector<std::string>* lines_out, double stretch) {
  Rng rng(seed);
  std::ostringstream out;
  out << "x1,x2,x3,c1,c2,c3\n";
  const char* c1[] = {"a", "b", "c", "NA"};
  const char* c2[] = {"u", "v"};
  const char* c3[] = {"p", "q", "r", "s"};
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < rows; ++i) {
    std::ostringstream line;
    if (copy_from && rng.uniform() < 0.2) {
      line << (*copy_from)[rng.below(copy_from->size())];
    } else if (!lines.empty() && rng.uniform() < 0.1) {
      line << lines[rng.below(lines.size())];
    } else {
      if (rng.uniform() < 0.1) {
        line << "NA";
      } else {
        line << rng.below(5);
      }
      line << ",";
      if (rng.uniform() < 0.05) {
        line << "NA";
      } else {
        line << std::round(rng.uniform() * 1000 * stretch) / 10;
      }
      line << "," << (rng.uniform() < 0.1 ? "NA" : "7");
      line << "," << c1[rng.below(4)] << "," << c2[rng.below(2)] << "," << c3[rng.below(4)];
    }
    lines.push_back(line.str());
    out << lines.back() << "\n";
  }
  if (lines_out) *lines_out = lines;
  return out.str();
}

struct Brute {
  std::vector<double> d;
  std::vector<std::uint32_t> i;
};

// A plain double loop over all pairs, written from the documented formula, sorted by
// (distance, reference index).
Brute brute_gower(const Table& q, const Table& r, std::size_t k, bool hamming) {
  const std::size_t p = r.column_count();
  std::vector<double> lo(p, NAN), hi(p, NAN);
  for (std::size_t c = 0; c < p; ++c) {
    if (!r.column(c).is_numeric()) continue;
    for (double v : r.column(c).numeric) {
      if (std::isnan(v)) continue;
      if (std::isnan(lo[c]) || v < lo[c]) lo[c] = v;
      if (std::isnan(hi[c]) || v > hi[c]) hi[c] = v;
    }
  }
  Brute b;
  for (std::size_t i = 0; i < q.rows(); ++i) {
    std::vector<std::pair<double, std::uint32_t>> all;
    for (std::size_t j = 0; j < r.rows(); ++j) {
      double s = 0.0;
      int mism = 0;
      for (std::size_t c = 0; c < p; ++c) {
        const Column& a = q.column(c);
        const Column& bcol = r.column(c);
        if (a.is_categorical()) {
          mism += a.codes[i] != bcol.codes[j];
          continue;
        }
        const double x = a.numeric[i], y = bcol.numeric[j];
        const double range = hi[c] - lo[c];
        const bool equal = (std::isnan(x) && std::isnan(y)) || x == y;
        if (hamming || !(range > 0)) {
          mism += !equal;
        } else if (std::isnan(x) || std::isnan(y)) {
          s += equal ? 0.0 : 1.0;
        } else {
          s += std::min(std::fabs(x - y) / range, 1.0);
        }
      }
      all.push_back({(s + mism) / static_cast<double>(p), static_cast<std::uint32_t>(j)});
    }
    std::sort(all.begin(), all.end());
    for (std::size_t t = 0; t < k; ++t) {
      b.d.push_back(t < all.size() ? all[t].first : INFINITY);
      b.i.push_back(t < all.size() ? all[t].second : stats::kNoNeighbour);
    }
  }
  return b;
}

}  // namespace

TEST(NearestNeighbours, GowerAndHammingEqualBruteForceForEveryModeAndThreadCount) {
  std::vector<std::string> ref_lines;
  const std::string ref = random_csv(11, 700, nullptr, &ref_lines, 1.0);
  const std::string qry = random_csv(12, 400, &ref_lines, nullptr, 1.2);
  const auto t = make_tables(ref, {qry});
  const Table& r = t.confidential;
  const Table& q = t.synthetic[0];
  const int saved = omp_get_max_threads();
  for (bool hamming : {false, true}) {
    for (std::size_t k : {1u, 2u, 4u}) {
      const Brute expect = brute_gower(q, r, k, hamming);
      for (auto mode : {SearchMode::kFullScan, SearchMode::kGrouped, SearchMode::kProjected,
                        SearchMode::kAuto}) {
        for (int threads : {1, 2, 3}) {
          omp_set_num_threads(threads);
          NeighbourOptions o;
          o.distance = hamming ? DistanceKind::kHamming : DistanceKind::kGower;
          o.k = k;
          o.mode = mode;
          const auto nb = stats::nearest_neighbours(q, r, o);
          ASSERT_EQ(nb.distance.size(), expect.d.size());
          for (std::size_t x = 0; x < expect.d.size(); ++x) {
            ASSERT_EQ(nb.distance[x], expect.d[x])
                << "slot " << x << " k=" << k << " threads=" << threads;
            ASSERT_EQ(nb.index[x], expect.i[x])
                << "slot " << x << " k=" << k << " threads=" << threads;
          }
          if (mode == SearchMode::kGrouped) {
            EXPECT_TRUE(nb.grouped);
          }
          EXPECT_GT(nb.exact_copy_shortcuts, 0u);
        }
      }
    }
  }
  omp_set_num_threads(saved);
}

// Categorical-only data (integer-exact float pass, masses of ties) in every mode.
TEST(NearestNeighbours, CategoricalOnlyTiesEqualBruteForce) {
  Rng rng(3);
  std::string ref = "a,b\n", qry = "a,b\n";
  for (int i = 0; i < 600; ++i)
    ref += std::to_string(rng.below(3)) + "x," + std::to_string(rng.below(4)) + "y\n";
  for (int i = 0; i < 100; ++i)
    qry += std::to_string(rng.below(4)) + "x," + std::to_string(rng.below(4)) + "y\n";
  const auto t = make_tables(ref, {qry});
  for (std::size_t k : {1u, 3u, 7u}) {
    const Brute expect = brute_gower(t.synthetic[0], t.confidential, k, false);
    for (auto mode :
         {SearchMode::kFullScan, SearchMode::kGrouped, SearchMode::kProjected, SearchMode::kAuto}) {
      NeighbourOptions o;
      o.k = k;
      o.mode = mode;
      const auto nb = stats::nearest_neighbours(t.synthetic[0], t.confidential, o);
      EXPECT_EQ(nb.distance, expect.d);
      EXPECT_EQ(nb.index, expect.i);
    }
  }
}

// The pruned modes against the full scan (itself checked against the plain loop above) at a size
// where pruning matters: every distance and index equal, at 1 and 2 threads, and the pruned
// modes compare fewer than half of the pairs (grouped: about 1/38, projected: about 1/4).
// bench/nn_exactness.sh runs the same comparison at 50k x 50k.
TEST(NearestNeighbours, PrunedSearchEqualsFullScanOnFiveThousandRows) {
  std::vector<std::string> ref_lines;
  const std::string ref = random_csv(31, 5000, nullptr, &ref_lines, 1.0);
  const auto t = make_tables(ref, {random_csv(32, 5000, &ref_lines, nullptr, 1.1)});
  const Table& r = t.confidential;
  const Table& q = t.synthetic[0];
  const int saved = omp_get_max_threads();
  for (std::size_t k : {1u, 3u}) {
    NeighbourOptions o;
    o.k = k;
    o.mode = SearchMode::kFullScan;
    omp_set_num_threads(1);
    const auto oracle = stats::nearest_neighbours(q, r, o);
    for (auto mode : {SearchMode::kGrouped, SearchMode::kProjected, SearchMode::kAuto}) {
      for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        o.mode = mode;
        const auto nb = stats::nearest_neighbours(q, r, o);
        ASSERT_EQ(nb.distance.size(), oracle.distance.size());
        for (std::size_t x = 0; x < oracle.distance.size(); ++x) {
          ASSERT_EQ(nb.distance[x], oracle.distance[x]) << "slot " << x << " k=" << k;
          ASSERT_EQ(nb.index[x], oracle.index[x]) << "slot " << x << " k=" << k;
        }
        EXPECT_LT(nb.scanned_pairs * 2, oracle.scanned_pairs)
            << "mode " << static_cast<int>(mode) << " k=" << k;
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST(NearestNeighbours, PairDistanceMatchesTheSearch) {
  std::vector<std::string> ref_lines;
  const std::string ref = random_csv(21, 200, nullptr, &ref_lines, 1.0);
  const auto t = make_tables(ref, {random_csv(22, 50, &ref_lines, nullptr, 1.0)});
  for (auto kind : {DistanceKind::kGower, DistanceKind::kHamming, DistanceKind::kEuclidean,
                    DistanceKind::kCosine}) {
    NeighbourOptions o;
    o.distance = kind;
    o.k = 3;
    const auto nb = stats::nearest_neighbours(t.synthetic[0], t.confidential, o);
    const stats::PairDistance pair(t.synthetic[0], t.confidential, o);
    for (std::size_t i = 0; i < 50; ++i) {
      std::vector<std::pair<double, std::uint32_t>> all;
      for (std::size_t j = 0; j < 200; ++j)
        all.push_back({pair(i, j), static_cast<std::uint32_t>(j)});
      std::sort(all.begin(), all.end());
      for (std::size_t r = 0; r < 3; ++r) {
        EXPECT_EQ(nb.dist(i, r), all[r].first) << stats::to_string(kind);
        EXPECT_EQ(nb.idx(i, r), all[r].second) << stats::to_string(kind);
      }
    }
  }
}

TEST(NearestNeighbours, EdgeCases) {
  auto t = make_tables("x,c\n1,a\n2,b\n", {"x,c\n1,a\n", "x,c\n2,a\n"});
  {  // an empty table with the same columns
    std::vector<Column> cols = t.synthetic[1].columns();
    for (auto& c : cols) {
      c.numeric.clear();
      c.codes.clear();
    }
    t.synthetic[1] = Table(TableSource{}, cols);
  }
  NeighbourOptions o;
  o.k = 3;
  const auto nb = stats::nearest_neighbours(t.synthetic[0], t.confidential, o);
  EXPECT_EQ(nb.dist(0, 0), 0.0);
  EXPECT_EQ(nb.idx(0, 0), 0u);
  EXPECT_EQ(nb.dist(0, 1), 1.0);  // (|1-2|/1 + 1) / 2
  EXPECT_TRUE(std::isinf(nb.dist(0, 2)));
  EXPECT_EQ(nb.idx(0, 2), stats::kNoNeighbour);
  EXPECT_EQ(stats::nearest_neighbours(t.synthetic[1], t.confidential, o).queries, 0u);
  EXPECT_EQ(stats::nearest_neighbours(t.confidential, t.synthetic[1], o).dist(0, 0), INFINITY);
  o.k = 0;
  EXPECT_THROW(stats::nearest_neighbours(t.synthetic[0], t.confidential, o), InputError);
  o.k = 1;
  o.distance = DistanceKind::kEuclidean;
  const auto c = make_tables("c\na\nb\n", {"c\na\n"});
  EXPECT_THROW(stats::nearest_neighbours(c.synthetic[0], c.confidential, o), MetricNotApplicable);
  EXPECT_THROW(stats::distance_from_string("manhattan", "test"), InputError);
}

// Golden values from tests/golden/distance/make_golden.py: a numpy transcription of SDMetrics'
// per-column Gower rule, sklearn.neighbors.NearestNeighbors (Euclidean on standardised columns)
// and scipy.spatial.distance.cdist (cosine on z-scores, Hamming). Distances to 1e-12; each
// returned index must have the golden distance at its rank.
namespace {
std::vector<std::vector<double>> read_matrix(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<double>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}
std::string golden(const std::string& name) {
  const std::string here = __FILE__;  // tests/unit/<this file>
  return here.substr(0, here.rfind('/')) + "/../golden/distance/" + name;
}
}  // namespace

TEST(NearestNeighbours, ReproducesNumpyScipySklearnGoldens) {
  struct Case {
    const char* query;
    const char* reference;
    const char* expected;
    DistanceKind kind;
  };
  const Case cases[] = {
      {"mixed_query.csv", "mixed_reference.csv", "gower_top3.csv", DistanceKind::kGower},
      {"numeric_query.csv", "numeric_reference.csv", "euclidean_top3.csv",
       DistanceKind::kEuclidean},
      {"numeric_query.csv", "numeric_reference.csv", "cosine_top3.csv", DistanceKind::kCosine},
      {"mixed_query.csv", "mixed_reference.csv", "hamming_top3.csv", DistanceKind::kHamming},
  };
  for (const auto& cs : cases) {
    const auto t = load_tables(golden(cs.reference), {golden(cs.query)});
    NeighbourOptions o;
    o.distance = cs.kind;
    o.k = 3;
    const auto nb = stats::nearest_neighbours(t.synthetic[0], t.confidential, o);
    const stats::PairDistance pair(t.synthetic[0], t.confidential, o);
    const auto expect = read_matrix(golden(cs.expected));  // query, i1, i2, i3, d1, d2, d3
    ASSERT_EQ(expect.size(), t.synthetic[0].rows()) << cs.expected;
    for (const auto& row : expect) {
      const auto q = static_cast<std::size_t>(row[0]);
      for (std::size_t r = 0; r < 3; ++r) {
        EXPECT_NEAR(nb.dist(q, r), row[4 + r], 1e-12) << cs.expected << " query " << q;
        EXPECT_NEAR(pair(q, static_cast<std::size_t>(row[1 + r])), nb.dist(q, r), 1e-12)
            << cs.expected << " query " << q;
      }
    }
  }
}
