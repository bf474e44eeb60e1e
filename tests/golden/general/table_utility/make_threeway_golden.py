#!/usr/bin/python3
"""Golden values for table_utility's three-way tables: synthpop's utility.tables(tables =
"threeway") on SD2011 (orig.csv vs syn.csv, ngroups = 5, cont.na = list(income = -8)).

Usage: /usr/bin/python3 make_threeway_golden.py   (numpy only; writes threeway_golden.tsv here)

synthpop is not packaged in Debian, so its statistics are re-derived here, independently of the
C++ code, from the definitions in synthpop 1.9-2 (R/utility.syn.r utility.tab.synds and
group_num; R/utility.tables.R for the table list and var.scores), as read from
https://github.com/cran/synthpop:
  * numeric columns: breaks = unique R type-7 quantiles at probabilities (0:n)*(1/n) of the pooled
    non-missing confidential and synthetic values (classIntervals(style = "quantile")), cut with
    right = FALSE, include.lowest = TRUE; the missing code -8 and NA are levels of their own;
  * per table: cells empty in both are dropped; c = Σs/N; diff = s − d·c/(1−c); expect = (s+d)c;
    VW, FT, JSD (log2), G (cells non-empty in both), SPECKS (KS distance of the cell propensities
    s/(s+d) repeated per record), U (Wilcoxon W with mid-ranks), PO50, MabsDD, WMabsDD, dBhatt,
    pMSE and the standardised forms; df = cells − 1, dfG = cells non-empty in both − 1;
  * var.scores: per variable the mean S_pMSE over the triples that contain it.
Output rows: scope <TAB> statistic <TAB> value (%.17g), scope "a:b:c" or the variable name for
variable_score.
"""
import csv
import itertools
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "data", "sd2011")
NGROUPS = 5
MISSING_CODES = {"income": [-8.0]}


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return header, [[r[j] for r in body] for j in range(len(header))]


def is_numeric(values):
    try:
        [float(v) for v in values if v not in ("", "NA")]
        return True
    except ValueError:
        return False


def to_float(values):
    return np.array([math.nan if v in ("", "NA") else float(v) for v in values])


def r_quantile7(x, p):
    x = np.sort(x)
    n = len(x)
    index = (n - 1) * p
    lo, hi = math.floor(index), math.ceil(index)
    h = index - lo
    return (1 - h) * x[lo] + h * x[hi]


def group_num(conf, syn, codes):
    """Level labels (strings) of both columns, as synthpop's group_num."""
    def valid(x):
        return ~np.isnan(x) & ~np.isin(x, codes)
    pooled = np.concatenate([conf[valid(conf)], syn[valid(syn)]])
    probs = np.arange(NGROUPS + 1) * (1.0 / NGROUPS)
    breaks = sorted(set(r_quantile7(pooled, p) for p in probs))
    out = []
    for x in (conf, syn):
        labels = []
        for v in x:
            if math.isnan(v):
                labels.append("NA")
            elif v in codes:
                labels.append("code%g" % v)
            else:
                i = int(np.searchsorted(breaks, v, side="right")) - 1
                labels.append("bin%d" % min(max(i, 0), len(breaks) - 2))
        out.append(labels)
    return out


