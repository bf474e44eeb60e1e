// l-diversity of each sensitive column (a scenario's targets) within the classes of its keys:
// distinct, entropy and recursive l per class, confidential and synthetic side by side.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>

#include "core/communicator.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "metrics/gathered_state.hpp"
#include "metrics/key_disclosure/key_combinations.hpp"
#include "metrics/references.hpp"
#include "metrics/sdc_risk/owned_combinations.hpp"
#include "metrics/sdc_risk/sdc_scenarios.hpp"

namespace synthaudit {

namespace {

struct ClassDiversity {
  std::vector<double> distinct, entropy, recursive;  // per key pattern
};

// Recursive l of a class for the constant c (Machanavajjhala et al. 2007, definition 4.2, as
// sdcMicro's ldiversity reports it per class): with the class's value counts sorted
// r_1 >= ... >= r_m, the largest l in 2..m with r_1 < c · (r_l + ... + r_m), or 1 when there is
// none. The tail sum shrinks as l grows, so the class is recursive (c,l)-diverse exactly for
// l <= this value.
double recursive_l(std::vector<double> counts, double c) {
  std::sort(counts.begin(), counts.end(), std::greater<>());
  double tail = 0;
  for (std::size_t i = 1; i < counts.size(); ++i) tail += counts[i];
  std::size_t l = 1;
  while (l < counts.size() && counts[0] < c * tail) {
    tail -= counts[l];
    ++l;
  }
  return static_cast<double>(l);
}

// Per pattern: the number of target levels present, exp(entropy) of their shares and the
// recursive l for `c`.
ClassDiversity diversity(const stats::KeyPatterns& patterns,
                         const std::vector<std::uint32_t>& target, double c) {
  std::vector<std::unordered_map<std::uint32_t, double>> counts(patterns.patterns());
  for (std::size_t row = 0; row < target.size(); ++row)
    counts[patterns.pattern[row]][target[row]] += 1;
  ClassDiversity d;
  std::vector<double> class_counts;
  for (const auto& cls : counts) {
    double n = 0, entropy = 0;
    class_counts.clear();
    for (const auto& [level, count] : cls) {
      n += count;
      class_counts.push_back(count);
    }
    for (const auto& [level, count] : cls) entropy -= count / n * std::log(count / n);
    d.distinct.push_back(static_cast<double>(cls.size()));
    d.entropy.push_back(std::exp(entropy));
    d.recursive.push_back(recursive_l(class_counts, c));
  }
  return d;
}

// What the statistics need of a set of whole classes of one data set (0 confidential, 1
// synthetic), read from the records per combination of key values and target value (a class's
// combinations are contiguous in the map's order): its records, the records in classes below l
// by each measure, and the smallest l of each measure. Exact over any split of the classes: the
// sums are of whole record counts, and minima do not depend on order.
struct ClassSummary {
  double records = 0, below_distinct = 0, below_entropy = 0, below_recursive = 0;
  double min_distinct = std::numeric_limits<double>::infinity();
  double min_entropy = std::numeric_limits<double>::infinity();
  double min_recursive = std::numeric_limits<double>::infinity();
  bool empty = true;

