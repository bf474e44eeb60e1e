#!/usr/bin/env bash
# Every side-by-side measurement of bench/RESULTS.md's peers section, in the order it was run:
# 100k (both sides), 1M synthaudit, 20k peers (for the growth exponents), then 1M peers for the
# calls that finish within PEERS_LIMIT seconds (default 600; longer ones are cut off and reported
# as extrapolated in RESULTS.md).  Hours on a loaded 2-core machine; not part of `make test`.
#
#   bench/peers/all.sh [BUILD_DIR]
set -uo pipefail
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
MEASURES=${PEERS_MEASURES:-ks_tv column_pairs logit tables compare detection disclosure}
"$HERE/prepare.sh" "$BUILD" 20000 100000 1000000 >/dev/null
for m in $MEASURES; do "$HERE/run.sh" "$BUILD" 100000 "$m"; done
for m in $MEASURES; do "$HERE/run.sh" "$BUILD" 1000000 "$m" ours; done
for m in $MEASURES; do "$HERE/run.sh" "$BUILD" 20000 "$m" peer; done
for m in $MEASURES; do "$HERE/run.sh" "$BUILD" 1000000 "$m" peer; done
