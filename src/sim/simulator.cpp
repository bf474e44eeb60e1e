#include "sim/simulator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/threads.hpp"
#include "result/output_files.hpp"

namespace synthaudit {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kBlockRows =
    1 << 15;  // rows per random stream: fixes results for any thread count
constexpr int kRegions = 16;
constexpr int kOccupations = 240;
const char* const kEducation[] = {"none",       "primary", "lower_secondary", "upper_secondary",
                                  "vocational", "tertiary"};
const char* const kMarital[] = {"single", "married", "cohabiting", "divorced", "widowed"};

// One simulated population, column-wise. Categorical values are small integer indices into the
// label tables above; missing numerics are NaN.
struct Population {
  std::vector<std::uint8_t> region, sex, education, marital, employed, smoke;
  std::vector<std::uint16_t> occupation;
  std::vector<double> age, household_size, hours_worked, income, health_score;

  void resize(std::size_t n) {
    for (auto* v : {&region, &sex, &education, &marital, &employed, &smoke}) v->resize(n);
    occupation.resize(n);
    for (auto* v : {&age, &household_size, &hours_worked, &income, &health_score}) v->resize(n);
  }
  std::size_t size() const { return age.size(); }
};

std::size_t pick(Rng& rng, const double* weights, std::size_t count) {
  double total = 0;
  for (std::size_t i = 0; i < count; ++i) total += weights[i];
  double u = rng.uniform() * total;
  for (std::size_t i = 0; i < count; ++i) {
    if (u < weights[i]) return i;
    u -= weights[i];
  }
  return count - 1;
}

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Draws one person from the population model (docs/simulator.md).
void draw_person(Rng& rng, Population& p, std::size_t i) {
  static const double region_weights[kRegions] = {14, 11, 9, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 1};
  p.region[i] = static_cast<std::uint8_t>(pick(rng, region_weights, kRegions));
  p.sex[i] = rng.bernoulli(0.51) ? 0 : 1;  // 0 = F, 1 = M
  // Age: adults 18..90, a mixture that leaves fewer very old people.
  double age = rng.bernoulli(0.7) ? 18 + 45 * rng.uniform() : 40 + 14 * rng.normal();
  age = std::clamp(std::round(age), 18.0, 90.0);
  p.age[i] = age;
  // Education depends on age: older cohorts have less schooling.
  const double shift = (age - 50) / 20;
  double edu_weights[6] = {0.03 + 0.03 * std::max(0.0, shift),
                           0.12 + 0.08 * std::max(0.0, shift),
                           0.15,
                           0.27,
                           0.2,
                           0.23 - 0.08 * std::max(0.0, shift) + 0.05 * (p.region[i] < 3)};
  const auto edu = pick(rng, edu_weights, 6);
  p.education[i] = static_cast<std::uint8_t>(edu);
  // Marital status by age.
  double marital_weights[5] = {std::max(0.02, 1.6 - age / 25), 0.4 + std::min(age, 60.0) / 100,
                               0.12, 0.03 + std::min(age, 65.0) / 600,
                               std::max(0.0, (age - 55) / 60)};
  p.marital[i] = static_cast<std::uint8_t>(pick(rng, marital_weights, 5));
  const bool partnered = p.marital[i] == 1 || p.marital[i] == 2;
  p.household_size[i] = 1 + (partnered ? 1 : 0) + rng.poisson(partnered ? 1.1 : 0.4);
  // Employment: falls after 60.
  const double employ_logit = 1.6 + 0.35 * static_cast<double>(edu) -
                              (age > 60 ? (age - 60) / 3.0 : 0) - (age < 23 ? 1.0 : 0.0);
  p.employed[i] = rng.bernoulli(logistic(employ_logit)) ? 1 : 0;
  // Occupation: 240 codes, Zipf-like within an education-dependent range.
  const int base = static_cast<int>(edu) * 30;
  const double zipf = std::pow(rng.uniform(), 2.2);
  p.occupation[i] = p.employed[i] ? static_cast<std::uint16_t>(std::min(
                                        kOccupations - 1, base + static_cast<int>(zipf * 90)))
                                  : static_cast<std::uint16_t>(kOccupations);  // "none"
  p.hours_worked[i] =
      p.employed[i] ? std::clamp(std::round(38 + 8 * rng.normal() + 3 * p.sex[i]), 4.0, 80.0) : 0.0;
  // Income: zero for many without work; log-normal with education, age, sex and hours effects.
  double income = 0;
  if (p.employed[i] || rng.bernoulli(0.45)) {
    const double mu = 7.2 + 0.22 * static_cast<double>(edu) + 0.025 * (std::min(age, 55.0) - 18) +
                      0.12 * p.sex[i] + 0.008 * (p.hours_worked[i] - 38) -
                      (p.employed[i] ? 0.0 : 0.9);
    income = std::round(std::exp(mu + 0.55 * rng.normal()) / 10) * 10;
  }
  p.income[i] = rng.bernoulli(0.06) ? std::nan("") : income;
  // Smoking depends on education and sex.
  p.smoke[i] =
      rng.bernoulli(logistic(-0.6 + 0.5 * p.sex[i] - 0.25 * static_cast<double>(edu))) ? 1 : 0;
  // Health score 0..100: falls with age and smoking.
  const double health = std::clamp(
      std::round(85 - 0.45 * (age - 18) - 7 * p.smoke[i] + 9 * rng.normal()), 0.0, 100.0);
  p.health_score[i] = rng.bernoulli(0.03) ? std::nan("") : health;
}

Population draw_population(std::size_t n, std::uint64_t seed, std::uint64_t stream) {
  Population p;
  p.resize(n);
  const std::size_t blocks = (n + kBlockRows - 1) / kBlockRows;
#pragma omp parallel for schedule(dynamic) num_threads(parallel_threads())
  for (std::size_t b = 0; b < blocks; ++b) {
    Rng rng(seed, stream * 1000003 + b);
    for (std::size_t i = b * kBlockRows; i < std::min(n, (b + 1) * kBlockRows); ++i)
      draw_person(rng, p, i);
  }
  return p;
}

// Shuffles every column independently: marginals stay, dependencies go.
Population break_dependencies(Population p, std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t column = 0;
  auto shuffle = [&](auto& v) {
    Rng rng(seed, stream * 1000003 + 500000 + column++);
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
  };
  shuffle(p.region);
  shuffle(p.sex);
  shuffle(p.education);
  shuffle(p.marital);
  shuffle(p.employed);
  shuffle(p.smoke);
  shuffle(p.occupation);
  shuffle(p.age);
  shuffle(p.household_size);
  shuffle(p.hours_worked);
  shuffle(p.income);
  shuffle(p.health_score);
  return p;
}

// Confidential rows copied with small perturbations: what a careless synthesiser that memorised
// its training data would release.
Population perturb(const Population& source, std::uint64_t seed, std::uint64_t stream) {
  Population p = source;
  const std::size_t n = p.size();
  const std::size_t blocks = (n + kBlockRows - 1) / kBlockRows;
#pragma omp parallel for schedule(dynamic) num_threads(parallel_threads())
  for (std::size_t b = 0; b < blocks; ++b) {
    Rng rng(seed, stream * 1000003 + b);
    for (std::size_t i = b * kBlockRows; i < std::min(n, (b + 1) * kBlockRows); ++i) {
      if (rng.bernoulli(0.3))
        p.age[i] = std::clamp(p.age[i] + (rng.bernoulli(0.5) ? 1 : -1), 18.0, 90.0);
      if (!std::isnan(p.income[i]) && p.income[i] > 0)
        p.income[i] = std::round(p.income[i] * (1 + 0.03 * rng.normal()) / 10) * 10;
      if (rng.bernoulli(0.05)) p.marital[i] = static_cast<std::uint8_t>(rng.below(5));
      if (!std::isnan(p.health_score[i]) && rng.bernoulli(0.2))
        p.health_score[i] =
            std::clamp(p.health_score[i] + std::round(2 * rng.normal()), 0.0, 100.0);
    }
  }
  return p;
}

void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NA";
    return;
  }
  char buffer[32];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  (void)ec;
  out.append(buffer, ptr);
}

