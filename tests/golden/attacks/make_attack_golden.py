#!/usr/bin/env python3
"""Golden values for the linkability and inference attacks (src/metrics/attack_disclosure/).

Usage: make_attack_golden.py ANONYMETER_SOURCE_TREE [--ties-only]
  ANONYMETER_SOURCE_TREE: a checkout of https://github.com/statice/anonymeter at commit 0188bdf5
  (2025-05-13); its src/ goes on sys.path. Run with Debian's /usr/bin/python3 (numpy, pandas,
  scikit-learn, numba). Nothing of anonymeter is copied into this project: its evaluators are run
  as they are and their counts written down.

Writes, next to this script:
  boston_train.csv, boston_holdout.csv, boston_synthetic.csv
      MASS::Boston (Harrison & Rubinfeld 1978, from Debian's r-cran-mass; exported by
      `Rscript -e 'write.csv(MASS::Boston, "boston_raw.csv", row.names = FALSE)'` into
      BOSTON_RAW, default /tmp/boston_raw.csv), rows shuffled with seed 20 and split 250 / 100 /
      156; chas written as "no"/"yes" so both tools read it as categorical. The "synthetic" part
      is a stand-in (other real rows): the point is parity of the attack counts on real values
      with no ties among nearest neighbours, which the script checks.
  anonymeter_no_ties.csv
      attack, params, n_attacks, n_success, n_control_attacks, n_control from anonymeter with
      every training record a target and, separately, every holdout record (its private
      _linkability_attack / _run_attack with n_attacks = the table's size, as the evaluator does
      for the training side), to be matched exactly.
  anonymeter_ties_band.csv
      SD2011 (tests/data/sd2011 train / holdout / train_syn) with all-categorical auxiliary
      columns, where ties decide the attacks: anonymeter run on SHUFFLES row orders of the
      synthetic file; the min and max of its risk point estimate over the runs.
  tiny_*.csv, tie_rule_expected.csv
      Small tables full of ties and the exact expected successes under uniform random
      tie-breaking, by brute-force enumeration of every tie-break (independent of the closed form
      in src/stats/tied_neighbours.cpp).
"""
import itertools
import math
import os
import sys
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(sys.argv[1], "src"))
warnings.simplefilter("ignore")

from anonymeter.evaluators import linkability_evaluator as lnk  # noqa: E402
from anonymeter.evaluators import inference_evaluator as inf  # noqa: E402
from anonymeter.stats.confidence import EvaluationResults  # noqa: E402

SHUFFLES = 12


# ---- the distance as documented in src/stats/tied_neighbours.hpp (for the tie checks) --------
def distances(queries, candidates, columns):
    """Exact-arithmetic distances (Fractions) from every query row to every candidate row."""
    out = [[Fraction(0)] * len(candidates) for _ in range(len(queries))]
    for c in columns:
        q, s = queries[c].tolist(), candidates[c].tolist()
        if pd.api.types.is_numeric_dtype(queries[c]):
            both = pd.concat([queries[c], candidates[c]])
            rng = Fraction(both.max()) - Fraction(both.min())
            rng = rng if rng != 0 else Fraction(1)
            for i, x in enumerate(q):
                for j, y in enumerate(s):
                    out[i][j] += abs(Fraction(x) - Fraction(y)) / rng
        else:
            for i, x in enumerate(q):
                for j, y in enumerate(s):
                    out[i][j] += 0 if x == y else 1
    return out


def has_tie_at_k(dist_rows, k):
    for row in dist_rows:
        srt = sorted(row)
        if len(srt) > k and srt[k - 1] == srt[k]:
            return True
    return False


# ---- anonymeter, every record a target ---------------------------------------------------------
def anonymeter_links(targets, syn, aux_a, aux_b, k):
    idx = lnk._linkability_attack(ori=targets, syn=syn, n_attacks=len(targets),
                                  aux_cols=(aux_a, aux_b), n_neighbors=k, n_jobs=1)
    return idx.count_links(n_neighbors=k)


def anonymeter_inference(targets, syn, aux, secret):
    return inf._run_attack(target=targets, syn=syn, n_attacks=len(targets), aux_cols=aux,
                           secret=secret, n_jobs=1, naive=False, regression=None)


