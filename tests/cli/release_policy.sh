#!/usr/bin/env bash
# The verdict and the release policy on the command line: exit code 0 when a candidate passes,
# 3 when none does (the outputs still written in full), 2 with one line naming the key for a bad
# policy or a candidate named like a baseline.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/release_policy.sh
set -u
bin=${SYNTHAUDIT:?set SYNTHAUDIT to the built binary}
work=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-policy.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0; failed=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}

"$bin" simulate --rows 600 --replicates 1 --out "$work/data" >/dev/null
data="$work/data"
metrics=distance_to_closest_record,distance_membership_inference,ks_distance
run() {  # run OUT [ARGS...]: evaluate the simulated candidates; prints the exit code
  local out=$1; shift
  "$bin" evaluate --spec "$data/spec.yaml" --metrics "$metrics" --baseline-draws 2 --quiet \
    --out "$work/$out" "$@" >"$work/$out.stdout" 2>"$work/$out.stderr"
  echo $?
}

# These metrics leave out the key, attack and sdc risk families: the default policy cannot pass
# anyone and says which families are missing; a policy that judges without them passes ideal.
rc=$(run missing)
check "families left out: no candidate passes, exit 3" test "$rc" -eq 3
check "families left out: the reason names them" \
  grep -q "Not every default risk family ran, so it cannot pass: key-disclosure" \
  "$work/missing/results.json"
printf 'require_default_checks: false\n' >"$work/these.yaml"
rc=$(run default --policy "$work/these.yaml")
check "default policy on these metrics: ideal passes, exit 0" test "$rc" -eq 0
check "default policy: a verdict recommends a candidate" \
  grep -q '"recommended": "ideal"' "$work/default/results.json"
check "results.tsv carries the baseline rows" \
  bash -c "cut -f1 '$work/default/results.tsv' | grep -qx resample"

cat >"$work/impossible.yaml" <<'YAML'
criteria:
  - id: identical marginals
    metric: ks_distance
    statistic: mean_ks_distance
    max: 0
YAML
rc=$(run impossible --policy "$work/impossible.yaml")
check "no candidate passes: exit 3" test "$rc" -eq 3
check "exit 3 still writes results.json with the verdict" \
  grep -q '"identical marginals"' "$work/impossible/results.json"
check "exit 3 still writes results.tsv and report.html" \
  test -s "$work/impossible/results.tsv" -a -s "$work/impossible/report.html"

cat >"$work/relative.yaml" <<'YAML'
default_checks: false
criteria:
  - metric: distance_to_closest_record
    statistic: syn_to_conf_exact_copy_share
    max: 0.01
    relative_to: holdout
YAML
rc=$(run relative --policy "$work/relative.yaml")
check "a relative criterion that ideal meets: exit 0" test "$rc" -eq 0

bad() {  # bad NAME PATTERN POLICY-TEXT: exit 2 and one stderr line matching PATTERN
  local name=$1 pattern=$2
  printf '%s\n' "$3" >"$work/bad.yaml"
  local rc
  rc=$(run bad --policy "$work/bad.yaml")
  local lines
  lines=$(wc -l <"$work/bad.stderr")
  check "$name: exit 2" test "$rc" -eq 2
  check "$name: one line" test "$lines" -eq 1
  check "$name: the line names the key" grep -qE -- "$pattern" "$work/bad.stderr"
}
bad "unknown policy key" "bad.yaml: criteria\[0\]\.maxx: unknown key \(did you mean 'max'\?\)" \
  "criteria: [{metric: ks_distance, statistic: mean_ks_distance, maxx: 1}]"
bad "unknown metric" "criteria\[0\]\.metric: no metric named 'ks_distanse' \(did you mean 'ks_distance'\?\)" \
  "criteria: [{metric: ks_distanse, statistic: mean_ks_distance, max: 1}]"
bad "unknown statistic" "criteria\[0\]\.statistic: ks_distance declares no statistic 'mean_ks_distanc' \(did you mean 'mean_ks_distance'\?\)" \
  "criteria: [{metric: ks_distance, statistic: mean_ks_distanc, max: 1}]"
# The statistic is checked against the registry before any metric runs: nothing was written.
check "unknown statistic: refused before any output" test ! -e "$work/bad"
bad "unknown scope" "criteria\[0\]\.scope: ks_distance reports mean_ks_distance for no scope 'al'" \
  "criteria: [{metric: ks_distance, statistic: mean_ks_distance, scope: al, max: 1}]"
bad "baseline the metric lacks" "criteria\[0\]\.relative_to: distance_membership_inference has no holdout baseline" \
  "criteria: [{metric: distance_membership_inference, statistic: auc, max: 0.1, relative_to: holdout}]"

"$bin" evaluate --confidential "$data/confidential.csv" --synthetic "holdout=$data/ideal_1.csv" \
  --metrics ks_distance --out "$work/reserved" --quiet 2>"$work/reserved.stderr" >/dev/null
check "a candidate named holdout: exit 2" test $? -eq 2
check "a candidate named holdout: the message says it is reserved" \
  grep -q "candidate name 'holdout' is reserved" "$work/reserved.stderr"
"$bin" evaluate --confidential "$data/confidential.csv" \
  --synthetic "independent_marginals=$data/ideal_1.csv" --metrics ks_distance \
  --out "$work/reserved" --quiet 2>"$work/reserved.stderr" >/dev/null
check "a candidate named independent_marginals: exit 2" test $? -eq 2

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
