// Every metric declares every statistic it can emit (name, meaning, ideal, scope) and the
// published works it follows; the headlines agree with those declarations. The metrics run on
// small data here, with the parameters that switch optional statistics on, and each number they
// emit must fall under a declaration of its metric.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "metrics/registry_json.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

// Mixed columns with missing values, a declared missing code, ties and a 0/1 outcome; rows
// correspond between the tables, so partial synthesis applies too.
std::string mixed_csv(std::uint64_t seed, std::size_t rows) {
  Rng rng(seed, 1);
  const char* levels_c[] = {"a", "b", "c"};
  const char* levels_d[] = {"u", "v"};
  std::string csv = "x,y,z,c,d,b\n";
  for (std::size_t i = 0; i < rows; ++i) {
    const double x = std::round(rng.uniform() * 100) / 10;
    const double y = x * 2 + std::round(rng.normal() * 10) / 10;
    csv += (i % 17 == 3 ? std::string("NA") : format_number(x)) + ",";
    csv += (i % 11 == 5 ? std::string("-8") : format_number(y)) + ",";
    csv += std::to_string(rng.below(4)) + ",";
    csv += (i % 13 == 7 ? std::string("NA") : std::string(levels_c[rng.below(3)])) + ",";
    csv += std::string(levels_d[rng.below(2)]) + ",";
    csv += std::to_string(rng.below(2)) + "\n";
  }
  return csv;
}

EvaluationContext small_context(SynthesisType synthesis) {
  EvaluationContext context;
  context.synthesis = synthesis;
  context.seed = 11;
  context.threads = 1;
  context.scenarios = {{{"c", "b"}, {"z", "d"}}, {{"c", "x"}, {"y"}}};
  context.household = "d";  // the household risk's statistics
  context.analyses = {{.name = "mean_x", .kind = "mean", .column = "x"},
                      {.name = "share_c", .kind = "proportion", .column = "c"},
                      {.name = "median_y", .kind = "quantile", .column = "y", .probability = 0.5},
                      {.name = "total_z", .kind = "total", .column = "z"},
                      {.name = "wage", .kind = "lm", .formula = "y ~ x + factor(d)"},
                      {.name = "logit", .kind = "glm_logit", .formula = "b ~ x"}};
  context.rules = {{.name = "x_small", .then = "is_missing(x) | x < 9"},
                   {.name = "c_known", .then = "c in ('a', 'b')", .severity = "warning"},
                   {.name = "two_d_per_c", .then = "n_distinct(d) <= 2", .group_by = {"c"}}};
  return context;
}

// Parameter sets beyond the defaults that switch optional statistics on.
std::vector<nlohmann::json> parameter_variants(const std::string& metric) {
  std::vector<nlohmann::json> variants = {nlohmann::json::object()};
  if (metric == "ks_distance") variants.push_back({{"pvalue", true}});
  if (metric == "table_utility") variants.push_back({{"max_way", 3}});
  if (metric == "propensity_logistic") {
    variants.push_back({{"validation", "kfold"}, {"folds", 3}});
    variants.push_back({{"null", "permutation"}, {"nperms", 3}});
    variants.push_back({{"null", "bootstrap"}, {"nboot", 3}});
  }
  if (metric == "propensity_cart" || metric == "propensity_boosted_trees")
    variants.push_back({{"null", "permutation"}, {"nperms", 3}});
  if (metric == "train_synthetic_test_real") {
    variants.push_back({{"target", "c"}});
    variants.push_back({{"target", "y"}});
    variants.push_back({{"target", "b"}, {"model", "logistic"}});
    variants.push_back({{"target", "y"}, {"model", "boosted_trees"}, {"rounds", 3}});
  }
  return variants;
}