def boston():
    raw = pd.read_csv(os.environ.get("BOSTON_RAW", "/tmp/boston_raw.csv"))
    raw["chas"] = np.where(raw["chas"] == 1, "yes", "no")
    order = np.random.default_rng(20).permutation(len(raw))
    raw = raw.iloc[order].reset_index(drop=True)
    parts = {"train": raw.iloc[:250], "holdout": raw.iloc[250:350], "synthetic": raw.iloc[350:]}
    for name, part in parts.items():
        part.to_csv(os.path.join(HERE, f"boston_{name}.csv"), index=False)
    return {n: p.reset_index(drop=True) for n, p in parts.items()}


def no_ties(rows):
    b = boston()
    train, hold, syn = b["train"], b["holdout"], b["synthetic"]
    cases = [("linkability", "crim,rm", "lstat,dis,age", 1),
             ("linkability", "crim,rm", "lstat,dis,age", 3),
             ("linkability", "rm,lstat", "crim,ptratio,chas", 2)]
    for attack, a, bb, k in cases:
        aux_a, aux_b = a.split(","), bb.split(",")
        for targets in (train, hold):
            for cols in (aux_a, aux_b):
                assert not has_tie_at_k(distances(targets, syn, cols), k), (a, bb, k)
        rows.append(dict(attack=attack, aux_a=a, aux_b=bb, aux="", secret="", k=k,
                         n_attacks=len(train), n_success=anonymeter_links(train, syn, aux_a, aux_b, k),
                         n_control_attacks=len(hold),
                         n_control=anonymeter_links(hold, syn, aux_a, aux_b, k)))
    for aux, secret in [("crim,rm,lstat", "medv"), ("crim,rm,lstat", "chas"),
                        ("dis,nox,age,lstat", "rm")]:
        cols = aux.split(",")
        for targets in (train, hold):
            assert not has_tie_at_k(distances(targets, syn, cols), 1), aux
        rows.append(dict(attack="inference", aux_a="", aux_b="", aux=aux, secret=secret, k=1,
                         n_attacks=len(train),
                         n_success=anonymeter_inference(train, syn, cols, secret),
                         n_control_attacks=len(hold),
                         n_control=anonymeter_inference(hold, syn, cols, secret)))


# ---- anonymeter on shuffled synthetic rows, where ties decide ---------------------------------
def sd2011():
    def read(name):
        d = pd.read_csv(os.path.join(ROOT, "tests", "data", "sd2011", name))
        for c in d.columns:
            if not pd.api.types.is_numeric_dtype(d[c]):
                d[c] = d[c].fillna("NA")  # missing equals missing, as a level of its own
        return d
    return read("train.csv"), read("holdout.csv"), read("train_syn.csv")


def risk_of(n_attacks, n_success, n_control):
    # anonymeter's convention, control at the training side's size by rescaling its rate: the
    # control attack here has its own size, so its rate is passed as a count over n_attacks.
    res = EvaluationResults(n_attacks=n_attacks, n_success=n_success, n_baseline=0,
                            n_control=n_control, confidence_level=0.95)
    return res.risk().value


def ties_band(rows):
    train, hold, syn = sd2011()
    cases = [("linkability", "sex,edu,marital", "ls,smoke", "", "", 1),
             ("linkability", "sex,edu,marital", "ls,smoke", "", "", 3),
             ("inference", "", "", "sex,edu,marital,ls", "smoke", 1),
             ("inference", "", "", "sex,edu,smoke", "marital", 1)]
    for attack, a, bb, aux, secret, k in cases:
        risks, succ, ctrl = [], [], []
        for s in range(SHUFFLES):
            shuffled = syn.iloc[np.random.default_rng(100 + s).permutation(len(syn))]
            shuffled = shuffled.reset_index(drop=True)
            if attack == "linkability":
                n_s = anonymeter_links(train, shuffled, a.split(","), bb.split(","), k)
                n_c = anonymeter_links(hold, shuffled, a.split(","), bb.split(","), k)
            else:
                n_s = anonymeter_inference(train, shuffled, aux.split(","), secret)
                n_c = anonymeter_inference(hold, shuffled, aux.split(","), secret)
            # The control count scaled to the training side's size (anonymeter needs equal sizes).
            n_c_scaled = n_c * len(train) / len(hold)
            risks.append(risk_of(len(train), n_s, n_c_scaled))
            succ.append(n_s)
            ctrl.append(n_c)
        rows.append(dict(attack=attack, aux_a=a, aux_b=bb, aux=aux, secret=secret, k=k,
                         runs=SHUFFLES, n_success_min=min(succ), n_success_max=max(succ),
                         n_control_min=min(ctrl), n_control_max=max(ctrl),
                         risk_min=min(risks), risk_max=max(risks)))


