"""Reading a CSV file: synthaudit's reader (bench/read_bench) against pandas' C parser on the
same file, side by side (issue 18: ingest at >= 400 MB/s on 2 cores). Not part of `make bench`;
run it by hand on a bench build:

    build/bench/read_bench generate /tmp/mixed1m.csv 1000000
    /usr/bin/python3 bench/pandas_read.py build /tmp/mixed1m.csv [REPEATS] [THREADS]

Each reader runs REPEATS times (default 5), alternating, each time in a fresh process so that
its peak RSS is its own: `read_bench read FILE THREADS` (open, structure check and SHA-256,
type inference and encoding into the typed table, dictionaries sorted), and
`pandas.read_csv(FILE)` (pandas' default C parser: one thread, type inference, object columns
for text). Prints per run and as medians: wall seconds, process CPU seconds (all threads),
MB/s of wall time, peak RSS, and the load average when it ran, since the machine is shared.
"""

import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

PANDAS_READ = r"""
import resource, sys, time
import pandas as pd
path = sys.argv[1]
cpu0, wall0 = time.process_time(), time.perf_counter()
frame = pd.read_csv(path)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6
print(f"{wall:.4f} {cpu:.4f} {peak_mb:.1f} {frame.shape[0]} {frame.shape[1]} {pd.__version__}")
"""


def run_ours(build, path, threads):
    out = subprocess.run([str(build / "bench" / "read_bench"), "read", str(path), str(threads)],
                         check=True, capture_output=True, text=True).stdout
    total = re.search(r"^total\s+([\d.]+)\s+([\d.]+)", out, re.M)
    peak = re.search(r"^peak RSS\s+([\d.]+) MB", out, re.M)
    return float(total.group(1)), float(total.group(2)), float(peak.group(1))


def run_pandas(path):
    out = subprocess.run([sys.executable, "-c", PANDAS_READ, str(path)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), float(out[2]), out[5]


def main():
    build = Path(sys.argv[1])
    path = Path(sys.argv[2])
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    mb = path.stat().st_size / 1e6
    ours, theirs = [], []
    version = ""
    print(f"file {path} ({mb:.1f} MB), {repeats} runs each, alternating")
    print("reader                      wall s   cpu s    MB/s   peak RSS MB   load avg")
    for _ in range(repeats):
        load = os.getloadavg()[0]
        wall, cpu, peak = run_ours(build, path, threads)
        ours.append((wall, cpu, peak))
        print(f"synthaudit ({threads} threads)     {wall:6.3f}  {cpu:6.3f}  {mb / wall:6.1f}"
              f"   {peak:8.1f}     {load:5.2f}")
        load = os.getloadavg()[0]
        wall, cpu, peak, version = run_pandas(path)
        theirs.append((wall, cpu, peak))
        print(f"pandas read_csv (C parser)  {wall:6.3f}  {cpu:6.3f}  {mb / wall:6.1f}"
              f"   {peak:8.1f}     {load:5.2f}")
    print(f"medians (pandas {version}):")
    for name, runs in ((f"synthaudit ({threads} threads)", ours), ("pandas read_csv", theirs)):
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        peak = statistics.median(r[2] for r in runs)
        print(f"  {name:27s} wall {wall:6.3f} s  cpu {cpu:6.3f} s  {mb / wall:6.1f} MB/s"
              f"  {mb / cpu:6.1f} MB per cpu-s  peak {peak:7.1f} MB")


if __name__ == "__main__":
    main()
