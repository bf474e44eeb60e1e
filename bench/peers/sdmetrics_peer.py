"""Times one SDMetrics metric call on the simulator's files, run from SDMetrics' source tree.

    PYTHONPATH=$SDMETRICS_SRC:$STUBS /usr/bin/python3 bench/peers/sdmetrics_peer.py DATA_DIR MEASURE

MEASURE: ks_tv | detection | column_pairs | dcr.  DATA_DIR holds confidential.csv and ideal_1.csv as
written by `synthaudit simulate`.  Prints one JSON object: the version, the CPU and
wall seconds of reading the files and of the metric call alone, and the values the call returned
(compare_values.py checks them against synthaudit's results.tsv).  The whole script, imports and
reading included, is timed from outside with /usr/bin/time.
"""

import itertools
import json
import sys
import time

import numpy as np
import pandas as pd

import sdmetrics
from sdmetrics.column_pairs import ContingencySimilarity, CorrelationSimilarity
from sdmetrics.single_column import KSComplement, TVComplement
from sdmetrics.single_table import DCRBaselineProtection, LogisticDetection


def clock():
    return time.process_time(), time.perf_counter()


def since(start):
    cpu, wall = clock()
    return {'cpu_s': round(cpu - start[0], 3), 'wall_s': round(wall - start[1], 3)}


def metadata_of(table):
    columns = {}
    for name in table.columns:
        numeric = pd.api.types.is_numeric_dtype(table[name])
        columns[name] = {'sdtype': 'numerical' if numeric else 'categorical'}
    return {'columns': columns}


def ks_tv(real, synthetic, numeric):
    values = {}
    for name in real.columns:
        if name in numeric:
            values['ks_complement:' + name] = KSComplement.compute(real[name], synthetic[name])
        else:
            values['tv_complement:' + name] = TVComplement.compute(real[name], synthetic[name])
    return values


def column_pairs(real, synthetic, numeric):
    values = {}
    for first, second in itertools.combinations(real.columns, 2):
        pair = [first, second]
        scope = first + ':' + second
        continuous = [name for name in pair if name in numeric]
        values['contingency_similarity:' + scope] = ContingencySimilarity.compute(
            real[pair], synthetic[pair], continuous_column_names=continuous, num_discrete_bins=10
        )
        if len(continuous) == 2:
            for coefficient in ('Pearson', 'Spearman'):
                key = 'correlation_similarity_' + coefficient.lower() + ':' + scope
                values[key] = CorrelationSimilarity.compute(
                    real[pair], synthetic[pair], coefficient=coefficient
                )
    return values


def detection(real, synthetic, metadata):
    return {'detection_score_folds:all': LogisticDetection.compute(real, synthetic, metadata)}


def dcr(real, synthetic, metadata):
    breakdown = DCRBaselineProtection.compute_breakdown(real, synthetic, metadata, None)
    medians = breakdown['median_DCR_to_real_data']
    return {
        'sdmetrics_dcr_baseline_protection:all': breakdown['score'],
        'sdmetrics_median_dcr_synthetic:all': medians['synthetic_data'],
        'sdmetrics_median_dcr_random_baseline:all': medians['random_data_baseline'],
    }


def main():
    folder, measure = sys.argv[1], sys.argv[2]
    start = clock()
    real = pd.read_csv(folder + '/confidential.csv')
    synthetic = pd.read_csv(folder + '/ideal_1.csv')
    reading = since(start)
    metadata = metadata_of(real)
    numeric = {name for name, c in metadata['columns'].items() if c['sdtype'] == 'numerical'}
    start = clock()
    if measure == 'ks_tv':
        values = ks_tv(real, synthetic, numeric)
    elif measure == 'column_pairs':
        values = column_pairs(real, synthetic, numeric)
    elif measure == 'detection':
        values = detection(real, synthetic, metadata)
    elif measure == 'dcr':
        values = dcr(real, synthetic, metadata)
    else:
        sys.exit('unknown measure ' + measure)
    call = since(start)
    print(json.dumps({
        'peer': 'SDMetrics ' + sdmetrics.__version__,
        'measure': measure,
        'rows': len(real),
        'reading': reading,
        'call': call,
        'values': {k: (None if v is None or (isinstance(v, float) and np.isnan(v)) else float(v))
                   for k, v in values.items()},
    }))


if __name__ == '__main__':
    main()
