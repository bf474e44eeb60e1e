#include "metrics/sdc_risk/owned_combinations.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
#include "metrics/key_disclosure/key_scenarios.hpp"
#include "metrics/partial_state.hpp"

namespace synthaudit::sdc {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t value) {
  h ^= value + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xbf58476d1ce4e5b9ULL;
}

// The low bits pick the rank, so the high bits are folded into them first.
int rank_of(std::uint64_t h, int ranks) {
  h ^= h >> 31;
  return static_cast<int>(h % static_cast<std::uint64_t>(ranks));
}

using Projection = std::vector<std::uint64_t>;

struct ProjectionHash {
  std::size_t operator()(const Projection& values) const {
    std::uint64_t h = 0x243f6a8885a308d3ULL;
    for (auto v : values) h = mix(h, v);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// The records (and first-table weight) of one mask's combinations that share a projection.
struct Total {
  std::uint64_t records = 0;
  double weight = 0;
};
using Totals = std::unordered_map<Projection, Total, ProjectionHash>;

// A projection's total as the exchanges of owned_class_frequencies send it.
void write_total(StateWriter& out, const Projection& values, std::uint64_t records, double weight) {
  for (auto v : values) out.u64(v);
  out.u64(records);
  out.f64(weight);
}

// Calls use(values, records, weight) for each total that write_total wrote into `bytes`, for
// projections on `width` keys.
template <typename Use>
void for_each_total(const std::string& bytes, std::size_t width, Use use) {
  StateReader in(bytes);
  const std::size_t entries = bytes.size() / ((width + 2) * sizeof(std::uint64_t));
  Projection values(width);
  for (std::size_t e = 0; e < entries; ++e) {
    for (auto& v : values) v = in.u64();
    const std::uint64_t records = in.u64();
    const double weight = in.f64();
    use(values, records, weight);
  }
  in.expect_end();
}

Projection project(const std::uint64_t* combination, std::size_t keys, std::uint64_t shared) {
  Projection values;
  for (std::size_t k = 0; k < keys; ++k)
    if (shared >> k & 1) values.push_back(combination[k]);
  return values;
}

// The combinations one rank sent, read in place: each is its key values, its count per table and,
// when weighted, its weight's bits.
struct SentRun {
  const std::string* bytes = nullptr;
  std::size_t stride = 0;  // 8-byte words per combination
  std::size_t next = 0, size = 0;

  std::uint64_t word(std::size_t entry, std::size_t at) const {
    std::uint64_t w;
    std::memcpy(&w, bytes->data() + (entry * stride + at) * sizeof w, sizeof w);
    return w;
  }
};

int projection_owner(const Projection& values, std::uint64_t shared, int ranks) {
  std::uint64_t h = mix(0x9e3779b97f4a7c15ULL, shared);
  for (auto v : values) h = mix(h, v);
  return rank_of(h, ranks);
}

std::uint64_t total_over_ranks(std::uint64_t value, Communicator& communicator) {
  StateWriter out;
  out.u64(value);
  std::uint64_t total = 0;
  for (const auto& bytes : communicator.all_gather(out.take())) {
    StateReader in(bytes);
    total += in.u64();
    in.expect_end();
  }
  return total;
}

}  // namespace

ScenarioKeys scenario_keys(const std::vector<const Table*>& tables,
                           const DisclosureScenario& scenario,
                           const stats::CodingOptions& options) {
  auto codes = keydisc::code_scenario(tables, scenario, options);
  return {std::move(codes.key_names), std::move(codes.key_columns)};
}

int combination_owner(const std::uint64_t* combination, std::size_t class_keys, int ranks) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (std::size_t k = 0; k < class_keys; ++k) h = mix(h, combination[k]);
  return rank_of(h, ranks);
}

