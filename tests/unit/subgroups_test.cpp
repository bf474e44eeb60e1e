// Subgroup scopes (`by:`, engine/subgroups.hpp): a subgroup's numbers are exactly those of the
// same metric run on files that hold only the subgroup's rows; small subgroups are suppressed;
// bad by-columns are input errors; the verdict reads the whole data only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "engine/evaluate.hpp"
#include "result/document.hpp"
#include "spec/spec.hpp"
#include "synthaudit/synthaudit.hpp"
#include "input_error_of.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using synthaudit::testing::error_of;
using synthaudit::testing::shared_data;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() /
             ("synthaudit_subgroups_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The header and the rows whose line starts with `prefix` (the SD2011 files start with sex).
void write_filtered(const std::string& from, const fs::path& to, const std::string& prefix) {
  std::ifstream in(from);
  std::ofstream out(to);
  std::string line;
  std::getline(in, line);
  out << line << '\n';
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) out << line << '\n';
}

EvaluationSpec sd2011_spec(const std::string& train, const std::vector<std::string>& synthetic,
                           const std::string& holdout) {
  EvaluationSpec spec;
  spec.confidential = train;
  spec.holdout = holdout;
  spec.candidates = {{"cart", synthetic}};
  spec.read.missing_codes["income"] = {-8};
  spec.metrics = {"general", "specific", "key-disclosure"};
  spec.context.scenarios = {{{"age", "edu", "marital"}, {"ls"}}};
  spec.context.analyses = {parse_analysis("wage=lm: income ~ age + factor(edu)", 0, "test"),
                           parse_analysis("mean: age", 1, "test"),
                           parse_analysis("proportion: smoke", 2, "test")};
  spec.baseline_draws = 0;
  spec.context.threads = 1;
  return spec;
}

using Values = std::map<std::pair<std::string, std::string>, double>;
Values values_of(const nlohmann::json& values) {
  Values out;
  for (const auto& v : values)
    out[{v["statistic"].get<std::string>(), v["scope"].get<std::string>()}] =
        v["value"].is_null() ? NAN : v["value"].get<double>();
  return out;
}

// A document part without its wall times, which differ between runs.
nlohmann::json without_times(nlohmann::json node) {
  if (node.is_object()) {
    node.erase("wall_seconds");
    for (auto& [key, value] : node.items()) value = without_times(value);
  } else if (node.is_array()) {
    for (auto& item : node) item = without_times(item);
  }
  return node;
}

const nlohmann::json* subgroup(const nlohmann::json& metric, const std::string& label) {
  for (const auto& g : metric["subgroups"])
    if (g["label"] == label) return &g;
  return nullptr;
}

}  // namespace

