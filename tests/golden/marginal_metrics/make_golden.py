#!/usr/bin/python3
"""Golden values for the general-utility metrics (column_summaries,
ratio_of_counts, wasserstein_distance, moments_and_covariance, mean_in_confidence_interval,
coverage_and_validity) and the stats kernels (quantiles, KDE, t distribution).

Independent implementations: numpy (percentile 'linear' = type 7), scipy.stats (skew, kurtosis
with bias=True, wasserstein_distance, gaussian_kde, t, ttest_rel), pandas (value_counts,
DataFrame.cov / corr with pairwise-complete observations) and the SDMetrics formulas as
documented (RangeCoverage, BoundaryAdherence, CategoryCoverage, CategoryAdherence,
MissingValueSimilarity), written here from the documentation, not from synthaudit.

Run from anywhere with Debian's python (numpy 1.24, scipy 1.10, pandas 1.5):
    /usr/bin/python3 tests/golden/marginal_metrics/make_golden.py
It rewrites small_conf.csv, small_syn.csv, small_syn_paired.csv, golden.tsv and stats.tsv next to
itself. golden.tsv rows: dataset, metric, params (JSON), statistic, scope, value ("NA" = NaN).
"""
import json
import math
import os

import numpy as np
import pandas as pd
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "data", "sd2011"))
if not os.path.isdir(SHARED):
    SHARED = "/work/shared/data/sd2011"
MISSING_SPELLINGS = {"", "NA", "NaN", "null"}  # synthaudit ReadSettings.missing_values
PCTS = [1, 5, 10, 25, 50, 75, 90, 95, 99]


# ---------------------------------------------------------------- data
def make_small():
    rng = np.random.RandomState(20240611)
    nc, ns = 80, 70

    def frame(n, shift, scale, cat_levels, cat_p):
        x = rng.normal(50 + shift, 10 * scale, n)
        x[rng.choice(n, 5, replace=False)] = np.nan
        y = rng.poisson(1.5, n).astype(float)
        z = np.round(rng.lognormal(1.0, 0.8, n), 2)
        cat = rng.choice(cat_levels, n, p=cat_p).astype(object)
        cat[rng.choice(n, 4, replace=False)] = None
        grp = rng.choice(["yes", "no"], n, p=[0.3, 0.7]).astype(object)
        const = np.full(n, 7.0)
        return pd.DataFrame({"x": x, "y": y, "z": z, "cat": cat, "grp": grp, "const": const})

    conf = frame(nc, 0, 1, ["a", "b", "c", "d"], [0.4, 0.3, 0.2, 0.1])
    syn = frame(ns, 2, 1.2, ["a", "b", "c", "e"], [0.35, 0.35, 0.2, 0.1])
    syn.loc[3, "grp"] = None  # a missing value where the confidential column has none
    syn.loc[[5, 9], "z"] = np.nan
    # Paired ("partial synthesis"): the confidential rows with noise and a few changed values.
    paired = conf.copy()
    paired["x"] = conf["x"] + rng.normal(0.5, 2.0, nc)
    paired.loc[[0, 1], "x"] = np.nan
    paired["z"] = np.round(conf["z"] * 1.05, 2)
    paired["y"] = conf["y"] + rng.choice([0, 0, 0, 1], nc)
    return conf, syn, paired


def write_csv(df, path):
    df.to_csv(path, index=False, na_rep="NA")  # floats as repr: shortest round-trip


def read_like_synthaudit(path, missing_codes=None):
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    out = {}
    for col in raw.columns:
        vals = [None if v in MISSING_SPELLINGS else v for v in raw[col]]
        try:
            num = np.array([np.nan if v is None else float(v) for v in vals])
            if missing_codes and col in missing_codes:
                for code in missing_codes[col]:
                    num[num == code] = np.nan
            out[col] = num
        except ValueError:
            out[col] = pd.Series(vals, dtype=object)
    return out


def kinds_of(conf):
    return {c: ("numeric" if isinstance(v, np.ndarray) else "categorical") for c, v in conf.items()}


# ---------------------------------------------------------------- metrics
rows = []


def emit(dataset, metric, params, statistic, scope, value):
    rows.append((dataset, metric, json.dumps(params, sort_keys=True), statistic, scope, value))


def nn(x):
    return x[~np.isnan(x)]


