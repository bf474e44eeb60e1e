# Golden values for src/stats/survey.cpp from R's survey package (Debian r-cran-survey 4.1;
# Lumley 2004, "Analysis of complex survey samples", JSS 9(8)), on the real weighted survey
# tests/data/survey/apistrat.csv (made by make_api.R there), with the with-replacement design
# svydesign(ids = ~1, weights = ~pw), missing values removed with na.rm = TRUE (survey keeps
# those rows in the design, so they count in n). Writes golden.tsv: name <TAB> value (17 digits).
# Run from this folder: Rscript make_golden.R
suppressMessages(library(survey))
d <- read.csv("../../data/survey/apistrat.csv")
d$sch_yes <- as.numeric(d$sch_wide == "Yes")
out <- character(0)
put <- function(name, value) out <<- c(out, sprintf("%s\t%.17g", name, value))

run <- function(prefix, data) {
  des <- svydesign(ids = ~1, weights = ~pw, data = data)
  for (v in c("api00", "ell", "enroll", "sch_yes", "acs_k3")) {
    m <- svymean(as.formula(paste0("~", v)), des, na.rm = TRUE)
    put(paste0(prefix, "mean.", v), coef(m)); put(paste0(prefix, "mean_se.", v), SE(m))
    t <- svytotal(as.formula(paste0("~", v)), des, na.rm = TRUE)
    put(paste0(prefix, "total.", v), coef(t)); put(paste0(prefix, "total_se.", v), SE(t))
  }
  for (v in c("api00", "enroll", "acs_k3")) {
    for (p in c(0.01, 0.1, 0.25, 0.5, 0.9)) {
      q <- svyquantile(as.formula(paste0("~", v)), des, p, qrule = "hf7", na.rm = TRUE)[[1]]
      put(sprintf("%squantile.%s.%g", prefix, v, p), q[1, "quantile"])
      put(sprintf("%squantile_se.%s.%g", prefix, v, p), q[1, "se"])
    }
  }
  g <- svyglm(api00 ~ ell + meals + factor(stype), design = des, control = list(epsilon = 1e-14, maxit = 100))
  put(paste0(prefix, "lm_coef"), coef(g)); put(paste0(prefix, "lm_se"), SE(g))
  # Rows with a missing model variable stay in the design (n) with no score contribution.
  m <- svyglm(api00 ~ ell + acs_k3, design = des, control = list(epsilon = 1e-14, maxit = 100))
  put(paste0(prefix, "lm_missing_coef"), coef(m)); put(paste0(prefix, "lm_missing_se"), SE(m))
  b <- svyglm(sch_yes ~ ell + meals + api99, design = des, family = quasibinomial(), control = list(epsilon = 1e-14, maxit = 100))
  put(paste0(prefix, "logit_coef"), coef(b)); put(paste0(prefix, "logit_se"), SE(b))
}
run("", d)
# Zero weights (allowed by the data check): the rows stay in the design for means and totals,
# and drop out of quantiles and the degrees of freedom.
z <- d; z$pw[c(1, 2, 60, 61, 150)] <- 0
run("zero_weights.", z)
# Equal weights: the weighted quantile is R's quantile(type = 7).
e <- d; e$pw <- 3
for (p in c(0.1, 0.5, 0.9)) {
  q <- svyquantile(~api00, svydesign(ids = ~1, weights = ~pw, data = e), p, qrule = "hf7")[[1]]
  put(sprintf("equal_weights.quantile.api00.%g", p), q[1, "quantile"])
  put(sprintf("equal_weights.type7.api00.%g", p), quantile(e$api00, p, type = 7))
}
# The metrics' numbers: the "synthetic" counterpart with its own weights, the interval of the
# weighted mean on survey's degrees of freedom, and the unweighted synthetic values.
s <- read.csv("../../data/survey/apistrat_syn.csv")
s$sch_yes <- as.numeric(s$sch_wide == "Yes")
run("syn.", s)
des <- svydesign(ids = ~1, weights = ~pw, data = d)
for (v in c("api00", "ell", "enroll")) {
  ci <- confint(svymean(as.formula(paste0("~", v)), des), df = degf(des))
  put(paste0("ci_lower.", v), ci[1]); put(paste0("ci_upper.", v), ci[2])
  put(paste0("syn.unweighted_mean.", v), mean(s[[v]]))
}
put("syn.unweighted_total.enroll", sum(d$pw) * mean(s$enroll))
# The general-utility metrics with weights (moments_and_covariance, column_summaries,
# ratio_of_counts, table_utility): each dataset with its own design (the synthetic data carry
# their own pw). Variances and covariances are svyvar on the rows where the values are present;
# the weighted skewness and kurtosis use the weighted central moments sum(w (x - m)^k) / sum(w);
# table cells are svytable(..., Ntotal = rows).
general <- function(prefix, data) {
  des <- svydesign(ids = ~1, weights = ~pw, data = data)
  num <- c("api00", "api99", "ell", "meals", "enroll", "acs_k3")
  for (v in num) {
    f <- as.formula(paste0("~", v))
    present <- des[!is.na(data[[v]]), ]
    put(paste0(prefix, "svymean.", v), coef(svymean(f, present)))
    put(paste0(prefix, "svyvar.", v), coef(svyvar(f, present)))
    for (p in c(0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99)) {
      q <- svyquantile(f, des, p, qrule = "hf7", na.rm = TRUE)[[1]]
      put(sprintf("%ssvyquantile.%s.%g", prefix, v, p), q[1, "quantile"])
    }
    ok <- !is.na(data[[v]])
    x <- data[[v]][ok]; w <- data$pw[ok]
    m <- sum(w * x) / sum(w)
    m2 <- sum(w * (x - m)^2) / sum(w)
    put(paste0(prefix, "skewness.", v), sum(w * (x - m)^3) / sum(w) / m2^1.5)
    put(paste0(prefix, "kurtosis.", v), sum(w * (x - m)^4) / sum(w) / m2^2 - 3)
    put(paste0(prefix, "missing_share.", v), sum(data$pw[!ok]) / sum(data$pw))
    put(paste0(prefix, "zero_share.", v), sum(w[x == 0]) / sum(w))
  }
  for (pair in combn(num, 2, simplify = FALSE)) {
    present <- des[!is.na(data[[pair[1]]]) & !is.na(data[[pair[2]]]), ]
    V <- coef(svyvar(as.formula(paste0("~", pair[1], "+", pair[2])), present))
    key <- paste0(pair[1], ":", pair[2])
    put(paste0(prefix, "svycov.", key), V[2])
    put(paste0(prefix, "svycor.", key), V[2] / sqrt(V[1] * V[4]))
  }
  for (v in c("stype", "sch_wide")) {
    tab <- svytable(as.formula(paste0("~", v)), des)
    for (level in names(tab)) put(paste0(prefix, "share.", v, "=", level), tab[[level]] / sum(tab))
  }
  # Cells of stype x sch_wide in R's table order (stype varying fastest).
  put(paste0(prefix, "svytable.stype:sch_wide"),
      as.vector(svytable(~stype + sch_wide, des, Ntotal = nrow(data))))
}
general("general.", d)
general("general.syn.", s)
# ratio_of_counts from the weighted level shares (levels in either dataset; missing a level).
roc <- function(x_conf, x_syn) {
  lv <- union(unique(x_conf), unique(x_syn))
  share <- function(x, w) sapply(lv, function(l) sum(w[x %in% l]) / sum(w))
  po <- share(x_conf, d$pw); ps <- share(x_syn, s$pw)
  mean(pmin(po, ps) / pmax(po, ps))
}
for (v in c("stype", "sch_wide", "ell", "acs_k3"))
  put(paste0("general.ratio_of_counts.", v), roc(d[[v]], s[[v]]))
# tail_agreement: the confidential svyquantile (hf7) bounds each tail; shares are the weight of
# the present values at or beyond it over the weight of the present values, each dataset with its
# own weights.
des <- svydesign(ids = ~1, weights = ~pw, data = d)
for (v in c("api00", "api99", "ell", "meals", "enroll", "acs_k3")) {
  for (tail in list(list("bottom_1pct", 0.01, TRUE), list("bottom_5pct", 0.05, TRUE),
                    list("top_5pct", 0.95, FALSE), list("top_1pct", 0.99, FALSE))) {
    q <- svyquantile(as.formula(paste0("~", v)), des, tail[[2]], qrule = "hf7",
                     na.rm = TRUE)[[1]][1, "quantile"]
    share <- function(data) {
      ok <- !is.na(data[[v]])
      x <- data[[v]][ok]; w <- data$pw[ok]
      inside <- if (tail[[3]]) x <= q else x >= q
      sum(w[inside]) / sum(w)
    }
    put(paste0("general.tail.conf_share_", tail[[1]], ".", v), share(d))
    put(paste0("general.tail.syn_share_", tail[[1]], ".", v), share(s))
  }
}
writeLines(out, "golden.tsv")
