#!/usr/bin/python3
"""membership_attacks against an independent computation (numpy brute-force Gower distances,
scipy's Mann-Whitney U for the AUC, scipy's beta quantiles for Clopper-Pearson), on real survey data
(SD2011, tests/data/sd2011, with its missing codes and NA text), then its behaviour under the
null: a fresh half of the holdout audited as the synthetic data gives AUCs of 0.5 within their
Mann-Whitney noise.

Usage: membership_attacks_reference.py SYNTHAUDIT DATA_DIR [NULL_SPLITS]
The reference side reads only the CSV files and, from the program, the random assignments it
made (which holdout records are the reference, which half judges), from records.tsv.
Exit 1 on any mismatch beyond the stated tolerances.
"""
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.stats import beta, mannwhitneyu

from survey_files import MISSING_TEXT, encode, gower, ranges_of, read_csv, write_csv


def roc_auc_score(labels, scores):
    """The AUC as scipy's Mann-Whitney U of the members over the product of the class sizes."""
    labels = np.asarray(labels)
    x, y = scores[labels == 1], scores[labels == 0]
    if len(x) == 0 or len(y) == 0:
        return float("nan")
    return float(mannwhitneyu(x, y).statistic) / (len(x) * len(y))

binary, data = sys.argv[1], Path(sys.argv[2])
null_splits = int(sys.argv[3]) if len(sys.argv) > 3 else 10
work = Path(tempfile.mkdtemp(prefix="membership_attacks"))
NUMERIC = {"age", "income"}
MISSING_CODES = {"income": -8}
K = 5
TOLERANCE = 1e-12
failures = []


def check(what, got, expected, tolerance=TOLERANCE):
    both_nan = isinstance(got, float) and math.isnan(got) and math.isnan(expected)
    if not both_nan and not abs(got - expected) <= tolerance:
        failures.append(f"{what}: synthaudit {got!r}, reference {expected!r}")


def run(confidential, synthetic, holdout, header, extra=()):
    for name, rows in (("conf", confidential), ("syn", synthetic), ("hold", holdout)):
        write_csv(work / f"{name}.csv", header, rows)
    out = work / "out"
    done = subprocess.run(
        [binary, "evaluate", "--confidential", str(work / "conf.csv"), "--synthetic",
         f"s={work / 'syn.csv'}", "--holdout", str(work / "hold.csv"), "--missing-codes",
         "income=-8", "--metrics", "membership_attacks", "--null-draws", "0", "--threads", "2",
         "--out", str(out), "--quiet", *extra], capture_output=True, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"evaluate failed: {done.stderr}")
    values = {}
    for line in (out / "results.tsv").read_text().splitlines()[1:]:
        f = line.split("\t")
        values[(f[3], f[4])] = float("nan") if f[5] == "NA" else float(f[5])
    return out, values


def rows_of(columns, index):
    return [c[index] for c in columns]


def log_density_ratio(r_ref, r_syn):
    if r_syn == 0 and r_ref == 0:
        return 0.0
    if r_syn == 0:
        return math.inf
    if r_ref == 0:
        return -math.inf
    return math.log(r_ref) - math.log(r_syn)


def reference_scores(conf, syn, hold, header, challenge):
    c, s, h = (encode(header, rows, NUMERIC, MISSING_CODES) for rows in (conf, syn, hold))
    ranges = ranges_of(header, c, NUMERIC)
    ref_rows = np.where(challenge == 0)[0]
    non_rows = np.where(challenge == 1)[0]
    R, N = rows_of(h, ref_rows), rows_of(h, non_rows)
    scores = {}
    for label, query, member in (("confidential", c, True), ("holdout", N, False)):
        ds = np.sort(gower(query, s, ranges), axis=1)
        dr = np.sort(gower(query, R, ranges), axis=1)
        # Isolation: the k nearest among all other confidential, non-member and reference records.
        dc = gower(query, c, ranges)
        dn = gower(query, N, ranges)
        np.fill_diagonal(dc if member else dn, np.inf)
        k_density = min(K, ds.shape[1], dr.shape[1])
        iso = np.sort(np.concatenate([dc, dn, dr], axis=1), axis=1)[:, :K].mean(axis=1)
        scores[label] = {
            "dcr": -ds[:, 0],
            "dcr_diff": dr[:, 0] - ds[:, 0],
            "domias": np.array([log_density_ratio(a, b)
                                for a, b in zip(dr[:, k_density - 1], ds[:, k_density - 1])]),
            "isolation": iso,
        }
    return scores, non_rows


