# Hostile data frames (docs/limits.md): whatever an R session passes, the package evaluates it or
# stops with one line naming the table and the column; it never takes the session down. Each case
# runs in a child Rscript with this library path, so a crash shows as the child's exit status.

hostile_cases <- list(
  # name = c(code that sets conf and syn, "ok" or a phrase the error holds)
  "a list column" = c("conf <- base(); conf$l <- I(as.list(seq_len(n))); syn <- conf",
                      "'l'"),
  "NA in a character column" = c(
    "conf <- base(); conf$region <- rep(c('a', NA, 'b', 'NA'), length.out = n); syn <- conf", "ok"),
  "a column of NA only" = c("conf <- base(); conf$empty <- NA_real_; syn <- conf", "ok"),
  "infinite values" = c("conf <- base(); conf$age[3] <- Inf; syn <- conf", "age"),
  "a Date column" = c("conf <- base(); conf$when <- as.Date('2020-01-01'); syn <- conf", "when"),
  "complex numbers" = c("conf <- base(); conf$z <- complex(real = 1, imaginary = 2); syn <- conf",
                        "'z'"),
  "no rows" = c("conf <- base()[0, ]; syn <- base()", "no rows"),
  "a vector, not a data frame" = c("conf <- base()$age; syn <- base()", "must be a data.frame"),
  "synthetic columns the confidential data lack" = c(
    "conf <- base(); syn <- base(); names(syn)[2] <- 'gender'", "sex"),
  "a huge text value" = c(
    "conf <- base(); conf$note <- 'x'; conf$note[1] <- strrep('y', 3 * 2^20); syn <- conf",
    "longer than"),
  "a hundred thousand categories" = c(
    "conf <- data.frame(id = sprintf('r%d', 1:1e5), x = as.numeric(1:1e5)); syn <- conf", "ok"),
  "a line break in a level" = c(
    "conf <- base(); conf$odd <- rep(c('a\\nb', 'c'), length.out = n); syn <- conf", "ok")
)

run_hostile_case <- function(code) {
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "library(synthaudit)",
    "set.seed(1); n <- 200",
    "base <- function() data.frame(age = as.numeric(sample(18:80, n, TRUE)),",
    "  sex = sample(c('F', 'M'), n, TRUE), stringsAsFactors = FALSE)",
    code,
    "result <- tryCatch({",
    "  sa_evaluate(conf, list(s = syn), metrics = 'ks_distance,total_variation',",
    "              baseline_draws = 0, null_draws = 0)",
    "  'RESULT ok'",
    "}, error = function(e) {",
    "  message <- conditionMessage(e)",
    "  c(paste('RESULT error', length(strsplit(message, '\\n', fixed = TRUE)[[1]])),",
    "    paste('MESSAGE', gsub('\\n', '\\\\n', message, fixed = TRUE)))",
    "})",
    "writeLines(result)"), script)
  out <- tempfile()
  status <- system2(file.path(R.home("bin"), "Rscript"), shQuote(script), stdout = out,
                    stderr = out, env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":")))
  list(status = status, lines = readLines(out, warn = FALSE))
}

for (name in names(hostile_cases)) {
  local({
    case <- hostile_cases[[name]]
    test_that(paste("hostile data frame:", name), {
      done <- run_hostile_case(case[[1]])
      expect_equal(done$status, 0, info = paste(done$lines, collapse = "\n"))
      result <- grep("^RESULT ", done$lines, value = TRUE)
      message <- sub("^MESSAGE ", "", grep("^MESSAGE ", done$lines, value = TRUE))
      expect_length(result, 1)
      if (case[[2]] == "ok") {
        expect_identical(result, "RESULT ok", info = paste(message, collapse = " "))
      } else {
        expect_identical(result, "RESULT error 1", info = paste(message, collapse = " "))
        expect_match(message, case[[2]], fixed = TRUE)
      }
    })
  })
}
