#pragma once
// The one-line message that bad input gets, caught in a test.
#include <string>

#include "core/error.hpp"

namespace synthaudit::testing {

// The InputError message of `fn`, or "" when it does not throw InputError.
template <typename F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace synthaudit::testing
