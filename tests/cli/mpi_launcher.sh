#!/usr/bin/env bash
# How the program starts under an MPI launcher (docs/mpi.md), without mpirun where it can: a
# launcher's environment with more than one process and no libsynthaudit_mpi.so beside the
# program is a one-line error (from rank 0 only) and exit code 2; one process under a launcher is
# an ordinary run; the program itself links no MPI library. With MPI built: any command but
# evaluate under mpirun with 2 ranks is a one-line error and exit code 2.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/mpi_launcher.sh
set -u
BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-launcher.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

if ldd "$BIN" | grep -q 'libmpi'; then
  fail "no MPI at run time" "$BIN links $(ldd "$BIN" | grep libmpi)"
else
  pass "the program links no MPI library"
fi

# A copy alone in a folder: no libsynthaudit_mpi.so beside it or in ../lib.
mkdir -p "$WORK/bin"
cp "$BIN" "$WORK/bin/synthaudit"
ALONE="$WORK/bin/synthaudit"
for launcher in "OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0" "PMI_SIZE=3 PMI_RANK=0" \
                "SLURM_NTASKS=4 SLURM_PROCID=0"; do
  env $launcher "$ALONE" list-metrics >"$WORK/out" 2>"$WORK/err"
  rc=$?
  if [ "$rc" = 2 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
     grep -q '^synthaudit: error: started by an MPI launcher with [0-9]* processes, but this synthaudit was built without MPI' "$WORK/err" &&
     [ ! -s "$WORK/out" ]; then
    pass "$launcher without the library: one-line error, exit code 2"
  else
    fail "$launcher without the library" "exit $rc: $(cat "$WORK/err")"
  fi
done
env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 "$ALONE" list-metrics >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ "$rc" = 2 ] && [ ! -s "$WORK/err" ] && [ ! -s "$WORK/out" ]; then
  pass "rank 1 without the library: exit code 2, silent (rank 0 says it)"
else
  fail "rank 1 without the library" "exit $rc: $(cat "$WORK/err")"
fi
for single in "OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0" "SLURM_NTASKS=1 SLURM_PROCID=0"; do
  if env $single "$ALONE" list-metrics >"$WORK/out" 2>"$WORK/err" && [ -s "$WORK/out" ]; then
    pass "$single: an ordinary run"
  else
    fail "$single" "$(cat "$WORK/err")"
  fi
done

if [ -f "$(dirname "$BIN")/libsynthaudit_mpi.so" ] && command -v mpirun >/dev/null 2>&1; then
  MPIRUN=(mpirun --oversubscribe -np 2)
  # Open MPI does not free all it allocates before a process exits, and its components are unloaded
  # by then, so LeakSanitizer's reports cannot be suppressed by library: leak checking is off for the
  # ranks of a sanitizer build (address and undefined-behaviour checks stay on). The partitioned code
  # paths themselves are leak-checked by the unit tests, where threads stand in for ranks.
  if [ -n "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0"; fi
  if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
  export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
  timeout 60 "${MPIRUN[@]}" "$BIN" list-metrics >"$WORK/out" 2>"$WORK/err"
  rc=$?
  if [ "$rc" = 2 ] && [ "$(grep -c '^synthaudit' "$WORK/err")" = 1 ] &&
     grep -q '^synthaudit: error: only `synthaudit evaluate` runs over MPI ranks' "$WORK/err"; then
    pass "list-metrics on 2 ranks: one-line error, exit code 2"
  else
    fail "list-metrics on 2 ranks" "exit $rc: $(cat "$WORK/err")"
  fi
else
  echo "skip  mpirun part: this build has no MPI"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
