#!/usr/bin/env bash
# `make install PREFIX=...` as a user without root: scripts/install-tree (what the target runs)
# into a fresh prefix owned by that user, then the installed program, with a clean environment and
# away from the source tree, runs the demo and writes a report that needs no network.
# Run as root (CI), the install runs as `nobody` (setpriv).
# Usage: install.sh SOURCE_DIR BUILD_DIR
set -u
src=${1:?usage: install.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: install.sh SOURCE_DIR BUILD_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 0755 "$work"
passed=0; failed=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$work/home" && chown nobody "$work/home"
  as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
else
  mkdir -p "$work/home"
fi
prefix=$work/home/prefix
"${as_user[@]}" env -i PATH=/usr/bin:/bin HOME="$work/home" "$src/scripts/install-tree" "$prefix" "$build" >"$work/install.log" 2>&1
check "install-tree as $( [ ${#as_user[@]} -gt 0 ] && echo nobody || id -un ) exits 0" test $? -eq 0
cat "$work/install.log"
check "the program is installed" test -x "$prefix/bin/synthaudit"
check "the docs are installed" test -s "$prefix/share/doc/synthaudit/docs/cli.md"
check "the README is installed" test -s "$prefix/share/doc/synthaudit/README.md"
owner=$(stat -c %U "$prefix/bin/synthaudit")
check "the installed program belongs to the installing user ($owner)" \
  test "$owner" = "$( [ ${#as_user[@]} -gt 0 ] && echo nobody || id -un )"
cd "$work/home" || exit 1
"${as_user[@]}" env -i PATH=/usr/bin:/bin HOME="$work/home" "$prefix/bin/synthaudit" demo --rows 300 \
  --quiet --out "$work/home/demo" >"$work/demo.out" 2>"$work/demo.err"
check "the installed program runs the demo" test $? -eq 0
check "the demo writes results.json" test -s "$work/home/demo/results.json"
check "the report inlines its JavaScript (Vega)" grep -q 'vega' "$work/home/demo/report.html"
check "the report loads nothing from the network" bash -c "! grep -q -E '<script[^>]+src=|<link[^>]+href=\"https?:' '$work/home/demo/report.html'"
"${as_user[@]}" env -i PATH=/usr/bin:/bin "$prefix/bin/synthaudit" report "$work/home/demo/results.json" --format text >/dev/null 2>&1
check "the installed program renders a report again" test $? -eq 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
