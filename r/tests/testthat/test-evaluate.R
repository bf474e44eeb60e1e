test_that("sa_evaluate returns the results.tsv columns with the verdict, warnings and document", {
  conf <- small_confidential()
  results <- sa_evaluate(conf, list(boot = list(small_synthetic(1), small_synthetic(2))),
                         metrics = "general", seed = 3)
  expect_s3_class(results, "data.frame")
  expect_named(results, result_columns)
  expect_type(results$value, "double")
  expect_setequal(unique(results$replicate[results$candidate == "boot"]), c("1", "2", "mean"))
  # The candidate and the baselines: resamples, and the utility floor's independent marginals.
  expect_true(all(results$candidate %in% c("boot", "resample", "independent_marginals")))
  expect_true("ks_distance" %in% results$metric)
  expect_type(attr(results, "warnings"), "character")
  expect_match(attr(results, "document"), "\"schema\":\"synthaudit/1\"", fixed = TRUE)
  verdict <- attr(results, "verdict")
  expect_true(is.null(verdict) || is.list(verdict))
})

test_that("factor, character and logical columns give the same results as their text", {
  conf <- small_confidential()
  syn <- list(small_synthetic(1), small_synthetic(2))
  as_text <- function(frame) {
    frame$sex <- as.character(frame$sex)
    frame$smoker <- ifelse(is.na(frame$smoker), NA, ifelse(frame$smoker, "TRUE", "FALSE"))
    frame$region <- factor(frame$region, levels = c("w", "s", "n", "e", "unused"))
    frame
  }
  typed <- sa_evaluate(conf, list(a = syn), metrics = "general", seed = 5)
  text <- sa_evaluate(as_text(conf), list(a = lapply(syn, as_text)), metrics = "general",
                      seed = 5)
  expect_identical(table_of(typed), table_of(text))
})

test_that("an NA level of a factor (synthpop's addNA) is missing, as NA is", {
  conf <- small_confidential()
  syn <- small_synthetic(1)
  with_na_level <- syn
  with_na_level$sex <- addNA(with_na_level$sex)
  expect_true(anyNA(levels(with_na_level$sex)))
  expect_identical(table_of(sa_evaluate(conf, list(a = syn), metrics = "general")),
                   table_of(sa_evaluate(conf, list(a = with_na_level), metrics = "general")))
})

test_that("integer and double columns give the same results", {
  conf <- small_confidential()
  doubled <- conf
  doubled$age <- as.numeric(doubled$age)
  syn <- list(small_synthetic(1))
  expect_identical(table_of(sa_evaluate(conf, list(a = syn), metrics = "general")),
                   table_of(sa_evaluate(doubled, list(a = syn), metrics = "general")))
})

test_that("a synthpop synds object is a candidate named by name, with its m replicates", {
  conf <- small_confidential()
  reps <- list(small_synthetic(1), small_synthetic(2), small_synthetic(3))
  synds <- structure(list(syn = reps, m = 3L, method = "cart"), class = "synds")
  from_synds <- sa_evaluate(conf, synds, metrics = "general", name = "cart")
  from_list <- sa_evaluate(conf, list(cart = reps), metrics = "general")
  expect_identical(table_of(from_synds), table_of(from_list))
  expect_true(all(c("1", "2", "3", "mean") %in% from_synds$replicate))
  expect_true("synthpop" %in% sa_evaluate(conf, synds, metrics = "ks_distance")$candidate)

  one <- structure(list(syn = reps[[1]], m = 1L), class = "synds")
  expect_identical(table_of(sa_evaluate(conf, list(x = one), metrics = "general")),
                   table_of(sa_evaluate(conf, list(x = reps[[1]]), metrics = "general")))
  broken <- structure(list(syn = reps[1:2], m = 3L), class = "synds")
  expect_error(sa_evaluate(conf, broken), "m = 3 but 2 data.frame", fixed = TRUE)
})

test_that("params is metric -> parameter -> value, as --param", {
  conf <- small_confidential()
  syn <- list(a = small_synthetic(1))
  plain <- sa_evaluate(conf, syn, metrics = "ks_distance")
  with_p <- sa_evaluate(conf, syn, metrics = "ks_distance",
                        params = list(ks_distance = list(pvalue = TRUE)))
  expect_false("ks_pvalue_independent" %in% plain$statistic)
  expect_true("ks_pvalue_independent" %in% with_p$statistic)
  expect_error(sa_evaluate(conf, syn, metrics = "ks_distance",
                           params = list(ks_distance = list(pvalue = 3))),
               "ks_distance.pvalue: expected true or false", fixed = TRUE)
  expect_error(sa_evaluate(conf, syn, params = list(ks_distance = list(pvalu = TRUE))),
               "did you mean 'pvalue'", fixed = TRUE)
})