def smd(diff, vc, vs):
    pooled = math.sqrt((vc + vs) / 2) if not (math.isnan(vc) or math.isnan(vs)) else math.nan
    return diff / pooled if pooled > 0 else math.nan


def column_summaries(ds, conf, syn):
    m, p = "column_summaries", {"plots": False}
    for col, kind in kinds_of(conf).items():
        if kind == "numeric":
            a, b = conf[col], syn[col]
            sa, sb = {}, {}
            for s, v in ((sa, a), (sb, b)):
                x = nn(v)
                s["n"] = len(x)
                s["missing"] = int(np.isnan(v).sum())
                s["missing_share"] = s["missing"] / len(v)
                s["mean"] = x.mean()
                s["variance"] = x.var(ddof=1)
                s["sd"] = x.std(ddof=1)
                if x.var() > 0:
                    s["skewness_g1"] = stats.skew(x, bias=True)
                    s["excess_kurtosis_g2"] = stats.kurtosis(x, fisher=True, bias=True)
                else:  # synthaudit: NaN for zero variance (scipy 1.10 returns NaN too, with a warning)
                    s["skewness_g1"] = s["excess_kurtosis_g2"] = math.nan
                s["min"], s["max"] = x.min(), x.max()
                for q, val in zip(PCTS, np.percentile(x, PCTS)):  # method='linear' (type 7)
                    s["p%02d" % q] = val
                s["zeros"] = int((x == 0).sum())
                s["zero_share"] = s["zeros"] / len(x)
            sdc = sa["sd"]
            for stat in ["n", "missing", "missing_share", "mean", "sd", "skewness_g1",
                         "excess_kurtosis_g2", "min"] + ["p%02d" % q for q in PCTS] + ["max", "zeros", "zero_share"]:
                vc, vs = sa[stat], sb[stat]
                emit(ds, m, p, "conf_" + stat, col, vc)
                emit(ds, m, p, "syn_" + stat, col, vs)
                emit(ds, m, p, "diff_" + stat, col, vs - vc)
                if stat in ("missing_share", "zero_share"):
                    emit(ds, m, p, "std_diff_" + stat, col, smd(vs - vc, vc * (1 - vc), vs * (1 - vs)))
                elif stat == "mean":
                    emit(ds, m, p, "std_diff_mean", col, smd(vs - vc, sa["variance"], sb["variance"]))
                elif stat in ("sd", "min", "max") or stat.startswith("p"):
                    emit(ds, m, p, "std_diff_" + stat, col, (vs - vc) / sdc if sdc > 0 else math.nan)
        else:
            a = conf[col].fillna("NA")
            b = syn[col].fillna("NA")
            ca, cb = a.value_counts(), b.value_counts()
            best = -1.0
            for level in sorted(set(ca.index) | set(cb.index)):
                na_, nb_ = int(ca.get(level, 0)), int(cb.get(level, 0))
                pa, pb = na_ / len(a), nb_ / len(b)
                scope = f"{col}={level}"
                d = smd(pb - pa, pa * (1 - pa), pb * (1 - pb))
                emit(ds, m, p, "conf_count", scope, na_)
                emit(ds, m, p, "syn_count", scope, nb_)
                emit(ds, m, p, "conf_share", scope, pa)
                emit(ds, m, p, "syn_share", scope, pb)
                emit(ds, m, p, "diff_share", scope, pb - pa)
                emit(ds, m, p, "std_diff_share", scope, d)
                if not math.isnan(d):
                    best = max(best, abs(d))
            if best >= 0:
                emit(ds, m, p, "max_abs_std_diff_share", col, best)


def round_half_away(x, digits):
    scale = 10.0 ** digits
    return np.sign(x) * np.floor(np.abs(x * scale) + 0.5) / scale


