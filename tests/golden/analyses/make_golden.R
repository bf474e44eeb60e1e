# Golden values for the model analyses of analysis_inference_comparison beyond lm and the logistic
# glm (tests/unit/analysis_models_test.cpp): R's glm with the binomial (probit, cloglog), Poisson
# and Gaussian families, nnet::multinom, MASS::polr, survey::svyglm with quasibinomial(probit /
# cloglog) and quasipoisson, and the formula terms I(comparison), relevel(), poly(), scale(),
# log1p(), on the real SD2011 survey file (tests/data/sd2011/train.csv) and the real weighted
# survey tests/data/survey/apistrat.csv (design svydesign(ids = ~1, weights = ~pw)).
#
#   apt-get install -y r-base-core r-cran-survey r-cran-nnet r-cran-mass r-cran-numderiv
#   Rscript tests/golden/analyses/make_golden.R      (from the repository root)
#
# Writes golden.tsv next to itself: case, term, statistic (estimate | se), value. R 4.2.2, survey
# 4.1-1, nnet 7.3-18, MASS 7.3-58.2 (Debian bookworm).
#
# Convergence: glm.fit's default (relative deviance change 1e-8) is too loose to agree to 1e-6,
# so every glm is refitted with epsilon = 1e-14. multinom and polr optimise by BFGS with a
# relative tolerance, so their estimates are polished by Newton steps on R's own likelihood
# (multinom: the log-likelihood is recomputed from the coefficients with predict(type = "probs");
# polr: from MASS's own cumulative-logit probabilities), and the standard errors are those of the
# Hessian: nnet's analytic one (vcov.multinom with Hess = TRUE, re-evaluated at the polished
# estimate via multinomHess), and for polr numDeriv's Richardson-extrapolated Hessian of the
# polr log-likelihood (polr's own Hessian is optim's finite difference, good to about 1e-5; the
# script checks that it agrees to 1e-4).
suppressMessages({
  library(survey); library(nnet); library(MASS); library(numDeriv)
})
Sys.setlocale("LC_COLLATE", "C")  # factor levels in byte order, as synthaudit sorts them
here <- dirname(normalizePath(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE))))
root <- normalizePath(file.path(here, "..", "..", ".."))
sd <- read.csv(file.path(root, "tests/data/sd2011/train.csv"), stringsAsFactors = TRUE)
api <- read.csv(file.path(root, "tests/data/survey/apistrat.csv"), stringsAsFactors = TRUE)

rows <- list()
emit <- function(case, est, se) {
  stopifnot(length(est) == length(se), !is.null(names(est)))
  rows[[length(rows) + 1]] <<- data.frame(
    case = case, term = rep(names(est), 2), statistic = rep(c("estimate", "se"), each = length(est)),
    value = sprintf("%.17g", c(unname(est), unname(se))))
}
tight <- glm.control(epsilon = 1e-14, maxit = 200)
emit_glm <- function(case, fit) emit(case, coef(fit), sqrt(diag(vcov(fit))))

# --- glm families (unweighted) ---
emit_glm("probit", glm(smoke ~ age + sex + edu, data = sd, family = binomial(link = "probit"),
                       control = tight))
emit_glm("cloglog", glm(smoke ~ age + sex + edu, data = sd, family = binomial(link = "cloglog"),
                        control = tight))
emit_glm("poisson", glm(enroll ~ stype + api00 + meals, data = api, family = poisson,
                        control = tight))
emit_glm("gaussian", glm(log1p(income) ~ age + sex, data = sd, family = gaussian, control = tight))

# --- formula terms ---
emit_glm("terms_lm", lm(log1p(income) ~ I(age > 50) + relevel(edu, ref = "SECONDARY") +
                          poly(age, 3) + sex * I(age >= 40), data = sd))
emit_glm("terms_scale", glm(smoke ~ scale(age) + I(age^2/100 - age) + I((age <= 30) * 2) +
                              relevel(marital, ref = "SINGLE"), data = sd, family = binomial,
                            control = tight))
# poly and scale are evaluated on every row of the data, before na.omit drops the rows whose
# income is missing (model.frame's order): terms_lm's poly(age, 3) is orthogonal over all rows.

