#!/usr/bin/python3
"""Golden values for epsilon_identifiability (Yoon, Drumright & van der Schaar 2020, ADS-GAN).

Independent brute force: every confidential record against every other confidential record and
every synthetic record, squared weighted Euclidean distance Σ_c w_c² (x_c − y_c)² in numpy, with
every comparison whose float values lie within 1e-9 (relative) of each other decided again in
exact rational arithmetic (fractions.Fraction over the decimal values as written in the files),
so exact ties compare equal.

Encoding (as synthcity's DataLoader.encode labels them): categorical columns to the rank of
their level among the levels present in the confidential and synthetic data (sklearn's
LabelEncoder fitted on both; a missing level, NaN, is ranked last), numeric columns as they are.
synthcity also label-encodes numeric columns with fewer than 15 distinct values; the SD2011
columns used here (age: 78 or more values) are not affected, so synthcity's encoding and ours
agree on them. Weights: entropy = 1/(H + 1e-16), H the natural-log entropy (scipy.stats.entropy)
of the column's confidential values rounded to integers (np.round), as in ADS-GAN's released code
and synthcity's compute_entropy; uniform = 1 (what synthcity 0.2.12 uses after overwriting).

Also printed, not tested: synthcity 0.2.12's own computation transcribed (sklearn
NearestNeighbors on the scaled data, n_neighbors = 2 for the real data, strict R_Diff < 0).

Cases:
  sd2011_{entropy,uniform}: ../shared/data/sd2011 train.csv (confidential) and train_syn.csv,
      columns sex, age, edu, marital, ls, smoke (income has missing values, which the metric
      refuses).
  decimals_{entropy,uniform}: identifiability_{conf,syn}.csv made below: one-decimal numeric
      columns with duplicated and copied records (ties at 0 and at equal non-zero distances).

Regenerate:  /usr/bin/python3 tests/golden/distance/make_identifiability_golden.py
"""
import os
from fractions import Fraction

import numpy as np
import pandas as pd
from scipy.stats import entropy
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import LabelEncoder

HERE = os.path.dirname(os.path.abspath(__file__))
SD = os.path.join(HERE, "..", "..", "..", "..", "shared", "data", "sd2011")


def encode(conf, syn, columns):
    x, y = [], []
    for c in columns:
        a, b = conf[c], syn[c]
        if a.dtype == object or b.dtype == object:
            enc = LabelEncoder().fit(pd.concat([a, b]).astype(object))
            x.append(enc.transform(a.astype(object)).astype(float))
            y.append(enc.transform(b.astype(object)).astype(float))
        else:
            x.append(a.to_numpy(float))
            y.append(b.to_numpy(float))
    return np.column_stack(x), np.column_stack(y)


def weights_of(x, kind):
    if kind == "uniform":
        return np.ones(x.shape[1])
    h = []
    for c in range(x.shape[1]):
        counts = np.sort(np.unique(np.round(x[:, c]), return_counts=True)[1])
        h.append(entropy(counts))
    return 1.0 / (np.array(h) + 1e-16)


def exact(u, v, w2):
    # The values as written in the files (repr gives back the shortest decimal: 5.3, not
    # 5.29999999999999982...), so records that differ by the same decimal amounts tie exactly.
    return sum(Fraction(a) * (Fraction(repr(p)) - Fraction(repr(q))) ** 2
               for a, p, q in zip(w2, u, v))


def identifiability(x, y, w):
    w2 = w * w
    count = 0
    rechecked = 0
    for i in range(x.shape[0]):
        dx = ((x - x[i]) ** 2 * w2).sum(axis=1)
        dx[i] = np.inf
        dy = ((y - x[i]) ** 2 * w2).sum(axis=1)
        r, rhat = dx.min(), dy.min()
        if abs(rhat - r) <= 1e-9 * max(r, rhat):
            rechecked += 1
            near_x = np.flatnonzero(dx <= r * (1 + 1e-9))
            near_y = np.flatnonzero(dy <= rhat * (1 + 1e-9))
            r_exact = min(exact(x[i], x[j], w2) for j in near_x)
            rhat_exact = min(exact(x[i], y[k], w2) for k in near_y)
            count += rhat_exact < r_exact
        else:
            count += rhat < r
    return count, rechecked


def synthcity_transcription(x, y, w):
    xs, ys = x / (w + 1e-16), y / (w + 1e-16)
    d, _ = NearestNeighbors(n_neighbors=2).fit(xs).kneighbors(xs)
    dh, _ = NearestNeighbors(n_neighbors=1).fit(ys).kneighbors(xs)
    return int(np.sum(dh[:, 0] - d[:, 1] < 0))


rng = np.random.default_rng(20261125)
conf = pd.DataFrame({"a": np.round(rng.normal(5, 2, 600), 1),
                     "b": np.round(rng.uniform(0, 3, 600), 1),
                     "g": rng.choice(["x", "y", "z"], 600)})
conf.iloc[500:540] = conf.iloc[0:40].to_numpy()  # confidential duplicates: r = 0
syn = pd.DataFrame({"a": np.round(rng.normal(5, 2, 700), 1),
                    "b": np.round(rng.uniform(0, 3, 700), 1),
                    "g": rng.choice(["x", "y", "z"], 700)})
syn.iloc[0:80] = conf.iloc[20:100].to_numpy()  # copies: r̂ = 0
conf.to_csv(os.path.join(HERE, "identifiability_conf.csv"), index=False)
syn.to_csv(os.path.join(HERE, "identifiability_syn.csv"), index=False)

cases = {}
train = pd.read_csv(os.path.join(SD, "train.csv"))
train_syn = pd.read_csv(os.path.join(SD, "train_syn.csv"))
sd_columns = ["sex", "age", "edu", "marital", "ls", "smoke"]
cases["sd2011"] = encode(train, train_syn, sd_columns)
conf = pd.read_csv(os.path.join(HERE, "identifiability_conf.csv"))
syn = pd.read_csv(os.path.join(HERE, "identifiability_syn.csv"))
cases["decimals"] = encode(conf, syn, ["a", "b", "g"])

with open(os.path.join(HERE, "identifiability_expected.csv"), "w") as f:
    f.write("case,weights,n_identifiable,n_records,identifiability\n")
    for name, (x, y) in cases.items():
        for kind in ["entropy", "uniform"]:
            w = weights_of(x, kind)
            count, rechecked = identifiability(x, y, w)
            f.write("%s,%s,%d,%d,%.17g\n" % (name, kind, count, x.shape[0], count / x.shape[0]))
            print("%s %s: %d of %d (%d near-ties decided exactly); synthcity transcription %d; "
                  "weights %s" % (name, kind, count, x.shape[0], rechecked,
                                  synthcity_transcription(x, y, w), np.array2string(w, precision=6)))
