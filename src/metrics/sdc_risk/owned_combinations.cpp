#include "metrics/sdc_risk/owned_combinations.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
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

// Moves every combination of `from` into `into`, adding the counts (and weights) of those both
// hold; `from` is left empty.
void absorb(keydisc::CombinationCounts& into, keydisc::CombinationCounts&& from) {
  into.tables = std::max(into.tables, from.tables);
  while (!from.counts.empty()) {
    auto node = from.counts.extract(from.counts.begin());
    auto placed = into.counts.insert(std::move(node));
    if (!placed.inserted) add_into(placed.position->second, placed.node.mapped());
  }
  while (!from.first_weight.empty()) {
    auto node = from.first_weight.extract(from.first_weight.begin());
    auto placed = into.first_weight.insert(std::move(node));
    if (!placed.inserted) placed.position->second += placed.node.mapped();
  }
}

Projection project(const keydisc::KeyCombination& combination, std::uint64_t shared) {
  Projection values;
  for (std::size_t k = 0; k < combination.size(); ++k)
    if (shared >> k & 1) values.push_back(combination[k]);
  return values;
}

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

int combination_owner(const keydisc::KeyCombination& combination, std::size_t class_keys,
                      int ranks) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (std::size_t k = 0; k < class_keys && k < combination.size(); ++k) h = mix(h, combination[k]);
  return rank_of(h, ranks);
}

keydisc::CombinationCounts exchange_to_owners(keydisc::CombinationCounts local,
                                              std::size_t class_keys, Communicator& communicator) {
  const int ranks = communicator.size();
  std::vector<std::string> outgoing(static_cast<std::size_t>(ranks));
  {
    std::vector<keydisc::CombinationCounts> shares(static_cast<std::size_t>(ranks));
    for (auto& share : shares) share.tables = local.tables;
    // Moved node by node, so the combinations are never held twice.
    while (!local.counts.empty()) {
      auto node = local.counts.extract(local.counts.begin());
      auto& share =
          shares[static_cast<std::size_t>(combination_owner(node.key(), class_keys, ranks))];
      if (auto weight = local.first_weight.extract(node.key()))
        share.first_weight.insert(share.first_weight.end(), std::move(weight));
      share.counts.insert(share.counts.end(), std::move(node));
    }
    for (std::size_t r = 0; r < shares.size(); ++r) {
      StateWriter out;
      shares[r].write(out);
      outgoing[r] = out.take();
      shares[r] = {};
    }
  }
  keydisc::CombinationCounts owned;
  owned.tables = local.tables;
  auto received = communicator.all_to_all(std::move(outgoing));
  for (auto& bytes : received) {
    StateReader in(bytes);
    absorb(owned, keydisc::CombinationCounts::read(in));
    in.expect_end();
    std::string().swap(bytes);
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

OwnedFrequencies owned_class_frequencies(const keydisc::CombinationCounts& owned, std::size_t keys,
                                         std::size_t table, bool weighted, stats::MissingKeys rule,
                                         Communicator& communicator) {
  std::vector<const keydisc::KeyCombination*> members;
  OwnedFrequencies own;
  for (const auto& [combination, per_table] : owned.counts) {
    if (per_table[table] == 0) continue;
    members.push_back(&combination);
    own.sample.push_back(static_cast<double>(per_table[table]));
    own.weighted.push_back(weighted ? owned.first_weight.at(combination) : own.sample.back());
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
      if ((*members[m])[k] != keydisc::kMissingKey) mask_of[m] |= std::uint64_t{1} << k;
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
          const Projection values = project(*members[m], shared);
          auto& out_to = to[static_cast<std::size_t>(projection_owner(values, shared, ranks))];
          for (auto v : values) out_to.u64(v);
          out_to.u64(static_cast<std::uint64_t>(own.sample[m]));
          out_to.f64(own.weighted[m]);
        }
        std::vector<std::string> outgoing(rank_count);
        for (std::size_t r = 0; r < rank_count; ++r) outgoing[r] = to[r].take();
        for (const auto& bytes : communicator.all_to_all(std::move(outgoing))) {
          StateReader in(bytes);
          const std::size_t entries = bytes.size() / ((width + 2) * sizeof(std::uint64_t));
          Projection values(width);
          for (std::size_t e = 0; e < entries; ++e) {
            for (auto& v : values) v = in.u64();
            Total& total = totals[values];
            total.records += in.u64();
            total.weight += in.f64();
          }
          in.expect_end();
        }
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
        for (const auto& [values, total] : totals) {
          for (auto v : values) mine.u64(v);
          mine.u64(total.records);
          mine.f64(total.weight);
        }
        totals.clear();
        for (const auto& bytes : communicator.all_gather(mine.take())) {
          StateReader in(bytes);
          const std::size_t entries = bytes.size() / ((width + 2) * sizeof(std::uint64_t));
          Projection values(width);
          for (std::size_t e = 0; e < entries; ++e) {
            for (auto& v : values) v = in.u64();
            Total& total = totals[values];
            total.records = in.u64();
            total.weight = in.f64();
          }
          in.expect_end();
        }
        for (auto m : with_mask[i]) {
          const auto found = totals.find(project(*members[m], shared));
          if (found != totals.end()) add(m, found->second);
        }
        continue;
      }

      // Otherwise each combination of mask m_i asks the owner of its projection.
      std::vector<std::vector<std::size_t>> asked(rank_count);
      {
        std::vector<StateWriter> to(rank_count);
        for (auto m : with_mask[i]) {
          const Projection values = project(*members[m], shared);
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
