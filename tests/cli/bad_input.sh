#!/usr/bin/env bash
# Bad input on the command line: every case must exit with code 2 and print exactly one line on
# stderr that names the file / row / column / key, and must leave nothing behind in --out.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/bad_input.sh tests/data
# Prints one line per check and a summary "N passed, M failed"; exits non-zero on any failure.
set -u

BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
DATA=${1:?give the fixture folder (tests/data) as the first argument}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
DATA=$(cd "$DATA" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-bad-input.XXXXXX")
trap 'chmod -R u+rwx "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
OUT="$WORK/out"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

# A results folder from an earlier good run: failures must neither replace nor add to it.
GOOD_OUT="$WORK/good"
(cd "$DATA" && "$BIN" evaluate --quiet --spec spec_good.yaml --out "$GOOD_OUT" >/dev/null 2>&1)
# Everything the good run wrote (results.json, results.tsv and whatever else, e.g. report.html).
snapshot() { (cd "$GOOD_OUT" 2>/dev/null && ls -A | sort && cat $(ls -A | sort)) | sha256sum; }
good_files=$(ls -A "$GOOD_OUT" 2>/dev/null | sort | tr '\n' ' ')
good_sum=$(snapshot)

# check NAME PATTERN [ARGS...]: runs `synthaudit ARGS` in the fixture folder and asserts exit code
# 2, one stderr line matching the extended regex PATTERN, and no results or temp files in --out.
check() {
  local name=$1 pattern=$2
  shift 2
  rm -rf "$OUT"
  local err="$WORK/stderr" rc
  (cd "$DATA" && "$@" >"$WORK/stdout" 2>"$err")
  rc=$?
  local lines
  lines=$(wc -l <"$err")
  local msg
  msg=$(head -c 400 "$err" | tr '\n' ' ')
  if [ "$rc" -ne 2 ]; then
    fail "$name" "exit code $rc, expected 2 (stderr: $msg)"
  elif [ "$lines" -ne 1 ]; then
    fail "$name" "$lines stderr lines, expected 1: $msg"
  elif ! grep -Eq -- "$pattern" "$err"; then
    fail "$name" "stderr does not match /$pattern/: $msg"
  elif [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
    fail "$name" "left files in --out: $(ls -A "$OUT" | tr '\n' ' ')"
  else
    pass "$name  [$(sed 's/^synthaudit: error: //' "$err")]"
  fi
}

# evaluate with the common flags
run_eval() { "$BIN" evaluate --quiet --out "$OUT" "$@"; }

check "missing file" \
  "^synthaudit: error: nope\.csv: cannot open file \(No such file or directory\)$" \
  run_eval --confidential nope.csv --synthetic s=syn.csv

# Unreadable file. As root, chmod 000 does not stop reading, so the binary is run as `nobody`
# through setpriv when that is available; otherwise the check is skipped (and says so).
cp "$DATA/conf.csv" "$WORK/unreadable.csv"
chmod 000 "$WORK/unreadable.csv"
chmod 755 "$WORK"
if [ "$(id -u)" -ne 0 ]; then
  check "unreadable file (chmod 000)" \
    "unreadable\.csv: cannot open file \(Permission denied\)$" \
    run_eval --confidential "$WORK/unreadable.csv" --synthetic s=syn.csv
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null &&
  setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$BIN" 2>/dev/null &&
  setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$DATA/syn.csv" 2>/dev/null; then
  check "unreadable file (chmod 000, run as nobody because we are root)" \
    "unreadable\.csv: cannot open file \(Permission denied\)$" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" evaluate --quiet \
    --out "$WORK/nobody-out" --confidential "$WORK/unreadable.csv" --synthetic s=syn.csv
else
  echo "skip  unreadable file (chmod 000): running as root and cannot drop privileges, so the file stays readable"
fi
check "a folder given as a file" \
  "^synthaudit: error: .*/data: is a folder, not a file$" \
  run_eval --confidential "$DATA" --synthetic s=syn.csv

check "empty file" \
  "^synthaudit: error: empty\.csv: file is empty$" \
  run_eval --confidential empty.csv --synthetic s=syn.csv

check "header only" \
  "^synthaudit: error: header_only\.csv: header only, no data rows$" \
  run_eval --confidential header_only.csv --synthetic s=syn.csv

check "ragged row" \
  "^synthaudit: error: ragged\.csv: row 3 \(line 4\) has 7 fields, header has 8$" \
  run_eval --confidential ragged.csv --synthetic s=syn.csv

check "ragged row in a synthetic file" \
  "^synthaudit: error: ragged\.csv: row 3 \(line 4\) has 7 fields, header has 8$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv,ragged.csv

check "unterminated quote" \
  "^synthaudit: error: unterminated\.csv: row 2 \(line 3\): unterminated quoted field$" \
  run_eval --confidential unterminated.csv --synthetic s=syn.csv

check "text in a column declared numeric (row, column, value)" \
  "^synthaudit: error: text_in_numeric\.csv: row 4, column 'income': 'refused' is not a number \(the column is numeric\)$" \
  run_eval --spec spec_numeric_override.yaml

check "text in a synthetic column that is numeric in the confidential data" \
  "^synthaudit: error: text_in_numeric\.csv: row 4, column 'income': 'refused' is not a number" \
  run_eval --confidential conf.csv --synthetic s=syn.csv,text_in_numeric.csv

check "invalid UTF-8 in a header" \
  "^synthaudit: error: bad_utf8_header\.csv: header column 3 is not valid UTF-8 \(if the file is Latin-1 or Windows-1252, give --encoding latin1, or read: encoding: latin1 in the spec\)$" \
  run_eval --confidential bad_utf8_header.csv --synthetic s=syn.csv

check "invalid UTF-8 in a field (row, column)" \
  "^synthaudit: error: bad_utf8_field\.csv: row 3, column 'region': the value is not valid UTF-8" \
  run_eval --confidential bad_utf8_field.csv --synthetic s=syn.csv
check "invalid UTF-8 names the --encoding flag" \
  "^synthaudit: error: bad_utf8_field\.csv: row 3, column 'region': .*give --encoding latin1" \
  run_eval --confidential bad_utf8_field.csv --synthetic s=syn.csv

# Read options (docs/cli.md, "Text files"): every bad value of a flag or a read: key.
check "--delimiter of two characters" \
  "^synthaudit: error: --delimiter: ';;' is not a delimiter; expected one character, tab or auto$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --delimiter ';;'
check "--delimiter empty" \
  "^synthaudit: error: --delimiter: '' is not a delimiter" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --delimiter ''
check "--delimiter a quote" \
  "^synthaudit: error: --delimiter: the delimiter cannot be a quote or a line break$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --delimiter '"'
check "--decimal not . or ," \
  "^synthaudit: error: --decimal: ';' is not a decimal mark; expected \. or , \(or auto\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --decimal ';'
check "--decimal equal to --delimiter" \
  "^synthaudit: error: --delimiter and --decimal: the delimiter and the decimal mark are both ','$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --delimiter , --decimal ,
check "--encoding unknown" \
  "^synthaudit: error: --encoding: 'utf-16' is not an encoding synthaudit reads; use utf-8, latin1 or windows-1252$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --encoding utf-16
check "--na with a control character" \
  '^synthaudit: error: --na: the missing-value spelling .N\\tA. holds a control character$' \
  run_eval --confidential conf.csv --synthetic s=syn.csv --na "$(printf 'NA,N\tA')"
check "--na without a value" \
  "^synthaudit: error: .*--na" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --na
check "sdc --encoding unknown" \
  "^synthaudit: error: --encoding: 'ebcdic' is not an encoding" \
  "$BIN" sdc --confidential conf.csv --synthetic syn.csv --out "$OUT" --top-code age=0.9 --encoding ebcdic
check "init --decimal unknown" \
  "^synthaudit: error: --decimal: 'comma' is not a decimal mark" \
  "$BIN" init conf.csv --decimal comma
for key in "delimiter: ';;'" "decimal: ';'" "encoding: utf-16" "missing_values: [\"a\\tb\"]" "{delimiter: ',', decimal: ','}"; do
  case $key in
    "{"*) block="read: $key" ;;
    *) block="read: {$key}" ;;
  esac
  printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\n%s\n' "$block" >"$WORK/read_key.yaml"
  check "spec $block" \
    "^synthaudit: error: $WORK/read_key\.yaml: read(\.(delimiter|decimal|encoding|missing_values))?: " \
    run_eval --spec "$WORK/read_key.yaml"
