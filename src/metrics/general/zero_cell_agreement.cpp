// Rare and impossible combinations: for every pair of categorical columns, the cells of the
// two-way table that are empty in one dataset and not in the other.
#include <cmath>

#include "core/error.hpp"
#include "metrics/metric.hpp"
#include "metrics/partial_state.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

// Joint counts of two categorical columns, missing as one extra level after the dictionary's.
std::vector<std::size_t> pair_counts(const Column& a, const Column& b) {
  const std::size_t la = a.cardinality() + 1;
  std::vector<std::size_t> counts(la * (b.cardinality() + 1), 0);
  for (std::size_t r = 0; r < a.codes.size(); ++r) {
    const std::size_t i = a.missing(r) ? a.cardinality() : a.codes[r];
    const std::size_t j = b.missing(r) ? b.cardinality() : b.codes[r];
    ++counts[i + la * j];
  }
  return counts;
}

std::vector<std::size_t> categorical_columns(const MetricInput& in) {
  std::vector<std::size_t> categorical;
  for (std::size_t c = 0; c < in.confidential.column_count(); ++c)
    if (in.confidential.column(c).is_categorical()) categorical.push_back(c);
  if (categorical.size() < 2)
    throw MetricNotApplicable("zero_cell_agreement: fewer than two categorical columns");
  return categorical;
}

// A partition's sufficient statistics: the joint counts of every pair of categorical columns in
// both datasets.
std::string zero_cell_state(const MetricInput& in, const Params&) {
  const auto categorical = categorical_columns(in);
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  StateWriter out;
  for (std::size_t i = 0; i < categorical.size(); ++i)
    for (std::size_t j = i + 1; j < categorical.size(); ++j) {
      const auto d = pair_counts(conf.column(categorical[i]), conf.column(categorical[j]));
      const auto s = pair_counts(syn.column(categorical[i]), syn.column(categorical[j]));
      out.u64s({d.begin(), d.end()});
      out.u64s({s.begin(), s.end()});
    }
  return out.take();
}

MetricResult finalize_zero_cell_agreement(const std::vector<std::string>& states,
                                          const MetricInput& schema, const Params&) {
  const auto categorical = categorical_columns(schema);
  const std::size_t pair_count = categorical.size() * (categorical.size() - 1) / 2;
  std::vector<std::vector<std::uint64_t>> conf_counts(pair_count), syn_counts(pair_count);
  for (std::size_t p = 0; p < states.size(); ++p) {
    StateReader in(states[p]);
    for (std::size_t q = 0; q < pair_count; ++q) {
      add_into(conf_counts[q], in.u64s());
      add_into(syn_counts[q], in.u64s());
    }
    in.expect_end();
  }
  MetricResult result;
  double agreement_sum = 0;
  double only_conf_total = 0, only_syn_total = 0;
  std::size_t pairs = 0;
  for (std::size_t i = 0; i < categorical.size(); ++i) {
    for (std::size_t j = i + 1; j < categorical.size(); ++j) {
      const Column& ca = schema.confidential.column(categorical[i]);
      const Column& cb = schema.confidential.column(categorical[j]);
      const auto& d = conf_counts[pairs];
      const auto& s = syn_counts[pairs];
      const std::size_t la = ca.cardinality() + 1;
      // Levels (missing included) that occur in either dataset: the table's rows or columns.
      std::vector<char> rows_present(la, 0), cols_present(cb.cardinality() + 1, 0);
      for (std::size_t cell = 0; cell < d.size(); ++cell)
        if (d[cell] > 0 || s[cell] > 0) rows_present[cell % la] = cols_present[cell / la] = 1;
      std::size_t cells = 0, empty_both = 0, only_conf = 0, only_syn = 0;
      double records_only_conf = 0, records_only_syn = 0;
      for (std::size_t cell = 0; cell < d.size(); ++cell) {
        if (!rows_present[cell % la] || !cols_present[cell / la]) continue;
        ++cells;
        if (d[cell] == 0 && s[cell] == 0) {
          ++empty_both;
        } else if (s[cell] == 0) {
          ++only_conf;
          records_only_conf += static_cast<double>(d[cell]);
        } else if (d[cell] == 0) {
          ++only_syn;
          records_only_syn += static_cast<double>(s[cell]);
        }
      }
      const std::string scope = ca.name + ":" + cb.name;
      const double agreement =
          static_cast<double>(cells - only_conf - only_syn) / static_cast<double>(cells);
      result.add("cells", scope, static_cast<double>(cells));
      result.add("cells_empty_in_both", scope, static_cast<double>(empty_both));
      result.add("cells_empty_only_in_synthetic", scope, static_cast<double>(only_conf));
      result.add("cells_empty_only_in_confidential", scope, static_cast<double>(only_syn));
      result.add("confidential_records_in_cells_empty_in_synthetic", scope, records_only_conf);
      result.add("synthetic_records_in_cells_empty_in_confidential", scope, records_only_syn);
      result.add("zero_cell_agreement", scope, agreement);
      agreement_sum += agreement;
      only_conf_total += static_cast<double>(only_conf);
      only_syn_total += static_cast<double>(only_syn);
      ++pairs;
    }
  }
  result.add("mean_zero_cell_agreement", "all", agreement_sum / static_cast<double>(pairs));
  result.add("total_cells_empty_only_in_synthetic", "all", only_conf_total);
  result.add("total_cells_empty_only_in_confidential", "all", only_syn_total);
  return result;
}

