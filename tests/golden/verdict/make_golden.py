#!/usr/bin/python3
"""Golden corrected p-values for the verdict's multiplicity control (tests/unit/verdict_null_test.cpp),
from statsmodels' multipletests (Debian python3-statsmodels): Holm, Bonferroni and
Benjamini-Hochberg ("fdr_bh") on fixed families of p-values, ties and 1s included.
Writes multiplicity.json beside this script."""
import json
from pathlib import Path

import numpy as np
import statsmodels
from statsmodels.stats.multitest import multipletests

families = [
    [0.0005, 0.011, 0.2, 0.04, 0.5, 1.0, 0.03, 0.0005, 0.9, 0.012, 0.07],
    [0.01, 0.02, 0.03, 0.04, 0.05],
    [0.3],
    [0.001, 0.001, 0.001, 0.5],
    list(np.random.default_rng(7).uniform(size=25)),
]
out = {"statsmodels": statsmodels.__version__, "cases": []}
for p in families:
    case = {"p": [float(x) for x in p]}
    for name, method in (("holm", "holm"), ("bonferroni", "bonferroni"),
                         ("benjamini-hochberg", "fdr_bh")):
        case[name] = [float(x) for x in multipletests(p, method=method)[1]]
    out["cases"].append(case)
(Path(__file__).parent / "multiplicity.json").write_text(json.dumps(out, indent=1) + "\n")
