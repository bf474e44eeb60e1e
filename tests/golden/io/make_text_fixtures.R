# Writes one small table the ways R writes text files by default (Debian R's utils): write.csv
# (quoted strings, a row names column under an empty name, NA), write.csv2 (semicolons, decimal
# commas), write.csv2 in Windows-1252 (a European Windows session) and write.table (spaces, a header one
# field shorter than the rows). Each must read to the same table as plain.csv, which
# make_text_fixtures.py writes (tests/unit/text_layout_test.cpp). Run from the repository root,
# after make_text_fixtures.py:
#   Rscript tests/golden/io/make_text_fixtures.R
out <- "tests/data/text"
d <- read.csv(file.path(out, "plain.csv"), na.strings = "", stringsAsFactors = FALSE,
              encoding = "UTF-8")
write.csv(d, file.path(out, "r_write_csv.csv"))
write.csv2(d, file.path(out, "r_write_csv2.csv"))
write.csv2(d, file.path(out, "r_write_csv2_cp1252.csv"), fileEncoding = "CP1252")
write.table(d, file.path(out, "r_write_table.txt"))
