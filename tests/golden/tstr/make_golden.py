#!/usr/bin/python3
"""Golden values for train_synthetic_test_real (train on synthetic, test on real) on SD2011.

Run with Debian's python (python3-sklearn 1.2.1, python3-pandas, python3-numpy):
    /usr/bin/python3 tests/golden/tstr/make_golden.py
It reads tests/data/sd2011/{train,train_syn,syn,holdout}.csv (income's -8 is a missing-value
code) and writes golden.json next to itself: for each case, the holdout scores of the model fitted
on the confidential data (train.csv) and on each synthetic replicate (train_syn.csv, syn.csv).

Design matrices are built here by hand, independently of the C++ formula code: numeric predictors
as they are, categorical ones as indicators of every level but the first (levels present in the
confidential records that have the target and every predictor, sorted), an intercept; records
with a missing target or predictor, or a level the confidential records lack, are left out.
Models: sklearn LogisticRegression(penalty=None, solver="newton-cholesky", tol=1e-12) (one-vs-rest
for more than two classes) and LinearRegression; scores: roc_auc_score (multiclass:
multi_class="ovr", average="macro"), accuracy_score, mean_squared_error, r2_score.
"""
import json
import os

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import accuracy_score, mean_squared_error, r2_score, roc_auc_score

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data", "sd2011")
COLUMNS = ["sex", "age", "edu", "marital", "income", "ls", "smoke"]
CATEGORICAL = {"sex", "edu", "marital", "ls", "smoke"}


def load(name):
    df = pd.read_csv(os.path.join(DATA, name + ".csv"))
    df.loc[df["income"] == -8, "income"] = np.nan
    return df


def complete(df, target, predictors, levels=None, classes=None):
    keep = df[[target] + predictors].notna().all(axis=1)
    if classes is not None:
        keep &= df[target].isin(classes)
    if levels is not None:
        for c, lev in levels.items():
            keep &= df[c].isin(lev)
    return df[keep]


def design(df, predictors, levels):
    cols = [np.ones(len(df))]
    for c in predictors:
        if c in CATEGORICAL:
            for lev in levels[c][1:]:
                cols.append((df[c] == lev).to_numpy(dtype=float))
        else:
            cols.append(df[c].to_numpy(dtype=float))
    return np.column_stack(cols)


def case(target, predictors, kind):
    conf, hold = load("train"), load("holdout")
    syns = [load("train_syn"), load("syn")]
    classes = None
    if kind == "classification":
        classes = sorted(conf[target].dropna().unique())
    conf_c = complete(conf, target, predictors, classes=classes)
    levels = {c: sorted(conf_c[c].unique()) for c in predictors if c in CATEGORICAL}
    test = complete(hold, target, predictors, levels, classes)
    x_test = design(test, predictors, levels)

    def scores(train_df):
        train = complete(train_df, target, predictors, levels, classes)
        x = design(train, predictors, levels)
        if kind == "classification":
            model = LogisticRegression(penalty=None, solver="newton-cholesky", tol=1e-12,
                                       max_iter=1000, fit_intercept=False,
                                       multi_class="ovr")
            model.fit(x, train[target])
            proba = model.predict_proba(x_test)
            if len(classes) == 2:
                auc = roc_auc_score(test[target] == model.classes_[1], proba[:, 1])
            else:
                auc = roc_auc_score(test[target], proba, multi_class="ovr", average="macro",
                                    labels=model.classes_)
            return {"auc": auc, "accuracy": accuracy_score(test[target], model.predict(x_test)),
                    "train_rows": len(train)}
        model = LinearRegression(fit_intercept=False).fit(x, train[target])
        pred = model.predict(x_test)
        return {"rmse": float(np.sqrt(mean_squared_error(test[target], pred))),
                "r2": r2_score(test[target], pred), "train_rows": len(train)}

    return {"target": target, "predictors": predictors, "holdout_records": len(test),
            "real": scores(conf), "synthetic": [scores(s) for s in syns]}


golden = {
    "binary": case("smoke", ["sex", "age", "edu", "marital", "income", "ls"], "classification"),
    "multiclass": case("ls", ["sex", "age", "edu", "marital", "smoke"], "classification"),
    "regression": case("income", ["sex", "age", "edu", "marital", "ls", "smoke"], "regression"),
}
with open(os.path.join(HERE, "golden.json"), "w") as f:
    json.dump(golden, f, indent=1)
    f.write("\n")
print(json.dumps(golden, indent=1))
