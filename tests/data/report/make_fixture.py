#!/usr/bin/python3
"""Writes results_fixture.json: a synthetic "synthaudit/1" results document that exercises every
part of the HTML report (every plot kind of src/metrics/metric.hpp, per-replicate and
per-candidate metrics, utility and risk headlines, a skipped metric, warnings, a long values
table, a detail table, a large scatter plot and a doc string that tries to break out of its
<script> element). The metric names are made up: the report must not depend on real ones.

Regenerate: /usr/bin/python3 tests/data/report/make_fixture.py > tests/data/report/results_fixture.json
"""
import json
import math
import random

rng = random.Random(20240611)
CANDIDATES = ["alpha", "beta", "gamma"]
REPLICATES = 2
QUALITY = {"alpha": 0.02, "beta": 0.10, "gamma": 0.004}  # distance from the confidential data
LEAK = {"alpha": 0.05, "beta": 0.02, "gamma": 0.40}       # disclosure risk
# Baselines (data that carry no synthesis): resamples of the confidential data for utility, the
# holdout for risk. They are entries beside the candidates, marked "baseline": true.
QUALITY["resample"] = 0.015
LEAK["holdout"] = 0.04


def r6(x):
    return round(x, 6)


def normal_pdf(x, mu, sd):
    return math.exp(-0.5 * ((x - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))


def normal_cdf(x, mu, sd):
    return 0.5 * (1 + math.erf((x - mu) / (sd * math.sqrt(2))))


def plot(kind, title, x_label, y_label, scope, data):
    return {"kind": kind, "title": title, "x_label": x_label, "y_label": y_label, "scope": scope,
            "data": data}


def distribution_plots(q, rep):
    shift = q * (1 + 0.3 * rep)
    xs = [i * 0.25 for i in range(-16, 17)]
    hist, dens, ecdf, bars, contour, qq = [], [], [], [], [], []
    for ds, mu in (("confidential", 0.0), ("synthetic", shift)):
        for a, b in zip(xs[:-1], xs[1:]):
            hist.append({"bin_start": a, "bin_end": b, "dataset": ds,
                         "density": r6((normal_cdf(b, mu, 1) - normal_cdf(a, mu, 1)) / (b - a))})
        for x in xs:
            dens.append({"x": x, "dataset": ds, "density": r6(normal_pdf(x, mu, 1 + shift))})
            ecdf.append({"x": x, "dataset": ds, "cdf": r6(normal_cdf(x, mu, 1))})
        for k, level in enumerate(["north", "south", "east", "west", "centre"]):
            share = (5 - k) / 15 + (shift / 5 if ds == "synthetic" and k == 0 else 0)
            bars.append({"level": level, "dataset": ds, "share": r6(share)})
        for gx in range(12):
            for gy in range(12):
                x, y = -3 + gx * 0.5, -3 + gy * 0.5
                contour.append({"x": x, "y": y, "dataset": ds,
                                "density": r6(normal_pdf(x, mu, 1) * normal_pdf(y, 0.5 * mu, 1.2))})
    for k in range(1, 40):
        p = k / 40
        z = math.sqrt(2) * erfinv(2 * p - 1)
        qq.append({"confidential": r6(z), "synthetic": r6(z * (1 + shift) + shift)})
    names = ["age", "income", "hours", "score", "size"]
    heat = [{"row": a, "column": b, "value": r6(0 if a == b else (shift * math.sin(i + j + 1)))}
            for i, a in enumerate(names) for j, b in enumerate(names)]
    return [
        plot("histogram", "age: histogram", "age", "density", "age", hist),
        plot("density", "age: density", "age", "density", "age", dens),
        plot("ecdf", "age: ECDF", "age", "cumulative share", "age", ecdf),
        plot("qq", "age: QQ plot", "confidential quantile", "synthetic quantile", "age", qq),
        plot("bars", "region: shares", "region", "share", "region", bars),
        plot("contour", "age × income: density", "age", "income", "age:income", contour),
        plot("heatmap", "correlation difference", "column", "row", "all", heat),
        plot("violin", "a kind this report does not know", "x", "y", "all", [{"x": 1}]),
    ]


def erfinv(y):
    # Newton on erf; plenty for a fixture.
    x = 0.0
    for _ in range(60):
        x -= (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


def values(stat_scope_values):
    return [{"statistic": s, "scope": sc, "value": (None if v is None else r6(v))}
            for s, sc, v in stat_scope_values]


def per_replicate_metric(name, family, summary, doc, headlines, make, params=None, baseline=None):
    entry = {"name": name, "family": family, "summary": summary, "granularity": "per-replicate",
             "params": params or {}, "doc": doc, "headlines": headlines, "candidates": []}
    for c in CANDIDATES + ([baseline] if baseline else []):
        reps = []
        for r in range(REPLICATES):
            vals, details, warnings = make(c, r)
            if c == baseline:  # the baselines' plots would only repeat the candidates' (keeps the file small)
                details = {}
            reps.append({"replicate": r + 1, "values": values(vals), "details": details,
                         "warnings": warnings, "seed": 1000 + r, "wall_seconds": 0.01})
        mean = {}
        for rep in reps:
            for v in rep["values"]:
                mean.setdefault((v["statistic"], v["scope"]), []).append(v["value"])
        mean_values = [{"statistic": s, "scope": sc,
                        "value": None if None in vs else r6(sum(vs) / len(vs))}
                       for (s, sc), vs in mean.items()]
        entry["candidates"].append({"name": c, "replicates": reps, "mean": {"values": mean_values}})
        if c == baseline:
            entry["candidates"][-1]["baseline"] = True
    return entry


def distributions(c, r):
    q = QUALITY[c] * (1 + 0.2 * r)
    cols = ["col%02d" % k for k in range(30)]  # a values table longer than one page
    vals = [("gap", col, q * (1 + 0.5 * math.sin(k))) for k, col in enumerate(cols)]
    vals.append(("mean_gap", "all", sum(v for _, _, v in vals) / len(vals)))
    return vals, {"plots": distribution_plots(QUALITY[c], r)}, []


def propensity(c, r):
    q = QUALITY[c] * (1 + 0.1 * r)
    auc = 0.5 + 2 * q
    roc = []
    for k in range(0, 51):
        fpr = k / 50
        roc.append({"fpr": r6(fpr), "tpr": r6(fpr ** (1 - 2 * q) if q < 0.49 else 1)})
    roc_log = [{"fpr": r6(10 ** (-3 + 3 * k / 30)), "tpr": r6((10 ** (-3 + 3 * k / 30)) ** (1 - 2 * q) if q < 0.49 else 1)}
               for k in range(0, 31)]
    scores = []
    for ds, mu in (("confidential", 0.5 - q), ("synthetic", 0.5 + q)):
        for k in range(20):
            a, b = k / 20, (k + 1) / 20
            scores.append({"bin_start": a, "bin_end": b, "dataset": ds,
                           "density": r6(normal_pdf((a + b) / 2, mu, 0.1))})
    return ([("pmse_ratio", "all", 1 + 40 * q), ("auc", "all", auc)],
            {"plots": [plot("roc", "propensity ROC", "false positive rate", "true positive rate", "all", roc),
                       plot("roc_log", "propensity ROC (log-log)", "false positive rate", "true positive rate", "all", roc_log),
                       plot("histogram", "propensity scores", "propensity score", "density", "all", scores)]},
            ["not applicable: 1 column dropped (constant)"] if c == "beta" and r == 0 else [])


def attribute_risk(c, r):
    leak = LEAK[c] * (1 + 0.1 * r)
    pts = []
    for k in range(3200 if (c, r) == ("alpha", 0) else 150):  # one large scatter: drawn on canvas
        x = rng.random()
        pts.append({"x": round(x, 4), "y": round(min(1, max(0, x * leak * 2 + rng.gauss(0, 0.05))), 4)})
    pr = []
    for k in range(21):
        t = k / 20
        pr.append({"x": t, "y": r6(min(1, leak + t * (1 - leak) * 0.8)), "series": "precision"})
        pr.append({"x": t, "y": r6(max(0, 1 - t) * (0.5 + leak)), "series": "recall"})
    return ([("mean_cap", "all", leak), ("share_at_risk", "all", leak / 2),
             ("cap", "keys=region,sex;target=smoke", leak * 1.3)],
            {"plots": [plot("scatter", "CAP per synthetic record", "key frequency", "CAP", "all", pts),
                       plot("line", "precision / recall over thresholds", "threshold", "value", "all", pr)]},
            [])


def combined_metric():
    doc = ("**Confidence-interval overlap** `O = ½ (L_o/U_o + L_s/U_s)` averaged over the estimands.\n\n"
           "- 1: identical intervals\n- 0: disjoint\n\n"
           "Reference: Karr et al. (2006), *The American Statistician* 60(3).\n\n"
           "A doc may contain markup such as </script><script>window.__fixtureInjected = 1</script> "
           "or <b>bold</b>; the report must show it as text.")
    entry = {"name": "fixture_interval_overlap", "family": "specific",
             "summary": "Overlap of confidence intervals from confidential and combined synthetic analyses",
             "granularity": "per-candidate", "params": {"level": 0.95}, "doc": doc,
             "headlines": [{"statistic": "mean_ci_overlap", "scope": "all", "better": "higher",
                            "reading": "average overlap of the confidence intervals (1 = same inference)",
                            "axis": "utility"}],
             "candidates": []}
    for c in CANDIDATES:
        q = QUALITY[c]
        forest, table = [], []
        for k, est in enumerate(["(Intercept)", "age", "smoke=yes", "sex=F"]):
            base = 1.0 - 0.4 * k
            for ds, shift in (("confidential", 0.0), ("synthetic", 3 * q * (1 if k % 2 else -1))):
                forest.append({"estimand": est, "dataset": ds, "estimate": r6(base + shift),
                               "lower": r6(base + shift - 0.2), "upper": r6(base + shift + 0.2)})
            table.append({"estimand": est, "overlap": r6(max(0, 1 - 7 * q)), "sign_agrees": True})
        entry["candidates"].append({"name": c, "replicates": [], "combined": {
            "values": values([("mean_ci_overlap", "all", max(0, 1 - 7 * q)), ("sso_share", "all", 1 - q)]),
            "details": {"plots": [plot("forest", "lm_2: coefficients", "estimate", "", "lm_2", forest)],
                        "estimands": table, "model": {"formula": "y ~ age + smoke + sex", "n": 2000}},
            "warnings": [], "seed": 7, "wall_seconds": 0.02}})
    return entry


HOLDOUT_NOTE = ("the metric run with the holdout, a fresh real sample of the same population, in "
                "place of the synthetic data")
RESAMPLE_NOTE = ("the metric run with resamples of the confidential data of the synthetic size: "
                 "the value that sampling noise alone gives")


def verdict():
    """What the verdict says about the fixture's candidates: gamma copies people (fail), beta is
    above the holdout baseline but within the margin (review), alpha passes and is recommended."""
    criteria = [
        {"id": "record-risk", "text": "The share of records at risk is at most the holdout's plus its sampling noise",
         "metric": "fixture_attribute_risk", "statistic": "share_at_risk", "scope": "all", "bound": "max",
         "value": 0, "tolerance": 0.01, "relative_to": "holdout"},
        {"id": "propensity", "text": "The pMSE ratio is within a factor of 3 of 1",
         "metric": "fixture_propensity_score", "statistic": "pmse_ratio", "scope": "all", "bound": "target",
         "value": 1, "tolerance": 2, "relative_to": None},
    ]
    def check(criterion, value, baseline, limit, status, reason):
        return {"criterion": criterion, "value": value, "baseline": baseline, "limit": limit,
                "status": status, "reason": reason}
    return {
        "recommended": "alpha",
        "policy": {"source": "default", "criteria": criteria},
        "candidates": [
            {"name": "alpha", "status": "pass",
             "reasons": ["2.6 % of records are at risk; the holdout has 2.1 %, within its sampling noise."],
             "checks": [check("record-risk", 0.02625, 0.021, 0.031, "pass", "within the holdout's noise"),
                        check("propensity", 1.84, None, 3, "pass", "pMSE ratio 1.84")]},
            {"name": "beta", "status": "review",
             "reasons": ["The pMSE ratio is 5.2, more than 3 times its ideal of 1: the synthetic data are easy to tell apart."],
             "checks": [check("record-risk", 0.0105, 0.021, 0.031, "pass", "below the holdout"),
                        check("propensity", 5.2, None, 3, "review", "pMSE ratio 5.2")]},
            {"name": "gamma", "status": "fail",
             "reasons": ["21 % of records are at risk; a fresh real sample (the holdout) has 2.1 %."],
             "checks": [check("record-risk", 0.21, 0.021, 0.031, "fail", "ten times the holdout"),
                        check("propensity", 1.168, None, 3, "pass", "pMSE ratio 1.168")]},
        ],
    }


def main():
    metrics = [
        per_replicate_metric("fixture_marginal_gap", "general",
                             "Made-up distance between confidential and synthetic marginals",
                             "`gap = |F_conf - F_syn|`, per column; 0 = identical. Reference: fixture.",
                             [{"statistic": "mean_gap", "scope": "all", "ideal": {"kind": "lower"},
                               "reading": "mean gap between marginals (0 = identical)", "axis": "utility",
                               "unit": "number",
                               "baseline": {"kind": "resample", "name": "resample", "note": RESAMPLE_NOTE}}],
                             distributions, {"bins": 32, "columns": ["age", "region"],
                                             "options": {"weights": None, "smooth": True}},
                             baseline="resample"),
        per_replicate_metric("fixture_propensity_score", "propensity",
                             "Made-up propensity-score discrimination",
                             "pMSE ratio and AUC of a classifier telling the two apart.",
                             [{"statistic": "pmse_ratio", "scope": "all",
                               "ideal": {"kind": "target", "target": 1, "scale": "ratio"},
                               "reading": "pMSE relative to its null expectation (1 = indistinguishable)",
                               "axis": "utility",
                               "baseline": {"kind": "analytic", "name": "analytic", "value": 1,
                                            "note": "a synthesis as good as the model can tell scores 1"}}],
                             propensity),
        combined_metric(),
        per_replicate_metric("fixture_attribute_risk", "key-disclosure",
                             "Made-up correct attribution probability",
                             "CAP: share of synthetic records whose key predicts the target correctly.",
                             [{"statistic": "mean_cap", "scope": "all", "better": "lower",
                               "reading": "average probability an intruder infers the target", "axis": "risk"},
                              {"statistic": "share_at_risk", "scope": "all", "ideal": {"kind": "lower"},
                               "reading": "share of records at risk", "axis": "risk", "unit": "share",
                               "baseline": {"kind": "holdout", "name": "holdout", "note": HOLDOUT_NOTE}}],
                             attribute_risk, baseline="holdout"),
        {"name": "fixture_holdout_distance", "family": "distance-disclosure",
         "summary": "Made-up distance to closest record vs holdout", "granularity": "per-replicate",
         "params": {}, "doc": "Needs a holdout.", "headlines": [
             {"statistic": "dcr_share", "scope": "all", "better": "lower", "reading": "closer than holdout",
              "axis": "risk"}],
         "candidates": [], "skipped": "needs a holdout file (--holdout)"},
    ]
    document = {
        "schema": "synthaudit/1",
        "tool": {"name": "synthaudit", "version": "fixture"},
        "created": "2024-06-11T00:00:00Z",
        "spec": {"synthesis": "full"},
        "seed": 1,
        "threads": 2,
        "inputs": [{"role": "confidential", "path": "confidential.csv", "sha256": "0" * 64,
                    "rows": 2000, "columns": 6},
                   {"role": "holdout", "path": "holdout.csv", "sha256": "1" * 64, "rows": 500, "columns": 6}],
        "columns": [],
        "candidates": [{"name": c, "replicates": REPLICATES} for c in CANDIDATES],
        "warnings": ["candidate 'beta', column 'region': 1 level(s) not in the confidential data: X",
                     "candidate 'gamma', column 'occupation': 5 level(s) not in the confidential data: "
                     "OC1, OC2, OC3, OC4, OC5"],
        "baselines": [
            {"name": "holdout", "rows": 500,
             "description": "500 real records of the same population that were not used to synthesise"},
            {"name": "resample", "rows": 2000,
             "description": "resamples of the confidential data of the synthetic size (2,000 rows)"}],
        "verdict": verdict(),
        "metrics": metrics,
        "wall_seconds": 0.5,
    }
    print(json.dumps(document, indent=None, separators=(",", ":"), ensure_ascii=False))


if __name__ == "__main__":
    main()
