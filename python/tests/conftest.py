"""Shared by the package's tests. ctest (tests/CMakeLists.txt) sets PYTHONPATH to the package in
the build folder, SYNTHAUDIT_CLI to the command line built from the same sources and
SYNTHAUDIT_TEST_DATA to tests/data."""

import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("SYNTHAUDIT_CLI", str(REPO / "build" / "synthaudit"))
    assert Path(path).exists(), f"no synthaudit binary at {path} (set SYNTHAUDIT_CLI)"
    return path


@pytest.fixture(scope="session")
def data_dir():
    return Path(os.environ.get("SYNTHAUDIT_TEST_DATA", REPO / "tests" / "data"))


def run_cli(cli, *args, check=True):
    """`synthaudit ARGS`; returns the completed process."""
    done = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    if check:
        assert done.returncode in (0, 3), done.stderr
    return done


def read_results_tsv(path):
    """results.tsv as pandas reads it, with replicate kept as text (as Results.table has it).
    float_precision="round_trip": pandas' default float parser may miss the last bit of the
    shortest round-trip text results.tsv holds (0.01200000000000001 read as 0.012)."""
    return pd.read_csv(path, sep="\t", dtype={"replicate": str}, keep_default_na=False,
                       na_values={"value": ["NA"]}, float_precision="round_trip")
