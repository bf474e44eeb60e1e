# The R front end of synthaudit: argument checks with one-line messages naming the argument, then
# the C++ library (src/synthaudit_r.cpp). The metrics, their parameters and every number come from
# the library; nothing here names a metric.

sa_evaluate <- function(confidential, synthetic, holdout = NULL, keys = NULL, targets = NULL,
                        analyses = NULL, metrics = "all", params = NULL, seed = 1, threads = 0,
                        name = "synthpop", missing_codes = NULL,
                        synthesis = c("full", "partial"), baseline_draws = 5,
                        plots = c("first", "all", "none"), policy = NULL,
                        na_strings = c("", "NA", "NaN", "null"), weights = NULL,
                        household = NULL, by = NULL, by_min_rows = NULL) {
  synthesis <- match.arg(synthesis)
  plots <- match.arg(plots)
  check_table(confidential, "confidential")
  candidates <- candidates_of(synthetic, name)
  if (!is.null(holdout)) check_table(holdout, "holdout")
  scenarios <- scenarios_of(keys, targets)
  options <- list(
    metrics = split_names(strings(metrics, "metrics")),
    params = params_of(params),
    keys = scenarios$keys,
    targets = scenarios$targets,
    analyses = if (is.null(analyses)) character() else strings(analyses, "analyses"),
    missing_codes = missing_codes_of(missing_codes),
    synthesis = synthesis,
    seed = whole_number(seed, "seed", 0, 2^53),
    threads = as.integer(whole_number(threads, "threads", 0, 1024)),
    baseline_draws = as.integer(whole_number(baseline_draws, "baseline_draws", 0, 1000)),
    plots = plots,
    policy = if (is.null(policy)) "" else path.expand(single_string(policy, "policy")),
    na_strings = if (is.null(na_strings)) character() else strings(na_strings, "na_strings"),
    weights = if (is.null(weights)) "" else single_column(weights, "weights"),
    household = if (is.null(household)) "" else single_column(household, "household"),
    by = if (is.null(by)) character() else split_names(strings(by, "by")),
    # 0: the library's default (50)
    by_min_rows = if (is.null(by_min_rows)) 0 else whole_number(by_min_rows, "by_min_rows", 1,
                                                                1e9))
  results_frame(.sa_evaluate(confidential, candidates, holdout, options))
}

sa_read_results <- function(file) {
  results_frame(.sa_read_results(path.expand(single_string(file, "file"))))
}

sa_report <- function(results, file = NULL, format = c("html", "md", "json")) {
  format <- match.arg(format)
  document <- attr(results, "document", exact = TRUE)
  if (!is.character(document) || length(document) != 1L)
    stop("sa_report: results must be what sa_evaluate() or sa_read_results() returned ",
         "(it carries the results document as attribute \"document\")", call. = FALSE)
  text <- if (format == "json") document else .sa_render(document, format)
  if (is.null(file)) return(text)
  .sa_write_file(path.expand(single_string(file, "file")), text)
  invisible(file)
}

sa_list_metrics <- function() {
  metrics <- .sa_registry()$metrics
  field <- function(key) vapply(metrics, function(m) m[[key]], character(1))
  data.frame(name = field("name"), family = field("family"), summary = field("summary"),
             stringsAsFactors = FALSE)
}

sa_describe <- function(name) {
  described <- .sa_describe(single_string(name, "name"))
  structure(described$declaration, class = "sa_metric", text = described$text)
}

print.sa_metric <- function(x, ...) {
  cat(attr(x, "text", exact = TRUE))
  invisible(x)
}

# ---- arguments ---------------------------------------------------------------------------------

argument_error <- function(...) stop("sa_evaluate: ", ..., call. = FALSE)

check_table <- function(table, label) {
  if (!is.data.frame(table))
    argument_error(label, " must be a data.frame, not ", describe_class(table))
}

describe_class <- function(x) {
  if (is.null(x)) "NULL" else paste0("an object of class '", class(x)[1], "'")
}

# synthpop's synds object: $syn is one data.frame (m = 1) or a list of m data.frames.
synds_replicates <- function(synds, label) {
  syn <- synds$syn
  replicates <- if (is.data.frame(syn)) list(syn) else syn
  if (!is.list(replicates) || length(replicates) == 0L ||
      !all(vapply(replicates, is.data.frame, logical(1))))
    argument_error(label, " is a synds object whose $syn is neither a data.frame nor a list of ",
                   "data.frames")
  if (!is.null(synds$m) && length(replicates) != synds$m)
    argument_error(label, " is a synds object with m = ", synds$m, " but ", length(replicates),
                   " data.frame(s) in $syn")
  unname(replicates)
}

replicates_of <- function(value, label) {
  if (inherits(value, "synds")) return(synds_replicates(value, label))
  if (is.data.frame(value)) return(list(value))
  if (is.list(value) && length(value) > 0L &&
      all(vapply(value, is.data.frame, logical(1))))
    return(unname(value))
  argument_error(label, " must be a data.frame, a list of data.frames (one per replicate) or a ",
                 "synthpop synds object, not ", describe_class(value))
}

# A named list of candidates, each a data.frame, a list of replicates or a synds object; or one
# synds object, named `name`.
candidates_of <- function(synthetic, name) {
  if (inherits(synthetic, "synds"))
    return(stats::setNames(list(synds_replicates(synthetic, "synthetic")),
                           single_string(name, "name")))
  if (is.data.frame(synthetic) || !is.list(synthetic) || length(synthetic) == 0L)
    argument_error("synthetic must be a synds object or a named list of candidates, e.g. ",
                   "list(cart = syn_df) or list(cart = list(rep1, rep2, rep3))")
  names <- names(synthetic)
  if (is.null(names) || any(is.na(names) | names == ""))
    argument_error("synthetic must be a named list: each candidate needs a name")
  if (anyDuplicated(names))
    argument_error("synthetic: candidate '", names[anyDuplicated(names)], "' appears twice")
  stats::setNames(lapply(seq_along(synthetic), function(i)
    replicates_of(synthetic[[i]], paste0("synthetic$", names[i]))), names)
}

