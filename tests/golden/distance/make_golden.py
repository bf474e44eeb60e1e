#!/usr/bin/python3
"""Golden values for the distance-disclosure tests (nearest neighbours, MIA, kNN attack).

Independent implementations: a numpy transcription of SDMetrics' per-column DCR rule
(sdmetrics/single_table/privacy/dcr_utils.py, _process_dcr_chunk), scipy.spatial.distance.cdist,
sklearn.neighbors.NearestNeighbors / KNeighborsRegressor / KNeighborsClassifier,
sklearn.metrics.roc_auc_score, numpy.quantile (linear = R's type 7, as Urban syntheval's disc_mit
uses through stats::quantile).

Regenerate with:  /usr/bin/python3 tests/golden/distance/make_golden.py
"""
import os

import numpy as np
import pandas as pd
from scipy.spatial.distance import cdist
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261122)


def write_csv(df, name):
    df.to_csv(os.path.join(HERE, name), index=False, na_rep="NA", float_format="%.17g")


def write_top(idx, dist, name):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("query,i1,i2,i3,d1,d2,d3\n")
        for q in range(idx.shape[0]):
            f.write(",".join([str(q)] + [str(int(i)) for i in idx[q]] +
                             ["%.17g" % d for d in dist[q]]) + "\n")


def mixed(n, copy_from=None, stretch=1.0):
    df = pd.DataFrame({
        "num1": np.round(rng.uniform(0, 100 * stretch, n), 1),
        "num2": rng.integers(0, 10, n).astype(float),
        "cat1": rng.choice(["a", "b", "c"], n),
        "cat2": rng.choice(["x", "y"], n),
    })
    df.loc[rng.uniform(size=n) < 0.08, "num1"] = np.nan
    df.loc[rng.uniform(size=n) < 0.08, "cat1"] = np.nan
    if copy_from is not None:
        take = rng.uniform(size=n) < 0.25
        src = rng.integers(0, len(copy_from), n)
        df.loc[take, :] = copy_from.iloc[src[take]].to_numpy()
    return df


def sdmetrics_gower(query, reference, numeric, range_from=None):
    """Transcription of SDMetrics' _process_dcr_chunk rule, all pairs (query x reference).

    The per-column terms are summed numeric columns first, then the 0/1 columns (synthaudit's
    documented order); SDMetrics' pandas row sum in table order can differ in the last bit, which
    only matters for the order of exact ties (AUC)."""
    range_from = reference if range_from is None else range_from
    total = np.zeros((len(query), len(reference)))
    for col in sorted(query.columns, key=lambda c: c not in numeric):
        q = query[col].to_numpy()[:, None]
        r = reference[col].to_numpy()[None, :]
        if col in numeric:
            q = q.astype(float)
            r = r.astype(float)
            rng_ = np.nanmax(range_from[col].to_numpy(float)) - np.nanmin(range_from[col].to_numpy(float))
            diff = np.abs(r - q)
            d = (diff > 0).astype(float) if rng_ == 0 else np.minimum(diff / rng_, 1.0)
            qn, rn = np.isnan(q), np.isnan(r)
            d = np.where(qn ^ rn, 1.0, d)
            d = np.where(qn & rn, 0.0, d)
        else:
            qn, rn = pd.isna(q), pd.isna(r)
            d = (~((q == r) | (qn & rn))).astype(float)
        total += d
    return total / len(query.columns)


def top3(dist):
    order = np.argsort(dist, axis=1, kind="stable")[:, :3]
    return order, np.take_along_axis(dist, order, axis=1)


# --- nearest neighbours: mixed data (Gower, Hamming) -------------------------------------------
ref = mixed(300)
qry = mixed(120, copy_from=ref, stretch=1.3)
write_csv(ref, "mixed_reference.csv")
write_csv(qry, "mixed_query.csv")
D = sdmetrics_gower(qry, ref, {"num1", "num2"})
write_top(*top3(D), "gower_top3.csv")


def codes(df):
    out = []
    for col in df.columns:
        v = df[col].astype(str).where(~df[col].isna(), "<NA>").to_numpy()
        out.append(v)
    return np.array(out).T


