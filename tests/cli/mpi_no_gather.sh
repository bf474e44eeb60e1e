#!/usr/bin/env bash
# `mpirun -np N synthaudit evaluate` of metrics that all have mergeable forms, with a holdout and
# the default baselines (docs/mpi.md, "Without whole tables"): no rank gathers whole tables, and
# results.tsv equals one process's (the same strings, or within 1e-12 relative where floating-point
# sums are added in another order); a selection with a metric that has no mergeable form still
# gathers. Skipped (exit 77) when the build has no MPI or mpirun is missing.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/mpi_no_gather.sh RANKS
set -u
BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
NP=${1:?give the number of ranks}
# shellcheck source=tests/cli/mpi_setup.sh
source "$(dirname "$0")/mpi_setup.sh"

"$BIN" simulate --rows 2000 --holdout-rows 500 --replicates 2 --out "$WORK/data" >/dev/null ||
  { echo "FAIL: simulate"; exit 1; }
# Declared analyses are checked over the whole confidential table: a spec without them.
/usr/bin/python3 "$(dirname "$0")/drop_analyses.py" "$WORK/data/spec.yaml"
MERGEABLE=total_variation,ratio_of_counts,zero_cell_agreement,moments_and_covariance,ks_distance,wasserstein_distance,coverage_and_validity,k_anonymity,replicated_uniques,individual_risk,l_diversity

compare() {  # single-process folder, ranks folder
  /usr/bin/python3 "$(dirname "$0")/compare_ranks.py" "$1" "$2" "$NP" \
    --same inputs,data_checks,warnings,baselines
}

# The verdict's permutation test and utility floor are off: these runs compare the results
# tables, and under MPI without whole tables neither is made (docs/mpi.md).
printf 'utility_floor: false\n' >"$WORK/policy.yaml"
ARGS=(evaluate --spec "$WORK/data/spec.yaml" --metrics "$MERGEABLE" --threads 1 --null-draws 0
  --policy "$WORK/policy.yaml")
"$BIN" "${ARGS[@]}" --quiet --out "$WORK/single" >/dev/null 2>"$WORK/single.err"
single_rc=$?
"${MPIRUN[@]}" "$BIN" "${ARGS[@]}" --out "$WORK/ranks" >/dev/null 2>"$WORK/ranks.err"
ranks_rc=$?
if [ "$single_rc" = "$ranks_rc" ] && { [ "$single_rc" = 0 ] || [ "$single_rc" = 3 ]; }; then
  pass "exit code $ranks_rc on $NP ranks as in one process"
else
  fail "exit code" "one process $single_rc, $NP ranks $ranks_rc: $(head -c 2000 "$WORK/ranks.err")"
fi
if grep -q "without whole tables" "$WORK/ranks.err"; then
  pass "no rank gathers whole tables for a mergeable selection"
else
  fail "no gathering" "the progress lines do not say so: $(head -c 1000 "$WORK/ranks.err")"
fi
if compare "$WORK/single" "$WORK/ranks"; then
  pass "results.tsv on $NP ranks without whole tables equals one process's"
else
  fail "results.tsv" "see above"
fi

# all_to_all in rounds: messages of a few kilobytes stand in for the > 4 MiB ones that go in
# several MPI_Alltoallv rounds (docs/mpi.md), so the rounds' offsets are checked under mpirun.
SYNTHAUDIT_MPI_ROUND_BYTES=4096 "${MPIRUN[@]}" -x SYNTHAUDIT_MPI_ROUND_BYTES "$BIN" "${ARGS[@]}" \
  --quiet --out "$WORK/ranks-rounds" >/dev/null 2>"$WORK/ranks-rounds.err"
if compare "$WORK/single" "$WORK/ranks-rounds"; then
  pass "results.tsv with all_to_all in 4 KiB rounds equals one process's"
else
  fail "results.tsv (rounds)" "$(head -c 1000 "$WORK/ranks-rounds.err")"
fi
SYNTHAUDIT_MPI_ROUND_BYTES=lots "${MPIRUN[@]}" -x SYNTHAUDIT_MPI_ROUND_BYTES "$BIN" "${ARGS[@]}" \
  --quiet --out "$WORK/ranks-bad-rounds" >/dev/null 2>"$WORK/ranks-bad-rounds.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "SYNTHAUDIT_MPI_ROUND_BYTES must be" "$WORK/ranks-bad-rounds.err" &&
  [ ! -e "$WORK/ranks-bad-rounds/results.json" ]; then
  pass "a round size that is not a number: exit code 2, named, no output"
else
  fail "bad round size" "exit $rc: $(head -c 1000 "$WORK/ranks-bad-rounds.err")"
fi

# Missing key values: the key measures' class sizes under both missing-key rules (docs/mpi.md,
# "Key measures"): with the wildcard rule the owners of the key combinations count the records
# that a missing key matches together, so a partition that holds none of the missing keys, or only
# them, must still give one process's numbers.
cp -r "$WORK/data" "$WORK/blank"
/usr/bin/python3 "$(dirname "$0")/blank_keys.py" "$WORK/blank" 0.05 7 region age marital occupation
KEYS=k_anonymity,replicated_uniques,individual_risk,l_diversity
for rule in wildcard value; do
  BLANK=(evaluate --spec "$WORK/blank/spec.yaml" --metrics "$KEYS" --threads 1 --null-draws 0
    --param "k_anonymity.missing_keys=$rule" --param "individual_risk.missing_keys=$rule")
  "$BIN" "${BLANK[@]}" --quiet --out "$WORK/single-$rule" >/dev/null 2>&1
  "${MPIRUN[@]}" "$BIN" "${BLANK[@]}" --quiet --out "$WORK/ranks-$rule" >/dev/null \
    2>"$WORK/ranks-$rule.err"
  if compare "$WORK/single-$rule" "$WORK/ranks-$rule"; then
    pass "missing key values ($rule rule): results.tsv on $NP ranks equals one process's"
  else
    fail "missing key values ($rule rule)" "$(head -c 1000 "$WORK/ranks-$rule.err")"
  fi
done

# One metric without a mergeable form: the root gathers the tables, as before.
GATHER=(evaluate --spec "$WORK/data/spec.yaml" --metrics total_variation,distance_to_closest_record --threads 1 --null-draws 0)
"$BIN" "${GATHER[@]}" --quiet --out "$WORK/single-g" >/dev/null 2>&1
"${MPIRUN[@]}" "$BIN" "${GATHER[@]}" --out "$WORK/ranks-g" >/dev/null 2>"$WORK/ranks-g.err"
if grep -q "gathered on rank 0" "$WORK/ranks-g.err"; then
  pass "a non-mergeable selection gathers the tables on rank 0"
else
  fail "gathering" "the progress lines do not say so: $(head -c 1000 "$WORK/ranks-g.err")"
fi
if compare "$WORK/single-g" "$WORK/ranks-g"; then
  pass "results.tsv of the gathering run equals one process's"
else
  fail "results.tsv (gathering)" "see above"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