keydisc::FlatCombinations exchange_to_owners(keydisc::FlatCombinations local,
                                             std::size_t class_keys, Communicator& communicator) {
  const auto ranks = static_cast<std::size_t>(communicator.size());
  const std::size_t keys = local.keys, tables = local.tables;
  const bool weighted = local.weighted;
  const std::size_t stride = keys + tables + (weighted ? 1 : 0);
  std::vector<std::string> outgoing(ranks);
  {
    // Each owner's share in this rank's (ascending) order, so every run it receives is sorted.
    std::vector<std::size_t> owner(local.size());
    std::vector<std::size_t> words(ranks, 0);
    for (std::size_t i = 0; i < local.size(); ++i) {
      owner[i] = static_cast<std::size_t>(
          combination_owner(local.key(i), class_keys, static_cast<int>(ranks)));
      words[owner[i]] += stride;
    }
    std::vector<char*> at(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      outgoing[r].resize(words[r] * sizeof(std::uint64_t));
      at[r] = outgoing[r].data();
    }
    auto put = [&](std::size_t r, const void* word) {
      std::memcpy(at[r], word, sizeof(std::uint64_t));
      at[r] += sizeof(std::uint64_t);
    };
    for (std::size_t i = 0; i < local.size(); ++i) {
      for (std::size_t k = 0; k < keys; ++k) put(owner[i], local.key(i) + k);
      for (std::size_t t = 0; t < tables; ++t) put(owner[i], &local.counts[i * tables + t]);
      if (local.weighted) put(owner[i], &local.weight[i]);
    }
    local = {};
  }
  const auto received = communicator.all_to_all(std::move(outgoing));
  // Merged run by run: each combination's counts added in rank order.
  std::vector<SentRun> runs(ranks);
  for (std::size_t r = 0; r < ranks; ++r)
    runs[r] = {&received[r], stride, 0, received[r].size() / (stride * sizeof(std::uint64_t))};
  keydisc::FlatCombinations owned;
  owned.keys = keys;
  owned.tables = tables;
  owned.weighted = weighted;
  // At most every received combination, sized once (growing by doubling would hold up to three
  // times the size).
  std::size_t most = 0;
  for (const auto& run : runs) most += run.size;
  owned.values.reserve(most * keys);
  owned.counts.reserve(most * tables);
  if (weighted) owned.weight.reserve(most);
  std::vector<std::uint64_t> key(keys), per_table(tables);
  auto less = [&](const SentRun& run, const std::vector<std::uint64_t>& than) {
    for (std::size_t k = 0; k < keys; ++k) {
      const std::uint64_t v = run.word(run.next, k);
      if (v != than[k]) return v < than[k];
    }
    return false;
  };
  auto equal = [&](const SentRun& run, const std::vector<std::uint64_t>& to) {
    for (std::size_t k = 0; k < keys; ++k)
      if (run.word(run.next, k) != to[k]) return false;
    return true;
  };
  for (;;) {
    const SentRun* smallest = nullptr;
    for (const auto& run : runs)
      if (run.next < run.size) {
        if (smallest == nullptr || less(run, key)) {
          smallest = &run;
          for (std::size_t k = 0; k < keys; ++k) key[k] = run.word(run.next, k);
        }
      }
    if (smallest == nullptr) break;
    std::fill(per_table.begin(), per_table.end(), 0);
    double weight = 0;
    for (auto& run : runs) {
      if (run.next >= run.size || !equal(run, key)) continue;
      for (std::size_t t = 0; t < tables; ++t) per_table[t] += run.word(run.next, keys + t);
      if (owned.weighted) weight += std::bit_cast<double>(run.word(run.next, keys + tables));
      ++run.next;
    }
    owned.push(key.data(), per_table.data(), weight);
  }
  return owned;
}

double sum_over_ranks(double value, Communicator& communicator) {
  StateWriter out;
  out.f64(value);
  double total = 0;
  for (const auto& bytes : communicator.all_gather(out.take())) {
    StateReader in(bytes);
    total += in.f64();
    in.expect_end();
  }
  return total;
}

