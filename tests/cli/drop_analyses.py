"""Removes the `analyses:` block from a spec written by `synthaudit simulate`, in place: declared
analyses are checked over the whole confidential table, so an MPI run of mergeable metrics without
whole tables (docs/mpi.md) needs a spec without them. Usage: drop_analyses.py SPEC.yaml"""
import sys

path = sys.argv[1]
out, skipping = [], False
for line in open(path):
    if line.startswith("analyses:"):
        skipping = True
        continue
    if skipping and line.startswith("  "):
        continue
    skipping = False
    out.append(line)
open(path, "w").write("".join(out))
