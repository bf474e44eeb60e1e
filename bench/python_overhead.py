"""Overhead of the Python package over the command line on the same data (target: at most 20 %
at 100k rows). Not part of `make bench` (it needs the package); run it once by hand:

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py build [ROWS] [METRICS]

The simulator writes ROWS confidential rows (default 100000), a holdout of ROWS/4 and three
candidates with 3 replicates each, plus a spec naming them. Then, alternating, `synthaudit
evaluate --spec` (reads the CSV files, runs, writes results.json, results.tsv and report.html)
and the package on DataFrames already read with pandas (converts them, runs, then writes the same
three files), each REPEATS times on 2 threads. Prints the median wall time of each, the overhead,
and the time pandas took to read the files (not part of a session that already holds them).
"""

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

import synthaudit

REPEATS = 3


def main():
    build = Path(sys.argv[1] if len(sys.argv) > 1 else "build")
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    metrics = sys.argv[3] if len(sys.argv) > 3 else "general,key-disclosure"
    cli = str(build / "synthaudit")
    work = Path(tempfile.mkdtemp(prefix="synthaudit-pybench-"))
    subprocess.run([cli, "simulate", "--rows", str(rows), "--replicates", "3", "--seed", "1",
                    "--out", str(work / "data")], check=True, capture_output=True)
    spec_path = work / "data" / "spec.yaml"
    spec = yaml.safe_load(spec_path.read_text())
    folder = spec_path.parent

    t0 = time.perf_counter()
    confidential = pd.read_csv(folder / spec["confidential"])
    holdout = pd.read_csv(folder / spec["holdout"])
    synthetic = {c["name"]: [pd.read_csv(folder / f) for f in c["replicates"]]
                 for c in spec["candidates"]}
    read_seconds = time.perf_counter() - t0

    def run_cli():
        t = time.perf_counter()
        done = subprocess.run([cli, "evaluate", "--quiet", "--spec", str(spec_path), "--metrics",
                               metrics, "--threads", "2", "--out", str(work / "cli")],
                              capture_output=True, text=True)
        assert done.returncode in (0, 3), done.stderr
        return time.perf_counter() - t

    def run_python():
        t = time.perf_counter()
        results = synthaudit.evaluate(confidential, synthetic, holdout, spec=spec_path,
                                      metrics=metrics, threads=2)
        out = work / "py"
        out.mkdir(exist_ok=True)
        results.to_json(out / "results.json")
        results.to_tsv(out / "results.tsv")
        results.report(out / "report.html")
        return time.perf_counter() - t

    cli_times, python_times = [], []
    for _ in range(REPEATS):
        cli_times.append(run_cli())
        python_times.append(run_python())
    same = (work / "cli" / "results.tsv").read_text() == (work / "py" / "results.tsv").read_text()
    cli_median, python_median = statistics.median(cli_times), statistics.median(python_times)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"rows {rows} confidential + {len(holdout)} holdout, 3 candidates x 3 replicates, "
          f"metrics {metrics}, 2 threads, load average {load}")
    print(f"command line (read CSV, evaluate, write 3 files): median {cli_median:.2f} s "
          f"{[round(t, 2) for t in cli_times]}")
    print(f"package (DataFrames in memory, evaluate, write 3 files): median {python_median:.2f} s "
          f"{[round(t, 2) for t in python_times]}")
    print(f"overhead of the package: {100 * (python_median / cli_median - 1):+.1f} %")
    print(f"pandas.read_csv of the 11 files: {read_seconds:.2f} s (once, outside the timing)")
    print(f"results.tsv identical: {same}")


if __name__ == "__main__":
    main()
