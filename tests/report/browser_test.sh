#!/usr/bin/env bash
# The report as a person sees it: every metric run on a small simulated sample (also with
# --safe-output), and the all-plot-kinds fixture, each opened in Debian's headless Chromium (report/test/browser-test.js);
# screenshots are kept in ARTIFACTS (report.png is the evaluation's report).
# The sample is small and the boosted trees few because this test checks the page, not the
# numbers: the time goes to drawing, and the test stays quick on a loaded machine.
# Usage: browser_test.sh SYNTHAUDIT_BINARY SOURCE_DIR ARTIFACTS_DIR
set -euo pipefail
bin=$1
src=$2
out=$3
node_bin=${SYNTHAUDIT_NODE:-node}

if [ ! -d "$src/report/node_modules/playwright-core" ]; then
  echo "browser_test: report/node_modules/playwright-core is missing: run scripts/install-deps" >&2
  exit 1
fi

mkdir -p "$out"
rm -rf "$out/data" "$out/evaluation" "$out/fixture" "$out/safe" "$out/labels"
"$bin" simulate --rows 300 --replicates 1 --out "$out/data" >/dev/null
# Exit 3 (no candidate passes) is a verdict, not a failure: the page is what is tested.
"$bin" evaluate --spec "$out/data/spec.yaml" --metrics all --quiet --out "$out/evaluation" \
  --param propensity_boosted_trees.rounds=5 >/dev/null || [ $? -eq 3 ]
"$bin" report "$src/tests/data/report/results_fixture.json" --out "$out/fixture/report.html" >/dev/null
# The same evaluation with output checking: plots whose points were withheld must not break the
# page, and `report` renders it from the checked results.json alone. With subgroups (by sex), so
# the subgroup tables are drawn too.
"$bin" evaluate --spec "$out/data/spec.yaml" --metrics all --quiet --out "$out/safe" --safe-output \
  --param propensity_boosted_trees.rounds=5 --by sex >/dev/null || [ $? -eq 3 ]
"$bin" report "$out/safe/results.json" >/dev/null

# A Stata file: its variable labels and the income code read as missing are shown in the data section.
"$bin" evaluate --confidential "$src/tests/data/sd2011/train.dta.gz" \
  --synthetic cart="$src/tests/data/sd2011/train_syn.csv" --missing-codes income=-8 \
  --metrics column_summaries --baseline-draws 0 --quiet --out "$out/labels" >/dev/null || [ $? -eq 3 ]

# Related tables (households and persons of laeken's EU-SILC file): the structure section.
rm -rf "$out/related"
/usr/bin/python3 - "$src/tests/data/eusilc/eusilc.csv.gz" "$out/related" <<'PY'
import sys
from pathlib import Path
import pandas as pd
persons = pd.read_csv(sys.argv[1]).head(1500)
persons["pid"] = range(1, len(persons) + 1)
household_columns = ["db030", "hsize", "db040", "eqIncome"]
for name, part in (("conf", persons[persons.db030 % 2 == 0]), ("cand", persons[persons.db030 % 2 == 1])):
    (Path(sys.argv[2]) / name).mkdir(parents=True)
    part.groupby("db030", as_index=False)[household_columns[1:]].first().to_csv(
        Path(sys.argv[2]) / name / "households.csv", index=False)
    part[["pid", "db030", "age", "rb090", "pl030"]].to_csv(
        Path(sys.argv[2]) / name / "persons.csv", index=False)
PY
printf 'tables:\n  households: {primary_key: db030}\n  persons: {primary_key: pid, parent: households, foreign_key: db030}\n' \
  > "$out/related/tables.yaml"
"$bin" evaluate --tables "$out/related/tables.yaml" --confidential "$out/related/conf" \
  --synthetic cand="$out/related/cand" --metrics general --quiet --out "$out/related/out" \
  >/dev/null || [ $? -eq 3 ]

exec "$node_bin" "$src/report/test/browser-test.js" "$out" \
  "report=$out/evaluation/report.html" "report-fixture=$out/fixture/report.html:all-kinds:click" \
  "report-safe-output=$out/safe/report.html" "report-labels=$out/labels/report.html:labels" \
  "report-related=$out/related/out/report.html:relations"
