#!/usr/bin/python3
"""Edit rules (the edit_rules metric, docs/config.md "Edit rules") against pandas on real survey
data (SD2011, tests/data/sd2011; income -8 declared missing): every rule's counts on the
confidential data, a real synthesis and the holdout equal pandas evaluations of the same rules
written independently (pandas' own missing-value conventions made explicit), and the one-sided
p-values equal scipy's fisher_exact. Then, over random splits of the holdout, a fresh half breaks
no rule (the verdict's gate passes it) and a fresh half with 10 records made impossible (widowed
under 25) fails naming that rule. Bad rules exit 2 with one line naming the rule.

Usage: edit_rules_reference.py SYNTHAUDIT DATA_DIR [SPLITS]
"""
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import fisher_exact

from survey_files import wilson

binary, data = sys.argv[1], Path(sys.argv[2])
splits = int(sys.argv[3]) if len(sys.argv) > 3 else 10
work = Path(tempfile.mkdtemp(prefix="edit_rules"))

RULES = """rules:
  - name: married_from_18
    when: marital in ("MARRIED", "DIVORCED", "WIDOWED", "LEGALLY SEPARATED", "DE FACTO SEPARATED")
    then: age >= 18
  - name: widowed_from_25
    when: marital == "WIDOWED"
    then: age >= 25
  - name: higher_education_from_19
    when: edu == 'POST-SECONDARY OR HIGHER'
    then: age >= 19
  - name: income_not_negative
    then: is_missing(income) | income >= 0
  - name: income_known
    severity: warning
    then: income >= 0
  - name: yearly_income_below_100k
    then: is_missing(income) | income * 12 / 1000 < 100
  - name: teen_single
    when: age in (16, 17)
    then: marital == "SINGLE" & !(smoke == "YES")
  - name: smoker_answer
    severity: warning
    then: smoke != "MAYBE"
  - name: both_sexes_per_education
    group_by: edu
    then: n_distinct(sex) == 2
  - name: marital_groups
    group_by: marital
    when: n() >= 20
    then: mean(income) > 500 & min(age) >= 16 & any(smoke == "YES")
  - name: age_span
    group_by: [sex, edu]
    then: max(age) - min(age) < 75 | all(age > 20)
  - name: income_total
    group_by: ls
    then: sum(income) > 100000
"""
MARRIED = ["MARRIED", "DIVORCED", "WIDOWED", "LEGALLY SEPARATED", "DE FACTO SEPARATED"]


def read(path):
    frame = pd.read_csv(path)
    frame.loc[frame["income"] == -8, "income"] = np.nan  # the declared missing code
    return frame


def record_rule(frame, applies, holds, columns):
    applies = applies.fillna(False).astype(bool)
    holds = holds.fillna(False).astype(bool)
    missing = frame[columns].isna().any(axis=1)
    return applies.sum(), (applies & ~holds).sum(), (applies & missing).sum()


def group_rule(frame, by, when, then, columns):
    """when/then: functions of a group's records giving a bool; pandas' groupby drops groups with
    a missing key, as the rules do."""
    applies = violations = with_missing = 0
    for _, group in frame.groupby(by, dropna=True):
        if not when(group):
            continue
        applies += 1
        violations += not then(group)
        with_missing += bool(group[columns].isna().any(axis=None))
    return applies, violations, with_missing


