// libFuzzer target for what `synthaudit report` does with a results.json it is given: the
// document reader (read_results_document: JSON, depth, schema tag), then every rendering of it
// (HTML report, Markdown, the terminal summary, results.tsv rows, the verdict's exit decision),
// through render_saved_report, the function the command calls. InputError is the only
// acceptable exception: a malformed document is bad input, never a crash or an internal error.
// Built and run by scripts/run-fuzz.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "report/report.hpp"
#include "result/document.hpp"

using namespace synthaudit;

namespace {

const std::string& document_path() {
  // Never destroyed: the exit handler below reads it after static destructors have run.
  static const std::string* const path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::atexit([] { std::remove(document_path().c_str()); });
    return new std::string(std::string(tmp ? tmp : "/tmp") + "/synthaudit_results_fuzz_" +
                           std::to_string(::getpid()) + ".json");
  }();
  return *path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = document_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const nlohmann::json document = read_results_document(path);
    for (const char* format : {"html", "md", "text", "tsv"})
      (void)render_saved_report(document, format, path);
  } catch (const InputError&) {
  }
  return 0;
}