# --- multinomial logit ---
multinom_golden <- function(case, formula, data) {
  fit <- multinom(formula, data = data, Hess = TRUE, maxit = 10000, reltol = 1e-16,
                  abstol = 1e-300, trace = FALSE)
  mf <- model.frame(formula, data)
  X <- model.matrix(attr(mf, "terms"), mf)
  y <- model.response(mf)
  K <- nlevels(y)
  Y <- sapply(levels(y), function(l) as.numeric(y == l))
  B <- coef(fit)  # (K-1) x p
  # Newton polish on the exact likelihood with nnet's analytic Hessian.
  for (it in 1:20) {
    eta <- cbind(0, X %*% t(B))
    P <- exp(eta - apply(eta, 1, max)); P <- P / rowSums(P)
    g <- as.vector(crossprod(X, Y[, -1] - P[, -1]))  # level-major, as multinomHess orders
    fit$fitted.values <- P  # multinomHess reads the fitted probabilities
    H <- nnet:::multinomHess(fit, X)
    step <- solve(H, g)
    B <- B + matrix(step, nrow = K - 1, byrow = TRUE)
    if (max(abs(step)) < 1e-13) break
  }
  eta <- cbind(0, X %*% t(B))
  P <- exp(eta - apply(eta, 1, max)); P <- P / rowSums(P)
  fit$fitted.values <- P
  V <- solve(nnet:::multinomHess(fit, X))
  est <- as.vector(t(B))
  names(est) <- as.vector(t(outer(rownames(B), colnames(B), paste, sep = ":")))
  stopifnot(identical(names(est), rownames(V)))
  stopifnot(max(abs(est - as.vector(t(coef(fit))))) < 1e-3)
  emit(case, est, sqrt(diag(V)))
}
multinom_golden("multinom", edu ~ age + sex, sd)
multinom_golden("multinom_relevel", relevel(edu, ref = "SECONDARY") ~ age + sex + smoke, sd)

# --- proportional odds ---
polr_golden <- function(case, formula, data) {
  fit <- polr(formula, data = data, Hess = TRUE, control = list(reltol = 1e-16, maxit = 10000))
  X <- model.matrix(fit)[, -1, drop = FALSE]
  y <- as.integer(model.response(model.frame(formula, data)))
  K <- length(fit$zeta) + 1
  # The log-likelihood in polr's unconstrained parametrisation φ = (β, ζ_1, log(ζ_k − ζ_{k−1})),
  # so that numerical derivatives never step outside ζ_1 < ... < ζ_{K−1}.
  to_theta <- function(phi) {
    c(phi[seq_len(ncol(X))], cumsum(c(phi[ncol(X) + 1], exp(phi[ncol(X) + seq_len(K - 2) + 1]))))
  }
  loglik <- function(phi) {
    theta <- to_theta(phi)
    beta <- theta[seq_len(ncol(X))]
    zeta <- c(-Inf, theta[ncol(X) + seq_len(K - 1)], Inf)
    eta <- drop(X %*% beta)
    sum(log(plogis(zeta[y + 1] - eta) - plogis(zeta[y] - eta)))
  }
  phi <- c(coef(fit), fit$zeta[1], log(diff(fit$zeta)))
  for (it in 1:20) {
    g <- numDeriv::grad(loglik, phi)
    H <- numDeriv::hessian(loglik, phi)
    step <- -solve(H, g)
    phi <- phi + step
    if (max(abs(step)) < 1e-12) break
  }
  # At the maximum the covariance of θ is J Σ_φ J' with J = ∂θ/∂φ (exact: the gradient is 0).
  H <- numDeriv::hessian(loglik, phi)
  J <- numDeriv::jacobian(to_theta, phi)
  theta <- to_theta(phi)
  se <- sqrt(diag(J %*% solve(-H) %*% t(J)))
  names(theta) <- names(se) <- c(names(coef(fit)), names(fit$zeta))
  stopifnot(max(abs(theta - c(coef(fit), fit$zeta))) < 1e-4)
  stopifnot(max(abs(se / sqrt(diag(vcov(fit))) - 1)) < 1e-3)
  emit(case, theta, se)
}
polr_golden("polr", ls ~ age + sex + smoke, sd)
polr_golden("polr_terms", edu ~ poly(age, 2) + relevel(marital, ref = "SINGLE"), sd)

# --- design-weighted glm ---
design <- svydesign(ids = ~1, weights = ~pw, data = api)
emit_glm("svy_poisson", svyglm(enroll ~ stype + api00 + meals, design = design,
                               family = quasipoisson, control = tight))
emit_glm("svy_probit", svyglm(sch_wide ~ api99 + stype, design = design,
                              family = quasibinomial(link = "probit"), control = tight))
emit_glm("svy_cloglog", svyglm(sch_wide ~ api99 + stype, design = design,
                               family = quasibinomial(link = "cloglog"), control = tight))
emit_glm("svy_gaussian", svyglm(api00 ~ I(meals > 50) + poly(ell, 2), design = design,
                                family = gaussian, control = tight))

out <- do.call(rbind, rows)
write.table(out, file.path(here, "golden.tsv"), sep = "\t", quote = FALSE, row.names = FALSE)
cat("wrote", nrow(out), "values\n")