def read_records(out):
    records = {}
    for line in (out / "records.tsv").read_text().splitlines()[1:]:
        f = line.split("\t")
        data, row, field, value = f[4], int(f[5]), f[6], f[7]
        records.setdefault((data, field), {})[row] = float("nan") if value == "NA" else float(value)
    return {key: np.array([v[r] for r in sorted(v)]) for key, v in records.items()}


# --- The groups, the cross-fitted worst case and its rules, as the metric documents them.
GROUPS = (("all", 1.0), ("isolated_1%", 0.01), ("isolated_0.1%", 0.001))
ATTACKS = ("dcr", "dcr_diff", "domias")
TARGETS = (0.001, 0.01, 0.1)


def group_rows(member, judged, isolation, half, cls, share, min_non_members):
    rows = [i for i in range(len(member)) if judged[i] == half and member[i] == cls]
    if share >= 1.0:
        return rows
    wanted = math.ceil(share * len(rows) - 1e-9)
    take = min(len(rows), max(wanted, 1 if cls == 1 else min_non_members))
    rows.sort(key=lambda i: (-isolation[i], i))
    return sorted(rows[:take])


def curve(scores, labels):
    """(threshold, tpr, fpr) per distinct score, from high to low."""
    order = sorted(set(scores.tolist()), reverse=True)
    m, n = labels.sum(), (1 - labels).sum()
    return [(t, (labels[scores >= t]).sum() / m, (1 - labels[scores >= t]).sum() / n)
            for t in order]


def rule_at_fpr(points, target):
    best, best_tpr = None, 0.0
    for t, tpr, fpr in points:
        if fpr <= target and tpr > best_tpr and math.isfinite(t):
            best, best_tpr = t, tpr
    return best


def rule_of_advantage(points):
    best, best_adv = None, 0.0
    for t, tpr, fpr in points:
        if tpr - fpr > best_adv and math.isfinite(t):
            best, best_adv = t, tpr - fpr
    return best


def counts(rule, scores, labels):
    if rule is None:
        return 0, 0
    called = scores >= rule
    return int((called & (labels == 1)).sum()), int((called & (labels == 0)).sum())


def cp(x, n, confidence=0.95):
    a = (1 - confidence) / 2
    return (0.0 if x == 0 else beta.ppf(a, x, n - x + 1),
            1.0 if x == n else beta.ppf(1 - a, x + 1, n - x))


def epsilon(tp, m, fp, n, delta=1e-5):
    tlo, _ = cp(tp, m)
    _, fhi = cp(fp, n)
    best = 0.0
    if tlo - delta > 0:
        best = max(best, math.log((tlo - delta) / fhi))
    if 1 - delta - fhi > 0 and tlo < 1:
        best = max(best, math.log((1 - delta - fhi) / (1 - tlo)))
    return best


