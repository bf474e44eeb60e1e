// Every metric with a mergeable form (MergeableForm, metric.hpp) against its own `compute`: the
// tables are cut into P = 1, 2, 3, 5 consecutive row ranges (an empty range and a one-row range
// among them), each range's partial_state is computed, `finalize` merges them, and the result must
// equal `compute` on the whole tables: the same (statistic, scope) pairs, the same NaN-ness,
// values within 1e-12 relative (1e-15 absolute near 0; a difference diff_x relative to its
// operands conf_x and syn_x) and counts exactly; details (plots
// included), warnings, records and errors alike. Parameters a form cannot merge (per-record
// output, bins whose breaks need every row) take its gathered path (metrics/gathered_state.hpp),
// which must give the same result too. Simulator data (docs/simulator.md): the leaky
// candidate with m = 2 replicates and a holdout, unweighted, with survey weights (the simulated
// household size as the weight column), and with synthetic weights that are unusable in a row
// of a later partition; a disclosure scenario with categorical and numeric keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/partial_state.hpp"
#include "sim/simulator.hpp"
#include "table/row_slice.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

const Tables& simulated() {
  static const Tables tables = [] {
    SimulationOptions o;
    o.rows = 3000;
    o.holdout_rows = 800;
    o.replicates = 2;
    o.columns = 14;
    o.seed = 5;
    o.out_dir = (synthaudit::testing::private_temp_dir("synthaudit_mergeable_sim")).string();
    std::filesystem::create_directories(o.out_dir);
    const SimulationFiles files = simulate(o);
    std::vector<std::string> leaky;
    for (const auto& [name, paths] : files.candidates)
      if (name == "leaky") leaky = paths;
    auto t = load_tables(files.confidential, leaky, files.holdout);
    std::filesystem::remove_all(o.out_dir);
    return t;
  }();
  return tables;
}

// The same tables with the second replicate's household size missing in row 2501, so that
// synthetic_weights = auto falls back to unweighted with a warning naming that row (it lies in a
// later partition for every P > 1 below).
const Tables& simulated_with_bad_weight() {
  static const Tables tables = [] {
    Tables t = simulated();
    Table& second = t.synthetic.at(1);
    for (std::size_t c = 0; c < second.column_count(); ++c)
      if (second.column(c).name == "household_size") second.column(c).numeric.at(2500) = NAN;
    return t;
  }();
  return tables;
}

// Consecutive ranges covering [0, n): P = 1 the whole; 2 a third and the rest; 3 an empty range,
// one row, the rest; 5 unequal ranges with an empty and a one-row range among them.
std::vector<std::pair<std::size_t, std::size_t>> row_ranges(std::size_t n, std::size_t parts) {
  std::vector<std::size_t> cuts;
  switch (parts) {
    case 1:
      cuts = {0, n};
      break;
    case 2:
      cuts = {0, n / 3, n};
      break;
    case 3:
      cuts = {0, 0, std::min<std::size_t>(1, n), n};
      break;
    default: {
      const std::size_t a = n / 5, b = std::min(a + 1, n), c = std::min(b + n / 2, n);
      cuts = {0, a, b, b, c, n};
    }
  }
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) ranges.emplace_back(cuts[i], cuts[i + 1]);
  return ranges;
}

// What a run produced: its result, or the error it threw ("InputError: message").
struct Outcome {
  std::optional<MetricResult> result;
  std::string error;
};

template <typename Run>
Outcome outcome_of(Run run) {
  Outcome o;
  try {
    o.result = run();
  } catch (const InputError& e) {
    o.error = std::string("InputError: ") + e.what();
  } catch (const MetricNotApplicable& e) {
    o.error = std::string("MetricNotApplicable: ") + e.what();
  }
  return o;
}

