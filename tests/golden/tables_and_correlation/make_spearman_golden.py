#!/usr/bin/env python3
"""Golden Spearman and Pearson correlations on pairwise-complete rows for
tests/unit/correlation_codes_test.cpp: scipy.stats.spearmanr / pearsonr on the rows where both
columns are present. The columns stress the rank coding: many ties, missing values in different
rows, -0.0 next to 0.0, a column with thousands of distinct values, a constant column and a column
with a single value present.

    /usr/bin/python3 tests/golden/tables_and_correlation/make_spearman_golden.py
writes spearman_columns.csv and spearman_golden.tsv beside this script (scipy 1.10.1, numpy 1.24.2).
"""
import os

import numpy as np
from scipy import stats

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261126)
n = 3000
base = rng.normal(size=n)
cols = {
    "ties": np.round(base * 3),
    "continuous": base + rng.normal(size=n),
    "ties_na": np.where(rng.random(n) < 0.1, np.nan, np.round(rng.normal(size=n) * 2 + base)),
    "signed_zero": np.where(rng.random(n) < 0.2, np.nan,
                            np.where(rng.random(n) < 0.3, 0.0, np.round(base)) *
                            np.where(rng.random(n) < 0.5, -1.0, 1.0)),
    "wide_na": np.where(rng.random(n) < 0.3, np.nan, -base * 1e6 + rng.normal(size=n)),
    "constant": np.full(n, 7.0),
    "one_present": np.where(np.arange(n) == 17, 1.0, np.nan),
}
names = list(cols)
with open(os.path.join(here, "spearman_columns.csv"), "w") as f:
    f.write(",".join(names) + "\n")
    for i in range(n):
        f.write(",".join("NA" if np.isnan(cols[c][i]) else repr(float(cols[c][i])) for c in names) + "\n")
with open(os.path.join(here, "spearman_golden.tsv"), "w") as f:
    for a in range(len(names)):
        for b in range(a):
            x, y = cols[names[a]], cols[names[b]]
            ok = ~np.isnan(x) & ~np.isnan(y)
            if ok.sum() < 2 or np.ptp(x[ok]) == 0 or np.ptp(y[ok]) == 0:
                s = p = float("nan")
            else:
                s = stats.spearmanr(x[ok], y[ok]).correlation
                p = stats.pearsonr(x[ok], y[ok])[0]
            f.write(f"{names[a]}\t{names[b]}\t{s!r}\t{p!r}\n")
