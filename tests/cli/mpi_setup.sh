# Sourced by the mpirun tests (tests/cli/mpi_*.sh) after BIN and NP are set: skips (exit 77) when
# the build has no MPI or mpirun is missing; sets WORK (a private folder, removed at exit), MPIRUN
# (mpirun for NP ranks on this one machine) and the pass/fail counters.
if [ ! -f "$(dirname "$BIN")/libsynthaudit_mpi.so" ]; then
  echo "SKIP: this build has no MPI (libsynthaudit_mpi.so is not beside $BIN; install libopenmpi-dev)"
  exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIP: mpirun is not installed (openmpi-bin)"
  exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-mpi.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --oversubscribe -np "$NP")
# Open MPI does not free all it allocates before a process exits, and its components are unloaded
# by then, so LeakSanitizer's reports cannot be suppressed by library: leak checking is off for the
# ranks of a sanitizer build (address and undefined-behaviour checks stay on). The partitioned code
# paths themselves are leak-checked by the unit tests, where threads stand in for ranks.
if [ -n "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0"; fi
# Open MPI refuses to run as root unless told; CI containers run as root.
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
# No network interfaces to probe on one machine: shared memory and loopback only.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }
