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
3. The first split as related tables (households.csv and persons.csv in a folder per dataset,
   `--tables`): each relation's counts, orphan and childless shares exactly as pandas counts them
   and the children-per-household TV and KS distances (childless households as 0) as pandas and
   scipy compute them, a candidate with 3 % orphans and 2 % childless households failing on its
   orphans, the household metrics on the joined tables equal to those on the person-level file,
   and bad declarations exiting 2 with one line naming the key.
4. Fixed related-tables files (tests/data/eusilc/related): the relation's
   cardinality_shape_similarity, cardinality_boundary_adherence and referential_integrity equal
   SDMetrics' CardinalityShapeSimilarity, CardinalityBoundaryAdherence and ReferentialIntegrity
   computed by SDMetrics' own source (tests/golden/households) to 1e-12.

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
table_first_split = table
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
    for who, frame in (("conf", conf), ("syn", syn)):
        counts = signatures(frame, KEYS).value_counts()
        want = counts[counts < 3].sum() / counts.sum()
        got = value(table, name, "household_disclosure", f"{who}_below_k_household_share")
        check(abs(got - want) < 1e-12, f"{name}: {who}_below_k_household_share {got} = pandas "
              f"{want}")
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

# --- related tables --------------------------------------------------------------------------
# The first split's files as households and persons tables, and a candidate `broken`: the fresh
# sample with 2 % extra (childless) households and 3 % of its persons moved to households that do
# not exist (orphans).
HOUSEHOLD = ["db030"] + HOUSEHOLD_LEVEL
PERSON = ["pid", "db030"] + [c for c in persons.columns if c not in HOUSEHOLD]
first_split = {name: pd.read_csv(work / "split1" / f"{name}.csv") for name in
               ("conf", "holdout", "fresh")}
related = work / "related"
tables = {}
for name, frame in first_split.items():
    frame = frame.copy()
    frame["pid"] = np.arange(len(frame)) + 1
    tables[name] = (frame.groupby("db030", as_index=False)[HOUSEHOLD_LEVEL].first(),
                    frame[PERSON])
households, people = (t.copy() for t in tables["fresh"])
extra = households.sample(n=round(0.02 * len(households)), random_state=3)
extra["db030"] += 900000
moved = people.sample(n=round(0.03 * len(people)), random_state=4).index
people.loc[moved, "db030"] += 800000
tables["broken"] = (pd.concat([households, extra]), people)
for name, (h, p) in tables.items():
    (related / name).mkdir(parents=True)
    h.to_csv(related / name / "households.csv", index=False)
    p.to_csv(related / name / "persons.csv", index=False)
(work / "tables.yaml").write_text(
    "tables:\n  households: {primary_key: db030}\n"
    "  persons: {primary_key: pid, parent: households, foreign_key: db030}\n")


def evaluate_related(out, candidates, extra=()):
    args = [binary, "evaluate", "--tables", str(work / "tables.yaml"),
            "--confidential", str(related / "conf"), "--holdout", str(related / "holdout"),
            "--metrics", "household_structure,household_composition",
            "--policy", str(work / "policy.yaml"), "--threads", "2", "--quiet",
            "--out", str(out), *extra]
    for name in candidates:
        args += ["--synthetic", f"{name}={related / name}"]
    return subprocess.run(args, capture_output=True, text=True)


done = evaluate_related(work / "related_out", ["fresh", "broken"])
if done.returncode not in (0, 3):
    sys.exit(f"related tables: evaluate failed ({done.returncode}): {done.stderr}")
doc = json.loads((work / "related_out" / "results.json").read_text())
entries = {d["dataset"]: d for d in doc["relations"][0]["datasets"]}
conf_h, conf_p = tables["conf"]


def children_per_parent(h, p):
    counts = p["db030"].value_counts()
    return h["db030"].map(counts).fillna(0).to_numpy()


conf_counts = children_per_parent(conf_h, conf_p)
for name in ("holdout", "fresh", "broken"):
    h, p = tables[name]
    counts = children_per_parent(h, p)
    want = {"orphans": int((~p["db030"].isin(h["db030"])).sum()),
            "childless_parents": int((counts == 0).sum()),
            "children": len(p), "parents": len(h)}
    got = {k: entries[name][k] for k in want}
    check(got == want, f"related tables, {name}: counts {got} = pandas {want}")
    check(abs(entries[name]["orphan_share"] - want["orphans"] / len(p)) < 1e-15 and
          abs(entries[name]["childless_share"] - want["childless_parents"] / len(h)) < 1e-15,
          f"related tables, {name}: orphan share {entries[name]['orphan_share']} and childless "
          f"share {entries[name]['childless_share']} exact")
    p_conf = pd.Series(conf_counts).value_counts(normalize=True)
    p_syn = pd.Series(counts).value_counts(normalize=True)
    tv = total_variation(p_conf, p_syn)
    ks = ks_2samp(conf_counts, counts).statistic
    check(abs(entries[name]["cardinality_tv"] - tv) < 1e-12 and
          abs(entries[name]["cardinality_ks"] - ks) < 1e-12,
          f"related tables, {name}: children-per-household TV {entries[name]['cardinality_tv']} "
          f"and KS {entries[name]['cardinality_ks']} = pandas/scipy {tv}, {ks}")
