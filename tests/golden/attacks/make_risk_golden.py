#!/usr/bin/env python3
"""Golden values for src/stats/attack_risk.* from anonymeter's own rate and risk functions.

Usage: make_risk_golden.py ANONYMETER_SOURCE_TREE
  (a checkout of https://github.com/statice/anonymeter; run at commit 0188bdf5 — 2025-05-13).
Only anonymeter/stats/confidence.py is imported (it needs scipy: Debian python3-scipy); nothing of
it is copied into this project. Prints the C++ initialiser rows pasted into
tests/unit/attack_risk_test.cpp.
"""
import importlib.util
import sys
import warnings

root = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "confidence", f"{root}/src/anonymeter/stats/confidence.py")
confidence = importlib.util.module_from_spec(spec)
spec.loader.exec_module(confidence)

# (n_attacks, n_success, n_baseline, n_control, level); anonymeter attacks the control set with
# n_attacks targets too, so these cases use equal sizes.
cases = [
    (500, 37, 4, 12, 0.95),
    (2000, 138.4, 11.5, 60.25, 0.95),
    (100, 0, 0, 0, 0.95),
    (100, 100, 3, 20, 0.9),
    (1000, 10, 30, 50, 0.99),  # attack worse than control: risk clipped to 0
    (37, 30, 1, 2, 0.95),
]
warnings.simplefilter("ignore")
for n, s, b, c, level in cases:
    r = confidence.EvaluationResults(n_attacks=n, n_success=s, n_baseline=b, n_control=c,
                                     confidence_level=level)
    risk = r.risk()
    print("    {%r, %r, %r, %r, %r, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g}," % (
        n, s, b, c, level, r.attack_rate.value, r.baseline_rate.value, r.control_rate.value,
        risk.value, risk.ci[0], risk.ci[1]))
