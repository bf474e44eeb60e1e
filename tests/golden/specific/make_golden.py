#!/usr/bin/python3
"""Golden values for the specific-utility tests (analysis_inference_comparison, src/stats/ols,
glm, combining, model_matrix).

Run with Debian's python (python3-statsmodels, python3-pandas, python3-scipy, python3-numpy):
    /usr/bin/python3 tests/golden/specific/make_golden.py
It writes, next to itself: conf.csv, syn_1.csv .. syn_3.csv (small data with missing values and
categorical columns) and golden.json (what statsmodels and a direct numpy transcription of seed
000's formulas give on them).

Design matrices are built here by hand with R's conventions (treatment contrasts against the first
sorted level, R's term order and column names), independently of the C++ formula code; the C++
test checks that its column names and order match these.
"""
import json
import os

import numpy as np
import pandas as pd
import scipy.stats as st
import statsmodels.api as sm

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240611)
N = 400
REGIONS = ["north", "south", "east", "west"]  # sorted: east, north, south, west


def draw(n, shift=0.0):
    x1 = np.round(rng.normal(40, 10, n), 1)
    x2 = rng.uniform(0, 5, n)
    region = rng.choice(REGIONS, n, p=[0.4, 0.3, 0.2, 0.1])
    urban = rng.choice(["no", "yes"], n, p=[0.35, 0.65])
    reg_eff = pd.Series(region).map({"east": 0.0, "north": 0.2, "south": -0.15, "west": 0.3}).to_numpy()
    mu = 1 + 0.02 * x1 - 0.0002 * x1 ** 2 + reg_eff + 0.1 * x2 + 0.05 * (urban == "yes") * x2 + shift
    y = np.exp(mu + rng.normal(0, 0.3, n))
    eta = -2 + 0.03 * x1 + 2 * reg_eff + 0.2 * x2
    bought = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    status = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-(0.5 - 0.02 * (x1 - 40) + 0.4 * (urban == "yes")))), "yes", "no")
    df = pd.DataFrame({"y": np.round(y, 6), "x1": x1, "x2": np.round(x2, 6), "region": region,
                       "urban": urban, "bought": bought, "status": status})
    # Missing values: y, region and x2 in a few rows each.
    for col, k in [("y", 9), ("region", 6), ("x2", 5)]:
        idx = rng.choice(n, k, replace=False)
        df[col] = df[col].astype(object)
        df.loc[idx, col] = np.nan
    return df


conf = draw(N)
syns = [draw(N, shift=0.01 * (r + 1)) for r in range(3)]
conf.to_csv(os.path.join(HERE, "conf.csv"), index=False, na_rep="NA")
for r, s in enumerate(syns):
    s.to_csv(os.path.join(HERE, f"syn_{r + 1}.csv"), index=False, na_rep="NA")
# Read back exactly as written, so both sides see the same rounded numbers.
conf = pd.read_csv(os.path.join(HERE, "conf.csv"))
syns = [pd.read_csv(os.path.join(HERE, f"syn_{r + 1}.csv")) for r in range(3)]

LEVELS = sorted(REGIONS)


def design(df, which):
    """R's model.matrix for the formulas used in the tests; returns (names, X, y, rows_dropped)."""
    if which == "lm_full":
        # log(y) ~ x1 + I(x1^2) + factor(region) + x1:x2 + urban*x2
        used = ["y", "x1", "x2", "region", "urban"]
        d = df.dropna(subset=used)
        cols = {"(Intercept)": np.ones(len(d)), "x1": d.x1, "I(x1^2)": d.x1 ** 2}
        for lev in LEVELS[1:]:
            cols["factor(region)" + lev] = (d.region == lev).astype(float)
        cols["urbanyes"] = (d.urban == "yes").astype(float)
        cols["x2"] = d.x2
        cols["x1:x2"] = d.x1 * d.x2
        # R orders the variables of an interaction by first appearance in the formula (x2 appears
        # in x1:x2 before urban), so urban*x2 gives the term x2:urban.
        cols["x2:urbanyes"] = (d.urban == "yes") * d.x2
        y = np.log(d.y.astype(float))
    elif which == "lm_noint":
        # y ~ factor(region) + x1 - 1: every level of region, no intercept.
        used = ["y", "region", "x1"]
        d = df.dropna(subset=used)
        cols = {}
        for lev in LEVELS:
            cols["factor(region)" + lev] = (d.region == lev).astype(float)
        cols["x1"] = d.x1
        y = d.y.astype(float)
    elif which == "logit":
        # bought ~ x1 + factor(region) + x2
        used = ["bought", "x1", "region", "x2"]
        d = df.dropna(subset=used)
        cols = {"(Intercept)": np.ones(len(d)), "x1": d.x1}
        for lev in LEVELS[1:]:
            cols["factor(region)" + lev] = (d.region == lev).astype(float)
        cols["x2"] = d.x2
        y = d.bought.astype(float)
    elif which == "logit_cat":
        # status ~ x1 + urban   (status: no/yes, 1 = yes)
        used = ["status", "x1", "urban"]
        d = df.dropna(subset=used)
        cols = {"(Intercept)": np.ones(len(d)), "x1": d.x1, "urbanyes": (d.urban == "yes").astype(float)}
        y = (d.status == "yes").astype(float)
    X = pd.DataFrame(cols).to_numpy(dtype=float)
    return list(cols.keys()), X, y.to_numpy(dtype=float), len(df) - len(d)


