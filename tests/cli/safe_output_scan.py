#!/usr/bin/python3
"""Scans output files for values that single out a confidential record.

Usage: safe_output_scan.py THRESHOLD DATA.csv[,DATA2.csv...] OUTPUT_FILE...
Prints one line per finding and exits 1 when there is any. Looked for, in every output file:
  - each numeric value that occurs exactly once in the confidential data (the files given,
    together), as a number token equal to it;
  - each categorical level held by fewer than THRESHOLD records, as a whole word.
The confidential files are read with the csv module ("NA" and "" are missing; a column is numeric
when every other field parses as a number), independently of synthaudit's reader. In report.html
only the page itself and its embedded JSON are scanned, not the inlined JavaScript libraries
(whose code is full of numbers that say nothing about the data).
"""
import csv
import re
import sys
from collections import Counter

NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
LIBRARY_SCRIPT = re.compile(r"<script>.*?</script>", re.S)


def read_columns(paths):
    columns = {}
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            header = next(reader)
            for row in reader:
                for name, field in zip(header, row):
                    columns.setdefault(name, []).append(field)
    return columns


def as_number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    threshold = int(sys.argv[1])
    columns = read_columns(sys.argv[2].split(","))
    unique_numbers, rare_levels = {}, {}
    for name, fields in columns.items():
        present = [f for f in fields if f not in ("", "NA")]
        numbers = [as_number(f) for f in present]
        if present and all(x is not None for x in numbers):
            for value, count in Counter(numbers).items():
                if count == 1:
                    unique_numbers[value] = name
        else:
            for level, count in Counter(present).items():
                if count < threshold:
                    rare_levels[level] = name
    findings = []
    for path in sys.argv[3:]:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        if path.endswith(".html"):
            text = LIBRARY_SCRIPT.sub("", text)
        for token in NUMBER.findall(text):
            value = float(token)
            if value in unique_numbers:
                findings.append(f"{path}: {token} (unique value of {unique_numbers[value]})")
        for level, column in rare_levels.items():
            if re.search(r"(?<![\w])" + re.escape(level) + r"(?![\w])", text):
                findings.append(f"{path}: '{level}' (level of {column} with < {threshold} records)")
    for finding in sorted(set(findings)):
        print(finding)
    print(f"scanned {len(sys.argv) - 3} file(s) for {len(unique_numbers)} unique value(s) and "
          f"{len(rare_levels)} rare level(s): {len(set(findings))} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
