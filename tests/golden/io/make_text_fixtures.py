"""Writes tests/data/text/plain.csv (the reference table: UTF-8, commas, decimal points, missing
values as empty fields) and the same table as Excel and Stata write it: Excel's "CSV UTF-8"
(BOM, CRLF), Excel's CSV in a European locale (Windows-1252, CRLF, semicolons, decimal commas)
and Stata's export delimited (numbers without a leading zero, ".25"). Then run
make_text_fixtures.R for R's files. Run from the repository root with Python 3's standard
library only:
    python3 tests/golden/io/make_text_fixtures.py && Rscript tests/golden/io/make_text_fixtures.R
"""
import csv
import io

OUT = "tests/data/text/"
# Names with letters outside ASCII that Windows-1252 holds (and its 0x80, the euro sign),
# a name with the delimiter in it; integers, decimals, a missing-value code, missing values.
ROWS = [
    ["Zoë", 34, 1234.5, "YES"],
    ["Müller", 51, -8.0, "NO"],
    ["François", None, 0.25, "NO"],
    ["Smith, J.", 29, None, None],
    ["€uro Œuvre", 62, 99999.75, "YES"],
    [None, 45, 3.125, "NO"],
    ["Åsa", 38, -0.5, "YES"],
]
HEADER = ["name", "age", "income", "smoke"]


def text(value, decimal=".", leading_zero=True):
    if value is None:
        return ""
    if isinstance(value, float):
        s = repr(value)
        if s.endswith(".0"):
            s = s[:-2]
        if not leading_zero:
            s = s.replace("0.", ".", 1) if s.startswith(("0.", "-0.")) else s
        return s.replace(".", decimal)
    return str(value)


def write(name, delimiter=",", decimal=".", encoding="utf-8", newline="\n", bom=False,
          leading_zero=True):
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator=newline,
                        quoting=csv.QUOTE_MINIMAL)
    writer.writerow(HEADER)
    for row in ROWS:
        writer.writerow([text(v, decimal, leading_zero) for v in row])
    data = buffer.getvalue().encode(encoding)
    with open(OUT + name, "wb") as f:
        f.write((b"\xef\xbb\xbf" if bom else b"") + data)


write("plain.csv")
write("excel_utf8.csv", bom=True, newline="\r\n")
write("excel_european.csv", delimiter=";", decimal=",", encoding="cp1252", newline="\r\n")
write("stata_export.csv", leading_zero=False)

# Windows-1252 to UTF-8, byte by byte, as Python's codec decodes it; the five bytes the code page
# leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) as the C1 controls of the same value, as the
# WHATWG Encoding Standard maps them. tests/unit/text_layout_test.cpp compares windows1252_to_utf8.
with open("tests/golden/io/windows1252_utf8.tsv", "w") as f:
    f.write("byte\tutf8\n")
    for byte in range(256):
        try:
            char = bytes([byte]).decode("cp1252")
        except UnicodeDecodeError:
            char = chr(byte)
        f.write("%02x\t%s\n" % (byte, char.encode("utf-8").hex()))
