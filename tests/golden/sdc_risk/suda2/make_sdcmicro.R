#!/usr/bin/Rscript
# sdcMicro's own SUDA2 numbers for the cases of make_golden.py, for the comparison in
# tests/unit/suda2_test.cpp. sdcMicro itself is not installable here (its R dependencies are not
# in Debian), so its C++ routine (src/Suda2.h, sdcMicro 5.8.1, github sdcTools/sdcMicro commit
# cf3251017482bb215f0a9abf4a930f502399fb72) is compiled alone and called as R/suda2.R's
# suda2WORK calls it: keys as a numeric matrix (factor codes), NA replaced by missing = -999,
# MaxK = the number of keys, DisFraction = 0.01, original_scores = TRUE.
#
#   git -C <sdcMicro mirror> archive HEAD src | tar -x -C /tmp/sdc-suda2
#   printf '#include <Rcpp.h>\n#include <malloc.h>\n#include "Framework.h"\n#include "Suda2.h"\n' \
#     > /tmp/sdc-build/suda_only.cpp
#   PKG_CPPFLAGS="-I$(Rscript -e 'cat(system.file("include",package="Rcpp"))') -I/tmp/sdc-suda2/src" \
#     R CMD SHLIB /tmp/sdc-build/suda_only.cpp
#   Rscript tests/golden/sdc_risk/suda2/make_sdcmicro.R /tmp/sdc-build/suda_only.so
args <- commandArgs(trailingOnly = TRUE)
library(Rcpp)
dyn.load(args[1])
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)))
data_dir <- file.path(here, "..", "..", "..", "data", "sd2011")
cases <- list(
  list(name = "train_6keys", file = "train.csv",
       keys = c("sex", "age", "edu", "marital", "ls", "smoke"), missing = list()),
  list(name = "train_7keys_income", file = "train.csv",
       keys = c("sex", "age", "edu", "marital", "income", "ls", "smoke"),
       missing = list(income = -8)),
  list(name = "syn_6keys", file = "train_syn.csv",
       keys = c("sex", "age", "edu", "marital", "ls", "smoke"), missing = list()))
out <- list()
for (case in cases) {
  d <- read.csv(file.path(data_dir, case$file), stringsAsFactors = TRUE)
  for (v in names(case$missing)) d[[v]][d[[v]] %in% case$missing[[v]]] <- NA
  x <- d[, case$keys, drop = FALSE]
  for (i in seq_along(x)) x[[i]] <- as.numeric(x[[i]])
  x <- as.matrix(x)
  x[is.na(x)] <- -999
  res <- .Call("Suda2", x, -999L, ncol(x), 0.01, TRUE)$Res
  k <- length(case$keys)
  out[[case$name]] <- list(score = unname(res[, k + 1]), dis_score = unname(res[, k + 2]))
  cat(case$name, "records with score > 0:", sum(res[, k + 1] > 0), "\n")
}
json <- paste0("{", paste(sprintf('"%s":{"score":[%s],"dis_score":[%s]}', names(out),
  sapply(out, function(o) paste(sprintf("%.17g", o$score), collapse = ",")),
  sapply(out, function(o) paste(sprintf("%.17g", o$dis_score), collapse = ","))),
  collapse = ","), "}")
writeLines(json, file.path(here, "sdcmicro.json"))