# ---- brute-force enumeration of every tie-break -----------------------------------------------
def k_nearest_choices(dist_row, k):
    """Every equally likely k-nearest set under uniform random tie-breaking, as frozensets."""
    m = len(dist_row)
    if m <= k:
        return [frozenset(range(m))]
    kth = sorted(dist_row)[k - 1]
    sure = [j for j in range(m) if dist_row[j] < kth]
    tied = [j for j in range(m) if dist_row[j] == kth]
    return [frozenset(sure) | frozenset(c) for c in itertools.combinations(tied, k - len(sure))]


def tiny_tables():
    rng = np.random.default_rng(7)
    def table(n):
        return pd.DataFrame({
            "a": rng.choice(["x", "y"], n), "b": rng.choice(["p", "q", "r"], n),
            "c": rng.choice([1, 2, 4], n), "d": rng.choice(["u", "v"], n),
            "e": rng.choice([0, 5, 10], n)})
    t, s, h = table(14), table(11), table(9)
    for name, d in (("train", t), ("synthetic", s), ("holdout", h)):
        d.to_csv(os.path.join(HERE, f"tiny_{name}.csv"), index=False)
    return t, s, h


def tie_rule(rows):
    t, s, h = tiny_tables()
    for aux_a, aux_b, k in [("a,b", "c,d", 1), ("a,b", "c,d", 3), ("a,c", "d,e", 2),
                            ("b", "a", 4)]:
        for side, targets in (("train", t), ("holdout", h)):
            da = distances(targets, s, aux_a.split(","))
            db = distances(targets, s, aux_b.split(","))
            total = Fraction(0)
            for i in range(len(targets)):
                ca, cb = k_nearest_choices(da[i], k), k_nearest_choices(db[i], k)
                hits = sum(1 for x in ca for y in cb if x & y)
                total += Fraction(hits, len(ca) * len(cb))
            m, kk = len(s), min(k, len(s))
            miss = Fraction(math.comb(m - kk, kk), math.comb(m, kk))
            rows.append(dict(attack="linkability", aux_a=aux_a, aux_b=aux_b, aux="", secret="",
                             k=k, side=side, expected=float(total),
                             baseline=float(len(targets) * (1 - miss))))
    for aux, secret in [("a,b", "d"), ("b,c", "e"), ("a", "c")]:
        for side, targets in (("train", t), ("holdout", h)):
            d = distances(targets, s, aux.split(","))
            def is_right(g, truth):
                if isinstance(g, str):
                    return g == truth
                return abs(g - truth) / (abs(g) + 1e-12) <= 0.05  # anonymeter's, with |g|
            total, baseline = Fraction(0), Fraction(0)
            for i in range(len(targets)):
                choices = k_nearest_choices(d[i], 1)
                truth = targets[secret].iloc[i]
                right = sum(is_right(s[secret].iloc[j], truth) for ch in choices for j in ch)
                total += Fraction(right, len(choices))
                baseline += Fraction(sum(is_right(g, truth) for g in s[secret]), len(s))
            rows.append(dict(attack="inference", aux_a="", aux_b="", aux=aux, secret=secret, k=1,
                             side=side, expected=float(total), baseline=float(baseline)))


def main():
    if "--ties-only" not in sys.argv:
        rows = []
        no_ties(rows)
        pd.DataFrame(rows).to_csv(os.path.join(HERE, "anonymeter_no_ties.csv"), index=False)
        rows = []
        ties_band(rows)
        pd.DataFrame(rows).to_csv(os.path.join(HERE, "anonymeter_ties_band.csv"), index=False)
    rows = []
    tie_rule(rows)
    pd.DataFrame(rows).to_csv(os.path.join(HERE, "tie_rule_expected.csv"), index=False,
                              float_format="%.17g")


if __name__ == "__main__":
    main()
