test_that("sa_list_metrics is the command line's list-metrics", {
  skip_without_cli()
  metrics <- sa_list_metrics()
  expect_named(metrics, c("name", "family", "summary"))
  cli <- run_cli("list-metrics")
  expect_identical(cli$status, 0L)
  expect_identical(paste(metrics$name, metrics$family, metrics$summary, sep = "\t"), cli$stdout)
})

test_that("sa_describe is the command line's describe, as text and as a declaration", {
  skip_without_cli()
  skip_if_not_installed("jsonlite")
  described <- sa_describe("ks_distance")
  expect_s3_class(described, "sa_metric")
  expect_identical(described$name, "ks_distance")
  # The parameters as the command line's registry declares them (describe --json).
  declared <- jsonlite::fromJSON(paste(run_cli(c("describe", "--json", "ks_distance"))$stdout,
                                       collapse = "\n"), simplifyVector = FALSE)
  expect_identical(vapply(described$parameters, `[[`, "", "name"),
                   vapply(declared$parameters, `[[`, "", "name"))
  expect_true("pvalue" %in% vapply(described$parameters, `[[`, "", "name"))
  printed <- capture.output(print(described))
  expect_identical(printed, run_cli(c("describe", "ks_distance"))$stdout)
  cli <- run_cli(c("describe", "ks_distanc"))
  expect_identical(cli$status, 2L)
  expect_error(sa_describe("ks_distanc"),
               sub("^synthaudit: error: ", "", cli$stderr), fixed = TRUE)
})

test_that("the help page of the metrics is written from the registry", {
  rd <- tools::Rd_db("synthaudit")[["synthaudit-metrics.Rd"]]
  expect_false(is.null(rd))
  text <- capture.output(tools::Rd2txt(rd, out = stdout(), stages = c("build", "install",
                                                                       "render"),
                                       options = list(underline_titles = FALSE)))
  text <- paste(text, collapse = "\n")
  for (metric in sa_list_metrics()$name) expect_match(text, metric, fixed = TRUE)
  # Each parameter with its type and default, as the registry declares them.
  for (metric in sa_list_metrics()$name)
    for (p in sa_describe(metric)$parameters)
      expect_match(text, sprintf("'%s' %s, default", p$name, p$type), fixed = TRUE)
  expect_match(text, "'pvalue' bool, default 'FALSE'", fixed = TRUE)
  expect_match(text, "'ngroups' int, default '5', from 1 to 1000", fixed = TRUE)
})
