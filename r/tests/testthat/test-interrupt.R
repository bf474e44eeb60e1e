# Ctrl-C during a long evaluation (docs/limits.md): R's interrupt within 2 s, from inside a long
# step (a nearest-neighbour search). The evaluation runs in a child Rscript, which the test
# interrupts with SIGINT as a terminal would; the child reports through a file.

test_that("SIGINT stops a long search within 2 s with R's interrupt", {
  skip_on_os("windows")
  report <- tempfile()
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "library(synthaudit)",
    sprintf("report <- '%s'", report),
    "set.seed(1)",
    "frame <- function(n) as.data.frame(setNames(lapply(1:8, function(i) rnorm(n)), paste0('x', 1:8)))",
    "conf <- frame(4e5); syn <- frame(4e5)",
    "cat(Sys.getpid(), '\\n', file = report)",
    "outcome <- tryCatch({",
    "  sa_evaluate(conf, list(s = list(syn)), metrics = 'distance_to_closest_record',",
    "              baseline_draws = 0, null_draws = 0, threads = 2)",
    "  'FINISHED'",
    "}, interrupt = function(condition) 'INTERRUPTED')",
    "cat(outcome, as.numeric(Sys.time()), '\\n', file = report, append = TRUE)"),
    script)
  system2(file.path(R.home("bin"), "Rscript"), shQuote(script), wait = FALSE,
          stdout = FALSE, stderr = FALSE,
          env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":")))
  lines <- character()
  for (i in 1:600) {
    if (file.exists(report)) lines <- readLines(report, warn = FALSE)
    if (length(lines) >= 1) break
    Sys.sleep(0.1)
  }
  expect_gte(length(lines), 1)
  pid <- as.integer(trimws(lines[[1]]))
  Sys.sleep(3)  # inside the search by now
  lines <- readLines(report, warn = FALSE)
  expect_length(lines, 1)  # still running
  sent <- as.numeric(Sys.time())
  tools::pskill(pid, tools::SIGINT)
  for (i in 1:300) {
    lines <- readLines(report, warn = FALSE)
    if (length(lines) >= 2) break
    Sys.sleep(0.05)
  }
  if (length(lines) < 2) tools::pskill(pid, tools::SIGKILL)
  expect_gte(length(lines), 2)
  fields <- strsplit(trimws(lines[[2]]), " +")[[1]]
  expect_identical(fields[[1]], "INTERRUPTED")
  expect_lt(as.numeric(fields[[length(fields)]]) - sent, 2)
})
