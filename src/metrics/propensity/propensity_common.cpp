// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 kernels
// (_mm512_extractf64x4_pd) when built with -march=native; nothing here is uninitialised.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "metrics/propensity/propensity_common.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/threads.hpp"
#include "metrics/references.hpp"
#include "stats/binning.hpp"
#include "stats/column_lookup.hpp"
#include "stats/level_counts.hpp"

namespace synthaudit::propensity {

namespace {

// Distinct non-missing values, counting each declared missing code as a value (synthpop sees the
// code itself, e.g. -8, at this stage). Stops counting at 2.
std::size_t distinct_upto2(const Column& col) {
  std::set<double> values;
  std::set<int> codes;
  for (std::size_t i = 0; i < col.size() && values.size() + codes.size() < 2; ++i) {
    if (col.is_numeric()) {
      if (!std::isnan(col.numeric[i]))
        values.insert(col.numeric[i]);
      else if (!col.missing_code_index.empty() && col.missing_code_index[i] > 0)
        codes.insert(col.missing_code_index[i]);
    } else if (col.codes[i] != kMissingCode) {
      codes.insert(static_cast<int>(col.codes[i]));
    }
  }
  return values.size() + codes.size();
}

}  // namespace

Stacked stack_tables(const Table& conf, const Table& syn, const std::vector<std::string>& columns) {
  std::vector<char> use(conf.column_count(), columns.empty() ? 1 : 0);
  for (auto index : stats::resolve_columns(conf, columns, "parameter columns")) use[index] = 1;
  Stacked out;
  out.n_conf = conf.rows();
  out.n_syn = syn.rows();
  const std::size_t n = out.n_conf + out.n_syn;
  out.c = n ? static_cast<double>(out.n_syn) / static_cast<double>(n) : 0.0;
  out.t.assign(n, 0);
  std::fill(out.t.begin(), out.t.begin() + static_cast<std::ptrdiff_t>(out.n_syn), 1);
  std::vector<stats::FeatureColumn> indicators;
  // Row r of the stack: synthetic r for r < n_syn, else confidential r - n_syn.
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    if (!use[c]) continue;
    const Column& cc = conf.column(c);
    const Column& sc = syn.column(c);
    if (distinct_upto2(cc) <= 1 && distinct_upto2(sc) <= 1) {
      out.dropped.push_back(cc.name);
      continue;
    }
    stats::FeatureColumn f;
    f.name = cc.name;
    if (cc.is_categorical()) {
      f.categorical = true;
      // Levels present in either dataset, in dictionary order, then missing (R's factor of the
      // stacked data).
      const std::size_t levels = cc.cardinality();
      const auto syn_counts = stats::level_counts(sc), conf_counts = stats::level_counts(cc);
      const bool any_missing = syn_counts[levels] + conf_counts[levels] > 0;
      std::vector<std::uint32_t> remap(levels, 0);
      std::uint32_t next = 0;
      for (std::size_t k = 0; k < levels; ++k)
        if (syn_counts[k] + conf_counts[k] > 0) remap[k] = next++;
      const std::uint32_t na_level = next;
      f.levels = next + (any_missing ? 1 : 0);
      f.codes.resize(n);
      for (std::size_t r = 0; r < n; ++r) {
        const auto code = r < out.n_syn ? sc.codes[r] : cc.codes[r - out.n_syn];
        f.codes[r] = code == kMissingCode ? na_level : remap[code];
      }
    } else {
      f.values.resize(n);
      bool any_na = false;
      std::uint8_t max_code = 0;
      for (std::size_t r = 0; r < n; ++r) {
        const bool is_syn = r < out.n_syn;
        const std::size_t i = is_syn ? r : r - out.n_syn;
        const Column& col = is_syn ? sc : cc;
        const double v = col.numeric[i];
        const std::uint8_t code = col.missing_code_index.empty() ? 0 : col.missing_code_index[i];
        if (std::isnan(v)) {
          f.values[r] = 0.0;
          if (code == 0) any_na = true;
          max_code = std::max(max_code, code);
        } else {
          f.values[r] = v;
        }
      }
      if (any_na) {
        stats::FeatureColumn ind;
        ind.name = cc.name + "_NA";
        ind.values.resize(n);
        for (std::size_t r = 0; r < n; ++r) {
          const bool is_syn = r < out.n_syn;
          const std::size_t i = is_syn ? r : r - out.n_syn;
          const Column& col = is_syn ? sc : cc;
          ind.values[r] = std::isnan(col.numeric[i]) &&
                                  (col.missing_code_index.empty() || col.missing_code_index[i] == 0)
                              ? 1.0
                              : 0.0;
        }
        indicators.push_back(std::move(ind));
      }
      for (std::uint8_t k = 1; k <= max_code; ++k) {
        stats::FeatureColumn ind;
        ind.name = cc.name + "_cna_" + std::to_string(k);
        ind.values.resize(n);
        for (std::size_t r = 0; r < n; ++r) {
          const bool is_syn = r < out.n_syn;
          const std::size_t i = is_syn ? r : r - out.n_syn;
          const Column& col = is_syn ? sc : cc;
          ind.values[r] =
              !col.missing_code_index.empty() && col.missing_code_index[i] == k ? 1.0 : 0.0;
        }
        indicators.push_back(std::move(ind));
      }
    }
    out.features.push_back(std::move(f));
  }
  for (auto& ind : indicators) out.features.push_back(std::move(ind));
  return out;
}

