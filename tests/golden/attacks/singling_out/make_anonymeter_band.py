#!/usr/bin/env python3
"""Band of anonymeter's singling-out risk on SD2011 over several seeds.

Usage: make_anonymeter_band.py ANONYMETER_SRC DATA_DIR > anonymeter_band.json
  ANONYMETER_SRC: the src/ folder of https://github.com/statice/anonymeter at commit 0188bdf5
  (2025-05-13; anonymeter 1.0.0), put on sys.path; nothing of it is copied into this project.
  DATA_DIR: tests/data/sd2011 (train.csv, train_syn.csv, holdout.csv; income uses -8 for missing).
Run with Debian's /usr/bin/python3 (pandas 1.5, numpy, scipy).

univariate_exact: the univariate predicates do not depend on the seed when the synthetic data
  yield fewer than n_attacks of them (all are kept): their number and their plain successes on
  the whole training data and the whole holdout must equal synthaudit's exactly.
Two settings per mode (univariate; multivariate with n_cols=3; n_attacks=500, anonymeter's
default), over seeds 1-5:
  equal_size: anonymeter attacks a simple random sample of the distinct training records of the
    control set's distinct size, so no size correction is involved. This is the quantity
    synthaudit reports (the training side compared at the control's size), so its risk interval
    must overlap this band (tests/unit/singling_out_attack_test.cpp).
  full_size (seed 1 only): anonymeter on the whole training data with its own fitted size
    correction of the control count, for reference (documented, not asserted).
anonymeter's module-level random generator is replaced by a seeded one for each run.
"""
import json
import sys
import warnings

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from anonymeter.evaluators import singling_out_evaluator as so  # noqa: E402

data = sys.argv[2]
# Optional: MODE SETTING SEEDS (e.g. "multivariate equal_size 2,3") runs only those runs, printing
# the same JSON for them (to spread the runs over processes; anonymeter's multivariate attack takes
# tens of minutes per run on a loaded machine).
only = sys.argv[3:6] if len(sys.argv) >= 6 else None
warnings.simplefilter("ignore")


def read(name):
    df = pd.read_csv(f"{data}/{name}")
    df["income"] = df["income"].replace(-8, np.nan)
    return df


train, syn, control = read("train.csv"), read("train_syn.csv"), read("holdout.csv")
n_control = len(control.drop_duplicates())
train_distinct = train.drop_duplicates().reset_index(drop=True)
seeds = range(1, 6)
out = {"n_attacks": 500, "n_cols": 3, "seeds": list(seeds), "control_distinct": n_control,
       "train_distinct": len(train_distinct)}
so.rng = np.random.default_rng(1)
univariate = [] if only else so.univariate_singling_out_queries(syn.drop_duplicates(), n_queries=500)
out["univariate_exact"] = {
    "n_queries": len(univariate),
    "n_success_full": len(so._evaluate_queries(train.drop_duplicates(), univariate)),
    "n_control_full": len(so._evaluate_queries(control.drop_duplicates(), univariate))}
print(out["univariate_exact"], file=sys.stderr)
for mode in ["univariate", "multivariate"]:
    for setting in ["equal_size", "full_size"]:
        if only and (mode, setting) != (only[0], only[1]):
            continue
        runs = []
        run_seeds = seeds if setting == "equal_size" else [1]
        if only:
            run_seeds = [int(x) for x in only[2].split(",")]
        for seed in run_seeds:
            so.rng = np.random.default_rng(seed)
            ori = (train_distinct.sample(n_control, random_state=seed) if setting == "equal_size"
                   else train)
            ev = so.SinglingOutEvaluator(ori=ori, syn=syn, control=control, n_attacks=500,
                                         n_cols=3)
            ev.evaluate(mode=mode)
            res = ev.results()
            risk = ev.risk()
            runs.append({"seed": seed, "n_success": int(ev._n_success),
                         "n_control": float(ev._n_control), "n_baseline": int(ev._n_baseline),
                         "n_queries": len(ev._queries),
                         "attack_rate": res.attack_rate.value,
                         "control_rate": res.control_rate.value,
                         "risk": risk.value, "risk_ci_lo": risk.ci[0], "risk_ci_hi": risk.ci[1]})
            print(mode, setting, runs[-1], file=sys.stderr)
        risks = [r["risk"] for r in runs]
        out[f"{mode}_{setting}"] = {"runs": runs, "risk_min": min(risks), "risk_max": max(risks)}
print(json.dumps(out, indent=1))
