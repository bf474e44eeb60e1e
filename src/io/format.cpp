#include "io/format.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include "core/error.hpp"

namespace synthaudit {

namespace {

bool starts_with(std::string_view bytes, std::string_view prefix) {
  return bytes.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view bytes, std::string_view needle) {
  return bytes.find(needle) != std::string_view::npos;
}

// Stata 5 to 12 (formats 104 to 115): the format number, the byte order (1 or 2), file type 1
// and a zero byte; Stata 13 and later (117 to 119) start with an XML-like tag.
bool is_stata(std::string_view b) {
  if (starts_with(b, "<stata_dta>")) return true;
  if (b.size() < 4) return false;
  const auto version = static_cast<unsigned char>(b[0]);
  static constexpr std::array<unsigned char, 8> kVersions = {104, 105, 108, 110,
                                                             111, 113, 114, 115};
  return std::find(kVersions.begin(), kVersions.end(), version) != kVersions.end() &&
         (b[1] == 1 || b[1] == 2) && b[2] == 1 && b[3] == 0;
}

bool is_sas7bdat(std::string_view b) {
  static constexpr unsigned char kMagic[32] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                               0x00, 0x00, 0x00, 0x00, 0xc2, 0xea, 0x81, 0x60,
                                               0xb3, 0x14, 0x11, 0xcf, 0xbd, 0x92, 0x08, 0x00,
                                               0x09, 0xc7, 0x31, 0x8c, 0x18, 0x1f, 0x10, 0x11};
  return b.size() >= 32 && std::equal(kMagic, kMagic + 32, b.begin(), [](unsigned char m, char c) {
           return m == static_cast<unsigned char>(c);
         });
}

// An SPSS portable file starts with a 200-byte splash string in any of several character sets,
// then "SPSSPORT" in the file's own character set (ASCII on every modern writer).
bool is_spss_portable(std::string_view b) { return contains(b.substr(0, 600), "SPSSPORT"); }

std::string lowercase_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

[[noreturn]] void cannot_read(const std::string& path, const std::string& what) {
  throw InputError(path + ": this is " + what +
                   ", which synthaudit cannot read; export the data to CSV, or to a Stata "
                   "(.dta), SPSS (.sav) or SAS (.sas7bdat, .xpt) file");
}

}  // namespace

const char* format_name(DataFormat format) {
  switch (format) {
    case DataFormat::kText:
      return "CSV";
    case DataFormat::kStata:
      return "Stata .dta";
    case DataFormat::kSpss:
      return "SPSS .sav";
    case DataFormat::kSpssPortable:
      return "SPSS portable .por";
    case DataFormat::kSas:
      return "SAS .sas7bdat";
    case DataFormat::kSasTransport:
      return "SAS transport .xpt";
  }
  return "unknown";
}

DataFormat detect_data_format(std::string_view head, const std::string& path) {
  DataFormat found = DataFormat::kText;
  if (is_stata(head))
    found = DataFormat::kStata;
  else if (starts_with(head, "$FL2") || starts_with(head, "$FL3"))
    found = DataFormat::kSpss;
  else if (is_sas7bdat(head))
    found = DataFormat::kSas;
  else if (starts_with(head, "HEADER RECORD*******LIB"))
    found = DataFormat::kSasTransport;
  else if (is_spss_portable(head))
    found = DataFormat::kSpssPortable;
  if (found != DataFormat::kText) return found;

  // Formats we recognise but do not read: a clear message instead of a CSV parser's complaint
  // about UTF-8 or field counts.
  if (starts_with(head, "PAR1")) cannot_read(path, "a Parquet file");
  if (starts_with(head, "ARROW1")) cannot_read(path, "an Arrow (Feather) file");
  if (starts_with(head, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"))
    cannot_read(path, "an Excel 97-2003 workbook (.xls) or another OLE document");
  if (starts_with(head, "PK\x03\x04")) {
    if (contains(head, "xl/")) cannot_read(path, "an Excel workbook (.xlsx)");
    if (contains(head, "opendocument.spreadsheet"))
      cannot_read(path, "an OpenDocument spreadsheet (.ods)");
    cannot_read(path, "a ZIP archive (unpack it first)");
  }
  if (starts_with(head, "SQLite format 3")) cannot_read(path, "an SQLite database");
  if (starts_with(head, "RDX2\n") || starts_with(head, "RDX3\n") || starts_with(head, "RDA2\n") ||
      starts_with(head, "RDA3\n"))
    cannot_read(path, "an R workspace (.RData)");
  if (starts_with(head, std::string_view("X\n\0\0\0", 5)))
    cannot_read(path, "an R data file (.rds)");
  if (starts_with(head, "BZh")) cannot_read(path, "a bzip2-compressed file (unpack it first)");
  if (starts_with(head, "\xfd\x37zXZ"))
    cannot_read(path, "an xz-compressed file (unpack it first)");
  if (starts_with(head, "\x28\xb5\x2f\xfd"))
    cannot_read(path, "a zstd-compressed file (unpack it first)");
  if (starts_with(head, "7z\xbc\xaf\x27\x1c"))
    cannot_read(path, "a 7-Zip archive (unpack it first)");
  if (starts_with(head, "%PDF-")) cannot_read(path, "a PDF document");

  // A name that promises a binary format the content lacks: say so rather than read it as text.
  const std::string ext = lowercase_extension(path);
  const char* promised = nullptr;
  if (ext == ".dta")
    promised = "a Stata .dta file";
  else if (ext == ".sav" || ext == ".zsav")
    promised = "an SPSS .sav file";
  else if (ext == ".por")
    promised = "an SPSS portable file";
  else if (ext == ".sas7bdat")
    promised = "a SAS .sas7bdat file";
  else if (ext == ".xpt" || ext == ".xport")
    promised = "a SAS transport file";
  if (promised)
    throw InputError(path + ": the name says " + promised +
                     ", but the content does not start as one (is the file damaged, truncated or "
                     "renamed?)");
  return DataFormat::kText;
}

}  // namespace synthaudit
