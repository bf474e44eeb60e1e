#include "engine/partition.hpp"

namespace synthaudit {

std::string synthetic_table_id(const std::string& candidate, std::size_t replicate) {
  return "synthetic/" + candidate + "/" + std::to_string(replicate);
}

}  // namespace synthaudit