def fit(df, which):
    names, X, y, dropped = design(df, which)
    if which.startswith("lm"):
        res = sm.OLS(y, X).fit()
        df_resid = float(res.df_resid)
        ci = res.conf_int(0.05)
    else:
        res = sm.GLM(y, X, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200)
        df_resid = None
        ci = res.conf_int(0.05)
    return {"names": names, "beta": list(map(float, res.params)), "se": list(map(float, res.bse)),
            "lower": list(map(float, ci[:, 0])), "upper": list(map(float, ci[:, 1])),
            "rows_used": int(len(y)), "rows_dropped": int(dropped), "df_resid": df_resid}


# ---- combining rules: a direct transcription of seed 000's formulas ----
def combine(q, v, rule, n_ratio=1.0, level=0.95):
    q = np.asarray(q, float)
    v = np.asarray(v, float)
    m = len(q)
    qbar = q.mean()
    b = q.var(ddof=1)
    vbar = v.mean()
    if rule == "partial":
        T = b / m + vbar
        nu = (m - 1) * (1 + vbar / (b / m)) ** 2
    else:
        Tf = (1 + 1 / m) * b - vbar
        if Tf > 0:
            T = Tf
            nu = (m - 1) * (1 - vbar / ((1 + 1 / m) * b)) ** 2
        else:  # Reiter's T_f* with delta = 1; normal interval (documented choice)
            T = max(0.0, Tf) + n_ratio * vbar
            nu = np.inf
    t = st.norm.ppf(0.5 + level / 2) if np.isinf(nu) else st.t.ppf(0.5 + level / 2, nu)
    return {"estimate": qbar, "b": b, "vbar": vbar, "T": T, "df": (None if np.isinf(nu) else nu),
            "lower": qbar - t * np.sqrt(T), "upper": qbar + t * np.sqrt(T)}


def overlap(c, s, floor):
    li, ui = max(c[0], s[0]), min(c[1], s[1])
    if floor and li > ui:
        return 0.0
    return (ui - li) / (2 * (c[1] - c[0])) + (ui - li) / (2 * (s[1] - s[0]))


def mean_est(x):
    x = x[~np.isnan(x)]
    return x.mean(), x.var(ddof=1) / len(x), len(x)


def quantile_est(x, p):
    x = np.sort(x[~np.isnan(x)])
    n = len(x)
    q = np.quantile(x, p)  # linear = R type 7
    iqr = np.quantile(x, 0.75) - np.quantile(x, 0.25)
    lo = min(x.std(ddof=1), iqr / 1.34)
    h = 0.9 * lo * n ** -0.2
    f = st.norm.pdf((q - x) / h).sum() / (n * h)
    return q, p * (1 - p) / (n * f * f), n


golden = {"fits": {}, "combining": [], "metric": {}}
for which in ["lm_full", "lm_noint", "logit", "logit_cat"]:
    golden["fits"][which] = fit(conf, which)

# Combining-rule cases (q, v arrays), both rules, including T_f < 0.
cases = [
    ([10112.3, 10090.1, 10150.7, 10080.2, 10121.9], [21000.0, 22500.0, 20800.0, 21900.0, 22100.0]),
    ([0.041, 0.0395, 0.0428, 0.0402, 0.0419, 0.0411], [1.1e-6, 1.3e-6, 0.9e-6, 1.2e-6, 1.0e-6, 1.1e-6]),
    ([1.0, 1.8, 0.3], [0.05, 0.04, 0.06]),
]
for q, v in cases:
    golden["combining"].append({"q": q, "v": v, "partial": combine(q, v, "partial"),
                                "full": combine(q, v, "full", n_ratio=0.8)})