def ratio_of_counts(ds, conf, syn, digits, missing="level"):
    m = "ratio_of_counts"
    p = {"digits": digits, "missing": missing}
    per_col = []
    for col, kind in kinds_of(conf).items():
        if kind == "numeric":
            a = pd.Series(round_half_away(conf[col], digits) + 0.0)
            b = pd.Series(round_half_away(syn[col], digits) + 0.0)
        else:
            a, b = conf[col], syn[col]
        ca = a.value_counts(dropna=(missing == "exclude"))
        cb = b.value_counts(dropna=(missing == "exclude"))
        # NaN keys: value_counts(dropna=False) gives one NaN entry; map it to a sentinel
        ca.index = ["<NA>" if pd.isna(k) else k for k in ca.index]
        cb.index = ["<NA>" if pd.isna(k) else k for k in cb.index]
        pa, pb = ca / ca.sum(), cb / cb.sum()
        levels = set(pa.index) | set(pb.index)
        ratios = []
        one = 0
        for l in sorted(levels, key=str):  # fixed order: set order varies with PYTHONHASHSEED
            x, y = pa.get(l, 0.0), pb.get(l, 0.0)
            if x == 0 or y == 0:
                one += 1
            ratios.append(min(x, y) / max(x, y))
        roc = float(np.mean(ratios))
        emit(ds, m, p, "ratio_of_counts", col, roc)
        emit(ds, m, p, "levels", col, len(levels))
        emit(ds, m, p, "levels_in_one_dataset_only", col, one)
        per_col.append(roc)
    emit(ds, m, p, "mean_ratio_of_counts", "all", float(np.mean(per_col)))


def wasserstein(ds, conf, syn):
    m, p = "wasserstein_distance", {"plots": False}
    iqr_s, rng_s = [], []
    for col, kind in kinds_of(conf).items():
        if kind != "numeric":
            continue
        a, b = nn(conf[col]), nn(syn[col])
        w = stats.wasserstein_distance(a, b)
        q75, q25 = np.percentile(a, [75, 25])
        iqr, rng = q75 - q25, a.max() - a.min()
        emit(ds, m, p, "wasserstein", col, w)
        emit(ds, m, p, "wasserstein_iqr_scaled", col, w / iqr if iqr > 0 else math.nan)
        emit(ds, m, p, "wasserstein_range_scaled", col, w / rng if rng > 0 else math.nan)
        if iqr > 0:
            iqr_s.append(w / iqr)
        if rng > 0:
            rng_s.append(w / rng)
    emit(ds, m, p, "mean_wasserstein_iqr_scaled", "all", float(np.mean(iqr_s)))
    emit(ds, m, p, "mean_wasserstein_range_scaled", "all", float(np.mean(rng_s)))


def moments_cov(ds, conf, syn):
    m, p = "moments_and_covariance", {"plots": False}
    cols = [c for c, k in kinds_of(conf).items() if k == "numeric"]
    dc = pd.DataFrame({c: conf[c] for c in cols})
    dsn = pd.DataFrame({c: syn[c] for c in cols})
    for c in cols:
        mc, ms = np.nanmean(dc[c]), np.nanmean(dsn[c])
        vc, vs = np.nanvar(dc[c], ddof=1), np.nanvar(dsn[c], ddof=1)
        emit(ds, m, p, "conf_mean", c, mc)
        emit(ds, m, p, "syn_mean", c, ms)
        emit(ds, m, p, "diff_mean", c, ms - mc)
        emit(ds, m, p, "conf_variance", c, vc)
        emit(ds, m, p, "syn_variance", c, vs)
        emit(ds, m, p, "diff_variance", c, vs - vc)
        emit(ds, m, p, "variance_ratio", c, vs / vc if vc > 0 else math.nan)
    Cc, Cs = dc.cov(), dsn.cov()  # pairwise complete, ddof=1
    Rc, Rs = dc.corr(), dsn.corr()
    diffs = []
    for i in range(len(cols)):
        for j in range(i + 1, len(cols)):
            a, b = cols[i], cols[j]
            sc = f"{a}:{b}"
            emit(ds, m, p, "conf_covariance", sc, Cc.loc[a, b])
            emit(ds, m, p, "syn_covariance", sc, Cs.loc[a, b])
            emit(ds, m, p, "diff_covariance", sc, Cs.loc[a, b] - Cc.loc[a, b])
            emit(ds, m, p, "conf_correlation", sc, Rc.loc[a, b])
            emit(ds, m, p, "syn_correlation", sc, Rs.loc[a, b])
            d = Rs.loc[a, b] - Rc.loc[a, b]
            emit(ds, m, p, "diff_correlation", sc, d)
            if not math.isnan(d):
                diffs.append(abs(d))
    if not (Cc.isna().values.any() or Cs.isna().values.any()):
        emit(ds, m, p, "relative_covariance_difference", "all",
             np.linalg.norm((Cs - Cc).values, "fro") / np.linalg.norm(Cc.values, "fro"))
    if diffs:
        emit(ds, m, p, "max_abs_correlation_difference", "all", max(diffs))
        emit(ds, m, p, "mean_abs_correlation_difference", "all", float(np.mean(diffs)))