def compare_with_reference(conf, syn, hold, header):
    out, values = run(conf, syn, hold, header,
                      ("--param", "membership_attacks.record_level=true"))
    records = read_records(out)
    challenge = records[("holdout", "challenge")].astype(int)
    scores, non_rows = reference_scores(conf, syn, hold, header, challenge)
    check("reference records", values[("reference_records", "all")], float((challenge == 0).sum()))
    member = np.concatenate([np.ones(len(conf), int), np.zeros(len(non_rows), int)])
    judged = np.concatenate([records[("confidential", "judged_half")],
                             records[("holdout", "judged_half")][non_rows]]).astype(int)
    program = {}
    for field in ATTACKS + ("isolation",):
        mine = np.concatenate([records[("confidential", field)],
                               records[("holdout", field)][non_rows]])
        ref = np.concatenate([scores["confidential"][field], scores["holdout"][field]])
        finite = np.isfinite(ref)
        if not np.array_equal(np.isfinite(mine), finite) or not np.array_equal(
                mine[~finite], ref[~finite]):
            failures.append(f"{field}: infinite scores differ")
        worst = float(np.max(np.abs(mine[finite] - ref[finite]))) if finite.any() else 0.0
        check(f"{field} per record (largest difference)", worst, 0.0)
        program[field] = ref
    isolation = program["isolation"]
    checked = 0
    for scope, share in GROUPS:
        rows = {h: group_rows(member, judged, isolation, h, 1, share, 40) +
                group_rows(member, judged, isolation, h, 0, share, 40) for h in (0, 1)}
        both = np.array(rows[0] + rows[1])
        for attack in ATTACKS:
            check(f"{attack}_auc [{scope}]", values[(f"{attack}_auc", scope)],
                  roc_auc_score(member[both], program[attack][both]))
        turns = []
        for choose, judge in ((rows[1], rows[0]), (rows[0], rows[1])):
            choose, judge = np.array(choose), np.array(judge)
            aucs = [roc_auc_score(member[choose], program[a][choose]) for a in ATTACKS]
            attack = ATTACKS[int(np.argmax(aucs))]  # the first of the largest
            points = curve(program[attack][choose], member[choose])
            s, lab = program[attack][judge], member[judge]
            turns.append({
                "auc": roc_auc_score(lab, s), "m": int(lab.sum()), "n": int((1 - lab).sum()),
                "at": [counts(rule_at_fpr(points, t), s, lab) for t in TARGETS],
                "adv": counts(rule_of_advantage(points), s, lab)})
        m = turns[0]["m"] + turns[1]["m"]
        n = turns[0]["n"] + turns[1]["n"]
        check(f"worst_case_auc [{scope}]", values[("worst_case_auc", scope)],
              (turns[0]["auc"] + turns[1]["auc"]) / 2)
        sd = 0.5 * math.sqrt(sum((t["m"] + t["n"] + 1) / (12 * t["m"] * t["n"]) for t in turns))
        check(f"worst_case_auc_null_sd [{scope}]", values[("worst_case_auc_null_sd", scope)], sd)
        eps = 0.0
        for i, target in enumerate(TARGETS):
            tp = turns[0]["at"][i][0] + turns[1]["at"][i][0]
            fp = turns[0]["at"][i][1] + turns[1]["at"][i][1]
            check(f"tpr at {target} [{scope}]", values[(f"worst_case_tpr_at_fpr_{target}", scope)],
                  tp / m)
            check(f"fpr at {target} [{scope}]", values[(f"worst_case_fpr_at_fpr_{target}", scope)],
                  fp / n)
            eps = max(eps, epsilon(tp, m, fp, n))
        tp = turns[0]["adv"][0] + turns[1]["adv"][0]
        fp = turns[0]["adv"][1] + turns[1]["adv"][1]
        check(f"advantage [{scope}]", values[("worst_case_advantage", scope)], tp / m - fp / n)
        # Beta quantiles from Boost and from scipy agree to about 1e-13 relative.
        check(f"epsilon bound [{scope}]", values[("worst_case_epsilon_lower_bound", scope)],
              max(eps, epsilon(tp, m, fp, n)), 1e-9)
        for rate in (0.5, 0.1, 0.01):
            tpr, fpr = tp / m, fp / n
            called = rate * tpr + (1 - rate) * fpr
            check(f"ppv at {rate} [{scope}]", values[(f"worst_case_ppv_at_base_rate_{rate}", scope)],
                  rate * tpr / called if called > 0 else float("nan"))
        checked += 1
    return checked


