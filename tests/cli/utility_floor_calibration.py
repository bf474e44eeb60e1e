#!/usr/bin/python3
"""The verdict's utility floor on real survey data (SD2011, tests/data/sd2011), over random splits:
the holdout is split at random into two halves; one half is audited as a candidate `fresh` (a
real sample of the population: fit for use by definition), beside `indep`, a file of the same
size whose columns are drawn each on its own from the confidential data (independent marginals:
no relationship between columns kept), and `cart`, a random subsample of synthpop's CART
synthesis of the same size. The utility floor must pass `fresh` and `cart` in every split, and
never pass `indep` (it fails, or is sent to review where its margin of noise reaches the floor),
which must never be recommended; the share of splits in which `indep` fails is printed.

Usage: utility_floor_calibration.py SYNTHAUDIT DATA_DIR [SPLITS]
Prints one line per split and the rates with Wilson 95 % intervals; exit 1 when a bound is broken.
"""
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from survey_files import read_csv, wilson, write_csv

binary, data = sys.argv[1], Path(sys.argv[2])
splits = int(sys.argv[3]) if len(sys.argv) > 3 else 20
work = Path(tempfile.mkdtemp(prefix="utility_floor"))
(work / "policy.yaml").write_text("require_default_checks: false\n")

header, holdout = read_csv(data / "holdout.csv")
_, confidential = read_csv(data / "train.csv")
_, cart = read_csv(data / "train_syn.csv")
names = ("fresh", "indep", "cart")
floor_status = {name: {"pass": 0, "review": 0, "fail": 0, "not_evaluated": 0} for name in names}
kept = {name: [] for name in names}
indep_recommended = 0
for split in range(splits):
    rng = random.Random(2000 + split)
    rows = holdout[:]
    rng.shuffle(rows)
    half = len(rows) // 2
    files = {
        "fresh": rows[:half],
        "indep": [[rng.choice(confidential)[c] for c in range(len(header))] for _ in range(half)],
        "cart": rng.sample(cart, half),
    }
    for name, candidate in files.items():
        write_csv(work / f"{name}.csv", header, candidate)
    write_csv(work / "holdout.csv", header, rows[half:])
    done = subprocess.run(
        [binary, "evaluate", "--confidential", str(data / "train.csv"),
         *[arg for name in names for arg in ("--synthetic", f"{name}={work / (name + '.csv')}")],
         "--holdout", str(work / "holdout.csv"), "--missing-codes", "income=-8",
         "--metrics", "general,propensity,distance_to_closest_record",
         "--policy", str(work / "policy.yaml"), "--seed", str(split + 1),
         "--threads", "2", "--out", str(work / "out"), "--quiet"],
        capture_output=True, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"evaluate failed: {done.stderr}")
    verdict = json.loads((work / "out" / "results.json").read_text())["verdict"]
    indep_recommended += verdict["recommended"] == "indep"
    line = []
    for candidate in verdict["candidates"]:
        check = next(c for c in candidate["checks"] if c["criterion"] == "utility_floor")
        floor_status[candidate["name"]][check["status"]] += 1
        kept[candidate["name"]].append(check["value"])
        line.append(f"{candidate['name']} {check['status']} (keeps {check['value']:.3f})")
    print(f"split {split + 1}: " + "; ".join(line) + f"; recommended {verdict['recommended']}",
          flush=True)

broken = []
for name, status in (("fresh", "pass"), ("indep", "fail"), ("indep", "review"),
                     ("cart", "pass")):
    k = floor_status[name][status]
    low, high = wilson(k, splits)
    values = sorted(kept[name])
    print(f"{name}: utility floor {status} in {k} of {splits} splits "
          f"(95 % interval {low:.3f}-{high:.3f}); share kept from {values[0]:.3f} to "
          f"{values[-1]:.3f}")
for name in ("fresh", "cart"):
    if floor_status[name]["pass"] != splits:
        broken.append(f"{name} did not pass the utility floor in every split")
if floor_status["indep"]["pass"] or floor_status["indep"]["not_evaluated"]:
    broken.append("an independent-marginals file passed the utility floor or was not judged")
print(f"indep recommended in {indep_recommended} of {splits} splits")
if indep_recommended:
    broken.append("an independent-marginals file was recommended")
if broken:
    sys.exit("; ".join(broken))
