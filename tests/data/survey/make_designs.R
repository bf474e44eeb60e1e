# Makes the complex-design test files from R's survey package (Debian r-cran-survey 4.1; Lumley
# 2004, "Analysis of complex survey samples", JSS 9(8)):
# - nhanes.csv: the NHANES extract of survey's data(nhanes), with its strata (SDMVSTRA), PSUs
#   (SDMVPSU, labels restarting in each stratum) and examination weights (WTMEC2YR).
# - apistrat_fpc.csv: the stratified sample of California schools (strata stype) with its
#   finite-population correction (fpc: schools in the stratum).
# - apiclus1_rep.csv: the one-stage cluster sample of school districts (dnum, fpc) with two sets
#   of combined replicate weights made by as.svrepdesign: jackknife (jk1_1..jk1_15, type JK1) and
#   bootstrap (boot_1..boot_50, type bootstrap, seeded); their scale and rscales go to
#   apiclus1_rep_scales.tsv.
# - nhanes_syn.csv: a "synthetic" counterpart of nhanes.csv: a seeded resample of its rows (the
#   design columns travel with them) with 8 % of HI_CHOL flipped.
# Run from this folder: Rscript make_designs.R
suppressMessages(library(survey))
data(nhanes)
write.csv(nhanes, "nhanes.csv", row.names = FALSE, na = "")
set.seed(20261129)
syn <- nhanes[sample.int(nrow(nhanes), nrow(nhanes), replace = TRUE), ]
flip <- !is.na(syn$HI_CHOL) & runif(nrow(syn)) < 0.08
syn$HI_CHOL[flip] <- 1 - syn$HI_CHOL[flip]
write.csv(syn, "nhanes_syn.csv", row.names = FALSE, na = "")

data(api)
keep <- c("stype", "sch.wide", "api00", "api99", "ell", "meals", "enroll", "acs.k3", "pw", "fpc")
strat <- apistrat[, keep]
names(strat) <- gsub(".", "_", names(strat), fixed = TRUE)
strat$stype <- as.character(strat$stype)
strat$sch_wide <- as.character(strat$sch_wide)
write.csv(strat, "apistrat_fpc.csv", row.names = FALSE, na = "")

clus <- apiclus1[, c("dnum", keep)]
names(clus) <- gsub(".", "_", names(clus), fixed = TRUE)
clus$stype <- as.character(clus$stype)
clus$sch_wide <- as.character(clus$sch_wide)
dclus1 <- svydesign(ids = ~dnum, weights = ~pw, fpc = ~fpc, data = apiclus1)
jk <- as.svrepdesign(dclus1, type = "JK1")
set.seed(20261129)
boot <- as.svrepdesign(dclus1, type = "bootstrap", replicates = 50)
wj <- weights(jk, "analysis")
wb <- weights(boot, "analysis")
for (r in seq_len(ncol(wj))) clus[[paste0("jk1_", r)]] <- wj[, r]
for (r in seq_len(ncol(wb))) clus[[paste0("boot_", r)]] <- wb[, r]
write.csv(clus, "apiclus1_rep.csv", row.names = FALSE, na = "")
scales <- c(sprintf("jk1.scale\t%.17g", jk$scale),
            sprintf("jk1.rscales\t%.17g", jk$rscales),
            sprintf("boot.scale\t%.17g", boot$scale),
            sprintf("boot.rscales\t%.17g", boot$rscales))
writeLines(scales, "apiclus1_rep_scales.tsv")