def pandas_counts(f):
    age, income, marital, smoke = f["age"], f["income"], f["marital"], f["smoke"]
    everyone = pd.Series(True, index=f.index)
    return {
        "married_from_18": record_rule(f, marital.isin(MARRIED), age >= 18, ["age", "marital"]),
        "widowed_from_25": record_rule(f, marital == "WIDOWED", age >= 25, ["age", "marital"]),
        "higher_education_from_19": record_rule(f, f["edu"] == "POST-SECONDARY OR HIGHER",
                                                age >= 19, ["age", "edu"]),
        "income_not_negative": record_rule(f, everyone, income.isna() | (income >= 0),
                                           ["income"]),
        "income_known": record_rule(f, everyone, income >= 0, ["income"]),
        "yearly_income_below_100k": record_rule(
            f, everyone, income.isna() | (income * 12 / 1000 < 100), ["income"]),
        # pandas' == is False on a missing value, as the rules'; ~(x == v) is then True.
        "teen_single": record_rule(f, age.isin([16, 17]),
                                   (marital == "SINGLE") & ~(smoke == "YES"),
                                   ["age", "marital", "smoke"]),
        # pandas' != is True on a missing value; the rules' comparisons are False on one.
        "smoker_answer": record_rule(f, everyone, smoke.notna() & (smoke != "MAYBE"), ["smoke"]),
        "both_sexes_per_education": group_rule(f, "edu", lambda g: True,
                                               lambda g: g["sex"].nunique() == 2, ["sex"]),
        "marital_groups": group_rule(
            f, "marital", lambda g: len(g) >= 20,
            lambda g: g["income"].mean() > 500 and g["age"].min() >= 16 and
            (g["smoke"] == "YES").any(), ["income", "age", "smoke"]),
        "age_span": group_rule(f, ["sex", "edu"], lambda g: True,
                               lambda g: g["age"].max() - g["age"].min() < 75 or
                               (g["age"] > 20).all(), ["age"]),
        "income_total": group_rule(f, "ls", lambda g: True,
                                   lambda g: g["income"].sum() > 100000, ["income"]),
    }


def evaluate(candidates, holdout, out, extra=()):
    args = [binary, "evaluate", "--confidential", str(data / "train.csv"), "--holdout",
            str(holdout), "--missing-codes", "income=-8", "--rules", str(work / "rules.yaml"),
            "--metrics", "edit_rules", "--threads", "2", "--out", str(out), "--quiet", *extra]
    for name, path in candidates.items():
        args += ["--synthetic", f"{name}={path}"]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"evaluate failed ({done.returncode}): {done.stderr}")
    table = pd.read_csv(out / "results.tsv", sep="\t", keep_default_na=False,
                        na_values=["NA"], dtype={"replicate": str})
    return table[table["metric"] == "edit_rules"], json.loads((out / "results.json").read_text())


(work / "rules.yaml").write_text(RULES)
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


# 1. Counts and p-values against pandas and scipy.
confidential = read(data / "train.csv")
cart = read(data / "train_syn.csv")
holdout = read(data / "holdout.csv")
table, document = evaluate({"cart": data / "train_syn.csv"}, data / "holdout.csv", work / "out")
rows = table[table["candidate"] == "cart"]


def value(statistic, rule):
    found = rows[(rows["statistic"] == statistic) & (rows["scope"] == f"rule={rule}")]["value"]
    return float(found.iloc[0]) if len(found) else math.nan


expected = {"cart": pandas_counts(cart), "confidential": pandas_counts(confidential),
            "holdout": pandas_counts(holdout)}
mismatches = []
for rule, (applies, violations, with_missing) in expected["cart"].items():
    c_applies, c_violations, c_missing = expected["confidential"][rule]
    h_applies, h_violations, _ = expected["holdout"][rule]
    pairs = [("applies", applies), ("violations", violations), ("with_missing", with_missing),
             ("confidential_applies", c_applies), ("confidential_violations", c_violations),
             ("confidential_with_missing", c_missing)]
    for statistic, want in pairs:
        if value(statistic, rule) != want:
            mismatches.append(f"{rule} {statistic}: synthaudit {value(statistic, rule)}, "
                              f"pandas {want}")
    if h_applies and abs(value("holdout_violation_rate", rule) - h_violations / h_applies) > 1e-15:
        mismatches.append(f"{rule} holdout_violation_rate")
    _, p = fisher_exact([[violations, applies - violations],
                         [c_violations, c_applies - c_violations]], alternative="greater")
    got = value("p_value", rule)
    if not abs(got - p) <= 1e-9 * max(p, 1e-300):
        mismatches.append(f"{rule} p_value: synthaudit {got}, scipy {p}")
check(not mismatches, f"{len(expected['cart'])} rules: counts equal pandas on the synthesis, the "
      f"confidential data and the holdout; p-values equal scipy's fisher_exact to 1e-9 "
      f"relative" + ("" if not mismatches else ": " + "; ".join(mismatches[:5])))
check(table[table["candidate"] == "holdout"].shape[0] > 0,
      "the holdout baseline is scored (max_excess_violation_rate's baseline)")

