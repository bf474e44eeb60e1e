#pragma once
// Plain byte serialisation for messages between the ranks of one job (core/communicator.hpp).
// Both ends are the same build on the same kind of machine, so numbers are written in memory
// order; every read is bounds-checked, so a short or corrupt message throws instead of reading
// past its end.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace synthaudit {

class ByteWriter {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put_string(std::string_view text) {
    put<std::uint64_t>(text.size());
    bytes_.append(text);
  }
  template <typename T>
  void put_vector(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(values.size());
    bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  void put_strings(const std::vector<std::string>& values) {
    put<std::uint64_t>(values.size());
    for (const auto& v : values) put_string(v);
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

// Reads from bytes it does not own: they must outlive the reader (never a temporary).
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  explicit ByteReader(std::string&&) = delete;
  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof value).data(), sizeof value);
    return value;
  }
  std::string get_string() {
    const auto size = get<std::uint64_t>();
    return std::string(take(size));
  }
  template <typename T>
  std::vector<T> get_vector() {
    const auto size = get<std::uint64_t>();
    if (size > bytes_.size() / sizeof(T)) throw std::runtime_error("short message between ranks");
    std::vector<T> values(size);
    const auto raw = take(size * sizeof(T));
    if (size > 0) std::memcpy(values.data(), raw.data(), raw.size());
    return values;
  }
  std::vector<std::string> get_strings() {
    const auto size = get<std::uint64_t>();
    if (size > bytes_.size() / sizeof(std::uint64_t))
      throw std::runtime_error("short message between ranks");
    std::vector<std::string> values;
    values.reserve(size);
    for (std::uint64_t i = 0; i < size; ++i) values.push_back(get_string());
    return values;
  }
  bool done() const { return bytes_.empty(); }

 private:
  std::string_view take(std::size_t size) {
    if (size > bytes_.size()) throw std::runtime_error("short message between ranks");
    const auto out = bytes_.substr(0, size);
    bytes_.remove_prefix(size);
    return out;
  }
  std::string_view bytes_;
};

}  // namespace synthaudit
