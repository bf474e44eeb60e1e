#!/usr/bin/env bash
# The R package r/: installed into BUILD/r-package/library, linked against the core library this
# build made ($SYNTHAUDIT_LIB), then its testthat tests, which compare it with this build's
# command line ($SYNTHAUDIT). Usage: run_r_package_tests.sh SOURCE_DIR WORK_DIR
set -euo pipefail
source_dir=$1
work=$2
if ! command -v R >/dev/null 2>&1; then
  echo "r_package: R is not installed (scripts/install-deps installs r-base-core)" >&2
  exit 1
fi
mkdir -p "$work/library" "$work/package"
# A copy, so that the compiler's output stays out of the source tree. Files keep their times and
# the objects of the last run stay, so an unchanged binding is not compiled again (the relink
# follows the library: src/Makevars). Output of an install in the source tree is not copied.
tar -C "$source_dir/r" --exclude=./src/Makevars --exclude='*.o' --exclude='*.so' -cf - . |
  tar -C "$work/package" -xf -
SYNTHAUDIT_SOURCE_DIR=$source_dir R CMD INSTALL --no-multiarch --library="$work/library" \
  "$work/package" >"$work/install.log" 2>&1 || {
  cat "$work/install.log" >&2
  exit 1
}
cd "$work/package/tests"
R_LIBS="$work/library" SYNTHAUDIT_TEST_DATA="$source_dir/tests/data" Rscript -e \
  'testthat::test_dir("testthat", package = "synthaudit", load_package = "installed",
                      stop_on_failure = TRUE, reporter = "summary")'
