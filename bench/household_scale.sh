#!/usr/bin/env bash
# Households at census scale (issue 37, item 7): related tables of HOUSEHOLDS households and about
# 2.5 persons each per dataset (confidential, holdout and one candidate, each a fresh draw of the
# same generator), read with --tables, checked and joined, then the three household metrics with
# their baselines (5 resample and 5 holdout draws of whole households, the utility floor) under
# /usr/bin/time -v. Not part of `make test`; `make bench` does not run it either (minutes).
#
#   bench/household_scale.sh [BUILD_DIR]        (default build)
#
# Environment: HOUSEHOLDS (default 1000000), HOUSEHOLD_DIR (default /tmp/household-scale),
# HOUSEHOLD_THREADS (default 2). Target (2 idle cores): 1M households + 2.5M persons per dataset
# within 10 minutes wall.
set -euo pipefail

BUILD=${1:-build}
BIN=$(cd "$(dirname "$BUILD/synthaudit")" && pwd)/synthaudit
N=${HOUSEHOLDS:-1000000}
DIR=${HOUSEHOLD_DIR:-/tmp/household-scale}/$N
THREADS=${HOUSEHOLD_THREADS:-2}
mkdir -p "$DIR"
echo "machine: $(lscpu | grep 'Model name' | sed 's/Model name: *//'), $(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

if [ ! -s "$DIR/conf/persons.csv" ]; then
  /usr/bin/python3 - "$DIR" "$N" <<'PY'
import sys
from pathlib import Path
import numpy as np
import pandas as pd

out, n = Path(sys.argv[1]), int(sys.argv[2])
# Household sizes as in EU-SILC (laeken's eusilc: 1745, 1812, 1049, 877, 363, 105, 36, 11, 2).
sizes = np.arange(1, 10)
shares = np.array([1745, 1812, 1049, 877, 363, 105, 36, 11, 2], float)
shares /= shares.sum()
for seed, name in enumerate(("conf", "holdout", "fresh")):
    rng = np.random.default_rng(37 + seed)
    size = rng.choice(sizes, size=n, p=shares)
    hid = np.arange(1, n + 1)
    region = rng.integers(0, 9, n)
    households = pd.DataFrame({
        "hid": hid, "region": np.array(list("ABCDEFGHI"))[region],
        "tenure": rng.choice(["own", "rent", "free"], n, p=[0.6, 0.35, 0.05]),
        "hincome": np.round(rng.lognormal(10 + 0.05 * region, 0.6), 0)})
    member_of = np.repeat(hid, size)
    k = len(member_of)
    first = np.r_[True, member_of[1:] != member_of[:-1]]
    position = np.arange(k) - np.maximum.accumulate(np.where(first, np.arange(k), 0))
    adult = position < 2
    age = np.where(adult, rng.integers(20, 90, k), rng.integers(0, 25, k))
    persons = pd.DataFrame({
        "pid": np.arange(1, k + 1), "hid": member_of, "age": age,
        "sex": rng.choice(["F", "M"], k),
        "status": np.where(age < 16, "child", rng.choice(["work", "unemployed", "retired",
                                                          "other"], k, p=[.55, .1, .25, .1])),
        "income": np.where(age < 16, np.nan, np.round(rng.lognormal(9.5, 0.8, k), 0))})
    (out / name).mkdir(parents=True, exist_ok=True)
    households.to_csv(out / name / "households.csv", index=False)
    persons.to_csv(out / name / "persons.csv", index=False)
    print(name, n, "households,", k, "persons", flush=True)
PY
fi
cat > "$DIR/tables.yaml" <<'YAML'
tables:
  households: {primary_key: hid}
  persons: {primary_key: pid, parent: households, foreign_key: hid}
YAML

echo "== $N households: --tables, the three household metrics with their baselines"
/usr/bin/time -v "$BIN" evaluate --tables "$DIR/tables.yaml" --confidential "$DIR/conf" \
  --holdout "$DIR/holdout" --synthetic "fresh=$DIR/fresh" --threads "$THREADS" \
  --metrics household_structure,household_composition,household_disclosure \
  --out "$DIR/out" --quiet 2>"$DIR/time.txt" | sed -n '1,4p' || true
grep -E "Elapsed|Maximum resident|User time|System time" "$DIR/time.txt"
/usr/bin/python3 - "$DIR/out/results.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for m in doc["metrics"]:
    seconds = sum(r.get("wall_seconds", 0) for c in m["candidates"] for r in c.get("replicates", []))
    print(f"  {m['name']}: {seconds:.1f} s over every run (candidate and baseline draws)")
PY
