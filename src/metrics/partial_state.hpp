#pragma once
// The byte layout of mergeable metric states (MergeableForm in metric.hpp): a partition writes
// its sufficient statistics with StateWriter, the merging process reads them back with
// StateReader in the same order. Both ends are the same build, so the layout is the native
// representation of each value; a reader that runs past the end or leaves bytes unread is a
// programming error (std::logic_error), never an input error.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/wire_bytes.hpp"

namespace synthaudit {

class StateWriter {
 public:
  void u64(std::uint64_t value);
  void f64(double value);
  void boolean(bool value) { u64(value ? 1 : 0); }
  void str(std::string_view value);
  void u64s(const std::vector<std::uint64_t>& values);
  void f64s(const std::vector<double>& values);
  std::string take() { return wire_.take(); }

 private:
  WireWriter wire_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view bytes) : wire_(bytes, "partition state") {}
  std::uint64_t u64();
  double f64();
  bool boolean() { return u64() != 0; }
  std::string str();
  std::vector<std::uint64_t> u64s();
  std::vector<double> f64s();
  // Throws std::logic_error unless every byte was read.
  void expect_end() const;

 private:
  // Runs a read, turning the wire's error into a programming error (see above).
  template <typename Read>
  auto checked(Read read);
  WireReader wire_;
};

// Element-wise a += b; the two must have the same length (std::logic_error otherwise), except
// that an empty `a` (nothing merged yet) becomes b: merging starts from the first partition's.
void add_into(std::vector<double>& a, const std::vector<double>& b);
void add_into(std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);

}  // namespace synthaudit
