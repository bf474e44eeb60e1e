#!/usr/bin/python3
"""Golden values for the propensity-score metrics (tests/unit/propensity_test.cpp).

Run with Debian's python (python3-statsmodels, python3-sklearn, python3-scipy, python3-numpy):
    /usr/bin/python3 tests/golden/propensity/make_golden.py
Writes golden.json next to this script. The C++ tests read the inputs from that file too, so
inputs and expected values cannot drift apart.
"""
import json
import os

import numpy as np
import statsmodels.api as sm
from scipy.stats import ks_2samp, mannwhitneyu
from sklearn.metrics import roc_auc_score
from sklearn.tree import DecisionTreeClassifier

rng = np.random.default_rng(20240611)
out = {}

# 1. Logistic regression: intercept, two numeric columns, a 3-level factor (dummy coded), one
#    interaction. statsmodels Logit (Newton) to full convergence.
n = 400
x1 = rng.normal(size=n)
x2 = rng.uniform(-1, 1, size=n)
g = rng.integers(0, 3, size=n)
eta = -0.3 + 0.8 * x1 - 0.5 * x2 + 0.4 * (g == 1) - 0.7 * (g == 2) + 0.3 * x1 * x2
y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
X = np.column_stack([np.ones(n), x1, x2, (g == 1) * 1.0, (g == 2) * 1.0, x1 * x2])
res = sm.Logit(y, X).fit(method="newton", tol=1e-14, maxiter=100, disp=False)
out["logistic"] = {
    "X": X.tolist(), "y": y.tolist(),
    "coef": res.params.tolist(), "se": res.bse.tolist(),
    "fitted": res.predict(X).tolist(),
    "source": "statsmodels %s Logit(method='newton', tol=1e-14)" % sm.__version__ if hasattr(sm, "__version__") else "statsmodels Logit",
}

# 2. Discrimination measures on scores with ties (rounded to 2 decimals): group 1 = synthetic.
m = 700
groups = (rng.uniform(size=m) < 0.45).astype(int)
scores = np.round(np.clip(0.45 + 0.08 * groups + rng.normal(scale=0.15, size=m), 0, 1), 2)
s1, s0 = scores[groups == 1], scores[groups == 0]
out["discrimination"] = {
    "scores": scores.tolist(), "groups": groups.tolist(),
    "auc": float(roc_auc_score(groups, scores)),
    "u": float(mannwhitneyu(s1, s0, alternative="two-sided").statistic),
    "ks": float(ks_2samp(s1, s0).statistic),
    "c": float(groups.mean()),
    "pmse": float(np.mean((scores - groups.mean()) ** 2)),
    "po50": float(100 * np.mean(((scores > 0.5) & (groups == 1)) | ((scores <= 0.5) & (groups == 0))) - 50),
}

# 3. CART: labels fixed by regions (y = 1 iff x1 > 0.6 and x2 <= 0.35, or x1 <= 0.6 and x3 > 0.8)
#    plus one noise column. Every split of the Gini tree lowers the misclassification count, so
#    rpart (cp = 0) and sklearn (gini, min_samples_leaf = 5, min_samples_split = 15) must grow the
#    same tree. We compare the fitted leaf probabilities row by row and the root split.
k = 600
z1, z2, z3, z4 = (rng.uniform(size=k) for _ in range(4))
yt = (((z1 > 0.6) & (z2 <= 0.35)) | ((z1 <= 0.6) & (z3 > 0.8))).astype(int)
tree = DecisionTreeClassifier(criterion="gini", min_samples_leaf=5, min_samples_split=15, random_state=0)
tree.fit(np.column_stack([z1, z2, z3, z4]), yt)
out["cart"] = {
    "x": [z1.tolist(), z2.tolist(), z3.tolist(), z4.tolist()], "y": yt.tolist(),
    "fitted": tree.predict_proba(np.column_stack([z1, z2, z3, z4]))[:, 1].tolist(),
    "root_feature": int(tree.tree_.feature[0]), "root_threshold": float(tree.tree_.threshold[0]),
    "leaves": int(tree.get_n_leaves()),
}

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json"), "w") as f:
    json.dump(out, f)
print("wrote golden.json")
