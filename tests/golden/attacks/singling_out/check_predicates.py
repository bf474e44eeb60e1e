#!/usr/bin/env python3
"""Independent check of the singling-out attack's predicate counts and success numbers.

Usage: check_predicates.py RESULTS_JSON TRAIN_CSV SYNTHETIC_CSV [HOLDOUT_CSV] [--missing COL=CODE]...
Run with Debian's /usr/bin/python3 (pandas, scipy).

Reads the predicates that synthaudit listed (metric singling_out_attack with
list_predicates=true; they are pandas query expressions) from results.json and, with pandas'
own query engine on the CSV files (duplicate records dropped, as the attack does):
  - every attack predicate matches exactly one distinct synthetic record;
  - the match counts on the training data and the holdout equal synthaudit's exactly, for the
    attack predicates and the random baseline predicates;
  - n_success, n_control and n_baseline equal the sums of scipy's hypergeometric P(X = 1) at the
    compared size (the plain count of exact singletons when a file is at that size) to 1e-9
    relative; n_success_full / n_control_full equal the plain counts.
Prints one line per mode and exits non-zero on the first disagreement.
"""
import argparse
import json
import sys

import pandas as pd
from scipy.stats import hypergeom

parser = argparse.ArgumentParser()
parser.add_argument("results")
parser.add_argument("train")
parser.add_argument("synthetic")
parser.add_argument("holdout", nargs="?")
parser.add_argument("--missing", action="append", default=[], help="COLUMN=CODE")
options = parser.parse_args()
missing = {m.split("=")[0]: float(m.split("=")[1]) for m in options.missing}
results_path, train_path, syn_path = options.results, options.train, options.synthetic
holdout_path = options.holdout

with open(results_path) as f:
    results = json.load(f)
metric = next((m for m in results["metrics"] if m["name"] == "singling_out_attack"), None)
if metric is None:
    sys.exit("no singling_out_attack result in " + results_path)
entry = metric["candidates"][0]["replicates"][0]
details = entry["details"]
categorical = set(details["categorical_columns"])


def read(path):
    df = pd.read_csv(path, dtype={c: str for c in categorical})
    for col, code in missing.items():
        df[col] = df[col].replace(code, float("nan"))
    return df.drop_duplicates().reset_index(drop=True)


train, syn = read(train_path), read(syn_path)
control = read(holdout_path) if holdout_path else None
values = {}
for v in entry["values"]:
    values[(v["statistic"], v["scope"])] = v["value"]


def count(df, query):
    return len(df.query(query, engine="python"))


def expected_singles(counts, population, size):
    if size == population:
        return float(sum(1 for m in counts if m == 1))
    return float(sum(hypergeom.pmf(1, population, m, size) for m in counts))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


failures = 0
for mode in details["singling_out"]:
    scope = mode["scope"]
    size = mode["compared_size"]
    assert len(train) == mode["training_records"], (len(train), mode["training_records"])
    assert len(syn) == mode["synthetic_records"]
    train_counts, control_counts = [], []
    for p in mode["predicates"]:
        q = p["query"]
        if count(syn, q) != 1:
            print(f"FAIL {scope}: {q} does not single out a synthetic record")
            failures += 1
        m = count(train, q)
        train_counts.append(m)
        if m != p["training_matches"]:
            print(f"FAIL {scope}: {q}: training {m} != {p['training_matches']}")
            failures += 1
        if control is not None:
            c = count(control, q)
            control_counts.append(c)
            if c != p["control_matches"]:
                print(f"FAIL {scope}: {q}: control {c} != {p['control_matches']}")
                failures += 1
    baseline_counts = []
    for p in mode["baseline_predicates"]:
        m = count(train, p["query"])
        baseline_counts.append(m)
        if m != p["training_matches"]:
            print(f"FAIL {scope}: baseline {p['query']}: training {m} != {p['training_matches']}")
            failures += 1
    n = len(mode["predicates"])
    checks = [("n_attacks", float(n)),
              ("n_success", expected_singles(train_counts, len(train), size)),
              ("n_success_full", float(sum(1 for m in train_counts if m == 1))),
              ("n_baseline", expected_singles(baseline_counts, len(train), size) * n
               / len(mode["baseline_predicates"]))]
    if control is not None:
        assert len(control) == mode["control_records"]
        checks += [("n_control", expected_singles(control_counts, len(control), size)),
                   ("n_control_full", float(sum(1 for m in control_counts if m == 1)))]
    for statistic, expected in checks:
        got = values[(statistic, scope)]
        if not close(got, expected):
            print(f"FAIL {scope}: {statistic} {got} != {expected}")
            failures += 1
    print(f"{scope}: {n} predicates, {len(baseline_counts)} baseline predicates checked; "
          + ", ".join(f"{s}={e:.6g}" for s, e in checks))
sys.exit(1 if failures else 0)
