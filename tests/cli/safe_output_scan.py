#!/usr/bin/python3
"""Scans output files for values that single out a confidential record.

Usage: safe_output_scan.py THRESHOLD DATA.csv[,DATA2.csv...] STATIC_FILE OUTPUT_FILE...
Prints one line per finding and exits 1 when there is any. Looked for, in every output file:
  - each numeric value that occurs exactly once in the confidential data (the files given,
    together) and has 3 or more significant digits, as a number token equal to it. Safe output
    rounds every percentile and plot position to 2 significant digits (its control for values
    that may come from few records), so a unique value that is itself that coarse (97, 5100)
    cannot be told from a rounded aggregate; the extremes among them are withheld by rule;
  - each categorical level held by fewer than THRESHOLD records, as a whole word.
Number tokens of STATIC_FILE (the registry's declarations, `synthaudit list-metrics --json`: the
years and pages of the cited works, parameter defaults) are the tool's own text, the same for any
data, and not findings.
The confidential files are read with the csv module ("NA" and "" are missing; a column is numeric
when every other field parses as a number), independently of synthaudit's reader. In report.html
only the page itself and its embedded JSON are scanned, not the inlined JavaScript libraries
(whose code is full of numbers that say nothing about the data). Numbers of the run's own
configuration (the "spec" member of a results.json given, e.g. its resource limits) are not
findings: they are the same whatever the data. Nor are the values of statistics the registry
declares counts (output "count") in a results.json given, nor the counts behind its shares
("records"): a count of at least THRESHOLD records is a released aggregate, and one that equals
somebody's income says nothing about that person.
"""
import csv
import json
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


def expand(pattern):
    """The names a statistic pattern with {a|b} groups stands for."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    return [name for choice in match.group(1).split("|")
            for name in expand(pattern[:match.start()] + choice + pattern[match.end():])]


def count_statistics(registry):
    counts = set()
    for metric in registry["metrics"]:
        for statistic in metric.get("statistics", []):
            if statistic.get("output") == "count":
                counts.update((metric["name"], name) for name in expand(statistic["name"]))
    return counts


def significant_digits(value):
    digits = ("%.15g" % abs(value)).replace(".", "").split("e")[0].strip("0")
    return len(digits)


def main():
    threshold = int(sys.argv[1])
    columns = read_columns(sys.argv[2].split(","))
    with open(sys.argv[3], encoding="utf-8") as handle:
        registry_text = handle.read()
    static = {float(token) for token in NUMBER.findall(registry_text)}
    counts = count_statistics(json.loads(registry_text))
    outputs = sys.argv[4:]
    unique_numbers, rare_levels = {}, {}
    for name, fields in columns.items():
        present = [f for f in fields if f not in ("", "NA")]
        numbers = [as_number(f) for f in present]
        if present and all(x is not None for x in numbers):
            for value, count in Counter(numbers).items():
                if count == 1 and significant_digits(value) >= 3:
                    unique_numbers[value] = name
        else:
            for level, count in Counter(present).items():
                if count < threshold:
                    rare_levels[level] = name
    configuration = set()

    def numbers_in(node):
        if isinstance(node, dict):
            for item in node.values():
                numbers_in(item)
        elif isinstance(node, list):
            for item in node:
                numbers_in(item)
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            configuration.add(float(node))

    def count_values(node, metric):
        if isinstance(node, dict):
            if isinstance(node.get("values"), list):
                for entry in node["values"]:
                    if isinstance(entry, dict) and (metric, entry.get("statistic")) in counts \
                            and isinstance(entry.get("value"), (int, float)):
                        configuration.add(float(entry["value"]))
                    if isinstance(entry, dict) and isinstance(entry.get("records"), (int, float)):
                        configuration.add(float(entry["records"]))
            for item in node.values():
                count_values(item, metric)
        elif isinstance(node, list):
            for item in node:
                count_values(item, metric)

    for path in outputs:
        if path.endswith(".json"):
            with open(path, encoding="utf-8") as handle:
                document = json.load(handle)
            numbers_in(document.get("spec", {}))
            for metric in document.get("metrics", []):
                if isinstance(metric, dict):
                    count_values(metric, metric.get("name"))
    findings = []
    for path in outputs:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        if path.endswith(".html"):
            text = LIBRARY_SCRIPT.sub("", text)
        for token in NUMBER.findall(text):
            value = float(token)
            if value in unique_numbers and value not in configuration and value not in static:
                findings.append(f"{path}: {token} (unique value of {unique_numbers[value]})")
        for level, column in rare_levels.items():
            if re.search(r"(?<![\w])" + re.escape(level) + r"(?![\w])", text):
                findings.append(f"{path}: '{level}' (level of {column} with < {threshold} records)")
    for finding in sorted(set(findings)):
        print(finding)
    print(f"scanned {len(outputs)} file(s) for {len(unique_numbers)} unique value(s) and "
          f"{len(rare_levels)} rare level(s): {len(set(findings))} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