OwnedFrequencies owned_class_frequencies(const keydisc::FlatCombinations& owned, std::size_t table,
                                         bool weighted, stats::MissingKeys rule,
                                         Communicator& communicator) {
  const std::size_t keys = owned.keys;
  std::vector<const std::uint64_t*> members;
  OwnedFrequencies own;
  for (std::size_t i = 0; i < owned.size(); ++i) {
    if (owned.count(i, table) == 0) continue;
    members.push_back(owned.key(i));
    own.sample.push_back(static_cast<double>(owned.count(i, table)));
    own.weighted.push_back(weighted ? owned.weight[i] : own.sample.back());
  }
  if (rule == stats::MissingKeys::kValue) return own;
  if (keys > 64) {
    if (total_over_ranks(members.size(), communicator) > 0)
      throw InputError("missing_keys: wildcard handles at most 64 key columns, got " +
                       std::to_string(keys));
    return own;
  }

  // The masks of present keys of this table's combinations, over every rank.
  std::vector<std::uint64_t> mask_of(members.size());
  for (std::size_t m = 0; m < members.size(); ++m)
    for (std::size_t k = 0; k < keys; ++k)
      if (members[m][k] != keydisc::kMissingKey) mask_of[m] |= std::uint64_t{1} << k;
  std::vector<std::uint64_t> masks;
  {
    std::vector<std::uint64_t> mine = mask_of;
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    StateWriter out;
    out.u64s(mine);
    for (const auto& bytes : communicator.all_gather(out.take())) {
      StateReader in(bytes);
      for (auto mask : in.u64s()) masks.push_back(mask);
      in.expect_end();
    }
    std::sort(masks.begin(), masks.end());
    masks.erase(std::unique(masks.begin(), masks.end()), masks.end());
  }
  // One mask: every match is an equal combination, so the frequency is the combination's own.
  if (masks.size() <= 1) return own;

  std::vector<std::vector<std::size_t>> with_mask(masks.size());
  for (std::size_t m = 0; m < members.size(); ++m)
    with_mask[static_cast<std::size_t>(std::lower_bound(masks.begin(), masks.end(), mask_of[m]) -
                                       masks.begin())]
        .push_back(m);

  const int ranks = communicator.size();
  const auto rank_count = static_cast<std::size_t>(ranks);
  const std::uint64_t full = keys == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << keys) - 1;
  OwnedFrequencies out;
  out.sample.assign(members.size(), 0.0);
  out.weighted.assign(members.size(), 0.0);
  auto add = [&](std::size_t member, const Total& total) {
    out.sample[member] += static_cast<double>(total.records);
    out.weighted[member] += weighted ? total.weight : static_cast<double>(total.records);
  };
  // The pairs in stats::class_frequencies' order (m_i, then m_j ascending), so each frequency
  // adds its terms in the same order.
  for (std::size_t i = 0; i < masks.size(); ++i) {
    for (std::size_t j = 0; j < masks.size(); ++j) {
      // sdcMicro's exception: records with every key missing do not count for complete ones.
      if (keys >= 2 && masks[i] == full && masks[j] == 0) continue;
      const std::uint64_t shared = masks[i] & masks[j];
      const auto width = static_cast<std::size_t>(std::popcount(shared));

      // The records of mask m_j totalled per projection, at the projection's owner.
      Totals totals;
      {
        std::vector<StateWriter> to(rank_count);
        for (auto m : with_mask[j]) {
          const Projection values = project(members[m], keys, shared);
          write_total(to[static_cast<std::size_t>(projection_owner(values, shared, ranks))], values,
                      static_cast<std::uint64_t>(own.sample[m]), own.weighted[m]);
        }
        std::vector<std::string> outgoing(rank_count);
        for (std::size_t r = 0; r < rank_count; ++r) outgoing[r] = to[r].take();
        for (const auto& bytes : communicator.all_to_all(std::move(outgoing)))
          for_each_total(bytes, width,
                         [&](const Projection& values, std::uint64_t records, double weight) {
                           Total& total = totals[values];
                           total.records += records;
                           total.weight += weight;
                         });
      }

      // Send the totals to every rank when they are fewer than the requests would be (always for
      // no shared key: one total, which every combination of m_i matches).
      StateWriter sizes;
      sizes.u64(totals.size());
      sizes.u64(with_mask[i].size());
      std::uint64_t all_totals = 0, all_requests = 0;
      for (const auto& bytes : communicator.all_gather(sizes.take())) {
        StateReader in(bytes);
        all_totals += in.u64();
        all_requests += in.u64();
        in.expect_end();
      }
      if (width == 0 || all_totals * rank_count <= all_requests) {
        StateWriter mine;
        for (const auto& [values, total] : totals)
          write_total(mine, values, total.records, total.weight);
        totals.clear();
        for (const auto& bytes : communicator.all_gather(mine.take()))
          for_each_total(bytes, width,
                         [&](const Projection& values, std::uint64_t records, double weight) {
                           totals[values] = Total{records, weight};
                         });
        for (auto m : with_mask[i]) {
          const auto found = totals.find(project(members[m], keys, shared));
          if (found != totals.end()) add(m, found->second);
        }
        continue;
      }

      // Otherwise each combination of mask m_i asks the owner of its projection.
      std::vector<std::vector<std::size_t>> asked(rank_count);
      {
        std::vector<StateWriter> to(rank_count);
        for (auto m : with_mask[i]) {
          const Projection values = project(members[m], keys, shared);
          const auto owner = static_cast<std::size_t>(projection_owner(values, shared, ranks));
          for (auto v : values) to[owner].u64(v);
          asked[owner].push_back(m);
        }
        std::vector<std::string> outgoing(rank_count);
        for (std::size_t r = 0; r < rank_count; ++r) outgoing[r] = to[r].take();
        auto requests = communicator.all_to_all(std::move(outgoing));
        std::vector<std::string> answers(rank_count);
        for (std::size_t r = 0; r < rank_count; ++r) {
          StateReader in(requests[r]);
          StateWriter answer;
          const std::size_t entries = requests[r].size() / (width * sizeof(std::uint64_t));
          Projection values(width);
          for (std::size_t e = 0; e < entries; ++e) {
            for (auto& v : values) v = in.u64();
            const auto found = totals.find(values);
            const Total total = found == totals.end() ? Total{} : found->second;
            answer.u64(total.records);
            answer.f64(total.weight);
          }
          in.expect_end();
          std::string().swap(requests[r]);
          answers[r] = answer.take();
        }
        totals.clear();
        const auto replies = communicator.all_to_all(std::move(answers));
        for (std::size_t r = 0; r < rank_count; ++r) {
          StateReader in(replies[r]);
          for (auto m : asked[r]) {
            Total total;
            total.records = in.u64();
            total.weight = in.f64();
            add(m, total);
          }
          in.expect_end();
        }
      }
    }
  }
  return out;
}

}  // namespace synthaudit::sdc
