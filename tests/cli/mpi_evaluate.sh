#!/usr/bin/env bash
# `mpirun -np N synthaudit evaluate` (docs/mpi.md) of every metric on simulator data gives the
# results.tsv of one process: the same rows in the same order, each value the same string or,
# where the order of floating-point sums differs, within 1e-12 relative. results.json says how
# many ranks ran. Bad input read by one rank only ends every rank with the one-line error of one
# process and exit code 2. Skipped (exit 77) when the build has no MPI or mpirun is missing.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/mpi_evaluate.sh RANKS
set -u
BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
NP=${1:?give the number of ranks}
# shellcheck source=tests/cli/mpi_setup.sh
source "$(dirname "$0")/mpi_setup.sh"

"$BIN" simulate --rows 2000 --holdout-rows 500 --replicates 2 --out "$WORK/data" >/dev/null ||
  { echo "FAIL: simulate"; exit 1; }
# The verdict's permutation test is off: these runs compare the results tables (under MPI
# without whole tables the test is not made, docs/config.md).
ARGS=(evaluate --spec "$WORK/data/spec.yaml" --metrics all --threads 1 --quiet --null-draws 0)

"$BIN" "${ARGS[@]}" --out "$WORK/single" >"$WORK/single.out" 2>"$WORK/single.err"
single_rc=$?
"${MPIRUN[@]}" "$BIN" "${ARGS[@]}" --out "$WORK/ranks" >"$WORK/ranks.out" 2>"$WORK/ranks.err"
ranks_rc=$?
if [ "$single_rc" = "$ranks_rc" ] && { [ "$single_rc" = 0 ] || [ "$single_rc" = 3 ]; }; then
  pass "exit code $ranks_rc on $NP ranks as in one process"
else
  fail "exit code" "one process $single_rc, $NP ranks $ranks_rc: $(head -c 2000 "$WORK/ranks.err")"
fi

/usr/bin/python3 "$(dirname "$0")/compare_ranks.py" "$WORK/single" "$WORK/ranks" "$NP"
if [ $? -eq 0 ]; then pass "results.tsv on $NP ranks equals one process's"; else fail "results.tsv" "see above"; fi

# A value that is not a number in the last row of the holdout: only the last rank reads it.
cp -r "$WORK/data" "$WORK/bad"
sed -i "s#$WORK/data#$WORK/bad#g" "$WORK/bad/spec.yaml"
holdout=$(ls "$WORK"/bad/*holdout*.csv | head -1)
/usr/bin/python3 - "$holdout" <<'PY'
import csv, sys
path = sys.argv[1]
rows = list(csv.reader(open(path)))
numeric = next(i for i, v in enumerate(rows[1]) if v.replace(".", "").replace("-", "").isdigit())
row = [""] * len(rows[0]); row[numeric] = "not-a-number"
open(path, "a").write(",".join(row) + "\n")
PY
BAD=(evaluate --spec "$WORK/bad/spec.yaml" --metrics general --threads 1 --quiet)
"$BIN" "${BAD[@]}" --out "$WORK/bad-single" >/dev/null 2>"$WORK/bad-single.err"
bad_single_rc=$?
timeout 60 "${MPIRUN[@]}" "$BIN" "${BAD[@]}" --out "$WORK/bad-ranks" >/dev/null 2>"$WORK/bad-ranks.err"
bad_ranks_rc=$?
if [ "$bad_single_rc" = 2 ] && [ "$bad_ranks_rc" = 2 ]; then
  pass "bad input on one rank: exit code 2"
else
  fail "bad input exit code" "one process $bad_single_rc, $NP ranks $bad_ranks_rc"
fi
# Open MPI adds its own lines about the job's exit; synthaudit's are the ones it writes.
grep '^synthaudit' "$WORK/bad-ranks.err" >"$WORK/bad-ranks.lines"
if [ "$(wc -l <"$WORK/bad-ranks.lines")" = 1 ] && cmp -s "$WORK/bad-single.err" "$WORK/bad-ranks.lines"; then
  pass "bad input on one rank: the one-line error of one process"
else
  fail "bad input message" "one process: $(cat "$WORK/bad-single.err") / $NP ranks: $(cat "$WORK/bad-ranks.err")"
fi
[ -e "$WORK/bad-ranks/results.json" ] && fail "bad input" "results.json was written"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