# One disclosure scenario from two character vectors, or several from two lists of equal length.
scenarios_of <- function(keys, targets) {
  if (is.null(keys) && is.null(targets)) return(list(keys = list(), targets = list()))
  if (is.null(keys) || is.null(targets)) argument_error("keys and targets go together")
  if (!is.list(keys)) keys <- list(keys)
  if (!is.list(targets)) targets <- list(targets)
  if (length(keys) != length(targets))
    argument_error("keys and targets must have one entry per scenario (", length(keys),
                   " keys, ", length(targets), " targets)")
  # As --keys and --targets, a name list may also be one comma-separated string.
  list(keys = lapply(keys, function(k) split_names(strings(k, "keys"))),
       targets = lapply(targets, function(t) split_names(strings(t, "targets"))))
}

strings <- function(value, what) {
  if (is.factor(value)) value <- as.character(value)
  if (!is.character(value) || anyNA(value))
    argument_error(what, " must be a character vector without NA")
  value
}

single_column <- function(value, what) {
  if (!is.character(value) || length(value) != 1L || is.na(value) || value == "")
    argument_error(what, " must be one column name")
  value
}

single_string <- function(value, what) {
  if (!is.character(value) || length(value) != 1L || is.na(value))
    stop(what, " must be one string", call. = FALSE)
  value
}

# As --metrics: names or families, also comma-separated.
split_names <- function(names) {
  parts <- trimws(unlist(strsplit(names, ",", fixed = TRUE)))
  parts[parts != ""]
}

whole_number <- function(value, what, lower, upper) {
  if (!is.numeric(value) || length(value) != 1L || is.na(value) || value != floor(value) ||
      value < lower || value > upper)
    argument_error(what, " must be one whole number from ", format(lower), " to ",
                   format(upper, scientific = FALSE, big.mark = ""))
  as.numeric(value)
}

params_of <- function(params) {
  if (is.null(params)) return(NULL)
  named <- function(x) is.list(x) && !is.null(names(x)) && all(!is.na(names(x)) & names(x) != "")
  if (!named(params) || !all(vapply(params, function(p) is.null(p) || named(p), logical(1))))
    argument_error("params must be a named list of named lists: ",
                   "list(metric = list(parameter = value))")
  params
}

missing_codes_of <- function(codes) {
  if (is.null(codes)) return(list())
  if (!is.list(codes) || is.null(names(codes)) || any(names(codes) == "") ||
      !all(vapply(codes, function(x) is.numeric(x) && !anyNA(x), logical(1))))
    argument_error("missing_codes must be a named list of numbers, e.g. list(income = -8)")
  lapply(codes, as.numeric)
}

results_frame <- function(out) {
  table <- out$table
  attr(table, "row.names") <- .set_row_names(length(table$value))
  class(table) <- "data.frame"
  attr(table, "verdict") <- out$verdict
  attr(table, "warnings") <- out$warnings
  attr(table, "document") <- out$document
  table
}

# ---- help -------------------------------------------------------------------------------------

# The body of the help page ?`synthaudit-metrics`, written when the page is shown from the
# registry this package was built with, so that no parameter, default or range is written twice.
metrics_rd <- function() {
  registry <- .sa_registry()
  escape <- function(x) gsub("([%{}\\\\])", "\\\\\\1", x)
  # As R code: "level", TRUE, 5, 1e-08, c("a", "b"), character() for an empty list.
  shown <- function(value) {
    if (is.null(value) || length(value) == 0L) return("character()")
    text <- if (is.character(value)) paste0("\"", value, "\"") else
      if (is.logical(value)) ifelse(value, "TRUE", "FALSE") else format(value, digits = 15)
    if (length(text) == 1L) text else paste0("c(", paste(text, collapse = ", "), ")")
  }
  parameter_rd <- function(p) {
    limits <- ""
    if (!is.null(p$range)) {
      bound <- function(b) if (is.null(b) || is.na(b)) NA else b
      low <- bound(p$range[[1]])
      high <- bound(p$range[[2]])
      limits <- paste0(", from ", if (is.na(low)) "-Inf" else shown(low), " to ",
                       if (is.na(high)) "Inf" else shown(high))
    }
    if (!is.null(p$choices))
      limits <- paste0(", one of ", paste0("\"", p$choices, "\"", collapse = ", "))
    sprintf("\\item{\\code{%s}}{%s, default \\code{%s}%s. %s}", escape(p$name), escape(p$type),
            escape(shown(p$default)), escape(limits), escape(p$description))
  }
  metric_rd <- function(m) {
    parameters <- if (length(m$parameters) == 0L) "No parameters." else
      paste0("Parameters:\n\\describe{\n",
             paste(vapply(m$parameters, parameter_rd, character(1)), collapse = "\n"), "\n}")
    statistics <- vapply(m$statistics, function(s) sprintf("\\code{%s}", escape(s$name)),
                         character(1))
    references <- vapply(m$references, function(r) escape(r$text), character(1))
    paste0("\\subsection{", escape(m$name), " (", escape(m$family), ")}{\n",
           escape(m$summary), "\n\n", parameters, "\n\n",
           "Statistics: ", paste(statistics, collapse = ", "), ".\n\n",
           "References: ", paste(references, collapse = "; "), "\n}")
  }
  paste(vapply(registry$metrics, metric_rd, character(1)), collapse = "\n\n")
}