constexpr std::size_t kModelColumns = 12;

// A uniform number in [0, 1) fixed by (seed, row, column): the extra columns of a row depend on
// the row's position, so a perturbed copy of a confidential row (the leaky candidate) gets the same
// noise and stays a near-copy, and the file does not depend on the thread count.
double row_noise(std::uint64_t seed, std::size_t row, std::size_t column) {
  const std::uint64_t h = splitmix64(seed ^ splitmix64(row * 0x9e3779b97f4a7c15ULL + column));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// Extra column e (0-based) of row i. Even e: numeric num{e/2+1}, a weighted mix of age, education
// and health with noise, rounded to one decimal (so ties occur), missing in 2% of rows. Odd e:
// categorical cat{e/2+1} with 3 + (e/2 mod 6) levels "L1".., from region, education and sex with
// noise.
void append_extra(std::string& out, const Population& p, std::size_t i, std::size_t e,
                  std::uint64_t seed) {
  const double u = row_noise(seed, i, e), v = row_noise(seed, i, e + 1000);
  const double edu = static_cast<double>(p.education[i]);
  if (e % 2 == 0) {
    if (u < 0.02) {
      out += "NA";
      return;
    }
    const double w = static_cast<double>(e / 2 % 4);
    const double health = std::isnan(p.health_score[i]) ? 50.0 : p.health_score[i];
    append_number(out, std::round(10.0 * ((1 + w) * p.age[i] / 10.0 + (3 - w) * edu +
                                          health / 20.0 + 6.0 * (v - 0.5))) /
                           10.0);
    return;
  }
  const std::size_t levels = 3 + e / 2 % 6;
  const std::size_t jitter = u < 0.5 ? static_cast<std::size_t>(v * 3.0) : 0;
  const std::size_t level =
      (p.region[i] + p.education[i] * (1 + e / 2 % 3) + p.sex[i] + jitter) % levels;
  out += "L";
  out += std::to_string(level + 1);
}

void write_csv(const Population& p, const std::string& path, std::size_t columns,
               std::uint64_t seed) {
  std::string header =
      "region,sex,age,education,marital,household_size,employed,occupation,hours_worked,income,"
      "smoke,health_score";
  for (std::size_t e = 0; e + kModelColumns < columns; ++e)
    header += (e % 2 == 0 ? ",num" : ",cat") + std::to_string(e / 2 + 1);
  header += '\n';
  const std::size_t n = p.size();
  const std::size_t blocks = (n + kBlockRows - 1) / kBlockRows;
  std::vector<std::string> chunks(blocks);
#pragma omp parallel for schedule(dynamic) num_threads(parallel_threads())
  for (std::size_t b = 0; b < blocks; ++b) {
    std::string& out = chunks[b];
    out.reserve(kBlockRows * 90);
    char code[8];
    for (std::size_t i = b * kBlockRows; i < std::min(n, (b + 1) * kBlockRows); ++i) {
      std::snprintf(code, sizeof code, "R%02d", p.region[i] + 1);
      out += code;
      out += p.sex[i] ? ",M," : ",F,";
      append_number(out, p.age[i]);
      out += ',';
      out += kEducation[p.education[i]];
      out += ',';
      out += kMarital[p.marital[i]];
      out += ',';
      append_number(out, p.household_size[i]);
      out += p.employed[i] ? ",yes," : ",no,";
      if (p.occupation[i] >= kOccupations) {
        out += "none";
      } else {
        std::snprintf(code, sizeof code, "OC%03d", p.occupation[i] + 1);
        out += code;
      }
      out += ',';
      append_number(out, p.hours_worked[i]);
      out += ',';
      append_number(out, p.income[i]);
      out += p.smoke[i] ? ",yes," : ",no,";
      append_number(out, p.health_score[i]);
      for (std::size_t e = 0; e + kModelColumns < columns; ++e) {
        out += ',';
        append_extra(out, p, i, e, seed);
      }
      out += '\n';
    }
  }
  std::size_t total = header.size();
  for (const auto& c : chunks) total += c.size();
  std::string content;
  content.reserve(total);
  content += header;
  for (auto& c : chunks) {
    content += c;
    std::string().swap(c);
  }
  write_file_atomic(path, content);
}

}  // namespace

