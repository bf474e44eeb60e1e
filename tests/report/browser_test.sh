#!/usr/bin/env bash
# The report as a person sees it: generate the demo report and the all-plot-kinds fixture
# report, open both in Debian's headless Chromium (report/test/browser-test.js) and keep
# screenshots in ARTIFACTS (report.png is the demo report).
# Usage: browser_test.sh SYNTHAUDIT_BINARY SOURCE_DIR ARTIFACTS_DIR
set -euo pipefail
bin=$1
src=$2
out=$3
node_bin=${SYNTHAUDIT_NODE:-node}

mkdir -p "$out"
rm -rf "$out/demo" "$out/fixture"
"$bin" demo --out "$out/demo" --rows 3000 --quiet >"$out/demo.log"
# `demo` ends by naming the report.
last=$(tail -n 1 "$out/demo.log")
case "$last" in
  *"$out/demo/report.html") ;;
  *) echo "browser_test: the demo's last line should name report.html, got: $last" >&2; exit 1 ;;
esac
"$bin" report "$src/tests/data/report/results_fixture.json" --out "$out/fixture/report.html" >/dev/null

if [ ! -d "$src/report/node_modules/playwright-core" ]; then
  echo "browser_test: report/node_modules/playwright-core is missing: run scripts/install-deps" >&2
  exit 1
fi
exec "$node_bin" "$src/report/test/browser-test.js" "$out" \
  "report=$out/demo/report.html" "report-fixture=$out/fixture/report.html:all-kinds:click"
