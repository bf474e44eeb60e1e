# Golden values for the design-weighted multinomial and proportional-odds analyses of
# analysis_inference_comparison (tests/unit/analysis_models_test.cpp, the weighted_* cases) on the
# real weighted survey tests/data/survey/apistrat.csv, design svydesign(ids = ~1, weights = ~pw).
#
#   apt-get install -y r-base-core r-cran-survey r-cran-nnet r-cran-mass r-cran-numderiv
#   Rscript tests/golden/analyses/make_weighted_categorical_golden.R   (from the repository root)
#
# Writes weighted_categorical.tsv next to itself (case, term, statistic, value), the layout of
# golden.tsv. R 4.2.2, survey 4.1-1, nnet 7.3-18, MASS 7.3-58.2 (Debian bookworm).
#
# polr: the weighted polr likelihood Newton-polished with numDeriv's derivatives, and svyolr's
# sandwich (influence functions u_i A⁻¹ through survey's svyrecvar) with exact derivatives; the
# script checks that survey::svyolr itself agrees to 1e-7 when optim's BFGS runs to reltol = 1e-16
# and its finite-difference Hessian takes steps of 1e-7. (With svyolr's default steps of 1e-3 its
# standard errors are off by up to 12 % here: api00's coefficient is small against api00's range.)
# multinom: survey has no design-weighted multinomial model. The point estimate is
# nnet::multinom(weights = pw), polished by Newton steps on the weighted likelihood; the
# covariance is the linearisation estimator that svyolr and svyglm use, computed here by hand:
# influence functions u_i A⁻¹ (u_i = w_i (y_i − p_i) ⊗ x_i the weighted score of row i, A the
# information of the weighted log-likelihood, checked against numDeriv's Hessian) and
# survey::svyrecvar on the design, i.e. n/(n − 1) Σ (z_i − z̄)(z_i − z̄)' over the n rows of the
# design, rows dropped for a missing value counting with z_i = 0 (as svyolr's design keeps them;
# the "_missing" cases blank meals on every 7th row to show it).
suppressMessages({
  library(survey); library(nnet); library(MASS); library(numDeriv)
})
Sys.setlocale("LC_COLLATE", "C")
here <- dirname(normalizePath(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE))))
root <- normalizePath(file.path(here, "..", "..", ".."))
api <- read.csv(file.path(root, "tests/data/survey/apistrat.csv"), stringsAsFactors = TRUE)
api$meals_missing <- ifelse(seq_len(nrow(api)) %% 7 == 0, NA, api$meals)
design <- svydesign(ids = ~1, weights = ~pw, data = api)

rows <- list()
emit <- function(case, est, se) {
  stopifnot(length(est) == length(se), !is.null(names(est)))
  rows[[length(rows) + 1]] <<- data.frame(
    case = case, term = rep(names(est), 2), statistic = rep(c("estimate", "se"), each = length(est)),
    value = sprintf("%.17g", c(unname(est), unname(se))))
}
# The with-replacement linearisation variance of influence functions given for the complete rows
# `used` of the design (zero elsewhere), as svyolr and svyglm compute it.
linearised <- function(influence, used) {
  full <- matrix(0, nrow(api), ncol(influence))
  full[used, ] <- influence
  svyrecvar(full, design$cluster, design$strata, design$fpc, postStrata = design$postStrata)
}