// `scale`: the magnitude the value was computed from when it is a difference of two statistics
// (diff_x = syn_x − conf_x): summation order moves each operand by a relative 1e-16 or so, and
// the difference by that much of the operands, not of itself.
bool close(double whole, double merged, double scale = 0.0) {
  if (std::isnan(whole) || std::isnan(merged)) return std::isnan(whole) == std::isnan(merged);
  if (std::isinf(whole) || std::isinf(merged)) return whole == merged;
  const double difference = std::abs(whole - merged);
  return difference <= 1e-15 ||
         difference <= 1e-12 * std::max({std::abs(whole), std::abs(merged), scale});
}

void compare_json(const nlohmann::json& whole, const nlohmann::json& merged, const std::string& at,
                  std::vector<std::string>& mismatches) {
  if (whole.is_number() && merged.is_number()) {
    if (!close(whole.get<double>(), merged.get<double>()))
      mismatches.push_back(at + ": " + whole.dump() + " vs " + merged.dump());
    return;
  }
  if (whole.type() != merged.type() || whole.size() != merged.size()) {
    mismatches.push_back(at + ": " + whole.dump().substr(0, 200) + " vs " +
                         merged.dump().substr(0, 200));
    return;
  }
  if (whole.is_object()) {
    for (auto it = whole.begin(); it != whole.end(); ++it) {
      if (!merged.contains(it.key()))
        mismatches.push_back(at + "." + it.key() + " missing");
      else
        compare_json(it.value(), merged.at(it.key()), at + "." + it.key(), mismatches);
    }
  } else if (whole.is_array()) {
    for (std::size_t i = 0; i < whole.size(); ++i)
      compare_json(whole[i], merged[i], at + "[" + std::to_string(i) + "]", mismatches);
  } else if (whole != merged) {
    mismatches.push_back(at + ": " + whole.dump() + " vs " + merged.dump());
  }
}

// Every difference between the whole-table result and the merged one; empty when they agree.
std::vector<std::string> differences(const MetricSpec& metric, const Outcome& whole,
                                     const Outcome& merged) {
  std::vector<std::string> mismatches;
  if (whole.error != merged.error || whole.result.has_value() != merged.result.has_value()) {
    mismatches.push_back("error '" + whole.error + "' vs '" + merged.error + "'");
    return mismatches;
  }
  if (!whole.result) return mismatches;
  const MetricResult& a = *whole.result;
  const MetricResult& b = *merged.result;
  std::map<std::pair<std::string, std::string>, double> merged_values;
  for (const auto& v : b.values) merged_values[{v.statistic, v.scope}] = v.value;
  std::map<std::pair<std::string, std::string>, double> whole_values;
  for (const auto& v : a.values) whole_values[{v.statistic, v.scope}] = v.value;
  std::map<std::string, OutputClass> output_of;
  for (const auto& s : metric.statistics)
    for (const auto& name : expand_statistic_name(s.name)) output_of[name] = s.output;
  if (a.values.size() != b.values.size())
    mismatches.push_back("values: " + std::to_string(a.values.size()) + " vs " +
                         std::to_string(b.values.size()));
  for (const auto& v : a.values) {
    const std::string at = v.statistic + " [" + v.scope + "]";
    const auto it = merged_values.find({v.statistic, v.scope});
    if (it == merged_values.end()) {
      mismatches.push_back(at + " missing from the merged result");
      continue;
    }
    const bool integer_count = output_of[v.statistic] == OutputClass::kCount &&
                               std::isfinite(v.value) && v.value == std::floor(v.value);
    double scale = 0.0;
    if (v.statistic.starts_with("diff_"))
      for (const char* side : {"conf_", "syn_"})
        if (auto operand = whole_values.find({side + v.statistic.substr(5), v.scope});
            operand != whole_values.end() && std::isfinite(operand->second))
          scale = std::max(scale, std::abs(operand->second));
    if (integer_count ? v.value != it->second : !close(v.value, it->second, scale)) {
      std::ostringstream text;
      text.precision(17);
      text << at << ": " << v.value << " vs " << it->second;
      mismatches.push_back(text.str());
    }
  }
  compare_json(a.details, b.details, "details", mismatches);
  if (a.warnings != b.warnings)
    mismatches.push_back("warnings differ: " + std::to_string(a.warnings.size()) + " vs " +
                         std::to_string(b.warnings.size()) +
                         (a.warnings.empty() ? "" : " first '" + a.warnings.front() + "'") +
                         (b.warnings.empty() ? "" : " vs '" + b.warnings.front() + "'"));
  if (a.records.size() != b.records.size()) {
    mismatches.push_back("records differ in number");
  } else {
    for (std::size_t r = 0; r < a.records.size(); ++r) {
      const auto& x = a.records[r];
      const auto& y = b.records[r];
      if (x.scope != y.scope || x.data != y.data || x.fields != y.fields ||
          x.confidential_only != y.confidential_only || x.values.size() != y.values.size()) {
        mismatches.push_back("records " + x.scope + " differ in shape");
        continue;
      }
      for (std::size_t f = 0; f < x.values.size(); ++f) {
        bool same = x.values[f].size() == y.values[f].size();
        for (std::size_t i = 0; same && i < x.values[f].size(); ++i)
          same = close(x.values[f][i], y.values[f][i]);
        if (!same) mismatches.push_back("records " + x.scope + " field " + x.fields[f] + " differ");
      }
    }
  }
  return mismatches;
}