def mean_ci(ds, conf, syn, paired, alpha=0.05, interval="t"):
    m = "mean_in_confidence_interval"
    p = {"alpha": alpha, "interval": interval, "plots": False}
    inside, count, rej, tested = 0, 0, 0, 0
    for col, kind in kinds_of(conf).items():
        if kind != "numeric":
            continue
        a, b = nn(conf[col]), nn(syn[col])
        n = len(a)
        se = a.std(ddof=1) / math.sqrt(n)
        q = stats.t.ppf(1 - alpha / 2, n - 1) if interval == "t" else stats.norm.ppf(1 - alpha / 2)
        lo, hi = a.mean() - q * se, a.mean() + q * se
        emit(ds, m, p, "conf_mean", col, a.mean())
        emit(ds, m, p, "conf_ci_lower", col, lo)
        emit(ds, m, p, "conf_ci_upper", col, hi)
        emit(ds, m, p, "syn_mean", col, b.mean())
        ins = 1.0 if lo <= b.mean() <= hi else 0.0
        emit(ds, m, p, "syn_mean_inside_conf_ci", col, ins)
        emit(ds, m, p, "mean_difference_in_conf_se", col, (b.mean() - a.mean()) / se if se > 0 else math.nan)
        inside += ins
        count += 1
        if paired:
            x, y = conf[col], syn[col]
            ok = ~np.isnan(x) & ~np.isnan(y)
            d = y[ok] - x[ok]
            emit(ds, m, p, "paired_n", col, int(ok.sum()))
            emit(ds, m, p, "paired_mean_difference", col, d.mean())
            if d.std() > 0:
                r = stats.ttest_rel(y[ok], x[ok])
                emit(ds, m, p, "paired_t", col, r.statistic)
                emit(ds, m, p, "paired_p_value", col, r.pvalue)
                tested += 1
                rej += r.pvalue < alpha
            else:  # all differences equal: synthaudit reports t = NaN (all zero) and p = NaN
                emit(ds, m, p, "paired_t", col, math.nan)
                emit(ds, m, p, "paired_p_value", col, math.nan)
            emit(ds, m, p, "paired_df", col, int(ok.sum()) - 1)
    emit(ds, m, p, "share_of_means_inside_conf_ci", "all", inside / count)
    if paired and tested:
        emit(ds, m, p, "share_paired_tests_rejecting", "all", rej / tested)


def coverage(ds, conf, syn):
    m, p = "coverage_and_validity", {}
    sums = {k: [] for k in ("mvs", "range", "bound", "cat", "adh")}
    new_total = 0
    for col, kind in kinds_of(conf).items():
        if kind == "numeric":
            a, b = pd.Series(conf[col]), pd.Series(syn[col])
        else:
            a, b = conf[col], syn[col]
        mc, ms = a.isna().mean(), b.isna().mean()
        emit(ds, m, p, "conf_missing_share", col, mc)
        emit(ds, m, p, "syn_missing_share", col, ms)
        emit(ds, m, p, "diff_missing_share", col, ms - mc)
        emit(ds, m, p, "missing_value_similarity", col, 1 - abs(ms - mc))  # MissingValueSimilarity
        sums["mvs"].append(1 - abs(ms - mc))
        if kind == "numeric":
            r, s = a.dropna(), b.dropna()
            if r.max() > r.min():  # RangeCoverage as documented by SDMetrics
                span = r.max() - r.min()
                score = 1 - (max((s.min() - r.min()) / span, 0) + max((r.max() - s.max()) / span, 0))
                score = max(score, 0.0)
                sums["range"].append(score)
            else:
                score = math.nan
            emit(ds, m, p, "range_coverage", col, score)
            ba = s.between(r.min(), r.max()).sum() / len(s)  # BoundaryAdherence
            emit(ds, m, p, "boundary_adherence", col, ba)
            sums["bound"].append(ba)
        else:
            real = set(a.dropna())
            synl = set(b.dropna())
            cc = len(real & synl) / len(real)  # CategoryCoverage as documented
            emit(ds, m, p, "category_coverage", col, cc)
            sums["cat"].append(cc)
            valid = b.isin(list(real))
            if a.isna().any():
                valid = valid | b.isna()
            emit(ds, m, p, "category_adherence", col, valid.mean())  # CategoryAdherence
            sums["adh"].append(valid.mean())
            new = synl - real
            emit(ds, m, p, "new_categories", col, len(new))
            emit(ds, m, p, "new_category_row_share", col, b.isin(list(new)).mean())
            new_total += len(new)
    emit(ds, m, p, "mean_missing_value_similarity", "all", np.mean(sums["mvs"]))
    emit(ds, m, p, "mean_range_coverage", "all", np.mean(sums["range"]))
    emit(ds, m, p, "mean_boundary_adherence", "all", np.mean(sums["bound"]))
    emit(ds, m, p, "mean_category_coverage", "all", np.mean(sums["cat"]))
    emit(ds, m, p, "mean_category_adherence", "all", np.mean(sums["adh"]))
    emit(ds, m, p, "new_categories", "all", new_total)