def statistics(d, s):
    keep = d + s > 0
    td, ts = d[keep], s[keep]
    df = len(td) - 1
    n = ts.sum() + td.sum()
    cc = ts.sum() / n
    expect = (ts + td) * cc
    diff = ts - td * cc / (1 - cc)
    out = {}
    out["VW"] = np.sum(diff**2 / expect)
    out["FT"] = 4 * np.sum((np.sqrt(ts) - np.sqrt(cc / (1 - cc) * td)) ** 2)
    pd_, ps = td / td.sum(), ts / ts.sum()
    half = (pd_ + ps) * 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        out["JSD"] = (np.sum((pd_ * np.log2(pd_ / half))[pd_ > 0]) / 2 +
                      np.sum((ps * np.log2(ps / half))[ps > 0]) / 2)
    both = (ts > 1e-8) & (td > 1e-8)
    sok, dok = ts[both], td[both]
    out["G"] = 2 * np.sum(sok * np.log(sok / sok.sum() / dok * dok.sum()))
    out["dfG"] = len(dok) - 1
    score = ts / (ts + td)
    # KS distance of the two record-level samples of cell propensities: their ECDFs compared at
    # every distinct propensity.
    values = np.unique(score)
    cum_s = np.array([ts[score <= v].sum() for v in values]) / ts.sum()
    cum_d = np.array([td[score <= v].sum() for v in values]) / td.sum()
    out["SPECKS"] = np.max(np.abs(cum_s - cum_d))
    # Wilcoxon W of the synthetic records: pairs (synthetic, confidential) with a higher
    # synthetic propensity, ties counted one half.
    u = 0.0
    for v in values:
        ns = ts[score == v].sum()
        u += ns * (td[score < v].sum() + 0.5 * td[score == v].sum())
    out["U"] = u
    predsyn = ps > pd_
    out["PO50"] = (ts[predsyn].sum() + td[~predsyn].sum()) / (ts.sum() + td.sum()) * 100 - 50
    out["pMSE"] = out["VW"] * cc * (1 - cc) ** 2 / n
    out["MabsDD"] = np.sum(np.abs(diff)) / ts.sum()
    out["WMabsDD"] = np.sum(np.abs(diff) / np.sqrt(expect)) / math.sqrt(2 / math.pi)
    out["dBhatt"] = math.sqrt(1 - np.sum(np.sqrt(pd_ * ps)))
    out["S_VW"] = out["S_pMSE"] = out["VW"] / df
    out["S_FT"] = out["FT"] / df
    out["S_JSD"] = out["JSD"] * 2 * n / df / math.log(2)
    out["S_WMabsDD"] = out["WMabsDD"] / df
    out["S_G"] = out["G"] / out["dfG"]
    out["df"] = df
    return out


def main():
    names, conf_raw = read(os.path.join(DATA, "orig.csv"))
    names_syn, syn_raw = read(os.path.join(DATA, "syn.csv"))
    assert names == names_syn
    levels = []
    for j, name in enumerate(names):
        if is_numeric(conf_raw[j]):
            levels.append(group_num(to_float(conf_raw[j]), to_float(syn_raw[j]),
                                    MISSING_CODES.get(name, [])))
        else:
            levels.append([["NA" if v in ("", "NA") else v for v in conf_raw[j]],
                           ["NA" if v in ("", "NA") else v for v in syn_raw[j]]])
    def table_statistics(columns):
        keys = [sorted(set(levels[j][0]) | set(levels[j][1])) for j in columns]
        cells = list(itertools.product(*keys))
        index = {cell: i for i, cell in enumerate(cells)}
        counts = []
        for dataset in (0, 1):
            c = np.zeros(len(cells))
            for r in range(len(levels[columns[0]][dataset])):
                c[index[tuple(levels[j][dataset][r] for j in columns)]] += 1
            counts.append(c)
        return statistics(counts[0], counts[1])

    # The transcription is first checked against what synthpop itself printed for every one-way
    # and two-way table (../../../data/sd2011/ref_synthpop_orig_vs_syn.tsv, synthpop 1.9-3).
    printed = {}
    with open(os.path.join(DATA, "ref_synthpop_orig_vs_syn.tsv")) as f:
        for line in f:
            metric, scope, key, value = line.rstrip("\n").split("\t")
            if metric == "utility.tab":
                printed[(scope, key)] = float(value)
    worst = 0.0
    for k in (1, 2):
        for columns in itertools.combinations(range(len(names)), k):
            scope = ":".join(names[j] for j in columns)
            for key, value in table_statistics(columns).items():
                if (scope, key) in printed:
                    reference = printed[(scope, key)]
                    worst = max(worst, abs(value - reference) / max(1.0, abs(reference)))
    assert len(printed) == 28 * 19 and worst < 1e-12, worst
    print("one-way and two-way tables agree with synthpop's printed values to", worst)

    rows = []
    score_sum = {n: 0.0 for n in names}
    score_count = {n: 0 for n in names}
    for triple in itertools.combinations(range(len(names)), 3):
        stats = table_statistics(triple)
        scope = ":".join(names[j] for j in triple)
        for key in sorted(stats):
            rows.append((scope, key, stats[key]))
        for j in triple:
            score_sum[names[j]] += stats["S_pMSE"]
            score_count[names[j]] += 1
    for n in names:
        rows.append((n, "variable_score", score_sum[n] / score_count[n]))
    with open(os.path.join(HERE, "threeway_golden.tsv"), "w") as f:
        for scope, key, value in rows:
            f.write("%s\t%s\t%.17g\n" % (scope, key, value))
    print(len(rows), "rows")


if __name__ == "__main__":
    main()
