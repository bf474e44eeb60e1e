"""synthaudit: audit a synthetic data release against the confidential data it was made from.

The same library as the ``synthaudit`` command line, on pandas DataFrames held in memory:
``evaluate()`` runs the metrics and returns a :class:`Results` (the tidy ``table`` of
results.tsv, the ``verdict``, the ``warnings``, ``to_json()`` and ``report()``);
``list_metrics()`` and ``describe()`` read the metric registry. Bad input raises
:class:`InputError`, a ``ValueError`` with the command line's one-line message.
"""

import json

import numpy as np

from . import _columns
from ._results import Results
from ._synthaudit import InputError
from ._synthaudit import __version__
from . import _synthaudit as _core

__all__ = ["evaluate", "list_metrics", "describe", "load_results", "Results", "InputError",
           "__version__"]


import difflib
import inspect
import os

# Every evaluation option, as the library declares it (``synthaudit options --json``): evaluate's
# keyword arguments, its signature and its docstring are made from this table, so that no option
# is written here by hand and none a spec file or the command line takes can be dropped.
_OPTIONS = [o for o in json.loads(_core.options_json())["options"] if o["binding_argument"]]
_ARGUMENTS = [o["binding_argument"] for o in _OPTIONS]


def _json_value(value):
    """numpy scalars and arrays become plain numbers and lists, paths their text."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot use a {type(value).__name__} as an option value")


def evaluate(confidential, synthetic, holdout=None, *, progress=None, **options):
    """Runs the metrics on DataFrames, as ``synthaudit evaluate`` does on files.

    confidential: the confidential DataFrame. Its columns fix each column's kind: numbers
        (NumPy integers and floats, pandas' nullable Int64/Float64) are numeric, NaN, None and
        pd.NA missing; ``category``, ``object``/``string`` and booleans are categorical (a
        category's codes and levels are used as they are; levels no row uses are dropped, as
        from a file). Text spelt as a missing value (``na_strings``: by default "", "NA",
        "NaN" and "null") is missing, as in a file. The row index is not used.
    synthetic: a dict candidate name -> a DataFrame, or a list of DataFrames (its m replicates).
        Each must have the confidential columns (in any order); other columns are ignored
        with a warning.
    holdout: records of the same population not used to synthesise (a DataFrame), for the
        metrics that need one.
    progress: a callable given one line of text per metric run (or None).

    Every other argument is an evaluation option, keyword only, as the command line's flags
    and a spec file's keys (``synthaudit options`` lists them; docs/options.md). An option left
    as None is not given: the spec file's value (``spec=``), or the default, applies. A spec
    file's options all apply (its limits, policy and safe_output included); its file names
    are not read: the tables are the DataFrames given.

    Returns a :class:`Results`. Raises :class:`InputError` (a ValueError) for bad input, with
    the command line's message; Ctrl-C stops the evaluation between metric runs.
    """
    unknown = [name for name in options if name not in _ARGUMENTS]
    if unknown:
        close = difflib.get_close_matches(unknown[0], _ARGUMENTS, n=1)
        raise TypeError(f"evaluate() got an unexpected keyword argument '{unknown[0]}'" +
                        (f" (did you mean '{close[0]}'?)" if close else ""))
    given = {name: value for name, value in options.items() if value is not None}
    spec = given.get("spec")
    if spec is not None:
        given["spec"] = spec = os.fspath(spec) if isinstance(spec, os.PathLike) else spec
        if not isinstance(spec, str):
            raise TypeError(f"spec: expected a file path, got {type(spec).__name__}")
    kinds = _core.spec_column_kinds(spec) if spec is not None else {}
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
    options_json = json.dumps(given, default=_json_value)
    return Results(_core.evaluate(conf, candidates, hold, options_json, progress))


evaluate.__signature__ = inspect.Signature(
    [inspect.Parameter("confidential", inspect.Parameter.POSITIONAL_OR_KEYWORD),
     inspect.Parameter("synthetic", inspect.Parameter.POSITIONAL_OR_KEYWORD),
     inspect.Parameter("holdout", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None),
     inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=None)] +
    [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
     for name in _ARGUMENTS])


def _options_doc():
    """The options section of evaluate's docstring, from the declarations."""
    lines = ["", "    Options (each keyword-only; default None = not given):", ""]
    for option in _OPTIONS:
        facts = [option["type"]]
        if option["default"] is not None:
            facts.append(f"default {json.dumps(option['default'])}")
        if option.get("choices"):
            facts.append("one of " + ", ".join(option["choices"]))
        if option.get("range"):
            facts.append("from {:g} to {:g}".format(*option["range"]))
        if option["privacy_control"]:
            facts.append("privacy control")
        lines.append(f"    {option['binding_argument']} ({'; '.join(facts)}): "
                     f"{option['description']}")
    return "\n".join(lines) + "\n"


evaluate.__doc__ += _options_doc()


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
