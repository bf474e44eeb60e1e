#!/usr/bin/env bash
# What a newcomer reading only the README trips on: the messages must lead somewhere. describe
# finds a metric by its acronym or a statistic's name; an unknown column lists the columns when
# none is close; init writes paths relative to the spec; a numeric column with a handful of
# values is flagged as probably categorical; the weights warning names only the metrics that
# ignore the weights; sdc says what it wrote.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/newcomer_messages.sh tests/data
set -u

BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
DATA=${1:?give the fixture folder (tests/data) as the first argument}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
DATA=$(cd "$DATA" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-newcomer.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

# expect NAME RC STDERR_PATTERN ARGS...: exit code RC and a stderr line matching the pattern.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 3
  "$@" >"$WORK/stdout" 2>"$WORK/stderr" </dev/null
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$name" "exit $rc, expected $want: $(head -c 300 "$WORK/stderr")"
  elif ! grep -Eq -- "$pattern" "$WORK/stderr"; then
    fail "$name" "stderr does not match /$pattern/: $(head -c 300 "$WORK/stderr")"
  else
    pass "$name  [$(head -n 1 "$WORK/stderr")]"
  fi
}

# --- describe: acronyms, statistics, words of a name. ---
for pair in cap:correct_attribution_probability CAP:correct_attribution_probability \
  disco:synthpop_disclosure repU:synthpop_disclosure dcr:distance_to_closest_record \
  tcap:synthpop_disclosure identity:identity_matching; do
  given=${pair%%:*} metric=${pair#*:}
  expect "describe $given finds $metric" 0 "^synthaudit: '$given' is $metric$" "$BIN" describe "$given"
  head -n 1 "$WORK/stdout" | grep -q "^$metric " ||
    fail "describe $given prints $metric" "$(head -n 1 "$WORK/stdout")"
done
expect "describe of a word several metrics share lists them" 2 \
  "^synthaudit: error: describe: 'distance' could be any of .*distance_to_closest_record.*; give one of these names$" \
  "$BIN" describe distance
expect "describe of nothing close points to list-metrics" 2 \
  "^synthaudit: error: describe: no metric named 'zzz'; \`synthaudit list-metrics\` lists them all$" \
  "$BIN" describe zzz

# --- an unknown column: did you mean, or the columns. ---
EVAL=("$BIN" evaluate --quiet --out "$WORK/out" --confidential "$DATA/conf.csv" --synthetic "s=$DATA/syn.csv")
expect "an unknown key column with nothing close lists the columns" 2 \
  "^synthaudit: error: .*keys: no column 'zzzz' in the confidential data \(.*conf\.csv\) \(the columns: 'age', 'sex', 'income', 'region', 'edu', 'smoke', 'weight', 'height'\)$" \
  "${EVAL[@]}" --keys zzzz --targets income
expect "an unknown key column close to one says which" 2 \
  "^synthaudit: error: .*keys: no column 'regio' .* \(did you mean 'region'\?\)$" \
  "${EVAL[@]}" --keys regio --targets income
expect "an unknown --by column lists the columns" 2 \
  "no column 'qqqq'.*\(the columns: 'age', 'sex'" \
  "${EVAL[@]}" --by qqqq

# --- init: a relative path stays relative to the spec, through ../ when needed. ---
mkdir -p project/data project/specs
cp "$DATA/conf.csv" project/data/
(cd project && "$BIN" init data/conf.csv --out specs/spec.yaml 2>/dev/null)
if grep -qx 'confidential: ../data/conf.csv' project/specs/spec.yaml; then
  pass "init --out specs/spec.yaml writes confidential: ../data/conf.csv"
else
  fail "init writes the confidential path relative to the spec" "$(grep confidential project/specs/spec.yaml)"
fi

# --- a numeric column with a handful of values, and the weights warning. ---
python3 - "$DATA/conf.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
rows[0].append("flag")
for i, row in enumerate(rows[1:]):
    row.append(str(i % 2))
csv.writer(open("flagged.csv", "w", newline="")).writerows(rows)
EOF
expect "a 0/1 numeric column is flagged as probably categorical" 0 \
  "^synthaudit: warning: flagged\.csv, column 'flag': read as numeric, but it holds only 2 distinct values \(0, 1\); if they are codes of categories, declare it" \
  "$BIN" evaluate --quiet --out "$WORK/flagged" --confidential flagged.csv --synthetic s=flagged.csv \
  --metrics ks_distance --baseline-draws 0
printf 'confidential: flagged.csv\ncandidates: [{name: s, replicates: [flagged.csv]}]\ncolumns: {flag: categorical}\n' >declared.yaml
"$BIN" evaluate --quiet --out "$WORK/declared" --spec declared.yaml --metrics ks_distance \
  --baseline-draws 0 >/dev/null 2>"$WORK/stderr"
grep -q "column 'flag': read as numeric" "$WORK/stderr" &&
  fail "a column declared categorical is not flagged" "$(cat "$WORK/stderr")" ||
  pass "a column declared categorical is not flagged"

"${EVAL[@]}" --weights weight --keys sex,region --targets income \
  --metrics individual_risk,k_anonymity,ks_distance --baseline-draws 0 >/dev/null 2>"$WORK/stderr"
python3 - "$WORK/out/results.json" <<'EOF' && pass "the weights warning names the metrics that ignore the weights, not individual_risk" || fail "the weights warning" "see above"
import json, sys
doc = json.load(open(sys.argv[1]))
lines = [w for w in doc["warnings"] if w.startswith("weights:")]
assert len(lines) == 1, lines
assert "k_anonymity" in lines[0] and "individual_risk" not in lines[0], lines[0]
EOF

# --- sdc says what it wrote. ---
"$BIN" sdc --confidential "$DATA/conf.csv" --synthetic "$DATA/syn.csv" --keys sex,region \
  --remove-replicated-uniques --out "$WORK/sdc" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
[ "$rc" -eq 0 ] && grep -q "^written: .*sdc/syn\.csv$" "$WORK/stdout" && grep -q "records written" "$WORK/stdout" &&
  pass "sdc prints what it did and the files it wrote" ||
  fail "sdc prints what it did" "exit $rc: $(cat "$WORK/stdout" "$WORK/stderr" | head -c 300)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
