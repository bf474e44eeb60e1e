#pragma once
// Plain bytes between the ranks of one partitioned evaluation (core/communicator.hpp): values as
// they lie in memory, vectors and strings behind their length. Both ends run the same build on
// the same kind of machine, so no byte order or layout is negotiated; a reader that runs out of
// bytes, or finishes with bytes left, throws std::runtime_error naming what it was reading.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace synthaudit {

class WireWriter {
 public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  template <class T>
  void put_vector(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(values.size());
    bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  void put_string(std::string_view text) {
    put<std::uint64_t>(text.size());
    bytes_.append(text);
  }
  void put_strings(const std::vector<std::string>& values) {
    put<std::uint64_t>(values.size());
    for (const auto& value : values) put_string(value);
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class WireReader {
 public:
  // `what` names the message in the error (a string literal: it is kept, not copied).
  explicit WireReader(std::string_view bytes, const char* what = "message between ranks")
      : bytes_(bytes), what_(what) {}
  explicit WireReader(std::string&&, const char* = nullptr) = delete;  // would dangle
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    if (bytes_.size() - at_ < sizeof(T)) fail();
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  template <class T>
  std::vector<T> get_vector() {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto count = get<std::uint64_t>();
    if (count > (bytes_.size() - at_) / sizeof(T)) fail();
    std::vector<T> values(static_cast<std::size_t>(count));
    if (count > 0) std::memcpy(values.data(), bytes_.data() + at_, values.size() * sizeof(T));
    at_ += values.size() * sizeof(T);
    return values;
  }
  std::string get_string() {
    const auto count = get<std::uint64_t>();
    if (count > bytes_.size() - at_) fail();
    std::string text(bytes_.substr(at_, static_cast<std::size_t>(count)));
    at_ += text.size();
    return text;
  }
  std::vector<std::string> get_strings() {
    const auto count = get<std::uint64_t>();
    if (count > (bytes_.size() - at_) / sizeof(std::uint64_t)) fail();
    std::vector<std::string> values;
    values.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) values.push_back(get_string());
    return values;
  }
  bool done() const { return at_ == bytes_.size(); }
  void finish() const {
    if (at_ != bytes_.size()) fail();
  }

 private:
  [[noreturn]] void fail() const {
    throw std::runtime_error(std::string("malformed ") + what_ + " bytes");
  }
  std::string_view bytes_;
  const char* what_;
  std::size_t at_ = 0;
};

}  // namespace synthaudit
