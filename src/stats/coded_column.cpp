#include "stats/coded_column.hpp"

namespace synthaudit::stats {

CodedColumn code_categorical(const std::vector<const Column*>& tables,
                             const std::string& missing_label, bool missing_level_always) {
  CodedColumn out;
  if (tables.empty()) return out;
  const Column& first = *tables.front();
  out.name = first.name;
  const auto missing = static_cast<std::uint32_t>(first.cardinality());
  for (std::uint32_t k = 0; k < missing; ++k) out.labels.push_back(first.dictionary->level(k));
  bool any_missing = false;
  out.codes.resize(tables.size());
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const auto& codes = tables[t]->codes;
    auto& dst = out.codes[t];
    dst.resize(codes.size());
    for (std::size_t r = 0; r < codes.size(); ++r) {
      const bool is_na = is_missing(codes[r]);
      any_missing |= is_na;
      dst[r] = is_na ? missing : codes[r];
    }
  }
  if (any_missing || missing_level_always) {
    out.missing_level = missing;
    out.labels.push_back(missing_label);
  }
  return out;
}

}  // namespace synthaudit::stats