struct Setting {
  std::string name;
  const Tables* tables;
  EvaluationContext context;
};

std::vector<Setting> settings() {
  EvaluationContext plain;
  plain.seed = 17;
  plain.scenarios = {{{"region", "sex", "age", "education"}, {"smoke", "income"}},
                     {{"sex", "marital", "cat1"}, {"employed"}},
                     {{"sex", "education", "income"}, {"smoke"}}};
  EvaluationContext weighted = plain;
  weighted.weights = "household_size";
  return {{"unweighted", &simulated(), plain},
          {"weighted", &simulated(), weighted},
          {"weighted, unusable synthetic weight", &simulated_with_bad_weight(), weighted}};
}

// Parameter sets besides the defaults, per metric.
std::vector<nlohmann::json> parameter_sets(const std::string& metric) {
  static const std::map<std::string, std::vector<nlohmann::json>> extra = {
      {"total_variation", {{{"missing", "exclude"}}, {{"synthetic_weights", "own"}}}},
      {"ks_distance", {{{"pvalue", true}, {"plots", false}}}},
      {"ratio_of_counts",
       {{{"digits", -1}, {"missing", "exclude"}},
        {{"numeric", false}, {"synthetic_weights", "none"}}}},
      {"k_anonymity",
       {{{"missing_keys", "value"}, {"k", {"2", "4", "10"}}},
        {{"numeric", "breaks"}, {"breaks", {"30", "50", "1000"}}},
        {{"record_level", true}},
        {{"numeric", "quantile"}}}},
      {"individual_risk", {{{"missing_keys", "value"}}, {{"record_level", true}}}},
      {"l_diversity", {{{"l", 3}, {"c", 2.5}}, {{"numeric", "quantile"}}}},
      {"replicated_uniques",
       {{{"numeric", "breaks"}, {"breaks", {"30", "50", "1000"}}}, {{"numeric", "quantile"}}}},
  };
  std::vector<nlohmann::json> sets = {nlohmann::json::object()};
  if (auto it = extra.find(metric); it != extra.end())
    sets.insert(sets.end(), it->second.begin(), it->second.end());
  return sets;
}