status = {c["name"]: c for c in doc["verdict"]["candidates"]}
reasons = " ".join(status["broken"]["reasons"])
check(status["broken"]["status"] == "fail" and "orphans" in reasons,
      f"related tables: the broken candidate fails on its orphans ({reasons[:160]})")
check(status["fresh"]["status"] != "fail", "related tables: the fresh sample does not fail")
# The joined tables are the person-level file: the household metrics give the flat file's values.
joined = pd.read_csv(work / "related_out" / "results.tsv", sep="\t", keep_default_na=False,
                     na_values=["NA"], dtype={"replicate": str})
for metric, statistic, scope in (("household_structure", "household_size_tv", "all"),
                                 ("household_structure", "household_size_tv", "db040"),
                                 ("household_composition", "composition_distance", "age:sd"),
                                 ("household_composition", "composition_distance_mean", "all")):
    flat = value(table_first_split, "fresh", metric, statistic, scope)
    got = value(joined, "fresh", metric, statistic, scope)
    check(abs(got - flat) < 1e-12, f"related tables: {statistic} [{scope}] {got} = the "
          f"person-level file's {flat}")

# Bad declarations exit 2 with one line naming the key.
BAD = [
    ("tables:\n  households: {primary_key: db030}\n"
     "  persons: {primary_key: pid, parent: household, foreign_key: db030}\n",
     "tables.persons.parent: no table 'household' (did you mean 'households'?)"),
    ("tables:\n  households: {primary_key: db030}\n"
     "  persons: {primary_key: pid, parent: households, foreign_key: db03}\n",
     "bad1.yaml: tables.persons.foreign_key: no column 'db03'"),
    ("tables:\n  households: {primary_key: db030}\n  persons: {primary_key: pid}\n",
     "expected one table without a parent (the root), found 2"),
    ("tables:\n  households: {primary_key: db030}\n"
     "  people: {primary_key: pid, parent: households, foreign_key: db030}\n",
     "no file for the table 'people'"),
]
for i, (text, expected) in enumerate(BAD):
    (work / f"bad{i}.yaml").write_text(text)
    done = subprocess.run([binary, "evaluate", "--tables", str(work / f"bad{i}.yaml"),
                           "--confidential", str(related / "conf"), "--synthetic",
                           f"fresh={related / 'fresh'}", "--metrics", "household_structure",
                           "--out", str(work / f"bad_out{i}"), "--quiet"],
                          capture_output=True, text=True)
    lines = done.stderr.strip().splitlines()
    check(done.returncode == 2 and len(lines) == 1 and expected in lines[0]
          and not (work / f"bad_out{i}").exists(),
          f"bad tables {i}: exit {done.returncode}, one line naming the key: {lines[:2]}")

# Column settings name columns of any table: a missing code of a person column applies to the
# persons file; one that no table has is an error naming it.
for code, expected in (("age=-1", None), ("agee=-1", "missing_codes.agee: no table has a column")):
    done = subprocess.run([binary, "evaluate", "--tables", str(work / "tables.yaml"),
                           "--confidential", str(related / "conf"), "--synthetic",
                           f"fresh={related / 'fresh'}", "--missing-codes", code,
                           "--metrics", "household_structure", "--baseline-draws", "0",
                           "--out", str(work / f"codes_{code}"), "--quiet"],
                          capture_output=True, text=True)
    if expected is None:
        columns = json.loads((work / f"codes_{code}" / "results.json").read_text())["columns"]
        check(done.returncode in (0, 3) and any(c["name"] == "age" and
                                                c.get("missing_codes") == [-1] for c in columns),
              f"related tables: --missing-codes {code} applies to the persons table")
    else:
        check(done.returncode == 2 and expected in done.stderr,
              f"related tables: --missing-codes {code} exits 2 naming it: {done.stderr.strip()}")

# --- SDMetrics' multi-table measures on fixed files -------------------------------------------
# tests/data/eusilc/related (make_related.py) against SDMetrics' own source
# (tests/golden/households/make_sdmetrics_golden.py).
golden = json.loads((data.parent.parent / "golden" / "households" /
                     "sdmetrics_golden.json").read_text())
done = subprocess.run([binary, "evaluate", "--tables", str(work / "tables.yaml"),
                       "--confidential", str(data / "related" / "conf"),
                       "--synthetic", f"cand={data / 'related' / 'cand'}",
                       "--metrics", "household_structure", "--baseline-draws", "0",
                       "--quiet", "--out", str(work / "sdmetrics_out")],
                      capture_output=True, text=True)
if done.returncode not in (0, 3):
    sys.exit(f"evaluate on the fixed related tables failed ({done.returncode}): {done.stderr}")
entry = next(d for d in json.loads((work / "sdmetrics_out" / "results.json").read_text())
             ["relations"][0]["datasets"] if d["dataset"] == "cand")
for measure in ("cardinality_shape_similarity", "cardinality_boundary_adherence",
                "referential_integrity"):
    check(abs(entry[measure] - golden[measure]) < 1e-12,
          f"{measure} {entry[measure]!r} = {golden['software']}'s {golden[measure]!r}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
