#include "metrics/partial_state.hpp"

#include <cstring>
#include <stdexcept>

namespace synthaudit {

namespace {

template <typename T>
void append_raw(std::string& bytes, const T& value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.append(raw, sizeof(T));
}

template <typename T>
T read_raw(std::string_view raw) {
  T value;
  std::memcpy(&value, raw.data(), sizeof(T));
  return value;
}

template <typename T>
void add_vectors(std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size())
    throw std::logic_error("partition states of different lengths: " + std::to_string(a.size()) +
                           " and " + std::to_string(b.size()));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
}

}  // namespace

void StateWriter::u64(std::uint64_t value) { append_raw(bytes_, value); }
void StateWriter::f64(double value) { append_raw(bytes_, value); }

void StateWriter::str(std::string_view value) {
  u64(value.size());
  bytes_.append(value);
}

void StateWriter::u64s(const std::vector<std::uint64_t>& values) {
  u64(values.size());
  for (auto v : values) u64(v);
}

void StateWriter::f64s(const std::vector<double>& values) {
  u64(values.size());
  for (auto v : values) f64(v);
}

std::string_view StateReader::take(std::size_t count) {
  if (count > bytes_.size() - offset_)
    throw std::logic_error("partition state ends early: " + std::to_string(count) +
                           " bytes wanted at offset " + std::to_string(offset_) + " of " +
                           std::to_string(bytes_.size()));
  const auto raw = bytes_.substr(offset_, count);
  offset_ += count;
  return raw;
}

std::uint64_t StateReader::u64() { return read_raw<std::uint64_t>(take(sizeof(std::uint64_t))); }
double StateReader::f64() { return read_raw<double>(take(sizeof(double))); }

std::string StateReader::str() {
  const auto size = u64();
  return std::string(take(size));
}

std::vector<std::uint64_t> StateReader::u64s() {
  std::vector<std::uint64_t> values(u64());
  for (auto& v : values) v = u64();
  return values;
}

std::vector<double> StateReader::f64s() {
  std::vector<double> values(u64());
  for (auto& v : values) v = f64();
  return values;
}

void StateReader::expect_end() const {
  if (offset_ != bytes_.size())
    throw std::logic_error("partition state has " + std::to_string(bytes_.size() - offset_) +
                           " unread bytes");
}

void add_into(std::vector<double>& a, const std::vector<double>& b) { add_vectors(a, b); }
void add_into(std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  add_vectors(a, b);
}

}  // namespace synthaudit
