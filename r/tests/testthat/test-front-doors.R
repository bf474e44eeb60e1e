# The R door gives what the command line gives: the same options (sa_evaluate's formals are the
# option table's) and the same protections (a spec file's safe_output withholds what the command
# line withholds, on real survey data).

test_that("the formals are the option table's", {
  skip_without_cli()
  declared <- run_cli(c("options"))$stdout
  table <- vapply(strsplit(declared, "\t", fixed = TRUE), `[`, character(1), 4)
  table <- table[table != "-"]
  expected <- c("confidential", "synthetic", "holdout", table, "name")
  expect_identical(names(formals(sa_evaluate)), expected)
  expect_true(all(vapply(formals(sa_evaluate)[table], is.null, logical(1))))
  expect_error(sa_evaluate(small_confidential(), list(a = small_synthetic(1)), sead = 1),
               "unused argument")
})

test_that("a spec file's safe_output is honoured and equals the command line's", {
  skip_without_cli()
  folder <- dirname(test_data("sd2011", "train.csv"))
  work <- tempfile("doors")
  dir.create(work)
  for (name in c("train.csv", "train_syn.csv", "holdout.csv"))
    file.copy(file.path(folder, name), file.path(work, name))
  spec <- file.path(work, "safe.yaml")
  writeLines(c("confidential: train.csv", "candidates: [{name: cart, replicates: [train_syn.csv]}]",
               "holdout: holdout.csv", "missing_codes: {income: -8}",
               "disclosure: [{keys: [sex, age, edu, marital], targets: [smoke]}]",
               "metrics: [column_summaries, k_anonymity, distance_to_closest_record]",
               "baseline_draws: 1", "safe_output: true"), spec)
  read <- function(name) read.csv(file.path(work, name), na.strings = c("", "NA"),
                                  stringsAsFactors = FALSE)
  package <- sa_evaluate(read("train.csv"), list(cart = read("train_syn.csv")),
                         read("holdout.csv"), spec = spec)
  document <- attr(package, "document")
  expect_true(grepl("\"output_check\"", document, fixed = TRUE))
  out <- file.path(work, "out")
  cli <- run_cli(c("evaluate", "--spec", spec, "--out", out, "--quiet"))
  expect_true(cli$status %in% c(0L, 3L), info = paste(cli$stderr, collapse = "\n"))
  from_cli <- sa_read_results(file.path(out, "results.json"))
  expect_identical(table_of(package), table_of(from_cli))
  expect_identical(attr(package, "verdict"), attr(from_cli, "verdict"))
  # The scan of the released files finds no record's value (and finds some without the check).
  registry <- file.path(work, "registry.json")
  writeLines(run_cli(c("list-metrics", "--json"))$stdout, registry)
  scan <- function(results, name) {
    files <- file.path(work, paste0(name, c(".json", ".html", ".md")))
    sa_report(results, files[1], format = "json")
    sa_report(results, files[2], format = "html")
    sa_report(results, files[3], format = "md")
    system2("python3", c(file.path(dirname(dirname(folder)), "cli", "safe_output_scan.py"), "10",
                         paste0(file.path(work, "train.csv"), ",", file.path(work, "holdout.csv")),
                         registry, files), stdout = FALSE, stderr = FALSE)
  }
  expect_equal(scan(package, "safe"), 0L)
  open_spec <- file.path(work, "open.yaml")
  writeLines(setdiff(readLines(spec), "safe_output: true"), open_spec)
  unchecked <- sa_evaluate(read("train.csv"), list(cart = read("train_syn.csv")),
                           read("holdout.csv"), spec = open_spec)
  expect_equal(scan(unchecked, "open"), 1L)
  expect_error(sa_evaluate(read("train.csv"), list(cart = read("train_syn.csv")),
                           read("holdout.csv"), spec = spec, safe_output = FALSE),
               "may raise the threshold but not turn output checking off")
})

test_that("the policy's utility floor reaches the verdict, and a policy list turns it off", {
  folder <- dirname(test_data("sd2011", "train.csv"))
  read <- function(name) read.csv(file.path(folder, name), na.strings = c("", "NA"),
                                  stringsAsFactors = FALSE)
  conf <- read("train.csv")
  cart <- read("train_syn.csv")
  set.seed(11)
  # Each column drawn on its own: safe, and no relationship between columns kept.
  indep <- as.data.frame(lapply(conf, function(column) column[sample.int(nrow(conf), nrow(cart),
                                                                            replace = TRUE)]),
                         stringsAsFactors = FALSE)
  audit <- function(policy) {
    attr(sa_evaluate(conf, list(cart = cart, indep = indep), read("holdout.csv"),
                     metrics = "general,propensity,distance_to_closest_record",
                     missing_codes = list(income = -8), threads = 2, policy = policy), "verdict")
  }
  floor_of <- function(verdict, name) {
    candidate <- Filter(function(c) c$name == name, verdict$candidates)[[1]]
    Filter(function(k) k$criterion == "utility_floor", candidate$checks)
  }
  judged <- audit(list(require_default_checks = FALSE))
  statuses <- setNames(vapply(judged$candidates, `[[`, character(1), "status"),
                       vapply(judged$candidates, `[[`, character(1), "name"))
  expect_identical(statuses[["indep"]], "fail")
  expect_lt(floor_of(judged, "indep")[[1]]$value, 0.25)
  expect_identical(floor_of(judged, "cart")[[1]]$status, "pass")
  expect_false(identical(judged$recommended, "indep"))
  off <- audit(list(require_default_checks = FALSE, utility_floor = FALSE))
  expect_length(floor_of(off, "indep"), 0L)
})
