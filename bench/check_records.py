#!/usr/bin/env python3
"""Checks records.tsv (the record_level output of distance_to_closest_record) against an
independent brute-force Gower computation in plain Python, for a sample of query records.

Gower as documented in docs/metrics.md / stats/nearest_neighbours.hpp (SDMetrics' per-column
rule): ranges from the confidential file (SCALE; every direction of the metric uses its scale); a numeric column with a positive range contributes
min(|x - y| / range, 1), 0 when both values are missing and 1 when one is; any other column 0 when
equal and 1 otherwise (missing equals missing); d = (numeric sum + mismatches) / columns. The
nearest record is the lowest row at the smallest distance.

  check_records.py RECORDS.tsv QUERY.csv REFERENCE.csv SCALE.csv CANDIDATE DIRECTION [SAMPLE] [SEED]
e.g. check_records.py out/records.tsv ideal_1.csv confidential.csv confidential.csv ideal syn_to_conf 200
Exits 1 when any sampled record differs (distance compared exactly, then to 1e-12)."""
import csv
import math
import random
import sys

MISSING = {"", "NA"}


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def as_number(v):
    if v in MISSING:
        return math.nan
    return float(v)


def main():
    records, query_path, ref_path, scale_path, candidate, direction = sys.argv[1:7]
    sample = int(sys.argv[7]) if len(sys.argv) > 7 else 200
    seed = int(sys.argv[8]) if len(sys.argv) > 8 else 1
    header, ref = read(ref_path)
    qheader, query = read(query_path)
    sheader, scale = read(scale_path)
    order = [qheader.index(name) for name in header]
    query = [[row[i] for i in order] for row in query]
    order = [sheader.index(name) for name in header]
    scale = [[row[i] for i in order] for row in scale]
    p = len(header)
    numeric = []
    for c in range(p):
        try:
            for row in ref:
                as_number(row[c])
            for row in query:
                as_number(row[c])
            numeric.append(True)
        except ValueError:
            numeric.append(False)
    ranges = []
    for c in range(p):
        values = [as_number(r[c]) for r in scale] if numeric[c] else []
        values = [v for v in values if not math.isnan(v)]
        ranges.append(max(values) - min(values) if values else math.nan)
    ref_num = [[as_number(r[c]) if numeric[c] else None for c in range(p)] for r in ref]
    # records.tsv is long: candidate, replicate, metric, scope (the direction), data, row, field
    # (nearest_row or distance), value.
    nearest_of, distance_of = {}, {}
    with open(records) as f:
        header_line = f.readline().rstrip("\n").split("\t")
        col = {name: i for i, name in enumerate(header_line)}
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[col["candidate"]] != candidate or fields[col["scope"]] != direction:
                continue
            q = int(fields[col["row"]])
            if fields[col["field"]] == "nearest_row":
                nearest_of[q] = int(fields[col["value"]])
            elif fields[col["field"]] == "distance":
                distance_of[q] = float(fields[col["value"]])
    want = {q: (nearest_of[q], distance_of[q]) for q in nearest_of}
    rng = random.Random(seed)
    picked = sorted(rng.sample(range(1, len(query) + 1), min(sample, len(query))))
    worst = 0.0
    bad = 0
    for q in picked:
        row = query[q - 1]
        xs = [as_number(row[c]) if numeric[c] else None for c in range(p)]
        best, best_j = math.inf, -1
        for j, r in enumerate(ref):
            s = 0.0
            mism = 0
            for c in range(p):
                if numeric[c] and ranges[c] > 0:
                    x, y = xs[c], ref_num[j][c]
                    if math.isnan(x) or math.isnan(y):
                        s += 0.0 if (math.isnan(x) and math.isnan(y)) else 1.0
                    else:
                        s += min(abs(x - y) / ranges[c], 1.0)
                elif numeric[c]:
                    x, y = xs[c], ref_num[j][c]
                    mism += not ((math.isnan(x) and math.isnan(y)) or x == y)
                else:
                    mism += row[c] != r[c]
            d = (s + mism) / p
            if d < best:
                best, best_j = d, j
        got_row, got = want[q]
        worst = max(worst, abs(got - best))
        if got_row != best_j + 1 or abs(got - best) > 1e-12:
            bad += 1
            print(f"record {q}: records.tsv {got_row} {got!r}, brute force {best_j + 1} {best!r}")
    print(f"{len(picked)} sampled records of {candidate} {direction}: {bad} differ; "
          f"largest distance difference {worst:.3g}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