# A parameter out of its declared range: one error line naming the key, exit code 2.
bad = subprocess.run(
    [binary, "evaluate", "--confidential", str(data / "train.csv"), "--synthetic",
     f"s={data / 'train_syn.csv'}", "--holdout", str(data / "holdout.csv"), "--metrics",
     "membership_attacks", "--param", "membership_attacks.min_non_members=0", "--out",
     str(work / "bad"), "--quiet"], capture_output=True, text=True)
if bad.returncode != 2 or len(bad.stderr.strip().splitlines()) != 1 or \
        "parameters.membership_attacks.min_non_members" not in bad.stderr:
    failures.append(f"min_non_members=0: exit {bad.returncode}, stderr {bad.stderr!r}")

header, train = read_csv(data / "train.csv")
_, train_syn = read_csv(data / "train_syn.csv")
_, holdout = read_csv(data / "holdout.csv")
# A leak to find as well: the synthetic data carry near copies of 10 confidential records.
conf = train[:900]
syn = train_syn[:700]
for j in range(10):
    copy = conf[50 * j][:]
    if copy[1] not in MISSING_TEXT:
        copy[1] = repr(float(copy[1]) * 1.02)
    syn[j] = copy
groups = compare_with_reference(conf, syn, holdout[:600], header)
print(f"reference comparison: {groups} groups, every attack, "
      f"{len(failures)} mismatch(es)", flush=True)

# With weights declared, the positive predictive value at the sampling fraction n / sum(w):
# PPV(pi) = pi r / (pi r + 1 - pi) with r = TPR / FPR, which PPV at a base rate of 0.5 gives.
weights = [str(1 + i % 3) for i in range(len(conf))]
fraction = len(conf) / sum(float(w) for w in weights)
_, values = run([r + [w] for r, w in zip(conf, weights)], [r + ["2"] for r in syn],
                [r + ["2"] for r in holdout[:600]], header + ["w"], ("--weights", "w"))
weighted_checks = 0
for scope, _ in GROUPS:
    half = values[("worst_case_ppv_at_base_rate_0.5", scope)]
    if 0 < half < 1:
        weighted_checks += 1
        ratio = half / (1 - half)
        check(f"ppv at the sampling fraction [{scope}]",
              values[("worst_case_ppv_at_sampling_fraction", scope)],
              fraction * ratio / (fraction * ratio + 1 - fraction), 1e-12)
    elif ("worst_case_ppv_at_sampling_fraction", scope) not in values:
        failures.append(f"no ppv at the sampling fraction for {scope}")
print(f"weights declared: PPV at the sampling fraction {fraction:.4f} checked in {weighted_checks} "
      "group(s)")
if weighted_checks == 0:
    failures.append("no group had a PPV strictly between 0 and 1 to check the weights against")

# Under the null: a fresh half of the holdout as the synthetic data.
zs = {}
for split in range(null_splits):
    rng = random.Random(2000 + split)
    rows = holdout[:]
    rng.shuffle(rows)
    half = len(rows) // 2
    _, values = run(train, rows[:half], rows[half:], header, ("--seed", str(split + 1)))
    for scope in ("all", "isolated_1%"):
        z = (values[("worst_case_auc", scope)] - 0.5) / values[("worst_case_auc_null_sd", scope)]
        zs.setdefault(scope, []).append(z)

for scope, values in zs.items():
    mean = sum(values) / len(values)
    high = sum(z > 2.326 for z in values)
    print(f"fresh halves, worst_case_auc [{scope}]: mean z {mean:+.2f} over {len(values)} splits, "
          f"{high} above the one-sided 1 % point")
    # Under the null the z-values are about standard normal: their mean is within 4 standard
    # errors of 0, and more than 2 of 10 above the 1 % point happens with probability < 0.001.
    if abs(mean) > 4 / math.sqrt(len(values)):
        failures.append(f"fresh halves: mean z {mean:.2f} for {scope}")
    if high > max(2, len(values) // 5):
        failures.append(f"fresh halves: {high} z-values above 2.33 for {scope}")

for f in failures:
    print("MISMATCH", f)
print("PASS" if not failures else "FAIL")
sys.exit(0 if not failures else 1)
