#!/usr/bin/python3
"""The verdict's power against a leak of the most isolated records, and its false-alarm rate, on
real survey data with no disclosure keys declared (SD2011 orig.csv, 5,000 records).

Each split shuffles the file into a confidential part (2,000 records), a fresh sample (1,500) and
a holdout (1,500). The fresh sample is audited as the synthetic data (the null: it must pass);
then 1 % of its records (15) are replaced by near copies of the 15 most isolated confidential
records (mean Gower distance to their 5 nearest confidential records; age times 1.02), the leak
the issue describes, and audited again. Prints per split the membership_attacks headline and the
verdict, then the rates with Wilson 95 % intervals.

Usage: membership_attacks_power.py SYNTHAUDIT ORIG_CSV [SPLITS] [extra evaluate arguments...]
A long check (make calibration); it asserts nothing, it measures.
"""
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from survey_files import MISSING_TEXT, encode, gower, ranges_of, read_csv, wilson, write_csv

binary, orig = sys.argv[1], Path(sys.argv[2])
splits = int(sys.argv[3]) if len(sys.argv) > 3 else 20
extra = sys.argv[4:]
work = Path(tempfile.mkdtemp(prefix="attack_power"))
NUMERIC = {"age", "income"}
header, rows = read_csv(orig)


def isolation(records):
    """Mean Gower distance to the 5 nearest other records (ranges from these records)."""
    columns = encode(header, records, NUMERIC, {"income": -8})
    distances = gower(columns, columns, ranges_of(header, columns, NUMERIC))
    np.fill_diagonal(distances, np.inf)
    return np.sort(distances, axis=1)[:, :5].mean(axis=1)


def audit(candidate, seed):
    write_csv(work / "candidate.csv", header, candidate)
    done = subprocess.run(
        [binary, "evaluate", "--confidential", str(work / "conf.csv"), "--synthetic",
         f"c={work / 'candidate.csv'}", "--holdout", str(work / "holdout.csv"),
         "--missing-codes", "income=-8", "--threads", "2", "--seed", str(seed),
         "--out", str(work / "out"), "--quiet", *extra], capture_output=True, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"evaluate failed: {done.stderr}")
    document = json.loads((work / "out" / "results.json").read_text())
    values = {}
    for line in (work / "out" / "results.tsv").read_text().splitlines()[1:]:
        f = line.split("\t")
        if f[2] == "membership_attacks":
            values[(f[3], f[4])] = float("nan") if f[5] == "NA" else float(f[5])
    auc = values[("worst_case_auc", "isolated_1%")]
    z = (auc - 0.5) / values[("worst_case_auc_null_sd", "isolated_1%")]
    candidate = document["verdict"]["candidates"][0]
    flagged = [c.get("criterion", "") for c in candidate["checks"]
               if c.get("status") in ("fail", "review")]
    return candidate["status"], auc, z, flagged


outcomes = {"fresh": [], "leak": []}
for split in range(splits):
    rng = random.Random(500 + split)
    shuffled = rows[:]
    rng.shuffle(shuffled)
    confidential, fresh, holdout = shuffled[:2000], shuffled[2000:3500], shuffled[3500:]
    write_csv(work / "conf.csv", header, confidential)
    write_csv(work / "holdout.csv", header, holdout)
    most_isolated = np.argsort(-isolation(confidential), kind="stable")[:len(fresh) // 100]
    leak = fresh[:]
    for j, record in enumerate(most_isolated):
        copy = confidential[record][:]
        if copy[1] not in MISSING_TEXT:
            copy[1] = repr(float(copy[1]) * 1.02)
        leak[j] = copy
    for kind, candidate in (("fresh", fresh), ("leak", leak)):
        status, auc, z, flagged = audit(candidate, split + 1)
        outcomes[kind].append((status, z))
        print(f"split {split + 1} {kind}: {status}; worst_case_auc[isolated_1%] {auc:.3f} "
              f"(z {z:+.2f}); flagged: {', '.join(flagged) or 'none'}", flush=True)
for kind, results in outcomes.items():
    for status in ("fail", "review"):
        k = sum(s == status for s, _ in results)
        low, high = wilson(k, len(results))
        print(f"{kind}: {status} in {k} of {len(results)} splits "
              f"(Wilson 95 % interval {100 * low:.1f} % to {100 * high:.1f} %)")
    k = sum(z > 2.326 for _, z in results)
    print(f"{kind}: headline z above the one-sided 1 % point in {k} of {len(results)}")
