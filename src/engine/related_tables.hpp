#pragma once
// Related tables (the spec's `tables:`, docs/config.md "Households and related tables"): every
// dataset (the confidential data, the holdout, each replicate) is a folder holding one file per
// table (TABLE.csv, or any format the readers take). Each table is read as a dataset of its own,
// every relation is checked in every dataset (duplicate keys, orphans, missing foreign keys,
// childless parents, children per parent against the confidential data), and the tables are
// joined into one record per row of the last table carrying its ancestors' columns (a person with
// its household's): the data every metric runs on, with the root's key as the household column.
#include "engine/evaluate.hpp"

namespace synthaudit {

// The evaluation data of a spec with tables: the joined tables, with data.relations (each
// relation's counts per dataset) and data.relation_findings (a candidate with orphans, missing
// foreign keys or duplicate keys that the confidential data do not have fails).
EvaluationData load_related_evaluation_data(const EvaluationSpec& spec);

// The file of `table` in the dataset folder `folder` (`what` names the dataset in messages).
std::string table_file(const std::string& folder, const std::string& table,
                       const std::string& what);

}  // namespace synthaudit
