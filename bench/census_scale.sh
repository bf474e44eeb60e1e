#!/usr/bin/env bash
# The census-scale ladder of issue 18: simulator data (20 mixed columns, confidential = holdout =
# synthetic rows, one replicate of the "ideal" candidate) at each size, then
#   1. the distance family   (evaluate --metrics distance-disclosure)
#   2. every metric          (evaluate --metrics all)
# each under /usr/bin/time -v: wall, user + system CPU seconds, peak RSS, and each metric's wall
# seconds from results.json. Not part of `make test` or `make bench` (hours at 1M on 2 cores).
#
#   bench/census_scale.sh [BUILD_DIR]        (default build)
#
# Environment:
#   CENSUS_DIR        where data and results go (default /tmp/census-scale)
#   CENSUS_ROWS       sizes of the distance-family runs (default "100000 300000 1000000")
#   CENSUS_ALL_ROWS   sizes of the --metrics all runs  (default "100000 300000 1000000")
#   CENSUS_THREADS    threads (default 2, the target machine's cores)
#   CENSUS_NICE       niceness of the runs (default 10: the machine is shared)
#   CENSUS_SEED       simulator seed (default 18)
# Targets (issue 18, on 2 idle cores): distance family at 1M <= 3 min wall; --metrics all at 1M
# <= 10 min wall and <= 4 GiB peak RSS. On a shared machine compare CPU seconds, not wall time.
set -euo pipefail

BUILD=${1:-build}
BIN=$(cd "$(dirname "$BUILD/synthaudit")" && pwd)/synthaudit
DIR=${CENSUS_DIR:-/tmp/census-scale}
ROWS=${CENSUS_ROWS:-100000 300000 1000000}
ALL_ROWS=${CENSUS_ALL_ROWS:-100000 300000 1000000}
THREADS=${CENSUS_THREADS:-2}
NICE=${CENSUS_NICE:-10}
SEED=${CENSUS_SEED:-18}
PYTHON=${PYTHON:-/usr/bin/python3}
mkdir -p "$DIR"

echo "machine: $(lscpu | grep 'Model name' | sed 's/Model name: *//'), $(nproc) cores," \
  "$(free -g | awk '/Mem:/ {print $2}') GiB; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

simulate() {  # rows -> folder with spec.yaml
  local rows=$1 out="$DIR/sim$1"
  if [ ! -s "$out/spec.yaml" ]; then
    nice -n "$NICE" "$BIN" simulate --rows "$rows" --holdout-rows "$rows" --columns 20 \
      --replicates 1 --seed "$SEED" --out "$out" >/dev/null
  fi
  echo "$out"
}

# Prints one summary line and the per-metric wall seconds of one evaluation.
measure() {  # label rows metrics
  local label=$1 rows=$2 metrics=$3
  local data out log
  data=$(simulate "$rows")
  out="$DIR/$label$rows"
  log="$out.time"
  rm -rf "$out"
  local load_before
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  # Exit code 3 is a verdict without a passing candidate (docs/cli.md): the run itself succeeded.
  local status=0
  (cd "$data" && /usr/bin/time -v nice -n "$NICE" "$BIN" evaluate --quiet --spec spec.yaml \
    --synthetic ideal=ideal_1.csv --metrics "$metrics" --plots none --threads "$THREADS" \
    --out "$out" >"$out.stdout" 2>"$log") || status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "$label $rows: failed with exit code $status (see $log)"
    return 1
  fi
  local user sys wall rss
  user=$(awk -F': ' '/User time/ {print $2}' "$log")
  sys=$(awk -F': ' '/System time/ {print $2}' "$log")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
  rss=$(awk -F': ' '/Maximum resident/ {printf "%.2f", $2 / 1048576}' "$log")
  echo
  echo "== --metrics $metrics, $rows x $rows (holdout $rows), 20 columns, $THREADS threads," \
    "load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "CPU s (user + sys): $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}'), wall: $wall, peak RSS: $rss GiB"
  "$PYTHON" - "$out/results.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = []
for m in d["metrics"]:
    if "skipped" in m:
        rows.append((None, m["name"], "skipped: " + m["skipped"]))
        continue
    total = sum(r.get("wall_seconds") or 0 for c in m.get("candidates", [])
                for r in c.get("replicates", []))
    total += m.get("wall_seconds") or 0
    rows.append((total, m["name"], ""))
for total, name, note in sorted(rows, key=lambda r: -(r[0] or -1)):
    print(f"  {name:42s} {'' if total is None else f'{total:9.2f} s wall'} {note}")
EOF
}

for rows in $ROWS; do measure distance "$rows" distance-disclosure; done
for rows in $ALL_ROWS; do measure all "$rows" all; done
