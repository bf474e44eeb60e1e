"""Shared by the calibration and reference scripts: SD2011-style CSV files, the Gower distance as
synthaudit documents it, and Wilson intervals for measured rates."""
import csv
import math

import numpy as np

MISSING_TEXT = {"", "NA", "NaN", "null"}


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(header)
        out.writerows(rows)


def wilson(k, n, z=1.96):
    """Wilson (1927) score interval for k successes out of n."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def encode(header, rows, numeric, missing_codes):
    """Columns as arrays: numeric ones as floats with NaN for missing text and the declared codes
    ({column: code}), the others as objects with None for missing text."""
    columns = []
    for c, name in enumerate(header):
        raw = [r[c] for r in rows]
        if name in numeric:
            v = np.array([np.nan if x in MISSING_TEXT else float(x) for x in raw])
            if name in missing_codes:
                v[v == missing_codes[name]] = np.nan
            columns.append(v)
        else:
            columns.append(np.array([None if x in MISSING_TEXT else x for x in raw], dtype=object))
    return columns


def ranges_of(header, columns, numeric):
    """Each column's Gower range from these records: None for a categorical column or a numeric
    one with no spread (compared as categorical)."""
    ranges = []
    for name, col in zip(header, columns):
        if name in numeric and np.any(~np.isnan(col)):
            r = np.nanmax(col) - np.nanmin(col)
            ranges.append(r if r > 0 else None)
        else:
            ranges.append(None)
    return ranges


def gower(a, b, ranges):
    """All pairwise Gower distances, (S_num + C) / p as documented: the numeric terms
    min(|x - y| / range, 1) summed in column order, then the count of the other columns that
    differ; both missing 0, one missing 1. The order matters: ties between records stay ties."""
    numeric = np.zeros((len(a[0]), len(b[0])))
    other = np.zeros((len(a[0]), len(b[0])))
    for x, y, r in zip(a, b, ranges):
        if r is not None:
            d = np.minimum(np.abs(x[:, None] - y[None, :]) / r, 1.0)
            mx, my = np.isnan(x)[:, None], np.isnan(y)[None, :]
        else:
            d = (x[:, None] != y[None, :]).astype(float)
            mx = np.array([v is None for v in x])[:, None]
            my = np.array([v is None for v in y])[None, :]
        d = np.where(mx & my, 0.0, np.where(mx | my, 1.0, d))
        if r is not None:
            numeric += d
        else:
            other += d
    return (numeric + other) / len(a)