// Which kind of scope `scope` is, from the tables' columns and the declared analyses.
std::optional<ScopeKind> scope_kind(const std::string& scope, const Tables& t,
                                    const EvaluationContext& context) {
  // A combining rule qualifies a scope of any kind: "wage:age;rule=synthpop".
  if (const auto rule = scope.find(";rule="); rule != std::string::npos)
    return scope_kind(scope.substr(0, rule), t, context);
  std::set<std::string> columns;
  for (std::size_t c = 0; c < t.confidential.column_count(); ++c)
    columns.insert(t.confidential.column(c).name);
  if (scope == "all") return ScopeKind::kAll;
  if (scope == "one-way" || scope == "two-way" || scope == "three-way")
    return ScopeKind::kTableOrder;
  if (scope.rfind("keys=", 0) == 0) return ScopeKind::kScenario;
  if (scope.rfind("mode=", 0) == 0) return ScopeKind::kScenario;  // an attack's setting
  for (const auto& rule : context.rules)
    if (scope == "rule=" + rule.name) return ScopeKind::kRule;
  if (scope.rfind("isolated_", 0) == 0) return ScopeKind::kRecordGroup;
  for (const auto& analysis : context.analyses) {
    if (scope == analysis.name) return ScopeKind::kAnalysis;
    if (scope.rfind(analysis.name + ":", 0) == 0) return ScopeKind::kEstimand;
  }
  if (columns.count(scope)) return ScopeKind::kColumn;
  // A household aggregate of a column (household_composition): "size", "age:sd", "sex=F:share".
  if (scope == "size") return ScopeKind::kFeature;
  for (const char* aggregate : {":mean", ":min", ":max", ":sd", ":distinct", ":share"})
    if (const auto at = scope.rfind(aggregate);
        at != std::string::npos && at + std::string(aggregate).size() == scope.size() &&
        columns.count(scope.substr(0, std::min(at, scope.find('=')))))
      return ScopeKind::kFeature;
  if (const auto eq = scope.find('=');
      eq != std::string::npos && columns.count(scope.substr(0, eq)))
    return ScopeKind::kColumnLevel;
  for (const auto& column : columns)
    if (scope == column + "_NA" || scope.rfind(column + "_cna_", 0) == 0)
      return ScopeKind::kFeature;
  const auto parts = split(scope, ':');
  const bool all_columns = std::all_of(parts.begin(), parts.end(),
                                       [&](const std::string& p) { return columns.count(p) > 0; });
  if (all_columns && parts.size() == 2) return ScopeKind::kColumnPair;
  if (all_columns && parts.size() == 3) return ScopeKind::kColumnTriple;
  return std::nullopt;
}

bool scope_declared(const StatisticSpec& statistic, ScopeKind kind) {
  for (auto declared : statistic.scopes)
    if (declared == kind || (declared == ScopeKind::kFeature && kind == ScopeKind::kColumn))
      return true;
  return false;
}

bool same_ideal(const Ideal& a, const Ideal& b) {
  if (a.kind != b.kind) return false;
  return a.kind != IdealKind::kTarget || (a.target == b.target && a.scale == b.scale);
}

// Runs every metric on `t` in both synthesis types with every parameter variant, checks each
// emitted number against the declarations and records which declarations were used.
void check_emitted(const Tables& t, const std::string& label,
                   std::map<std::string, std::set<const StatisticSpec*>>& used,
                   const std::string& weights = "") {
  for (const auto& metric : all_metrics())
    for (auto synthesis : {SynthesisType::kFull, SynthesisType::kPartial})
      for (const auto& params : parameter_variants(metric.name)) {
        if (synthesis == SynthesisType::kPartial && t.confidential.rows() != t.synthetic[0].rows())
          continue;
        SCOPED_TRACE(metric.name + " on " + label + " (" + to_string(synthesis) + ", " +
                     params.dump() + ")");
        EvaluationContext context = small_context(synthesis);
        context.weights = weights;
        MetricResult result;
        try {
          result = run_metric(metric.name, t, params, context);
        } catch (const MetricNotApplicable&) {
          continue;
        } catch (const InputError&) {
          continue;
        }
        for (const auto& v : result.values) {
          const StatisticSpec* declared = find_statistic(metric, v.statistic);
          if (declared == nullptr) {
            ADD_FAILURE() << metric.name << " emits '" << v.statistic
                          << "', which its declaration (MetricSpec::statistics) does not list";
            continue;
          }
          used[metric.name].insert(declared);
          const auto kind = scope_kind(v.scope, t, context);
          if (!kind) {
            ADD_FAILURE() << metric.name << ": scope '" << v.scope << "' of '" << v.statistic
                          << "' is of no known kind";
          } else if (!scope_declared(*declared, *kind)) {
            ADD_FAILURE() << metric.name << ": '" << v.statistic << "' reported per "
                          << to_string(*kind) << " ('" << v.scope
                          << "'), which its declaration does not list";
          }
        }
      }
}

}  // namespace

TEST(RegistryDeclarations, EveryMetricDeclaresStatisticsAndReferences) {
  for (const auto& metric : all_metrics()) {
    SCOPED_TRACE(metric.name);
    EXPECT_FALSE(metric.statistics.empty());
    EXPECT_FALSE(metric.references.empty());
    std::set<std::string> names;
    for (const auto& s : metric.statistics) {
      EXPECT_FALSE(s.meaning.empty()) << s.name;
      EXPECT_FALSE(s.scopes.empty()) << s.name;
      for (const auto& name : expand_statistic_name(s.name)) {
        EXPECT_EQ(name.find_first_of("{}|"), std::string::npos) << s.name;
        EXPECT_TRUE(names.insert(name).second) << name << " is declared twice";
      }
    }
    for (const auto& r : metric.references) {
      EXPECT_FALSE(r.authors.empty());
      EXPECT_FALSE(r.title.empty());
      EXPECT_TRUE(r.year > 0 || !r.software.empty()) << r.title << ": no year";
      EXPECT_FALSE(r.used_for.empty()) << r.title << ": say what the metric takes from it";
    }
  }
}

