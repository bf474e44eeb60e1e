#include <filesystem>

#include "core/error.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "result/document.hpp"

namespace synthaudit {

std::string render_saved_report(const nlohmann::json& document, const std::string& format,
                                const std::string& source) {
  try {
    if (format == "html") return render_html(document);
    if (format == "md") return render_markdown(document);
    if (format == "tsv") return results_tsv(document);
    if (format == "text") {
      const std::filesystem::path folder = std::filesystem::path(source).parent_path();
      return render_summary(
          document, {source, (folder / "results.tsv").string(), (folder / "report.html").string()});
    }
  } catch (const nlohmann::json::exception& e) {
    // The renderers trust the shape evaluate writes; a hand-made or damaged file may not have it.
    throw InputError(source + ": not a results document evaluate wrote (" + e.what() + ")");
  }
  throw InputError(source + ": unknown report format '" + format + "'");
}

}  // namespace synthaudit