// All mismatches of `form` against `metric.compute` over every setting, replicate choice,
// parameter set and partition count, each prefixed with where it happened.
std::vector<std::string> check_form(const MetricSpec& metric, const MergeableForm& form) {
  std::vector<std::string> all;
  for (const Setting& setting : settings()) {
    const Tables& t = *setting.tables;
    std::vector<std::vector<std::size_t>> replicate_sets;
    if (metric.granularity == MetricGranularity::kPerCandidate)
      replicate_sets.push_back({0, 1});
    else
      replicate_sets = {{0}, {1}};
    for (const auto& replicates : replicate_sets) {
      for (const auto& raw_params : parameter_sets(metric.name)) {
        const Params params = Params::resolve(metric.name, metric.params, raw_params, "test");
        std::vector<const Table*> synthetic;
        for (auto r : replicates) synthetic.push_back(&t.synthetic.at(r));
        const MetricInput whole_input{t.confidential,  synthetic, &*t.holdout,
                                      setting.context, "leaky",   91};
        const Outcome whole = outcome_of([&] { return metric.compute(whole_input, params); });
        for (std::size_t parts : {1, 2, 3, 5}) {
          // One partition holds range p of every table; each table is cut by its own size.
          std::vector<Table> conf_parts, holdout_parts;
          std::vector<std::vector<Table>> syn_parts(synthetic.size());
          for (const auto& [b, e] : row_ranges(t.confidential.rows(), parts))
            conf_parts.push_back(slice_rows(t.confidential, b, e));
          for (const auto& [b, e] : row_ranges(t.holdout->rows(), parts))
            holdout_parts.push_back(slice_rows(*t.holdout, b, e));
          for (std::size_t s = 0; s < synthetic.size(); ++s)
            for (const auto& [b, e] : row_ranges(synthetic[s]->rows(), parts))
              syn_parts[s].push_back(slice_rows(*synthetic[s], b, e));
          std::vector<std::vector<const Table*>> syn_pointers(parts);
          std::vector<MetricInput> inputs;
          for (std::size_t p = 0; p < parts; ++p) {
            for (auto& s : syn_parts) syn_pointers[p].push_back(&s[p]);
            inputs.push_back(MetricInput{conf_parts[p], syn_pointers[p], &holdout_parts[p],
                                         setting.context, "leaky", 91});
          }
          const Outcome merged = outcome_of([&] {
            std::vector<std::string> states;
            for (const auto& input : inputs) states.push_back(form.partial_state(input, params));
            return form.finalize(states, inputs.front(), params);
          });
          for (const auto& m : differences(metric, whole, merged))
            all.push_back(setting.name + ", replicates " + std::to_string(replicates.front()) +
                          (replicates.size() > 1 ? "+" : "") + ", params " + raw_params.dump() +
                          ", P = " + std::to_string(parts) + ": " + m);
        }
      }
    }
  }
  return all;
}

}  // namespace

TEST(MergeableMetrics, RowSlicesShareDictionariesAndCoverTheTable) {
  const Table& conf = simulated().confidential;
  const Table empty = slice_rows(conf, 7, 7);
  EXPECT_EQ(empty.rows(), 0u);
  EXPECT_EQ(empty.column_count(), conf.column_count());
  const Table one = slice_rows(conf, 10, 11);
  ASSERT_EQ(one.rows(), 1u);
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    EXPECT_EQ(one.column(c).dictionary, conf.column(c).dictionary);
    EXPECT_EQ(one.column(c).missing(0), conf.column(c).missing(10));
    if (conf.column(c).is_categorical()) {
      EXPECT_EQ(one.column(c).codes[0], conf.column(c).codes[10]);
    }
  }
  EXPECT_EQ(slice_rows(conf, 0, conf.rows()).rows(), conf.rows());
  EXPECT_THROW(slice_rows(conf, 5, 4), std::out_of_range);
  EXPECT_THROW(slice_rows(conf, 0, conf.rows() + 1), std::out_of_range);
}