done

check "duplicate column names" \
  "^synthaudit: error: duplicate_columns\.csv: duplicate column name 'age' in the header$" \
  run_eval --confidential duplicate_columns.csv --synthetic s=syn.csv

check "column in spec but not in data" \
  "^synthaudit: error: spec_column_not_in_data\.yaml: columns\.incme: .*conf\.csv has no column 'incme' \(did you mean 'income'\?\)$" \
  run_eval --spec spec_column_not_in_data.yaml

check "synthetic file lacking a column" \
  "^synthaudit: error: syn_lacking_column\.csv: column 'income' of the confidential data is missing$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv,syn_lacking_column.csv

check "unknown spec key (did you mean)" \
  "^synthaudit: error: spec_unknown_key\.yaml: metircs: unknown key \(did you mean 'metrics'\?\)" \
  run_eval --spec spec_unknown_key.yaml

check "parameter of the wrong type" \
  "^synthaudit: error: .*parameters\.ks_distance\.pvalue: expected true or false, got 3$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param ks_distance.pvalue=3

check "record_level that is not true or false" \
  "^synthaudit: error: .*parameters\.distance_to_closest_record\.record_level: expected true or false, got 2$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param distance_to_closest_record.record_level=2

check "sdmetrics_random_rows below 0" \
  "^synthaudit: error: .*parameters\.distance_to_closest_record\.sdmetrics_random_rows: value -5 is out of range \[0, inf\]$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param distance_to_closest_record.sdmetrics_random_rows=-5

