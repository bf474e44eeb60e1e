#pragma once
// Persons grouped into households by the declared household identifier column (`household:`),
// the person-level file that household surveys and censuses release (EU-SILC's db030, a census
// household number): every person row carries its household's identifier, and household-level
// variables (region, tenure, household income) are repeated on each member's row. Shared by the
// household metrics (structure, composition, disclosure).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/metric.hpp"

namespace synthaudit::households {

struct HouseholdGroups {
  // Rows of household h are members[start[h], start[h + 1]), in file order; households are in the
  // order of their first member's row. One extra entry in start.
  std::vector<std::uint32_t> members;
  std::vector<std::size_t> start;
  std::size_t without_household = 0;  // rows whose identifier is missing (in no household)

  std::size_t households() const { return start.empty() ? 0 : start.size() - 1; }
  std::size_t size(std::size_t h) const { return start[h + 1] - start[h]; }
};

// The households of `table` on its column `household` (numeric or categorical; equal identifiers
// are one household wherever their rows are).
HouseholdGroups group_households(const Table& table, std::size_t household);

// The declared household column of the confidential data, or MetricNotApplicable when none is
// declared (the household metrics need one).
std::size_t household_column(const MetricInput& in);

// The households of the confidential data and of the (first) synthetic table.
struct HouseholdsOfBoth {
  HouseholdGroups confidential, synthetic;
};
HouseholdsOfBoth households_of_both(const MetricInput& in);

// A household metric's gate (a test it makes itself, Headline::gate_names): the p-values of the
// tests named `tested`, Holm-corrected, as `p_statistic` per scope; `flag_statistic` 1 where the
// corrected p-value is below `alpha`; and their number as `count_statistic` [all].
struct GateStatistics {
  std::string p_value, flag, count;
};
void add_holm_gate(MetricResult& result, const std::vector<std::string>& tested,
                   const std::vector<double>& p_values, double alpha, const GateStatistics& names);

// The columns compared between households: every column but the design columns (weights,
// household, design:).
std::vector<std::size_t> household_data_columns(const MetricInput& in);

// Whether column `c` of `table` takes one value (missing counts as a value) within every
// household: a household-level variable such as region or household income.
bool constant_within_households(const Table& table, const HouseholdGroups& groups, std::size_t c);

// Exact equality of two cells of one column (missing equals missing).
inline bool same_value(const Column& column, std::size_t a, std::size_t b) {
  if (column.is_numeric()) {
    const double x = column.numeric[a], y = column.numeric[b];
    return x == y || (is_missing(x) && is_missing(y));
  }
  return column.codes[a] == column.codes[b];
}

}  // namespace synthaudit::households
