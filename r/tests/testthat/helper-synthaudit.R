# The synthaudit command line to compare with ($SYNTHAUDIT, set by `make test`) and the project's
# test data ($SYNTHAUDIT_TEST_DATA, or tests/data of the source tree around r/).
cli_path <- function() Sys.getenv("SYNTHAUDIT")

skip_without_cli <- function() {
  skip_if(cli_path() == "", "SYNTHAUDIT (the command line to compare with) is not set")
}

test_data <- function(...) {
  dir <- Sys.getenv("SYNTHAUDIT_TEST_DATA")
  if (dir == "") dir <- file.path("..", "..", "..", "tests", "data")
  path <- file.path(dir, ...)
  if (!file.exists(path)) stop("test data missing: ", path)
  path
}

# Runs the command line; returns its exit status, stdout and stderr.
run_cli <- function(args) {
  out <- tempfile()
  err <- tempfile()
  status <- system2(cli_path(), shQuote(args), stdout = out, stderr = err)
  list(status = status, stdout = readLines(out, warn = FALSE),
       stderr = readLines(err, warn = FALSE))
}

# A small table with every column type the package takes.
small_confidential <- function() {
  data.frame(
    age = c(23L, 35L, 41L, 52L, 67L, 29L, NA, 44L, 38L, 57L, 31L, 48L),
    sex = factor(c("F", "M", "F", "M", "F", "F", "M", NA, "M", "F", "M", "F")),
    region = c("n", "s", "e", "w", "n", "s", NA, "e", "w", "n", "s", "e"),
    smoker = c(TRUE, FALSE, NA, TRUE, FALSE, FALSE, TRUE, FALSE, TRUE, FALSE, FALSE, TRUE),
    income = c(1200, 2500, NA, 3100, 800, 1500, 2100, NaN, 1900, 2700, 1650, 2950),
    stringsAsFactors = FALSE)
}

small_synthetic <- function(seed) {
  set.seed(seed)
  conf <- small_confidential()
  syn <- conf[sample(nrow(conf), replace = TRUE), ]
  syn$income <- round(syn$income * runif(nrow(syn), 0.9, 1.1))
  rownames(syn) <- NULL
  syn
}

result_columns <- c("candidate", "replicate", "metric", "statistic", "scope", "value")

# The table alone, without the attributes.
table_of <- function(results) as.list(results)[result_columns]