check "epsilon_identifiability weights that are not a choice (did you mean)" \
  "^synthaudit: error: .*parameters\.epsilon_identifiability\.weights: 'entropic' is not one of .*\(did you mean 'entropy'\?\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param epsilon_identifiability.weights=entropic

check "epsilon_identifiability column that does not exist" \
  "^synthaudit: error: parameter epsilon_identifiability\.columns: no column 'agee' \(did you mean 'age'\?\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics epsilon_identifiability \
  --param 'epsilon_identifiability.columns=["agee"]'

check "train_synthetic_test_real target that does not exist" \
  "^synthaudit: error: parameter target of train_synthetic_test_real: no column 'incme' \(did you mean 'income'\?\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --holdout syn.csv \
  --metrics train_synthetic_test_real --param train_synthetic_test_real.target=incme

check "train_synthetic_test_real linear model of a categorical target" \
  "^synthaudit: error: parameter model of train_synthetic_test_real: linear needs a numeric target, and 'region' is categorical" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --holdout syn.csv \
  --metrics train_synthetic_test_real --param train_synthetic_test_real.target=region \
  --param train_synthetic_test_real.model=linear

check "membership inference delta out of range" \
  "^synthaudit: error: .*parameters\.distance_membership_inference\.delta: value 0\.5 is out of range \[" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param distance_membership_inference.delta=0.5

check "membership inference confidence of 1" \
  "^synthaudit: error: .*parameters\.distance_membership_inference\.confidence: value 1 is out of range \[" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param distance_membership_inference.confidence=1

check "simulate with fewer columns than the model's" \
  "^synthaudit: error: simulate: --columns must be between 12 and 200, not 5$" \
  "$BIN" simulate --out "$OUT" --rows 10 --columns 5

check "singling_out_attack n_cols beyond the data's columns" \
  "^synthaudit: error: parameters\.singling_out_attack\.n_cols: 50 columns per predicate asked for, but the data have 8 attack columns$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics singling_out_attack \
  --param singling_out_attack.n_cols=50
check "singling_out_attack mode not a mode" \
  "^synthaudit: error: .*parameters\.singling_out_attack\.mode: 'bivariate' is not one of both, univariate, multivariate" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param singling_out_attack.mode=bivariate
check "singling_out_attack n_attacks 0" \
  "^synthaudit: error: .*parameters\.singling_out_attack\.n_attacks: value 0 is out of range \[1, 1e\+07\]$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param singling_out_attack.n_attacks=0

check "unknown parameter (did you mean)" \
  "^synthaudit: error: .*ks_distance\.pvalu: metric 'ks_distance' has no parameter 'pvalu' \(did you mean 'pvalue'\?\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --param ks_distance.pvalu=true

# Survey weights: the synthetic file must carry usable weights of its own when a weighted metric
# is told so (synthetic_weights = own); here its second row's weight is negative.
sed '3s/,[0-9.]*$/,-1/' "$DATA/survey/apistrat_syn.csv" >"$WORK/syn_bad_weight.csv"
check "unusable synthetic weights (synthetic_weights = own)" \
  "^synthaudit: error: .*syn_bad_weight\.csv\): column 'pw' cannot serve as sampling weights \(synthetic_weights = own\): row 2 is -1$" \
  run_eval --confidential survey/apistrat.csv --synthetic s="$WORK/syn_bad_weight.csv" \
  --weights pw --metrics mean_in_confidence_interval \
  --param mean_in_confidence_interval.synthetic_weights=own

check "unknown combining rule (did you mean)" \
  "^synthaudit: error: .*parameters\.analysis_inference_comparison\.rules: 'synthpop_pop' is not one of .*\(did you mean 'synthpop'\?\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv \
  --param 'analysis_inference_comparison.rules=["synthpop_pop"]'

