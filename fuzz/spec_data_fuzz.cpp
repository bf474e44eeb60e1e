// libFuzzer target for the spec with every semantic check it gets before metrics run: the bytes
// are a YAML spec in a folder that also holds small confidential, synthetic and holdout files
// (conf.csv, syn.csv, holdout.csv), so its relative paths, column kinds, missing codes,
// scenarios, analyses, parameters and policy are checked against real data: load_spec,
// validate_spec, load_evaluation_data, then the evaluation itself restricted to cheap metrics
// that read the scenarios and analyses (parameters resolved against their declarations, keys and
// formulas against the columns, the policy against the results). spec_fuzz covers the parser
// alone. InputError is the only acceptable exception. Built and run by scripts/run-fuzz.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "engine/evaluate.hpp"
#include "scratch_folder.hpp"
#include "spec/spec.hpp"
#include "synthaudit/synthaudit.hpp"

using namespace synthaudit;

namespace {

const std::string& folder() {
  return fuzz::scratch_folder("spec_data_fuzz", [](const std::string& dir) {
    const std::string header = "age,sex,income,region,smoke\n";
    fuzz::write_text(dir + "/conf.csv",
                     header +
                         "34,F,1200,north,no\n51,M,-8,south,yes\n29,F,900,north,no\n"
                         "62,M,2100,east,yes\n45,F,1500,south,no\n38,M,1100,east,no\n");
    fuzz::write_text(dir + "/syn.csv",
                     header +
                         "35,F,1250,north,no\n50,M,1900,south,yes\n30,F,950,east,no\n"
                         "61,M,2000,east,yes\n44,F,1400,south,no\n");
    fuzz::write_text(dir + "/holdout.csv", header + "40,M,1300,north,yes\n33,F,1000,south,no\n");
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = folder() + "/spec.yaml";
  fuzz::write_text(path, std::string(reinterpret_cast<const char*>(data), size));
  try {
    EvaluationSpec spec = load_spec(path);
    validate_spec(spec);
    // The spec may name any file; only the fixtures are read (a spec naming /dev/zero or a FIFO
    // is the CSV reader's concern, fuzzed by csv_fuzz, and would only stall this target).
    const auto inside = [](const std::string& file) {
      return std::filesystem::path(file).lexically_normal().parent_path() ==
             std::filesystem::path(folder()).lexically_normal();
    };
    if (!inside(spec.confidential) || (spec.holdout && !inside(*spec.holdout)) ||
        !spec.metadata.empty())
      return 0;
    for (const auto& candidate : spec.candidates)
      for (const auto& replicate : candidate.replicates)
        if (!inside(replicate)) return 0;
    const EvaluationData evaluation_data = load_evaluation_data(spec);
    spec.metrics = {"ks_distance", "correct_attribution_probability",
                    "analysis_inference_comparison"};
    spec.context.threads = 1;
    spec.baseline_draws = 0;
    (void)audit(spec, evaluation_data);
  } catch (const InputError&) {
  }
  return 0;
}
