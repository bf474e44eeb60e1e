"""Compares an MPI run's outputs with one process's (docs/mpi.md): results.tsv has the same rows in
the same order, each value the same string or, where floating-point sums were added in another
order, within 1e-12 relative; results.json says 1 rank and NP ranks; with --same, the named
results.json members are equal. Prints what differs; exits 1 when anything does.

Usage: compare_ranks.py SINGLE_DIR RANKS_DIR NP [--same inputs,data_checks,...]"""
import json
import sys

single, ranks, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
same = sys.argv[5].split(",") if len(sys.argv) > 5 and sys.argv[4] == "--same" else []


def rows(folder):
    with open(folder + "/results.tsv") as f:
        return [line.rstrip("\n").split("\t") for line in f]


a, b = rows(single), rows(ranks)
problems = []
if len(a) != len(b):
    problems.append(f"{len(a)} rows in one process, {len(b)} on {np} ranks")
differing = 0
for x, y in zip(a, b):
    if x == y:
        continue
    if x[:-1] != y[:-1]:
        problems.append(f"row differs: {x} vs {y}")
        continue
    try:
        u, v = float(x[-1]), float(y[-1])
    except ValueError:
        problems.append(f"value differs: {x} vs {y}")
        continue
    if not (abs(u - v) <= 1e-12 * max(abs(u), abs(v))):
        problems.append(f"beyond 1e-12 relative: {x} vs {y[-1]}")
    differing += 1
documents = {folder: json.load(open(folder + "/results.json")) for folder in (single, ranks)}
for what, folder, want in (("one process", single, 1), (f"{np} ranks", ranks, np)):
    got = documents[folder].get("ranks")
    if got != want:
        problems.append(f"results.json ranks of {what} is {got}, not {want}")
for key in same:
    if documents[single].get(key) != documents[ranks].get(key):
        problems.append(f"results.json {key} differs")
for p in problems[:20]:
    print("  " + p)
print(f"compared {len(a)} rows; {differing} differ in the last digits (within 1e-12)")
sys.exit(1 if problems else 0)