check "linkability attack: a column in both auxiliary sets" \
  "^synthaudit: error: .*linkability_attack parameters aux_a and aux_b: column 'age' is in both sets$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics linkability_attack \
  --param 'linkability_attack.aux_a=["age","sex"]' --param 'linkability_attack.aux_b=["age"]'

check "linkability attack: one auxiliary set only" \
  "^synthaudit: error: .*linkability_attack parameters aux_a and aux_b: give both column sets or neither$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics linkability_attack \
  --param 'linkability_attack.aux_a=["age"]'

check "inference attack: secret also known to the attacker" \
  "^synthaudit: error: .*inference_attack parameter aux: secret column 'income' cannot also be known to the attacker$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics inference_attack \
  --param 'inference_attack.secrets=["income"]' --param 'inference_attack.aux=["age","income"]'

check "inference attack: unknown secret column (did you mean)" \
  "^synthaudit: error: .*inference_attack parameter secrets: no column 'incme'.*$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics inference_attack \
  --param 'inference_attack.secrets=["incme"]'

check "k-anonymity k that is not a whole number >= 2" \
  "^synthaudit: error: parameter k of k_anonymity: '1' is not a whole number of at least 2$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics k_anonymity \
  --keys sex,region --targets income --param 'k_anonymity.k=["2","1"]'

check "missing_keys rule that does not exist (did you mean)" \
  "^synthaudit: error: .*parameters\.individual_risk\.missing_keys: 'wildcards' is not one of .*\(did you mean 'wildcard'\?\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics individual_risk \
  --keys sex,region --targets income --param individual_risk.missing_keys=wildcards

# Parameter out of range: find a registered numeric parameter with a declared range (from
# `describe`, so this follows the registry) and give it a value just outside.
ranged=""
for metric in $("$BIN" list-metrics | cut -f1); do
  line=$("$BIN" describe "$metric" | grep -E '^  [a-z_0-9]+ \((int|double), default .*, range \[' | head -1)
  if [ -n "$line" ]; then
    pname=$(echo "$line" | sed -E 's/^  ([a-z_0-9]+) .*/\1/')
    lo=$(echo "$line" | sed -E 's/.*range \[([^,]+), ([^]]+)\].*/\1/')
    hi=$(echo "$line" | sed -E 's/.*range \[([^,]+), ([^]]+)\].*/\2/')
    if [ "$lo" != "-inf" ]; then
      ranged="$metric.$pname=$(awk -v v="$lo" 'BEGIN { printf "%.17g", v - 1 }')"
    elif [ "$hi" != "inf" ]; then
      ranged="$metric.$pname=$(awk -v v="$hi" 'BEGIN { printf "%.17g", v + 1 }')"
    fi
    [ -n "$ranged" ] && break
  fi
done
if [ -n "$ranged" ]; then
  check "parameter out of range ($ranged)" \
    "^synthaudit: error: .*parameters\.${ranged%%=*}: value .* is out of range \[" \
    run_eval --confidential conf.csv --synthetic s=syn.csv --param "$ranged"
else
  echo "skip  parameter out of range: no registered metric declares a ranged parameter yet" \
    "(the range check is tested in tests/unit/spec_params_test.cpp)"
fi

check "negative --baseline-draws" \
  "^synthaudit: error: --baseline-draws: must be between 0 and 1000$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --baseline-draws -3

check "describe --json of an unknown metric" \
  "^synthaudit: error: describe: no metric named 'ks_distanse'" \
  "$BIN" describe ks_distanse --json

check "unknown metric name in --metrics (did you mean)" \
  "^synthaudit: error: .*metrics: unknown metric or family 'ks_distanse' \(did you mean 'ks_distance'\?\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics ks_distanse

check "partial synthesis with different row counts" \
  "^synthaudit: error: syn\.csv: partial synthesis needs rows that correspond to the confidential rows, but it has 5 rows and the confidential data 6$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --synthesis partial

check "unknown value of a command-line choice" \
  "^synthaudit: error: --plots: 'al' is not one of first, all, none \(did you mean 'all'\?\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --plots al

check "unknown value of a spec choice (did you mean)" \
  "^synthaudit: error: spec_bad_plots\.yaml: plots: 'non' is not one of first, all, none \(did you mean 'none'\?\)$" \
  run_eval --spec spec_bad_plots.yaml

check "disclosure_matching: a relative tolerance that is not a fraction" \
  "^synthaudit: error: spec_bad_disclosure_matching\.yaml: disclosure_matching\.relative_tolerance: must be a number between 0 and 1 \(a fraction\)$" \
  run_eval --spec spec_bad_disclosure_matching.yaml

