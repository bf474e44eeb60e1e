# Makes the weighted-survey test files from R's survey package (Debian r-cran-survey 4.1):
# apistrat, the stratified sample of 200 California schools of Lumley's api data, with its
# sampling weight pw. apistrat.csv is the real survey; apistrat_syn.csv a "synthetic" counterpart:
# a seeded resample of its rows (weights travel with the rows) with noise on the numeric columns.
# Run from this folder: Rscript make_api.R
suppressMessages(library(survey))
data(api)
keep <- c("stype", "sch.wide", "api00", "api99", "ell", "meals", "enroll", "acs.k3", "pw")
conf <- apistrat[, keep]
names(conf) <- gsub(".", "_", names(conf), fixed = TRUE)
conf$stype <- as.character(conf$stype)
conf$sch_wide <- as.character(conf$sch_wide)
write.csv(conf, "apistrat.csv", row.names = FALSE, na = "")

set.seed(20261125)
syn <- conf[sample.int(nrow(conf), nrow(conf), replace = TRUE), ]
jitter <- function(x, sd, lo, hi) pmin(hi, pmax(lo, round(x + rnorm(length(x), 0, sd))))
syn$api00 <- jitter(syn$api00, 25, 200, 1000)
syn$api99 <- jitter(syn$api99, 25, 200, 1000)
syn$ell <- jitter(syn$ell, 4, 0, 100)
syn$meals <- jitter(syn$meals, 4, 0, 100)
syn$enroll <- jitter(syn$enroll, 60, 50, 5000)
flip <- runif(nrow(syn)) < 0.1
syn$sch_wide[flip] <- ifelse(syn$sch_wide[flip] == "Yes", "No", "Yes")
write.csv(syn, "apistrat_syn.csv", row.names = FALSE, na = "")
