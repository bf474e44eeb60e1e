"""The package's interface: pandas dtypes, the results object, the registry, threads, progress,
and bad input (an InputError, a ValueError, with the command line's one-line message)."""

import json

import numpy as np
import pandas as pd
import pytest

import synthaudit
from synthaudit import _columns
from conftest import run_cli


def people(n, seed):
    """Rows with signal between columns, as plain float64 and object columns."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n).astype(float)
    female = rng.random(n) < 0.5
    income = np.round(900 + 30 * age + 600 * rng.random(n))
    income[rng.random(n) < 0.1] = np.nan
    region = np.array(["north", "south", "east"], dtype=object)[rng.integers(0, 3, n)]
    region[rng.random(n) < 0.05] = None
    smoker = rng.random(n) < 0.2 + 0.1 * female
    return pd.DataFrame({"age": age, "income": income,
                         "sex": np.where(female, "F", "M").astype(object),
                         "region": region, "smoker": smoker})


def typed(frame):
    """The same values in the other dtypes pandas users hold: nullable Int64, category with an
    unused level, the string dtype, nullable boolean."""
    out = frame.copy()
    out["age"] = out["age"].astype("Int64")
    out["sex"] = pd.Categorical(out["sex"], categories=["M", "F", "X"])
    out["region"] = out["region"].astype("string")
    out["smoker"] = out["smoker"].astype("boolean")
    return out


def plain(frame):
    """The reference encoding: numbers as float64, categories as text (booleans as str() writes
    them), missing as NaN / None."""
    out = frame.copy()
    out["smoker"] = out["smoker"].map(str).astype(object)
    return out


FAST = dict(metrics="general,distance_to_closest_record", seed=3)


@pytest.fixture(scope="module")
def tables():
    return people(300, 1), [people(300, 2), people(300, 3)], people(120, 4)


def test_dtypes_give_the_values_of_their_plain_encoding(tables):
    conf, reps, hold = tables
    ours = synthaudit.evaluate(typed(conf), {"c": [typed(r) for r in reps]}, typed(hold), **FAST)
    reference = synthaudit.evaluate(plain(conf), {"c": [plain(r) for r in reps]}, plain(hold),
                                    **FAST)
    pd.testing.assert_frame_equal(ours.table, reference.table)
    levels = {c["name"]: c.get("levels") for c in ours.document["columns"]}
    assert levels["sex"] == ["F", "M"]  # the unused category "X" is dropped, as from a file
    assert levels["smoker"] == ["False", "True"]
    kinds = {c["name"]: c["kind"] for c in ours.document["columns"]}
    assert kinds == {"age": "numeric", "income": "numeric", "sex": "categorical",
                     "region": "categorical", "smoker": "categorical"}


def test_missing_values_are_missing(tables):
    conf, reps, _ = tables
    with_missing = conf.copy()
    with_missing.loc[0:9, "sex"] = None
    with_missing.loc[10:19, "age"] = np.nan
    as_na = typed(with_missing)
    assert as_na["age"].isna().sum() == 10 and as_na["sex"].isna().sum() == 10
    a = synthaudit.evaluate(as_na, {"c": reps[0]}, metrics="column_summaries").table
    b = synthaudit.evaluate(with_missing, {"c": reps[0]}, metrics="column_summaries").table
    pd.testing.assert_frame_equal(a, b)
    missing = a[(a.candidate == "c") & (a.statistic == "conf_missing") & (a.scope == "age")]
    assert missing["value"].tolist() == [10]


def test_float64_columns_are_read_from_the_dataframe_buffer(tables):
    conf = tables[0]
    name, values = _columns.column(conf["income"], "income", "confidential")
    assert np.shares_memory(values, conf["income"].to_numpy())
    assert values.dtype == np.float64


def test_results_object(tables, tmp_path):
    conf, reps, hold = tables
    extra = reps[0].assign(note="x")
    results = synthaudit.evaluate(conf, {"c": [extra, reps[1]]}, hold, **FAST)
    table = results.table
    assert list(table.columns) == ["candidate", "replicate", "metric", "statistic", "scope",
                                   "value"]
    assert [str(t) for t in table.dtypes] == ["object"] * 5 + ["float64"]
    assert set(table[table.candidate == "c"]["replicate"]) == {"1", "2", "mean"}
    assert any("columns not in the confidential data are ignored: note" in w
               for w in results.warnings)
    assert set(results.verdict) >= {"recommended", "candidates"}
    assert "Headlines" in results.summary() and "c" in repr(results)
    assert results.markdown().startswith("#")
    results.to_json(tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["schema"] == "synthaudit/1"
    results.report(tmp_path / "report.html")
    assert (tmp_path / "report.html").stat().st_size > 100_000  # the inlined Vega libraries


def test_same_values_for_one_and_two_threads(tables):
    conf, reps, hold = tables
    options = dict(metrics="propensity_logistic,distance_to_closest_record,correlation_fit",
                   seed=9)
    one = synthaudit.evaluate(conf, {"c": reps}, hold, threads=1, **options).table
    two = synthaudit.evaluate(conf, {"c": reps}, hold, threads=2, **options).table
    pd.testing.assert_frame_equal(one, two)


def test_progress_lines_and_errors_raised_in_the_callback(tables):
    conf, reps, _ = tables
    lines = []
    synthaudit.evaluate(conf, {"c": reps[0]}, metrics="ks_distance", progress=lines.append)
    assert any("ks_distance" in line for line in lines)

    def stop(line):
        raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        synthaudit.evaluate(conf, {"c": reps[0]}, metrics="ks_distance", progress=stop)


def test_registry():
    metrics = synthaudit.list_metrics()
    assert list(metrics.columns) == ["name", "family", "granularity", "summary"]
    assert "ks_distance" in set(metrics["name"])
    described = synthaudit.describe("ks_distance")
    assert described["name"] == "ks_distance"
    assert str(described).startswith("ks_distance (general")
    assert described["references"]


def test_docstring_lists_every_metric_and_parameter():
    doc = synthaudit.evaluate.__doc__
    registry = [synthaudit.describe(name) for name in synthaudit.list_metrics()["name"]]
    for metric in registry:
        assert f"    {metric['name']} [" in doc
        for parameter in metric["parameters"]:
            assert f"        {parameter['name']} (" in doc


@pytest.mark.parametrize("flags, keywords", [
    (["--metrics", "nope"], dict(metrics="nope")),
    (["--param", "ks_distance.pvalue=maybe"], dict(params={"ks_distance": {"pvalue": "maybe"}})),
    (["--param", "ks_distance.nope=1"], dict(params={"ks_distance": {"nope": 1}})),
    (["--analysis", "lm: y ~ "], dict(analyses="lm: y ~ ")),
    (["--keys", "sex"], dict(keys="sex")),
])
def test_bad_options_have_the_command_line_message(cli, data_dir, tmp_path, flags, keywords):
    conf = data_dir / "sd2011" / "train.csv"
    syn = data_dir / "sd2011" / "train_syn.csv"
    done = run_cli(cli, "evaluate", "--quiet", "--confidential", conf, "--synthetic",
                   f"cart={syn}", "--out", tmp_path / "out", *flags, check=False)
    assert done.returncode == 2
    cli_message = done.stderr.strip().removeprefix("synthaudit: error: ")
    with pytest.raises(ValueError) as raised:
        synthaudit.evaluate(pd.read_csv(conf), {"cart": pd.read_csv(syn)}, **keywords)
    # The package names itself where the command line says "command line" or a flag.
    ours = str(raised.value).replace("synthaudit.evaluate: keys:", "--keys:")
    assert ours.replace("synthaudit.evaluate", "command line") == cli_message
    assert isinstance(raised.value, synthaudit.InputError)


def test_bad_data(tables, tmp_path):
    conf, reps, _ = tables
    with pytest.raises(ValueError, match=r"^synthetic 'c' replicate 1: column 'region' of the "
                                         r"confidential data is missing"):
        synthaudit.evaluate(conf, {"c": reps[0].drop(columns="region")})
    infinite = conf.copy()
    infinite.loc[2, "income"] = np.inf
    with pytest.raises(ValueError, match=r"^confidential: row 3, column 'income': the value is "
                                         r"infinite"):
        synthaudit.evaluate(infinite, {"c": reps[0]})
    clash = reps[0].assign(age=reps[0]["age"].map(str))
    with pytest.raises(ValueError, match=r"column 'age' is categorical here but numeric in the "
                                         r"confidential data"):
        synthaudit.evaluate(conf, {"c": clash})
    with pytest.raises(ValueError, match=r"column 'when' has dtype datetime64"):
        synthaudit.evaluate(conf.assign(when=pd.Timestamp("2020-01-01")), {"c": reps[0]})
    with pytest.raises(ValueError, match=r"'holdout'"):
        synthaudit.evaluate(conf, {"holdout": reps[0]})
    with pytest.raises(ValueError, match=r"confidential: the table has no rows"):
        synthaudit.evaluate(conf.iloc[:0], {"c": reps[0]})
    with pytest.raises(ValueError, match=r"seed: '-1': a seed is a non-negative integer"):
        synthaudit.evaluate(conf, {"c": reps[0]}, seed=-1)
    with pytest.raises(TypeError, match=r"expected a pandas DataFrame"):
        synthaudit.evaluate(conf.to_dict(), {"c": reps[0]})
    with pytest.raises(TypeError, match=r"synthetic: expected a dict"):
        synthaudit.evaluate(conf, reps[0])
    results = synthaudit.evaluate(conf, {"c": reps[0]}, metrics="ks_distance")
    with pytest.raises(ValueError, match=str(tmp_path / "missing")):
        results.report(tmp_path / "missing" / "report.html")
    (tmp_path / "not.json").write_text("{}")
    with pytest.raises(ValueError, match="not a results document"):
        synthaudit.load_results(tmp_path / "not.json")


def test_spec_column_kinds_apply(tables, tmp_path):
    conf, reps, _ = tables
    spec = tmp_path / "spec.yaml"
    spec.write_text("confidential: unused.csv\ncandidates:\n  - name: c\n    replicates: [u.csv]\n"
                    "columns:\n  age: categorical\n  code: numeric\nmetrics: [column_summaries]\n")
    as_text = conf.assign(code=["7"] * len(conf))
    results = synthaudit.evaluate(as_text, {"c": reps[0].assign(code=["8"] * len(reps[0]))},
                                  spec=spec)
    kinds = {c["name"]: c["kind"] for c in results.document["columns"]}
    assert kinds["age"] == "categorical" and kinds["code"] == "numeric"
    bad = reps[0].assign(code=["8"] * (len(reps[0]) - 1) + ["eight"])
    with pytest.raises(ValueError, match=r"^synthetic 'c' replicate 1: row 300, column 'code': "
                                         r"'eight' is not a number"):
        synthaudit.evaluate(as_text, {"c": bad}, spec=spec)


def test_a_signal_stops_a_long_evaluation():
    """Ctrl-C works while the library runs: a signal handler's exception (here SIGALRM's, as
    KeyboardInterrupt is SIGINT's) ends the evaluation at the next metric run."""
    import signal

    class Stopped(Exception):
        pass

    def handler(signum, frame):
        raise Stopped()

    conf, reps = people(1500, 1), [people(1500, 2), people(1500, 3)]
    # Counted in progress lines, not seconds, so that a loaded machine cannot fail the test: the
    # alarm is set when the first metric run starts (reading the tables may take longer).
    stopped_lines, whole_lines = [], []

    def progress(line):
        if not stopped_lines:
            signal.setitimer(signal.ITIMER_REAL, 0.1)
        stopped_lines.append(line)

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        with pytest.raises(Stopped):
            synthaudit.evaluate(conf, {"c": reps}, metrics="all", progress=progress)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    synthaudit.evaluate(conf, {"c": reps}, metrics="all", progress=whole_lines.append)
    # Stopped before the last metric run, not only after the evaluation returned.
    assert 0 < len(stopped_lines) < len(whole_lines)


def test_call_parameters_win_over_the_spec_one_by_one(tables, tmp_path):
    conf, reps, _ = tables
    spec = tmp_path / "spec.yaml"
    spec.write_text("confidential: unused.csv\ncandidates:\n  - name: c\n    replicates: [u.csv]\n"
                    "metrics: [ks_distance]\nparameters:\n  ks_distance: {pvalue: true}\n")
    results = synthaudit.evaluate(conf, {"c": reps[0]}, spec=spec,
                                  params={"ks_distance": {"plots": False}})
    parameters = next(m for m in results.document["metrics"]
                      if m["name"] == "ks_distance")["params"]
    assert parameters["pvalue"] is True and parameters["plots"] is False
