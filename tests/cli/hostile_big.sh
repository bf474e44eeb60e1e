#!/usr/bin/env bash
# The hostile inputs of issue 17 at full size, against the default limits (docs/limits.md). Not
# part of `make test`: it writes a few GB to $TMPDIR and takes minutes. Each case must end with
# the expected exit code and one stderr line, within the time and memory given (GNU time's
# maximum resident size is printed for each).
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/hostile_big.sh
set -u

BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-hostile-big.XXXXXX")
cleanup() {
  [ -n "${TRUNCATOR:-}" ] && kill "$TRUNCATOR" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK" || exit 1
OUT="$WORK/out"

passed=0
failed=0

# expect RC PATTERN ARGS...: exit code RC, stderr matching PATTERN, at most 10 minutes; prints
# the peak resident memory.
expect() {
  local want=$1 pattern=$2
  shift 2
  rm -rf "$OUT"
  local start=$SECONDS
  /usr/bin/time -f '%M' -o "$WORK/rss" timeout 600 "$@" >/dev/null 2>"$WORK/stderr"
  local rc=$?
  local rss
  rss=$(tail -1 "$WORK/rss" 2>/dev/null)
  local msg
  msg=$(grep '^synthaudit: ' "$WORK/stderr" | head -c 300 | tr '\n' ' ')
  if [ "$rc" -eq "$want" ] && grep -Eq -- "$pattern" "$WORK/stderr"; then
    passed=$((passed + 1))
    echo "ok    exit $rc in $((SECONDS - start)) s, peak ${rss:-?} KiB: $msg"
  else
    failed=$((failed + 1))
    echo "FAIL  exit $rc (expected $want) in $((SECONDS - start)) s, peak ${rss:-?} KiB: $msg"
  fi
}

echo "writing inputs to $WORK"
python3 - <<'EOF'
import random
random.seed(1)
# A 2-million-level categorical column (aborted at 7.2 GB in column summaries before).
with open("levels.csv", "w") as f:
    f.write("id,age,sex\n")
    for i in range(2_000_000):
        f.write(f"r{i},{20 + i % 60},{'FM'[i % 2]}\n")
# 2x10^5 columns x 3 rows (used more than 8 GB before).
n = 200_000
with open("wide.csv", "w") as f:
    f.write(",".join(f"c{i}" for i in range(n)) + "\n")
    for r in range(3):
        f.write(",".join(str((i * 7 + r) % 5) for i in range(n)) + "\n")
# 10^6 columns (quadratic header matching before).
n = 1_000_000
with open("wider.csv", "w") as f:
    f.write(",".join(f"c{i}" for i in range(n)) + "\n")
    f.write(",".join("1" for i in range(n)) + "\n")
# A 200 MB field (copied into every output before: a 2.5 GB results.json).
with open("field.csv", "w") as f:
    f.write("age,note\n1,a\n2," + "x" * 200_000_000 + "\n3,b\n")
# A file to truncate while it is read.
with open("shrinking.csv", "w") as f:
    f.write("age,income,sex\n")
    line = "".join(f"{20 + i % 60},{1000 + i},{'FM'[i % 2]}\n" for i in range(1000))
    for _ in range(20_000):
        f.write(line)
EOF

expect 0 "column 'id' has 2000000 distinct values, more than the limit of 10000 levels" \
  "$BIN" evaluate --out "$OUT" --confidential levels.csv --synthetic s=levels.csv \
  --metrics general --baseline-draws 0
expect 2 "wide\.csv: header has 200000 columns, more than the limit of 1000" \
  "$BIN" evaluate --quiet --out "$OUT" --confidential wide.csv --synthetic s=wide.csv
expect 2 "wider\.csv: header has 1000000 columns, more than the limit of 1000" \
  "$BIN" evaluate --quiet --out "$OUT" --confidential wider.csv --synthetic s=wider.csv
# Raised past the columns limit, 10^6 columns are matched in linear time; the memory estimate or
# the metrics decide the rest (exit 0 or 2, never a crash).
expect 2 "wider\.csv" \
  "$BIN" evaluate --quiet --out "$OUT" --confidential wider.csv --synthetic s=wider.csv \
  --limit columns=2000000 --memory 1G
expect 2 "field\.csv: row 2 \(line 3\), column 'note': a field is longer than 1 MiB" \
  "$BIN" evaluate --quiet --out "$OUT" --confidential field.csv --synthetic s=field.csv
expect 2 "decompresses to more than 8 GiB" \
  bash -c "head -c 10000000000 /dev/zero | gzip -1 > bomb.csv.gz && \"$BIN\" evaluate --quiet --out \"$OUT\" --confidential bomb.csv.gz --synthetic s=bomb.csv.gz"

# Truncate and rewrite the file over and over while it is read: every run ends with exit 0 (it
# read a complete version) or 2 (it saw the change), never SIGBUS (138) or a crash.
cp shrinking.csv original.csv
(while true; do
  : >shrinking.csv
  cp original.csv shrinking.csv
done) &
TRUNCATOR=$!
bad=0
for i in $(seq 20); do
  rm -rf "$OUT"
  timeout 120 "$BIN" evaluate --quiet --out "$OUT" --confidential shrinking.csv \
    --synthetic s=original.csv --metrics ks_distance --baseline-draws 0 >/dev/null 2>"$WORK/stderr"
  rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
    bad=$((bad + 1))
    echo "      run $i: exit $rc: $(head -c 200 "$WORK/stderr")"
  fi
done
kill "$TRUNCATOR" 2>/dev/null
wait "$TRUNCATOR" 2>/dev/null
TRUNCATOR=""
if [ "$bad" -eq 0 ]; then
  passed=$((passed + 1))
  echo "ok    20 runs on a file truncated while read: each exit 0 or 2"
else
  failed=$((failed + 1))
  echo "FAIL  $bad of 20 runs on a file truncated while read ended otherwise"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
