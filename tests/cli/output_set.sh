#!/usr/bin/env bash
# The output set (docs/cli.md, "Output folder"): results.json, results.tsv and report.html are
# published together. Kills with SIGKILL at random moments, half of them while the results are
# being written, must leave the previous complete set or the new one (never a mix, never a part);
# the next complete run removes what killed runs left; nothing is ever written outside --out, and
# links planted by someone else are never followed. --out that is or holds an input is refused.
#
# Usage: SYNTHAUDIT=build/synthaudit [SYNTHAUDIT_KILLS=50] bash tests/cli/output_set.sh tests/data
set -u

BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
DATA=${1:?give the fixture folder (tests/data) as the first argument}
KILLS=${SYNTHAUDIT_KILLS:-50}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
DATA=$(cd "$DATA" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-output-set.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# --out is $OUT; its parent holds a file of the user's; $OUTSIDE is what planted links lead to.
OUT="$WORK/parent/out"
OUTSIDE="$WORK/outside"
mkdir -p "$OUTSIDE" "$WORK/parent"
echo "the victim's own text" >"$OUTSIDE/victim.txt"
echo "a neighbour" >"$WORK/parent/sibling.txt"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

# What must never change: the names beside --out and everything under $OUTSIDE.
outside_state() {
  (cd "$WORK/parent" && find . -path ./out -prune -o -print | sort
    cd "$OUTSIDE" && find . -print | sort && find . -type f -exec cat {} +
    cat "$WORK/parent/sibling.txt") | sha256sum
}

# evaluate RUN_ID OUT_DIR: a small evaluation whose candidate is named after the
# run, so each of the three files says which run wrote it. `evaluate_args` puts the arguments in
# ARGS, for runs started in the background (whose $! must be synthaudit's own process).
evaluate_args() {
  ARGS=(evaluate --confidential "$DATA/conf.csv" --synthetic "kill_run_$1=$DATA/syn.csv"
    --metrics ks_distance,total_variation,column_summaries --plots all --seed "$((10#$1))"
    --baseline-draws 0 --out "$2")
}
evaluate() {
  evaluate_args "$@"
  "$BIN" "${ARGS[@]}"
}

# The run id each file of the set in $1 names ("" when absent), "mixed" when a file names
# several, "partial" when a file is cut short.
set_state() {
  local dir=$1 ids=() f id
  for f in results.json results.tsv report.html; do
    if [ ! -e "$dir/$f" ]; then ids+=("none"); continue; fi
    id=$(grep -o 'kill_run_[0-9]\{5\}' "$dir/$f" | sort -u)
    if [ "$(printf '%s\n' "$id" | wc -l)" -ne 1 ] || [ -z "$id" ]; then ids+=("mixed"); continue; fi
    case $f in
      results.json) "$BIN" report "$dir/$f" --format md >/dev/null 2>&1 || id=partial ;;
      results.tsv) [ "$(wc -l <"$dir/$f")" -eq "$TSV_LINES" ] && [ -z "$(tail -c 1 "$dir/$f")" ] || id=partial ;;
      report.html) tail -c 200 "$dir/$f" | grep -q '</html>' || id=partial ;;
    esac
    ids+=("$id")
  done
  if [ "${ids[0]}" = "${ids[1]}" ] && [ "${ids[1]}" = "${ids[2]}" ]; then
    echo "${ids[0]}"
  else
    echo "inconsistent(${ids[*]})"
  fi
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_for_writing PID ERRFILE: returns when the run says it is writing its results (or ended).
wait_for_writing() {
  for _ in $(seq 1 5000); do
    grep -q 'writing results' "$2" 2>/dev/null && return
    kill -0 "$1" 2>/dev/null || return
    sleep 0.001
  done
}

# sleep_ms N: sleeps a random time between 0 and N milliseconds.
sleep_ms() {
  local delay=$((RANDOM % ($1 + 1)))
  sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
}

# --- A reference run: its line count and how long a run and its writing take. ---
start=$(now_ms)
evaluate_args 00000 "$WORK/reference"
"$BIN" "${ARGS[@]}" 2>"$WORK/reference.err" >/dev/null &
pid=$!
wait_for_writing "$pid" "$WORK/reference.err"
writing=$(now_ms)
wait "$pid"
end=$(now_ms)
TSV_LINES=$(wc -l <"$WORK/reference/results.tsv")
RUN_MS=$((end - start + 1))
WRITE_MS=$((end - writing + 1))
echo "a run takes ${RUN_MS} ms, of which writing the results ${WRITE_MS} ms"

# --- The starting point: an older version's plain files (a complete set), a temporary it left
# behind, and the user's own files, which must survive everything. ---
mkdir -p "$OUT/user_folder"
for f in results.json results.tsv report.html; do cp -L "$WORK/reference/$f" "$OUT/$f"; done
echo "stale" >"$OUT/results.json.tmp.424242"
echo "mine" >"$OUT/user_notes.txt"
echo "mine too" >"$OUT/user_folder/data.txt"
before_outside=$(outside_state)

previous=kill_run_00000
bad=0
mid_write=0
for i in $(seq 1 "$KILLS"); do
  id=$(printf '%05d' "$i")
  evaluate_args "$id" "$OUT"
  "$BIN" "${ARGS[@]}" 2>"$WORK/run.err" >/dev/null &
  pid=$!
  if [ $((i % 2)) -eq 1 ]; then
    # While the results are written: after the progress line that announces it.
    wait_for_writing "$pid" "$WORK/run.err"
    sleep_ms "$WRITE_MS"
  else
    sleep_ms $((RUN_MS + RUN_MS / 4))  # anywhere in the run
  fi
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  sets=$(find "$OUT/.synthaudit" -maxdepth 1 -name 'set-*' 2>/dev/null | wc -l)
  [ "$sets" -gt 1 ] && mid_write=$((mid_write + 1))
  state=$(set_state "$OUT")
  if [ "$state" = "$previous" ]; then
    :
  elif [ "$state" = "kill_run_$id" ]; then
    previous=$state
  else
    bad=$((bad + 1))
    fail "kill $i leaves a complete set" "found $state, expected $previous or kill_run_$id"
  fi
done
[ "$bad" -eq 0 ] && pass "$KILLS kills (SIGKILL), each left one complete set ($mid_write of them with a half-written set beside it)"

evaluate 99999 "$OUT" >/dev/null 2>&1
state=$(set_state "$OUT")
[ "$state" = kill_run_99999 ] && pass "a complete run after the kills publishes its set" ||
  fail "a complete run after the kills publishes its set" "found $state"
leftovers=$(cd "$OUT" && find . -name '*.tmp.*' -o -name 'link-*' -o -name '.*.tmp-*' | tr '\n' ' ')
sets=$(find "$OUT/.synthaudit" -maxdepth 1 -name 'set-*' | wc -l)
if [ -z "$leftovers" ] && [ "$sets" -eq 1 ]; then
  pass "the complete run removed every temporary (one set left)"
else
  fail "the complete run removed every temporary" "left: $leftovers; $sets sets"
fi
top=$(cd "$OUT" && ls -A | sort | tr '\n' ' ')
if [ "$top" = ".synthaudit report.html results.json results.tsv user_folder user_notes.txt " ] &&
  [ "$(cat "$OUT/user_notes.txt")" = mine ] && [ "$(cat "$OUT/user_folder/data.txt")" = "mine too" ]; then
  pass "the user's own files in --out are untouched"
else
  fail "the user's own files in --out are untouched" "folder holds: $top"
fi
[ "$(outside_state)" = "$before_outside" ] && pass "nothing written outside --out" ||
  fail "nothing written outside --out" "the folder around --out changed"

# --- `report` rewrites report.html as a new set with the same results. ---
cp "$OUT/results.tsv" "$WORK/tsv.before"
"$BIN" report "$OUT/results.json" >/dev/null 2>&1
if [ "$(readlink "$OUT/report.html")" = .synthaudit/current/report.html ] &&
  cmp -s "$OUT/results.tsv" "$WORK/tsv.before" && [ "$(set_state "$OUT")" = kill_run_99999 ]; then
  pass "report re-renders report.html inside the output set"
else
  fail "report re-renders report.html inside the output set" "$(ls -l "$OUT" | tr '\n' ' ')"
fi

cp "$OUT/results.json" "$WORK/other.json"
"$BIN" report "$WORK/other.json" --out "$OUT/report.html" >/dev/null 2>"$WORK/report.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'belongs to the results.json beside it' "$WORK/report.err" &&
  [ "$(readlink "$OUT/report.html")" = .synthaudit/current/report.html ]; then
  pass "report of other results into an output set's report.html is refused"
else
  fail "report of other results into an output set's report.html is refused" "exit $rc: $(cat "$WORK/report.err")"
fi

# --- --out . (the current folder) ---
mkdir -p "$WORK/here"
(cd "$WORK/here" && evaluate 00077 . >/dev/null 2>&1)
[ "$(set_state "$WORK/here")" = kill_run_00077 ] && pass "--out . writes into the current folder" ||
  fail "--out . writes into the current folder" "found $(set_state "$WORK/here")"

