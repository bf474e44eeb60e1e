#include "metrics/gathered_state.hpp"

#include <stdexcept>

namespace synthaudit {

namespace {

constexpr std::uint64_t kMerged = 0x6d65726765643031ull;    // "merged01"
constexpr std::uint64_t kGathered = 0x6761746865723031ull;  // "gather01"

void write_rows(StateWriter& out, const Table& table) {
  out.u64(table.rows());
  for (const Column& column : table.columns()) {
    if (column.is_numeric()) {
      out.f64s(column.numeric);
    } else {
      out.u64s({column.codes.begin(), column.codes.end()});
    }
    out.u64s({column.missing_code_index.begin(), column.missing_code_index.end()});
  }
}

// Appends the rows a state holds for one table to `columns` (laid out as `schema`'s).
void append_rows(StateReader& in, const Table& schema, std::vector<Column>& columns) {
  in.u64();  // rows: every column's length says it again
  for (std::size_t c = 0; c < schema.column_count(); ++c) {
    Column& to = columns[c];
    if (schema.column(c).is_numeric()) {
      const auto values = in.f64s();
      to.numeric.insert(to.numeric.end(), values.begin(), values.end());
    } else {
      for (auto code : in.u64s()) to.codes.push_back(static_cast<std::uint32_t>(code));
    }
    for (auto index : in.u64s()) to.missing_code_index.push_back(static_cast<std::uint8_t>(index));
  }
}

std::vector<Column> empty_like(const Table& schema) {
  std::vector<Column> columns;
  for (const Column& from : schema.columns()) {
    Column to;
    to.name = from.name;
    to.kind = from.kind;
    to.dictionary = from.dictionary;
    to.missing_codes = from.missing_codes;
    columns.push_back(std::move(to));
  }
  return columns;
}

std::uint64_t kind_of(const std::string& state) {
  StateReader in(state);
  return in.u64();
}

}  // namespace

StateWriter begin_merged_state() {
  StateWriter out;
  out.u64(kMerged);
  return out;
}

StateReader open_merged_state(const std::string& state) {
  StateReader in(state);
  if (in.u64() != kMerged) throw std::logic_error("not a merged partition state");
  return in;
}

std::string gathered_state(const MetricInput& partition) {
  StateWriter out;
  out.u64(kGathered);
  write_rows(out, partition.confidential);
  for (const Table* table : partition.synthetic) write_rows(out, *table);
  if (partition.holdout != nullptr) write_rows(out, *partition.holdout);
  return out.take();
}

std::optional<MetricResult> finalize_if_gathered(const std::vector<std::string>& states,
                                                 const MetricInput& schema, const Params& params,
                                                 const ComputeFn& compute) {
  std::size_t gathered = 0;
  for (const auto& state : states) gathered += kind_of(state) == kGathered;
  if (gathered == 0) return std::nullopt;
  if (gathered != states.size())
    throw std::logic_error("partition states of a metric are of mixed kinds");
  std::vector<const Table*> schemas = {&schema.confidential};
  for (const Table* table : schema.synthetic) schemas.push_back(table);
  if (schema.holdout != nullptr) schemas.push_back(schema.holdout);
  std::vector<std::vector<Column>> columns;
  for (const Table* table : schemas) columns.push_back(empty_like(*table));
  for (const auto& state : states) {
    StateReader in(state);
    in.u64();
    for (std::size_t t = 0; t < schemas.size(); ++t) append_rows(in, *schemas[t], columns[t]);
    in.expect_end();
  }
  std::vector<Table> tables;
  for (std::size_t t = 0; t < schemas.size(); ++t)
    tables.emplace_back(schemas[t]->source(), std::move(columns[t]));
  std::vector<const Table*> synthetic;
  for (std::size_t s = 0; s < schema.synthetic.size(); ++s) synthetic.push_back(&tables[1 + s]);
  const Table* holdout = schema.holdout != nullptr ? &tables.back() : nullptr;
  const MetricInput whole{tables.front(), synthetic,        holdout,
                          schema.context, schema.candidate, schema.seed};
  return compute(whole, params);
}

}  // namespace synthaudit
