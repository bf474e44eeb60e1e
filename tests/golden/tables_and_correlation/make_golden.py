#!/usr/bin/python3
"""Golden values for the table and correlation metrics (table_utility, correlation_fit, record_level_change,
stats::kde2d), computed independently with numpy / scipy / pandas (Debian python3 packages).

Run from the repository root:  /usr/bin/python3 tests/golden/tables_and_correlation/make_golden.py
Writes conf.csv, syn.csv (different sizes), syn_rows.csv (a perturbation of conf.csv, rows
correspond) and golden.tsv (section, scope, statistic, value) next to this script.
The column x has the declared missing code -9 (a level of its own in table_utility).
"""
import os

import numpy as np
import pandas as pd
from scipy import stats
from scipy.spatial.distance import jensenshannon
from scipy.stats.contingency import association

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240611)


def make(n, shift):
    a = rng.choice(["A", "B", "C", "D"], size=n, p=[0.4, 0.3, 0.2, 0.1]).astype(object)
    a[rng.random(n) < 0.05] = None
    b = np.where(rng.random(n) < 0.5 + 0.1 * (a == "A"), "x", rng.choice(["y", "z"], size=n)).astype(object)
    x = rng.integers(0, 21, size=n).astype(float) + shift
    y = 0.6 * x + rng.normal(0, 3 + shift, size=n)
    x[rng.random(n) < 0.05] = np.nan
    x[rng.random(n) < 0.04] = -9
    y[rng.random(n) < 0.03] = np.nan
    return pd.DataFrame({"a": a, "x": x, "b": b, "y": y})


conf = make(400, 0)
syn = make(300, 1)
rows = conf.copy()
change = rng.random(len(rows)) < 0.3
rows.loc[change, "y"] = rows.loc[change, "y"] + rng.normal(0, 2, size=change.sum())
flip = rng.random(len(rows)) < 0.1
rows.loc[flip, "b"] = "z"
xchange = rng.random(len(rows)) < 0.1
rows.loc[xchange, "x"] = np.nan
for name, df in (("conf", conf), ("syn", syn), ("syn_rows", rows)):
    df.to_csv(os.path.join(HERE, name + ".csv"), index=False, na_rep="NA", float_format="%.17g")

out = []


def emit(section, scope, statistic, value):
    out.append(f"{section}\t{scope}\t{statistic}\t{float(value)!r}")


# ---------------------------------------------------------------- table_utility (synthpop utility.tab)
CODES = {"x": [-9.0]}


def levels_of(name, d, s, ngroups=5):
    """Level index per record (confidential, synthetic) in synthaudit's level order."""
    dv, sv = d[name].to_numpy(), s[name].to_numpy()
    if d[name].dtype == object:
        cats = sorted(set(v for v in np.concatenate([dv, sv]) if v is not None))
        index = {c: i for i, c in enumerate(cats)}
        na = len(cats)
        f = lambda v: na if v is None else index[v]
        return np.array([f(v) for v in dv]), np.array([f(v) for v in sv]), na + 1
    codes = CODES.get(name, [])
    ok = lambda v: ~np.isnan(v) & ~np.isin(v, codes)
    pooled = np.concatenate([dv[ok(dv)], sv[ok(sv)]])
    breaks = np.unique(np.quantile(pooled, np.arange(ngroups + 1) * (1.0 / ngroups)))  # R type 7
    nb = len(breaks) - 1

    def code(v):
        outv = np.empty(len(v), dtype=int)
        m = ok(v)
        outv[m] = np.searchsorted(breaks[1:-1], v[m], side="right")  # [b_i, b_i+1), last closed
        for k, c in enumerate(codes):
            outv[v == c] = nb + k
        outv[np.isnan(v)] = nb + len(codes)
        return outv

    return code(dv), code(sv), nb + len(codes) + 1


