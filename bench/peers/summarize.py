"""The peers table of bench/RESULTS.md from bench/peers' timings.tsv.

    /usr/bin/python3 bench/peers/summarize.py [PEERS_DIR]

Per size and measure: the peer's call alone and its whole script (CPU s / wall s), synthaudit's
whole process (the median of its runs), and the ratios peer call ÷ synthaudit and peer script ÷
synthaudit, in CPU seconds and in wall seconds.  Where the peer ran at 20k and 100k but not at
1M, its 1M call is extrapolated with the growth exponent of those two sizes (marked "extrap.").
"""

import csv
import json
import math
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
    runs = defaultdict(list)
    with open(folder + '/timings.tsv', newline='') as handle:
        for row in csv.DictReader(handle, delimiter='\t'):
            if row['wall_s'] in (None, ''):
                continue
            runs[(int(row['rows']), row['measure'], row['who'])].append(row)

    def peer_call(rows, measure):
        found = runs.get((rows, measure, 'peer'))
        if found:
            return float(found[-1]['call_cpu_s']), float(found[-1]['call_wall_s']), False
        small, large = runs.get((20000, measure, 'peer')), runs.get((100000, measure, 'peer'))
        if rows == 1000000 and small and large:
            a, b = float(small[-1]['call_cpu_s']), float(large[-1]['call_cpu_s'])
            exponent = math.log(b / a) / math.log(5)
            return b * 10**exponent, None, exponent
        return None, None, False

    print('| rows | peer call | peer call CPU s / wall s | peer script CPU s / wall s | '
          'peer reading CPU s | synthaudit whole process CPU s / wall s | its metrics wall s | call ÷ ours, CPU / wall '
          '| script ÷ ours, CPU / wall | load |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for rows in (20000, 100000, 1000000):
        for measure in MEASURES:
            ours = runs.get((rows, measure, 'ours'))
            call_cpu, call_wall, extrapolated = peer_call(rows, measure)
            if not ours or call_cpu is None:
                continue
            ours_cpu = statistics.median(float(r['cpu_s']) for r in ours)
            ours_wall = statistics.median(float(r['wall_s']) for r in ours)
            peer = runs.get((rows, measure, 'peer'))
            inside = metric_wall(folder, rows, measure)
            inside = '–' if inside is None else f'{inside:,.2f}'
            loads = sorted(float(r[k]) for r in ours + (peer or [])
                           for k in ('load_before', 'load_after'))
            if extrapolated is not False:
                call = f'{call_cpu:,.0f} extrap. (exponent {extrapolated:.2f}) / –'
                ratio = f'{call_cpu / ours_cpu:,.0f}× / –'
                script = ratio_script = reading = '–'
            else:
                p = peer[-1]
                call = f'{call_cpu:,.2f} / {call_wall:,.2f}'
                ratio = f'{call_cpu / ours_cpu:,.1f}× / {call_wall / ours_wall:,.1f}×'
                script = f"{float(p['cpu_s']):,.2f} / {float(p['wall_s']):,.2f}"
                ratio_script = (f"{float(p['cpu_s']) / ours_cpu:,.1f}× / "
                                f"{float(p['wall_s']) / ours_wall:,.1f}×")
                reading = f"{float(p['read_cpu_s']):,.2f}"
            print(f'| {rows:,} | {LABELS[measure]} | {call} | {script} | {reading} | '
                  f'{ours_cpu:,.2f} / {ours_wall:,.2f} | {inside} | {ratio} | {ratio_script} | '
                  f'{loads[0]:.1f}–{loads[-1]:.1f} |')


if __name__ == '__main__':
    main()