// One process is one partition: the same code path as a partitioned run.
MetricResult compute_zero_cell_agreement(const MetricInput& in, const Params& params) {
  return finalize_zero_cell_agreement({zero_cell_state(in, params)}, in, params);
}

}  // namespace

MetricSpec zero_cell_agreement_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "zero_cell_agreement",
      .family = MetricFamily::kGeneral,
      .summary =
          "Cells of every two-way table of categorical columns that are empty in one "
          "dataset and not in the other (rare combinations lost, impossible ones invented)",
      .doc =
          "For every pair of categorical columns, the two-way table over the levels that occur "
          "in either dataset (missing as a level NA). A cell empty in the synthetic data but not "
          "in the confidential data is a combination the synthesiser lost (often a rare one); a "
          "cell empty in the confidential data but not in the synthetic data is a combination "
          "it invented (possibly an impossible one, a structural zero such as a married "
          "child). Per pair: the cells, those empty in both, those empty only in the synthetic "
          "or only in the confidential data, and the records in them; zero_cell_agreement = "
          "share of cells that are empty in both or in neither. Summary: its mean over the "
          "pairs and the totals of the two kinds of disagreeing cells. A smaller sample has more "
          "empty cells by chance alone: the holdout baseline (the metric run with the holdout in "
          "place of the synthetic data) shows what a fresh real sample of its size scores. Rows "
          "are counted alike.",
      .params = {},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "mean_zero_cell_agreement",
                     .ideal = Ideal::higher(),
                     .reading = "share of two-way table cells empty in both or in neither "
                                "dataset (1 = same empty cells)",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kNumber}},
      .compute = compute_zero_cell_agreement,
      .mergeable =
          MergeableForm{.partial_state = zero_cell_state, .finalize = finalize_zero_cell_agreement},
      .statistics =
          {{"cells",
            "cells of the two-way table over the levels seen in either dataset",
            std::nullopt,
            {kColumnPair}},
           {"cells_empty_in_both", "cells empty in both datasets", std::nullopt, {kColumnPair}},
           {"cells_empty_only_in_synthetic",
            "combinations present in the confidential data that the synthetic data lack",
            Ideal::lower(),
            {kColumnPair}},
           {"cells_empty_only_in_confidential",
            "combinations the synthetic data have that the confidential data lack",
            Ideal::lower(),
            {kColumnPair}},
           {"confidential_records_in_cells_empty_in_synthetic",
            "confidential records in the combinations the synthetic data lack",
            Ideal::lower(),
            {kColumnPair},
            OutputClass::kCount},
           {"synthetic_records_in_cells_empty_in_confidential",
            "synthetic records in combinations the confidential data lack",
            Ideal::lower(),
            {kColumnPair}},
           {"zero_cell_agreement",
            "share of cells empty in both datasets or in neither",
            Ideal::higher(),
            {kColumnPair}},
           {"mean_zero_cell_agreement",
            "mean zero_cell_agreement over the pairs of categorical columns",
            Ideal::higher(),
            {kAll}},
           {"total_cells_empty_only_in_{synthetic|confidential}",
            "disagreeing cells of one kind summed over the pairs",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(hundepool_2012(), "zero cells and structural zeros of frequency tables")},
  };
}

}  // namespace synthaudit
