#include "metrics/households/household_groups.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "metrics/design_weights.hpp"
#include "stats/column_lookup.hpp"
#include "stats/multiple_testing.hpp"

namespace synthaudit::households {

HouseholdGroups group_households(const Table& table, std::size_t household) {
  const Column& id = table.column(household);
  HouseholdGroups groups;
  std::vector<std::uint32_t> rows;
  rows.reserve(table.rows());
  for (std::size_t r = 0; r < table.rows(); ++r) {
    if (id.missing(r))
      ++groups.without_household;
    else
      rows.push_back(static_cast<std::uint32_t>(r));
  }
  // Sorting by identifier (then row) puts each household's members together in file order;
  // households are then put in the order of their first member.
  auto key = [&](std::uint32_t r) {
    return id.is_numeric() ? id.numeric[r] : static_cast<double>(id.codes[r]);
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // [begin, end) in `rows`
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i + 1;
    while (j < rows.size() && key(rows[j]) == key(rows[i])) ++j;
    runs.emplace_back(i, j);
    i = j;
  }
  std::sort(runs.begin(), runs.end(),
            [&](const auto& a, const auto& b) { return rows[a.first] < rows[b.first]; });
  groups.members.reserve(rows.size());
  groups.start.reserve(runs.size() + 1);
  for (const auto& [begin, end] : runs) {
    groups.start.push_back(groups.members.size());
    groups.members.insert(groups.members.end(), rows.begin() + static_cast<std::ptrdiff_t>(begin),
                          rows.begin() + static_cast<std::ptrdiff_t>(end));
  }
  groups.start.push_back(groups.members.size());
  return groups;
}

std::size_t household_column(const MetricInput& in) {
  if (in.context.household.empty())
    throw MetricNotApplicable("needs a household identifier column (household:, --household)");
  return stats::resolve_column(in.confidential, in.context.household, "household");
}

HouseholdsOfBoth households_of_both(const MetricInput& in) {
  const std::size_t id = household_column(in);
  return {group_households(in.confidential, id), group_households(in.first_synthetic(), id)};
}

void add_holm_gate(MetricResult& result, const std::vector<std::string>& tested,
                   const std::vector<double>& p_values, double alpha, const GateStatistics& names) {
  const auto corrected = stats::corrected_p_values(p_values, "holm");
  double found = 0.0;
  for (std::size_t t = 0; t < tested.size(); ++t) {
    result.add(names.p_value, tested[t], corrected[t]);
    const bool below = corrected[t] < alpha;
    result.add(names.flag, tested[t], below ? 1.0 : 0.0);
    found += below ? 1.0 : 0.0;
  }
  result.add(names.count, "all", found);
}

std::vector<std::size_t> household_data_columns(const MetricInput& in) {
  std::vector<std::size_t> columns;
  for (std::size_t c = 0; c < in.confidential.column_count(); ++c)
    if (!is_design_column(in, c)) columns.push_back(c);
  return columns;
}

bool constant_within_households(const Table& table, const HouseholdGroups& groups, std::size_t c) {
  const Column& column = table.column(c);
  for (std::size_t h = 0; h < groups.households(); ++h) {
    const std::size_t first = groups.members[groups.start[h]];
    for (std::size_t i = groups.start[h] + 1; i < groups.start[h + 1]; ++i)
      if (!same_value(column, first, groups.members[i])) return false;
  }
  return true;
}

}  // namespace synthaudit::households
