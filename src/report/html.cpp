// The self-contained HTML report: a page skeleton, the embedded JSON and the inlined scripts.
// All presentation (tables, Vega-Lite templates per plot kind) lives in report/src/report.js.
#include <string>
#include <string_view>

#include "report/assets.hpp"
#include "report/report.hpp"

namespace synthaudit {

namespace {

// JSON inside <script type="application/json">: '<', '>' and '&' only occur inside JSON strings,
// where their \u escapes mean the same, so "</script>" in a metric's doc cannot end the element.
std::string json_for_script(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 50);
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A bundle inlined in <script>: without its source-map comment (the map is not beside the page),
// and with "</script" and "<!--" neutralised (both only legal inside JS strings, regexes and
// comments, where "<\/" and "<\!" read the same).
std::string script_text(std::string_view js) {
  std::string text(js);
  const auto map = text.rfind("//# sourceMappingURL=");
  if (map != std::string::npos) {
    const auto eol = text.find('\n', map);
    text.erase(map, eol == std::string::npos ? std::string::npos : eol - map);
  }
  auto replace_all = [&](std::string_view from, std::string_view to) {
    for (std::size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size())
      text.replace(pos, from.size(), to);
  };
  replace_all("</script", "<\\/script");
  replace_all("</SCRIPT", "<\\/SCRIPT");
  replace_all("<!--", "<\\!--");
  return text;
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string render_html(const nlohmann::json& document) {
  using namespace report_assets;
  const nlohmann::json card = scorecard(document);
  const nlohmann::json shown = summarise_for_report(document);
  std::string title = "synthaudit report";
  if (document.contains("candidates") && document["candidates"].is_array())
    title += " \xe2\x80\x94 " + std::to_string(document["candidates"].size()) + " candidate(s)";

  std::string html;
  html.reserve(kVegaJs_size + kVegaLiteJs_size + kVegaEmbedJs_size + kReportJs_size + 4096 +
               shown.dump().size());
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // Offline by construction: the page may load nothing from anywhere. Vega compiles its
  // expressions with the Function constructor, hence 'unsafe-eval'.
  html +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
      "img-src data: blob:; font-src data:\">\n";
  html += "<meta name=\"generator\" content=\"synthaudit\">\n";
  html += "<title>" + html_escape(title) + "</title>\n<style>\n";
  html += view(kReportCss, kReportCss_size);
  html += "\n</style>\n</head>\n<body>\n";
  html +=
      "<noscript><p>This report draws its tables and plots with JavaScript; please allow "
      "scripts for this file. The numbers are also in results.json and "
      "results.tsv.</p></noscript>\n";
  html += "<div id=\"app\"><p class=\"loading\">Loading the report\xe2\x80\xa6</p></div>\n";
  html += "<script type=\"application/json\" id=\"synthaudit-results\">" + json_for_script(shown) +
          "</script>\n";
  html += "<script type=\"application/json\" id=\"synthaudit-scorecard\">" + json_for_script(card) +
          "</script>\n";
  for (std::string_view js :
       {view(kVegaJs, kVegaJs_size), view(kVegaLiteJs, kVegaLiteJs_size),
        view(kVegaEmbedJs, kVegaEmbedJs_size), view(kReportJs, kReportJs_size)}) {
    html += "<script>\n";
    html += script_text(js);
    html += "\n</script>\n";
  }
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace synthaudit
