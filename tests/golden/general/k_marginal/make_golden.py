#!/usr/bin/python3
"""Golden values for the k_marginal metric from SDNist's own KMarginal class.

Usage: /usr/bin/python3 make_golden.py SDNIST_KMARGINAL_PY
  SDNIST_KMARGINAL_PY: sdnist/metrics/kmarginal.py of https://github.com/usnistgov/SDNist at
  commit f048b1c (2025-07-14, version 2.5), e.g. extracted with
  `git -C SDNIST show HEAD:sdnist/metrics/kmarginal.py > /tmp/kmarginal.py`. Only that file is
  loaded (it needs pandas and numpy: Debian python3-pandas); nothing of it is copied here.

SDNist scores data its data dictionary has already binned, so the binning is done here the way
synthaudit states it: numeric columns cut at the R type-7 quantiles j/bins (j = 1..bins-1) of the
confidential column's non-missing values (duplicates dropped), intervals (a, b], open at both ends;
a missing value is a level of its own ("NA", so that pandas' group-by keeps it). k = 3 runs the
same class with its marginals replaced by every triple (the issue's definition). Writes
golden.json beside this script.
"""
import importlib.util
import itertools
import json
import math
import os
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "data", "sd2011")

spec = importlib.util.spec_from_file_location("kmarginal", sys.argv[1])
kmarginal = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kmarginal)


def r_type7(sorted_values, p):
    """R's quantile(type = 7) as R computes it: (1 - h) * x[lo] + h * x[hi]."""
    n = len(sorted_values)
    index = (n - 1) * p
    lo = math.floor(index)
    hi = math.ceil(index)
    h = index - lo
    return (1 - h) * sorted_values[lo] + h * sorted_values[hi]


def bin_frames(conf, syn, bins):
    conf, syn = conf.copy(), syn.copy()
    for c in conf.columns:
        if pd.api.types.is_numeric_dtype(conf[c]):
            ref = np.sort(conf[c].dropna().to_numpy(dtype=float))
            cuts = sorted(set(r_type7(ref, j / bins) for j in range(1, bins)))

            def code(v):
                if pd.isna(v):
                    return "NA"
                return str(int(np.searchsorted(cuts, v, side="left")))
            conf[c] = conf[c].map(code)
            syn[c] = syn[c].map(code)
        else:
            conf[c] = conf[c].fillna("NA").astype(str)
            syn[c] = syn[c].fillna("NA").astype(str)
    return conf, syn


def scores(conf, syn):
    out = {}
    km = kmarginal.KMarginal(conf, syn)
    out["two-way"] = {"k_marginal_score": float(km.compute_score()),
                      "marginals": len(km.marginals)}
    km3 = kmarginal.KMarginal(conf, syn)
    km3.marginals = list(itertools.combinations(sorted(conf.columns), 3))
    out["three-way"] = {"k_marginal_score": float(km3.compute_score()),
                        "marginals": len(km3.marginals)}
    return out


def main():
    conf = pd.read_csv(os.path.join(DATA, "train.csv"))
    syn = pd.read_csv(os.path.join(DATA, "train_syn.csv"))
    golden = {}
    for bins in (10, 4):
        c, s = bin_frames(conf, syn, bins)
        golden["bins=%d" % bins] = scores(c, s)
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
