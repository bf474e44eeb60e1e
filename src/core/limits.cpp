#include "core/limits.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit {

namespace {

struct LimitField {
  const char* name;
  std::uint64_t ResourceLimits::*field;
  bool bytes;
  // The most the limit may be raised to (0: no ceiling). Nesting limits guard recursive code
  // (the formula parser, the report's JSON renderers): beyond these a deep input would exhaust an
  // 8 MiB stack however it is configured (measured: a 10,000-deep formula and a 100,000-deep
  // results document crash; 5,000 and 50,000 do not).
  std::uint64_t ceiling = 0;
};

const std::vector<LimitField>& fields() {
  static const std::vector<LimitField> all = {
      {"input_bytes", &ResourceLimits::input_bytes, true},
      {"field_bytes", &ResourceLimits::field_bytes, true},
      {"columns", &ResourceLimits::columns, false},
      {"levels", &ResourceLimits::levels, false},
      {"design_cells", &ResourceLimits::design_cells, false},
      {"formula_terms", &ResourceLimits::formula_terms, false},
      {"formula_depth", &ResourceLimits::formula_depth, false, 2000},
      {"yaml_depth", &ResourceLimits::yaml_depth, false},
      {"yaml_nodes", &ResourceLimits::yaml_nodes, false},
      {"json_depth", &ResourceLimits::json_depth, false, 10000},
      {"pipe_wait_seconds", &ResourceLimits::pipe_wait_seconds, false},
      {"memory", &ResourceLimits::memory, true},
  };
  return all;
}

// A number from a file such as cgroup's memory.max; nullopt for "max" or anything unreadable.
bool read_number_file(const char* path, std::uint64_t& out) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

const std::vector<std::string>& limit_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : fields()) out.push_back(f.name);
    return out;
  }();
  return names;
}

void set_limit(ResourceLimits& limits, const std::string& name, const std::string& value,
               const std::string& where) {
  const auto& all = fields();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const LimitField& f) { return name == f.name; });
  if (it == all.end())
    throw InputError(where + ": unknown limit '" + name + "'" + did_you_mean(name, limit_names()) +
                     "; limits: " + join(limit_names(), ", "));
  const std::string text = trim(value);
  std::uint64_t number = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  const std::string suffix(ptr, text.data() + text.size());
  auto bad = [&](const std::string& why) {
    throw InputError(where + ": limit " + name + ": '" + value + "' " + why);
  };
  if (text.empty() || ptr == text.data()) bad("is not a non-negative integer");
  if (ec == std::errc::result_out_of_range) bad("is too large");
  int shift = 0;
  if (!suffix.empty()) {
    if (!it->bytes) bad("is not a non-negative integer");
    const std::string unit = trim(suffix);
    const char c = unit.empty() ? ' ' : static_cast<char>(std::toupper(unit[0]));
    const std::string rest = unit.size() > 1 ? unit.substr(1) : "";
    shift = c == 'K' ? 10 : c == 'M' ? 20 : c == 'G' ? 30 : c == 'T' ? 40 : -1;
    if (shift < 0 || !(rest.empty() || rest == "B" || rest == "iB" || rest == "ib" || rest == "b"))
      bad("is not a size (a number of bytes, or with K, M, G or T)");
  }
  if (shift > 0 && number > (UINT64_MAX >> shift)) bad("is too large");
  if (it->ceiling > 0 && number > it->ceiling)
    bad("is above " + std::to_string(it->ceiling) +
        ", the most this limit can be raised to: deeper nesting would exhaust the stack");
  limits.*(it->field) = number << shift;
}

std::uint64_t limit_value(const ResourceLimits& limits, const std::string& name) {
  for (const auto& f : fields())
    if (name == f.name) return limits.*(f.field);
  throw std::logic_error("no limit named '" + name + "'");
}

void apply_limit_assignment(ResourceLimits& limits, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--limit: '" + assignment + "' should be NAME=VALUE, NAME one of " +
                     join(limit_names(), ", "));
  set_limit(limits, trim(assignment.substr(0, eq)), assignment.substr(eq + 1), "--limit");
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[48];
  if (unit == 0)
    std::snprintf(buffer, sizeof buffer, "%llu bytes", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(buffer, sizeof buffer, "%.3g %s", value, units[unit]);
  return buffer;
}

AvailableMemory available_memory(const ResourceLimits& limits) {
  AvailableMemory out;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  out.bytes = pages > 0 && page > 0
                  ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                  : UINT64_MAX;
  out.bound = "physical memory";
  auto consider = [&](std::uint64_t bytes, const std::string& bound) {
    if (bytes < out.bytes) {
      out.bytes = bytes;
      out.bound = bound;
    }
  };
  struct rlimit as {};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    // The address space already mapped (code, libraries, thread stacks) counts against it.
    std::uint64_t mapped_pages = 0;
    std::ifstream statm("/proc/self/statm");
    statm >> mapped_pages;
    const std::uint64_t mapped = mapped_pages * static_cast<std::uint64_t>(page > 0 ? page : 4096);
    const auto limit = static_cast<std::uint64_t>(as.rlim_cur);
    consider(limit > mapped ? limit - mapped : 0, "the address-space limit (ulimit -v)");
  }
  std::uint64_t cgroup_max = 0, cgroup_current = 0;
  if (read_number_file("/sys/fs/cgroup/memory.max", cgroup_max)) {
    read_number_file("/sys/fs/cgroup/memory.current", cgroup_current);
    consider(cgroup_max > cgroup_current ? cgroup_max - cgroup_current : 0,
             "the cgroup memory limit (memory.max)");
  } else if (read_number_file("/sys/fs/cgroup/memory/memory.limit_in_bytes", cgroup_max)) {
    read_number_file("/sys/fs/cgroup/memory/memory.usage_in_bytes", cgroup_current);
    consider(cgroup_max > cgroup_current ? cgroup_max - cgroup_current : 0,
             "the cgroup memory limit (memory.limit_in_bytes)");
  }
  if (limits.memory > 0) consider(limits.memory, "the memory budget (--memory or limits: memory)");
  return out;
}

void check_memory(std::uint64_t required, const std::string& what,
                  const AvailableMemory& available) {
  if (required <= available.bytes) return;
  throw InputError(what + " needs about " + format_bytes(required) + ", more than the " +
                   format_bytes(available.bytes) + " available (bounded by " + available.bound +
                   "); use smaller inputs or a machine with more memory (docs/limits.md)");
}

int hardware_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

}  // namespace synthaudit
