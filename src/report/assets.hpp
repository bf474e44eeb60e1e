#pragma once
// Files compiled into the binary by cmake/report_assets.cmake (generated report_assets.cpp).
#include <cstddef>
#include <string_view>

namespace synthaudit::report_assets {

extern const unsigned char kVegaJs[];
extern const std::size_t kVegaJs_size;
extern const unsigned char kVegaLiteJs[];
extern const std::size_t kVegaLiteJs_size;
extern const unsigned char kVegaEmbedJs[];
extern const std::size_t kVegaEmbedJs_size;
extern const unsigned char kReportJs[];
extern const std::size_t kReportJs_size;
extern const unsigned char kReportCss[];
extern const std::size_t kReportCss_size;

inline std::string_view view(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace synthaudit::report_assets
