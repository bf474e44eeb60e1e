#!/usr/bin/env bash
# The singling-out attack's predicates re-counted independently: runs synthaudit on SD2011 with
# list_predicates=true (both modes, 500 predicates each) and has pandas' query engine count every
# listed predicate on the synthetic, training and holdout files, and scipy's hypergeometric
# distribution re-sum the successes (tests/golden/attacks/singling_out/check_predicates.py).
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/singling_out_predicates.sh tests/data/sd2011
# Needs Debian's /usr/bin/python3 with pandas and scipy (exit 77, skipped, without them).
set -eu

BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
SD=${1:?give the SD2011 folder (tests/data/sd2011) as the first argument}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${SYNTHAUDIT_CHECK_PYTHON:-/usr/bin/python3}
if ! "$PY" -c "import pandas, scipy" 2>/dev/null; then
  echo "skipped: $PY lacks pandas or scipy (Debian: apt-get install python3-pandas python3-scipy)"
  exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-singling.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

"$BIN" evaluate --quiet --out "$WORK/out" --confidential "$SD/train.csv" \
  --synthetic cart="$SD/train_syn.csv" --holdout "$SD/holdout.csv" --missing-codes income=-8 \
  --metrics singling_out_attack --param singling_out_attack.list_predicates=true --seed 5 \
  >/dev/null
"$PY" "$HERE/../golden/attacks/singling_out/check_predicates.py" "$WORK/out/results.json" \
  "$SD/train.csv" "$SD/train_syn.csv" "$SD/holdout.csv" --missing income=-8
