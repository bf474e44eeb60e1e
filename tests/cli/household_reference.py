#!/usr/bin/python3
"""Households (docs/metrics.md: household_structure, household_composition, household_disclosure)
on a real person-level household file: the EU-SILC file of R's laeken package
(tests/data/eusilc, 14,827 persons in 6,000 households). Each split draws whole households at
random into a confidential part (3,000 households), a holdout (1,500) and a fresh sample (the
remaining 1,500), the honest candidate. Three dishonest candidates are made from the fresh
sample: `dealt` (its persons dealt into its households at random, the household-level columns
then made one value per household again, as a synthesiser that draws persons and households
separately would), `copies` (10 % of its households replaced by confidential households under
new identifiers) and `orphans` (3 % of its persons without a household identifier).

1. On the first split every number is checked against pandas/scipy written independently: the
   persons-per-household total variation (overall and by region) to 1e-12, the KS distance and
   SDMetrics' CardinalityShapeSimilarity / CardinalityBoundaryAdherence formulas, the shares of
   inconsistent households, aggregates' KS distances, exact household copies and replicated
   unique households.
2. Over the splits the verdict (default policy without the record-level families) never fails
   the fresh sample (40 splits: passed in 39, sent to review once by the household risk test at
   its 5 % level; the structure and composition gates never fired), and fails `dealt` naming
   household aggregates, `copies` naming households and `orphans` naming the household column
   (40 of 40 each); the rates are printed with Wilson intervals.

Usage: household_reference.py SYNTHAUDIT DATA_DIR [SPLITS]
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

from survey_files import wilson

binary, data = sys.argv[1], Path(sys.argv[2])
splits = int(sys.argv[3]) if len(sys.argv) > 3 else 10
work = Path(tempfile.mkdtemp(prefix="households"))
persons = pd.read_csv(data / "eusilc.csv.gz")
HOUSEHOLD_LEVEL = ["hsize", "db040", "hy040n", "hy050n", "hy070n", "hy090n", "eqSS", "eqIncome"]
KEYS = ["db040", "age", "rb090"]
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def make_split(seed):
    rng = np.random.default_rng(seed)
    ids = persons["db030"].unique()
    rng.shuffle(ids)
    conf = persons[persons["db030"].isin(ids[:3000])]
    holdout = persons[persons["db030"].isin(ids[3000:4500])]
    fresh = persons[persons["db030"].isin(ids[4500:])]
    dealt = fresh.copy()
    dealt["db030"] = rng.permutation(dealt["db030"].to_numpy())
    first = dealt.groupby("db030")[HOUSEHOLD_LEVEL].transform("first")
    dealt[HOUSEHOLD_LEVEL] = first
    dealt["hsize"] = dealt.groupby("db030")["db030"].transform("size")
    fresh_ids = fresh["db030"].unique()
    replaced = rng.choice(fresh_ids, size=len(fresh_ids) // 10, replace=False)
    copied = rng.choice(conf["db030"].unique(), size=len(replaced), replace=False)
    copies = conf[conf["db030"].isin(copied)].copy()
    copies["db030"] += 100000
    copies = pd.concat([fresh[~fresh["db030"].isin(replaced)], copies])
    orphans = fresh.copy()
    lost = rng.choice(len(orphans), size=round(0.03 * len(orphans)), replace=False)
    orphans["db030"] = orphans["db030"].astype("float")
    orphans.iloc[lost, orphans.columns.get_loc("db030")] = np.nan
    frames = {"conf": conf, "holdout": holdout, "fresh": fresh, "dealt": dealt,
              "copies": copies, "orphans": orphans}
    folder = work / f"split{seed}"
    folder.mkdir()
    for name, frame in frames.items():
        frame.to_csv(folder / f"{name}.csv", index=False)
    return folder, frames


def evaluate(folder, extra=()):
    args = [binary, "evaluate", "--confidential", str(folder / "conf.csv"),
            "--holdout", str(folder / "holdout.csv"), "--household", "db030",
            "--metrics", "household_structure,household_composition,household_disclosure",
            "--param", "household_disclosure.keys=" + ",".join(KEYS),
            "--policy", str(work / "policy.yaml"), "--threads", "2", "--quiet",
            "--out", str(folder / "out"), *extra]
    for name in ("fresh", "dealt", "copies", "orphans"):
        args += ["--synthetic", f"{name}={folder / (name + '.csv')}"]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"evaluate failed ({done.returncode}): {done.stderr}")
    table = pd.read_csv(folder / "out" / "results.tsv", sep="\t", keep_default_na=False,
                        na_values=["NA"], dtype={"replicate": str})
    return table, json.loads((folder / "out" / "results.json").read_text())


def value(table, candidate, metric, statistic, scope="all"):
    rows = table[(table["candidate"] == candidate) & (table["metric"] == metric) &
                 (table["statistic"] == statistic) & (table["scope"] == scope) &
                 (table["replicate"] == "1")]
    if len(rows) != 1:
        sys.exit(f"no single {candidate} {metric} {statistic} [{scope}]: {len(rows)} rows")
    return float(rows["value"].iloc[0])


# --- pandas references -------------------------------------------------------------------------
def size_shares(frame, by=None):
    households = frame.dropna(subset=["db030"]).groupby("db030")
    sizes = households.size()
    if by is None:
        return sizes.value_counts(normalize=True)
    level = households[by].first().fillna("NA")
    return pd.crosstab(level, sizes).stack().pipe(lambda s: s[s > 0] / s.sum())


def total_variation(p, q):
    p, q = p.align(q, fill_value=0.0)
    return 0.5 * (p - q).abs().sum()


def inconsistent_share(frame, column):
    households = frame.dropna(subset=["db030"]).groupby("db030")[column]
    return (households.nunique(dropna=False) > 1).mean()


def aggregate(frame, column, how):
    groups = frame.dropna(subset=["db030"]).groupby("db030")
    if how == "size":
        return groups.size().to_numpy(float)
    if how == "sd":
        return groups[column].agg(lambda x: x.dropna().std(ddof=0)).dropna().to_numpy()
    if how == "share":
        col, level = column
        return groups[col].agg(lambda x: (x == level).mean()).to_numpy()
    return groups[column].agg(how).dropna().to_numpy()


def signatures(frame, columns):
    households = frame.dropna(subset=["db030"]).groupby("db030")
    return households[columns].apply(
        lambda g: tuple(sorted(tuple("NA" if pd.isna(v) else v for v in row)
                               for row in g.itertuples(index=False))))


def replicated_unique_share(conf, syn):
    c = signatures(conf, KEYS).value_counts()
    s = signatures(syn, KEYS)
    counts = s.value_counts()
    unique = s[s.map(counts) == 1]
    return unique.map(lambda sig: c.get(sig, 0) == 1).sum() / len(s)


def copy_share(conf, syn):
    columns = [c for c in persons.columns if c != "db030"]
    conf_signatures = set(signatures(conf, columns))
    s = signatures(syn, columns)
    return s.map(lambda sig: sig in conf_signatures).mean()


(work / "policy.yaml").write_text("require_default_checks: false\n")
folder, frames = make_split(1)
table, doc = evaluate(folder)
conf = frames["conf"]
for name in ("fresh", "dealt", "copies", "orphans"):
    syn = frames[name]
    want = total_variation(size_shares(conf), size_shares(syn))
    got = value(table, name, "household_structure", "household_size_tv")
    check(abs(got - want) < 1e-12, f"{name}: household_size_tv {got:.15g} = pandas {want:.15g}")
    want = total_variation(size_shares(conf, "db040"), size_shares(syn, "db040"))
    got = value(table, name, "household_structure", "household_size_tv", "db040")
    check(abs(got - want) < 1e-12,
          f"{name}: household size by region TV {got:.15g} = pandas {want:.15g}")
    conf_sizes, syn_sizes = aggregate(conf, None, "size"), aggregate(syn, None, "size")
    ks = ks_2samp(conf_sizes, syn_sizes).statistic
    got = value(table, name, "household_structure", "household_size_ks")
    check(abs(got - ks) < 1e-12, f"{name}: household_size_ks {got:.15g} = scipy {ks:.15g}")
    got = value(table, name, "household_structure", "cardinality_shape_similarity")
    check(abs(got - (1 - ks)) < 1e-12, f"{name}: cardinality_shape_similarity = 1 - KS")
    want = np.mean((syn_sizes >= conf_sizes.min()) & (syn_sizes <= conf_sizes.max()))
    got = value(table, name, "household_structure", "size_within_bounds_share")
    check(abs(got - want) < 1e-12, f"{name}: size_within_bounds_share {got} = {want}")
    want = syn["db030"].isna().mean()
    got = value(table, name, "household_structure", "persons_without_household_share")
    check(abs(got - want) < 1e-12, f"{name}: persons_without_household_share {got} = {want}")
    for column in ("hsize", "db040", "eqIncome"):
        want = inconsistent_share(syn, column)
        got = value(table, name, "household_structure", "household_inconsistent_share", column)
        check(abs(got - want) < 1e-12,
              f"{name}: household_inconsistent_share [{column}] {got} = pandas {want}")
    for scope, column, how in (("size", None, "size"), ("age:sd", "age", "sd"),
                               ("age:max", "age", "max"), ("py010n:mean", "py010n", "mean"),
                               ("rb090=female:share", ("rb090", "female"), "share")):
        want = ks_2samp(aggregate(conf, column, how), aggregate(syn, column, how)).statistic
        got = value(table, name, "household_composition", "composition_distance", scope)
        check(abs(got - want) < 1e-12,
              f"{name}: composition_distance [{scope}] {got:.15g} = scipy {want:.15g}")
    want = copy_share(conf, syn)
    got = value(table, name, "household_disclosure", "household_copy_share")
    check(abs(got - want) < 1e-12, f"{name}: household_copy_share {got} = pandas {want}")
    want = replicated_unique_share(conf, syn)
    got = value(table, name, "household_disclosure", "replicated_unique_household_share")
    check(abs(got - want) < 1e-12,
          f"{name}: replicated_unique_household_share {got} = pandas {want}")
check(value(table, "copies", "household_disclosure", "household_copy_share") >= 0.099,
      "the copies candidate's household_copy_share is its planted 10 %")

# --- the verdict over splits -------------------------------------------------------------------
fresh_fails = fresh_passes = fresh_gated = 0
outcomes = {"dealt fails on composition": 0,
            "copies fail naming households": 0, "orphans fail naming db030": 0}
for split in range(1, splits + 1):
    if split > 1:
        folder, frames = make_split(split)
        table, doc = evaluate(folder)
    status = {c["name"]: c for c in doc["verdict"]["candidates"]}
    reasons = {name: " ".join(c["reasons"]) for name, c in status.items()}
    fresh_fails += status["fresh"]["status"] == "fail"
    fresh_passes += status["fresh"]["status"] == "pass"
    fresh_gated += any(value(table, "fresh", metric, statistic) > 0 for metric, statistic in (
        ("household_structure", "structure_defects"),
        ("household_composition", "composition_differences")))
    outcomes["dealt fails on composition"] += (
        status["dealt"]["status"] == "fail" and "household aggregates" in reasons["dealt"].lower())
    outcomes["copies fail naming households"] += (
        status["copies"]["status"] == "fail" and "copy a real household" in reasons["copies"])
    outcomes["orphans fail naming db030"] += (
        status["orphans"]["status"] == "fail" and "(db030)" in reasons["orphans"])
    print(f"split {split}: " + ", ".join(f"{n} {c['status']}" for n, c in status.items()),
          flush=True)
# A fresh sample is sent to review at the verdict's own false-alarm rate (its risk tests are at
# the 5 % level, Holm over two), but never fails, and the gates' tests never fire on it.
low, high = wilson(fresh_passes, splits)
print(f"a fresh sample passes in {fresh_passes} of {splits} splits (Wilson 95 % {low:.3f}-"
      f"{high:.3f}); the others are sent to review")
check(fresh_fails == 0, f"a fresh sample fails in {fresh_fails} of {splits} splits")
low, high = wilson(fresh_gated, splits)
check(fresh_gated == 0, f"the structure and composition gates fire on a fresh sample in "
      f"{fresh_gated} of {splits} splits (Wilson 95 % {low:.3f}-{high:.3f})")
if splits >= 20:
    check(fresh_passes >= 0.85 * splits, "a fresh sample passes in at least 85 % of the splits")
for what, count in outcomes.items():
    low, high = wilson(count, splits)
    check(count == splits, f"{what} in {count} of {splits} splits (Wilson 95 % {low:.3f}-"
          f"{high:.3f})")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
