#pragma once
// The tables of a partitioned evaluation (docs/mpi.md) as one rank sees them. Every input file is
// split into consecutive row ranges, one per rank, in file order; a rank holds its range of every
// table, encoded with the dictionaries all ranks agreed on, so column i and code c mean the same
// on every rank. Tables are named the same way on every rank, which is how a request from the
// root (core/cluster.hpp) says which table it is about:
//   "confidential", "holdout", "synthetic/<candidate>/<replicate>" (replicate 1-based).
#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "table/table.hpp"

namespace synthaudit {

std::string synthetic_table_id(const std::string& candidate, std::size_t replicate);

struct PartitionedTable {
  const Table* rows = nullptr;  // this rank's rows
  std::size_t first_row = 0;    // 0-based position of rows' first row in the whole table
  std::size_t total_rows = 0;   // rows of the whole table, all ranks together
};

class PartitionDirectory {
 public:
  // This rank's share of table `id`.
  void add(const std::string& id, PartitionedTable table) { parts_[id] = table; }
  void remove(const std::string& id) { parts_.erase(id); }
  const PartitionedTable& find(std::string_view id) const {
    const auto it = parts_.find(id);
    if (it == parts_.end())
      throw std::logic_error("partitioned evaluation: no table '" + std::string(id) + "'");
    return it->second;
  }
  // On the root: a whole (gathered) table and its id, so that a request the root makes about a
  // Table it holds can name it for the other ranks.
  // Without whole tables (a run that gathers none), the root registers its own partitions here:
  // they stand for the whole tables in the evaluation.
  void add_whole(const Table& whole, const std::string& id) { whole_ids_[&whole] = id; }
  void remove_whole(const Table& whole) { whole_ids_.erase(&whole); }
  std::optional<std::string> id_of(const Table& whole) const {
    const auto it = whole_ids_.find(&whole);
    if (it == whole_ids_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, PartitionedTable, std::less<>> parts_;
  std::map<const Table*, std::string> whole_ids_;
};

}  // namespace synthaudit
