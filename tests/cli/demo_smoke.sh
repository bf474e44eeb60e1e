#!/usr/bin/env bash
# End-to-end: `synthaudit demo` writes a valid results document and results.tsv, list-metrics and
# describe come from the registry, and `init` writes a spec that loads.
set -u
bin=${SYNTHAUDIT:?set SYNTHAUDIT to the built binary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0; failed=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}

"$bin" demo --out "$work/demo" --rows 600 --quiet >"$work/demo.out" 2>"$work/demo.err"
check "demo exits 0" test $? -eq 0
check "demo writes results.json" test -s "$work/demo/results.json"
check "results.json has the schema tag" grep -q '"schema": "synthaudit/1"' "$work/demo/results.json"
check "results.tsv header" bash -c "head -n 1 '$work/demo/results.tsv' | grep -qx \$'candidate\treplicate\tmetric\tstatistic\tscope\tvalue'"
check "results.tsv has the three candidates" bash -c "cut -f1 '$work/demo/results.tsv' | sort -u | grep -c -E '^(ideal|independent|leaky)$' | grep -qx 3"
check "results.tsv rows have six fields" bash -c "awk -F'\t' 'NF != 6 { bad = 1 } END { exit bad }' '$work/demo/results.tsv'"
check "demo says where the results are" grep -q "demo: the results are in" "$work/demo.out"
check "demo ends by naming the report" bash -c "tail -n 1 '$work/demo.out' | grep -q '$work/demo/report.html\$' && test -s '$work/demo/report.html'"
check "no temporary files left" bash -c "! ls '$work/demo' | grep -q '\.tmp\.'"

"$bin" list-metrics >"$work/list.txt"
check "list-metrics lists ks_distance" grep -q '^ks_distance	general	' "$work/list.txt"
first=$(cut -f1 "$work/list.txt" | head -n 1)
check "describe prints parameters" bash -c "'$bin' describe '$first' | grep -q '^Parameters:'"
"$bin" describe no_such_metric 2>"$work/describe.err"
check "describe unknown metric exits 2" test $? -eq 2

"$bin" init "$work/demo/data/confidential.csv" --out "$work/spec.yaml" 2>/dev/null
check "init writes a spec" grep -q '^columns:' "$work/spec.yaml"
sed -i "s#synthetic_1.csv#$work/demo/data/ideal_1.csv#" "$work/spec.yaml"
"$bin" evaluate --spec "$work/spec.yaml" --metrics ks_distance --out "$work/from-init" --quiet >/dev/null
check "the init spec evaluates" test -s "$work/from-init/results.json"

# Same seed, different thread counts: identical numbers, and the same verdict with its
# permutation tests (19 re-splits at most here, to keep the test short).
"$bin" evaluate --spec "$work/demo/data/spec.yaml" --threads 1 --null-draws 19 --out "$work/t1" --quiet >/dev/null
"$bin" evaluate --spec "$work/demo/data/spec.yaml" --threads 2 --null-draws 19 --out "$work/t2" --quiet >/dev/null
check "results do not depend on the thread count" cmp -s "$work/t1/results.tsv" "$work/t2/results.tsv"
check "the verdict and its permutation tests do not depend on the thread count" /usr/bin/python3 -c "
import json, sys
a, b = (json.load(open(sys.argv[i] + '/results.json')) for i in (1, 2))
nulls = lambda d: [r.get('nulls') for m in d['metrics'] for c in m.get('candidates', []) for r in c.get('replicates', [])]
sys.exit(0 if a['verdict'] == b['verdict'] and nulls(a) == nulls(b) and any(nulls(a)) else 1)" "$work/t1" "$work/t2"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
