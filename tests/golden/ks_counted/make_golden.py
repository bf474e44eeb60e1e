#!/usr/bin/python3
"""Golden values for the counted KS distance (tests/unit/ks_tv_test.cpp, KsCounted.*).

Samples with few distinct values (rounded normals, small integers, a -0 among zeros, missing
values as null) and their two-sample Kolmogorov-Smirnov statistic from scipy.stats.ks_2samp
(exact statistic; missing values dropped first). Regenerate with
    /usr/bin/python3 tests/golden/ks_counted/make_golden.py > tests/golden/ks_counted/golden.json
scipy 1.10.1, numpy 1.24.2 (Debian bookworm) made the committed file.
"""
import json
import math

import numpy as np
from scipy.stats import ks_2samp

rng = np.random.default_rng(18)
cases = []


def add(name, a, b):
    a_kept = [v for v in a if not math.isnan(v)]
    b_kept = [v for v in b if not math.isnan(v)]
    d = float(ks_2samp(a_kept, b_kept).statistic)
    cases.append({"name": name,
                  "a": [None if math.isnan(v) else v for v in a],
                  "b": [None if math.isnan(v) else v for v in b],
                  "d": d})


add("ages", [float(v) for v in rng.integers(18, 90, 3000)],
    [float(v) for v in rng.integers(20, 92, 2500)])
add("rounded normals with missing",
    [float(v) if rng.random() > 0.05 else float("nan") for v in np.round(rng.normal(0, 3, 4000), 1)],
    [float(v) if rng.random() > 0.1 else float("nan") for v in np.round(rng.normal(0.2, 3, 3500), 1)])
zeros_a = [0.0] * 500 + [-0.0] * 300 + [float(v) for v in rng.integers(-3, 4, 1200)]
zeros_b = [-0.0] * 700 + [float(v) for v in rng.integers(-2, 5, 1500)]
add("signed zeros and small integers", zeros_a, zeros_b)
add("one value each", [5.0] * 100, [5.0] * 40 + [6.0] * 60)
print(json.dumps({"scipy": __import__("scipy").__version__, "cases": cases}))
