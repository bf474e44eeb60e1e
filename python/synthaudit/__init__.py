"""synthaudit: audit a synthetic data release against the confidential data it was made from.

The same library as the ``synthaudit`` command line, on pandas DataFrames held in memory:
``evaluate()`` runs the metrics and returns a :class:`Results` (the tidy ``table`` of
results.tsv, the ``verdict``, the ``warnings``, ``to_json()`` and ``report()``);
``list_metrics()`` and ``describe()`` read the metric registry. Bad input raises
:class:`InputError`, a ``ValueError`` with the command line's one-line message.
"""

import json
import numbers

import numpy as np

from . import _columns
from ._results import Results
from ._synthaudit import InputError
from ._synthaudit import __version__
from . import _synthaudit as _core

__all__ = ["evaluate", "list_metrics", "describe", "load_results", "Results", "InputError",
           "__version__"]


def _names(value, what):
    """A list of text given as one comma-separated string (as on the command line) or a list."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"{what}: expected text or a list of text, got {type(value).__name__}")


def _json_value(value):
    """numpy scalars in parameters become plain numbers."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot use a {type(value).__name__} as a parameter value")


def _count(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what}: expected an integer, got {type(value).__name__}")
    if value < 0:
        raise InputError(f"synthaudit.evaluate: {what} must be 0 or more, not {value}")
    return int(value)


def _options(keys, targets, analyses, metrics, params, spec, seed, threads, missing_codes,
             synthesis, policy, baseline_draws, plots, weights=None, household=None, by=None,
             by_min_rows=None):
    """The options the call gives, as JSON for the library (options left as None are not given:
    the spec's value, or the command line's default, applies)."""
    options = {}
    if spec is not None:
        options["spec"] = str(spec)
    if (keys is None) != (targets is None):
        raise InputError("synthaudit.evaluate: keys and targets go together")
    if keys is not None:
        options["keys"] = _names(keys, "keys")
        options["targets"] = _names(targets, "targets")
    if analyses is not None:
        options["analyses"] = [analyses] if isinstance(analyses, str) else _names(analyses,
                                                                                  "analyses")
    if metrics is not None:
        options["metrics"] = _names(metrics, "metrics")
    if params is not None:
        if not isinstance(params, dict) or not all(isinstance(p, dict) for p in params.values()):
            raise TypeError("params: expected a mapping metric -> {parameter: value}")
        options["parameters"] = params
    if missing_codes is not None:
        if not isinstance(missing_codes, dict):
            raise TypeError("missing_codes: expected a mapping column -> list of numbers")
        options["missing_codes"] = {
            column: [float(c) for c in (codes if isinstance(codes, (list, tuple)) else [codes])]
            for column, codes in missing_codes.items()}
    if seed is not None:
        options["seed"] = _count(seed, "seed")
    if threads is not None:
        options["threads"] = _count(threads, "threads")
    if baseline_draws is not None:
        options["baseline_draws"] = _count(baseline_draws, "baseline_draws")
    if synthesis is not None:
        options["synthesis"] = str(synthesis)
    if policy is not None:
        options["policy"] = str(policy)
    if plots is not None:
        options["plots"] = str(plots)
    for name, column in (("weights", weights), ("household", household)):
        if column is not None:
            if not isinstance(column, str):
                raise TypeError(f"{name}: expected a column name, got {type(column).__name__}")
            options[name] = column
    if by is not None:
        options["by"] = _names(by, "by")
    if by_min_rows is not None:
        options["by_min_rows"] = _count(by_min_rows, "by_min_rows")
    return json.dumps(options, default=_json_value)


