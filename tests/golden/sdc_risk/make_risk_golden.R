# Golden values for the individual_risk metric: sdcMicro's own freqCalc() and indivRisk()
# (sdcMicro 5.8.1, R/freqCalc.r and R/indivRisk.R, sourced from a checkout of
# https://github.com/sdcTools/sdcMicro; the package itself cannot be installed here because
# several of its imports, e.g. VIM and rhandsontable, are not in Debian). measure_risk's two
# summary lines are written out below as measure_risk.R has them: global_risk_ER = sum(rk) and,
# with households (fast_hier), each member's risk 1 - prod(1 - rk) over its household.
#
# Data: the survey package's nhanes (sampling weight WTMEC2YR, missing HI_CHOL values) and
# apiclus2 (weight pw, school district dnum as the household), written here as CSV files.
#
# Usage: Rscript make_risk_golden.R SDCMICRO_R_DIR   (the folder holding freqCalc.r, indivRisk.R)
args <- commandArgs(trailingOnly = TRUE)
stopifnot(length(args) == 1)
suppressPackageStartupMessages({ library(data.table); library(survey); library(jsonlite) })
source(file.path(args[1], "freqCalc.r"))
source(file.path(args[1], "indivRisk.R"))

data(nhanes)
data(api)
nh <- nhanes[, c("race", "agecat", "RIAGENDR", "HI_CHOL", "WTMEC2YR")]
nh$agecat <- as.character(nh$agecat)
set.seed(20111)
nh_syn <- nh[sample(nrow(nh), 3000, replace = TRUE), ]
ap <- apiclus2[, c("dnum", "stype", "sch.wide", "comp.imp", "awards", "yr.rnd", "pw")]
for (v in c("stype", "sch.wide", "comp.imp", "awards", "yr.rnd")) ap[[v]] <- as.character(ap[[v]])
ap_syn <- ap[sample(nrow(ap), 150, replace = TRUE), ]
write.csv(nh, "nhanes.csv", row.names = FALSE)
write.csv(nh_syn, "nhanes_syn.csv", row.names = FALSE)
write.csv(ap, "apiclus2.csv", row.names = FALSE)
write.csv(ap_syn, "apiclus2_syn.csv", row.names = FALSE)

# Keys as numbers (freqCalc converts factors to numbers); `value`: missing becomes a code of its
# own so that freqCalc's wildcard rule never applies.
risk <- function(data, keys, weights, rule, household = NULL) {
  x <- data.frame(lapply(data[, keys, drop = FALSE], function(v) as.numeric(factor(v))))
  if (rule == "value") x[] <- lapply(x, function(v) { v[is.na(v)] <- -999; v })
  x$w <- weights
  f <- freqCalc(x, keyVars = keys, w = "w")
  ir <- indivRisk(f, survey = TRUE)
  out <- list(fk = f$fk, Fk = f$Fk, rk = ir$rk,
              expected_reidentifications = sum(ir$rk, na.rm = TRUE),
              global_risk = sum(ir$rk, na.rm = TRUE) / nrow(x),
              max_individual_risk = max(ir$rk))
  if (!is.null(household)) {
    h <- ave(ir$rk, household, FUN = function(r) 1 - prod(1 - r))
    out$household_rk <- h
    out$household_expected_reidentifications <- sum(h)
    out$household_risk <- sum(h) / nrow(x)
  }
  out
}
nh_keys <- c("race", "agecat", "RIAGENDR", "HI_CHOL")
ap_keys <- c("stype", "sch.wide", "comp.imp", "awards", "yr.rnd")
golden <- list()
for (rule in c("wildcard", "value")) {
  golden[[paste0("nhanes;", rule, ";confidential")]] <- risk(nh, nh_keys, nh$WTMEC2YR, rule)
  # Synthetic records carry equal weights summing to the confidential total.
  golden[[paste0("nhanes;", rule, ";synthetic")]] <-
    risk(nh_syn, nh_keys, rep(sum(nh$WTMEC2YR) / nrow(nh_syn), nrow(nh_syn)), rule)
}
golden[["apiclus2;confidential"]] <- risk(ap, ap_keys, ap$pw, "wildcard", ap$dnum)
golden[["apiclus2;synthetic"]] <-
  risk(ap_syn, ap_keys, rep(sum(ap$pw) / nrow(ap_syn), nrow(ap_syn)), "wildcard", ap_syn$dnum)
# Per-record values are kept for the confidential nhanes runs (frequencies only: the stats
# primitive's test) and for apiclus2 (frequencies, risk and household risk: the metric's
# per-record output); everything else keeps its summaries, so the file stays small.
for (name in names(golden)) {
  if (grepl("^apiclus2;", name)) next
  golden[[name]]$rk <- NULL
  if (!grepl("^nhanes;.*;confidential$", name)) golden[[name]]$fk <- golden[[name]]$Fk <- NULL
}
writeLines(toJSON(golden, digits = NA, auto_unbox = TRUE), "golden_risk.json")
