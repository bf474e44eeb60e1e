#!/usr/bin/env bash
# The README's offline install of the Python package, on this build: a virtual environment that
# sees Debian's packages (numpy, pandas), `pip install --no-build-isolation --no-index ./python`
# (setup.py reuses the CMake build folder), then the README's example, run from a copy of the
# data it reads.
# Usage: pip_install.sh REPO_ROOT BUILD_DIR PYTHON
set -euo pipefail
root=$1 build=$2 python=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-pip.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
SYNTHAUDIT_BUILD_DIR=$build "$work/venv/bin/python" -m pip install --quiet --no-build-isolation \
  --no-index "$root/python"
mkdir -p "$work/run/tests/data"
cp -r "$root/tests/data/sd2011" "$work/run/tests/data/"
cd "$work/run"
"$work/venv/bin/python" "$root/examples/python_example.py"
# The installed package, not the build tree's, ran the example.
"$work/venv/bin/python" -c 'import synthaudit, sys; sys.exit(0 if "/venv/" in synthaudit.__file__ else 1)'
test -s report.html
grep -q "synthaudit" report.html
echo "pip install ./python: installed and ran the README example"