namespace {
std::size_t columns_of(const stats::FeatureColumn& f) {
  return f.categorical ? (f.levels > 0 ? f.levels - 1 : 0) : 1;
}
// Calls visit(set) for every set of feature indices of size 1..order in R's term order
// (all main effects, then all pairs, ...), each set in lexicographic order.
void for_each_term(std::size_t nf, int maxorder,
                   const std::function<void(const std::vector<std::size_t>&)>& visit) {
  for (int size = 1; size <= maxorder + 1 && static_cast<std::size_t>(size) <= nf; ++size) {
    std::vector<std::size_t> idx(static_cast<std::size_t>(size));
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    while (true) {
      visit(idx);
      int k = size - 1;
      while (k >= 0 && idx[static_cast<std::size_t>(k)] == nf - static_cast<std::size_t>(size - k))
        --k;
      if (k < 0) break;
      ++idx[static_cast<std::size_t>(k)];
      for (std::size_t j = static_cast<std::size_t>(k) + 1; j < idx.size(); ++j)
        idx[j] = idx[j - 1] + 1;
    }
  }
}
}  // namespace

std::size_t logistic_parameter_count(const Stacked& data, int maxorder) {
  std::size_t total = 1;
  for_each_term(data.features.size(), maxorder, [&](const std::vector<std::size_t>& set) {
    std::size_t prod = 1;
    for (auto f : set) prod *= columns_of(data.features[f]);
    total += prod;
  });
  return total;
}