def table_stats(d, s):
    """d, s: counts over all cells in R's table order (first variable fastest)."""
    res = {}
    nd, ns = d.sum(), s.sum()
    p, q = d / nd, s / ns
    res["table_KS_cumulative"] = np.max(np.abs(np.cumsum(p) - np.cumsum(q)))
    keep = (d + s) > 0
    d, s, p, q = d[keep], s[keep], p[keep], q[keep]
    N = nd + ns
    c = ns / N
    chi2 = stats.chi2_contingency(np.vstack([d, s]), correction=False)[0]
    res["VW_synthpop"] = chi2 / (1 - c)  # Pearson chi-square of the 2 x K table is (1 - c) VW
    with np.errstate(divide="ignore"):
        res["VW_over_synthetic_counts"] = np.sum(np.where(s > 0, (d - s) ** 2 / np.where(s > 0, s, 1), np.inf))
    # scipy's Cressie-Read form of Freeman-Tukey divides by zero on cells with d = 0; direct form.
    res["FT"] = 4 * np.sum((np.sqrt(s) - np.sqrt(d * c / (1 - c))) ** 2)
    if np.all(d > 0) and np.all(s > 0):  # cross-check with scipy where it applies
        assert np.isclose(res["FT"], stats.power_divergence(s, d * c / (1 - c), lambda_="freeman-tukey").statistic)
    both = (s > 0) & (d > 0)
    res["G"] = stats.power_divergence(s[both], d[both] * s[both].sum() / d[both].sum(), lambda_="log-likelihood").statistic
    res["JSD_log2"] = jensenshannon(p, q, base=2) ** 2
    res["JSD_ln"] = jensenshannon(p, q) ** 2
    res["KL_ln"] = stats.entropy(p, q)
    res["KL_infinite_cells"] = np.sum((p > 0) & (q == 0))
    score = s / (s + d)
    xs, xd = np.repeat(score, s.astype(int)), np.repeat(score, d.astype(int))
    res["SPECKS"] = stats.ks_2samp(xs, xd).statistic
    res["U"] = stats.mannwhitneyu(xs, xd).statistic
    res["PO50"] = (s[q > p].sum() + d[~(q > p)].sum()) / N * 100 - 50
    diff = s - d * c / (1 - c)
    expect = (s + d) * c
    res["pMSE"] = res["VW_synthpop"] * c * (1 - c) ** 2 / N
    res["MabsDD"] = np.abs(diff).sum() / ns
    res["WMabsDD"] = np.sum(np.abs(diff) / np.sqrt(expect)) / np.sqrt(2 / np.pi)
    res["dBhatt"] = np.sqrt(max(0.0, 1 - np.sum(np.sqrt(p * q))))
    df, dfG = keep.sum() - 1, both.sum() - 1
    res.update(df=df, dfG=dfG, cells=keep.sum())
    res["S_VW"] = res["S_pMSE"] = res["VW_synthpop"] / df
    res["S_FT"] = res["FT"] / df
    res["S_G"] = res["G"] / dfG
    res["S_JSD"] = res["JSD_log2"] * 2 * N / df / np.log(2)
    res["S_WMabsDD"] = res["WMabsDD"] / df
    return res


cols = list(conf.columns)
coded = {c: levels_of(c, conf, syn) for c in cols}
tables = [(c,) for c in cols] + [(cols[i], cols[j]) for i in range(len(cols)) for j in range(i + 1, len(cols))]
for t in tables:
    dims = [coded[c][2] for c in t]
    idx_d = np.zeros(len(conf), dtype=int)
    idx_s = np.zeros(len(syn), dtype=int)
    mult = 1
    for c in t:  # first variable fastest
        idx_d += mult * coded[c][0]
        idx_s += mult * coded[c][1]
        mult *= coded[c][2]
    d = np.bincount(idx_d, minlength=mult).astype(float)
    s = np.bincount(idx_s, minlength=mult).astype(float)
    for k, v in table_stats(d, s).items():
        emit("table_utility", ":".join(t), k, v)