  void add(const ClassSummary& other) {
    records += other.records;
    below_distinct += other.below_distinct;
    below_entropy += other.below_entropy;
    below_recursive += other.below_recursive;
    min_distinct = std::min(min_distinct, other.min_distinct);
    min_entropy = std::min(min_entropy, other.min_entropy);
    min_recursive = std::min(min_recursive, other.min_recursive);
    empty = empty && other.empty;
  }
  void write(StateWriter& out) const {
    for (double v : {records, below_distinct, below_entropy, below_recursive, min_distinct,
                     min_entropy, min_recursive})
      out.f64(v);
    out.boolean(empty);
  }
  static ClassSummary read(StateReader& in) {
    ClassSummary s;
    for (double* v : {&s.records, &s.below_distinct, &s.below_entropy, &s.below_recursive,
                      &s.min_distinct, &s.min_entropy, &s.min_recursive})
      *v = in.f64();
    s.empty = in.boolean();
    return s;
  }
};

struct TargetPart {
  std::vector<std::string> keys;
  std::string target;
  std::vector<std::size_t> columns;  // the key columns, then the target's
};

void add_summary(MetricResult& result, const TargetPart& part, std::size_t data,
                 const ClassSummary& s, const Params& params) {
  const double c = params.get_double("c");
  const std::string target_q = "target=" + part.target;
  const std::string l_q = target_q + ";l=" + std::to_string(params.get_int("l"));
  const double n = s.records;
  const auto& keys = part.keys;
  result.add("min_distinct_l", sdc::scope(keys, target_q, data),
             s.empty ? std::nan("") : s.min_distinct);
  result.add("min_entropy_l", sdc::scope(keys, target_q, data),
             s.empty ? std::nan("") : s.min_entropy);
  sdc::add_share_of_records(result, "share_below_distinct_l", sdc::scope(keys, l_q, data),
                            s.below_distinct, n, data);
  sdc::add_share_of_records(result, "share_below_entropy_l", sdc::scope(keys, l_q, data),
                            s.below_entropy, n, data);
  const std::string c_q = target_q + ";c=" + format_number(c);
  const std::string c_l_q = c_q + ";l=" + std::to_string(params.get_int("l"));
  result.add("min_recursive_l", sdc::scope(keys, c_q, data),
             s.empty ? std::nan("") : s.min_recursive);
  sdc::add_share_of_records(result, "share_below_recursive_l", sdc::scope(keys, c_l_q, data),
                            s.below_recursive, n, data);
}

MetricResult compute_l_diversity(const MetricInput& in, const Params& params) {
  const double l = static_cast<double>(params.get_int("l"));
  const double c = params.get_double("c");
  const stats::CodingOptions exact;
  MetricResult result;
  bool any_target = false;
  for (const auto& scenario : sdc::scenarios(in)) {
    if (scenario.targets.empty()) continue;
    any_target = true;
    const auto classes =
        sdc::scenario_classes(in.confidential, in.first_synthetic(), scenario, params);
    const auto& keys = classes.codes.key_names;
    for (std::size_t t = 0; t < classes.codes.target_columns.size(); ++t) {
      const std::string& name = classes.codes.target_names[t];
      const auto target = stats::code_column({&in.confidential, &in.first_synthetic()},
                                             classes.codes.target_columns[t], exact);
      for (std::size_t data = 0; data < 2; ++data) {
        const auto& patterns = classes.patterns[data];
        const auto d = diversity(patterns, target.codes[data], c);
        ClassSummary summary;
        summary.records = static_cast<double>(patterns.pattern.size());
        for (auto p : patterns.pattern) {
          summary.below_distinct += d.distinct[p] < l;
          summary.below_entropy += d.entropy[p] < l * (1 - 1e-12);
          summary.below_recursive += d.recursive[p] < l;
        }
        summary.empty = d.distinct.empty();
        if (!summary.empty) {
          summary.min_distinct = *std::min_element(d.distinct.begin(), d.distinct.end());
          summary.min_entropy = *std::min_element(d.entropy.begin(), d.entropy.end());
          summary.min_recursive = *std::min_element(d.recursive.begin(), d.recursive.end());
        }
        add_summary(result, TargetPart{keys, name, {}}, data, summary, params);
      }
    }
  }
  if (!any_target) throw MetricNotApplicable("no disclosure targets (sensitive columns) given");
  return result;
}

// The mergeable form: per scenario and target, the records of each combination of key values and
// target value in both data sets; a class's value counts are the combinations that share its key
// values (contiguous in the combinations' order). Keys coded by user breaks or data-driven bins
// gather the rows, since the target is always coded exactly.
std::string l_diversity_state(const MetricInput& in, const Params& params) {
  if (params.get_string("numeric") != "exact") return gathered_state(in);
  const auto options = keydisc::coding_options(params);
  StateWriter out = begin_merged_state();
  for (const auto& scenario : sdc::scenarios(in)) {
    if (scenario.targets.empty()) continue;
    const std::vector<const Table*> tables = {&in.confidential, &in.first_synthetic()};
    const auto codes = keydisc::code_scenario(tables, scenario, options);
    for (std::size_t target : codes.target_columns) {
      auto columns = codes.key_columns;
      columns.push_back(target);
      keydisc::count_combinations(tables, columns, options).write(out);
    }
  }
  return out.take();
}

// Summarises whole classes one at a time: the value counts of a class (its combinations'
// records of one data set), then close_class.
struct ClassSummariser {
  double l, c;
  ClassSummary summary;
  std::vector<double> counts;

