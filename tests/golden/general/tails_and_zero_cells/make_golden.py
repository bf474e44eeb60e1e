#!/usr/bin/python3
"""Golden values for tail_agreement and zero_cell_agreement from pandas/numpy, independently of
the C++ code, on SD2011 (tests/data/sd2011: train.csv as the confidential data, train_syn.csv as
the synthetic data, and holdout.csv in its place for the fresh-sample baseline; income's -8 is a
missing code).

Usage: /usr/bin/python3 make_golden.py   (writes golden.tsv here: comparison, metric, scope,
statistic, value with 17 significant digits)

tail_agreement: per numeric column, numpy.quantile (method "linear" = Hyndman-Fan type 7) of the
confidential non-missing values at 0.01, 0.05, 0.95, 0.99; counts of values <= q (bottom tails)
or >= q (top tails) in each dataset; shares among non-missing values.
zero_cell_agreement: pandas.crosstab of every pair of categorical columns with missing as a level,
over the levels seen in either dataset.
"""
import itertools
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "data", "sd2011")
TAILS = [("bottom_1pct", 0.01, True), ("bottom_5pct", 0.05, True),
         ("top_5pct", 0.95, False), ("top_1pct", 0.99, False)]


def load(name):
    frame = pd.read_csv(os.path.join(DATA, name))
    frame.loc[frame["income"] == -8, "income"] = np.nan
    return frame


def tails(conf, other):
    rows, diffs = [], []
    for column in conf.columns:
        if not pd.api.types.is_numeric_dtype(conf[column]):
            continue
        x = conf[column].dropna().to_numpy(dtype=float)
        y = other[column].dropna().to_numpy(dtype=float)
        for name, p, lower in TAILS:
            q = np.quantile(x, p, method="linear")
            nx = int(np.sum(x <= q) if lower else np.sum(x >= q))
            ny = int(np.sum(y <= q) if lower else np.sum(y >= q))
            px, py = nx / len(x), ny / len(y)
            rows += [(column, "threshold_" + name, q), (column, "conf_count_" + name, nx),
                     (column, "syn_count_" + name, ny), (column, "conf_share_" + name, px),
                     (column, "syn_share_" + name, py), (column, "share_ratio_" + name, py / px)]
            diffs.append(abs(py - px))
    rows.append(("all", "mean_abs_tail_share_difference", float(np.mean(diffs))))
    return rows


def zero_cells(conf, other):
    categorical = [c for c in conf.columns if not pd.api.types.is_numeric_dtype(conf[c])]
    rows, agreements, lost_total, invented_total = [], [], 0, 0
    for a, b in itertools.combinations(categorical, 2):
        both = pd.concat([conf[[a, b]].assign(_src="conf"), other[[a, b]].assign(_src="other")])
        both = both.fillna("<NA>")
        table = pd.crosstab([both[a], both[b]], both["_src"]).reindex(
            columns=["conf", "other"], fill_value=0)
        levels_a, levels_b = both[a].unique(), both[b].unique()
        full = pd.MultiIndex.from_product([levels_a, levels_b])
        table = table.reindex(full, fill_value=0)
        d, s = table["conf"].to_numpy(), table["other"].to_numpy()
        lost = (d > 0) & (s == 0)
        invented = (d == 0) & (s > 0)
        cells = len(d)
        agreement = (cells - lost.sum() - invented.sum()) / cells
        scope = a + ":" + b
        rows += [(scope, "cells", cells), (scope, "cells_empty_in_both", int(((d == 0) & (s == 0)).sum())),
                 (scope, "cells_empty_only_in_synthetic", int(lost.sum())),
                 (scope, "cells_empty_only_in_confidential", int(invented.sum())),
                 (scope, "confidential_records_in_cells_empty_in_synthetic", int(d[lost].sum())),
                 (scope, "synthetic_records_in_cells_empty_in_confidential", int(s[invented].sum())),
                 (scope, "zero_cell_agreement", agreement)]
        agreements.append(agreement)
        lost_total += int(lost.sum())
        invented_total += int(invented.sum())
    rows += [("all", "mean_zero_cell_agreement", float(np.mean(agreements))),
             ("all", "total_cells_empty_only_in_synthetic", lost_total),
             ("all", "total_cells_empty_only_in_confidential", invented_total)]
    return rows


def main():
    conf = load("train.csv")
    out = []
    for comparison, other in (("synthetic", load("train_syn.csv")), ("holdout", load("holdout.csv"))):
        for metric, rows in (("tail_agreement", tails(conf, other)),
                             ("zero_cell_agreement", zero_cells(conf, other))):
            out += ["%s\t%s\t%s\t%s\t%.17g" % (comparison, metric, scope, stat, value)
                    for scope, stat, value in rows]
    with open(os.path.join(HERE, "golden.tsv"), "w") as f:
        f.write("\n".join(out) + "\n")
    print(len(out), "rows")


if __name__ == "__main__":
    main()