# --- A copy made with links followed (cp -rL, zip archives, cloud sync) takes the next run. ---
one_set() { [ "$(find "$1/.synthaudit" -maxdepth 1 -name 'set-*' | wc -l)" -eq 1 ]; }
linked() { [ "$(readlink "$1/results.json")" = .synthaudit/current/results.json ]; }
COPY="$WORK/copied"
cp -rL "$OUT" "$COPY" 2>/dev/null
if [ -d "$COPY/.synthaudit/current" ] && [ ! -L "$COPY/results.json" ]; then
  evaluate 00200 "$COPY" >/dev/null 2>"$WORK/copy.err"
  rc=$?
  if [ "$rc" -eq 0 ] && [ "$(set_state "$COPY")" = kill_run_00200 ] && linked "$COPY" &&
    one_set "$COPY" && [ "$(cat "$COPY/user_notes.txt")" = mine ]; then
    pass "a run into a copy made with links followed publishes (links again, one set)"
  else
    fail "a run into a copy made with links followed publishes" "exit $rc: $(head -c 300 "$WORK/copy.err")"
  fi
else
  fail "cp -rL turns the links into files" "$(ls -lA "$COPY" "$COPY/.synthaudit" | tr '\n' ' ')"
fi
rm -rf "$COPY/.synthaudit/current" "$COPY/results.tsv"
evaluate 00201 "$COPY" >/dev/null 2>"$WORK/copy.err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(set_state "$COPY")" = kill_run_00201 ] && linked "$COPY" && one_set "$COPY" &&
  pass "a run into a partly deleted output folder publishes" ||
  fail "a run into a partly deleted output folder publishes" "exit $rc: $(head -c 300 "$WORK/copy.err")"

# --- A full disk (a file-size limit, SIGXFSZ ignored so that write(2) fails with EFBIG). ---
full_disk() { (trap '' XFSZ; ulimit -f 16; evaluate "$@"); }
mkdir -p "$WORK/full"
full_disk 00300 "$WORK/full" >/dev/null 2>"$WORK/full.err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c error "$WORK/full.err")" -eq 1 ] &&
  tail -n 1 "$WORK/full.err" | grep -q '^synthaudit: error: .*results.json: write failed' &&
  [ -z "$(ls -A "$WORK/full")" ] &&
  pass "a full disk: exit 2, the error last, an empty --out left empty [$(tail -n 1 "$WORK/full.err")]" ||
  fail "a full disk leaves an empty --out empty" "exit $rc, holds: $(ls -A "$WORK/full" | tr '\n' ' ')"
full_disk 00301 "$WORK/new/nested" >/dev/null 2>"$WORK/full.err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$WORK/new" ] &&
  pass "a full disk: the folders the run created are removed again" ||
  fail "a full disk: the folders the run created are removed again" "exit $rc, $WORK/new exists"
full_disk 00302 "$COPY" >/dev/null 2>"$WORK/full.err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(set_state "$COPY")" = kill_run_00201 ] && one_set "$COPY" &&
  pass "a full disk: a published folder keeps its set and nothing more" ||
  fail "a full disk: a published folder keeps its set" "exit $rc: $(set_state "$COPY")"

