#!/usr/bin/env bash
# The checks before the metrics, end to end on the real SD2011 survey (tests/data/sd2011):
# mistakes that stop the run (exit 2, one line naming the file, row, column or key) and mistakes
# that shout (a warning on stderr and in the summary, a fail in the verdict for copies).
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/data_checks.sh tests/data/sd2011
set -u
BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
SD=${1:?give the SD2011 folder (tests/data/sd2011) as the first argument}
SD=$(cd "$SD" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-data-checks.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

# run NAME ARGS...: evaluate into $WORK/NAME; keeps stdout, stderr and the exit code.
run() {
  local name=$1
  shift
  "$BIN" evaluate --quiet --baseline-draws 2 --out "$WORK/$name" "$@" \
    >"$WORK/$name.stdout" 2>"$WORK/$name.stderr"
  echo $? >"$WORK/$name.rc"
}
rc_of() { cat "$WORK/$1.rc"; }

# expect_stop NAME PATTERN ARGS...: exit 2, one stderr line matching PATTERN, no output folder.
expect_stop() {
  local name=$1 pattern=$2
  shift 2
  run "$name" "$@"
  local rc lines msg
  rc=$(rc_of "$name")
  lines=$(wc -l <"$WORK/$name.stderr")
  msg=$(head -c 400 "$WORK/$name.stderr" | tr '\n' ' ')
  if [ "$rc" -ne 2 ]; then
    fail "$name" "exit code $rc, expected 2 (stderr: $msg)"
  elif [ "$lines" -ne 1 ]; then
    fail "$name" "$lines stderr lines, expected 1: $msg"
  elif ! grep -Eq -- "$pattern" "$WORK/$name.stderr"; then
    fail "$name" "stderr does not match /$pattern/: $msg"
  elif [ -e "$WORK/$name" ]; then
    fail "$name" "wrote an output folder"
  else
    pass "$name  [$(sed 's/^synthaudit: error: //' "$WORK/$name.stderr")]"
  fi
}

# expect NAME DESCRIPTION COMMAND...: a condition on the files of an earlier run.
expect() {
  local name=$1 what=$2
  shift 2
  if "$@"; then pass "$name: $what"; else fail "$name" "$what"; fi
}

CONF="$SD/train.csv"
HOLD="$SD/holdout.csv"
SYN="$SD/train_syn.csv"
CODES=(--missing-codes income=-8)

# --- a candidate that is the confidential data -------------------------------------------------
# The confidential file itself (same SHA-256), beside an honest synthesis, with a disclosure
# metric that gives a verdict: a warning on stderr, a fail in the verdict with the check as its
# first reason, in the summary; the honest candidate is not flagged.
run identical --confidential "$CONF" --holdout "$HOLD" "${CODES[@]}" \
  --synthetic cart="$SYN" --synthetic same="$CONF" --metrics distance_to_closest_record
expect identical "outputs written (exit 0, or 3 when the honest candidate fails the risk rule)" \
  grep -qx '[03]' "$WORK/identical.rc"
expect identical "stderr warns: the confidential data itself, same SHA-256" \
  grep -q "synthaudit: warning: candidate 'same' (.*train.csv) is the confidential data itself (the same SHA-256" \
  "$WORK/identical.stderr"
expect identical "the summary fails it with that reason" \
  grep -Eq "^  same +FAIL +Candidate 'same' .* is the confidential data itself" "$WORK/identical.stdout"
expect identical "the verdict's check is data_check.identical_to_confidential" \
  grep -q '"criterion": "data_check.identical_to_confidential"' "$WORK/identical/results.json"
expect identical "the honest synthesis (26 % copies against 13 % for the holdout) is not flagged" \
  bash -c "! grep -q \"candidate 'cart'\" '$WORK/identical.stderr'"

# A copy of the confidential rows in another order and with other quoting: not the same bytes,
# but every row copies a confidential row. Without a holdout, chance is the confidential data's
# own repeated rows. Exit 0: no verdict without a record-level risk metric, but a warning.
{
  head -1 "$CONF" | tr -d '"'
  tail -n +2 "$CONF" | tr -d '"' | sort
} >"$WORK/shuffled.csv"
run shuffled --confidential "$CONF" "${CODES[@]}" --synthetic shuffled="$WORK/shuffled.csv" \
  --metrics ks_distance
expect shuffled "exit 0" test "$(rc_of shuffled)" -eq 0
expect shuffled "stderr: rows copy a confidential row far beyond chance" \
  grep -Eq "warning: candidate 'shuffled' .*: 4,000 of its 4,000 rows \(100 %\) copy a confidential row exactly, against 12\.3[0-9]* % by chance as estimated from the confidential data's own repeated rows" \
  "$WORK/shuffled.stderr"
expect shuffled "the summary shows the warning under the candidate" \
  grep -q "WARNING: candidate 'shuffled'" "$WORK/shuffled.stdout"

# The holdout given as a candidate.
run holdout_as_candidate --confidential "$CONF" --holdout "$HOLD" "${CODES[@]}" \
  --synthetic real="$HOLD" --metrics ks_distance
expect holdout_as_candidate "stderr: the holdout itself" \
  grep -q "warning: candidate 'real' (.*holdout.csv) is the holdout itself (the same SHA-256" \
  "$WORK/holdout_as_candidate.stderr"

# A holdout that is part of the confidential file (SD2011's holdout is a subset of orig.csv).
run holdout_inside --confidential "$SD/orig.csv" --holdout "$HOLD" "${CODES[@]}" \
  --synthetic cart="$SD/syn.csv" --metrics ks_distance
expect holdout_inside "stderr: the holdout looks like part of the confidential file" \
  grep -q "holdout.csv: 100 % of the holdout's rows equal a confidential row, against 14.08 % repeated rows within the confidential data: is the holdout part of the confidential file?" \
  "$WORK/holdout_inside.stderr"

# --- partial synthesis ---------------------------------------------------------------------------
# smoke replaced in row 3 only (NO -> YES or YES -> NO), every other column kept.
awk -F, 'BEGIN{OFS=","} NR==4{$7=($7=="\"NO\""?"\"YES\"":"\"NO\"")} {print}' "$CONF" \
  >"$WORK/partial.csv"
run partial_ok --confidential "$CONF" "${CODES[@]}" --synthesis partial \
  --synthesised-columns smoke --synthetic p="$WORK/partial.csv" --metrics ks_distance
expect partial_ok "synthesised_columns: smoke is accepted (exit 0)" test "$(rc_of partial_ok)" -eq 0
expect partial_ok "results.json lists the columns kept" \
  grep -q '"not_synthesised_columns"' "$WORK/partial_ok/results.json"
run partial_inferred --confidential "$CONF" "${CODES[@]}" --synthesis partial \
  --synthetic p="$WORK/partial.csv" --metrics ks_distance
expect partial_inferred "without the list the kept columns are inferred (exit 0)" \
  test "$(rc_of partial_inferred)" -eq 0
expect_stop "partial: a kept column differs" \
  "partial.csv: row 3, column 'smoke': '(YES|NO)' where the confidential data have '(NO|YES)'" \
  --confidential "$CONF" "${CODES[@]}" --synthesis partial --synthesised-columns income \
  --synthetic p="$WORK/partial.csv" --metrics ks_distance
expect_stop "partial: no column corresponds" \
  "shuffled.csv: not a partial synthesis of the confidential data: no column equals the confidential data row by row \(the first difference is row [0-9]+, column '[a-z]+'\)" \
  --confidential "$CONF" "${CODES[@]}" --synthesis partial \
  --synthetic p="$WORK/shuffled.csv" --metrics ks_distance
expect_stop "partial: synthesised_columns without partial synthesis" \
  "synthesised_columns: only a partial synthesis names" \
  --confidential "$CONF" --synthesised-columns smoke --synthetic p="$SYN"

# --- survey design columns ----------------------------------------------------------------------
expect_stop "weights: a categorical column" \
  "weights: column 'sex' is categorical, and this use needs a numeric column" \
  --confidential "$CONF" "${CODES[@]}" --weights sex --synthetic s="$SYN" --metrics ks_distance
expect_stop "weights: a missing weight names its row" \
  "train.csv: row 2, column 'income': the sampling weight \(weights: income\) is missing" \
  --confidential "$CONF" "${CODES[@]}" --weights income --synthetic s="$SYN" --metrics ks_distance
expect_stop "household: a column that does not exist" \
  "household: no column 'hhid' in the confidential data" \
  --confidential "$CONF" "${CODES[@]}" --household hhid --synthetic s="$SYN" --metrics ks_distance
run weights_ok --confidential "$CONF" "${CODES[@]}" --weights age --synthetic s="$SYN" \
  --metrics ks_distance
expect weights_ok "a valid weight column is accepted and recorded in the spec of results.json" \
  grep -q '"weights": "age"' "$WORK/weights_ok/results.json"

# --- columns named anywhere ----------------------------------------------------------------------
printf 'age,wages,sex\n30,1200,F\n41,2300,M\n52,900,F\n' >"$WORK/wages.csv"
printf 'age,wages,sex\n31,1100,F\n40,2500,M\n50,1000,M\n' >"$WORK/wages_syn.csv"
W=(--confidential "$WORK/wages.csv" --synthetic s="$WORK/wages_syn.csv" --metrics ks_distance)
expect_stop "a key that does not exist, whichever metrics run" \
  "disclosure\[0\]\.keys: no column 'wage' in the confidential data .*\(did you mean 'wages'\?\)" \
  "${W[@]}" --keys sex,wage --targets age
expect_stop "a target that does not exist" \
  "disclosure\[0\]\.targets: no column 'Sex' .*\(did you mean 'sex'\?\)" "${W[@]}" --keys age \
  --targets Sex
expect_stop "a formula variable that does not exist" \
  "analyses\[0\] \('lm_1'\): no column 'wage' .*\(did you mean 'wages'\?\)" "${W[@]}" \
  --analysis 'lm: log(wage) ~ age'
expect_stop "a mean of a categorical column" \
  "analyses\[0\] \('mean_1'\): column 'sex' is categorical, and this use needs a numeric column" \
  "${W[@]}" --analysis 'mean: sex'
expect_stop "a categorical lm response" "analyses\[0\] \('lm_1'\): .*sex" "${W[@]}" \
  --analysis 'lm: sex ~ age'
expect_stop "relevel to a level the data lack" \
  "analyses\[0\] \('lm_1'\): formula .*relevel\(\): 'X' is not a level of 'sex' in the confidential data \(levels: F, M\)" \
  "${W[@]}" --analysis 'lm: wages ~ relevel(sex, ref = "X")'
expect_stop "poly inside other arithmetic" \
  "analysis 'lm_1': formula .*poly\(\) must be a variable of its own" "${W[@]}" \
  --analysis 'lm: wages ~ I(poly(age, 2))'
expect_stop "a multinomial outcome with two levels" \
  "analyses\[0\] \('multinom_1'\): formula .*'sex' has 2 level\(s\) .*at least 3" "${W[@]}" \
  --analysis 'multinom: sex ~ age'
expect_stop "a negative Poisson outcome" \
  "analyses\[0\] \('glm_poisson_1'\): formula .*count outcome 'age - 100' must be >= 0" \
  "${W[@]}" --analysis 'glm_poisson: age - 100 ~ sex'
expect_stop "a misspelt model kind" "unknown analysis kind 'glm_probt'.*did you mean 'glm_probit'" \
  "${W[@]}" --analysis 'glm_probt: sex ~ age'
expect_stop "a metric parameter naming a column that does not exist" \
  "parameters\.table_utility\.columns: no column 'agee' .*\(did you mean 'age'\?\)" "${W[@]}" \
  --param 'table_utility.columns=["agee"]'
expect_stop "synthesised_columns naming a column that does not exist" \
  "synthesised_columns: no column 'wage' .*\(did you mean 'wages'\?\)" "${W[@]}" \
  --synthesis partial --synthesised-columns wage
expect_stop "--missing-codes with an empty code" "--missing-codes age: an empty code" \
  "${W[@]}" --missing-codes age=1,,2

# --- undeclared missing codes --------------------------------------------------------------------
run codes --confidential "$SD/orig.csv" --synthetic cart="$SD/syn.csv" --metrics ks_distance
expect codes "income's -8 is reported on stderr, with the declaration to add" \
  grep -q "warning: .*orig.csv, column 'income': -8 holds 603 of its 4,317 values (13.97 %) at the minimum, apart from the other values (the nearest is 100): if it is a code for missing, declare it (spec: missing_codes: {income: \[-8\]}, or --missing-codes income=-8)" \
  "$WORK/codes.stderr"
expect codes "the summary lists it under the checks before the metrics" \
  grep -q "  WARNING: .*column 'income': -8 holds 603" "$WORK/codes.stdout"
expect codes "no other SD2011 column is reported" \
  test "$(grep -c 'a code for missing' "$WORK/codes.stderr")" -eq 1
run codes_declared --confidential "$SD/orig.csv" --synthetic cart="$SD/syn.csv" "${CODES[@]}" \
  --metrics ks_distance
expect codes_declared "declared with --missing-codes: no warning" \
  bash -c "! grep -q 'code for missing' '$WORK/codes_declared.stderr' '$WORK/codes_declared.stdout'"

# --- levels one side lacks -----------------------------------------------------------------------
sed 's/"MALE"/"M"/' "$SYN" >"$WORK/recoded.csv"
run levels --confidential "$CONF" "${CODES[@]}" --synthetic recoded="$WORK/recoded.csv" \
  --metrics ks_distance
expect levels "the summary lists the synthetic level the confidential data lack" \
  grep -q "1 synthetic level(s) not in the confidential data (sex: M)" "$WORK/levels.stdout"
expect levels "and the confidential level the synthetic data lack" \
  grep -q "1 confidential level(s) not in the synthetic data (sex: MALE)" "$WORK/levels.stdout"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