TEST(RegistryDeclarations, HeadlinesAgreeWithTheirStatistics) {
  for (const auto& metric : all_metrics())
    for (const auto& h : metric.headlines) {
      SCOPED_TRACE(metric.name + ": headline " + h.statistic);
      const StatisticSpec* declared = find_statistic(metric, h.statistic);
      ASSERT_NE(declared, nullptr) << "the headline names a statistic the metric does not declare";
      ASSERT_TRUE(declared->ideal.has_value()) << "a headline's statistic needs an ideal";
      EXPECT_TRUE(same_ideal(h.ideal, *declared->ideal))
          << "headline ideal " << to_json(h.ideal).dump() << " but the statistic declares "
          << to_json(*declared->ideal).dump();
      EXPECT_TRUE(h.axis == "utility" || h.axis == "risk") << h.axis;
      // Headlines are summaries: over everything, over the tables of one order, or over the
      // records most at risk, possibly under one named combining rule ("all;rule=synthpop").
      const std::string base = h.scope.substr(0, h.scope.find(";rule="));
      const bool table_order = base == "one-way" || base == "two-way" || base == "three-way";
      const bool record_group = base.rfind("isolated_", 0) == 0;
      EXPECT_TRUE(base == "all" || table_order || record_group) << "scope " << h.scope;
      const ScopeKind kind = table_order    ? ScopeKind::kTableOrder
                             : record_group ? ScopeKind::kRecordGroup
                                            : ScopeKind::kAll;
      EXPECT_NE(std::find(declared->scopes.begin(), declared->scopes.end(), kind),
                declared->scopes.end())
          << "the headline's scope '" << h.scope
          << "' is not among the statistic's declared scopes";
      // The statistics a baseline reads its value and its noise from are declared too.
      for (const auto& named : {h.baseline.statistic, h.baseline.noise_statistic}) {
        if (named.empty()) continue;
        EXPECT_NE(find_statistic(metric, named), nullptr)
            << "the baseline names '" << named << "', which the metric does not declare";
      }
    }
}

TEST(RegistryDeclarations, EmittedStatisticsAreDeclared) {
  std::map<std::string, std::set<const StatisticSpec*>> used;
  ReadSettings settings;
  settings.missing_codes = {{"y", {-8}}};
  const std::string conf = mixed_csv(1, 80);
  const auto mixed =
      make_tables(conf, {mixed_csv(2, 80), mixed_csv(3, 80)}, mixed_csv(4, 40), settings);
  check_emitted(mixed, "mixed data", used);
  // Survey weights (the design effects of weighted estimates).
  check_emitted(mixed, "mixed data weighted by z", used, "z");
  // A near-copy: many exact copies, and synthetic-only levels.
  std::string copy = conf;
  for (auto& ch : copy)
    if (ch == 'u') ch = 'w';
  const auto copied = make_tables(conf, {copy}, mixed_csv(5, 40), settings);
  check_emitted(copied, "near-copy", used);
  // Two categorical columns besides the household column d, so categorical pairs remain.
  const auto small = make_tables("x,y,c,e\n1.5,0,a,p\n2,1,b,q\n", {"x,y,c,e\n2.5,1,b,q\n3,2,c,p\n"},
                                 std::string("x,y,c,e\n1,1,a,p\n2,2,b,q\n"));
  check_emitted(small, "two rows", used);

  // Every declaration is something a metric can emit: none is stale.
  for (const auto& metric : all_metrics())
    for (const auto& s : metric.statistics)
      EXPECT_TRUE(used[metric.name].count(&s))
          << metric.name << " declares '" << s.name << "' but emitted none of its names here";
}

TEST(RegistryDeclarations, JsonCarriesEveryDeclaration) {
  const auto registry = registry_to_json();
  EXPECT_EQ(registry["schema"], kRegistrySchema);
  ASSERT_EQ(registry["metrics"].size(), all_metrics().size());
  for (std::size_t i = 0; i < all_metrics().size(); ++i) {
    const auto& metric = all_metrics()[i];
    const auto& entry = registry["metrics"][i];
    EXPECT_EQ(entry["name"], metric.name);
    EXPECT_EQ(entry["parameters"].size(), metric.params.size());
    EXPECT_EQ(entry["statistics"].size(), metric.statistics.size());
    EXPECT_EQ(entry["references"].size(), metric.references.size());
    std::size_t headline_statistics = 0;
    for (const auto& s : entry["statistics"]) {
      headline_statistics += s["headline"].get<bool>() ? 1 : 0;
      ASSERT_TRUE(s["ideal"].is_null() || s["ideal"].contains("kind"));
    }
    EXPECT_EQ(headline_statistics > 0, !metric.headlines.empty()) << metric.name;
  }
}
