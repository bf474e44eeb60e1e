"""The peers table of bench/RESULTS.md from bench/peers' timings.tsv.

    /usr/bin/python3 bench/peers/summarize.py [PEERS_DIR]

Per size and measure: the peer's call alone and its whole script (CPU s / wall s), synthaudit's
whole process (the median of its runs) and the wall seconds inside its metrics (results.json),
and the ratios peer call ÷ synthaudit and peer script ÷ synthaudit, in CPU and wall seconds.
Where the peer did not run at a size, its call's CPU seconds are extrapolated from the two
largest sizes it ran at, with their growth exponent (marked "extrap."); where it was stopped
(time limit, memory), the CPU seconds it had used are a lower bound (marked ">").
"""

import csv
import json
import math
import re
import statistics
import sys
from collections import defaultdict

MEASURES = ['ks_tv', 'column_pairs', 'detection', 'dcr', 'tables', 'compare', 'logit', 'disclosure']
LABELS = {
    'ks_tv': 'SDMetrics KSComplement + TVComplement (20 columns)',
    'column_pairs': 'SDMetrics ContingencySimilarity + CorrelationSimilarity (190 pairs)',
    'detection': 'SDMetrics LogisticDetection',
    'dcr': 'SDMetrics DCRBaselineProtection',
    'tables': 'synthpop utility.tables (190 two-way tables)',
    'compare': 'synthpop compare (20 variables)',
    'logit': 'synthpop utility.gen logit (10 columns, two-way interactions)',
    'disclosure': 'synthpop disclosure (2 key sets)',
}


def metric_wall(folder, rows, measure):
    """Wall seconds synthaudit's last run spent inside its metrics (results.json), or None."""
    try:
        with open(f'{folder}/out_{measure}_{rows}/results.json') as handle:
            results = json.load(handle)
    except OSError:
        return None
    return sum(replicate.get('wall_seconds', 0.0) for metric in results['metrics']
               for candidate in metric['candidates'] for replicate in candidate['replicates'])


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else '/tmp/peers-bench'
    runs, stopped = defaultdict(list), {}
    with open(folder + '/timings.tsv', newline='') as handle:
        for row in csv.DictReader(handle, delimiter='\t'):
            key = (int(row['rows']), row['measure'], row['who'])
            found = re.match(r'stopped \(exit (\d+)\) after ([\d.]+) CPU s, ([\d.]+) s wall, '
                             r'peak RSS (\d+) kB', row['cpu_s'])
            if found:
                stopped[key] = found
            elif row['wall_s']:
                runs[key].append(row)

    def peer_sizes(measure):
        return sorted(rows for (rows, m, who) in runs if m == measure and who == 'peer')

    print('| rows | peer call | peer call CPU s / wall s | peer script CPU s / wall s | '
          'peer reading CPU s | synthaudit whole process CPU s / wall s | its metrics wall s | '
          'call ÷ ours, CPU / wall | script ÷ ours, CPU / wall | load |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for rows in sorted({key[0] for key in runs}):
        for measure in MEASURES:
            ours = runs.get((rows, measure, 'ours'))
            if not ours:
                continue
            ours_cpu = statistics.median(float(r['cpu_s']) for r in ours)
            ours_wall = statistics.median(float(r['wall_s']) for r in ours)
            inside = metric_wall(folder, rows, measure)
            inside = '–' if inside is None else f'{inside:,.2f}'
            peer = runs.get((rows, measure, 'peer'))
            loads = sorted(float(r[k]) for r in ours + (peer or [])
                           for k in ('load_before', 'load_after'))
            script = ratio_script = reading = '–'
            if peer:
                p = peer[-1]
                call_cpu, call_wall = float(p['call_cpu_s']), float(p['call_wall_s'])
                call = f'{call_cpu:,.2f} / {call_wall:,.2f}'
                ratio = f'{call_cpu / ours_cpu:,.1f}× / {call_wall / ours_wall:,.1f}×'
                script = f"{float(p['cpu_s']):,.2f} / {float(p['wall_s']):,.2f}"
                ratio_script = (f"{float(p['cpu_s']) / ours_cpu:,.1f}× / "
                                f"{float(p['wall_s']) / ours_wall:,.1f}×")
                reading = f"{float(p['read_cpu_s']):,.2f}"
            elif (rows, measure, 'peer') in stopped:
                s = stopped[(rows, measure, 'peer')]
                why = {'124': 'time limit', '137': 'killed, signal 9'}.get(s.group(1), f'exit {s.group(1)}')
                cpu = float(s.group(2))
                call = (f'> {cpu:,.0f} (whole script; stopped: {why}, peak RSS '
                        f'{int(s.group(4)) / 1048576:.1f} GiB) / > {float(s.group(3)):,.0f}')
                ratio = f'> {cpu / ours_cpu:,.0f}× / –'
            else:
                sizes = [n for n in peer_sizes(measure) if n < rows][-2:]
                if len(sizes) < 2:
                    continue
                a, b = (float(runs[(n, measure, 'peer')][-1]['call_cpu_s']) for n in sizes)
                exponent = math.log(b / a) / math.log(sizes[1] / sizes[0])
                call_cpu = b * (rows / sizes[1]) ** exponent
                call = (f'{call_cpu:,.0f} extrap. (exponent {exponent:.2f}, '
                        f'{sizes[0]:,}→{sizes[1]:,}) / –')
                ratio = f'{call_cpu / ours_cpu:,.1f}× / –'
            print(f'| {rows:,} | {LABELS[measure]} | {call} | {script} | {reading} | '
                  f'{ours_cpu:,.2f} / {ours_wall:,.2f} | {inside} | {ratio} | {ratio_script} | '
                  f'{loads[0]:.1f}–{loads[-1]:.1f} |')


if __name__ == '__main__':
    main()
