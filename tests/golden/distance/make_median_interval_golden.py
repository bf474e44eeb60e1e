#!/usr/bin/python3
"""Golden ranks of the distribution-free 95 % interval for a median (Conover 1999, section 3.2)
and of binomial quantiles, from scipy.stats.binom.ppf (smallest k with P(B <= k) >= q).

    /usr/bin/python3 tests/golden/distance/make_median_interval_golden.py

writes median_interval_ranks.csv (n, lower, upper, coverage; lower = upper = 0 when no interval
exists) and binomial_quantiles.csv (n, p, q, k) beside this script. scipy 1.10.1 (Debian).
"""
import csv
import os

from scipy.stats import binom

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIDENCE = 0.95

sizes = list(range(1, 41)) + [50, 99, 100, 101, 999, 1000, 5000, 20000, 49999, 50000,
                              123457, 300000, 1000000, 2000001]
with open(os.path.join(HERE, "median_interval_ranks.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["n", "lower", "upper", "coverage"])
    for n in sizes:
        lower = int(binom.ppf((1 - CONFIDENCE) / 2, n, 0.5))
        if lower == 0:
            w.writerow([n, 0, 0, ""])
            continue
        upper = n + 1 - lower
        coverage = 1 - 2 * binom.cdf(lower - 1, n, 0.5)
        w.writerow([n, lower, upper, repr(float(coverage))])

cases = [(n, p, q) for n in (1, 7, 30, 1000, 250000)
         for p in (0.05, 0.3, 0.5, 0.9) for q in (0.001, 0.025, 0.5, 0.975, 0.999)]
with open(os.path.join(HERE, "binomial_quantiles.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["n", "p", "q", "k"])
    for n, p, q in cases:
        w.writerow([n, p, q, int(binom.ppf(q, n, p))])