# End-to-end: analysis_inference_comparison on conf.csv vs syn_1..3 (partial and full rules).
analyses = {
    "wage": ("lm_full", "lm: log(y) ~ x1 + I(x1^2) + factor(region) + x1:x2 + urban*x2"),
    "buy": ("logit", "glm_logit: bought ~ x1 + factor(region) + x2"),
}
for rule in ["partial", "full"]:
    out = {}
    for name, (which, _) in analyses.items():
        cf = fit(conf, which)
        sf = [fit(s, which) for s in syns]
        n_ratio = np.mean([f["rows_used"] for f in sf]) / cf["rows_used"]
        for k, term in enumerate(cf["names"]):
            c = combine([f["beta"][k] for f in sf], [f["se"][k] ** 2 for f in sf], rule, n_ratio)
            ci = (cf["lower"][k], cf["upper"][k])
            si = (c["lower"], c["upper"])
            out[name + ":" + term] = {
                "confidential_estimate": cf["beta"][k], "confidential_lower": ci[0],
                "confidential_upper": ci[1], "synthetic_estimate": c["estimate"],
                "synthetic_lower": si[0], "synthetic_upper": si[1],
                "ci_overlap": overlap(ci, si, True), "ci_overlap_signed": overlap(ci, si, False),
                "standardized_difference": (c["estimate"] - cf["beta"][k]) / cf["se"][k]}
    # mean of y (t with n-1 df), 0.9 quantile of x1 (normal, KDE variance), proportions of region.
    xs = [s.y.to_numpy(dtype=float) for s in syns]
    qc, vc, nc = mean_est(conf.y.to_numpy(dtype=float))
    t = st.t.ppf(0.975, nc - 1)
    ci = (qc - t * np.sqrt(vc), qc + t * np.sqrt(vc))
    c = combine([mean_est(x)[0] for x in xs], [mean_est(x)[1] for x in xs], rule,
                np.mean([mean_est(x)[2] for x in xs]) / nc)
    out["avg_y:y"] = {"confidential_estimate": qc, "confidential_lower": ci[0], "confidential_upper": ci[1],
                      "synthetic_estimate": c["estimate"], "synthetic_lower": c["lower"],
                      "synthetic_upper": c["upper"], "ci_overlap": overlap(ci, (c["lower"], c["upper"]), True),
                      "ci_overlap_signed": overlap(ci, (c["lower"], c["upper"]), False)}
    qc, vc, nc = quantile_est(conf.x1.to_numpy(dtype=float), 0.9)
    z = st.norm.ppf(0.975)
    ci = (qc - z * np.sqrt(vc), qc + z * np.sqrt(vc))
    ests = [quantile_est(s.x1.to_numpy(dtype=float), 0.9) for s in syns]
    c = combine([e[0] for e in ests], [e[1] for e in ests], rule, 1.0)
    out["p90_x1:x1@0.9"] = {"confidential_estimate": qc, "confidential_lower": ci[0], "confidential_upper": ci[1],
                            "synthetic_estimate": c["estimate"], "synthetic_lower": c["lower"],
                            "synthetic_upper": c["upper"]}
    for lev in LEVELS:
        def prop(df):
            r = df.region.dropna()
            p = float((r == lev).mean())
            return p, p * (1 - p) / len(r), len(r)
        pc, vc, nc = prop(conf)
        ci = (pc - z * np.sqrt(vc), pc + z * np.sqrt(vc))
        ests = [prop(s) for s in syns]
        c = combine([e[0] for e in ests], [e[1] for e in ests], rule, np.mean([e[2] for e in ests]) / nc)
        out["share_region:" + lev] = {"confidential_estimate": pc, "confidential_lower": ci[0],
                                      "confidential_upper": ci[1], "synthetic_estimate": c["estimate"],
                                      "synthetic_lower": c["lower"], "synthetic_upper": c["upper"]}
    golden["metric"][rule] = out


def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [clean(v) for v in o]
    if isinstance(o, (np.floating, float)):
        return None if not np.isfinite(o) else float(o)
    if isinstance(o, np.integer):
        return int(o)
    return o


with open(os.path.join(HERE, "golden.json"), "w") as f:
    json.dump(clean(golden), f, indent=1)
print("wrote golden.json")
