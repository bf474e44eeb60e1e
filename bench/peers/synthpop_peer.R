# Times one synthpop utility or disclosure call on the simulator's files, with synthpop's R/ files
# source()d from its source tree instead of the installed package (its Imports mipfp, broman,
# party, polspline, randomForest, ranger, rmutil and proto are not in Debian; none of them is
# called by the functions measured here).
#
#   Rscript bench/peers/synthpop_peer.R SYNTHPOP_SRC DATA_DIR MEASURE
#
# MEASURE: tables (utility.tables, every two-way table) | compare (compare: every one-way table
# and its plot) | logit (utility.gen, method "logit") | disclosure (disclosure(), the spec's two
# key sets). Prints one JSON object: CPU and wall seconds of reading the two files and of the call
# alone, and the values the call returned (compare_values.py checks them against synthaudit's).
args <- commandArgs(trailingOnly = TRUE)
source_dir <- args[1]
folder <- args[2]
measure <- args[3]

suppressPackageStartupMessages({
  for (p in c("MASS", "methods", "nnet", "lattice", "foreign", "ggplot2", "plyr", "survival",
              "rpart", "classInt", "stringr", "forcats")) library(p, character.only = TRUE)
})
for (f in list.files(file.path(source_dir, "R"), full.names = TRUE)) source(f)
version <- read.dcf(file.path(source_dir, "DESCRIPTION"), fields = "Version")[1, 1]

seconds <- function(start) {
  now <- proc.time()
  d <- now - start
  c(cpu_s = unname(d["user.self"] + d["sys.self"] + d["user.child"] + d["sys.child"]),
    wall_s = unname(d["elapsed"]))
}

start <- proc.time()
orig <- read.csv(file.path(folder, "confidential.csv"), stringsAsFactors = TRUE)
syn <- read.csv(file.path(folder, "ideal_1.csv"), stringsAsFactors = TRUE)
# A synds object from syn() carries the original's factor levels; read.csv gives each file the
# levels it happens to contain, which utility.tables refuses, so both get the union of levels.
for (v in names(orig)) if (is.factor(orig[[v]])) {
  both <- sort(union(levels(orig[[v]]), levels(syn[[v]])))
  orig[[v]] <- factor(orig[[v]], levels = both)
  syn[[v]] <- factor(syn[[v]], levels = both)
}
reading <- seconds(start)

logit_vars <- c("sex", "age", "education", "marital", "household_size", "employed",
                "hours_worked", "income", "smoke", "health_score")
values <- list()
sink(tempfile())  # the calls print their own tables; keep stdout for the JSON line
start <- proc.time()
if (measure == "tables") {
  result <- utility.tables(syn, orig, tables = "twoway", print.flag = FALSE)
} else if (measure == "compare") {
  result <- compare(syn, orig, print.flag = FALSE)
} else if (measure == "logit") {
  result <- utility.gen(syn, orig, method = "logit", maxorder = 1, vars = logit_vars,
                        print.flag = FALSE)
} else if (measure == "disclosure") {
  result <- list(
    disclosure(syn, orig, keys = c("region", "sex", "age", "education"), target = "smoke",
               print.flag = FALSE),
    disclosure(syn, orig, keys = c("sex", "age", "marital", "occupation"), target = "income",
               print.flag = FALSE))
} else stop("unknown measure ", measure)
call <- seconds(start)
sink()

if (measure == "tables") {
  tabs <- result$tabs
  for (i in seq_len(nrow(tabs))) {
    pair <- rownames(tabs)[i]
    for (s in c("pMSE", "S_pMSE")) if (s %in% colnames(tabs))
      values[[paste0(s, ":", pair)]] <- unname(tabs[i, s])
  }
} else if (measure == "compare") {
  tabs <- result$tab.utility
  for (i in seq_len(nrow(tabs))) for (s in colnames(tabs))
    values[[paste0(s, ":", rownames(tabs)[i])]] <- unname(tabs[i, s])
} else if (measure == "logit") {
  for (s in c("pMSE", "S_pMSE", "SPECKS", "PO50", "U"))
    if (!is.null(result[[s]])) values[[paste0(s, ":all")]] <- unname(result[[s]][1])
} else if (measure == "disclosure") {
  for (k in seq_along(result)) {
    target <- c("smoke", "income")[k]
    for (part in c("ident", "attrib")) {
      tab <- result[[k]][[part]]
      if (is.list(tab) && !is.data.frame(tab)) tab <- tab[[1]]
      for (s in colnames(tab)) values[[paste0(s, ":", target)]] <- unname(tab[1, s])
    }
  }
}

json_number <- function(x) if (is.null(x) || is.na(x)) "null" else format(x, digits = 15)
cat(sprintf('{"peer": "synthpop %s", "measure": "%s", "rows": %d, ', version, measure, nrow(orig)),
    sprintf('"reading": {"cpu_s": %.3f, "wall_s": %.3f}, ', reading[1], reading[2]),
    sprintf('"call": {"cpu_s": %.3f, "wall_s": %.3f}, ', call[1], call[2]),
    '"values": {',
    paste(sprintf('"%s": %s', names(values), vapply(values, json_number, "")), collapse = ", "),
    "}}\n", sep = "")
