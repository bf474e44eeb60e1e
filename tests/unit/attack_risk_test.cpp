// Attack success rates and residual risk against anonymeter's own functions
// (anonymeter/stats/confidence.py at commit 0188bdf5, run by
// tests/golden/attacks/make_risk_golden.py), to 1e-12 relative.
#include "stats/attack_risk.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace synthaudit;

namespace {

struct RiskCase {
  double n, success, baseline, control, level;
  double attack_rate, baseline_rate, control_rate, risk, ci_lo, ci_hi;
};

// Pasted from make_risk_golden.py's output.
const RiskCase kCases[] = {
    {500, 37, 4, 12, 0.95, 0.077247969036621261, 0.011751175507083702, 0.027629186059698867,
     0.05102866341273047, 0.023708986214737628, 0.078348340610723308},
    {2000, 138.4, 11.5, 60.25, 0.95, 0.070025863968763771, 0.0066975006187592629,
     0.031025772591278724, 0.040248842821940696, 0.026538036903114827, 0.053959648740766565},
    {100, 0, 0, 0, 0.95, 0.018496749103492839, 0.018496749103492839, 0.018496749103492839, 0, 0,
     0.026651316150077816},
    {100, 100, 3, 20, 0.9, 0.98682863960841283, 0.042381078768091926, 0.20790281623495227,
     0.98337153488037909, 0.96668648550394787, 1},
    {1000, 10, 30, 50, 0.99, 0.013229670802669347, 0.033097847504601208, 0.052966024206533076, 0, 0,
     0},
    {37, 30, 1, 2, 0.95, 0.7815766216992478, 0.071513836544622789, 0.095998760170644348,
     0.75838155007178643, 0.61992490450497328, 0.89683819563859957},
};

void expect_close(double expected, double actual) {
  EXPECT_NEAR(actual, expected, 1e-12 * std::max(1.0, std::abs(expected)));
}

}  // namespace

TEST(AttackRisk, MatchesAnonymeter) {
  for (const RiskCase& c : kCases) {
    SCOPED_TRACE(c.success);
    const stats::AttackSummary s =
        stats::summarize_attack({c.n, c.success, c.baseline, c.n, c.control}, c.level);
    expect_close(c.attack_rate, s.attack.value);
    expect_close(c.baseline_rate, s.baseline.value);
    expect_close(c.control_rate, s.control.value);
    expect_close(c.risk, s.risk);
    expect_close(c.ci_lo, s.risk_ci_lo);
    expect_close(c.ci_hi, s.risk_ci_hi);
    expect_close(c.success / c.n, s.attack_fraction);
  }
}

// Control set of its own size (anonymeter cannot: it attacks n_attacks control rows): the
// residual uses the control's own Wilson interval; no control set: risk is the attack rate.
TEST(AttackRisk, ControlAtItsOwnSizeAndNoControl) {
  const stats::AttackSummary own = stats::summarize_attack({1000, 80, 5, 200, 10});
  const stats::SuccessRate control = stats::wilson_success_rate(200, 10, 0.95);
  expect_close(control.value, own.control.value);
  expect_close((own.attack.value - control.value) / (1 - control.value), own.risk);
  const stats::AttackSummary none = stats::summarize_attack({1000, 80, 5, 0, 0});
  expect_close(none.attack.value, none.risk);
  EXPECT_TRUE(std::isnan(none.control.value));
  EXPECT_TRUE(std::isnan(none.control_fraction));
  EXPECT_EQ(stats::attack_statistics(none).size(), 14u);
}
