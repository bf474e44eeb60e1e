"""Checks that a peer's call returned what synthaudit computes on the same files.

    /usr/bin/python3 bench/peers/compare_values.py PEER_JSON RESULTS_TSV

PEER_JSON is the line sdmetrics_peer.py or synthpop_peer.R printed; RESULTS_TSV synthaudit's
results.tsv for the matching metric.  Each peer value "statistic:scope" is looked up as the same
statistic and scope in results.tsv (synthpop's table names "01.a:02.b" become "a:b", a disclosure
target t the scope ending in "target=t").  Prints how many matched, the largest absolute and
relative differences, and the values that differ by more than the tolerance (default 1e-9
relative; --tolerance changes it).
"""

import argparse
import csv
import json
import math
import re


def our_values(path):
    values = {}
    with open(path, newline='') as handle:
        for row in csv.DictReader(handle, delimiter='\t'):
            if row['candidate'] != 'ideal':
                continue
            scope = row['scope']
            target = re.search(r'target=([^;]+)$', scope)
            if target:
                scope = target.group(1)
            text = row['value']
            values[(row['statistic'], scope)] = math.nan if text in ('NA', '') else float(text)
    return values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('peer_json')
    parser.add_argument('results_tsv')
    parser.add_argument('--tolerance', type=float, default=1e-9)
    args = parser.parse_args()
    with open(args.peer_json) as handle:
        peer = json.loads(handle.read().strip().splitlines()[-1])
    ours = our_values(args.results_tsv)
    compared, missing, differing = 0, [], []
    largest_abs = largest_rel = 0.0
    for key, value in peer['values'].items():
        statistic, scope = key.split(':', 1)
        scope = re.sub(r'(^|:)\d+\.', r'\1', scope)
        mine = ours.get((statistic, scope))
        if mine is None or value is None:
            missing.append(key)
            continue
        compared += 1
        if math.isnan(mine) or math.isnan(value):
            if not (math.isnan(mine) and math.isnan(value)):
                differing.append((key, value, mine))
            continue
        difference = abs(mine - value)
        relative = difference / max(abs(value), 1e-300)
        largest_abs = max(largest_abs, difference)
        largest_rel = max(largest_rel, relative if value != 0 else difference)
        if difference > args.tolerance * max(abs(value), 1.0):
            differing.append((key, value, mine))
    print(f"{peer['peer']} {peer['measure']} {peer['rows']} rows: {compared} values compared, "
          f"largest difference {largest_abs:.3g} absolute, {largest_rel:.3g} relative; "
          f"{len(differing)} beyond {args.tolerance:g}; {len(missing)} without a counterpart")
    for key, value, mine in differing[:20]:
        print(f'  differs: {key} peer {value!r} synthaudit {mine!r}')
    for key in missing[:10]:
        print(f'  no counterpart: {key}')


if __name__ == '__main__':
    main()