stats::BlockedDesign logistic_design(const Stacked& data, int maxorder,
                                     std::vector<std::string>* names) {
  const std::size_t n = data.t.size();
  stats::BlockedDesign X;
  X.rows = n;
  X.columns = logistic_parameter_count(data, maxorder);
  // Dense columns: the intercept and every term of numeric features only (their product). A term
  // with a factor has at most one nonzero per row (the row's combination of levels, times the
  // product of the term's numeric values), so it is a sparse block of level codes.
  std::vector<std::vector<std::size_t>> dense_terms;
  std::vector<std::size_t> dense_positions{0};
  // Dense column (in X.dense) of each term of numeric features only.
  std::map<std::vector<std::size_t>, std::size_t> dense_of_term;
  // Each sparse block's features and the stride of each in the block's column number.
  struct BlockTerm {
    std::vector<std::size_t> set, stride;
  };
  std::vector<BlockTerm> block_terms;
  std::size_t next = 1;
  if (names) names->assign(1, "(Intercept)");
  for_each_term(data.features.size(), maxorder, [&](const std::vector<std::size_t>& set) {
    std::size_t width = 1;
    bool has_factor = false;
    for (auto f : set) {
      width *= columns_of(data.features[f]);
      has_factor = has_factor || data.features[f].categorical;
    }
    if (names) {
      // Odometer over the columns of each feature in the set (first feature varies fastest, as R).
      std::vector<std::size_t> at(set.size(), 0);
      for (std::size_t k = 0; k < width; ++k) {
        std::string name;
        for (std::size_t s = 0; s < set.size(); ++s) {
          const auto& feat = data.features[set[s]];
          name +=
              (s ? ":" : "") +
              (feat.categorical ? feat.name + "[" + std::to_string(at[s] + 2) + "]" : feat.name);
        }
        names->push_back(name);
        for (std::size_t s = 0; s < set.size(); ++s) {
          if (++at[s] < columns_of(data.features[set[s]])) break;
          at[s] = 0;
        }
      }
    }
    if (width == 0) return;
    if (!has_factor) {
      dense_terms.push_back(set);
      dense_of_term[set] = dense_terms.size();
      dense_positions.push_back(next);
      next += 1;
      return;
    }
    stats::SparseColumnBlock block;
    block.first = next;
    block.width = width;
    // The nonzero of a term with numeric features is the product of their values: the dense
    // column of the term made of those features alone (a smaller term, so already made).
    std::vector<std::size_t> numeric_part;
    for (auto f : set)
      if (!data.features[f].categorical) numeric_part.push_back(f);
    if (!numeric_part.empty())
      block.dense_value = static_cast<std::ptrdiff_t>(dense_of_term.at(numeric_part));
    // Column of a level combination: level code − 1 of each factor (code 0 is the reference
    // level, coded by no column), the first feature varying fastest.
    std::vector<std::size_t> stride(set.size());
    std::size_t prod = 1;
    for (std::size_t s = 0; s < set.size(); ++s) {
      stride[s] = prod;
      prod *= columns_of(data.features[set[s]]);
    }
    block_terms.push_back({set, std::move(stride)});
    X.sparse.push_back(std::move(block));
    next += width;
  });
  // The per-row work in two parallel passes (the blocks' memory first, then every block and dense
  // column row by row), not one pass per term with serial allocation between them.
  const bool parallel = n > 50000;
#pragma omp parallel for schedule(dynamic, 1) if (parallel) num_threads(parallel_threads())
  for (std::size_t b = 0; b < X.sparse.size(); ++b) X.sparse[b].column.resize(n);
  X.dense.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(dense_positions.size()));
#pragma omp parallel for schedule(static) if (parallel) num_threads(parallel_threads())
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t b = 0; b < block_terms.size(); ++b) {
      const auto& [set, stride] = block_terms[b];
      std::int64_t column = 0;
      for (std::size_t s = 0; s < set.size(); ++s) {
        const auto& feat = data.features[set[s]];
        if (!feat.categorical) continue;
        if (feat.codes[r] == 0) {
          column = -1;
          break;
        }
        column += static_cast<std::int64_t>((feat.codes[r] - 1) * stride[s]);
      }
      X.sparse[b].column[r] = static_cast<std::int32_t>(column);
    }
    const auto row = static_cast<Eigen::Index>(r);
    X.dense(row, 0) = 1.0;
    for (std::size_t d = 0; d < dense_terms.size(); ++d) {
      double v = 1.0;
      for (auto f : dense_terms[d]) v *= data.features[f].values[r];
      X.dense(row, static_cast<Eigen::Index>(d + 1)) = v;
    }
  }
  X.dense_columns = std::move(dense_positions);
  return X;
}

std::vector<int> assign_folds(const std::vector<std::uint8_t>& t, int folds, std::uint64_t seed) {
  std::vector<int> fold(t.size(), 0);
  Rng rng(seed, 0x70726f70ULL);
  for (std::uint8_t group = 0; group < 2; ++group) {
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i] == group) rows.push_back(i);
    for (std::size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[rng.below(i)]);
    for (std::size_t k = 0; k < rows.size(); ++k)
      fold[rows[k]] = static_cast<int>(k % static_cast<std::size_t>(folds));
  }
  return fold;
}

