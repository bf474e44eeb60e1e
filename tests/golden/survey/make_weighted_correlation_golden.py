"""Design-weighted Spearman correlations and Cramér's V on the api data, computed independently
with numpy/scipy for tests/unit/weighted_general_metrics_test.cpp (correlation_fit with weights:).

Spearman: on the rows where both columns are present, each value's weighted mid-rank is the sum of
the weights of the smaller values plus half the total weight of its ties; the correlation is the
weighted Pearson correlation of the two mid-rank vectors (numpy.cov with aweights).
Cramér's V: the weighted contingency table of estimated population counts (pandas group sums of
the weights, missing a level of its own), V = sqrt(chi2 / (sum(w) * (min(r, c) - 1))) with chi2 from
scipy.stats.chi2_contingency(correction=False) on that table.

The confidential data are weighted by pw, the synthetic data by their own pw ("own") or not at
all ("none"). Run with Debian's /usr/bin/python3 from this folder; writes weighted_correlations.tsv.
"""
import itertools

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

conf = pd.read_csv("../../data/survey/apistrat.csv")
syn = pd.read_csv("../../data/survey/apistrat_syn.csv")
numeric = ["api00", "api99", "ell", "meals", "enroll", "acs_k3"]


def mid_ranks(values, weights):
    ranks = np.empty(len(values))
    for i, v in enumerate(values):
        ranks[i] = weights[values < v].sum() + weights[values == v].sum() / 2
    return ranks


def weighted_spearman(frame, a, b, weights):
    keep = frame[a].notna().to_numpy() & frame[b].notna().to_numpy()
    x, y = frame[a].to_numpy(float)[keep], frame[b].to_numpy(float)[keep]
    w = weights[keep]
    c = np.cov(mid_ranks(x, w), mid_ranks(y, w), aweights=w)
    return c[0, 1] / np.sqrt(c[0, 0] * c[1, 1])


def weighted_cramers_v(frame, a, b, weights):
    filled = frame[[a, b]].fillna("NA")
    table = pd.Series(weights).groupby([filled[a], filled[b]]).sum().unstack(fill_value=0.0)
    table = table.loc[table.sum(axis=1) > 0, table.sum(axis=0) > 0].to_numpy()
    chi2 = chi2_contingency(table, correction=False)[0]
    return np.sqrt(chi2 / (table.sum() * (min(table.shape) - 1)))


sides = [
    ("conf", conf, conf.pw.to_numpy(float)),
    ("own", syn, syn.pw.to_numpy(float)),
    ("none", syn, np.ones(len(syn))),
]
with open("weighted_correlations.tsv", "w") as out:
    for label, frame, weights in sides:
        for a, b in itertools.combinations(numeric, 2):
            out.write(f"{label}.spearman.{a}:{b}\t{weighted_spearman(frame, a, b, weights)!r}\n")
        v = weighted_cramers_v(frame, "stype", "sch_wide", weights)
        out.write(f"{label}.cramers_v.stype:sch_wide\t{v!r}\n")
