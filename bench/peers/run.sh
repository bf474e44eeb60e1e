#!/usr/bin/env bash
# One side-by-side measurement: a peer's metric call (its whole script under /usr/bin/time, and the
# call alone as the script times it) against synthaudit's whole process for the matching metric,
# on the same files; then the check that both computed the same values.
#
#   bench/peers/run.sh [BUILD_DIR] ROWS MEASURE [WHO]
#
# MEASURE (peer: call — synthaudit metric):
#   ks_tv        SDMetrics KSComplement + TVComplement on every column — ks_distance, total_variation
#   column_pairs SDMetrics ContingencySimilarity (190 pairs) + CorrelationSimilarity (36 numeric
#                pairs, Pearson and Spearman) — correlation_fit
#   detection    SDMetrics LogisticDetection — propensity_logistic as SDMetrics' procedure
#   dcr          SDMetrics DCRBaselineProtection — distance_to_closest_record
#   tables       synthpop utility.tables(tables = "twoway") — table_utility (one- and two-way)
#   compare      synthpop compare() — table_utility with max_way 1
#   logit        synthpop utility.gen(method = "logit") — propensity_logistic (the spec's columns)
#   disclosure   synthpop disclosure(), the spec's two key sets — synthpop_disclosure
# WHO: both (default), peer or ours.  A peer's run longer than PEERS_LIMIT wall seconds (default
# 600) or using more than PEERS_MEMORY_KB of virtual memory (default 12 GB) is stopped, and its CPU
# seconds until then recorded.  Appends one line per process to $PEERS_DIR/timings.tsv:
# rows, measure, who, CPU s and wall s of the whole process, of the call alone and of the
# reading (peers), peak RSS (kB), the 1-minute load average before and after.
set -euo pipefail

BUILD=${1:-build}
ROWS=$2
MEASURE=$3
WHO=${4:-both}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "$BUILD" && pwd)/synthaudit
DIR=${PEERS_DIR:-/tmp/peers-bench}
SRC=${PEERS_SRC:-/tmp/peers-src}
PYTHON=${PYTHON:-/usr/bin/python3}
THREADS=${PEERS_THREADS:-2}
LIMIT=${PEERS_LIMIT:-600}  # wall seconds a peer's run may take (the machine is shared)
# Virtual memory a peer's run may take (kB): synthpop's disclosure() at 100k rows grew past the
# machine's 23 GiB and was killed by the kernel; with the cap it fails alone.
MEMORY=${PEERS_MEMORY_KB:-12000000}
DATA="$DIR/sim$ROWS"
TIMINGS="$DIR/timings.tsv"
[ -s "$DATA/spec_noholdout.yaml" ] || { echo "run bench/peers/prepare.sh first" >&2; exit 2; }
[ -s "$TIMINGS" ] || printf 'rows\tmeasure\twho\tcpu_s\twall_s\tcall_cpu_s\tcall_wall_s\tread_cpu_s\tread_wall_s\tpeak_rss_kb\tload_before\tload_after\n' >"$TIMINGS"

spec=spec_noholdout.yaml
case $MEASURE in
  ks_tv) metrics=(--metrics ks_distance,total_variation --param total_variation.missing=exclude) ;;
  column_pairs) metrics=(--metrics correlation_fit) ;;
  detection) metrics=(--metrics propensity_logistic --param propensity_logistic.maxorder=0
    --param propensity_logistic.validation=kfold --param propensity_logistic.folds=3
    --param 'propensity_logistic.columns=[]' --param propensity_logistic.null=none) ;;
  dcr) spec=spec.yaml
    metrics=(--metrics distance_to_closest_record --param distance_to_closest_record.sdmetrics_random_rows=0) ;;
  tables) metrics=(--metrics table_utility) ;;
  compare) metrics=(--metrics table_utility --param table_utility.max_way=1) ;;
  logit) metrics=(--metrics propensity_logistic) ;;
  # synthpop compares numeric targets exactly and treats missing as a value of its own.
  disclosure) metrics=(--metrics synthpop_disclosure --param synthpop_disclosure.relative_tolerance=0
    --param synthpop_disclosure.missing_matches=true) ;;
  *) echo "unknown measure $MEASURE" >&2; exit 2 ;;
