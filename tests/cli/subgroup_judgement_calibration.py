#!/usr/bin/python3
"""What the worst-subgroup summary (results.json subgroups.judged) says about a fresh real sample
and about a synthesis that distorts one subgroup, on real survey data (SD2011, orig.csv re-split
at random each time into 3,000 confidential records, 1,000 for a candidate and 1,000 as the
holdout; by sex and smoking):

- `fresh`: the 1,000 candidate records as they are, a real sample of the population;
- `shifted`: the same records with the age of every smoker raised by 10 years (about 0.7 of its
  standard deviation), a distortion confined to the smoking subgroups.

Printed per split: each candidate's comparisons, how many lie beyond 2 and 4 standard deviations,
its worst subgroup and standardised difference; then the rates over splits with Wilson 95 %
intervals (comparisons within a split are correlated, so the intervals over comparisons are too
narrow). docs/config.md (Subgroups) quotes the fresh-sample figures of 40 splits.

Bounds (exit 1 when broken), loose enough for a short run: the fresh sample's share of
comparisons beyond 2 standard deviations stays below 25 %; the shifted candidate's worst
subgroup is a smoking subgroup in at least half of the splits, with a larger standardised
difference than the fresh sample's in at least half.

Usage: subgroup_judgement_calibration.py SYNTHAUDIT DATA_DIR [SPLITS]
"""
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import mean, median

from survey_files import read_csv, wilson, write_csv

binary, data = sys.argv[1], Path(sys.argv[2])
splits = int(sys.argv[3]) if len(sys.argv) > 3 else 10
work = Path(tempfile.mkdtemp(prefix="subgroup_judgement"))

header, rows = read_csv(data / "orig.csv")
age, smoke = header.index("age"), header.index("smoke")
names = ("fresh", "shifted")


def value_of(entry, statistic, scope):
    """A candidate's or baseline's value as the verdict reads it: combined, mean or the only
    replicate."""
    source = entry.get("combined") or entry.get("mean")
    if source is None and len(entry.get("replicates", [])) == 1:
        source = entry["replicates"][0]
    for v in (source or {}).get("values", []):
        if v["statistic"] == statistic and v["scope"] == scope:
            return v["value"]
    return None


def fresh_differences(document):
    """The fresh sample's standardised differences against the resample baselines, per
    (metric, statistic): the verdict's rule for a resample baseline (its noise times sqrt(2))."""
    out = {}
    for metric in document["metrics"]:
        for group in metric.get("subgroups", []):
            entries = {c["name"]: c for c in group.get("candidates", []) if not c.get("suppressed")}
            if "fresh" not in entries or "resample" not in entries:
                continue
            for h in metric["headlines"]:
                if (h.get("baseline") or {}).get("kind") != "resample":
                    continue
                st, sc = h["statistic"], h.get("scope", "all")
                v, b = value_of(entries["fresh"], st, sc), value_of(entries["resample"], st, sc)
                noise = [x["value"] for x in entries["resample"]["noise"]["values"]
                         if x["statistic"] == st and x["scope"] == sc]
                if v is None or b is None or not noise or not noise[0]:
                    continue
                ideal = h.get("ideal", {})
                if ideal.get("kind") == "target" and ideal.get("scale") == "ratio":
                    bad = lambda x: abs(math.log(x / ideal["target"])) if x > 0 else math.inf
                elif ideal.get("kind") == "target":
                    bad = lambda x: abs(x - ideal["target"])
                elif ideal.get("kind") == "higher":
                    bad = lambda x: -x
                else:
                    bad = lambda x: x
                z = (bad(v) - bad(b)) / (noise[0] * math.sqrt(2))
                if math.isfinite(z):
                    out.setdefault(f"{metric['name']}.{st}", []).append(z)
    return out