std::vector<int> assign_split(const std::vector<std::uint8_t>& t, double test_share,
                              std::uint64_t seed) {
  std::vector<int> part(t.size(), 1);
  Rng rng(seed, 0x73706c6974ULL);
  for (std::uint8_t group = 0; group < 2; ++group) {
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i] == group) rows.push_back(i);
    for (std::size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[rng.below(i)]);
    const auto n_test =
        static_cast<std::size_t>(std::llround(test_share * static_cast<double>(rows.size())));
    for (std::size_t k = 0; k < n_test && k < rows.size(); ++k) part[rows[k]] = 0;
  }
  return part;
}

void add_measures(MetricResult& result, const stats::DiscriminationSummary& s,
                  const std::string& suffix) {
  result.add("pMSE" + suffix, "all", s.pmse);
  result.add("SPECKS" + suffix, "all", s.ks);
  result.add("PO50" + suffix, "all", s.po50);
  result.add("U" + suffix, "all", s.u);
  result.add("AUC" + suffix, "all", s.auc);
  result.add("detection_score" + suffix, "all",
             std::isnan(s.auc) ? s.auc : 1.0 - (2.0 * std::max(s.auc, 0.5) - 1.0));
}

void add_out_of_sample(MetricResult& result, const std::vector<double>& scores,
                       const std::vector<std::uint8_t>& t, double c, const std::string& model,
                       const std::vector<Round>& rounds) {
  std::vector<double> scored;
  std::vector<std::uint8_t> groups;
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (!std::isnan(scores[i])) {
      scored.push_back(scores[i]);
      groups.push_back(t[i]);
    }
  add_measures(result, stats::summarise_discrimination(scored, groups, c), "_oos");
  double normalised_auc_sum = 0.0;
  std::size_t counted = 0;
  for (const auto& round : rounds) {
    std::vector<double> s;
    std::vector<std::uint8_t> g;
    for (const auto i : round.test) {
      s.push_back(scores[i]);
      g.push_back(t[i]);
    }
    const auto summary = stats::summarise_discrimination(s, g, c);
    if (!std::isfinite(summary.auc)) continue;
    normalised_auc_sum += 2 * std::max(summary.auc, 0.5) - 1;
    ++counted;
  }
  if (counted > 0)
    result.add("detection_score_folds", "all",
               1 - normalised_auc_sum / static_cast<double>(counted));
  add_plots(result, scored, groups, model, "_oos");
}

NullMethod null_method(const Params& params) {
  const std::string& name = params.get_string("null");
  if (name == "analytic") return NullMethod::kAnalytic;
  if (name == "permutation")
    return params.get_int("nperms") > 0 ? NullMethod::kPermutation : NullMethod::kNone;
  if (name == "bootstrap")
    return params.get_int("nboot") > 0 ? NullMethod::kBootstrap : NullMethod::kNone;
  return NullMethod::kNone;
}

std::size_t null_refits(const Params& params) {
  switch (null_method(params)) {
    case NullMethod::kPermutation:
      return static_cast<std::size_t>(params.get_int("nperms"));
    case NullMethod::kBootstrap:
      return static_cast<std::size_t>(params.get_int("nboot"));
    default:
      return 0;
  }
}

std::vector<ParamSpec> null_params(const std::string& default_null,
                                   const std::vector<std::string>& choices) {
  return {
      {.name = "null",
       .type = ParamType::kString,
       .default_value = default_null,
       .doc = "null pMSE for S_pMSE: analytic (k − 1)(1 − c)²c/N (logistic only), permutation "
              "(refits on shuffled labels; halved as synthpop), bootstrap (refits with the "
              "synthetic records replaced by draws with replacement from the confidential ones) or "
              "none",
       .choices = choices},
      {.name = "nperms",
       .type = ParamType::kInt,
       .default_value = std::int64_t{50},
       .doc = "label permutations for null: permutation (each refits the model; 0 = no S_pMSE)",
       .min = 0,
       .max = 10000},
      {.name = "nboot",
       .type = ParamType::kInt,
       .default_value = std::int64_t{50},
       .doc = "bootstrap refits for null: bootstrap (0 = no S_pMSE)",
       .min = 0,
       .max = 10000},
  };
}

std::vector<std::uint8_t> permuted_labels(const std::vector<std::uint8_t>& t, std::uint64_t seed,
                                          std::size_t k) {
  Rng rng(seed, k + 1);
  std::vector<std::uint8_t> out = t;
  for (std::size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng.below(i)]);
  return out;
}

Stacked bootstrap_stack(const Stacked& data, std::uint64_t seed, std::size_t k) {
  // A stream apart from the permutations' (which use streams 1..nperms).
  Rng rng(splitmix64(seed ^ 0x626f6f7473747261ULL), k + 1);
  // Stacked rows: synthetic first, confidential from n_syn on. The new synthetic part draws its
  // records from the confidential part.
  std::vector<std::size_t> rows(data.n_syn + data.n_conf);
  for (std::size_t i = 0; i < data.n_syn; ++i) rows[i] = data.n_syn + rng.below(data.n_conf);
  for (std::size_t i = 0; i < data.n_conf; ++i) rows[data.n_syn + i] = data.n_syn + i;
  Stacked out;
  out.t = data.t;
  out.n_conf = data.n_conf;
  out.n_syn = data.n_syn;
  out.c = data.c;
  out.dropped = data.dropped;
  out.features.reserve(data.features.size());
  for (const auto& f : data.features) {
    stats::FeatureColumn g;
    g.name = f.name;
    g.categorical = f.categorical;
    g.levels = f.levels;
    if (f.categorical) {
      g.codes.resize(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) g.codes[i] = f.codes[rows[i]];
    } else {
      g.values.resize(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) g.values[i] = f.values[rows[i]];
    }
    out.features.push_back(std::move(g));
  }
  return out;
}

std::vector<StatisticSpec> common_statistics() {
  using enum ScopeKind;
  return {
      {"pMSE{|_oos}",
       "propensity mean squared error Σ(p̂ − c)²/N (suffix _oos: records scored by models fitted "
       "without them)",
       Ideal::lower(),
       {kAll}},
      {"SPECKS{|_oos}",
       "Kolmogorov–Smirnov distance between the two groups' propensities",
       Ideal::lower(),
       {kAll}},
      {"PO50{|_oos}",
       "percentage of records classified correctly at 0.5, minus 50 (0 = chance)",
       Ideal::at(0.0),
       {kAll}},
      {"U{|_oos}",
       "Mann–Whitney U of the synthetic records' propensities (R's wilcox.test W); its chance "
       "value n0·n1/2 depends on the sizes",
       std::nullopt,
       {kAll}},
      {"AUC{|_oos}",
       "area under the ROC curve of the propensities: 0.5 = indistinguishable; far below 0.5 "
       "means synthetic records are taken for real ones (copies)",
       Ideal::at(0.5),
       {kAll}},
      {"detection_score{|_oos}",
       "1 − (2·max(AUC, 0.5) − 1), SDMetrics' LogisticDetection form (1 = indistinguishable)",
       Ideal::higher(),
       {kAll}},
      {"detection_score_folds",
       "the detection score averaged over the validation rounds, as SDMetrics computes it",
       Ideal::higher(),
       {kAll}},
      {"S_pMSE",
       "pMSE divided by its expectation under a correct synthesis: about 1 is right, far below "
       "1 a near-copy, above 1 distinguishable",
       Ideal::at(1.0, TargetScale::kRatio),
       {kAll}},
      {"S_pMSE_independent",
       "pMSE divided by its expectation for an independent sample of the same population",
       Ideal::at(1.0, TargetScale::kRatio),
       {kAll}},
      {"null_pMSE", "the null expectation of pMSE that S_pMSE divides by", std::nullopt, {kAll}},
  };
}

std::vector<Reference> common_references() {
  using namespace references;
  return {cite(woo_2009(), "propensity-score utility (pMSE)"),
          cite(snoke_2018(), "pMSE, its null distribution and S_pMSE"),
          cite(raab_nowok_dibben_2021(), "utility.gen: SPECKS, PO50, U and the null by refits"),
          cite(sdmetrics_software(), "detection score (LogisticDetection form)")};
}