esac
case $MEASURE in
  ks_tv | column_pairs | detection | dcr)
    peer=(env "PYTHONPATH=$SRC/SDMetrics:$SRC/stubs" "$PYTHON" "$HERE/sdmetrics_peer.py" "$DATA" "$MEASURE") ;;
  *) peer=(Rscript "$HERE/synthpop_peer.R" "$SRC/synthpop" "$DATA" "$MEASURE") ;;
esac

timed() {  # label, command...: runs it under /usr/bin/time, appends the line, leaves stdout in $DIR/LABEL.out
  local label=$1
  shift
  local load_before status=0
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%U %S %e %M' -o "$DIR/$label.time" "$@" >"$DIR/$label.out" 2>"$DIR/$label.err" || status=$?
  if [ "$status" -ne 0 ] && [ "${label%%_*}" = peer ]; then
    # CPU seconds until it was stopped (timeout 124) or failed (e.g. out of memory under the cap).
    read -r user sys wall rss < <(tail -n 1 "$DIR/$label.time")
    printf '%s\t%s\t%s\tstopped (exit %s) after %.2f CPU s, %s s wall, peak RSS %s kB\n' "$ROWS" \
      "$MEASURE" "${label%%_*}" "$status" "$(echo "$user + $sys" | bc)" "$wall" "$rss" | tee -a "$TIMINGS"
    return 1
  fi
  # Exit code 3 is a verdict without a passing candidate (docs/cli.md): the run itself succeeded.
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "$label failed with exit code $status (see $DIR/$label.err)" >&2
    return 1
  fi
  read -r user sys wall rss < <(tail -n 1 "$DIR/$label.time")
  local call='' read_part=''
  if [ "${label%%_*}" = peer ]; then
    call=$("$PYTHON" -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(d["call"]["cpu_s"], d["call"]["wall_s"], d["reading"]["cpu_s"], d["reading"]["wall_s"], sep="\t")' "$DIR/$label.out")
  else
    call=$'\t\t'
    read_part=$'\t'
  fi
  printf '%s\t%s\t%s\t%.2f\t%.2f\t%s%s\t%s\t%s\t%s\n' "$ROWS" "$MEASURE" "${label%%_*}" \
    "$(echo "$user + $sys" | bc)" "$wall" "$call" "$read_part" "$rss" "$load_before" \
    "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$TIMINGS"
}

ours() {
  rm -rf "$DIR/out_${MEASURE}_$ROWS"
  (cd "$DATA" && timed "ours_${MEASURE}_$ROWS" "$BIN" evaluate --quiet --spec "$spec" \
    --synthetic ideal=ideal_1.csv "${metrics[@]}" --baseline-draws 0 --plots none \
    --threads "$THREADS" --out "$DIR/out_${MEASURE}_$ROWS")
}

# Alternating: synthaudit, the peer, synthaudit again (the peer's run is the long one).
if [ "$WHO" != peer ]; then ours; fi
if [ "$WHO" != ours ]; then timed "peer_${MEASURE}_$ROWS" bash -c 'ulimit -v "$0"; exec timeout "$1" "${@:2}"' "$MEMORY" "$LIMIT" "${peer[@]}" || true; fi
if [ "$WHO" != peer ]; then ours; fi
if [ "$WHO" != ours ] && [ -s "$DIR/out_${MEASURE}_$ROWS/results.tsv" ] && [ -s "$DIR/peer_${MEASURE}_$ROWS.out" ]; then
  tolerance=1e-9
  [ "$MEASURE" = detection ] && tolerance=0.01  # SDMetrics draws its folds without a seed
  [ "$MEASURE" = dcr ] && tolerance=0.02        # and its random table
  "$PYTHON" "$HERE/compare_values.py" --tolerance "$tolerance" "$DIR/peer_${MEASURE}_$ROWS.out" \
    "$DIR/out_${MEASURE}_$ROWS/results.tsv" | tee -a "$DIR/values.txt"
fi
