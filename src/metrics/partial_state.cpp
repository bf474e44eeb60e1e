#include "metrics/partial_state.hpp"

#include <stdexcept>

namespace synthaudit {

namespace {

template <typename T>
void add_vectors(std::vector<T>& a, const std::vector<T>& b) {
  if (a.empty()) {
    a = b;
    return;
  }
  if (a.size() != b.size())
    throw std::logic_error("partition states of different lengths: " + std::to_string(a.size()) +
                           " and " + std::to_string(b.size()));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
}

}  // namespace

void StateWriter::u64(std::uint64_t value) { wire_.put(value); }
void StateWriter::f64(double value) { wire_.put(value); }
void StateWriter::str(std::string_view value) { wire_.put_string(value); }
void StateWriter::u64s(const std::vector<std::uint64_t>& values) { wire_.put_vector(values); }
void StateWriter::f64s(const std::vector<double>& values) { wire_.put_vector(values); }

template <typename Read>
auto StateReader::checked(Read read) {
  try {
    return read();
  } catch (const std::runtime_error& error) {
    throw std::logic_error(error.what());
  }
}

std::uint64_t StateReader::u64() {
  return checked([&] { return wire_.get<std::uint64_t>(); });
}
double StateReader::f64() {
  return checked([&] { return wire_.get<double>(); });
}
std::string StateReader::str() {
  return checked([&] { return wire_.get_string(); });
}
std::vector<std::uint64_t> StateReader::u64s() {
  return checked([&] { return wire_.get_vector<std::uint64_t>(); });
}
std::vector<double> StateReader::f64s() {
  return checked([&] { return wire_.get_vector<double>(); });
}
void StateReader::expect_end() const {
  if (!wire_.done()) throw std::logic_error("partition state has unread bytes");
}

void add_into(std::vector<double>& a, const std::vector<double>& b) { add_vectors(a, b); }
void add_into(std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  add_vectors(a, b);
}

}  // namespace synthaudit