def evaluate(confidential, synthetic, holdout=None, *, keys=None, targets=None, analyses=None,
             metrics=None, params=None, spec=None, seed=None, threads=None, missing_codes=None,
             synthesis=None, policy=None, baseline_draws=None, plots=None, weights=None,
             household=None, by=None, by_min_rows=None, progress=None):
    """Runs the metrics on DataFrames, as ``synthaudit evaluate`` does on files.

    confidential: the confidential DataFrame. Its columns fix each column's kind: numbers
        (NumPy integers and floats, pandas' nullable Int64/Float64) are numeric, NaN, None and
        pd.NA missing; ``category``, ``object``/``string`` and booleans are categorical (a
        category's codes and levels are used as they are; levels no row uses are dropped, as
        from a file). The row index is not used.
    synthetic: a dict candidate name -> a DataFrame, or a list of DataFrames (its m replicates).
        Each must have the confidential columns (in any order); other columns are ignored
        with a warning.
    holdout: records of the same population not used to synthesise (a DataFrame), for the
        metrics that need one.
    keys, targets: one disclosure scenario (what an intruder knows, what they want to learn):
        lists of column names or comma-separated text, as --keys/--targets.
    analyses: specific-utility analyses, text as --analysis (``"lm: log(income) ~ age"``) or a
        list of them.
    metrics: metric and family names or "all" (the default), a list or comma-separated text.
    params: metric parameters, a mapping metric -> {parameter: value}; each is checked
        against the metric's declaration (below, and ``describe(name)``).
    spec: a YAML spec file (docs/config.md); its options apply (metrics, parameters,
        disclosure, analyses, missing_codes, columns, weights, household, by, seed,
        threads, policy, ...) unless the call gives them. Its file names are not read: the
        tables are the DataFrames given.
    seed: the master seed (default 1): every random step derives its own from it.
    threads: this call's threads (default 0: all cores); results never depend on it.
    missing_codes: numeric values that mean missing, per column ({"income": [-8]}).
    synthesis: "full" (default) or "partial" (synthetic row i corresponds to confidential
        row i). policy: a release policy YAML file. baseline_draws: draws of the baselines
        (default 5). plots: replicates whose plot data the document keeps (first|all|none).
    weights, household: survey design columns of the confidential table, as --weights and
        --household (docs/config.md): the estimate-type utility measures are design-weighted,
        and both columns are left out of the compared columns.
    by: categorical columns, a list or comma-separated text, as --by / the spec's ``by:``:
        the general, specific and key-disclosure metrics run again within each level and
        each combination of levels (scopes ``by:COLUMN=LEVEL;...``). by_min_rows: subgroups
        with fewer confidential rows are reported as suppressed (default 50), as
        --by-min-rows.
    progress: a callable given one line of text per metric run (or None).

    Returns a :class:`Results`. Raises :class:`InputError` (a ValueError) for bad input, with
    the command line's message; Ctrl-C stops the evaluation between metric runs.
    """
    kinds = _core.spec_column_kinds(str(spec)) if spec is not None else {}
    options = _options(keys, targets, analyses, metrics, params, spec, seed, threads,
                       missing_codes, synthesis, policy, baseline_draws, plots, weights,
                       household, by, by_min_rows)
    if not isinstance(synthetic, dict) or not synthetic:
        raise TypeError("synthetic: expected a dict candidate name -> DataFrame or list of "
                        "DataFrames")
    candidates = []
    for name, replicates in synthetic.items():
        if not isinstance(name, str):
            raise TypeError(f"synthetic: candidate names must be text, got {name!r}")
        if not isinstance(replicates, (list, tuple)):
            replicates = [replicates]
        candidates.append((name, [
            _columns.table(frame, f"synthetic '{name}' replicate {r + 1}", kinds)
            for r, frame in enumerate(replicates)]))
    conf = _columns.table(confidential, "confidential", kinds)
    hold = None if holdout is None else _columns.table(holdout, "holdout", kinds)
    if progress is not None and not callable(progress):
        raise TypeError("progress: expected a callable taking one line of text")
    return Results(_core.evaluate(conf, candidates, hold, options, progress))


def load_results(path):
    """A :class:`Results` from a results.json written by ``evaluate`` or ``to_json()``."""
    with open(path, encoding="utf-8") as f:
        return Results(_core.Document.parse(f.read()))


def list_metrics():
    """Every metric of the registry, in its order: a DataFrame with name, family, granularity
    and summary (``describe(name)`` has the rest)."""
    import pandas as pd
    registry = json.loads(_core.registry_json())
    return pd.DataFrame(
        [{key: m[key] for key in ("name", "family", "granularity", "summary")}
         for m in registry["metrics"]],
        columns=["name", "family", "granularity", "summary"])


class MetricDescription(dict):
    """A metric's declaration as the registry holds it (the JSON of ``synthaudit describe
    --json``: doc, parameters, statistics, headlines, references); ``str()`` gives the text
    of ``synthaudit describe``."""

    def __init__(self, name):
        super().__init__(json.loads(_core.describe_json(name)))
        self._text = _core.describe_text(name)

    def __str__(self):
        return self._text


def describe(name):
    """The declaration of metric `name` (a :class:`MetricDescription`); InputError with a
    did-you-mean hint when there is none."""
    return MetricDescription(name)


def _plain(number):
    """1e4 as 10000, 0.5 as 0.5: a declared bound as it reads in the docs."""
    return f"{number:g}" if isinstance(number, float) else str(number)


def _parameter_line(parameter):
    """One parameter as the registry declares it: name, type, default, range or choices."""
    facts = [parameter["type"], f"default {json.dumps(parameter['default'])}"]
    if parameter.get("choices"):
        facts.append("one of " + ", ".join(str(c) for c in parameter["choices"]))
    elif parameter.get("range"):
        low, high = parameter["range"]
        facts.append(f"range [{'-inf' if low is None else _plain(low)}, "
                     f"{'inf' if high is None else _plain(high)}]")
    return f"        {parameter['name']} ({'; '.join(facts)}): {parameter['description']}"


def _metrics_doc():
    """The metrics and their parameters, generated from the registry for evaluate's docstring."""
    lines = ["", "    Metrics (from the registry; describe(name) gives formula, statistics and",
             "    references) and their parameters:", ""]
    for metric in json.loads(_core.registry_json())["metrics"]:
        lines.append(f"    {metric['name']} [{metric['family']}]: {metric['summary']}")
        lines.extend(_parameter_line(p) for p in metric["parameters"])
    return "\n".join(lines) + "\n"


evaluate.__doc__ += _metrics_doc()