test_that("results do not depend on the thread count", {
  conf <- small_confidential()
  syn <- list(a = list(small_synthetic(1), small_synthetic(2)))
  expect_identical(table_of(sa_evaluate(conf, syn, metrics = "general", threads = 1)),
                   table_of(sa_evaluate(conf, syn, metrics = "general", threads = 2)))
})

test_that("bad input stops with one line naming the place", {
  conf <- small_confidential()
  syn <- small_synthetic(1)
  no_age <- syn[, setdiff(names(syn), "age")]
  expect_error(sa_evaluate(conf, list(a = no_age)),
               "synthetic 'a' replicate 1: column 'age' of the confidential data is missing",
               fixed = TRUE)
  text_age <- syn
  text_age$age <- as.character(text_age$age)
  expect_error(sa_evaluate(conf, list(a = text_age)),
               "synthetic 'a' replicate 1: column 'age' is categorical here but numeric",
               fixed = TRUE)
  infinite <- syn
  infinite$income[3] <- Inf
  expect_error(sa_evaluate(conf, list(a = infinite)), "row 3, column 'income'", fixed = TRUE)
  dated <- syn
  dated$when <- Sys.Date()
  expect_error(sa_evaluate(dated, list(a = syn)), "column 'when' is of class 'Date'",
               fixed = TRUE)
  expect_error(sa_evaluate(conf, list(a = syn), metrics = "ks_distanc"),
               "did you mean 'ks_distance'", fixed = TRUE)
  expect_error(sa_evaluate(conf, syn), "synthetic must be a synds object or a named list",
               fixed = TRUE)
  expect_error(sa_evaluate(conf, list(syn)), "each candidate needs a name", fixed = TRUE)
  expect_error(sa_evaluate(conf, list(a = syn), seed = -1),
               "sa_evaluate: seed: '-1.0': a seed is a non-negative integer", fixed = TRUE)
  expect_error(sa_evaluate(conf, list(a = syn), keys = "sex"), "keys and targets go together",
               fixed = TRUE)
  expect_error(sa_evaluate(conf, list(a = syn), keys = "sex", targets = "nosuch",
                           metrics = "key-disclosure"), "nosuch")
  expect_error(sa_evaluate(conf, list(a = syn), missing_codes = list(nosuch = -8)),
               "missing_codes.nosuch: confidential has no column 'nosuch'", fixed = TRUE)
  expect_error(sa_evaluate(conf, list(a = syn), policy = tempfile()),
               "cannot open file (No such file or directory)", fixed = TRUE)
  expect_error(sa_evaluate(conf[0, ], list(a = syn)), "confidential: the table has no rows",
               fixed = TRUE)
  # One line, as the command line prints it.
  message <- tryCatch(sa_evaluate(conf, list(a = no_age)), error = conditionMessage)
  expect_length(strsplit(message, "\n", fixed = TRUE)[[1]], 1L)
})

test_that("na_strings are missing in text columns, as the command line reads files", {
  conf <- small_confidential()
  syn <- small_synthetic(1)
  spelled <- conf
  spelled$region[is.na(spelled$region)] <- ""
  expect_identical(table_of(sa_evaluate(conf, list(a = syn), metrics = "general")),
                   table_of(sa_evaluate(spelled, list(a = syn), metrics = "general")))
  expect_false(identical(
    table_of(sa_evaluate(conf, list(a = syn), metrics = "general")),
    table_of(sa_evaluate(spelled, list(a = syn), metrics = "general", na_strings = character()))))
})

test_that("sa_report writes the HTML report, Markdown and the JSON document", {
  conf <- small_confidential()
  results <- sa_evaluate(conf, list(a = small_synthetic(1)), metrics = "general")
  html <- tempfile(fileext = ".html")
  expect_identical(sa_report(results, html), html)
  page <- readLines(html, warn = FALSE)
  expect_match(page[1], "<!DOCTYPE html>", ignore.case = TRUE)
  expect_true(any(grepl("vega", page, fixed = TRUE)))
  expect_match(paste(sa_report(results, format = "md"), collapse = "\n"), "ks_distance")
  json <- tempfile(fileext = ".json")
  sa_report(results, json, format = "json")
  back <- sa_read_results(json)
  expect_identical(table_of(back), table_of(results))
  expect_identical(attr(back, "verdict"), attr(results, "verdict"))
  expect_error(sa_report(data.frame(value = 1)), "carries the results document", fixed = TRUE)
  expect_error(sa_read_results(html), "not a JSON results document", fixed = TRUE)
})