void add_null_ratio(MetricResult& result, double pmse, NullMethod method,
                    const std::vector<double>& refit_pmse) {
  if (refit_pmse.empty()) return;
  const double mean = std::accumulate(refit_pmse.begin(), refit_pmse.end(), 0.0) /
                      static_cast<double>(refit_pmse.size());
  if (method == NullMethod::kPermutation) {
    result.add("S_pMSE", "all", pmse / (mean / 2));
    result.add("null_pMSE", "all", mean / 2);
    result.add("S_pMSE_independent", "all", pmse / mean);
  } else {
    result.add("S_pMSE", "all", pmse / mean);
    result.add("null_pMSE", "all", mean);
  }
}

void add_plots(MetricResult& result, const std::vector<double>& scores,
               const std::vector<std::uint8_t>& t, const std::string& model,
               const std::string& suffix) {
  if (!result.details.contains("plots")) result.details["plots"] = nlohmann::json::array();
  const std::string where = suffix.empty() ? "in-sample" : "out-of-sample";
  auto hist = make_plot("histogram", "Propensity scores by dataset (" + model + ", " + where + ")",
                        "propensity score P(synthetic)", "density");
  std::vector<double> by_group[2];
  for (std::size_t i = 0; i < scores.size(); ++i) by_group[t[i] ? 1 : 0].push_back(scores[i]);
  for (int g = 0; g < 2; ++g) {
    const auto total = static_cast<double>(by_group[g].size());
    for (const auto& bin : stats::histogram(by_group[g], 0.0, 1.0, 40))
      hist["data"].push_back(
          {{"bin_start", bin.start},
           {"bin_end", bin.end},
           {"dataset", g ? "synthetic" : "confidential"},
           {"density",
            total > 0 ? static_cast<double>(bin.count) / (total * (bin.end - bin.start)) : 0.0}});
  }
  result.details["plots"].push_back(hist);
  auto roc = make_plot("roc", "ROC curve, synthetic vs confidential (" + model + ", " + where + ")",
                       "false positive rate", "true positive rate");
  for (const auto& pt : stats::roc_curve(scores, t, 400))
    roc["data"].push_back({{"fpr", pt.fpr}, {"tpr", pt.tpr}});
  result.details["plots"].push_back(roc);
}

std::vector<ParamSpec> validation_params(const std::string& default_validation) {
  return {
      {.name = "columns",
       .type = ParamType::kStringList,
       .default_value = std::vector<std::string>{},
       .doc = "columns the model uses (synthpop's vars); empty = all",
       .names_columns = true},
      {.name = "validation",
       .type = ParamType::kString,
       .default_value = default_validation,
       .doc = "out-of-sample version besides the in-sample one: none, split (train/test) or kfold "
              "(each record scored by the model fitted without its fold); adds statistics with "
              "suffix _oos",
       .choices = {"none", "split", "kfold"}},
      {.name = "folds",
       .type = ParamType::kInt,
       .default_value = std::int64_t{5},
       .doc = "number of folds for validation: kfold",
       .min = 2,
       .max = 100},
      {.name = "test_share",
       .type = ParamType::kDouble,
       .default_value = 0.3,
       .doc = "share of each dataset held out for validation: split",
       .min = 0.05,
       .max = 0.95},
  };
}

std::vector<Round> validation_rounds(const std::vector<std::uint8_t>& t, const Params& params,
                                     std::uint64_t seed) {
  std::vector<Round> rounds;
  const std::string& v = params.get_string("validation");
  if (v == "none") return rounds;
  if (v == "split") {
    const auto part = assign_split(t, params.get_double("test_share"), seed);
    Round r;
    for (std::size_t i = 0; i < t.size(); ++i) (part[i] ? r.train : r.test).push_back(i);
    rounds.push_back(std::move(r));
    return rounds;
  }
  const int folds = static_cast<int>(params.get_int("folds"));
  const auto fold = assign_folds(t, folds, seed);
  for (int k = 0; k < folds; ++k) {
    Round r;
    for (std::size_t i = 0; i < t.size(); ++i) (fold[i] == k ? r.test : r.train).push_back(i);
    rounds.push_back(std::move(r));
  }
  return rounds;
}

}  // namespace synthaudit::propensity