def all_metrics(ds, conf, syn, paired=False):
    column_summaries(ds, conf, syn)
    ratio_of_counts(ds, conf, syn, 0)
    ratio_of_counts(ds, conf, syn, 1, "exclude")
    ratio_of_counts(ds, conf, syn, -1)
    wasserstein(ds, conf, syn)
    moments_cov(ds, conf, syn)
    mean_ci(ds, conf, syn, paired)
    mean_ci(ds, conf, syn, paired, alpha=0.1, interval="normal")
    coverage(ds, conf, syn)


def fmt(v):
    if isinstance(v, (bool, np.bool_)):
        v = float(v)
    v = float(v)
    return "NA" if math.isnan(v) else repr(v)


def main():
    conf, syn, paired = make_small()
    write_csv(conf, os.path.join(HERE, "small_conf.csv"))
    write_csv(syn, os.path.join(HERE, "small_syn.csv"))
    write_csv(paired, os.path.join(HERE, "small_syn_paired.csv"))
    c = read_like_synthaudit(os.path.join(HERE, "small_conf.csv"))
    all_metrics("small", c, read_like_synthaudit(os.path.join(HERE, "small_syn.csv")))
    all_metrics("small_paired", c, read_like_synthaudit(os.path.join(HERE, "small_syn_paired.csv")), paired=True)
    codes = {"income": [-8.0]}
    o = read_like_synthaudit(os.path.join(SHARED, "orig.csv"), codes)
    s = read_like_synthaudit(os.path.join(SHARED, "syn.csv"), codes)
    all_metrics("sd2011", o, s)
    with open(os.path.join(HERE, "golden.tsv"), "w") as f:
        f.write("dataset\tmetric\tparams\tstatistic\tscope\tvalue\n")
        for r in rows:
            f.write("\t".join(list(r[:5]) + [fmt(r[5])]) + "\n")

    # Stats kernels: type-7 quantiles, Gaussian KDE (scipy bandwidths), t quantiles, W1.
    x = nn(c["x"])
    with open(os.path.join(HERE, "stats.tsv"), "w") as f:
        f.write("kind\targ\tvalue\n")
        for q in [0, 0.013, 0.25, 0.5, 0.777, 1]:
            f.write(f"quantile\t{q!r}\t{fmt(np.percentile(x, 100 * q))}\n")
        grid = np.linspace(x.min() - 10, x.max() + 10, 11)
        for rule in ("scott", "silverman"):
            kde = stats.gaussian_kde(x, bw_method=rule)
            f.write(f"bandwidth_{rule}\t0\t{fmt(math.sqrt(kde.covariance[0, 0]))}\n")
            for g, d in zip(grid, kde(grid)):
                f.write(f"kde_{rule}\t{g!r}\t{fmt(d)}\n")
        for df in (1, 4.5, 30, 1000):
            f.write(f"t_quantile_0.975\t{df!r}\t{fmt(stats.t.ppf(0.975, df))}\n")
            f.write(f"t_pvalue_2.1\t{df!r}\t{fmt(2 * stats.t.sf(2.1, df))}\n")
    print(f"{len(rows)} golden values")


if __name__ == "__main__":
    main()