// The subgroup sex=FEMALE of a run on the SD2011 files equals, number for number, the same
// metrics run on files that hold only the FEMALE rows (confidential, both replicates, holdout).
TEST(Subgroups, ValuesEqualTheMetricsOnPreFilteredFiles) {
  const auto dir = temp_dir("prefiltered");
  const std::string train = shared_data("sd2011/train.csv");
  const std::vector<std::string> synthetic = {shared_data("sd2011/train_syn.csv"),
                                              shared_data("sd2011/syn.csv")};
  const std::string holdout = shared_data("sd2011/holdout.csv");
  EvaluationSpec by_sex = sd2011_spec(train, synthetic, holdout);
  by_sex.by = {"sex"};
  const auto whole = evaluate(by_sex, load_evaluation_data(by_sex));

  write_filtered(train, dir / "train.csv", "\"FEMALE\"");
  write_filtered(synthetic[0], dir / "syn1.csv", "\"FEMALE\"");
  write_filtered(synthetic[1], dir / "syn2.csv", "\"FEMALE\"");
  write_filtered(holdout, dir / "holdout.csv", "\"FEMALE\"");
  const EvaluationSpec filtered_spec = sd2011_spec(
      (dir / "train.csv").string(), {(dir / "syn1.csv").string(), (dir / "syn2.csv").string()},
      (dir / "holdout.csv").string());
  const auto filtered = evaluate(filtered_spec, load_evaluation_data(filtered_spec));

  ASSERT_EQ(whole["metrics"].size(), filtered["metrics"].size());
  std::size_t compared = 0;
  for (std::size_t m = 0; m < whole["metrics"].size(); ++m) {
    const auto& metric = whole["metrics"][m];
    const auto& reference = filtered["metrics"][m];
    ASSERT_EQ(metric["name"], reference["name"]);
    if (reference.contains("skipped")) continue;
    SCOPED_TRACE(metric["name"].get<std::string>());
    const nlohmann::json* female = subgroup(metric, "sex=FEMALE");
    ASSERT_NE(female, nullptr);
    ASSERT_FALSE(female->contains("suppressed"));
    EXPECT_EQ((*female)["rows"]["confidential"], 2267);
    const auto& cand = (*female)["candidates"][0];
    const auto& ref = reference["candidates"][0];
    std::vector<std::pair<nlohmann::json, nlohmann::json>> pairs;
    if (ref.contains("combined")) {
      pairs.emplace_back(cand["combined"]["values"], ref["combined"]["values"]);
    } else {
      for (std::size_t r = 0; r < 2; ++r)
        pairs.emplace_back(cand["replicates"][r]["values"], ref["replicates"][r]["values"]);
      pairs.emplace_back(cand["mean"]["values"], ref["mean"]["values"]);
    }
    for (const auto& [got_json, want_json] : pairs) {
      const Values got = values_of(got_json), want = values_of(want_json);
      EXPECT_EQ(got.size(), want.size());
      for (const auto& [key, value] : want) {
        const auto it = got.find(key);
        ASSERT_NE(it, got.end()) << key.first << " [" << key.second << "]";
        if (std::isnan(value))
          EXPECT_TRUE(std::isnan(it->second)) << key.first << " [" << key.second << "]";
        else
          EXPECT_EQ(it->second, value) << key.first << " [" << key.second << "]";
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 500u);
  // The whole-data results are those of a run without by:.
  EvaluationSpec plain = sd2011_spec(train, synthetic, holdout);
  const auto without = evaluate(plain, load_evaluation_data(plain));
  for (std::size_t m = 0; m < whole["metrics"].size(); ++m)
    EXPECT_EQ(without_times(whole["metrics"][m]["candidates"]),
              without_times(without["metrics"][m]["candidates"]));
  fs::remove_all(dir);
}

namespace {

// g: a x 60, b x 60, c x 5, missing x 60; h: x/y alternating. Synthetic: a x 60, b x 10, c x 5,
// missing x 60.
Evaluation small_groups() {
  std::vector<std::optional<std::string>> g_conf, h_conf, g_syn, h_syn;
  std::vector<double> x_conf, x_syn;
  auto add = [](auto& g, auto& h, auto& x, std::optional<std::string> level, int n) {
    for (int i = 0; i < n; ++i) {
      g.push_back(level);
      h.push_back(i % 2 ? std::optional<std::string>("x") : std::optional<std::string>("y"));
      x.push_back(static_cast<double>(i % 7) + (level ? static_cast<double>(level->at(0)) : 0.0));
    }
  };
  add(g_conf, h_conf, x_conf, "a", 60);
  add(g_conf, h_conf, x_conf, "b", 60);
  add(g_conf, h_conf, x_conf, "c", 5);
  add(g_conf, h_conf, x_conf, std::nullopt, 60);
  add(g_syn, h_syn, x_syn, "a", 60);
  add(g_syn, h_syn, x_syn, "b", 10);
  add(g_syn, h_syn, x_syn, "c", 5);
  add(g_syn, h_syn, x_syn, std::nullopt, 60);
  Evaluation e;
  e.confidential = {InputColumn::categorical("g", g_conf), InputColumn::categorical("h", h_conf),
                    InputColumn::numeric("x", x_conf)};
  e.candidates = {{"cand",
                   {{InputColumn::categorical("g", g_syn), InputColumn::categorical("h", h_syn),
                     InputColumn::numeric("x", x_syn)}}}};
  e.options["metrics"] = nlohmann::json::array({"ks_distance"});
  e.options["by"] = nlohmann::json::array({"g"});
  e.options["by_min_rows"] = 20;
  e.options["baseline_draws"] = 0;
  return e;
}

// The InputError message of evaluating `e` ("" when it does not throw one).
std::string evaluation_error(Evaluation e) {
  return error_of([&] { (void)evaluate(std::move(e)); });
}

}  // namespace

// Below the minimum a subgroup is suppressed (the confidential part: the whole subgroup; a
// candidate's synthetic part: that candidate), and results.tsv says so in a row of its own.
// Missing values form the level NA.
TEST(Subgroups, SmallSubgroupsAreSuppressedNotComputed) {
  const auto doc = evaluate(small_groups());
  const auto& metric = doc["metrics"][0];
  ASSERT_EQ(metric["subgroups"].size(), 4u);
  EXPECT_EQ(metric["subgroups"][0]["label"], "g=a");
  EXPECT_EQ(metric["subgroups"][1]["label"], "g=b");
  EXPECT_EQ(metric["subgroups"][2]["label"], "g=c");
  EXPECT_EQ(metric["subgroups"][3]["label"], "g=NA");
  const auto& a = metric["subgroups"][0];
  EXPECT_FALSE(a.contains("suppressed"));
  EXPECT_EQ(a["rows"]["confidential"], 60);
  EXPECT_FALSE(a["candidates"][0].contains("suppressed"));
  const auto& b = metric["subgroups"][1];
  EXPECT_FALSE(b.contains("suppressed"));
  EXPECT_EQ(b["candidates"][0]["suppressed"],
            "the synthetic data have fewer than 20 rows in this subgroup");
  EXPECT_FALSE(b["candidates"][0].contains("replicates"));
  const auto& c = metric["subgroups"][2];
  EXPECT_EQ(c["suppressed"], "the confidential data have fewer than 20 rows in this subgroup");
  EXPECT_FALSE(c.contains("rows"));  // a small count is not released
  EXPECT_FALSE(metric["subgroups"][3].contains("suppressed"));
  EXPECT_EQ(doc["subgroups"]["min_rows"], 20);

  const std::string tsv = results_tsv(doc);
  EXPECT_NE(tsv.find("cand\tnone\tks_distance\tsuppressed\tby:g=b;all\tNA\n"), std::string::npos);
  EXPECT_NE(tsv.find("cand\tnone\tks_distance\tsuppressed\tby:g=c;all\tNA\n"), std::string::npos);
  // g=a: x is the same 60 values in both files, so D = 0.
  EXPECT_NE(tsv.find("cand\t1\tks_distance\tks_distance\tby:g=a;x\t0\n"), std::string::npos);
  EXPECT_NE(tsv.find("\tby:g=NA;x\t"), std::string::npos);

  // With a minimum of 5 nothing is suppressed.
  Evaluation all = small_groups();
  all.options["by_min_rows"] = 5;
  const auto none = evaluate(std::move(all));
  for (const auto& g : none["metrics"][0]["subgroups"]) {
    EXPECT_FALSE(g.contains("suppressed")) << g["label"];
    EXPECT_FALSE(g["candidates"][0].contains("suppressed")) << g["label"];
  }
}

// Several by-columns: each alone, then each combination of their levels found in the
// confidential data.
TEST(Subgroups, CombinationsOfByColumnsFollowTheSingleColumns) {
  Evaluation e = small_groups();
  e.options["by"] = nlohmann::json::array({"h", "g"});
  e.options["by_min_rows"] = 1;
  const auto doc = evaluate(std::move(e));
  std::vector<std::string> labels;
  for (const auto& g : doc["subgroups"]["groups"]) labels.push_back(g["label"]);
  const std::vector<std::string> expected = {"h=x",     "h=y",     "g=a",     "g=b",     "g=c",
                                             "g=NA",    "h=x,g=a", "h=x,g=b", "h=x,g=c", "h=x,g=NA",
                                             "h=y,g=a", "h=y,g=b", "h=y,g=c", "h=y,g=NA"};
  EXPECT_EQ(labels, expected);
  EXPECT_EQ(doc["metrics"][0]["subgroups"].size(), expected.size());
}

// Subgroup values are reported, never headlined: the verdict and headlines of a run with by:
// are those of the run without.
TEST(Subgroups, VerdictReadsTheWholeDataOnly) {
  Evaluation with = small_groups();
  with.options["metrics"] = nlohmann::json::array({"general"});
  Evaluation without = with;
  without.options.erase("by");
  const auto a = evaluate(std::move(with));
  const auto b = evaluate(std::move(without));
  ASSERT_TRUE(a.contains("verdict"));
  EXPECT_EQ(without_times(a["verdict"]), without_times(b["verdict"]));
}

// The same numbers at every thread count.
TEST(Subgroups, IndependentOfThreadCount) {
  Evaluation one = small_groups();
  one.options["metrics"] = nlohmann::json::array({"general"});
  one.options["threads"] = 1;
  Evaluation two = one;
  two.options["threads"] = 2;
  const auto a = evaluate(std::move(one));
  const auto b = evaluate(std::move(two));
  ASSERT_EQ(a["metrics"].size(), b["metrics"].size());
  std::size_t with_subgroups = 0;
  for (std::size_t m = 0; m < a["metrics"].size(); ++m) {
    const auto& ma = a["metrics"][m];
    const auto& mb = b["metrics"][m];
    ASSERT_EQ(ma.contains("subgroups"), mb.contains("subgroups"));
    if (!ma.contains("subgroups")) continue;
    ++with_subgroups;
    EXPECT_EQ(without_times(ma["subgroups"]), without_times(mb["subgroups"])) << ma["name"];
  }
  EXPECT_GT(with_subgroups, 5u);
}

TEST(Subgroups, BadByColumnsAreInputErrorsNamingTheKey) {
  const auto message = evaluation_error;
  Evaluation unknown = small_groups();
  unknown.options["by"] = nlohmann::json::array({"gg"});
  EXPECT_NE(message(unknown).find("by: no column 'gg' in the confidential data"), std::string::npos)
      << message(unknown);
  Evaluation numeric = small_groups();
  numeric.options["by"] = nlohmann::json::array({"x"});
  EXPECT_NE(message(numeric).find("by: column 'x' is numeric"), std::string::npos)
      << message(numeric);
  Evaluation twice = small_groups();
  twice.options["by"] = nlohmann::json::array({"g", "g"});
  EXPECT_NE(message(twice).find("by: column 'g' is named twice"), std::string::npos);

  const auto dir = temp_dir("spec");
  std::ofstream(dir / "spec.yaml") << "confidential: c.csv\ncandidates:\n  - name: s\n"
                                      "    replicates: [s.csv]\nby: []\n";
  std::ofstream(dir / "min.yaml") << "confidential: c.csv\ncandidates:\n  - name: s\n"
                                     "    replicates: [s.csv]\nby: [g]\nby_min_rows: 0\n";
  EXPECT_THROW(
      {
        try {
          (void)load_spec((dir / "spec.yaml").string());
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("by: expected at least one categorical column"),
                    std::string::npos);
          throw;
        }
      },
      InputError);
  EXPECT_THROW(
      {
        try {
          (void)load_spec((dir / "min.yaml").string());
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("by_min_rows: must be between 1"),
                    std::string::npos);
          throw;
        }
      },
      InputError);
  fs::remove_all(dir);
}

