#!/usr/bin/env bash
# Every side-by-side measurement of bench/RESULTS.md's peers section. Hours on a loaded 2-core
# machine; not part of `make test`. Peers' calls that would take far longer than PEERS_LIMIT (run.sh)
# or more memory than the machine has are not started at that size: RESULTS.md extrapolates them
# from the smaller sizes (summarize.py).
#
#   bench/peers/all.sh [BUILD_DIR]
set -uo pipefail
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
MEASURES="ks_tv column_pairs logit tables compare detection disclosure"
"$HERE/prepare.sh" "$BUILD" 2000 4000 20000 100000 1000000 >/dev/null
for m in $MEASURES; do "$HERE/run.sh" "$BUILD" 100000 "$m"; done
for m in $MEASURES; do "$HERE/run.sh" "$BUILD" 1000000 "$m" ours; done
for m in $MEASURES; do "$HERE/run.sh" "$BUILD" 20000 "$m"; done
# SDMetrics' DCR compares every pair of records in pandas: 33 CPU s at 2,000 rows.
for n in 2000 4000; do "$HERE/run.sh" "$BUILD" "$n" dcr; done
# At 1M: the calls that fit in the machine's memory (detection: ~26 GiB extrapolated;
# disclosure ran out of 23 GiB at 100k).
for m in ks_tv column_pairs compare; do "$HERE/run.sh" "$BUILD" 1000000 "$m" peer; done
# utility.gen's glm at 1M needs more than the default 12 GB cap (it stopped at 10 GB resident).
PEERS_MEMORY_KB=17000000 "$HERE/run.sh" "$BUILD" 1000000 logit peer
"$HERE/run.sh" "$BUILD" 100000 dcr ours
PEERS_LIMIT=1700 "$HERE/run.sh" "$BUILD" 1000000 tables peer  # ~400 CPU s
/usr/bin/python3 "$HERE/summarize.py" "${PEERS_DIR:-/tmp/peers-bench}"
