#pragma once
// Resource limits of one run (docs/limits.md). Every input is checked against them before the
// work they bound, so hostile or accidental input (a gzip bomb, a 200 MB field, an identifier
// read as a factor, a 5,000-deep formula) ends in a one-line InputError instead of a crash, a
// hang or an exhausted machine. The defaults suit a 24 GB machine; each has a name that
// `--limit NAME=VALUE` and the spec's `limits:` block raise or lower.
#include <cstdint>
#include <string>
#include <vector>

namespace synthaudit {

struct ResourceLimits {
  // Bytes of one input file's text (after gzip decompression; also bounds pipes).
  std::uint64_t input_bytes = std::uint64_t{8} << 30;
  // Bytes of one CSV field.
  std::uint64_t field_bytes = std::uint64_t{1} << 20;
  // Columns of one CSV file.
  std::uint64_t columns = 1000;
  // Distinct levels of one categorical column; a column with more is an identifier, excluded
  // from every metric with a warning.
  std::uint64_t levels = 10000;
  // Cells (rows × columns) of the design matrix of one lm/glm analysis.
  std::uint64_t design_cells = 200'000'000;
  // Terms of one formula (a 12-way interaction a*b*...*l has 4,095).
  std::uint64_t formula_terms = 1000;
  // Nesting depth of one formula (parentheses, function calls, unary signs).
  std::uint64_t formula_depth = 100;
  // Nesting depth of a YAML spec or policy, and the nodes its aliases may expand to.
  std::uint64_t yaml_depth = 64;
  std::uint64_t yaml_nodes = 100'000;
  // Nesting depth of a JSON document read (SDV metadata, a results document for `report`).
  std::uint64_t json_depth = 128;
  // Seconds to wait for a process to open a named FIFO for writing (a pipe whose writer is there
  // is read without a time limit).
  std::uint64_t pipe_wait_seconds = 10;
  // Memory budget in bytes; 0: none beyond what the machine and the process limits allow.
  std::uint64_t memory = 0;
};

// The names `--limit` and `limits:` accept, in the order of docs/limits.md.
const std::vector<std::string>& limit_names();

// Sets one limit from text: a non-negative integer, with an optional binary suffix K, M, G or T
// for the byte limits (input_bytes, field_bytes, memory). Throws InputError naming `where` and
// the limit (with a did-you-mean for an unknown name).
void set_limit(ResourceLimits& limits, const std::string& name, const std::string& value,
               const std::string& where);

// The value of a limit by name (one of limit_names()).
std::uint64_t limit_value(const ResourceLimits& limits, const std::string& name);

// Applies "NAME=VALUE" (the `--limit` flag).
void apply_limit_assignment(ResourceLimits& limits, const std::string& assignment);

// A byte count as text: "1.5 GiB".
std::string format_bytes(std::uint64_t bytes);

// The memory this process may still use, and what bounds it: the smallest of physical memory,
// the address-space limit (ulimit -v) less what the process has mapped already, the cgroup's
// memory.max less its current use, and limits.memory (when not 0).
struct AvailableMemory {
  std::uint64_t bytes = 0;
  std::string bound;  // "physical memory", "the address-space limit (ulimit -v)", ...
};
AvailableMemory available_memory(const ResourceLimits& limits);

// Throws InputError when `required` bytes exceed `available`: "<what> needs about 9.1 GiB, more
// than the 4 GiB available (bounded by ...); ...".
void check_memory(std::uint64_t required, const std::string& what,
                  const AvailableMemory& available);

// Threads of this machine (at least 1).
int hardware_threads();

}  // namespace synthaudit
