# Golden values for the synthpop-compatible fit comparison of analysis_inference_comparison
# (tests/unit/synthpop_fit_test.cpp): synthpop 1.9-3's compare.fit.synds and summary.fit.synds on
# the real SD2011 survey file with synthetic replicates that synthpop's own syn() made.
#
# synthpop is not in Debian. Its source is read, never copied into this project:
#   git clone https://github.com/bnowok/synthpop /tmp/sp   (version 1.9-3, commit 9cc3081)
#   apt-get install -y r-base-core r-cran-mass r-cran-nnet r-cran-rpart r-cran-stringr
#   Rscript tests/golden/specific/synthpop_fit/make_golden.R /tmp/sp ../shared/data/sd2011/orig.csv
# (R 4.2.2 from Debian bookworm was used.) It writes, next to itself:
#   full_1.csv.gz .. full_3.csv.gz     syn(orig, m = 3, cont.na = list(income = -8), seed = 2026):
#                                      every column synthesised (CART), as the SD2011 README's syn.csv
#   partial_1.csv.gz .. partial_4.csv.gz  syn(..., m = 4, seed = 2027) with sex, edu and smoke not
#                                      synthesised (method ""; the rows correspond to orig.csv)
#   golden.tsv                         case, analysis, population_inference, scope, statistic, value
#
# Analyses: lm(income ~ age + sex + edu) on the rows whose income is neither NA nor the code -8,
# and glm(smoke ~ age + sex + edu, family = "binomial"). Both are fitted with the code -8 set to NA
# in the original and in every replicate, which is what `missing_codes: {income: [-8]}` does in
# synthaudit; synthpop's n and k (5000 and 5000) are the rows of the files, as syn() records them.
#
# synthpop decides `incomplete` (inference for a partially synthesised model) in checkcomplete()
# from the first formula variable in the data's column order; its documentation (summary.fit.synds,
# "whether the dependent variable has been synthesised") says the response. The script sets it from
# the response, as documented and as synthaudit does: in the partial case the logistic model's
# response smoke is not synthesised (incomplete: Hotelling's T² lack-of-fit with F(p, m − p), which
# needs m > p, hence m = 4 and smoke ~ age + sex with p = 3), the linear model's response income
# is synthesised (complete rules).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2) stop("usage: Rscript make_golden.R SYNTHPOP_SOURCE_DIR ORIG_CSV")
Sys.setlocale("LC_COLLATE", "C")  # factor levels in byte order, as synthaudit sorts them
suppressMessages({
  library(rpart); library(MASS); library(nnet); library(stringr)
})
for (f in list.files(file.path(args[1], "R"), full.names = TRUE)) source(f)
here <- dirname(normalizePath(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE))))

orig <- read.csv(args[2], stringsAsFactors = TRUE)
orig_na <- orig
orig_na$income[orig_na$income %in% -8] <- NA

rows <- list()
emit <- function(case, analysis, pi, scope, statistic, value) {
  rows[[length(rows) + 1]] <<- data.frame(case = case, analysis = analysis,
    population_inference = pi, scope = scope, statistic = statistic,
    value = sprintf("%.17g", as.numeric(value)))
}

write_replicates <- function(s, prefix) {
  for (i in seq_len(s$m)) {
    con <- gzfile(file.path(here, sprintf("%s_%d.csv.gz", prefix, i)), "w")
    write.csv(s$syn[[i]], con, row.names = FALSE)
    close(con)
  }
}

with_na <- function(s) {
  for (i in seq_len(s$m)) s$syn[[i]]$income[s$syn[[i]]$income %in% -8] <- NA
  s
}

compare_case <- function(case, s, models) {
  s <- with_na(s)
  for (name in names(models)) {
    model <- models[[name]]
    # The formula goes into the call itself: compare.fit.synds refits it from object$call.
    fit <- if (model$kind == "lm") eval(bquote(lm.synds(.(model$formula), data = s)))
           else eval(bquote(glm.synds(.(model$formula), family = "binomial", data = s)))
    fit$incomplete <- model$incomplete
    for (pi in c(FALSE, TRUE)) {
      cf <- compare.fit.synds(fit, data = orig_na, population.inference = pi,
                              return.plot = FALSE)
      alone <- summary(fit, population.inference = pi)$coefficients
      for (j in seq_len(nrow(cf$coef.obs))) {
        term <- rownames(cf$coef.obs)[j]
        emit(case, name, pi, term, "confidential_estimate", cf$coef.obs[j, 1])
        emit(case, name, pi, term, "confidential_se", cf$coef.obs[j, 2])
        emit(case, name, pi, term, "synthetic_estimate", cf$coef.syn[term, 1])
        emit(case, name, pi, term, "synthetic_se", cf$coef.syn[term, 2])
        emit(case, name, pi, term, "synthetic_z", cf$coef.syn[term, 3])
        emit(case, name, pi, term, "synthetic_only_se", alone[term, 2])
        emit(case, name, pi, term, "synthetic_only_z", alone[term, 3])
        emit(case, name, pi, term, "std_coef_diff", cf$coef.diff[term, 4])
        emit(case, name, pi, term, "ci_overlap_signed", cf$ci.overlap[term, 1])
      }
      emit(case, name, pi, "", "mean_ci_overlap_signed", cf$mean.ci.overlap)
      emit(case, name, pi, "", "mean_abs_std_coef_diff", cf$mean.abs.std.diff)
      if (!is.null(cf$lack.of.fit)) {
        emit(case, name, pi, "", "lack_of_fit", cf$lack.of.fit)
        emit(case, name, pi, "", "lack_of_fit_p", cf$lof.pvalue)
        emit(case, name, pi, "", "lack_of_fit_df", cf$ncoef)
        if (fit$incomplete) emit(case, name, pi, "", "lack_of_fit_df2", fit$m - cf$ncoef)
      }
    }
  }
}

full <- syn(orig, m = 3, cont.na = list(income = -8), seed = 2026, print.flag = FALSE)
write_replicates(full, "full")
compare_case("full", full, list(
  income_lm = list(kind = "lm", formula = income ~ age + sex + edu, incomplete = FALSE),
  smoke_glm = list(kind = "glm", formula = smoke ~ age + sex + edu, incomplete = FALSE)))

# Not synthesised first in the visit sequence, as synthpop requires for them to be predictors.
partial <- syn(orig, m = 4, cont.na = list(income = -8), seed = 2027, print.flag = FALSE,
               method = c(sex = "", age = "cart", edu = "", marital = "cart", income = "cart",
                          ls = "cart", smoke = ""),
               visit.sequence = c(1, 3, 7, 2, 4, 5, 6))
write_replicates(partial, "partial")
compare_case("partial", partial, list(
  income_lm = list(kind = "lm", formula = income ~ age + sex + edu, incomplete = FALSE),
  smoke_glm = list(kind = "glm", formula = smoke ~ age + sex, incomplete = TRUE)))

out <- do.call(rbind, rows)
write.table(out, file.path(here, "golden.tsv"), sep = "\t", quote = FALSE, row.names = FALSE)
cat("wrote", nrow(out), "rows to", file.path(here, "golden.tsv"), "\n")
