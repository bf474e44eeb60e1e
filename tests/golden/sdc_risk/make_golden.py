"""Brute-force references for the k_anonymity, l_diversity, t_closeness and replicated_uniques
metrics on SD2011 (tests/data/sd2011/orig.csv as the confidential data, syn.csv as the synthetic
data), written independently of the C++ code from the published definitions:

- k-anonymity: each record compared with every record (numpy, one row at a time). `wildcard`
  is sdcMicro's freqCalc rule (sdcMicro 5.8.1, R/freqCalc.r): two records match when on every
  key either value is missing or both are equal, except that with two or more keys a record with
  all keys missing is not counted for a record with no missing key; `value`: missing is a value.
- l-diversity (Machanavajjhala et al. 2007): distinct values and exp(entropy) per class, with
  classes the groups of equal key tuples (missing a value), the target's missing a value too.
- recursive (c,l)-diversity (Machanavajjhala et al. 2007, definition 4.2; the per-class value
  sdcMicro's ldiversity reports as Recursive_Ldiversity): with a class's value counts sorted
  r_1 >= ... >= r_m, the largest l in 2..m with r_1 < c * (r_l + ... + r_m), or 1 when there is
  none; the target's missing a value of its own. Written for several (c, l), tried one l at a
  time by the definition (not through the largest l).
- k-anonymity per record: every record's class size on the first key set (both rules).
- t-closeness (Li, Li & Venkatasubramanian 2007): the EMD with the ordered ground distance
  |i-j|/(m-1) over the file's m sorted distinct values (numeric target) as scipy's 1-D
  Wasserstein distance between the class's and the file's weights placed at i/(m-1) (the optimal
  transport cost, not the cumulative-sum formula the C++ code uses), and half the L1 distance for
  a categorical target (equal ground distance 1); missing target values left out.
- replicated uniques: synthpop 1.9-3's replicated.uniques, composite keys pasted with "|".

Usage: /usr/bin/python3 make_golden.py  (writes golden.json next to this script)
"""
import json
import math
import os

import numpy as np
import pandas as pd
from scipy.stats import wasserstein_distance

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data", "sd2011")
conf = pd.read_csv(os.path.join(DATA, "orig.csv"), keep_default_na=True)
syn = pd.read_csv(os.path.join(DATA, "syn.csv"), keep_default_na=True)
SCENARIOS = [["sex", "age", "edu", "marital"], ["sex", "edu", "marital", "smoke"]]
TARGETS = ["income", "ls"]
K_LIST = [2, 3, 5]
L = 2
T = 0.15
RECURSIVE = [(2.0, 2), (2.0, 3), (0.5, 2), (3.0, 4)]  # (c, l)


def codes(frames, column):
    """Shared integer codes of one column over all frames; missing is -1."""
    values = pd.concat([f[column] for f in frames])
    levels = sorted(values.dropna().unique())
    index = {v: i for i, v in enumerate(levels)}
    return [np.array([-1 if pd.isna(v) else index[v] for v in f[column]]) for f in frames]


def frequencies(matrix, rule):
    n, keys = matrix.shape
    missing = matrix < 0
    all_missing = missing.all(axis=1)
    none_missing = ~missing.any(axis=1)
    f = np.zeros(n)
    for i in range(n):
        if rule == "value":
            f[i] = np.sum((matrix == matrix[i]).all(axis=1))
            continue
        ok = ((matrix == matrix[i]) | missing | missing[i]).all(axis=1)
        if keys >= 2 and none_missing[i]:
            ok &= ~all_missing
        f[i] = ok.sum()
    return f


def emd_ordered(p, q):
    m = len(q)
    if m == 1:
        return 0.0
    positions = np.arange(m) / (m - 1)
    return float(wasserstein_distance(positions, positions, p, q))


