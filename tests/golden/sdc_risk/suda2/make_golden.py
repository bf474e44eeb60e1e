#!/usr/bin/python3
"""Golden values for stats/suda2 and the suda2 metric: minimal sample uniques found by testing
every subset of the keys with pandas group-bys (no search, no pruning), then the SUDA scores
(weights prod_{i=s}^{M-1} (K - i)) and the DIS-SUDA scores in double precision.

Rules (as documented in src/stats/suda2.hpp): a missing key value is never part of an MSU and
never equal to a value; in the counts of sample uniques and pairs on all keys (the DIS estimate)
a missing value is a value of its own.

Run: /usr/bin/python3 tests/golden/sdc_risk/suda2/make_golden.py  (writes golden.json beside it)
"""
import itertools
import json
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "data", "sd2011")


def load(name, missing_codes):
    df = pd.read_csv(os.path.join(DATA, name), keep_default_na=True)
    for column, codes in missing_codes.items():
        df.loc[df[column].isin(codes), column] = np.nan
    return df


def msus(df, keys, max_size):
    """(row, frozenset of keys) of every MSU with at most max_size keys."""
    n = len(df)
    unique = {}
    found = []
    for size in range(1, max_size + 1):
        for subset in itertools.combinations(keys, size):
            part = df[list(subset)]
            complete = part.notna().all(axis=1).to_numpy()
            is_unique = np.zeros(n, dtype=bool)
            if len(subset) == 1:
                col = part[subset[0]]
                vc = col[complete].map(col[complete].value_counts())
                is_unique[np.flatnonzero(complete)] = (vc.to_numpy() == 1)
            else:
                groups = part[complete].groupby(list(subset)).ngroup()
                group_sizes = groups.map(groups.value_counts())
                is_unique[np.flatnonzero(complete)] = (group_sizes.to_numpy() == 1)
            unique[frozenset(subset)] = is_unique
            for row in np.flatnonzero(is_unique):
                minimal = all(not unique[frozenset(subset) - {k}][row]
                              for k in subset) if size > 1 else True
                if minimal:
                    found.append((int(row), frozenset(subset)))
    return found


def scores(df, keys, max_size, found, dis_fraction):
    k = len(keys)
    n = len(df)
    weight = {s: float(np.prod([k - i for i in range(s, max_size)])) for s in range(1, max_size + 1)}
    score = np.zeros(n)
    count = np.zeros(n, dtype=int)
    by_size = [0] * max_size
    for row, subset in found:
        score[row] += weight[len(subset)]
        count[row] += 1
        by_size[len(subset) - 1] += 1
    # classes on all keys, missing as a value
    filled = df[keys].astype(object).where(df[keys].notna(), "<missing>").astype(str)
    signature = filled.apply(lambda r: "\x1f".join(r), axis=1)
    class_size = signature.map(signature.value_counts())
    u = int((class_size == 1).sum())
    p = int((class_size == 2).sum())
    f = dis_fraction
    dis = u * f / (u * f + p * (1 - f)) if u > 0 else float("nan")
    q = 1 + (8.0 - k) / 20.0
    positive = score > 0
    adjustment = np.sum(1 / score[positive] ** q)
    dis_score = np.zeros(n)
    dis_score[positive] = 1 / (1 + (u / dis - u) / (score[positive] ** q * adjustment))
    return score, dis_score, count, by_size, u, p, dis


CASES = [
    # name, file, keys, max_size (None: number of keys), missing codes
    ("train_6keys", "train.csv", ["sex", "age", "edu", "marital", "ls", "smoke"], None, {}),
    ("train_7keys_income", "train.csv", ["sex", "age", "edu", "marital", "income", "ls", "smoke"],
     None, {"income": [-8]}),
    ("train_7keys_max3", "train.csv", ["sex", "age", "edu", "marital", "income", "ls", "smoke"],
     3, {"income": [-8]}),
    ("syn_6keys", "train_syn.csv", ["sex", "age", "edu", "marital", "ls", "smoke"], None, {}),
]


def main():
    out = {"dis_fraction": 0.01, "cases": []}
    for name, file, keys, max_size, missing in CASES:
        df = load(file, missing)
        m = max_size or len(keys)
        found = msus(df, keys, m)
        score, dis_score, count, by_size, u, p, dis = scores(df, keys, m, found, 0.01)
        records = [[int(r), int(count[r]), float(score[r]), float(dis_score[r])]
                   for r in np.flatnonzero(score > 0)]
        out["cases"].append({
            "name": name, "file": file, "keys": keys, "max_size": m,
            "missing_codes": missing, "rows": len(df),
            "msus_by_size": by_size, "msus": len(found),
            "sample_uniques": u, "records_in_pairs": p, "dis": dis,
            "records": records,
            # every MSU as [row, [key indices]]: the exact set, not only the counts
            "msu_list": sorted([[r, sorted(keys.index(k) for k in s)] for r, s in found]),
        })
        print(name, "msus", len(found), "by size", by_size, "U", u, "P", p, "records", len(records))
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
