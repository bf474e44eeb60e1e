#!/usr/bin/python3
"""Complex survey designs through the command line and a spec file (docs/config.md "Survey
design"): the confidential standard errors of the declared analyses equal R survey 4.1's
(tests/golden/survey/designs.tsv, made by make_design_golden.R) to 1e-8 relative, for NHANES's
strata and nested PSUs (--strata --clusters --nest) and for apiclus1's JK1 replicate weights (a
spec file's design: block, replicate_weights given as a pattern); and a bad design exits 2 with
one line naming the key.

Usage: survey_design_reference.py SYNTHAUDIT TESTS_DIR
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

binary, tests = sys.argv[1], Path(sys.argv[2]).resolve()
data = tests / "data" / "survey"
work = Path(tempfile.mkdtemp(prefix="survey_design"))
golden = {}
for line in (tests / "golden" / "survey" / "designs.tsv").read_text().splitlines():
    key, value = line.split("\t")
    golden.setdefault(key, []).append(float(value))
scales = {}
for line in (data / "apiclus1_rep_scales.tsv").read_text().splitlines():
    key, value = line.split("\t")
    scales.setdefault(key, []).append(float(value))
failures = []


def close(actual, wanted, what):
    if abs(actual - wanted) > 1e-8 * max(1e-3, abs(wanted)):
        failures.append(f"{what}: {actual!r} != {wanted!r}")


def analyses(out):
    results = json.loads((out / "results.json").read_text())
    metric = next(m for m in results["metrics"] if m["name"] == "analysis_inference_comparison")
    details = metric["candidates"][0]["combined"]["details"]
    return {a["name"]: a for a in details["analyses"]}, details


def run(args, expect=0):
    done = subprocess.run([binary, "evaluate", *args], capture_output=True, text=True)
    if done.returncode != expect:
        failures.append(f"exit {done.returncode} (wanted {expect}) for {args}: {done.stderr[-800:]}")
    return done


# NHANES from the command line.
out = work / "nhanes"
run(["--confidential", str(data / "nhanes.csv"),
     "--synthetic", f"syn={data / 'nhanes_syn.csv'}",
     "--weights", "WTMEC2YR", "--strata", "SDMVSTRA", "--clusters", "SDMVPSU", "--nest",
     "--metrics", "analysis_inference_comparison",
     "--analysis", "chol=mean: HI_CHOL",
     "--analysis", "logit=glm_logit: HI_CHOL ~ factor(race) + agecat + RIAGENDR",
     "--out", str(out)])
if (out / "results.json").exists():
    found, details = analyses(out)
    close(found["chol"]["estimands"][0]["confidential_se"], golden["nhanes.mean_se.HI_CHOL"][0],
          "NHANES mean SE")
    for j, se in enumerate(golden["nhanes.logit_se"]):
        close(found["logit"]["estimands"][j]["confidential_se"], se, f"NHANES logit SE {j}")
    if "15 strata" not in details["design"]["confidential"]:
        failures.append(f"design summary: {details['design']}")

# apiclus1's jackknife replicate weights from a spec file.
spec = work / "apiclus1.yaml"
spec.write_text(f"""confidential: {data / 'apiclus1_rep.csv'}
candidates:
  - name: copy
    replicates: {data / 'apiclus1_rep.csv'}
weights: pw
design:
  replicate_weights: ["jk1_*"]
  type: JK1
  scale: {scales['jk1.scale'][0]!r}
metrics: [analysis_inference_comparison]
analyses:
  - {{name: api, mean: api00}}
  - {{name: lm, lm: "api00 ~ ell + meals"}}
output: {work / 'apiclus1'}
policy: {{require_default_checks: false}}
""")
run(["--spec", str(spec)])
if (work / "apiclus1" / "results.json").exists():
    found, _ = analyses(work / "apiclus1")
    close(found["api"]["estimands"][0]["confidential_se"], golden["rep_jk1.mean_se.api00"][0],
          "JK1 mean SE")
    for j, se in enumerate(golden["rep_jk1.lm_se"]):
        close(found["lm"]["estimands"][j]["confidential_se"], se, f"JK1 lm SE {j}")

# Bad designs: exit 2, one line naming the key.
for extra, needle in [
    (["--strata", "SDMVSTRA", "--clusters", "SDMVPSU"], "design.nest: true"),
    (["--clusters", "no_such"], "design.clusters"),
]:
    done = run(["--confidential", str(data / "nhanes.csv"),
                "--synthetic", f"syn={data / 'nhanes_syn.csv'}", "--weights", "WTMEC2YR",
                *extra, "--metrics", "mean_in_confidence_interval",
                "--out", str(work / "bad")], expect=2)
    lines = [l for l in done.stderr.splitlines() if "error" in l]
    if len(lines) != 1 or needle not in lines[0]:
        failures.append(f"bad design {extra}: {done.stderr[-600:]}")
done = run(["--confidential", str(data / "nhanes.csv"),
            "--synthetic", f"syn={data / 'nhanes_syn.csv'}", "--strata", "SDMVSTRA",
            "--metrics", "mean_in_confidence_interval", "--out", str(work / "bad")], expect=2)
if "without weights" not in done.stderr:
    failures.append(f"design without weights: {done.stderr[-600:]}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("survey designs: NHANES (strata, nested PSUs) and apiclus1 JK1 match R survey 4.1 to 1e-8")
