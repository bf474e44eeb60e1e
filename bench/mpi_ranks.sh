#!/usr/bin/env bash
# Wall time and peak memory (maximum resident set size) per rank of `synthaudit evaluate` on
# simulator data over 1, 2 and 4 MPI ranks (docs/mpi.md), one family of metrics, one thread per
# rank. Figures go to bench/RESULTS.md ("MPI ranks").
#
# FAMILY `mergeable` is every metric with a mergeable form, run on the simulator's spec without
# its declared analyses, so that no rank holds whole tables (docs/mpi.md); with KEEP_ANALYSES=1
# the analyses stay declared and rank 0 gathers the tables, as every run did before.
# FAMILY `rank-statistics` is ks_distance and wasserstein_distance alone, without the analyses
# (the metrics the ranks compute together, docs/mpi.md).
#
# Per rank: peak resident set (MiB) and CPU seconds (user + system).
#
# Usage: [KEEP_ANALYSES=1] bench/mpi_ranks.sh BUILD_DIR [ROWS] [FAMILY]
set -eu
BUILD=${1:?usage: bench/mpi_ranks.sh BUILD_DIR [ROWS] [FAMILY]}
ROWS=${2:-1000000}
FAMILY=${3:-general}
BIN=$(cd "$BUILD" && pwd)/synthaudit
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-mpi-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --oversubscribe)
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
"$BIN" simulate --rows "$ROWS" --replicates 1 --out "$WORK/data" >/dev/null
METRICS=$FAMILY
if [ "$FAMILY" = rank-statistics ]; then
  METRICS=ks_distance,wasserstein_distance
fi
if [ "$FAMILY" = mergeable ]; then
  METRICS=total_variation,ratio_of_counts,zero_cell_agreement,moments_and_covariance,ks_distance
  METRICS=$METRICS,wasserstein_distance,coverage_and_validity,k_anonymity,replicated_uniques
  METRICS=$METRICS,individual_risk,l_diversity
fi
if [ "$FAMILY" = mergeable ] || [ "$FAMILY" = rank-statistics ]; then
  if [ -z "${KEEP_ANALYSES:-}" ]; then
    /usr/bin/python3 "$(dirname "$0")/../tests/cli/drop_analyses.py" "$WORK/data/spec.yaml"
  fi
fi
ARGS=(evaluate --spec "$WORK/data/spec.yaml" --metrics "$METRICS" --threads 1 --quiet)
echo "rows=$ROWS family=$FAMILY keep_analyses=${KEEP_ANALYSES:-0}"
for np in 1 2 4; do
  rm -rf "$WORK/out" "$WORK"/rss.*
  start=$(date +%s.%N)
  if [ "$np" = 1 ]; then
    /usr/bin/time -f "%M %U %S" -o "$WORK/rss.0" "$BIN" "${ARGS[@]}" --out "$WORK/out" >/dev/null || true
  else
    "${MPIRUN[@]}" -np "$np" bash -c '/usr/bin/time -f "%M %U %S" -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' \
      "$WORK" "$BIN" "${ARGS[@]}" --out "$WORK/out" >/dev/null || true
  fi
  end=$(date +%s.%N)
  rss=""
  for r in $(seq 0 $((np - 1))); do
    read -r kib user system < <(tail -1 "$WORK/rss.$r")
    rss="$rss rank$r=$((kib / 1024))MiB/$(echo "$user + $system" | bc)s"
  done
  printf 'ranks=%d wall=%.1fs%s\n' "$np" "$(echo "$end - $start" | bc)" "$rss"
done