  void add(std::uint64_t records) {
    if (records > 0) counts.push_back(static_cast<double>(records));
  }
  void close_class() {
    if (counts.empty()) return;
    double n = 0, h = 0;
    for (double k : counts) n += k;
    for (double k : counts) h -= k / n * std::log(k / n);
    const double distinct = static_cast<double>(counts.size());
    const double entropy = std::exp(h);
    const double recursive = recursive_l(counts, c);
    summary.records += n;
    summary.below_distinct += (distinct < l) * n;
    summary.below_entropy += (entropy < l * (1 - 1e-12)) * n;
    summary.below_recursive += (recursive < l) * n;
    summary.min_distinct = std::min(summary.min_distinct, distinct);
    summary.min_entropy = std::min(summary.min_entropy, entropy);
    summary.min_recursive = std::min(summary.min_recursive, recursive);
    summary.empty = false;
    counts.clear();
  }
};

ClassSummary summarise_classes(const keydisc::CombinationCounts& combinations, std::size_t data,
                               double l, double c) {
  ClassSummariser classes{l, c, {}, {}};
  const keydisc::KeyCombination* previous = nullptr;
  for (const auto& [combination, per_table] : combinations.counts) {
    const bool same_class =
        previous != nullptr &&
        std::equal(combination.begin(), combination.end() - 1, previous->begin());
    if (!same_class) classes.close_class();
    previous = &combination;
    classes.add(per_table[data]);
  }
  classes.close_class();
  return classes.summary;
}

// The same over flat counts (a class is the key values without the target, which comes last).
ClassSummary summarise_classes(const keydisc::FlatCombinations& combinations, std::size_t data,
                               double l, double c) {
  ClassSummariser classes{l, c, {}, {}};
  const std::size_t class_keys = combinations.keys - 1;
  for (std::size_t i = 0; i < combinations.size(); ++i) {
    const bool same_class =
        i > 0 &&
        std::equal(combinations.key(i), combinations.key(i) + class_keys, combinations.key(i - 1));
    if (!same_class) classes.close_class();
    classes.add(combinations.count(i, data));
  }
  classes.close_class();
  return classes.summary;
}

// The scenario's keys and one target: what each set of statistics is about.

std::vector<TargetPart> target_parts(const MetricInput& schema,
                                     const stats::CodingOptions& options) {
  std::vector<TargetPart> parts;
  for (const auto& scenario : sdc::scenarios(schema)) {
    if (scenario.targets.empty()) continue;
    const auto codes = keydisc::code_scenario({&schema.confidential, &schema.first_synthetic()},
                                              scenario, options);
    for (std::size_t t = 0; t < codes.target_columns.size(); ++t) {
      auto columns = codes.key_columns;
      columns.push_back(codes.target_columns[t]);
      parts.push_back({codes.key_names, codes.target_names[t], std::move(columns)});
    }
  }
  if (parts.empty()) throw MetricNotApplicable("no disclosure targets (sensitive columns) given");
  return parts;
}

MetricResult finalize_l_diversity(const std::vector<std::string>& states, const MetricInput& schema,
                                  const Params& params) {
  if (auto gathered = finalize_if_gathered(states, schema, params, compute_l_diversity))
    return *gathered;
  const double l = static_cast<double>(params.get_int("l"));
  const double c = params.get_double("c");
  const auto parts = target_parts(schema, keydisc::coding_options(params));
  std::vector<keydisc::CombinationCounts> merged(parts.size());
  for (const auto& state : states) {
    StateReader in = open_merged_state(state);
    for (auto& counts : merged) counts.add(keydisc::CombinationCounts::read(in));
    in.expect_end();
  }
  MetricResult result;
  for (std::size_t t = 0; t < parts.size(); ++t)
    for (std::size_t data = 0; data < 2; ++data)
      add_summary(result, parts[t], data, summarise_classes(merged[t], data, l, c), params);
  return result;
}

// The collective form: per scenario target, each rank counts its records per combination, sends
// each combination to the rank that owns its class (all_to_all), and summarises the whole classes
// it owns; the root adds the ranks' summaries. No rank holds more than about its share of the
// combinations, and every number equals the mergeable form's.
MetricResult collective_l_diversity(const MetricInput& partition, const Params& params,
                                    Communicator& communicator) {
  const double l = static_cast<double>(params.get_int("l"));
  const double c = params.get_double("c");
  const auto options = keydisc::coding_options(params);
  const auto parts = target_parts(partition, options);
  const std::vector<const Table*> tables = {&partition.confidential, &partition.first_synthetic()};
  MetricResult result;
  for (const auto& part : parts) {
    // A class is its key values: the combination without the target, which comes last.
    keydisc::FlatCombinations owned =
        sdc::exchange_to_owners(keydisc::count_flat_combinations(tables, part.columns, options),
                                part.columns.size() - 1, communicator);
    StateWriter mine;
    for (std::size_t data = 0; data < 2; ++data) summarise_classes(owned, data, l, c).write(mine);
    owned = {};
    std::vector<ClassSummary> whole(2);
    for (const auto& bytes : communicator.all_gather(mine.take())) {
      StateReader in(bytes);
      for (auto& summary : whole) summary.add(ClassSummary::read(in));
      in.expect_end();
    }
    for (std::size_t data = 0; data < 2; ++data)
      add_summary(result, part, data, whole[data], params);
  }
  return result;
}

bool l_diversity_collective_applies(const MetricInput& schema, const Params& params) {
  return params.get_string("numeric") == "exact" && schema.context.weights.empty();
}

}  // namespace

MetricSpec l_diversity_metric() {
  using enum ScopeKind;
  using namespace references;
  // Classes here partition the records, so the missing-key rule does not apply.
  auto params = sdc::key_params(/*with_missing_keys=*/false);
  params.push_back({.name = "l",
                    .type = ParamType::kInt,
                    .default_value = std::int64_t{2},
                    .doc = "diversity threshold: a class is below l when it holds fewer than l "
                           "distinct sensitive values (or entropy l, or recursive l, below l)",
                    .min = 1});
  params.push_back({.name = "c",
                    .type = ParamType::kDouble,
                    .default_value = 2.0,
                    .doc = "constant of recursive (c,l)-diversity: a class is recursive "
                           "(c,l)-diverse when its most frequent sensitive value occurs fewer "
                           "than c times as often as its values from the l-th most frequent on "
                           "(sdcMicro's l_recurs_c, default 2)",
                    .min = 1e-9});
  return MetricSpec{
      .name = "l_diversity",
      .family = MetricFamily::kSdcRisk,
      .summary =
          "l-diversity of each sensitive column within the key classes: distinct and "
          "entropy l, and the share of records in classes below l, confidential and "
          "synthetic side by side",
      .doc =
          "For each scenario target (sensitive column) and each class of records with equal "
          "key values (a missing key value is a value of its own here, so classes partition "
          "the records): distinct l = the number of distinct target values in the class; "
          "entropy l = exp(−Σ_s p_s log p_s) over the class's shares p_s of the target "
          "values (Machanavajjhala et al. 2007, definitions 3.3 and 4.1: a class is entropy "
          "l-diverse when this is >= l). A missing target value counts as a value of its "
          "own; a numeric target's distinct values are its values. Reported: the smallest "
          "distinct and entropy l over the classes, and the shares of records whose class "
          "falls below `l`. Keys are coded as `numeric` says. Computed on the confidential "
          "data and on each synthetic replicate alike; scopes end in `data=confidential` or "
          "`data=synthetic`, shown side by side in the report. Recursive (c,l)-diversity "
          "(definition 4.2 there), with the parameter `c`: with a class's value counts sorted "
          "r_1 >= ... >= r_m, its recursive l is the largest l in 2..m with "
          "r_1 < c · (r_l + ... + r_m), or 1 when there is none, and the class is recursive "
          "(c,l)-diverse exactly when that is >= l; reported as the smallest recursive l over "
          "the classes (scope `c=…`) and the share of records whose class falls below `l` "
          "(scope `c=…;l=…`). sdcMicro's ldiversity (Templ, Kowarik & Meindl 2015) reports "
          "the same distinct, entropy and recursive l per record; where it differs: it leaves "
          "missing sensitive values out of the recursive l (here a value of its own, as in the "
          "distinct and entropy l) and, in the distinct and entropy l, counts them only in a "
          "class with some observed value; it computes the recursive sums in single "
          "precision. A partitioned run merges the records per combination of key values and "
          "target value; without whole tables the ranks do it together, each class's "
          "combinations sent to the rank that owns the class (by a hash of its key values), "
          "which summarises it; with numeric keys coded by bins or breaks it gathers every row "
          "on one process.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .compute = compute_l_diversity,
      .mergeable =
          MergeableForm{.partial_state = l_diversity_state, .finalize = finalize_l_diversity},
      .collective =
          CollectiveForm{.applies = l_diversity_collective_applies, .run = collective_l_diversity},
      .statistics = {{"min_distinct_l",
                      "the smallest number of distinct sensitive values in a class",
                      Ideal::higher(),
                      {kScenario}},
                     {"min_entropy_l",
                      "the smallest entropy l (exp of the entropy of the sensitive values) in "
                      "a class",
                      Ideal::higher(),
                      {kScenario}},
                     {"share_below_distinct_l",
                      "share of records in classes with fewer than l distinct sensitive values",
                      Ideal::lower(),
                      {kScenario}},
                     {"share_below_entropy_l",
                      "share of records in classes whose entropy l is below l",
                      Ideal::lower(),
                      {kScenario}},
                     {"min_recursive_l",
                      "the smallest recursive l (for the constant c) in a class",
                      Ideal::higher(),
                      {kScenario}},
                     {"share_below_recursive_l",
                      "share of records in classes that are not recursive (c,l)-diverse",
                      Ideal::lower(),
                      {kScenario}}},
      .references = {cite(machanavajjhala_2007(),
                          "distinct, entropy and recursive (c,l)-diversity"),
                     cite(templ_kowarik_meindl_2015(), "l-diversity per record (sdcMicro)"),
                     cite(sdcmicro_software(), "ldiversity's recursive l and its constant c")},
  };
}

}  // namespace synthaudit
