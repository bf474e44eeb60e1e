#!/usr/bin/env bash
# Stata, SPSS and SAS files (io/readstat.cpp) and missing-value codes, end to end on the real
# SD2011 survey (tests/data/sd2011): the same audit from train.csv and from its .dta, .zsav, .xpt
# and .sas7bdat versions (written by tests/golden/io/make_stat_files.R with R's haven: categorical columns
# as labelled codes) gives the same results.tsv; SPSS user-missing values act as declared codes;
# text codes apply to every file and the summary lists what was read as missing.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/stat_files.sh tests/data/sd2011
set -u
BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
SD=${1:?give the SD2011 folder (tests/data/sd2011) as the first argument}
SD=$(cd "$SD" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-stat-files.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

# The audit: marginal, table, correlation, propensity, key-disclosure and distance metrics, with
# the holdout; a few baseline draws keep it quick.
METRICS=ks_distance,total_variation,table_utility,correlation_fit,propensity_logistic,synthpop_disclosure,distance_to_closest_record,column_summaries
run() {
  local name=$1
  shift
  "$BIN" evaluate --quiet --baseline-draws 2 --seed 7 --out "$WORK/$name" --metrics "$METRICS" \
    --synthetic cart="$SD/train_syn.csv" --holdout "$SD/holdout.csv" \
    --keys sex,age,edu,marital --targets smoke "$@" \
    >"$WORK/$name.stdout" 2>"$WORK/$name.stderr"
  echo $? >"$WORK/$name.rc"
}
# Exit code 0, or 3 (the outputs are complete, no candidate passes the default policy).
ran() {
  local rc
  rc=$(cat "$WORK/$1.rc")
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    fail "$1" "exit code $(cat "$WORK/$1.rc"): $(head -c 400 "$WORK/$1.stderr")"
    return 1
  fi
}
expect() {
  local name=$1 what=$2
  shift 2
  if "$@"; then pass "$name: $what"; else fail "$name" "$what"; fi
}
same_results() { cmp -s "$WORK/$1/results.tsv" "$WORK/$2/results.tsv"; }

run csv --confidential "$SD/train.csv" --missing-codes income=-8
ran csv || { echo "$passed passed, $failed failed"; exit 1; }
[ "$(wc -l <"$WORK/csv/results.tsv")" -gt 50 ] || fail csv "results.tsv has too few rows"
for file in train.dta.gz train.zsav train.xpt.gz train.sas7bdat.gz; do
  run "$file" --confidential "$SD/$file" --missing-codes income=-8
  if ran "$file"; then
    expect "$file" "results.tsv identical to the CSV audit's" same_results csv "$file"
  fi
done
# The labels became the CSV's levels, and the variable labels are in results.json.
expect train.dta.gz "value labels read as the CSV's levels" \
  grep -q '"VOCATIONAL/GRAMMAR"' "$WORK/train.dta.gz/results.json"
expect train.dta.gz "variable labels kept in results.json" \
  grep -q '"label": "Personal net monthly income (PLN)"' "$WORK/train.dta.gz/results.json"

# SPSS user-missing values: income's -8 declared in the file reads as --missing-codes income=-8.
run declared --confidential "$SD/train_declared_missing.zsav"
if ran declared; then
  expect declared "results.tsv identical to the CSV audit with --missing-codes income=-8" \
    same_results csv declared
  expect declared "the summary lists the file's code and its count" \
    grep -q "train_declared_missing.zsav (confidential): income -8: 483" "$WORK/declared.stdout"
fi

# Codes instead of labels: the categorical columns read as numbers (in every file: the synthetic
# file here is the SPSS version, coded alike).
"$BIN" evaluate --quiet --baseline-draws 0 --out "$WORK/codes" --metrics column_summaries,ks_distance \
  --confidential "$SD/train.dta.gz" --synthetic coded="$SD/train.zsav" --value-labels codes \
  >"$WORK/codes.stdout" 2>"$WORK/codes.stderr"
echo $? >"$WORK/codes.rc"
if ran codes; then
  expect codes "sex is a numeric column of codes" \
    /usr/bin/python3 -c "
import json, sys
doc = json.load(open('$WORK/codes/results.json'))
kinds = {c['name']: c['kind'] for c in doc['columns']}
sys.exit(0 if kinds['sex'] == 'numeric' and kinds['smoke'] == 'numeric' else 1)"
fi

# A text code in a categorical column, applied to every file, counted per file.
run text --confidential "$SD/train.dta.gz" --missing-codes income=-8 --missing-codes marital=WIDOWED
if ran text; then
  expect text "WIDOWED is no longer a level" \
    /usr/bin/python3 -c "
import json, sys
doc = json.load(open('$WORK/text/results.json'))
levels = [c for c in doc['columns'] if c['name'] == 'marital'][0]['levels']
sys.exit(0 if 'WIDOWED' not in levels and 'MARRIED' in levels else 1)"
  conf=$(grep -c ',"WIDOWED",' "$SD/train.csv")
  syn=$(grep -c ',"WIDOWED",' "$SD/train_syn.csv")
  hold=$(grep -c ',"WIDOWED",' "$SD/holdout.csv")
  # listed_in FILE_LABEL ITEM: the summary's line for that file lists ITEM (whole).
  listed_in() {
    grep -F "$1: " "$WORK/text.stdout" | grep -Eq "(: |, )$2(,|\$)"
  }
  expect text "the summary counts it in the confidential file ($conf)" \
    listed_in "train.dta.gz (confidential)" "marital WIDOWED: $conf"
  expect text "the summary counts income's -8 in the confidential file" \
    listed_in "train.dta.gz (confidential)" "income -8: 483"
  expect text "the summary counts it in the synthetic file ($syn)" \
    listed_in "train_syn.csv (synthetic)" "marital WIDOWED: $syn"
  expect text "the summary counts it in the holdout ($hold)" \
    listed_in "holdout.csv (holdout)" "marital WIDOWED: $hold"
fi
# The same text code from the spec, as a list with a number.
cat >"$WORK/spec.yaml" <<EOF
confidential: $SD/train.csv
holdout: $SD/holdout.csv
candidates:
  - name: cart
    replicates: [$SD/train_syn.csv]
missing_codes:
  income: -8
  marital: [WIDOWED]
disclosure:
  - keys: [sex, age, edu, marital]
    targets: [smoke]
metrics: [$METRICS]
EOF
"$BIN" evaluate --quiet --baseline-draws 2 --seed 7 --spec "$WORK/spec.yaml" --out "$WORK/spec" \
  >"$WORK/spec.stdout" 2>"$WORK/spec.stderr"
echo $? >"$WORK/spec.rc"
if ran spec; then
  expect spec "the spec's text code gives the flag's results" same_results text spec
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