TEST(MergeableMetrics, StateBytesRoundTrip) {
  StateWriter out;
  out.u64(42);
  out.f64(-0.0);
  out.f64(NAN);
  out.str("keys=a,b");
  out.f64s({1.5, 2.5});
  out.u64s({});
  const std::string bytes = out.take();
  StateReader in(bytes);
  EXPECT_EQ(in.u64(), 42u);
  EXPECT_TRUE(std::signbit(in.f64()));
  EXPECT_TRUE(std::isnan(in.f64()));
  EXPECT_EQ(in.str(), "keys=a,b");
  EXPECT_EQ(in.f64s(), (std::vector<double>{1.5, 2.5}));
  EXPECT_TRUE(in.u64s().empty());
  in.expect_end();
  StateReader short_read(bytes.substr(0, 4));
  EXPECT_THROW(short_read.u64(), std::logic_error);
  StateReader unread(bytes);
  unread.u64();
  EXPECT_THROW(unread.expect_end(), std::logic_error);
}

// The weight check of consecutive ranges, merged, names the same first bad row as the whole.
TEST(MergeableMetrics, WeightFactsMergeInRowOrder) {
  Column w;
  w.numeric = {0, 0, 2, 1, NAN, -1};
  const auto whole = weight_column_facts(w);
  ASSERT_TRUE(whole.has_bad_row);
  EXPECT_EQ(whole.first_bad, 4u);
  for (std::size_t cut = 0; cut <= w.numeric.size(); ++cut) {
    Column a, b;
    a.numeric.assign(w.numeric.begin(), w.numeric.begin() + static_cast<std::ptrdiff_t>(cut));
    b.numeric.assign(w.numeric.begin() + static_cast<std::ptrdiff_t>(cut), w.numeric.end());
    auto merged = weight_column_facts(a);
    merged.merge_after(weight_column_facts(b));
    EXPECT_EQ(merged.has_bad_row, whole.has_bad_row);
    EXPECT_EQ(merged.first_bad, whole.first_bad);
    EXPECT_TRUE(std::isnan(merged.first_bad_value));
    EXPECT_EQ(merged.any_positive, whole.any_positive);
  }
}

TEST(MergeableMetrics, EveryFormMatchesComputeOnTheWholeTables) {
  std::vector<std::string> forms;
  for (const MetricSpec& metric : all_metrics()) {
    if (!metric.mergeable) continue;
    forms.push_back(metric.name);
    SCOPED_TRACE(metric.name);
    const auto mismatches = check_form(metric, *metric.mergeable);
    for (std::size_t i = 0; i < std::min<std::size_t>(mismatches.size(), 10); ++i)
      ADD_FAILURE() << metric.name << ": " << mismatches[i];
  }
  // The forms this harness is known to cover; a new form is checked as soon as it is registered.
  for (const char* name :
       {"total_variation", "ratio_of_counts", "zero_cell_agreement", "moments_and_covariance",
        "ks_distance", "wasserstein_distance", "k_anonymity", "replicated_uniques"})
    EXPECT_NE(std::find(forms.begin(), forms.end(), name), forms.end()) << name;
}

// A form that merges wrongly (it keeps the last partition's state and drops the others) must be
// caught for every P > 1, while P = 1 (nothing to merge) passes.
TEST(MergeableMetrics, HarnessCatchesAWrongMerge) {
  const MetricSpec* metric = find_metric("total_variation");
  ASSERT_NE(metric, nullptr);
  ASSERT_TRUE(metric->mergeable.has_value());
  MergeableForm wrong = *metric->mergeable;
  const auto right_finalize = metric->mergeable->finalize;
  wrong.finalize = [right_finalize](const std::vector<std::string>& states,
                                    const MetricInput& schema, const Params& params) {
    return right_finalize({states.back()}, schema, params);
  };
  const auto mismatches = check_form(*metric, wrong);
  EXPECT_FALSE(mismatches.empty());
  bool p1 = false, p2 = false, p5 = false;
  for (const auto& m : mismatches) {
    p1 = p1 || m.find("P = 1:") != std::string::npos;
    p2 = p2 || m.find("P = 2:") != std::string::npos;
    p5 = p5 || m.find("P = 5:") != std::string::npos;
  }
  EXPECT_FALSE(p1);
  EXPECT_TRUE(p2);
  EXPECT_TRUE(p5);
}