check "disclosure_matching: an unknown key (did you mean)" \
  "^synthaudit: error: spec_unknown_disclosure_matching_key\.yaml: disclosure_matching\.relative_tolerence: unknown key \(did you mean 'relative_tolerance'\?\)" \
  run_eval --spec spec_unknown_disclosure_matching_key.yaml

check "--disclosure-matching: an unknown name (did you mean)" \
  "^synthaudit: error: --disclosure-matching relative_tolerence: unknown key \(did you mean 'relative_tolerance'\?\); allowed: numeric_tolerance, relative_tolerance, missing_matches$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --disclosure-matching relative_tolerence=0.1

check "--disclosure-matching: a relative tolerance that is not a fraction" \
  "^synthaudit: error: --disclosure-matching relative_tolerance: must be a number between 0 and 1 \(a fraction\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --disclosure-matching relative_tolerance=2

check "--disclosure-matching: missing_matches that is not true or false" \
  "^synthaudit: error: --disclosure-matching missing_matches: expected true or false$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --disclosure-matching missing_matches=maybe

# The flag reaches every key-disclosure metric, as the spec block does (the parameters used are
# recorded in results.json).
if (cd "$DATA" && "$BIN" evaluate --quiet --out "$WORK/matching" --confidential conf.csv \
    --synthetic s=syn.csv \
    --metrics correct_attribution_probability --keys age --targets sex \
    --disclosure-matching relative_tolerance=0.2 --disclosure-matching missing_matches=true \
    >/dev/null 2>&1) &&
  grep -q '"relative_tolerance": 0.2' "$WORK/matching/results.json" &&
  grep -q '"missing_matches": true' "$WORK/matching/results.json"; then
  pass "--disclosure-matching sets the key-disclosure metrics' parameters"
else
  fail "--disclosure-matching sets the key-disclosure metrics' parameters" "not in results.json"
fi

check "unknown flag" \
  "^synthaudit: error: .*--colour.* \(see --help\)$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --colour

check "no output folder" \
  "^synthaudit: error: no output folder given \(--out DIR\)$" \
  "$BIN" evaluate --quiet --confidential conf.csv --synthetic s=syn.csv

: >"$WORK/a_file"
# Subgroups (by:): the columns must exist and be categorical, and the list must not be empty.
check "by: a column not in the data (did you mean)" \
  "^synthaudit: error: command line: by: no column 'regoin' in the confidential data \(conf\.csv\).*did you mean 'region'" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics general --by regoin
check "by: a numeric column" \
  "^synthaudit: error: command line: by: column 'age' is numeric; subgroups need a categorical column" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --metrics general --by sex,age
check "--by with no column" \
  "^synthaudit: error: --by: expected at least one categorical column$" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --by ''
check "by: an empty list in the spec" \
  "^synthaudit: error: spec_empty_by\.yaml: by: expected at least one categorical column$" \
  run_eval --spec spec_empty_by.yaml
check "by_min_rows below 1" \
  "^synthaudit: error: --by-min-rows: .*" \
  run_eval --confidential conf.csv --synthetic s=syn.csv --by sex --by-min-rows 0

check "--out is a file" \
  "^synthaudit: error: .*a_file: cannot create output folder" \
  "$BIN" evaluate --quiet --out "$WORK/a_file" --confidential conf.csv --synthetic s=syn.csv

# Failures aimed at a folder that holds earlier results leave those results untouched.
if [ ! -s "$GOOD_OUT/results.json" ]; then
  fail "earlier results survive a failed run" "the good run (spec_good.yaml) wrote no results.json"
else
  for args in "--confidential ragged.csv --synthetic s=syn.csv" \
    "--confidential conf.csv --synthetic s=syn.csv --synthesis partial" \
    "--confidential conf.csv --synthetic s=syn.csv --param ks_distance.pvalue=3"; do
    # shellcheck disable=SC2086
    (cd "$DATA" && "$BIN" evaluate --quiet --out "$GOOD_OUT" $args >/dev/null 2>&1)
  done
  now_files=$(ls -A "$GOOD_OUT" | sort | tr '\n' ' ')
  now_sum=$(snapshot)
  if [ "$now_files" != "$good_files" ]; then
    fail "earlier results survive a failed run" "files were '$good_files', now '$now_files'"
  elif [ "$now_sum" != "$good_sum" ]; then
    fail "earlier results survive a failed run" "the earlier results changed"
  else
    pass "earlier results survive a failed run (no temp files left)"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
