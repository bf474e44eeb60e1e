#pragma once
// Key encoding and group-by counting for disclosure measures by key matching. Every column of a
// key (or target) becomes dense integer levels shared by all tables of an evaluation; a key set
// becomes one dense group id per record (mixed radix while the product of cardinalities is
// small, an exact hash densification otherwise), and every count is one pass over the ids.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/coded_column.hpp"
#include "table/table.hpp"

namespace synthaudit::stats {

// How a numeric column becomes levels.
enum class NumericCoding {
  kExact,       // each distinct value is a level (synthpop disclosure() without ngroups)
  kQuantile,    // `bins` quantile bins (R type-7 quantiles of the reference table), (a, b]
  kEqualWidth,  // `bins` equal-width bins over the reference table's range, outer bins open
                // (pandas.cut as SDMetrics' DisclosureProtection does), (a, b]
  kBreaks,      // user breaks b1 < b2 < ...: (−inf, b1], (b1, b2], ..., (bk, inf)
};

struct CodingOptions {
  NumericCoding numeric = NumericCoding::kExact;
  int bins = 5;
  std::vector<double> breaks;
};

// Codes column `column` of every table (same schema) into levels: categorical levels in
// dictionary order, or numeric values / intervals in increasing order; then, when any table has a
// missing value, the level "Missing" (`missing_level`, the last one). Break points of quantile /
// equal-width bins come from tables[reference].
CodedColumn code_column(const std::vector<const Table*>& tables, std::size_t column,
                        const CodingOptions& options, std::size_t reference = 0);

// Dense ids of the combination of several coded columns, shared by all tables: ids[table][row]
// in 0..groups-1; equal ids mean equal levels in every part. `parts` must code the same tables.
struct GroupIds {
  std::vector<std::vector<std::uint32_t>> ids;
  std::uint32_t groups = 0;
};
GroupIds combine_codes(const std::vector<const std::vector<std::vector<std::uint32_t>>*>& parts,
                       const std::vector<std::uint32_t>& cardinalities);
GroupIds combine(const std::vector<const CodedColumn*>& parts);

// Pairs (a, b) of two group codings of the same tables as one dense id; first_of / second_of map
// a pair id back to its parts.
struct PairIds {
  GroupIds pairs;
  std::vector<std::uint32_t> first_of, second_of;
};
PairIds combine_pair(const GroupIds& a, const GroupIds& b);

// counts[g] = number of rows of `ids` with id g, g < groups.
std::vector<std::uint32_t> count_ids(const std::vector<std::uint32_t>& ids, std::uint32_t groups);

// Column indices of `names` in `table`; InputError naming `what` (e.g. "disclosure key") and the
// unknown column with a did-you-mean hint.
std::vector<std::size_t> resolve_columns(const Table& table, const std::vector<std::string>& names,
                                         const std::string& what);

// Numbers from text ("1.5"), InputError naming `what` otherwise; sorted strictly increasing.
std::vector<double> parse_breaks(const std::vector<std::string>& text, const std::string& what);

}  // namespace synthaudit::stats