SimulationFiles simulate(const SimulationOptions& options) {
  if (options.rows == 0) throw InputError("simulate: --rows must be at least 1");
  if (options.replicates < 1) throw InputError("simulate: --replicates must be at least 1");
  if (options.columns < kModelColumns || options.columns > 200)
    throw InputError("simulate: --columns must be between 12 and 200, not " +
                     std::to_string(options.columns));
  const ThreadCountScope threads(options.threads);
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec) throw InputError(options.out_dir + ": cannot create folder: " + ec.message());
  const std::size_t holdout_rows =
      options.holdout_rows ? options.holdout_rows : std::max<std::size_t>(1, options.rows / 4);
  const auto dir = fs::path(options.out_dir);
  SimulationFiles files;
  files.confidential = (dir / "confidential.csv").string();
  files.holdout = (dir / "holdout.csv").string();
  // Streams: 1 confidential, 2 holdout, 100+r ideal, 200+r independent, 300+r leaky.
  const Population confidential = draw_population(options.rows, options.seed, 1);
  write_csv(confidential, files.confidential, options.columns, options.seed);
  write_csv(draw_population(holdout_rows, options.seed, 2), files.holdout, options.columns,
            options.seed);
  for (const std::string name : {"ideal", "independent", "leaky"}) {
    std::vector<std::string> replicate_files;
    for (int r = 1; r <= options.replicates; ++r) {
      const auto path = (dir / (name + "_" + std::to_string(r) + ".csv")).string();
      const auto rr = static_cast<std::uint64_t>(r);
      if (name == "ideal")
        write_csv(draw_population(options.rows, options.seed, 100 + rr), path, options.columns,
                  options.seed);
      else if (name == "independent")
        write_csv(break_dependencies(draw_population(options.rows, options.seed, 200 + rr),
                                     options.seed, 200 + rr),
                  path, options.columns, options.seed);
      else
        write_csv(perturb(confidential, options.seed, 300 + rr), path, options.columns,
                  options.seed);
      replicate_files.push_back(path);
    }
    files.candidates.emplace_back(name, replicate_files);
  }
  files.spec_path = (dir / "spec.yaml").string();
  std::string spec = "# Written by `synthaudit simulate`; paths are relative to this file.\n";
  spec += "confidential: confidential.csv\nholdout: holdout.csv\ncandidates:\n";
  for (const auto& [name, reps] : files.candidates) {
    spec += "  - name: " + name + "\n    replicates: [";
    for (std::size_t i = 0; i < reps.size(); ++i)
      spec += (i ? ", " : "") + fs::path(reps[i]).filename().string();
    spec += "]\n";
  }
  spec += "synthesis: full\n";
  spec += "columns: {household_size: numeric, hours_worked: numeric}\n";
  spec += "disclosure:\n  - keys: [region, sex, age, education]\n    targets: [smoke]\n";
  spec += "  - keys: [sex, age, marital, occupation]\n    targets: [income]\n";
  spec += "analyses:\n  - mean: income\n  - lm: health_score ~ age + factor(smoke) + factor(sex)\n";
  spec += "  - glm_logit: smoke ~ age + factor(sex) + factor(education)\n";
  // The logistic propensity model with all two-way interactions would need thousands of
  // parameters with occupation's 241 levels and region's 16 (over max_params); the demo fits it
  // on the other columns, as a user would with synthpop's `vars`.
  spec +=
      "parameters:\n  propensity_logistic:\n    columns: [sex, age, education, marital, "
      "household_size, employed, hours_worked, income, smoke, health_score]\n";
  spec += "seed: " + std::to_string(options.seed) + "\n";
  write_file_atomic(files.spec_path, spec);
  return files;
}

}  // namespace synthaudit