qc, rc = codes(qry), codes(ref)
H = np.array([[np.mean(qc[i] != rc[j]) for j in range(len(rc))] for i in range(len(qc))])
write_top(*top3(H), "hamming_top3.csv")

# --- nearest neighbours: numeric data (Euclidean, cosine on standardised columns) --------------
nref = pd.DataFrame(rng.normal(size=(300, 4)) * [1, 10, 100, 0.1] + [0, 5, -50, 1],
                    columns=["a", "b", "c", "d"])
nqry = pd.DataFrame(rng.normal(size=(120, 4)) * [1, 10, 100, 0.1] + [0, 5, -50, 1],
                    columns=["a", "b", "c", "d"])
write_csv(nref, "numeric_reference.csv")
write_csv(nqry, "numeric_query.csv")
mean, sd = nref.mean().to_numpy(), nref.std(ddof=1).to_numpy()
Zr, Zq = (nref.to_numpy() - mean) / sd, (nqry.to_numpy() - mean) / sd
nn = NearestNeighbors(n_neighbors=3, algorithm="brute", metric="euclidean").fit(Zr)
dist, idx = nn.kneighbors(Zq)
write_top(idx, dist, "euclidean_top3.csv")
write_top(*top3(cdist(Zq, Zr, "cosine")), "cosine_top3.csv")

# --- membership inference (disc_mit transcription) ----------------------------------------------
train = mixed(200)
holdout = mixed(100)
syn = mixed(250, copy_from=train)
write_csv(train, "mia_train.csv")
write_csv(holdout, "mia_holdout.csv")
write_csv(syn, "mia_synthetic.csv")
blended = pd.concat([train, holdout], ignore_index=True)
member = np.r_[np.ones(len(train)), np.zeros(len(holdout))]
# Ranges from the training (confidential) data, as synthaudit documents.
d = sdmetrics_gower(blended, syn, {"num1", "num2"}, range_from=train).min(axis=1)
thr = np.quantile(d, len(train) / (len(train) + len(holdout)))
pred = d <= thr
tp, fp = np.sum(pred & (member == 1)), np.sum(pred & (member == 0))
fn, tn = np.sum(~pred & (member == 1)), np.sum(~pred & (member == 0))
pseudo = 1 - d / d.max()
with open(os.path.join(HERE, "mia_expected.csv"), "w") as f:
    f.write("statistic,value\n")
    for k, v in [("threshold", thr), ("tp", tp), ("fp", fp), ("tn", tn), ("fn", fn),
                 ("precision", tp / (tp + fp)), ("recall", tp / (tp + fn)),
                 ("auc", roc_auc_score(member, 1 - d / d.max()))]:
        f.write("%s,%.17g\n" % (k, v))

# --- kNN attribute attack (numeric keys inside the synthetic range: Gower = scaled L1 / p) ------
def attack_data(n, lo, hi, pin):
    X = rng.uniform(lo, hi, size=(n, 3))
    if pin:
        X[0, :], X[1, :] = 0.0, 1.0  # the synthetic range is exactly [0, 1]
    y = X @ [3.0, -2.0, 1.0] + rng.normal(scale=0.3, size=n)
    cls = np.where(X[:, 0] + rng.normal(scale=0.2, size=n) > 0.5, "hi", "lo")
    return pd.DataFrame({"k1": X[:, 0], "k2": X[:, 1], "k3": X[:, 2], "y": y, "cls": cls})


aconf = attack_data(200, 0.05, 0.95, False)
asyn = attack_data(300, 0.0, 1.0, True)
write_csv(aconf, "attack_confidential.csv")
write_csv(asyn, "attack_synthetic.csv")
keys = ["k1", "k2", "k3"]
Xs = asyn[keys].to_numpy() / (asyn[keys].max() - asyn[keys].min()).to_numpy()
Xc_s = aconf[keys].to_numpy() / (asyn[keys].max() - asyn[keys].min()).to_numpy()
Xc = aconf[keys].to_numpy() / (aconf[keys].max() - aconf[keys].min()).to_numpy()
reg = KNeighborsRegressor(n_neighbors=3, algorithm="brute", metric="manhattan").fit(Xs, asyn["y"])
pred_syn = reg.predict(Xc_s)
clf = KNeighborsClassifier(n_neighbors=3, algorithm="brute", metric="manhattan").fit(Xs, asyn["cls"])
cls_syn = clf.predict(Xc_s)
# Baseline: trained on the confidential data, leave-one-out (kneighbors() without X skips self).
nnc = NearestNeighbors(n_neighbors=3, algorithm="brute", metric="manhattan").fit(Xc)
_, loo = nnc.kneighbors()
yc = aconf["y"].to_numpy()
pred_conf = yc[loo].mean(axis=1)
cls_conf = []
for row in loo:
    labels, counts = np.unique(aconf["cls"].to_numpy()[row], return_counts=True)
    cls_conf.append(labels[np.argmax(counts)])  # ties -> smallest label, as sklearn
