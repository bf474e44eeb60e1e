#pragma once
// Which reader a data file needs, decided by its first bytes (its "magic"), not by its name.
#include <string>
#include <string_view>

namespace synthaudit {

enum class DataFormat {
  kText,          // delimited text (CSV, TSV): anything without a binary signature below
  kStata,         // .dta, Stata 5 to 18 (formats 104 to 119)
  kSpss,          // .sav, and .zsav (compressed)
  kSpssPortable,  // .por
  kSas,           // .sas7bdat
  kSasTransport,  // .xpt, SAS transport (XPORT) versions 5 and 8
};

// The format in words, for messages ("Stata .dta").
const char* format_name(DataFormat format);

// The format of a file whose (decompressed) bytes start with `head` (the first few kilobytes
// are enough). A file in a format synthaudit recognises but cannot read (Parquet, Excel, an
// archive, an R or SQLite file, ...) is an InputError naming `path`, the format and what to do;
// so is a file whose name promises a format its content does not have (a damaged "x.dta").
DataFormat detect_data_format(std::string_view head, const std::string& path);

}  // namespace synthaudit
