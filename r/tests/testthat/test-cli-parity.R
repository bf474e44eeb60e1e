# The package and the command line on the same files: a real survey (SD2011, with factors, missing
# values and a missing-value code), three synthetic replicates and a holdout. The command line
# reads the CSV files; the package gets the data.frames read.csv makes of the same files. Every
# value must be identical, not merely close.
test_that("the package and the command line give identical values on the same files", {
  skip_without_cli()
  dir <- tempfile("parity")
  dir.create(dir)
  read <- function(path, factors) {
    read.csv(path, na.strings = c("", "NA"), stringsAsFactors = factors)
  }
  # A logical column too (NA where smoke is missing), as write.csv spells it: TRUE / FALSE.
  with_logical <- function(frame) {
    frame$smoker <- frame$smoke == "YES"
    frame
  }
  orig <- with_logical(read(test_data("sd2011", "orig.csv"), FALSE))
  syn <- with_logical(read(test_data("sd2011", "syn.csv"), FALSE))
  holdout <- with_logical(read(test_data("sd2011", "holdout.csv"), FALSE))
  set.seed(2011)
  replicates <- list(syn, syn[sample(nrow(syn), replace = TRUE), ],
                     syn[sample(nrow(syn), 4000), ])
  files <- file.path(dir, c("conf.csv", "holdout.csv", "rep1.csv", "rep2.csv", "rep3.csv"))
  tables <- c(list(orig, holdout), replicates)
  for (i in seq_along(files)) write.csv(tables[[i]], files[i], row.names = FALSE, na = "")
  writeLines(c("confidential: conf.csv", "holdout: holdout.csv", "candidates:",
               "  - name: cart", "    replicates: [rep1.csv, rep2.csv, rep3.csv]",
               "missing_codes:", "  income: [-8]"),
             file.path(dir, "spec.yaml"))

  keys <- c("sex", "age", "edu", "marital")
  analyses <- c("lm: income ~ age + factor(sex)", "mean: income")
  metrics <- "all"
  out <- file.path(dir, "out")
  cli <- run_cli(c("evaluate", "--spec", file.path(dir, "spec.yaml"), "--keys",
                   paste(keys, collapse = ","), "--targets", "smoke",
                   paste0("--analysis=", analyses), "--metrics", metrics,
                   "--param", "ks_distance.pvalue=true", "--seed", "7", "--threads", "2",
                   "--out", out, "--quiet"))
  expect_true(cli$status %in% c(0L, 3L), info = paste(cli$stderr, collapse = "\n"))

  # Factors in the confidential data and the holdout, character in the replicates; m = 3 as a
  # synthpop synds object.
  confidential <- read(files[1], TRUE)
  synds <- structure(list(syn = lapply(files[3:5], read, factors = FALSE), m = 3L),
                     class = "synds")
  expect_true(is.factor(confidential$edu) && anyNA(confidential$income) &&
                is.logical(synds$syn[[1]]$smoker))
  package <- sa_evaluate(confidential, synds, holdout = read(files[2], TRUE), keys = keys,
                         targets = "smoke", analyses = analyses, metrics = metrics,
                         params = list(ks_distance = list(pvalue = TRUE)), seed = 7,
                         threads = 2, name = "cart", missing_codes = list(income = -8))

  from_cli <- sa_read_results(file.path(out, "results.json"))
  expect_gt(nrow(package), 1000)
  expect_true(all(c("1", "2", "3", "mean", "combined") %in% package$replicate))
  expect_identical(table_of(package), table_of(from_cli))
  expect_identical(attr(package, "verdict"), attr(from_cli, "verdict"))

  # results.tsv read by R's own parser, which may miss the last bit of a 17-digit number.
  tsv <- read.delim(file.path(out, "results.tsv"), colClasses = c(rep("character", 5), "numeric"),
                    na.strings = "NA")
  expect_identical(as.list(tsv[1:5]), table_of(package)[1:5])
  expect_equal(tsv$value, package$value, tolerance = 1e-15)
})

# weights, by and by_min_rows do what --weights, --by and --by-min-rows do, on the real weighted
# api survey (stype M has 48 synthetic rows, so it is suppressed below 49 rows).
test_that("weights and subgroups give the command line's values", {
  skip_without_cli()
  conf_file <- test_data("survey", "apistrat.csv")
  syn_file <- test_data("survey", "apistrat_syn.csv")
  metrics <- c("ks_distance", "correlation_fit", "mean_in_confidence_interval")
  out <- tempfile("by")
  cli <- run_cli(c("evaluate", "--confidential", conf_file, "--synthetic",
                   paste0("c=", syn_file), "--weights", "pw", "--by", "stype",
                   "--by-min-rows", "49", "--metrics", paste(metrics, collapse = ","),
                   "--param", "correlation_fit.contour_pairs=0", "--seed", "3", "--threads", "1",
                   "--out", out, "--quiet"))
  expect_true(cli$status %in% c(0L, 3L), info = paste(cli$stderr, collapse = "\n"))
  conf <- read.csv(conf_file, stringsAsFactors = TRUE)
  syn <- read.csv(syn_file, stringsAsFactors = TRUE)
  package <- sa_evaluate(conf, list(c = syn), metrics = metrics,
                         params = list(correlation_fit = list(contour_pairs = 0)), seed = 3,
                         threads = 1, weights = "pw", by = "stype", by_min_rows = 49)
  expect_identical(table_of(package), table_of(sa_read_results(file.path(out, "results.json"))))
  expect_true(any(startsWith(package$scope, "by:stype=E;")))
  suppressed <- package$scope[package$statistic == "suppressed"]
  expect_gt(length(suppressed), 0)
  expect_true(all(startsWith(suppressed, "by:stype=M")))
  expect_false(any(grepl("pw", package$scope, fixed = TRUE)))

  expect_error(sa_evaluate(conf, list(c = syn), metrics = "ks_distance", by = "nope"), "nope")
  expect_error(sa_evaluate(conf, list(c = syn), metrics = "ks_distance", by = "stype",
                           by_min_rows = 0), "by_min_rows: must be between 1 and 1000000000")
  expect_error(sa_evaluate(conf, list(c = syn), metrics = "ks_distance", weights = c("a", "b")),
               "weights: expected a text value")
  expect_error(sa_evaluate(conf, list(c = syn), metrics = "ks_distance", weights = "nope"),
               "nope")
  expect_error(sa_evaluate(conf, list(c = syn), metrics = "ks_distance", household = "nope"),
               "nope")
})
