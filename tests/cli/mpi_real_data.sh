#!/usr/bin/env bash
# `mpirun -np N synthaudit evaluate` on real survey data (SD2011, tests/data/sd2011: quoted text,
# NA and a missing code in income, a synthpop CART synthesis and a holdout) gives one process's
# results.tsv (docs/mpi.md): every metric, with the tables gathered, and the mergeable metrics
# without whole tables. An odd number of ranks splits the rows unevenly. Skipped (exit 77) when
# the build has no MPI or mpirun is missing.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/mpi_real_data.sh tests/data/sd2011 RANKS
set -u
BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
SD=$(cd "${1:?give the SD2011 folder}" && pwd)
NP=${2:?give the number of ranks}
# shellcheck source=tests/cli/mpi_setup.sh
source "$(dirname "$0")/mpi_setup.sh"

spec() {  # with or without declared analyses (checked over the whole confidential table)
  cat <<YAML
confidential: $SD/train.csv
holdout: $SD/holdout.csv
candidates:
  - name: synthpop_cart
    replicates: [$SD/train_syn.csv]
synthesis: full
columns: {sex: categorical, age: numeric, edu: categorical, marital: categorical,
          income: numeric, ls: categorical, smoke: categorical}
missing_codes:
  income: [-8]
disclosure:
  - keys: [sex, age, edu, marital]
    targets: [smoke, ls]
seed: 1
YAML
  if [ "$1" = analyses ]; then
    printf 'analyses:\n  - lm: income ~ age + factor(sex) + factor(edu)\n'
    printf '  - glm_logit: smoke ~ age + factor(sex)\n'
  fi
}
spec analyses >"$WORK/all.yaml"
spec none >"$WORK/mergeable.yaml"
# Without whole tables the utility floor is not drawn (docs/mpi.md): compared without it.
printf 'policy: {utility_floor: false}\n' >>"$WORK/mergeable.yaml"
MERGEABLE=total_variation,ratio_of_counts,zero_cell_agreement,moments_and_covariance,ks_distance,wasserstein_distance,coverage_and_validity,k_anonymity,replicated_uniques,individual_risk,l_diversity

run_both() {  # name, spec, metrics
  "$BIN" evaluate --spec "$2" --metrics "$3" --threads 1 --quiet --null-draws 0 --out "$WORK/single-$1" \
    >/dev/null 2>"$WORK/single-$1.err"
  local single_rc=$?
  "${MPIRUN[@]}" "$BIN" evaluate --spec "$2" --metrics "$3" --threads 1 --null-draws 0 --out "$WORK/ranks-$1" \
    >/dev/null 2>"$WORK/ranks-$1.err"
  local ranks_rc=$?
  if [ "$single_rc" != "$ranks_rc" ] || ! { [ "$single_rc" = 0 ] || [ "$single_rc" = 3 ]; }; then
    fail "$1: exit code" "one process $single_rc, $NP ranks $ranks_rc: $(head -c 1000 "$WORK/ranks-$1.err")"
    return
  fi
  if /usr/bin/python3 "$(dirname "$0")/compare_ranks.py" "$WORK/single-$1" "$WORK/ranks-$1" "$NP" \
    --same inputs,data_checks,warnings,baselines; then
    pass "$1: results.tsv on $NP ranks equals one process's"
  else
    fail "$1: results.tsv" "see above"
  fi
}
run_both every-metric "$WORK/all.yaml" all
if grep -q "gathered on rank 0" "$WORK/ranks-every-metric.err"; then
  pass "every metric: the tables are gathered on rank 0"
else
  fail "every metric" "the progress lines do not say the tables were gathered"
fi
run_both mergeable "$WORK/mergeable.yaml" "$MERGEABLE"
if grep -q "without whole tables" "$WORK/ranks-mergeable.err"; then
  pass "mergeable metrics: no rank gathers whole tables"
else
  fail "mergeable metrics" "the progress lines do not say so: $(head -c 1000 "$WORK/ranks-mergeable.err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
