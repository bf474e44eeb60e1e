# The synthetic EU-SILC person file of R's laeken package (Alfons & Templ 2013; Debian
# r-cran-laeken 0.5.2), written as eusilc.csv.gz: 14,827 persons in 6,000 households, with the
# household identifier db030, household-level columns (region db040, household size hsize,
# household incomes hy*n, equivalised income) repeated on each member's row, and person-level
# columns (age, sex rb090, economic status pl030, citizenship pb220a, personal incomes py*n), and
# the personal weight rb050. The personal identifier rb030 is left out (it is unique per person).
# Run: Rscript make_eusilc.R
library(laeken)
data(eusilc)
keep <- c("db030", "hsize", "db040", "age", "rb090", "pl030", "pb220a", "py010n", "py050n",
          "py090n", "py100n", "hy040n", "hy050n", "hy070n", "hy090n", "eqSS", "eqIncome",
          "rb050")
out <- gzfile("eusilc.csv.gz", "w")
write.csv(eusilc[, keep], out, row.names = FALSE, na = "")
close(out)
