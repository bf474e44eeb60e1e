#!/usr/bin/python3
"""Golden values for membership inference at low false-positive rates (TPR at FPR 0.001, 0.01,
0.1; membership advantage; the ε lower bound with Clopper–Pearson intervals).

Independent computation from per-record distances (score = −distance, members = training
records): sklearn.metrics.roc_curve(drop_intermediate=False) gives the full ROC; TPR at a target
is the largest TPR among its points with FPR <= target; the advantage is max(TPR − FPR); the ε
bound is, over all ROC points, the largest of log((TPR_lo − δ)/FPR_hi) and
log((1 − δ − FPR_hi)/(1 − TPR_lo)) with two-sided Clopper–Pearson bounds from scipy.stats.beta
(ppf for the lower bound, isf for the upper, as statsmodels' proportion_confint(method="beta")),
0 when none is positive (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021).

Inputs (written here, or by the command line for SD2011):
  mia_low_fpr_sd2011_scores.csv  the metric's per-record distances on SD2011 train (members) and
      holdout (non-members) to train_syn, Gower over all columns, made with
        build/synthaudit evaluate --confidential tests/data/sd2011/train.csv \
          --synthetic syn=tests/data/sd2011/train_syn.csv \
          --holdout tests/data/sd2011/holdout.csv \
          --metrics distance_membership_inference --param \
          distance_membership_inference.record_level=true --out OUT
      (OUT/records.tsv: the conf_to_syn distances as members, then the holdout_to_syn ones,
      written as "distance,member" with %.17g); the test checks that the metric's own distances
      equal them before comparing the statistics.
  mia_low_fpr_{ties,leaky}_scores.csv  made below: many members and some non-members at distance
      0 (the first threshold exceeds the low FPR targets), and a leaky attack with a positive ε.

Regenerate:  /usr/bin/python3 tests/golden/distance/make_mia_low_fpr_golden.py
"""
import csv
import math
import os

import numpy as np
from scipy.stats import beta
from sklearn.metrics import roc_curve

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = [0.001, 0.01, 0.1]
CASES = {  # name: (delta, confidence)
    "sd2011": (1e-5, 0.95),
    "ties": (1e-5, 0.95),
    "leaky": (1e-5, 0.95),
    "leaky_delta": (1e-3, 0.9),
}


def clopper_pearson(x, n, confidence):
    tail = (1 - confidence) / 2
    lower = 0.0 if x == 0 else beta.ppf(tail, x, n - x + 1)
    upper = 1.0 if x == n else beta.isf(tail, x + 1, n - x)
    return lower, upper


def audit(distance, member, delta, confidence):
    fpr, tpr, _ = roc_curve(member, -distance, drop_intermediate=False)
    n1, n0 = int(member.sum()), int((1 - member).sum())
    out = {}
    for t in TARGETS:
        out["tpr_at_fpr_%g" % t] = float(tpr[fpr <= t].max())
    out["membership_advantage"] = float((tpr - fpr).max())
    tp = np.rint(tpr * n1).astype(int)
    fp = np.rint(fpr * n0).astype(int)
    best = 0.0
    for a, b in zip(tp, fp):
        tpr_lo = clopper_pearson(a, n1, confidence)[0]
        fpr_hi = clopper_pearson(b, n0, confidence)[1]
        if tpr_lo - delta > 0:
            best = max(best, math.log((tpr_lo - delta) / fpr_hi))
        if 1 - delta - fpr_hi > 0:
            best = max(best, math.log((1 - delta - fpr_hi) / (1 - tpr_lo)))
    out["epsilon_lower_bound"] = best
    return out


def read_scores(name):
    d, m = [], []
    with open(os.path.join(HERE, name)) as f:
        for row in csv.DictReader(f):
            d.append(float(row["distance"]))
            m.append(int(row["member"]))
    return np.array(d), np.array(m)


def write_scores(name, distance, member):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("distance,member\n")
        for d, m in zip(distance, member):
            f.write("%.17g,%d\n" % (d, m))


rng = np.random.default_rng(20261125)
# Ties at distance 0: 300 of 2000 members and 12 of 1500 non-members are exact copies (FPR 0.008
# at the first threshold: above 0.001, below 0.01), the rest spread on a coarse grid (more ties).
members = np.concatenate([np.zeros(300), np.round(rng.gamma(2.0, 0.05, 1700), 3)])
others = np.concatenate([np.zeros(12), np.round(rng.gamma(2.0, 0.06, 1488), 3)])
write_scores("mia_low_fpr_ties_scores.csv", np.concatenate([members, others]),
             np.concatenate([np.ones(2000, int), np.zeros(1500, int)]))
# A leaky attack: members far closer than non-members, continuous distances (no ties).
members = rng.exponential(0.02, 3000)
others = 0.05 + rng.exponential(0.05, 2500)
write_scores("mia_low_fpr_leaky_scores.csv", np.concatenate([members, others]),
             np.concatenate([np.ones(3000, int), np.zeros(2500, int)]))

with open(os.path.join(HERE, "mia_low_fpr_expected.csv"), "w") as f:
    f.write("case,delta,confidence,statistic,value\n")
    for case, (delta, confidence) in CASES.items():
        distance, member = read_scores("mia_low_fpr_%s_scores.csv" % case.split("_")[0])
        for k, v in audit(distance, member, delta, confidence).items():
            f.write("%s,%.17g,%.17g,%s,%.17g\n" % (case, delta, confidence, k, v))
