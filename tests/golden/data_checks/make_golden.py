#!/usr/bin/env python3
"""Golden values for the checks before the metrics (tests/unit/data_checks_test.cpp), computed
independently of synthaudit with the Python standard library on the SD2011 files.

- Row copies: a row copies the reference when every field is equal, numbers compared as numbers
  (float), missing ("" or "NA") equal to missing, -8 in income (a declared missing code) equal to
  -8. Repeated rows: rows equal to another row of the same file.
- Missing-code spikes: per numeric column, the count at the minimum and maximum, the nearest
  other value, and whether the documented rule fires (docs/cli.md, "Checks before the metrics").

Usage: python3 make_golden.py ../../data/sd2011 > golden.json
"""
import collections
import csv
import json
import sys

MISSING = {"", "NA", "NaN", "null"}
CODES = [-1, -2, -3, -4, -5, -6, -7, -8, -9, -77, -88, -99, -777, -888, -999, -9999, -99999,
         9, 77, 88, 97, 98, 99, 777, 888, 997, 998, 999, 7777, 8888, 9997, 9998, 9999, 99998,
         99999, 999998, 999999, 9999999, 99999999, 999999999]


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    numeric = []
    for c in range(len(header)):
        ok = True
        for r in body:
            if r[c] in MISSING:
                continue
            try:
                float(r[c])
            except ValueError:
                ok = False
                break
        numeric.append(ok)
    return header, body, numeric


def key(row, numeric):
    out = []
    for value, is_number in zip(row, numeric):
        if value in MISSING:
            out.append(None)
        elif is_number:
            out.append(float(value))
        else:
            out.append(value)
    return tuple(out)


def spikes(values):
    values = [v for v in values if v is not None]
    counts = collections.Counter(values)
    distinct = sorted(counts)
    out = []
    if len(distinct) < 2:
        return out
    lo, hi = distinct[0], distinct[-1]
    n = len(values)
    def spike(v):
        return v in CODES and counts[v] >= 5 and counts[v] >= 0.005 * n
    # the rest of the values: without the far end when it is a spike of a code too
    rest_lo = distinct[1] if spike(lo) else lo
    rest_hi = distinct[-2] if spike(hi) else hi
    if spike(lo):
        gap, others = distinct[1] - lo, rest_hi - distinct[1]
        if (lo < 0 <= distinct[1]) or gap >= 0.5 * others:
            out.append({"value": lo, "rows": counts[lo], "values": n, "nearest_other": distinct[1]})
    if spike(hi):
        gap, others = hi - distinct[-2], distinct[-2] - rest_lo
        if gap >= 0.5 * others:
            out.append({"value": hi, "rows": counts[hi], "values": n, "nearest_other": distinct[-2]})
    return out


def main():
    folder = sys.argv[1]
    files = {name: read(f"{folder}/{name}.csv")
             for name in ["orig", "syn", "train", "train_syn", "holdout"]}
    # One schema, fixed from the confidential file of each pair, as synthaudit fixes it.
    def keys(name, numeric):
        return [key(r, numeric) for r in files[name][1]]
    golden = {"copies": {}, "repeats": {}, "spikes": {}}
    for table, reference in [("train_syn", "train"), ("holdout", "train"), ("syn", "orig"),
                             ("holdout", "orig")]:
        numeric = files[reference][2]
        ref = set(keys(reference, numeric))
        rows = keys(table, numeric)
        golden["copies"][f"{table}|{reference}"] = {
            "rows": len(rows), "copies": sum(r in ref for r in rows)}
    for name in ["orig", "train"]:
        rows = keys(name, files[name][2])
        counts = collections.Counter(rows)
        golden["repeats"][name] = {"rows": len(rows), "copies": sum(counts[r] > 1 for r in rows)}
    header, body, numeric = files["orig"]
    for c, name in enumerate(header):
        if numeric[c]:
            golden["spikes"][name] = spikes([None if r[c] in MISSING else float(r[c]) for r in body])
    json.dump(golden, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
