#!/usr/bin/env bash
# Prepares the side-by-side runs against the peers (see README.md): extracts synthpop's and
# SDMetrics' sources from the local bare mirrors (nothing is downloaded or installed), writes the
# one stub module SDMetrics' import needs, and makes the simulator data at each size.
#
#   bench/peers/prepare.sh [BUILD_DIR] SIZE...        e.g. bench/peers/prepare.sh build 100000 1000000
#
# Environment: PEERS_DIR (default /tmp/peers-bench: data and results), PEERS_SRC (default
# /tmp/peers-src: the extracted sources and the stub), MIRROR (default /work/.mirror).
set -euo pipefail

BUILD=${1:-build}
shift || true
BIN=$(cd "$BUILD" && pwd)/synthaudit
DIR=${PEERS_DIR:-/tmp/peers-bench}
SRC=${PEERS_SRC:-/tmp/peers-src}
MIRROR=${MIRROR:-/work/.mirror}
mkdir -p "$DIR" "$SRC"

extract() {  # mirror name, destination folder
  local git="$MIRROR/$1/repo"
  [ -d "$git/.git" ] && git="$git/.git"
  if [ ! -d "$SRC/$2" ]; then
    mkdir -p "$SRC/$2.part"
    git -C "$git" archive HEAD | tar -x -C "$SRC/$2.part"
    mv "$SRC/$2.part" "$SRC/$2"
  fi
  echo "$2: $(git -C "$git" rev-parse HEAD)" >"$SRC/$2.commit"
}
extract bnowok+synthpop synthpop
extract sdv-dev+SDMetrics SDMetrics

# sdmetrics/single_table/privacy/loss.py imports copulas.univariate.base.Univariate at import time
# (copulas is on PyPI only); no metric measured here calls it, so the stub refuses to be used.
mkdir -p "$SRC/stubs/copulas/univariate"
: >"$SRC/stubs/copulas/__init__.py"
: >"$SRC/stubs/copulas/univariate/__init__.py"
cat >"$SRC/stubs/copulas/univariate/base.py" <<'PY'
class Univariate:
    def __init__(self, *args, **kwargs):
        raise RuntimeError('copulas is a stub in these benchmarks')
PY

for rows in "$@"; do
  out="$DIR/sim$rows"
  if [ ! -s "$out/spec.yaml" ]; then
    "$BIN" simulate --rows "$rows" --holdout-rows "$rows" --columns 20 --replicates 1 --seed 18 \
      --out "$out" >/dev/null
  fi
  # The peers' calls other than DCR read no holdout; neither does synthaudit with this spec.
  grep -v '^holdout:' "$out/spec.yaml" >"$out/spec_noholdout.yaml"
  echo "$out"
done