cls_conf = np.array(cls_conf)
err_s, err_c = np.abs(pred_syn - yc), np.abs(pred_conf - yc)
truth = aconf["cls"].to_numpy()
with open(os.path.join(HERE, "attack_expected.csv"), "w") as f:
    f.write("statistic,value\n")
    for k, v in [("mse_synthetic", np.mean((pred_syn - yc) ** 2)),
                 ("mse_confidential", np.mean((pred_conf - yc) ** 2)),
                 ("mean_relative_abs_error_synthetic", np.mean(err_s / np.abs(yc))),
                 ("mean_relative_abs_error_confidential", np.mean(err_c / np.abs(yc))),
                 ("share_less_accurate_from_synthetic_y", np.mean(err_s > err_c)),
                 ("accuracy_synthetic", np.mean(cls_syn == truth)),
                 ("accuracy_confidential", np.mean(cls_conf == truth)),
                 ("share_less_accurate_from_synthetic_cls",
                  np.mean((cls_syn != truth) & (cls_conf == truth)))]:
        f.write("%s,%.17g\n" % (k, v))
# --- SD2011 (../shared/data/sd2011): disc_mit and DCROverfittingProtection transcriptions ------
SD = os.path.join(HERE, "..", "..", "..", "..", "shared", "data", "sd2011")
if os.path.isdir(SD):
    train = pd.read_csv(os.path.join(SD, "train.csv"))  # income read as a plain number
    holdout = pd.read_csv(os.path.join(SD, "holdout.csv"))
    tsyn = pd.read_csv(os.path.join(SD, "train_syn.csv"))
    orig = pd.read_csv(os.path.join(SD, "orig.csv"))
    osyn = pd.read_csv(os.path.join(SD, "syn.csv"))
    numeric = {"age", "income"}

    def min_gower(query, reference, range_from=None):
        out = []
        for a in range(0, len(query), 500):
            out.append(sdmetrics_gower(query.iloc[a:a + 500], reference, numeric, range_from).min(axis=1))
        return np.concatenate(out)

    d_train = min_gower(train, tsyn, range_from=train)
    d_hold = min_gower(holdout, tsyn, range_from=train)
    d = np.r_[d_train, d_hold]
    member = np.r_[np.ones(len(train)), np.zeros(len(holdout))]
    thr = np.quantile(d, len(train) / len(d))
    pred = d <= thr
    tp, fp = np.sum(pred & (member == 1)), np.sum(pred & (member == 0))
    fn, tn = np.sum(~pred & (member == 1)), np.sum(~pred & (member == 0))
    syn_to_train = min_gower(tsyn, train)
    syn_to_hold = min_gower(tsyn, holdout)
    closer = np.mean(syn_to_train < syn_to_hold)
    with open(os.path.join(HERE, "sd2011_expected.csv"), "w") as f:
        f.write("statistic,value\n")
        for k, v in [("mia_threshold", thr), ("mia_tp", tp), ("mia_fp", fp), ("mia_tn", tn),
                     ("mia_fn", fn), ("mia_precision", tp / (tp + fp)), ("mia_recall", tp / (tp + fn)),
                     ("mia_auc", roc_auc_score(member, 1 - d / d.max())),
                     ("overfitting_closer_to_training", closer),
                     ("overfitting_score", min((1 - closer) * 2, 1.0)),
                     ("train_syn_to_train_median_dcr", np.median(syn_to_train)),
                     ("orig_syn_median_dcr", np.median(min_gower(osyn, orig)))]:
            f.write("%s,%.17g\n" % (k, v))
print("golden files written to", HERE)