golden = {}
for keys in SCENARIOS:
    frames = [conf, syn]
    key_codes = [codes(frames, k) for k in keys]
    scope_keys = "keys=" + ",".join(keys)
    for data, name in enumerate(["confidential", "synthetic"]):
        matrix = np.stack([kc[data] for kc in key_codes], axis=1)
        n = matrix.shape[0]
        tuples = [tuple(r) for r in matrix]
        for rule in ["wildcard", "value"]:
            f = frequencies(matrix, rule)
            entry = {"classes": len(set(tuples)), "sample_uniques": int(np.sum(f == 1)),
                     "smallest_class": float(f.min())}
            for k in K_LIST:
                entry[f"records_below_k;k={k}"] = int(np.sum(f < k))
                entry[f"share_below_k;k={k}"] = float(np.mean(f < k))
            golden[f"k_anonymity;{scope_keys};{rule};{name}"] = entry
            if keys == SCENARIOS[0]:
                golden[f"k_anonymity_records;{scope_keys};{rule};{name}"] = [int(x) for x in f]
        frame = frames[data]
        for target in TARGETS:
            values = frame[target]
            classes = {}
            for row, t in enumerate(tuples):
                classes.setdefault(t, []).append(row)
            distinct, entropy_l, sorted_counts = {}, {}, {}
            for t, rows in classes.items():
                counts = pd.Series(["<NA>" if pd.isna(values.iloc[r]) else values.iloc[r]
                                    for r in rows]).value_counts()
                shares = counts / counts.sum()
                distinct[t] = len(counts)
                entropy_l[t] = math.exp(-float(np.sum(shares * np.log(shares))))
                sorted_counts[t] = sorted(counts.tolist(), reverse=True)

            def recursive_diverse(r, c, l):
                return len(r) >= l and r[0] < c * sum(r[l - 1:])

            def recursive_l(r, c):
                return max([l for l in range(2, len(r) + 1) if recursive_diverse(r, c, l)],
                           default=1)
            recursive = {}
            for c, l in RECURSIVE:
                recursive[f"min_recursive_l;c={c:g}"] = float(
                    min(recursive_l(r, c) for r in sorted_counts.values()))
                recursive[f"share_below_recursive_l;c={c:g};l={l}"] = float(np.mean(
                    [l >= 2 and not recursive_diverse(sorted_counts[t], c, l) for t in tuples]))
            golden[f"l_diversity;{scope_keys};target={target};{name}"] = {
                "min_distinct_l": float(min(distinct.values())),
                "min_entropy_l": float(min(entropy_l.values())),
                "share_below_distinct_l": float(np.mean([distinct[t] < L for t in tuples])),
                "share_below_entropy_l": float(np.mean([entropy_l[t] < L - 1e-9
                                                        for t in tuples])),
                **recursive,
            }
            observed = values.dropna()
            numeric = pd.api.types.is_numeric_dtype(conf[target])
            domain = sorted(observed.unique())
            q = np.array([np.mean(observed == v) for v in domain])
            emd = {}
            for t, rows in classes.items():
                cls = values.iloc[rows].dropna()
                if len(cls) == 0:
                    continue
                p = np.array([np.mean(cls == v) for v in domain])
                emd[t] = emd_ordered(p, q) if numeric else 0.5 * float(np.abs(p - q).sum())
            above = {t: d > T + 1e-12 for t, d in emd.items()}
            golden[f"t_closeness;{scope_keys};target={target};{name}"] = {
                "max_emd": max(emd.values()),
                "share_classes_above_t": float(np.mean(list(above.values()))),
                "share_records_above_t": float(np.mean([above[t] for t in tuples if t in emd])),
            }

    # synthpop's replicated.uniques, with pasted string keys (NA pasted as "NA").
    def pasted(frame):
        return frame[keys].apply(lambda r: "|".join("NA" if pd.isna(v) else str(v) for v in r),
                                 axis=1)
    data_keys, syn_keys = pasted(conf), pasted(syn)
    data_tab, syn_tab = data_keys.value_counts(), syn_keys.value_counts()
    uniques_in_orig = set(data_tab[data_tab == 1].index)
    uniques_in_syn = list(syn_tab[syn_tab == 1].index)
    in_orig = [u for u in uniques_in_syn if u in set(data_keys)]
    replicated = [u for u in uniques_in_syn if u in uniques_in_orig]
    golden[f"replicated_uniques;{scope_keys}"] = {
        "original_uniques": len(uniques_in_orig), "synthetic_uniques": len(uniques_in_syn),
        "synthetic_uniques_in_original": len(in_orig), "replicated_uniques": len(replicated),
        "replicated_unique_share": len(replicated) / len(syn)}

with open(os.path.join(HERE, "golden.json"), "w") as out:
    json.dump(golden, out, indent=1, sort_keys=True)
