"""Design-weighted Wasserstein-1 and Kolmogorov-Smirnov distances on the api data, computed
independently with numpy/scipy for tests/unit/weighted_general_metrics_test.cpp: W1 by
scipy.stats.wasserstein_distance(u, v, u_weights, v_weights), D as the largest gap between the two
weighted ECDFs evaluated at every pooled value. The confidential data are weighted by pw, the
synthetic data by their own pw ("own") or not at all ("none"); missing values dropped. Run with
Debian's /usr/bin/python3 from this folder; writes weighted_distances.tsv. Also
correlation_fit's contingency similarity of the categorical pair, 1 - 1/2 sum |p_conf - p_syn|
over the weighted cell shares (pandas group sums of the weights, missing a level of its own)."""
import numpy as np
import pandas as pd
from scipy.stats import wasserstein_distance

conf = pd.read_csv("../../data/survey/apistrat.csv")
syn = pd.read_csv("../../data/survey/apistrat_syn.csv")


def weighted_ecdf(values, weights, at):
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order]) / weights.sum()
    index = np.searchsorted(values[order], at, side="right")
    return np.where(index == 0, 0.0, cumulative[np.maximum(index - 1, 0)])


with open("weighted_distances.tsv", "w") as out:
    for column in ["api00", "api99", "ell", "meals", "enroll", "acs_k3"]:
        c = conf[[column, "pw"]].dropna()
        s = syn[[column, "pw"]].dropna()
        u, uw = c[column].to_numpy(float), c.pw.to_numpy(float)
        v = s[column].to_numpy(float)
        for policy, vw in [("own", s.pw.to_numpy(float)), ("none", np.ones(len(s)))]:
            w1 = wasserstein_distance(u, v, uw, vw)
            pooled = np.union1d(u, v)
            d = np.max(np.abs(weighted_ecdf(u, uw, pooled) - weighted_ecdf(v, vw, pooled)))
            out.write(f"{policy}.wasserstein.{column}\t{w1!r}\n")
            out.write(f"{policy}.ks_distance.{column}\t{d!r}\n")

    pair = ["stype", "sch_wide"]
    p = conf.fillna({c: "NA" for c in pair}).groupby(pair).pw.sum() / conf.pw.sum()
    s_filled = syn.fillna({c: "NA" for c in pair})
    for policy, weights in [("own", s_filled.pw), ("none", pd.Series(1.0, index=s_filled.index))]:
        q = weights.groupby([s_filled[c] for c in pair]).sum() / weights.sum()
        gap = p.sub(q, fill_value=0.0).abs().sum()
        out.write(f"{policy}.contingency_similarity.stype:sch_wide\t{1 - gap / 2!r}\n")
