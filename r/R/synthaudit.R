# The R front end of synthaudit: argument checks with one-line messages naming the argument, then
# the C++ library (src/synthaudit_r.cpp). The metrics, their parameters and every number come from
# the library; nothing here names a metric.

# The evaluation options are not written here: .onLoad gives sa_evaluate one argument per
# option the library declares (option_arguments(), `synthaudit options --json`), between
# `holdout` and `name`, each NULL (= not given: the spec file's value or the default applies).
# The library checks each value as it checks a spec file's keys and the command line's flags.
sa_evaluate <- function(confidential, synthetic, holdout = NULL, name = "synthpop") {
  check_table(confidential, "confidential")
  candidates <- candidates_of(synthetic, name)
  if (!is.null(holdout)) check_table(holdout, "holdout")
  given <- mget(option_arguments(), envir = environment())
  given <- given[!vapply(given, is.null, logical(1))]
  if (!is.null(given$spec)) given$spec <- path.expand(single_string(given$spec, "spec"))
  if (is.character(given$policy) && length(given$policy) == 1L)
    given$policy <- path.expand(given$policy)
  results_frame(.sa_evaluate(confidential, candidates, holdout, given))
}

# The options' argument names, in the library's order.
option_arguments <- function() {
  vapply(Filter(function(o) !is.null(o$binding_argument), .sa_options()$options),
         function(o) o$binding_argument, character(1))
}

.onLoad <- function(libname, pkgname) {
  namespace <- asNamespace(pkgname)
  evaluate <- get("sa_evaluate", envir = namespace)
  arguments <- option_arguments()
  formals(evaluate) <- c(alist(confidential = , synthetic = , holdout = NULL),
                         stats::setNames(rep(list(NULL), length(arguments)), arguments),
                         alist(name = "synthpop"))
  assign("sa_evaluate", evaluate, envir = namespace)
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

single_string <- function(value, what) {
  if (!is.character(value) || length(value) != 1L || is.na(value))
    stop(what, " must be one string", call. = FALSE)
  value
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

# The options' items of ?sa_evaluate, written when the page is shown from the declarations this
# package was built with.
options_rd <- function() {
  escape <- function(x) gsub("([%{}\\\\])", "\\\\\\1", x)
  item <- function(o) {
    facts <- o$type
    if (!is.null(o$default)) facts <- paste0(facts, ", default ",
                                            paste(format(o$default), collapse = ", "))
    if (!is.null(o$choices)) facts <- paste0(facts, ", one of ", paste(o$choices, collapse = ", "))
    if (!is.null(o$range)) facts <- paste0(facts, ", from ", format(o$range[[1]], scientific = FALSE),
                                          " to ", format(o$range[[2]], scientific = FALSE))
    if (isTRUE(o$privacy_control)) facts <- paste0(facts, "; a privacy control")
    sprintf("\\item{\\code{%s}}{%s (%s).}", escape(o$binding_argument),
            escape(o$description), escape(facts))
  }
  options <- Filter(function(o) !is.null(o$binding_argument), .sa_options()$options)
  paste0("\\describe{\n", paste(vapply(options, item, character(1)), collapse = "\n"), "\n}")
}


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
