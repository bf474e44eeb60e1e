// synthaudit_docgen: keeps docs/metrics.md's generated blocks equal to the metric registry, and
// docs/options.md's option table equal to the option declarations (spec/options.hpp).
//   synthaudit_docgen --write docs/metrics.md   regenerate the blocks in place (`make docs`)
//   synthaudit_docgen --check docs/metrics.md   exit 1 when the file differs (ctest
//   docs_up_to_date)
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "metrics/registry_docs.hpp"
#include "result/output_files.hpp"
#include "spec/options.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw synthaudit::InputError(path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first line where two texts differ, 1-based, for the check's message.
std::size_t first_difference(const std::string& a, const std::string& b) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] != b[i]) return line;
    if (a[i] == '\n') ++line;
  }
  return line;
}

// docs/options.md: the text between the two markers is the option table.
std::string regenerate_option_docs(const std::string& current, const std::string& path) {
  const std::string begin = "<!-- generated: options -->\n", end = "<!-- end generated -->";
  const auto from = current.find(begin);
  const auto to = current.find(end, from == std::string::npos ? 0 : from);
  if (from == std::string::npos || to == std::string::npos)
    throw synthaudit::InputError(path + ": no '" + begin.substr(0, begin.size() - 1) + "' ... '" +
                                 end + "' block");
  return current.substr(0, from + begin.size()) + synthaudit::options_markdown() +
         current.substr(to);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: synthaudit_docgen --write|--check docs/metrics.md|docs/options.md";
  if (argc != 3 || (std::string(argv[1]) != "--write" && std::string(argv[1]) != "--check")) {
    std::cerr << usage << "\n";
    return 2;
  }
  const std::string mode = argv[1], path = argv[2];
  try {
    const std::string current = read_file(path);
    const bool options = path.ends_with("options.md");
    const std::string generated = options ? regenerate_option_docs(current, path)
                                          : synthaudit::regenerate_metric_docs(current, path);
    if (mode == "--write") {
      if (generated != current) synthaudit::write_file_atomic(path, generated);
      std::cout << path << (generated == current ? ": up to date\n" : ": regenerated\n");
      return 0;
    }
    if (generated != current) {
      std::cerr << path << ":" << first_difference(current, generated)
                << ": differs from what the metric registry generates; run `make docs` and "
                   "commit the result\n";
      return 1;
    }
    std::cout << path
              << (options ? ": up to date with the option declarations\n"
                          : ": up to date with the metric registry\n");
    return 0;
  } catch (const synthaudit::InputError& e) {
    std::cerr << "synthaudit_docgen: error: " << e.what() << "\n";
    return 2;
  }
}
