#!/usr/bin/Rscript
# Golden values for synthaudit's CART (src/stats/cart.*) from R's rpart itself, the tree synthpop's
# utility.gen(method = "cart") fits. Debian packages r-base-core and r-cran-rpart:
#     Rscript tests/golden/propensity/make_rpart_golden.R
# Writes rpart_golden.json next to this script: the data (so the C++ test reads the same inputs),
# and for each case rpart's leaf count, in-sample P(t = 1), P(t = 1) of held-out rows and the
# variable importance with maxsurrogate = 0 (primary splits only) and with rpart's defaults; and
# (many_distinct) the pMSE of utility.gen's CART on two CSV files it writes, wage_conf.csv and
# wage_syn.csv, whose wage column has thousands of distinct values.
suppressMessages(library(rpart))
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))

set.seed(20261122)
n_train <- 3000
n_test <- 1000
n <- n_train + n_test
x1 <- round(rnorm(n), 2)                 # ~600 distinct values: exact bins
x2 <- sample(0:50, n, replace = TRUE)    # integers
g <- factor(sample(c("a", "b", "c", "d"), n, replace = TRUE, prob = c(.4, .3, .2, .1)))
h <- factor(sample(c("p", "q", "r", "s", "u", "v"), n, replace = TRUE))
x3 <- round(x1 + rnorm(n, sd = 0.7), 1)  # correlated with x1 (for surrogates)
eta <- 0.6 * x1 - 0.02 * (x2 - 25) + 0.5 * (g == "d") - 0.4 * (h %in% c("p", "q"))
t_signal <- as.integer(runif(n) < plogis(eta))
t_random <- sample(rep(0:1, length.out = n))
data_all <- data.frame(x1, x2, g, h, x3)

num <- function(v) paste0("[", paste(formatC(v, digits = 17, format = "g"), collapse = ","), "]")
int <- function(v) paste0("[", paste(v, collapse = ","), "]")
str <- function(v) paste0("[", paste0('"', v, '"', collapse = ","), "]")
imp <- function(fit, names) {
  vi <- fit$variable.importance
  out <- sapply(names, function(v) if (!is.null(vi) && v %in% names(vi)) vi[[v]] else 0)
  num(out)
}

case <- function(name, t, cp, minbucket) {
  train <- data_all[1:n_train, ]
  train$t <- t[1:n_train]
  test <- data_all[(n_train + 1):n, ]
  ctl <- rpart.control(cp = cp, minbucket = minbucket, xval = 0)
  fit <- rpart(t ~ ., data = train, method = "class", control = ctl)
  ctl0 <- rpart.control(cp = cp, minbucket = minbucket, xval = 0, maxsurrogate = 0)
  fit0 <- rpart(t ~ ., data = train, method = "class", control = ctl0)
  stopifnot(all.equal(predict(fit, train)[, 2], predict(fit0, train)[, 2]))
  names <- c("x1", "x2", "g", "h", "x3")
  paste0('"', name, '": {"cp": ', cp, ', "minbucket": ', minbucket, ', "t": ', int(t[1:n_train]),
         ', "leaves": ', sum(fit$frame$var == "<leaf>"),
         ', "fitted": ', num(predict(fit, train)[, 2]),
         ', "predicted_test": ', num(predict(fit, test)[, 2]),
         ', "importance_primary": ', imp(fit0, names),
         ', "importance_rpart": ', imp(fit, names), "}")
}

cases <- c(case("signal", t_signal, 1e-3, 5),
           case("signal_coarse", t_signal, 1e-2, 20),
           case("random_labels", t_random, 1e-3, 5))

# Many distinct values: a confidential file with a wage column of thousands of distinct values and
# a synthetic file whose wages are the confidential ones perturbed by about 1 % (plus resampled
# ages), written as CSV for the metric-level test. pMSE as synthpop's utility.gen(method = "cart")
# computes it: rbind(synthetic, confidential) with t = 1 for synthetic rows, rpart(t ~ ., method =
# "class", cp = 1e-3, minbucket = 5), pMSE = mean((p - c)^2) with c = n_syn / N.
set.seed(20261125)
n_wage <- 5000
wage_conf <- data.frame(
  sex = factor(sample(c("F", "M"), n_wage, replace = TRUE)),
  age = sample(18:80, n_wage, replace = TRUE))
wage_conf$wage <- round(exp(7.5 + 0.01 * wage_conf$age + 0.1 * (wage_conf$sex == "M") +
                              0.5 * rnorm(n_wage)), 2)
wage_syn <- wage_conf[sample(n_wage), ]
wage_syn$age <- pmin(80, pmax(18, wage_syn$age + sample(-2:2, n_wage, replace = TRUE)))
wage_syn$wage <- round(wage_syn$wage * exp(rnorm(n_wage, 0.005, 0.01)), 2)
write.csv(wage_conf, file.path(here, "wage_conf.csv"), row.names = FALSE)
write.csv(wage_syn, file.path(here, "wage_syn.csv"), row.names = FALSE)
stacked <- rbind(wage_syn, wage_conf)
stacked$t <- c(rep(1L, n_wage), rep(0L, n_wage))
wage_fit <- rpart(t ~ ., data = stacked, method = "class",
                  control = rpart.control(cp = 1e-3, minbucket = 5))
wage_p <- predict(wage_fit)[, 2]
wage_c <- n_wage / nrow(stacked)
many_distinct <- paste0(
  '"many_distinct": {"files": ["wage_conf.csv", "wage_syn.csv"]',
  ', "distinct_wage": ', length(unique(stacked$wage)),
  ', "leaves": ', sum(wage_fit$frame$var == "<leaf>"),
  ', "pMSE": ', formatC(sum((wage_p - wage_c)^2) / nrow(stacked), digits = 17, format = "g"), "}")
cases <- c(cases, many_distinct)
json <- paste0("{\n",
               '"source": "R ', paste(R.version$major, R.version$minor, sep = "."),
               ' rpart ', as.character(packageVersion("rpart")), '",\n',
               '"n_train": ', n_train, ', "n_test": ', n_test, ',\n',
               '"x1": ', num(x1), ',\n"x2": ', num(x2), ',\n"x3": ', num(x3), ',\n',
               '"g": ', int(as.integer(g) - 1L), ', "g_levels": ', str(levels(g)), ',\n',
               '"h": ', int(as.integer(h) - 1L), ', "h_levels": ', str(levels(h)), ',\n',
               paste(cases, collapse = ",\n"), "\n}\n")
writeLines(json, file.path(here, "rpart_golden.json"))
cat("wrote", file.path(here, "rpart_golden.json"), "\n")
