#pragma once
// The registry in words: the plain-text `describe` and the generated blocks of docs/metrics.md.
// Both read only the declarations (MetricSpec), like registry_json.
#include <string>

#include "metrics/metric.hpp"

namespace synthaudit {

// What `synthaudit describe NAME` prints: summary, doc, requirements, parameters, statistics
// with their ideals in words, references.
std::string describe_text(const MetricSpec& metric);

// The Markdown generated for one metric: requirements, then the parameter, statistic and
// reference tables.
std::string metric_markdown_block(const MetricSpec& metric);

// Every headline of the registry in one Markdown table: metric, statistic, axis, ideal, baseline
// and why that baseline (the `<!-- BEGIN GENERATED: headlines -->` block).
std::string headline_markdown_table();

// `markdown` with the body of every `<!-- BEGIN GENERATED: NAME -->` ... `<!-- END GENERATED -->`
// block replaced by metric_markdown_block(NAME) (headline_markdown_table() for the block named
// `headlines`); the prose outside the blocks is kept as is.
// Throws InputError naming `where` and the line for a block that names no metric, a block
// without its end, a metric with two blocks, and a registered metric with no block.
std::string regenerate_metric_docs(const std::string& markdown, const std::string& where);

}  // namespace synthaudit