weighted_polr <- function(case, formula) {
  k <- length(coef(svyolr(formula, design)))
  fit <- svyolr(formula, design,
                control = list(reltol = 1e-16, maxit = 10000, ndeps = rep(1e-7, k)))
  mf <- model.frame(formula, api)
  used <- as.integer(rownames(mf))
  X <- model.matrix(attr(mf, "terms"), mf)[, -1, drop = FALSE]
  y <- as.integer(model.response(mf))
  w <- api$pw[used]
  K <- length(fit$zeta) + 1
  p <- ncol(X)
  # By hand: the weighted log-likelihood in polr's unconstrained parametrisation, Newton-polished.
  to_theta <- function(phi) c(phi[seq_len(p)], cumsum(c(phi[p + 1], exp(phi[p + seq_len(K - 2) + 1]))))
  row_loglik <- function(theta) {
    zeta <- c(-Inf, theta[p + seq_len(K - 1)], Inf)
    eta <- drop(X %*% theta[seq_len(p)])
    log(plogis(zeta[y + 1] - eta) - plogis(zeta[y] - eta))
  }
  loglik <- function(phi) sum(w * row_loglik(to_theta(phi)))
  phi <- c(coef(fit, intercepts = FALSE), fit$zeta[1], log(diff(fit$zeta)))
  for (it in 1:20) {
    step <- -solve(numDeriv::hessian(loglik, phi), numDeriv::grad(loglik, phi))
    phi <- phi + step
    if (max(abs(step)) < 1e-12) break
  }
  theta <- to_theta(phi)
  # Derivatives in φ (whose steps never leave the ordered cut-points), carried to θ by the inverse
  # Jacobian: exact at the maximum, where the gradient is 0.
  Jinv <- solve(numDeriv::jacobian(to_theta, phi))
  A <- -t(Jinv) %*% numDeriv::hessian(loglik, phi) %*% Jinv
  U <- w * numDeriv::jacobian(function(f) row_loglik(to_theta(f)), phi) %*% Jinv
  V <- linearised(U %*% solve(A), used)
  names(theta) <- c(colnames(X), names(fit$zeta))
  est <- coef(fit)
  se <- sqrt(diag(vcov(fit)))
  stopifnot(identical(names(est), names(theta)))
  stopifnot(max(abs(est - theta) / pmax(1, abs(theta))) < 1e-7)
  stopifnot(max(abs(se / sqrt(diag(V)) - 1)) < 1e-7)
  emit(case, theta, sqrt(diag(V)))
}
weighted_polr("weighted_polr", stype ~ api00 + meals + sch_wide)
weighted_polr("weighted_polr_missing", stype ~ api99 + meals_missing)

weighted_multinom <- function(case, formula) {
  mf <- model.frame(formula, api)
  used <- as.integer(rownames(mf))
  w <- api$pw[used]
  fit <- multinom(formula, data = api[used, ], weights = pw, maxit = 10000, reltol = 1e-16,
                  abstol = 1e-300, trace = FALSE)
  X <- model.matrix(attr(mf, "terms"), mf)
  y <- model.response(mf)
  K <- nlevels(y)
  Y <- sapply(levels(y), function(l) as.numeric(y == l))
  probs <- function(B) {
    eta <- cbind(0, X %*% t(B))
    P <- exp(eta - apply(eta, 1, max))
    P / rowSums(P)
  }
  # Information of the weighted log-likelihood, level-major: block (a, b) = Σ w p_a (δ_ab − p_b) x x'.
  information <- function(P) {
    p <- ncol(X)
    A <- matrix(0, (K - 1) * p, (K - 1) * p)
    for (a in 2:K) for (b in 2:K) {
      v <- w * P[, a] * ((a == b) - P[, b])
      A[(a - 2) * p + 1:p, (b - 2) * p + 1:p] <- crossprod(X, v * X)
    }
    A
  }
  B <- coef(fit)
  if (is.null(dim(B))) B <- matrix(B, nrow = 1)
  for (it in 1:20) {
    P <- probs(B)
    g <- as.vector(crossprod(X, w * (Y[, -1] - P[, -1])))
    step <- solve(information(P), g)
    B <- B + matrix(step, nrow = K - 1, byrow = TRUE)
    if (max(abs(step)) < 1e-13) break
  }
  P <- probs(B)
  A <- information(P)
  theta <- as.vector(t(B))
  loglik <- function(t) {
    eta <- cbind(0, X %*% t(matrix(t, nrow = K - 1, byrow = TRUE)))
    sum(w * (rowSums(Y * eta) - log(rowSums(exp(eta)))))
  }
  stopifnot(max(abs(A + numDeriv::hessian(loglik, theta)) / max(abs(A))) < 1e-6)
  R <- w * (Y[, -1, drop = FALSE] - P[, -1, drop = FALSE])
  U <- do.call(cbind, lapply(seq_len(K - 1), function(a) R[, a] * X))
  stopifnot(max(abs(colSums(U))) < 1e-8 * max(abs(U)) * nrow(U))
  V <- linearised(U %*% solve(A), used)
  names(theta) <- as.vector(t(outer(levels(y)[-1], colnames(X), paste, sep = ":")))
  stopifnot(max(abs(theta - as.vector(t(coef(fit))))) < 1e-3)
  emit(case, theta, sqrt(diag(V)))
}
weighted_multinom("weighted_multinom", stype ~ api00 + meals + sch_wide)
weighted_multinom("weighted_multinom_missing", stype ~ api99 + meals_missing)

out <- do.call(rbind, rows)
write.table(out, file.path(here, "weighted_categorical.tsv"), sep = "\t", quote = FALSE,
            row.names = FALSE)
cat("wrote", nrow(out), "values\n")
