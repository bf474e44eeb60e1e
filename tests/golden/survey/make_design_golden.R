# Golden values for complex designs (src/stats/survey_design.cpp and the estimates of
# src/stats/survey.cpp under them) from R's survey package (Debian r-cran-survey 4.1; Lumley
# 2004, JSS 9(8)), on the files tests/data/survey/make_designs.R writes, as read from those files.
# Writes designs.tsv: name <TAB> value (17 digits); a name may repeat (coefficient vectors).
# Run from this folder: Rscript make_design_golden.R
suppressMessages(library(survey))
dir <- "../../data/survey/"
out <- character(0)
put <- function(name, value) out <<- c(out, sprintf("%s\t%.17g", name, value))
ctl <- list(epsilon = 1e-14, maxit = 100)

estimates <- function(prefix, des, mean_vars, quantile_vars = character(0), models = list()) {
  for (v in mean_vars) {
    f <- as.formula(paste0("~", v))
    m <- svymean(f, des, na.rm = TRUE, deff = TRUE)
    put(paste0(prefix, ".mean.", v), coef(m)); put(paste0(prefix, ".mean_se.", v), SE(m))
    put(paste0(prefix, ".mean_deff.", v), deff(m))
    t <- svytotal(f, des, na.rm = TRUE, deff = TRUE)
    put(paste0(prefix, ".total.", v), coef(t)); put(paste0(prefix, ".total_se.", v), SE(t))
    put(paste0(prefix, ".total_deff.", v), deff(t))
    # The t interval on the design's degrees of freedom (the metric's).
    put(paste0(prefix, ".mean_ci_lower.", v), confint(m, df = degf(des))[1])
  }
  for (v in quantile_vars) for (p in c(0.25, 0.5, 0.9)) {
    q <- svyquantile(as.formula(paste0("~", v)), des, p, qrule = "hf7", na.rm = TRUE)[[1]]
    put(sprintf("%s.quantile.%s.%g", prefix, v, p), q[1, "quantile"])
    put(sprintf("%s.quantile_se.%s.%g", prefix, v, p), q[1, 4])  # "se" (or "se.97.5" for replicates)
  }
  for (name in names(models)) {
    # do.call: the replicate-design method re-evaluates its call, which must not name locals.
    fit <- function(start = NULL)
      do.call(svyglm, list(formula = models[[name]]$formula, design = des,
                           family = models[[name]]$family, control = ctl, start = start))
    # IRLS stops on the deviance's relative change (1e-14 here), which leaves the coefficients
    # and the working weights its SEs use accurate to about 1e-7 only; a second fit started at
    # the first one's estimate takes one more Newton step to the exact optimum.
    g <- fit()
    g <- fit(coef(g))
    put(paste0(prefix, ".", name, "_coef"), coef(g)); put(paste0(prefix, ".", name, "_se"), SE(g))
    put(paste0(prefix, ".", name, "_df"), g$df.residual)
  }
  put(paste0(prefix, ".degf"), degf(des))
}

# NHANES: stratified two-PSU-per-stratum design, labels restarting in each stratum (nest = TRUE).
nh <- read.csv(paste0(dir, "nhanes.csv"))
nh$agecat <- factor(nh$agecat)
nh$race <- factor(nh$race)
dn <- svydesign(ids = ~SDMVPSU, strata = ~SDMVSTRA, weights = ~WTMEC2YR, nest = TRUE, data = nh)
estimates("nhanes", dn, c("HI_CHOL", "RIAGENDR"),
          models = list(logit = list(formula = HI_CHOL ~ race + agecat + RIAGENDR,
                                     family = quasibinomial()),
                        lm = list(formula = HI_CHOL ~ race + agecat + RIAGENDR,
                                  family = gaussian())))
# The "synthetic" counterpart under its own (carried-along) design columns.
ns <- read.csv(paste0(dir, "nhanes_syn.csv"))
ns$agecat <- factor(ns$agecat)
ns$race <- factor(ns$race)
dns <- svydesign(ids = ~SDMVPSU, strata = ~SDMVSTRA, weights = ~WTMEC2YR, nest = TRUE, data = ns)
estimates("nhanes_syn", dns, c("HI_CHOL"),
          models = list(logit = list(formula = HI_CHOL ~ race + agecat + RIAGENDR,
                                     family = quasibinomial())))