// A subgroup is judged as the whole data are: its baselines are drawn from its own rows at its
// synthetic size, with their noise, and reach results.tsv; below the minimum size no baseline is
// drawn. The judged summary's worst subgroup is the largest standardised difference.
TEST(Subgroups, SubgroupsCarryTheirOwnBaselinesAndNoise) {
  Evaluation e = small_groups();
  e.options["baseline_draws"] = 3;
  const auto doc = evaluate(std::move(e));
  const auto& metric = doc["metrics"][0];
  const nlohmann::json* a = subgroup(metric, "g=a");
  ASSERT_NE(a, nullptr);
  const nlohmann::json* resample = nullptr;
  for (const auto& c : (*a)["candidates"])
    if (c.value("baseline", false) && c["name"] == "resample") resample = &c;
  ASSERT_NE(resample, nullptr);
  EXPECT_EQ((*resample)["replicates"].size(), 3u);
  EXPECT_EQ((*resample)["replicates"][0]["rows"], 60);  // the subgroup's synthetic size
  EXPECT_EQ((*resample)["noise"]["draws"], 3);
  EXPECT_TRUE((*resample)["noise"]["values"][0]["value"].is_number());
  // g=b has 10 synthetic rows, below the minimum of 20: no baseline is drawn at that size.
  const nlohmann::json* b = subgroup(metric, "g=b");
  ASSERT_NE(b, nullptr);
  for (const auto& c : (*b)["candidates"]) EXPECT_FALSE(c.value("baseline", false));
  ASSERT_TRUE(b->contains("baseline_notes"));
  EXPECT_NE((*b)["baseline_notes"][0].get<std::string>().find("no baselines"), std::string::npos);

  const std::string tsv = results_tsv(doc);
  EXPECT_NE(tsv.find("resample\t1\tks_distance\tks_distance\tby:g=a;x\t"), std::string::npos);
  EXPECT_NE(tsv.find("resample\tmean\tks_distance\tmean_ks_distance\tby:g=NA;all\t"),
            std::string::npos);

  const auto& judged = doc["subgroups"]["judged"]["candidates"][0];
  EXPECT_EQ(judged["name"], "cand");
  EXPECT_EQ(judged["comparisons"], 2);  // mean_ks_distance in g=a and g=NA
  const auto& worst = judged["worst"];
  ASSERT_TRUE(worst.is_object());
  EXPECT_TRUE(worst["subgroup"] == "g=a" || worst["subgroup"] == "g=NA") << worst["subgroup"];
  // Lower is better: the standardised difference is (candidate - baseline) / sd.
  EXPECT_NEAR(worst["standardised_difference"].get<double>(),
              (worst["value"].get<double>() - worst["baseline"].get<double>()) /
                  worst["difference_sd"].get<double>(),
              1e-12);
  const nlohmann::json* group = subgroup(metric, worst["subgroup"].get<std::string>());
  double value = NAN, baseline = NAN;
  for (const auto& c : (*group)["candidates"]) {
    const auto& values = c.contains("mean") ? c["mean"]["values"] : c["replicates"][0]["values"];
    for (const auto& v : values)
      if (v["statistic"] == "mean_ks_distance") (c.value("baseline", false) ? baseline : value) = v["value"];
  }
  EXPECT_EQ(worst["value"].get<double>(), value);
  EXPECT_EQ(worst["baseline"].get<double>(), baseline);
  EXPECT_NE(worst["reason"].get<std::string>().find("In subgroup " + worst["subgroup"].get<std::string>()),
            std::string::npos);
}

