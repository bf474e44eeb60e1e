#!/usr/bin/python3
"""SDMetrics' multi-table measures of tests/data/eusilc/related (conf against cand), computed by
SDMetrics' own source, for the relations block of results.json (tests/cli/household_reference.py
compares them). SDMetrics is not a Debian package and PyPI is out of reach, so its source is read
from a checkout (github:sdv-dev/SDMetrics, version 0.29.1.dev0 at commit 54362a3c when these
values were written): only the three metrics' modules are imported, with scikit-learn (imported
by sdmetrics.utils for functions these metrics do not call) stubbed.

Usage: make_sdmetrics_golden.py SDMETRICS_CHECKOUT  (writes sdmetrics_golden.json here)
"""
import json
import sys
import types
from pathlib import Path

import pandas as pd

checkout = Path(sys.argv[1])
here = Path(__file__).parent
data = here.parent.parent / "data" / "eusilc" / "related"

sklearn = types.ModuleType("sklearn")
preprocessing = types.ModuleType("sklearn.preprocessing")
preprocessing.OneHotEncoder = object
sys.modules.update({"sklearn": sklearn, "sklearn.preprocessing": preprocessing})
for name in ("sdmetrics", "sdmetrics.column_pairs", "sdmetrics.column_pairs.statistical",
             "sdmetrics.multi_table", "sdmetrics.multi_table.statistical"):
    package = types.ModuleType(name)
    package.__path__ = [str(checkout / name.replace(".", "/"))]
    sys.modules[name] = package
from sdmetrics.column_pairs.statistical.cardinality_boundary_adherence import (  # noqa: E402
    CardinalityBoundaryAdherence)
from sdmetrics.column_pairs.statistical.referential_integrity import (  # noqa: E402
    ReferentialIntegrity)
from sdmetrics.multi_table.statistical.cardinality_shape_similarity import (  # noqa: E402
    CardinalityShapeSimilarity)

real = {t: pd.read_csv(data / "conf" / f"{t}.csv.gz") for t in ("households", "persons")}
synthetic = {t: pd.read_csv(data / "cand" / f"{t}.csv.gz") for t in ("households", "persons")}
metadata = {"tables": {"households": {"primary_key": "db030", "columns": {}},
                       "persons": {"primary_key": "pid", "columns": {}}},
            "relationships": [{"parent_table_name": "households", "parent_primary_key": "db030",
                               "child_table_name": "persons", "child_foreign_key": "db030"}]}
pair = (lambda d: (d["households"]["db030"], d["persons"]["db030"]))
golden = {
    "software": "SDMetrics 0.29.1.dev0 (54362a3c)",
    "cardinality_shape_similarity": CardinalityShapeSimilarity.compute(real, synthetic, metadata),
    "cardinality_boundary_adherence": CardinalityBoundaryAdherence.compute(pair(real),
                                                                          pair(synthetic)),
    "referential_integrity": ReferentialIntegrity.compute(pair(real), pair(synthetic)),
}
(here / "sdmetrics_golden.json").write_text(json.dumps(golden, indent=2) + "\n")
print(golden)