# --- A file system without symbolic links (FAT, some network shares): plain files. ---
no_links() {
  # The sanitizers' runtime must come first; a preloaded library is put before it.
  LD_PRELOAD=$SYNTHAUDIT_NO_SYMLINKS ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
if [ -n "${SYNTHAUDIT_NO_SYMLINKS:-}" ]; then
  FAT="$WORK/fat"
  ok=1
  for id in 00400 00401; do
    evaluate_args "$id" "$FAT"
    no_links "$BIN" "${ARGS[@]}" >/dev/null 2>"$WORK/fat.err" || ok=0
    [ "$(set_state "$FAT")" = "kill_run_$id" ] || ok=0
  done
  kept=$(find "$FAT" -type l | wc -l)
  sets=$(find "$FAT/.synthaudit" -mindepth 1 | wc -l)
  no_links "$BIN" report "$FAT/results.json" >/dev/null 2>>"$WORK/fat.err" || ok=0
  [ "$(set_state "$FAT")" = kill_run_00401 ] || ok=0
  [ "$ok" -eq 1 ] && [ "$kept" -eq 0 ] && [ "$sets" -eq 0 ] && [ -f "$FAT/results.json" ] &&
    pass "without symbolic links the set is published as plain files (twice, then report)" ||
    fail "without symbolic links the set is published as plain files" \
      "links $kept, state entries $sets: $(head -c 300 "$WORK/fat.err")"
else
  fail "without symbolic links" "SYNTHAUDIT_NO_SYMLINKS is not set (tests/CMakeLists.txt sets it)"
fi

# --- Links planted by someone else are never followed. ---
attack() {  # attack NAME SETUP: SETUP plants links in $OUT; the run must not touch $OUTSIDE
  local name=$1 setup=$2
  rm -rf "$OUT" && mkdir -p "$OUT"
  eval "$setup"
  local before rc
  before=$(outside_state)
  evaluate 00100 "$OUT" >/dev/null 2>"$WORK/attack.err"
  rc=$?
  if [ "$(outside_state)" != "$before" ]; then
    fail "$name" "something outside --out changed"
  elif [ "$rc" -eq 0 ] && [ "$(set_state "$OUT")" = kill_run_00100 ]; then
    pass "$name (published, nothing followed)"
  elif [ "$rc" -eq 2 ] && [ "$(wc -l <"$WORK/attack.err")" -eq 1 ]; then
    pass "$name (refused: $(cat "$WORK/attack.err"))"
  else
    fail "$name" "exit $rc: $(head -c 300 "$WORK/attack.err")"
  fi
}
attack "results.json is a link to a file outside" 'ln -s "$OUTSIDE/victim.txt" "$OUT/results.json"'
attack "the old temporary names are links to a file outside" \
  'for n in $(seq $$ $(($$ + 300))); do ln -s "$OUTSIDE/victim.txt" "$OUT/results.json.tmp.$n"; done'
attack ".synthaudit is a link to a folder outside" 'ln -s "$OUTSIDE" "$OUT/.synthaudit"'
attack ".synthaudit/current is a link to a folder outside" \
  'mkdir "$OUT/.synthaudit" && ln -s "$OUTSIDE" "$OUT/.synthaudit/current"'
attack "a set name in .synthaudit is a link to a folder outside" \
  'mkdir "$OUT/.synthaudit" && ln -s "$OUTSIDE" "$OUT/.synthaudit/set-aaaaaaaaaaaa" && ln -s "$OUTSIDE" "$OUT/.synthaudit/link-aaaaaaaaaaaa"'
attack "report.html is a link into a folder outside" \
  'ln -s "$OUTSIDE/victim.txt" "$OUT/report.html"; ln -s "$OUTSIDE" "$OUT/results.tsv"'

# --- --out that is, or holds, an input file. ---
refused() {  # refused NAME PATTERN ARGS...: exit 2, one line matching PATTERN, inputs unchanged
  local name=$1 pattern=$2
  shift 2
  local sums
  sums=$(cat "$WORK/in/"* | sha256sum)
  (cd "${RUN_IN:-.}" && "$BIN" evaluate --quiet "$@" >/dev/null 2>"$WORK/refused.err")
  local rc=$?
  if [ "$rc" -ne 2 ] || [ "$(wc -l <"$WORK/refused.err")" -ne 1 ] ||
    ! grep -Eq -- "$pattern" "$WORK/refused.err"; then
    fail "$name" "exit $rc: $(head -c 300 "$WORK/refused.err")"
  elif [ "$(cat "$WORK/in/"* | sha256sum)" != "$sums" ] || [ -e "$WORK/in/.synthaudit" ]; then
    fail "$name" "the input folder changed"
  else
    pass "$name [$(cat "$WORK/refused.err")]"
  fi
}
mkdir -p "$WORK/in"
cp "$DATA/conf.csv" "$DATA/syn.csv" "$WORK/in/"
cp "$DATA/syn.csv" "$WORK/in/results.tsv"
refused "--out is the input folder" "in: the output folder holds the input file .*conf\.csv" \
  --confidential "$WORK/in/conf.csv" --synthetic "s=$DATA/syn.csv" --out "$WORK/in"
refused "--out holds an input named results.tsv" "the output folder holds the input file .*results\.tsv" \
  --confidential "$DATA/conf.csv" --synthetic "s=$WORK/in/results.tsv" --out "$WORK/in/"
refused "--out is an input file" "conf\.csv: --out is the input file" \
  --confidential "$WORK/in/conf.csv" --synthetic "s=$DATA/syn.csv" --out "$WORK/in/conf.csv"
RUN_IN="$WORK/in" refused "--out . holds the input (relative paths)" "holds the input file conf\.csv" \
  --confidential conf.csv --synthetic "s=$DATA/syn.csv" --out .
mkdir -p "$WORK/folder_named/results.json"
refused "a name of the set is a folder" "results\.json: is a folder" \
  --confidential "$DATA/conf.csv" --synthetic "s=$DATA/syn.csv" --out "$WORK/folder_named"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