resample_differences = {}
totals = {name: {"comparisons": 0, "beyond_2": 0, "beyond_4": 0} for name in names}
worst = {name: [] for name in names}
shifted_in_smokers = shifted_above_fresh = 0
for split in range(splits):
    rng = random.Random(3000 + split)
    shuffled = rows[:]
    rng.shuffle(shuffled)
    candidate, holdout, confidential = shuffled[:1000], shuffled[1000:2000], shuffled[2000:]
    shifted = [r[:] for r in candidate]
    for r in shifted:
        if r[smoke] == "YES" and r[age] not in ("", "NA"):
            r[age] = str(int(float(r[age])) + 10)
    write_csv(work / "confidential.csv", header, confidential)
    write_csv(work / "holdout.csv", header, holdout)
    write_csv(work / "fresh.csv", header, candidate)
    write_csv(work / "shifted.csv", header, shifted)
    done = subprocess.run(
        [binary, "evaluate", "--confidential", str(work / "confidential.csv"),
         "--synthetic", f"fresh={work / 'fresh.csv'}", "--synthetic", f"shifted={work / 'shifted.csv'}",
         "--holdout", str(work / "holdout.csv"), "--missing-codes", "income=-8",
         "--keys", "age,edu,marital", "--targets", "ls", "--by", "sex,smoke",
         "--metrics", "general,specific,key-disclosure", "--analysis", "lm: income ~ age + sex",
         "--seed", str(split + 1), "--threads", "2", "--out", str(work / "out"), "--quiet"],
        capture_output=True, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"evaluate failed: {done.stderr}")
    document = json.loads((work / "out" / "results.json").read_text())
    for key, zs in fresh_differences(document).items():
        resample_differences.setdefault(key, []).extend(zs)
    judged = document["subgroups"]["judged"]
    by_name = {c["name"]: c for c in judged["candidates"]}
    line = []
    for name in names:
        c = by_name[name]
        totals[name]["comparisons"] += c["comparisons"]
        totals[name]["beyond_2"] += c["beyond_review_sd"]
        totals[name]["beyond_4"] += c["beyond_fail_sd"]
        w = c["worst"]
        worst[name].append(w["standardised_difference"])
        line.append(f"{name}: {c['beyond_review_sd']}/{c['comparisons']} beyond 2 sd, worst "
                    f"{w['subgroup']} {w['metric']}.{w['statistic']} "
                    f"{w['standardised_difference']:.2f}")
    shifted_worst = by_name["shifted"]["worst"]
    shifted_in_smokers += "smoke=YES" in shifted_worst["subgroup"]
    shifted_above_fresh += worst["shifted"][-1] > worst["fresh"][-1]
    print(f"split {split + 1}: " + "; ".join(line), flush=True)

for name in names:
    t = totals[name]
    lo, hi = wilson(t["beyond_2"], t["comparisons"])
    print(f"{name}: {t['beyond_2']}/{t['comparisons']} comparisons beyond 2 sd "
          f"({t['beyond_2'] / t['comparisons']:.3f}, {lo:.3f}-{hi:.3f}), "
          f"{t['beyond_4']} beyond 4 sd; worst above 4 in "
          f"{sum(z > 4 for z in worst[name])}/{splits} splits, median worst "
          f"{median(worst[name]):.2f}")
print("fresh against the resample baselines, mean standardised difference per headline "
      "(0 if a fresh sample were exchangeable with resamples):")
for key, zs in sorted(resample_differences.items(), key=lambda kv: -mean(kv[1])):
    print(f"  {key}: {mean(zs):.2f} over {len(zs)}")
lo, hi = wilson(shifted_in_smokers, splits)
print(f"shifted: worst subgroup a smoking one in {shifted_in_smokers}/{splits} splits "
      f"({lo:.2f}-{hi:.2f}); worst above the fresh sample's in {shifted_above_fresh}/{splits}")

broken = []
fresh_share = totals["fresh"]["beyond_2"] / totals["fresh"]["comparisons"]
if fresh_share >= 0.25:
    broken.append(f"fresh share beyond 2 sd {fresh_share:.3f} >= 0.25")
if 2 * shifted_in_smokers < splits:
    broken.append(f"shifted worst subgroup a smoking one in only {shifted_in_smokers}/{splits}")
if 2 * shifted_above_fresh < splits:
    broken.append(f"shifted worst above fresh in only {shifted_above_fresh}/{splits}")
if broken:
    sys.exit("bound broken: " + "; ".join(broken))
