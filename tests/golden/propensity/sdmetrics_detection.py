#!/usr/bin/python3
"""SDMetrics' LogisticDetection procedure, rebuilt with Debian's scikit-learn, on SD2011.

SDMetrics 0.29 (sdmetrics/single_table/detection/{base,sklearn}.py): categorical columns one-hot
encoded, numeric columns as plain numbers (income's code -8 stays -8; NA imputed by the column
mean), RobustScaler, LogisticRegression(solver="lbfgs"), StratifiedKFold(n_splits=3,
shuffle=True) without a seed; score = 1 - mean over folds of (2 * max(AUC, 0.5) - 1). The folds
are random, so SDMetrics' own number (1.0 in ../../data/sd2011/ref_sdmetrics_orig_vs_syn.tsv) is
one draw; this script gives the distribution over 50 fold seeds, which the C++ test compares with
synthaudit's detection_score_folds over 50 evaluation seeds.

Run: /usr/bin/python3 tests/golden/propensity/sdmetrics_detection.py
Writes sdmetrics_detection.json next to this script.
"""
import csv
import json
import os

import numpy as np
import sklearn
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import RobustScaler

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "..", "data", "sd2011")
numeric = ["age", "income"]


def read(name):
    with open(os.path.join(data, name), newline="") as f:
        return list(csv.DictReader(f))


real, syn = read("orig.csv"), read("syn.csv")
columns = list(real[0].keys())
categorical = [c for c in columns if c not in numeric]
levels = {c: sorted({r[c] for r in real}) for c in categorical}  # fitted on the real data


def encode(rows):
    out = []
    for r in rows:
        v = [float(r[c]) if r[c] not in ("", "NA") else np.nan for c in numeric]
        for c in categorical:
            v += [1.0 if r[c] == level else 0.0 for level in levels[c]]
        out.append(v)
    return np.array(out)


X = np.vstack([encode(real), encode(syn)])
y = np.hstack([np.ones(len(real)), np.zeros(len(syn))])
scores = []
for seed in range(50):
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=seed)
    normalised = []
    for train, test in folds.split(X, y):
        model = Pipeline([("imputer", SimpleImputer()), ("scaler", RobustScaler()),
                          ("classifier", LogisticRegression(solver="lbfgs"))])
        model.fit(X[train], y[train])
        auc = roc_auc_score(y[test], model.predict_proba(X[test])[:, 1])
        normalised.append(max(0.5, auc) * 2 - 1)
    scores.append(1 - float(np.mean(normalised)))

out = {
    "source": "scikit-learn %s, SDMetrics LogisticDetection procedure, 50 fold seeds" % sklearn.__version__,
    "scores": scores,
    "mean": float(np.mean(scores)),
    "sd": float(np.std(scores, ddof=1)),
}
with open(os.path.join(here, "sdmetrics_detection.json"), "w") as f:
    json.dump(out, f, indent=1)
print(out["mean"], out["sd"], min(scores), max(scores))