# 2. Fresh halves break no rule; a planted impossibility fails naming its rule.
holdout_raw = pd.read_csv(data / "holdout.csv")
passes = fails_named = 0
for split in range(splits):
    rng = np.random.default_rng(300 + split)
    order = rng.permutation(len(holdout_raw))
    half = len(order) // 2
    fresh = holdout_raw.iloc[order[:half]].copy()
    rest = holdout_raw.iloc[order[half:]]
    rest.to_csv(work / "rest.csv", index=False)
    fresh.to_csv(work / "fresh.csv", index=False)
    planted = fresh.copy()
    young = planted.index[(planted["age"] < 25) & (planted["marital"] != "WIDOWED")]
    planted.loc[rng.choice(young, 10, replace=False), "marital"] = "WIDOWED"
    planted.to_csv(work / "planted.csv", index=False)
    (work / "policy.yaml").write_text("require_default_checks: false\n")
    _, doc = evaluate({"fresh": work / "fresh.csv", "planted": work / "planted.csv"},
                      work / "rest.csv", work / "split", ["--policy", str(work / "policy.yaml")])
    status = {c["name"]: c for c in doc["verdict"]["candidates"]}
    passes += status["fresh"]["status"] == "pass"
    reasons = " ".join(status["planted"]["reasons"])
    fails_named += status["planted"]["status"] == "fail" and "rule=widowed_from_25" in reasons
    print(f"split {split + 1}: fresh {status['fresh']['status']}, planted "
          f"{status['planted']['status']}", flush=True)
low, high = wilson(passes, splits)
check(passes == splits, f"a fresh half passes in {passes} of {splits} splits (Wilson 95 % "
      f"{low:.3f}-{high:.3f})")
low, high = wilson(fails_named, splits)
check(fails_named == splits, f"10 records widowed under 25 fail naming the rule in "
      f"{fails_named} of {splits} splits (Wilson 95 % {low:.3f}-{high:.3f})")
# The counts of the planted candidate equal pandas'.
planted_table, _ = evaluate({"planted": work / "planted.csv"}, work / "rest.csv", work / "last")
planted_frame = pd.read_csv(work / "planted.csv")
planted_frame.loc[planted_frame["income"] == -8, "income"] = np.nan
want = pandas_counts(planted_frame)["widowed_from_25"]
got = planted_table[(planted_table["candidate"] == "planted") &
                    (planted_table["scope"] == "rule=widowed_from_25")]
got = {s: float(got[got["statistic"] == s]["value"].iloc[0])
       for s in ("applies", "violations", "with_missing")}
check(tuple(got.values()) == tuple(float(x) for x in want),
      f"the planted candidate's widowed_from_25 counts {got} equal pandas' {want}")

# 3. Bad rules: exit 2, one line naming the rule, no output.
BAD = [
    ("- {name: typo, then: ag >= 18}", "rules[0] ('typo').then: at position 1: no column 'ag' "
                                        "(did you mean 'age'?)"),
    ("- {name: text_order, then: sex > 'A'}", "rules[0] ('text_order').then: at position 1: '>' "
                                                "orders numbers, but this is text"),
    ("- {name: syntax, then: 'age >= '}", "rules[0] ('syntax').then: at position 8: expected a "
                                           "value"),
    ("- {name: group_fn, then: n() > 1}", "rules[0] ('group_fn').then: at position 1: n() "
                                           "summarises a group: it needs the rule's group_by"),
    ("- {name: bare_column, group_by: edu, then: age > 1}",
     "rules[0] ('bare_column').then: at position 1: in a rule over groups, column 'age' is read "
     "inside"),
    ("- {name: dup, then: age > 1}\n- {name: dup, then: age > 2}",
     "rules[1].name: 'dup' is used by another rule"),
    ("- {name: sev, then: age > 1, severity: fatal}",
     "rules[0] ('sev').severity: 'fatal' is not error or warning"),
]
for text, message in BAD:
    (work / "bad.yaml").write_text(text + "\n")
    done = subprocess.run(
        [binary, "evaluate", "--confidential", str(data / "train.csv"), "--synthetic",
         f"c={data / 'train_syn.csv'}", "--missing-codes", "income=-8", "--rules",
         str(work / "bad.yaml"), "--metrics", "edit_rules", "--out", str(work / "bad"), "--quiet"],
        capture_output=True, text=True)
    lines = done.stderr.strip().splitlines()
    check(done.returncode == 2 and len(lines) == 1 and message in lines[0] and
          not (work / "bad").exists(),
          f"bad rule exits 2 naming it: {lines[0] if lines else '(nothing)'}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
