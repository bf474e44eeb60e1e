#!/usr/bin/env bash
# Hostile input (issue 17): resource limits, non-regular files and malformed values. Every case
# must end quickly with exit code 2 and one stderr line that names the file, row, column, key or
# limit, except the two that finish with a warning and exit 0 (more threads than the machine has;
# a categorical column with more levels than the limit, left out as an identifier). The limits are
# lowered with --limit where the default would need a large input; docs/limits.md lists them.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/hostile_input.sh tests/data
# The big-input proofs (the defaults against multi-GB inputs) are in tests/cli/hostile_big.sh,
# which `make test` does not run.
set -u

BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
DATA=${1:?give the fixture folder (tests/data) as the first argument}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
DATA=$(cd "$DATA" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-hostile.XXXXXX")
cleanup() {
  [ -n "${WRITER:-}" ] && kill "$WRITER" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
OUT="$WORK/out"
cp "$DATA/conf.csv" "$DATA/syn.csv" "$WORK/"
cd "$WORK" || exit 1

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

# check NAME PATTERN ARGS...: runs ARGS (with a 60 s backstop against hangs) and asserts exit code
# 2, exactly one stderr line, matching the extended regex PATTERN, and nothing written to --out.
check() {
  local name=$1 pattern=$2
  shift 2
  rm -rf "$OUT"
  timeout 60 "$@" >"$WORK/stdout" 2>"$WORK/stderr" </dev/null
  local rc=$?
  local lines msg
  lines=$(wc -l <"$WORK/stderr")
  msg=$(head -c 400 "$WORK/stderr" | tr '\n' ' ')
  if [ "$rc" -ne 2 ]; then
    fail "$name" "exit code $rc, expected 2 (stderr: $msg)"
  elif [ "$lines" -ne 1 ]; then
    fail "$name" "$lines stderr lines, expected 1: $msg"
  elif ! grep -Eq -- "$pattern" "$WORK/stderr"; then
    fail "$name" "stderr does not match /$pattern/: $msg"
  elif [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
    fail "$name" "left files in --out: $(ls -A "$OUT" | tr '\n' ' ')"
  else
    pass "$name  [$(sed 's/^synthaudit: error: //' "$WORK/stderr")]"
  fi
}

# check_ok NAME STDERR_PATTERN ARGS...: exit code 0, a complete output set, and a stderr line
# matching STDERR_PATTERN (the warning).
check_ok() {
  local name=$1 pattern=$2
  shift 2
  rm -rf "$OUT"
  timeout 120 "$@" >"$WORK/stdout" 2>"$WORK/stderr" </dev/null
  local rc=$?
  local msg
  msg=$(head -c 400 "$WORK/stderr" | tr '\n' ' ')
  if [ "$rc" -ne 0 ]; then
    fail "$name" "exit code $rc, expected 0 (stderr: $msg)"
  elif [ ! -s "$OUT/results.json" ] || [ ! -s "$OUT/results.tsv" ] || [ ! -s "$OUT/report.html" ]; then
    fail "$name" "the output set is incomplete: $(ls -A "$OUT" 2>/dev/null | tr '\n' ' ')"
  elif ! grep -Eq -- "$pattern" "$WORK/stderr" "$OUT/results.json"; then
    fail "$name" "no warning matching /$pattern/ (stderr: $msg)"
  else
    pass "$name"
  fi
}

# evaluate with the common flags (an array, not a function: `timeout` runs programs only)
EVAL=("$BIN" evaluate --quiet --out "$OUT")
base=(--confidential conf.csv --synthetic s=syn.csv)
fast=(--metrics ks_distance --baseline-draws 0)

# ---- 1. resource limits ----------------------------------------------------------------------

# A field above the default limit (1 MiB): the 200 MB field of the issue, at a size a test affords.
python3 - <<'EOF'
with open("big_field.csv", "w") as f:
    f.write("age,note\n1,short\n2," + "x" * (2 << 20) + "\n3,short\n")
EOF
check "field above the default field_bytes" \
  "^synthaudit: error: big_field\.csv: row 2 \(line 3\), column 'note': a field is longer than 1 MiB \(limit field_bytes" \
  "${EVAL[@]}" --confidential big_field.csv --synthetic s=big_field.csv
check "field above a lowered field_bytes" \
  "^synthaudit: error: conf\.csv: row 1 \(line 2\), column 'edu': a field is longer than 8 bytes" \
  "${EVAL[@]}" "${base[@]}" --limit field_bytes=8
check "header name above a lowered field_bytes" \
  "^synthaudit: error: conf\.csv: header column 3 is longer than 4 bytes \(limit field_bytes" \
  "${EVAL[@]}" "${base[@]}" --limit field_bytes=4

# 10^4 columns: over the default of 1000, refused at the header, before any row is read.
python3 - <<'EOF'
n = 10000
with open("wide.csv", "w") as f:
    f.write(",".join(f"c{i}" for i in range(n)) + "\n")
    for r in range(3):
        f.write(",".join(str((i + r) % 7) for i in range(n)) + "\n")
EOF
check "10^4 columns (default columns limit)" \
  "^synthaudit: error: wide\.csv: header has 10000 columns, more than the limit of 1000 \(raise it with --limit columns=N\)$" \
  "${EVAL[@]}" --confidential wide.csv --synthetic s=wide.csv

check "input above input_bytes" \
  "^synthaudit: error: conf\.csv: larger than 100 bytes \(limit input_bytes" \
  "${EVAL[@]}" "${base[@]}" --limit input_bytes=100

# A gzip bomb: 64 MiB of zeros in about 64 KiB, read with a 1 MiB bound.
head -c 67108864 /dev/zero | gzip -9 >bomb.csv.gz
check "gzip bomb stops at input_bytes" \
  "^synthaudit: error: bomb\.csv\.gz: decompresses to more than 1 MiB \(limit input_bytes" \
  "${EVAL[@]}" --confidential bomb.csv.gz --synthetic s=syn.csv --limit input_bytes=1M
# Below input_bytes, the memory bounds it as it grows: the budget, and the address-space limit.
check "gzip bomb stops at the memory budget" \
  "^synthaudit: error: bomb\.csv\.gz: decompresses to more than .* of memory available \(bounded by the memory budget" \
  "${EVAL[@]}" --confidential conf.csv --synthetic s=bomb.csv.gz --memory 40M
# (Not under the sanitizers, whose shadow memory needs terabytes of address space.)
if [ -z "${ASAN_OPTIONS:-}" ]; then
  check "gzip bomb stops at ulimit -v" \
    "^synthaudit: error: bomb\.csv\.gz: decompresses to more than .* \(bounded by the address-space limit" \
    bash -c 'ulimit -v 180000; exec "$@"' _ "${EVAL[@]}" --confidential bomb.csv.gz --synthetic s=syn.csv
fi

check "memory budget too small (--memory)" \
  "^synthaudit: error: conf\.csv: reading it needs about .*, more than the 16 bytes available \(bounded by the memory budget \(--memory or limits: memory\)\)" \
  "${EVAL[@]}" "${base[@]}" --memory 16
printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\nlimits: {memory: 100}\n' >spec_memory.yaml
check "memory budget in the spec's limits block" \
  "^synthaudit: error: conf\.csv: reading it needs about .*, more than the 100 bytes available" \
  "${EVAL[@]}" --spec spec_memory.yaml
printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\nlimits: {levles: 5}\n' >spec_limit_typo.yaml
check "unknown limit in the spec (did you mean)" \
  "^synthaudit: error: spec_limit_typo\.yaml: limits\.levles: unknown limit 'levles' \(did you mean 'levels'\?\)" \
  "${EVAL[@]}" --spec spec_limit_typo.yaml

# The address-space limit (ulimit -v) bounds the memory too: a sparse 2 GiB file (no disk used)
# against 1 GB of address space is refused before it is read.
# (A sanitizer build cannot start under such a limit: its shadow memory needs terabytes of
# address space. Then the case is skipped.)
truncate -s 2G sparse.csv
if bash -c "ulimit -v 1000000 && exec \"$BIN\" --version" >/dev/null 2>&1; then
  check "input larger than the address space left by ulimit -v" \
    "^synthaudit: error: sparse\.csv: reading it needs about 2 GiB, more than the .* available \(bounded by the address-space limit \(ulimit -v\)\)" \
    bash -c "ulimit -v 1000000 && exec \"$BIN\" evaluate --quiet --out \"$OUT\" --confidential sparse.csv --synthetic s=syn.csv"
else
  echo "skip  ulimit -v: this build of synthaudit does not start under a 1 GB address-space limit (a sanitizer build)"
fi
rm -f sparse.csv

check "unknown limit (did you mean)" \
  "^synthaudit: error: --limit: unknown limit 'colums' \(did you mean 'columns'\?\)" \
  "${EVAL[@]}" "${base[@]}" --limit colums=5
check "limit that is not a number" \
  "^synthaudit: error: --limit: limit levels: '-3' is not a non-negative integer$" \
  "${EVAL[@]}" "${base[@]}" --limit levels=-3

# Levels: a column with more levels than the limit is an identifier, left out with a warning.
check_ok "column above the levels limit is left out as an identifier (exit 0)" \
  "column 'region' has 4 distinct values, more than the limit of 3 levels: it is treated as an identifier" \
  "${EVAL[@]}" "${base[@]}" "${fast[@]}" --limit levels=3
if [ ! -s "$OUT/results.json" ]; then
  fail "identifier column absent from the results" "no results.json"
elif grep -q '"name": "region"' "$OUT/results.json"; then
  fail "identifier column absent from the results" "results.json still lists column region"
else
  pass "identifier column absent from the results"
fi
check "identifier used by an analysis" \
  "^synthaudit: error: command line: analysis 'lm_1': column 'region' has 4 distinct values, more than the limit of 3 levels, so it is treated as an identifier" \
  "${EVAL[@]}" "${base[@]}" --analysis 'lm: income ~ age + factor(region)' --limit levels=3
check "identifier used as a disclosure key" \
  "^synthaudit: error: command line: disclosure\[0\] keys: column 'region' has 4 distinct values" \
  "${EVAL[@]}" "${base[@]}" --keys region,sex --targets smoke --limit levels=3

# Design matrix of an lm/glm analysis: checked before it is built.
check "design matrix above design_cells" \
  "^synthaudit: error: analysis 'lm_1' on confidential \(conf\.csv\): the design matrix would have 6 rows × 5 columns = 30 cells, more than the limit of 10 \(limit design_cells" \
  "${EVAL[@]}" "${base[@]}" --metrics analysis_inference_comparison --baseline-draws 0 \
  --analysis 'lm: income ~ age + factor(region)' --limit design_cells=10

# Formulas: nesting depth (5,000 parentheses overflowed the stack) and terms (12-way interaction).
deep=$(printf '(%.0s' $(seq 5000))x$(printf ')%.0s' $(seq 5000))
check "5,000-deep parenthesised formula" \
  "^synthaudit: error: command line: analysis 'lm_1': formula 'y ~ \(\(\(.*\.\.\.': nested deeper than 100 levels \(limit formula_depth" \
  "${EVAL[@]}" "${base[@]}" --analysis "lm: y ~ $deep"
check "formula_depth cannot be raised to where the parser's stack would overflow" \
  "limit formula_depth: '1000000' is above 2000, the most this limit can be raised to" \
  "${EVAL[@]}" "${base[@]}" --analysis "lm: y ~ $deep" --limit formula_depth=1000000
minus=$(printf -- '-%.0s' $(seq 5000))
check "5,000 unary minus signs in a formula" \
  "nested deeper than 100 levels \(limit formula_depth" \
  "${EVAL[@]}" "${base[@]}" --analysis "lm: y ~ I(${minus}x)"
check "12-way interaction" \
  "^synthaudit: error: command line: analysis 'lm_1': formula 'y ~ a\*b\*c.*': the model would have more than 1000 terms \(limit formula_terms" \
  "${EVAL[@]}" "${base[@]}" --analysis 'lm: y ~ a*b*c*d*e*f*g*h*i*j*k*l'
check "30-way interaction (2^30 terms) fails at once" \
  "more than 1000 terms" \
  "${EVAL[@]}" "${base[@]}" --analysis "lm: y ~ $(printf 'x%d*' $(seq 29))x30"

# Threads: more than the machine has are capped, with a warning; the run completes.
check_ok "--threads 100000 is capped to the machine (exit 0)" \
  "^synthaudit: warning: threads: 100000 requested, but this machine has [0-9]+; using [0-9]+$" \
  "${EVAL[@]}" "${base[@]}" "${fast[@]}" --threads 100000
check_ok "--threads beyond 64 bits is capped, and said as given (exit 0)" \
  "^synthaudit: warning: threads: 2147483647 or more requested, but this machine has [0-9]+; using [0-9]+$" \
  "${EVAL[@]}" "${base[@]}" "${fast[@]}" --threads 99999999999999999999
# OpenMP's environment, read by libgomp before main: capped or dropped with our warning.
check_ok "OMP_NUM_THREADS=100000 is capped to the machine (exit 0)" \
  "^synthaudit: warning: OMP_NUM_THREADS=100000 asks for more threads than this machine has \([0-9]+\); using [0-9]+$" \
  env OMP_NUM_THREADS=100000 "${EVAL[@]}" "${base[@]}" --baseline-draws 0 --metrics ks_distance,distance_to_closest_record
check_ok "OMP_STACKSIZE=100000G is dropped (exit 0, not libgomp's thread failure)" \
  "^synthaudit: warning: OMP_STACKSIZE=100000G is more than the 1 GiB per thread synthaudit allows; ignored" \
  env OMP_STACKSIZE=100000G "${EVAL[@]}" "${base[@]}" --baseline-draws 0 --metrics ks_distance,distance_to_closest_record
# A warning may come before an error; the error is then the last line.
rm -rf "$OUT"
OMP_NUM_THREADS=100000 "${EVAL[@]}" --confidential missing.csv --synthetic s=syn.csv 2>"$WORK/stderr" >/dev/null
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$WORK/stderr")" -eq 2 ] &&
  head -n 1 "$WORK/stderr" | grep -q '^synthaudit: warning: OMP_NUM_THREADS' &&
  tail -n 1 "$WORK/stderr" | grep -q '^synthaudit: error: missing\.csv: '; then
  pass "a warning before an error: the error is the last line"
else
  fail "a warning before an error: the error is the last line" "exit $rc: $(tr '\n' '|' <"$WORK/stderr")"
fi
printf 'confidential: conf.csv\0\ncandidates: [{name: s, replicates: [syn.csv]}]\n' >spec_nul.yaml
check "a NUL byte in a spec" \
  "^synthaudit: error: spec_nul\.yaml: line 1: a NUL byte; a spec or policy is YAML text" \
  "${EVAL[@]}" --spec spec_nul.yaml
check "a line break in a value quoted by an error stays on one line" \
  "^synthaudit: error: .*no\\\\nsuch\.csv" \
  "${EVAL[@]}" --confidential "$(printf 'no\nsuch.csv')" --synthetic s=syn.csv
check "negative --threads" \
  "^synthaudit: error: --threads: '-2': the thread count cannot be negative" \
  "${EVAL[@]}" "${base[@]}" --threads=-2
check "negative threads in a spec" \
  "^synthaudit: error: .*spec_threads\.yaml: threads: '-4': the thread count cannot be negative" \
  bash -c "printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\nthreads: -4\n' >spec_threads.yaml && \"$BIN\" evaluate --quiet --out \"$OUT\" --spec spec_threads.yaml"

# YAML: depth, alias expansion, duplicate keys.
python3 - <<'EOF'
depth = 200
with open("spec_deep.yaml", "w") as f:
    f.write("confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\n")
    f.write("parameters:\n  ks_distance:\n    pvalue: " + "[" * depth + "]" * depth + "\n")
with open("spec_bomb.yaml", "w") as f:
    f.write("confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\n")
    f.write('a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n')
    for i in range(1, 10):
        refs = ",".join([f"*a{i-1}"] * 9)
        f.write(f"a{i}: &a{i} [{refs}]\n")
    f.write("parameters: {ks_distance: {pvalue: *a9}}\n")
EOF
check "deeply nested YAML" \
  "^synthaudit: error: spec_deep\.yaml: line [0-9]+: nested deeper than 64 levels \(limit yaml_depth" \
  "${EVAL[@]}" --spec spec_deep.yaml
check "YAML alias bomb" \
  "^synthaudit: error: spec_bomb\.yaml: line [0-9]+: more than 100000 YAML nodes once aliases are expanded \(limit yaml_nodes" \
  "${EVAL[@]}" --spec spec_bomb.yaml
printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\nseed: 1\nseed: 2\n' >spec_dup.yaml
check "duplicate YAML key" \
  "^synthaudit: error: spec_dup\.yaml: line 4: key 'seed' appears twice$" \
  "${EVAL[@]}" --spec spec_dup.yaml
printf 'criteria:\n  - metric: ks_distance\n    statistic: ks_distance\n    max: 0.1\n    max: 0.2\n' >policy_dup.yaml
check "duplicate YAML key in a policy" \
  "^synthaudit: error: policy_dup\.yaml: line 5: key 'max' appears twice$" \
  "${EVAL[@]}" "${base[@]}" --policy policy_dup.yaml

# ---- 2. non-regular inputs -------------------------------------------------------------------

check "/dev/zero as the confidential file" \
  "^synthaudit: error: /dev/zero: is a device or socket, not a file" \
  "${EVAL[@]}" --confidential /dev/zero --synthetic s=syn.csv
check "/dev/zero as the spec" \
  "^synthaudit: error: /dev/zero: is a device or socket, not a file" \
  "${EVAL[@]}" --spec /dev/zero
check "/dev/zero for report" \
  "^synthaudit: error: /dev/zero: is a device or socket, not a file" \
  "$BIN" report /dev/zero
mkdir -p a_folder
check "a folder as --spec" "^synthaudit: error: a_folder: is a folder, not a file$" \
  "${EVAL[@]}" --spec a_folder
check "a folder as --metadata" "^synthaudit: error: a_folder: is a folder, not a file$" \
  "${EVAL[@]}" "${base[@]}" --metadata a_folder
check "a folder as --policy" "^synthaudit: error: a_folder: is a folder, not a file$" \
  "${EVAL[@]}" "${base[@]}" --policy a_folder
check "a folder for report" "^synthaudit: error: a_folder: is a folder, not a file$" \
  "$BIN" report a_folder
mkfifo idle_fifo
check "a FIFO nobody writes: an error after pipe_wait_seconds (no hang)" \
  "^synthaudit: error: idle_fifo: no process opened this FIFO for writing within 1 s \(limit pipe_wait_seconds" \
  "${EVAL[@]}" --confidential idle_fifo --synthetic s=syn.csv --limit pipe_wait_seconds=1
mkfifo busy_fifo
(yes 1 >busy_fifo 2>/dev/null) &
WRITER=$!
sleep 0.5  # the writer is then waiting in open() for a reader
check "an endless FIFO stops at input_bytes" \
  "^synthaudit: error: busy_fifo: larger than 1 MiB \(limit input_bytes" \
  "${EVAL[@]}" --confidential busy_fifo --synthetic s=syn.csv --limit input_bytes=1M
kill "$WRITER" 2>/dev/null
wait "$WRITER" 2>/dev/null
WRITER=""
# A regular file whose size is not what stat said (procfs reports 0 bytes and then has text):
# the check that catches a file changing while it is read.
check "a file whose size changes while it is read" \
  "^synthaudit: error: /proc/self/status: the file grew while it was being read" \
  "${EVAL[@]}" --confidential /proc/self/status --synthetic s=syn.csv

# ---- 4. malformed values: exit 2 with the key -------------------------------------------------

printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\nparameters:\n  propensity_boosted_trees: {eta: .nan}\n' >spec_nan.yaml
check "NaN parameter in YAML (eta: .nan)" \
  "^synthaudit: error: spec_nan\.yaml: parameters\.propensity_boosted_trees\.eta: expected a finite number, got NaN$" \
  "${EVAL[@]}" --spec spec_nan.yaml
printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\nparameters:\n  propensity_boosted_trees: {eta: .inf}\n' >spec_inf.yaml
check "infinite parameter in YAML" \
  "expected a finite number, got infinity$" \
  "${EVAL[@]}" --spec spec_inf.yaml
printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\nmissing_codes:\n  income: [.nan]\n' >spec_nan_code.yaml
check "NaN missing code" \
  "^synthaudit: error: spec_nan_code\.yaml: missing_codes\.income\[0\]: expected a finite number, got \.nan$" \
  "${EVAL[@]}" --spec spec_nan_code.yaml
printf 'criteria:\n  - metric: ks_distance\n    statistic: ks_distance\n    max: .nan\n' >policy_nan.yaml
check "NaN bound in a policy" \
  "^synthaudit: error: policy_nan\.yaml: criteria\[0\]\.max: expected a finite number, got \.nan$" \
  "${EVAL[@]}" "${base[@]}" --policy policy_nan.yaml
check "integer parameter far beyond 2^63" \
  "expected an integer, got 1e\+300" \
  "${EVAL[@]}" "${base[@]}" --param propensity_cart.minbucket=1e300

check "negative --seed" \
  "^synthaudit: error: --seed: '-5': a seed is a non-negative integer$" \
  "${EVAL[@]}" "${base[@]}" --seed=-5
check "--seed 2^64 is not clamped" \
  "^synthaudit: error: --seed: '18446744073709551616' is larger than the largest seed, 2\^64 - 1" \
  "${EVAL[@]}" "${base[@]}" --seed 18446744073709551616
check "seed that is not a number" \
  "^synthaudit: error: --seed: '12abc' is not a seed" \
  "${EVAL[@]}" "${base[@]}" --seed 12abc
printf 'confidential: conf.csv\ncandidates: [{name: s, replicates: [syn.csv]}]\nseed: -1\n' >spec_seed.yaml
check "negative seed in a spec" \
  "^synthaudit: error: spec_seed\.yaml: seed: '-1': a seed is a non-negative integer$" \
  "${EVAL[@]}" --spec spec_seed.yaml
check "negative --seed for simulate" \
  "^synthaudit: error: --seed: '-1': a seed is a non-negative integer$" \
  "$BIN" simulate --out "$OUT" --rows 100 --seed=-1

check "simulate --holdout-rows 0" \
  "^synthaudit: error: --holdout-rows: Value 0 not in range 1 to 100000000" \
  "$BIN" simulate --out "$OUT" --rows 100 --holdout-rows 0
check "simulate --holdout-rows too large" \
  "^synthaudit: error: --holdout-rows: Value 99999999999 not in range" \
  "$BIN" simulate --out "$OUT" --rows 100 --holdout-rows 99999999999
check "simulate --holdout-rows not a number" \
  "^synthaudit: error: --holdout-rows" \
  "$BIN" simulate --out "$OUT" --rows 100 --holdout-rows many

check "candidate name that is not UTF-8" \
  "^synthaudit: error: command line: candidate name 'bad\\\\xff' is not valid UTF-8; rename the candidate$" \
  "${EVAL[@]}" --confidential conf.csv --synthetic "$(printf 'bad\xff')=syn.csv"
check "candidate name with a control character" \
  "^synthaudit: error: command line: candidate name 'a\\\\x01b' contains control characters" \
  "${EVAL[@]}" --confidential conf.csv --synthetic "$(printf 'a\001b')=syn.csv"

# report on deeply nested JSON (segfaulted): refused past json_depth.
python3 -c 'print("[" * 100000 + "]" * 100000)' >deep.json
check "report on 100,000-deep JSON" \
  "^synthaudit: error: deep\.json: JSON nested deeper than 128 levels \(limit json_depth" \
  "$BIN" report deep.json
check "json_depth cannot be raised to where the renderers' stack would overflow" \
  "limit json_depth: '1000000' is above 10000, the most this limit can be raised to" \
  "$BIN" report deep.json --limit json_depth=1000000
python3 -c 'print("{\"columns\": " + "[" * 5000 + "]" * 5000 + "}")' >deep_meta.json
check "deeply nested SDV metadata" \
  "^synthaudit: error: deep_meta\.json: JSON nested deeper than 128 levels" \
  "${EVAL[@]}" "${base[@]}" --metadata deep_meta.json

# Stata, SPSS and SAS files that are damaged, and formats synthaudit does not read: one line
# naming the file and the format (io/format.cpp, io/readstat.cpp), never a CSV parser's complaint.
SD="$DATA/sd2011"
gunzip -c "$SD/train.dta.gz" >train.dta
head -c 3000 train.dta >truncated.dta
head -c 2000 "$SD/train.zsav" >truncated.sav
# A header that promises far more variables than the file has, and bytes overwritten mid-file.
python3 - <<'EOF'
data = bytearray(open("train.dta", "rb").read())
i = data.find(b"<K>") + 3
data[i:i + 4] = (0x7fff).to_bytes(4, "little")
open("many_columns.dta", "wb").write(data[:len(data) // 2])
scrambled = bytearray(open("train.dta", "rb").read())
for k in range(200, len(scrambled), 97):
    scrambled[k] = (scrambled[k] * 31 + 7) & 0xFF
open("scrambled.dta", "wb").write(scrambled)
EOF
printf '$FL2@(#) SPSS DATA FILE' >header_only.sav
printf 'PAR1\x15\x04\x15' >data.parquet
printf 'PK\x03\x04\x14\x00\x06\x00[Content_Types].xml xl/workbook.xml' >book.xlsx
printf '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00' >book.xls
printf 'PAR1\x15\x04' | gzip >data.parquet.gz
printf 'sex,age\nF,1\n' >not_stata.dta
check "truncated Stata file" "^synthaudit: error: truncated\.dta: Stata \.dta file: .*(damaged|truncated)" \
  "${EVAL[@]}" --confidential truncated.dta --synthetic s=syn.csv
check "truncated SPSS file" "^synthaudit: error: truncated\.sav: SPSS \.sav file: .*(damaged|truncated)" \
  "${EVAL[@]}" --confidential truncated.sav --synthetic s=syn.csv
check "SPSS header only" "^synthaudit: error: header_only\.sav: SPSS \.sav file: " \
  "${EVAL[@]}" --confidential header_only.sav --synthetic s=syn.csv
check "Stata file with a damaged column count" "^synthaudit: error: many_columns\.dta: Stata \.dta file: " \
  "${EVAL[@]}" --confidential many_columns.dta --synthetic s=syn.csv
check "Stata file with scrambled bytes" "^synthaudit: error: scrambled\.dta: " \
  "${EVAL[@]}" --confidential scrambled.dta --synthetic s=syn.csv
check "Parquet file" "^synthaudit: error: data\.parquet: this is a Parquet file, which synthaudit cannot read; export the data to CSV" \
  "${EVAL[@]}" --confidential data.parquet --synthetic s=syn.csv
check "gzip of a Parquet file" "^synthaudit: error: data\.parquet\.gz: this is a Parquet file" \
  "${EVAL[@]}" --confidential conf.csv --synthetic s=data.parquet.gz
check "Excel workbook" "^synthaudit: error: book\.xlsx: this is an Excel workbook \(\.xlsx\)" \
  "${EVAL[@]}" --confidential book.xlsx --synthetic s=syn.csv
check "Excel 97-2003 workbook as the holdout" "^synthaudit: error: book\.xls: this is an Excel 97-2003 workbook" \
  "${EVAL[@]}" --confidential conf.csv --synthetic s=syn.csv --holdout book.xls
check "text named .dta" "^synthaudit: error: not_stata\.dta: the name says a Stata \.dta file, but the content does not start as one" \
  "${EVAL[@]}" --confidential not_stata.dta --synthetic s=syn.csv
check "Stata file over the columns limit" "^synthaudit: error: train\.dta: Stata \.dta file: has 7 columns \(limit columns 5" \
  "${EVAL[@]}" --confidential train.dta --synthetic s=syn.csv --limit columns=5
check "Stata file over the input_bytes limit" "^synthaudit: error: train\.dta: .*input_bytes" \
  "${EVAL[@]}" --confidential train.dta --synthetic s=syn.csv --limit input_bytes=100000

# Control characters and NULs from the data are escaped in every text output.
python3 - <<'EOF'
rows = [("a\x00b", "x\ty"), ("a\x00b", "p\x1b[31mq"), ("c", "x\ty"), ("c", "z"), ("d", "z")]
for name in ("ctl_conf.csv", "ctl_syn.csv"):
    with open(name, "w", newline="") as f:
        f.write('"sex\tcode",level\n')
        for a, b in rows:
            f.write('"' + a + '","' + b + '"\n')
EOF
rm -rf "$OUT"
timeout 120 "$BIN" evaluate --out "$OUT" --confidential ctl_conf.csv --synthetic s=ctl_syn.csv \
  --metrics total_variation,coverage_and_validity,column_summaries --baseline-draws 0 >"$WORK/summary.txt" 2>"$WORK/stderr"
rc=$?
timeout 60 "$BIN" report "$OUT/results.json" --format md >"$WORK/report.md" 2>>"$WORK/stderr"
controls='[\x00-\x08\x0b-\x1f\x7f]'
if [ "$rc" -ne 0 ]; then
  fail "control characters escaped in text outputs" "evaluate exited $rc: $(head -c 300 "$WORK/stderr")"
elif LC_ALL=C grep -qaP "$controls" "$OUT/results.tsv" "$WORK/summary.txt" "$WORK/report.md"; then
  fail "control characters escaped in text outputs" \
    "raw control bytes in: $(LC_ALL=C grep -laP "$controls" "$OUT/results.tsv" "$WORK/summary.txt" "$WORK/report.md" | tr '\n' ' ')"
elif ! grep -qF 'a\0b' "$OUT/results.tsv"; then
  fail "control characters escaped in text outputs" "results.tsv does not show the NUL as \\0"
elif [ "$(awk -F'\t' 'NF != 6' "$OUT/results.tsv" | wc -l)" -ne 0 ]; then
  fail "control characters escaped in text outputs" "a results.tsv row does not have 6 fields"
else
  pass "control characters escaped in text outputs (results.tsv, summary, Markdown)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
