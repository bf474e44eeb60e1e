"""Empties a seeded random share of the cells of the named columns in every CSV file of a folder,
in place (an empty field is a missing value), so that the key measures' missing-key rules are
exercised. The same seed gives the same cells. Usage: blank_keys.py FOLDER SHARE SEED COLUMN..."""
import csv
import pathlib
import random
import sys

folder, share, seed, columns = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
for index, path in enumerate(sorted(pathlib.Path(folder).glob("*.csv"))):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    missing = [c for c in columns if c not in header]
    if missing:
        sys.exit(f"{path}: no column {missing[0]}")
    positions = [header.index(c) for c in columns]
    draw = random.Random(seed * 1000 + index)
    for row in rows[1:]:
        for p in positions:
            if draw.random() < share:
                row[p] = ""
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