# ---------------------------------------------------------------- correlation_fit
# Numeric columns read without missing codes here (-9 is a value), as SDMetrics would.
num = ["x", "y"]
for i in range(len(num)):
    for j in range(i + 1, len(num)):
        a, b = num[i], num[j]
        for name, df in (("confidential", conf), ("synthetic", syn)):
            m = df[[a, b]].dropna()
            emit("correlation_fit", f"{a}:{b}", "pearson_" + name, stats.pearsonr(m[a], m[b])[0])
            emit("correlation_fit", f"{a}:{b}", "spearman_" + name, stats.spearmanr(m[a], m[b])[0])


def disc(rc, sc, nb=10):
    e = np.histogram_bin_edges(rc.dropna(), bins=nb)
    e[0], e[-1] = -np.inf, np.inf
    return np.digitize(rc, e), np.digitize(sc, e)


for i in range(len(cols)):
    for j in range(i + 1, len(cols)):
        a, b = cols[i], cols[j]
        R, S = conf[[a, b]].copy(), syn[[a, b]].copy()
        for col in (a, b):
            if col in num:
                R[col], S[col] = disc(R[col], S[col])
        R = R.fillna("NA")
        S = S.fillna("NA")
        cr = pd.crosstab(R[a], R[b]) / len(R)
        cs = pd.crosstab(S[a], S[b]) / len(S)
        cr, cs = cr.align(cs, fill_value=0)
        emit("correlation_fit", f"{a}:{b}", "contingency_similarity",
             1 - np.abs(cr.fillna(0) - cs.fillna(0)).to_numpy().sum() / 2)
        if a not in num and b not in num:
            for name, tab in (("confidential", pd.crosstab(R[a], R[b])), ("synthetic", pd.crosstab(S[a], S[b]))):
                emit("correlation_fit", f"{a}:{b}", "cramers_v_" + name,
                     association(tab.to_numpy(), method="cramer", correction=False))

# ---------------------------------------------------------------- kde2d (MASS::kde2d formula)
m = conf[["x", "y"]].dropna()
xv, yv = m["x"].to_numpy(), m["y"].to_numpy()


def nrd(v):
    q = np.quantile(v, [0.25, 0.75])
    return 4 * 1.06 * min(np.std(v, ddof=1), (q[1] - q[0]) / 1.34) * len(v) ** (-0.2)


hx, hy = nrd(xv), nrd(yv)
emit("kde2d", "x:y", "hx", hx)
emit("kde2d", "x:y", "hy", hy)
gx = np.linspace(xv.min(), xv.max(), 9)
gy = np.linspace(yv.min(), yv.max(), 7)
ax = (gx[:, None] - xv[None, :]) / (hx / 4)
ay = (gy[:, None] - yv[None, :]) / (hy / 4)
z = stats.norm.pdf(ax) @ stats.norm.pdf(ay).T / (len(xv) * hx / 4 * hy / 4)
for i in range(len(gx)):
    for j in range(len(gy)):
        emit("kde2d", "x:y", f"density_{i}_{j}", z[i, j])

# ---------------------------------------------------------------- record_level_change
for col in cols:
    x, y = conf[col].to_numpy(), rows[col].to_numpy()
    if col in num:
        same = (x == y) | (np.isnan(x) & np.isnan(y))
        both = ~np.isnan(x) & ~np.isnan(y)
        # -9 is a declared missing code in the test: a change between -9 and NA counts, -9 vs -9 not.
        emit("record_level_change", col, "records_changed", np.sum(~same))
        xm = np.where(x == -9, np.nan, x)
        ym = np.where(y == -9, np.nan, y)
        both = ~np.isnan(xm) & ~np.isnan(ym)
        sse = np.sum((xm[both] - ym[both]) ** 2)
        emit("record_level_change", col, "mse", sse / both.sum())
        emit("record_level_change", col, "r_squared", 1 - sse / np.sum((xm[both] - xm[both].mean()) ** 2))
    else:
        same = np.array([u == v for u, v in zip(x, y)])
        emit("record_level_change", col, "records_changed", np.sum(~same))

with open(os.path.join(HERE, "golden.tsv"), "w") as f:
    f.write("\n".join(out) + "\n")
print(len(out), "golden values")