# Lonely PSUs: stratum 83 keeps only its PSU 1 (the rows of PSU 2 dropped).
lonely <- nh[!(nh$SDMVSTRA == 83 & nh$SDMVPSU == 2), ]
write.csv(lonely, paste0(dir, "nhanes_lonely.csv"), row.names = FALSE, na = "")
for (rule in c("remove", "certainty", "adjust", "average")) {
  options(survey.lonely.psu = rule)
  dl <- svydesign(ids = ~SDMVPSU, strata = ~SDMVSTRA, weights = ~WTMEC2YR, nest = TRUE,
                  data = lonely)
  m <- svymean(~HI_CHOL, dl, na.rm = TRUE)
  put(paste0("lonely_", rule, ".mean_se.HI_CHOL"), SE(m))
  t <- svytotal(~RIAGENDR, dl)
  put(paste0("lonely_", rule, ".total_se.RIAGENDR"), SE(t))
}
options(survey.lonely.psu = "fail")

# Stratified with finite-population correction (population counts per stratum).
st <- read.csv(paste0(dir, "apistrat_fpc.csv"))
st$sch_yes <- as.numeric(st$sch_wide == "Yes")
ds <- svydesign(ids = ~1, strata = ~stype, fpc = ~fpc, weights = ~pw, data = st)
api_models <- list(lm = list(formula = api00 ~ ell + meals, family = gaussian()),
                   logit = list(formula = sch_yes ~ ell + meals, family = quasibinomial()))
estimates("apistrat", ds, c("api00", "enroll", "acs_k3", "sch_yes"), c("api00", "enroll"),
          api_models)
# The same fpc given as sampling fractions.
st$fraction <- table(st$stype)[st$stype] / st$fpc
dsf <- svydesign(ids = ~1, strata = ~stype, fpc = ~fraction, weights = ~pw, data = st)
put("apistrat_fraction.mean_se.api00", SE(svymean(~api00, dsf)))

# One-stage cluster sample with fpc.
cl <- read.csv(paste0(dir, "apiclus1_rep.csv"))
cl$sch_yes <- as.numeric(cl$sch_wide == "Yes")
dc <- svydesign(ids = ~dnum, fpc = ~fpc, weights = ~pw, data = cl)
estimates("apiclus1", dc, c("api00", "enroll", "sch_yes"), c("api00"), api_models)
# Without fpc (with replacement).
dcw <- svydesign(ids = ~dnum, weights = ~pw, data = cl)
estimates("apiclus1_wr", dcw, c("api00"), character(0), api_models["lm"])

# Replicate designs from the file's combined replicate weights, with as.svrepdesign's scales.
sc <- read.delim(paste0(dir, "apiclus1_rep_scales.tsv"), header = FALSE)
for (type in c("jk1", "boot")) {
  scale <- sc$V2[sc$V1 == paste0(type, ".scale")]
  rscales <- sc$V2[sc$V1 == paste0(type, ".rscales")]
  rd <- svrepdesign(data = cl, repweights = paste0("^", type, "_[0-9]+$"), weights = ~pw,
                    type = if (type == "jk1") "JK1" else "bootstrap", scale = scale,
                    rscales = rscales, combined.weights = TRUE)
  estimates(paste0("rep_", type), rd, c("api00", "enroll", "sch_yes"), c("api00"), api_models)
  rdm <- svrepdesign(data = cl, repweights = paste0("^", type, "_[0-9]+$"), weights = ~pw,
                     type = if (type == "jk1") "JK1" else "bootstrap", scale = scale,
                     rscales = rscales, combined.weights = TRUE, mse = TRUE)
  put(paste0("rep_", type, "_mse.mean_se.api00"), SE(svymean(~api00, rdm)))
}
# Sanity: the file's JK1 weights give as.svrepdesign's own answer.
jk <- as.svrepdesign(svydesign(ids = ~dnum, weights = ~pw, fpc = ~fpc, data = cl), type = "JK1")
rd <- svrepdesign(data = cl, repweights = "^jk1_[0-9]+$", weights = ~pw, type = "JK1",
                  scale = jk$scale, rscales = jk$rscales, combined.weights = TRUE)
stopifnot(abs(SE(svymean(~api00, jk)) - SE(svymean(~api00, rd))) < 1e-9)
writeLines(out, "designs.tsv")
