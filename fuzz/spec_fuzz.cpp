// libFuzzer target for the spec parser: the bytes are written to a temporary file and read with
// load_spec, then checked with validate_spec and echoed with spec_to_json. InputError is the
// only acceptable exception; anything else, a crash, a leak or undefined behaviour is a bug.
// Built and run by scripts/run-fuzz.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "spec/spec.hpp"

using namespace synthaudit;

namespace {

const std::string& spec_path() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::atexit([] { std::remove(spec_path().c_str()); });
    return std::string(tmp ? tmp : "/tmp") + "/synthaudit_spec_fuzz_" + std::to_string(::getpid()) +
           ".yaml";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = spec_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const EvaluationSpec spec = load_spec(path);
    (void)spec_to_json(spec);
    validate_spec(spec);
  } catch (const InputError&) {
  }
  return 0;
}