// A policy criterion may name a subgroup: it reads that subgroup's values (and baseline), and
// decides the verdict like any criterion; a subgroup that does not exist is an input error with
// the policy key, one that is suppressed is not evaluated, and without by: it is refused before
// anything runs.
TEST(Subgroups, PolicyCriteriaMayNameASubgroup) {
  auto with_criteria = [](nlohmann::json criteria) {
    Evaluation e = small_groups();
    e.options["policy"] = {{"default_checks", false}, {"criteria", std::move(criteria)}};
    return e;
  };
  auto checks_of = [](const nlohmann::json& doc) {
    std::map<std::string, nlohmann::json> out;
    for (const auto& check : doc["verdict"]["candidates"][0]["checks"])
      out[check["criterion"].get<std::string>()] = check;
    return out;
  };
  // In g=a the synthetic x equals the confidential x: D = 0.
  const auto doc = evaluate(with_criteria(nlohmann::json::array(
      {{{"metric", "ks_distance"}, {"statistic", "ks_distance"}, {"scope", "x"}, {"max", 0.01},
        {"subgroup", "g=a"}},
       {{"id", "tight"}, {"metric", "ks_distance"}, {"statistic", "ks_distance"}, {"scope", "x"},
        {"max", -0.5}, {"subgroup", "g=a"}},
       {{"id", "small"}, {"metric", "ks_distance"}, {"statistic", "ks_distance"}, {"scope", "x"},
        {"max", 1}, {"subgroup", "g=c"}}})));
  auto checks = checks_of(doc);
  ASSERT_TRUE(checks.count("ks_distance.ks_distance[x]@g=a"));
  EXPECT_EQ(checks["ks_distance.ks_distance[x]@g=a"]["status"], "pass");
  EXPECT_EQ(checks["ks_distance.ks_distance[x]@g=a"]["value"], 0.0);
  EXPECT_NE(checks["ks_distance.ks_distance[x]@g=a"]["reason"].get<std::string>().find(
                "in subgroup g=a"),
            std::string::npos);
  EXPECT_EQ(checks["tight"]["status"], "fail");
  EXPECT_EQ(checks["small"]["status"], "not_evaluated");
  EXPECT_NE(checks["small"]["reason"].get<std::string>().find("suppressed"), std::string::npos);
  EXPECT_EQ(doc["verdict"]["candidates"][0]["status"], "fail");
  std::size_t named = 0;
  for (const auto& criterion : doc["verdict"]["policy"]["criteria"])
    if (criterion["id"] == "ks_distance.ks_distance[x]@g=a") {
      EXPECT_EQ(criterion["subgroup"], "g=a");
      EXPECT_NE(criterion["text"].get<std::string>().find("in subgroup g=a"), std::string::npos);
      ++named;
    }
  EXPECT_EQ(named, 1u);

  const auto message = evaluation_error;
  const std::string unknown = message(with_criteria(nlohmann::json::array(
      {{{"metric", "ks_distance"}, {"statistic", "ks_distance"}, {"max", 1},
        {"subgroup", "g=aa"}}})));
  EXPECT_NE(unknown.find("criteria[0].subgroup: no subgroup 'g=aa'"), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("g=a"), std::string::npos) << unknown;
  Evaluation no_by = with_criteria(nlohmann::json::array(
      {{{"metric", "ks_distance"}, {"statistic", "ks_distance"}, {"max", 1}, {"subgroup", "g=a"}}}));
  no_by.options.erase("by");
  EXPECT_NE(message(no_by).find("names a subgroup, but no by: columns are given"),
            std::string::npos)
      << message(no_by);
  const std::string not_a_by_column = message(with_criteria(nlohmann::json::array(
      {{{"metric", "ks_distance"}, {"statistic", "ks_distance"}, {"max", 1}, {"subgroup", "h=x"}}})));
  EXPECT_NE(not_a_by_column.find("'h' is not a by: column"), std::string::npos) << not_a_by_column;
  const std::string no_level = message(with_criteria(nlohmann::json::array(
      {{{"metric", "ks_distance"}, {"statistic", "ks_distance"}, {"max", 1}, {"subgroup", "g"}}})));
  EXPECT_NE(no_level.find("criteria[0].subgroup: expected a subgroup label"), std::string::npos)
      << no_level;
  const std::string family = message(with_criteria(nlohmann::json::array(
      {{{"metric", "distance_to_closest_record"}, {"statistic", "dcr_median"}, {"max", 1},
        {"subgroup", "g=a"}}})));
  EXPECT_NE(family.find("is not run in subgroups"), std::string::npos) << family;
}
