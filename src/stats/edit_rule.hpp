#pragma once
// Edit rules: conditions every record (or every group of records) of a data set should meet, as
// subject-matter experts state them ("a person under 16 has no labour status", "one region per
// household"). A rule is parsed and type-checked against a table's columns once, before any data
// are read through it, and then counted on any table with those columns: the records it applies
// to, those that break it, and those with a missing value in a column it reads.
//
// The expression language (docs/config.md, "Edit rules"): column names (`name`, or `` `a name` ``
// in backquotes), numbers, quoted text ("a" or 'a'), + - * /, == != < <= > >=, & | ! (&& and ||
// too), parentheses, `x in ("a", "b")`, is_missing(x); in group rules n(), n_distinct(x), sum(x),
// min(x), max(x), mean(x), any(cond) and all(cond) over the group's records. A comparison with a
// missing value is false; arithmetic with one is missing. Categorical columns compare with quoted
// text by ==, != and in; numeric columns with numbers.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "table/table.hpp"

namespace synthaudit::stats {

// A rule as declared (the spec's `rules:`), before it is checked against the data.
struct EditRuleSpec {
  std::string name;
  std::string when;                   // "" = the rule applies to every record (or group)
  std::string then;                   // must hold where `when` holds
  std::string severity = "error";     // "error" or "warning"
  std::vector<std::string> group_by;  // empty: a rule over records; else over these groups
  std::string where;                  // the declaration, for messages: "spec.yaml: rules[2]"
};

inline const std::vector<std::string> kRuleSeverities = {"error", "warning"};

// One rule counted on one table.
struct RuleCount {
  std::size_t applies = 0;       // records (groups) where `when` holds
  std::size_t violations = 0;    // of those, where `then` does not hold
  std::size_t with_missing = 0;  // of those applying, with a missing value in a column read
  // Rows (0-based) of the first violating records, or the first row of each violating group,
  // in row order; at most the number asked for.
  std::vector<std::size_t> examples;
};

class EditRule {
 public:
  // Parses `spec` and checks it against the columns of `schema` (names and kinds). Throws
  // InputError naming the rule's declaration, the key (when, then, group_by) and the position:
  // "spec.yaml: rules[0] ('status_from_16').then: at position 1: no column 'pl03' (did you mean
  // 'pl030'?)".
  static EditRule compile(const EditRuleSpec& spec, const Table& schema);

  // Counts the rule on `table` (the schema's columns, in the same order and of the same kinds),
  // keeping up to `examples` violating rows.
  RuleCount count(const Table& table, std::size_t examples = 0) const;

  const EditRuleSpec& spec() const { return spec_; }
  bool over_groups() const { return !group_columns_.empty(); }
  // The columns the rule reads (its expressions and group_by), by index, without repeats.
  const std::vector<std::size_t>& columns() const { return columns_; }

  struct Node;

 private:
  EditRuleSpec spec_;
  std::shared_ptr<const Node> when_, then_;  // when_ null: always
  std::vector<std::size_t> group_columns_;
  std::vector<std::size_t> columns_;
};

}  // namespace synthaudit::stats
