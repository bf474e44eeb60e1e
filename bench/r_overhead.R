# Overhead of the R package over the command line on the same data (bench/RESULTS.md).
#
#   Rscript bench/r_overhead.R BUILD_DIR [ROWS] [METRICS] [RUNS]
#
# Simulates ROWS confidential rows (default 100000), a holdout of ROWS / 4 and one candidate with
# 3 replicates (the simulator's "ideal"), then times, RUNS times each (default 3, median kept):
#   cli:  `synthaudit evaluate` on the CSV files, end to end (reading, metrics, writing
#         results.json, results.tsv and report.html);
#   R:    sa_evaluate() on the data.frames read.csv made of the same files (conversion, metrics,
#         results), and sa_evaluate() + sa_report() (the HTML report too).
# The package must be installed (R CMD INSTALL r) from the same build. Both use 2 threads.
args <- commandArgs(trailingOnly = TRUE)
build <- if (length(args) >= 1) args[1] else "build"
rows <- if (length(args) >= 2) as.integer(args[2]) else 100000L
metrics <- if (length(args) >= 3) args[3] else "general"
runs <- if (length(args) >= 4) as.integer(args[4]) else 3L
threads <- 2L
cli <- normalizePath(file.path(build, "synthaudit"))
suppressPackageStartupMessages(library(synthaudit))

dir <- tempfile("r-overhead")
dir.create(dir)
stopifnot(system2(cli, c("simulate", "--rows", rows, "--replicates", 3, "--out",
                         shQuote(file.path(dir, "data"))), stdout = FALSE) == 0)
data <- file.path(dir, "data")
replicates <- file.path(data, paste0("ideal_", 1:3, ".csv"))
writeLines(c("confidential: confidential.csv", "holdout: holdout.csv", "candidates:",
             "  - name: ideal",
             paste0("    replicates: [", paste(basename(replicates), collapse = ", "), "]")),
           file.path(data, "bench.yaml"))

elapsed <- function(expr) unname(system.time(expr)["elapsed"])
median_of <- function(f) median(vapply(seq_len(runs), function(i) f(), numeric(1)))

out <- file.path(dir, "out")
cli_seconds <- median_of(function() elapsed(stopifnot(system2(
  cli, c("evaluate", "--spec", shQuote(file.path(data, "bench.yaml")), "--metrics", metrics,
         "--seed", 1, "--threads", threads, "--out", shQuote(out), "--quiet"),
  stdout = FALSE) %in% c(0L, 3L))))

read <- function(path) read.csv(path, na.strings = c("", "NA"), stringsAsFactors = TRUE)
read_seconds <- elapsed({
  confidential <- read(file.path(data, "confidential.csv"))
  holdout <- read(file.path(data, "holdout.csv"))
  synthetic <- list(ideal = lapply(replicates, read))
})
evaluate <- function() {
  sa_evaluate(confidential, synthetic, holdout = holdout, metrics = metrics, seed = 1,
              threads = threads)
}
r_seconds <- median_of(function() elapsed(evaluate()))
report <- file.path(dir, "report.html")
r_report_seconds <- median_of(function() elapsed(sa_report(evaluate(), report)))

same <- identical(as.list(evaluate())[1:6],
                  as.list(sa_read_results(file.path(out, "results.json")))[1:6])
cat(sprintf("rows %d (+ holdout %d, 3 replicates), %d columns, metrics %s, %d threads, median of %d\n",
            rows, nrow(holdout), ncol(confidential), metrics, threads, runs))
cat(sprintf("load average at the end: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
cat(sprintf("cli evaluate (read CSV, metrics, write json/tsv/html): %.2f s\n", cli_seconds))
cat(sprintf("R sa_evaluate (data.frames in memory):                 %.2f s  (%+.1f %%)\n",
            r_seconds, 100 * (r_seconds / cli_seconds - 1)))
cat(sprintf("R sa_evaluate + sa_report (html):                     %.2f s  (%+.1f %%)\n",
            r_report_seconds, 100 * (r_report_seconds / cli_seconds - 1)))
cat(sprintf("R read.csv of the five files (not in the figures above): %.2f s\n", read_seconds))
cat(sprintf("values identical to the command line's: %s\n", same))
