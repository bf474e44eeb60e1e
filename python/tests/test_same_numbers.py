"""The package and the command line give identical values on the same data: real survey rows
(tests/data/sd2011) with categoricals, missing values (NA and the missing code -8) and m = 3
replicates, every metric, compared value by value (results.tsv has 17 significant digits, so a
double survives the file exactly)."""

import json
import math

import numpy as np
import pandas as pd
import pytest

import synthaudit
from conftest import read_results_tsv, run_cli

# Small parameters keep every metric quick; they are the same for both sides.
SPEC = """\
confidential: conf.csv
holdout: holdout.csv
candidates:
  - name: cart
    replicates: [syn_1.csv, syn_2.csv, syn_3.csv]
  - name: other
    replicates: [other.csv]
missing_codes:
  income: [-8]
metrics: [all]
parameters:
  propensity_boosted_trees: {rounds: 10, xgboost_threads: 1}
disclosure:
  - keys: [sex, age, edu, marital]
    targets: [smoke, ls]
analyses:
  - lm: income ~ age + factor(sex)
  - mean: income
  - proportion: smoke
seed: 11
baseline_draws: 2
"""


def _lines(path, start, stop):
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return lines[0] + "".join(lines[1 + start:1 + stop])


@pytest.fixture(scope="module")
def survey(tmp_path_factory, data_dir):
    """Files cut from the real survey: 600 confidential rows, three synthetic replicates of 600
    rows, one more candidate and a 250-row holdout."""
    folder = tmp_path_factory.mktemp("survey")
    sd = data_dir / "sd2011"
    (folder / "conf.csv").write_text(_lines(sd / "train.csv", 0, 600), encoding="utf-8")
    for r in range(3):
        (folder / f"syn_{r + 1}.csv").write_text(
            _lines(sd / "train_syn.csv", 600 * r, 600 * (r + 1)), encoding="utf-8")
    (folder / "other.csv").write_text(_lines(sd / "syn.csv", 0, 500), encoding="utf-8")
    (folder / "holdout.csv").write_text(_lines(sd / "holdout.csv", 0, 250), encoding="utf-8")
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    return folder


def frames(folder):
    """The files as a pandas user holds them, with a mix of dtypes: category (sex, edu),
    object (marital), string (ls), nullable Int64 (age), float64 with NaN (income)."""
    def read(name):
        frame = pd.read_csv(folder / name)
        frame["sex"] = frame["sex"].astype("category")
        frame["edu"] = frame["edu"].astype("category")
        frame["ls"] = frame["ls"].astype("string")
        frame["age"] = frame["age"].astype("Int64")
        return frame
    return {
        "confidential": read("conf.csv"),
        "synthetic": {"cart": [read(f"syn_{r}.csv") for r in (1, 2, 3)],
                      "other": read("other.csv")},
        "holdout": read("holdout.csv"),
    }


def assert_same_table(ours, theirs):
    assert list(ours.columns) == list(theirs.columns)
    assert len(ours) == len(theirs)
    for name in ["candidate", "replicate", "metric", "statistic", "scope"]:
        assert ours[name].tolist() == theirs[name].tolist(), name
    a, b = ours["value"].to_numpy(), theirs["value"].to_numpy()
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    assert same.all(), ours[~same].assign(cli=b[~same]).head(20).to_string()


def test_spec_file_every_metric_m3(survey, cli):
    out = survey / "cli_spec"
    run_cli(cli, "evaluate", "--quiet", "--spec", survey / "spec.yaml", "--threads", 2,
            "--out", out)
    data = frames(survey)
    results = synthaudit.evaluate(data["confidential"], data["synthetic"], data["holdout"],
                                  spec=survey / "spec.yaml", threads=2)
    cli_table = read_results_tsv(out / "results.tsv")
    assert_same_table(results.table, cli_table)
    assert set(cli_table["replicate"]) >= {"1", "2", "3", "mean"}
    cli_document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results.verdict == cli_document["verdict"]
    # The same warnings, each naming its table by role here and by file there.
    assert len(results.warnings) == len(cli_document["warnings"]) + sum(
        len(r.get("warnings", [])) for m in cli_document["metrics"]
        for c in m.get("candidates", []) for r in c.get("replicates", []) + [c.get("combined", {})])
    skipped = [m["name"] for m in results.document["metrics"] if "skipped" in m]
    assert skipped == [m["name"] for m in cli_document["metrics"] if "skipped" in m]


def test_keywords_as_flags(survey, cli):
    """The keyword arguments do what the command line's flags do."""
    out = survey / "cli_flags"
    run_cli(cli, "evaluate", "--quiet", "--confidential", survey / "conf.csv",
            "--synthetic", f"cart={survey / 'syn_1.csv'},{survey / 'syn_2.csv'},"
                           f"{survey / 'syn_3.csv'}",
            "--holdout", survey / "holdout.csv", "--keys", "sex,age,edu", "--targets", "smoke",
            "--analysis", "lm: age ~ factor(sex) + factor(smoke)",
            "--metrics", "general,key-disclosure,distance_to_closest_record",
            "--param", "ks_distance.pvalue=true", "--seed", 5, "--threads", 1, "--out", out)
    data = frames(survey)
    results = synthaudit.evaluate(
        data["confidential"], {"cart": data["synthetic"]["cart"]}, data["holdout"],
        keys=["sex", "age", "edu"], targets="smoke",
        analyses="lm: age ~ factor(sex) + factor(smoke)",
        metrics=["general", "key-disclosure", "distance_to_closest_record"],
        params={"ks_distance": {"pvalue": True}}, seed=5, threads=1)
    assert_same_table(results.table, read_results_tsv(out / "results.tsv"))


def test_written_files_match_the_command_line(survey, cli, tmp_path):
    out = survey / "cli_small"
    run_cli(cli, "evaluate", "--quiet", "--confidential", survey / "conf.csv",
            "--synthetic", f"cart={survey / 'syn_1.csv'}", "--metrics", "ks_distance",
            "--out", out)
    data = frames(survey)
    results = synthaudit.evaluate(data["confidential"], {"cart": data["synthetic"]["cart"][0]},
                                  metrics="ks_distance")
    results.to_tsv(tmp_path / "results.tsv")
    assert (tmp_path / "results.tsv").read_text() == (out / "results.tsv").read_text()
    results.to_json(tmp_path / "results.json")
    ours = json.loads((tmp_path / "results.json").read_text())
    theirs = json.loads((out / "results.json").read_text())
    assert ours["metrics"][0]["candidates"][0]["replicates"][0]["values"] == \
        theirs["metrics"][0]["candidates"][0]["replicates"][0]["values"]
    results.report(tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "ks_distance" in html
    again = synthaudit.load_results(tmp_path / "results.json")
    assert_same_table(again.table, results.table)
    assert not math.isnan(results.table["value"].iloc[0])


WEIGHTED_SUBGROUPS = dict(metrics=["ks_distance", "correlation_fit", "mean_in_confidence_interval"],
                          params={"correlation_fit": {"contour_pairs": 0}}, seed=3, threads=1)


def test_weights_and_subgroups_as_flags_and_as_spec(cli, data_dir, tmp_path):
    """weights=/by=/by_min_rows= do what --weights/--by/--by-min-rows do, and a spec's
    weights:/by:/by_min_rows: apply to a call that names the spec (on the weighted api survey:
    stype M has 48 synthetic rows, so it is suppressed below 49)."""
    conf_path = data_dir / "survey" / "apistrat.csv"
    syn_path = data_dir / "survey" / "apistrat_syn.csv"
    out = tmp_path / "cli"
    run_cli(cli, "evaluate", "--quiet", "--confidential", conf_path, "--synthetic",
            f"c={syn_path}", "--weights", "pw", "--by", "stype", "--by-min-rows", 49,
            "--metrics", ",".join(WEIGHTED_SUBGROUPS["metrics"]),
            "--param", "correlation_fit.contour_pairs=0", "--seed", 3, "--threads", 1,
            "--out", out)
    cli_table = read_results_tsv(out / "results.tsv")
    conf, syn = pd.read_csv(conf_path), pd.read_csv(syn_path)
    results = synthaudit.evaluate(conf, {"c": syn}, weights="pw", by=["stype"], by_min_rows=49,
                                  **WEIGHTED_SUBGROUPS)
    assert_same_table(results.table, cli_table)
    scopes = results.table["scope"]
    assert scopes.str.startswith("by:stype=E;").any() and scopes.str.startswith("by:stype=H;").any()
    suppressed = results.table[results.table["statistic"] == "suppressed"]
    assert set(suppressed["scope"].str.split(";").str[0]) == {"by:stype=M"}
    assert not scopes.str.contains("pw").any()  # the weight column is a design column

    spec = tmp_path / "spec.yaml"
    spec.write_text("confidential: unused.csv\ncandidates:\n  - name: c\n    replicates: [u.csv]\n"
                    "weights: pw\nby: [stype]\nby_min_rows: 49\n", encoding="utf-8")
    from_spec = synthaudit.evaluate(conf, {"c": syn}, spec=spec, **WEIGHTED_SUBGROUPS)
    assert_same_table(from_spec.table, cli_table)
    # Without the subgroups and weights the values differ (so the comparisons above can fail).
    plain = synthaudit.evaluate(conf, {"c": syn}, **WEIGHTED_SUBGROUPS)
    assert not plain.table["scope"].str.startswith("by:").any()

    def pearson(table):
        row = table[(table["statistic"] == "pearson_confidential")
                    & (table["scope"] == "api00:enroll")]
        return float(row["value"].iloc[0])
    assert abs(pearson(results.table) - pearson(plain.table)) > 1e-3


def test_survey_design_as_flags_and_as_keywords(cli, data_dir, tmp_path):
    """strata=/clusters=/nest= do what --strata/--clusters/--nest do (NHANES, R survey's data):
    the same table, design effects included, and standard errors that differ from the weights
    alone (so the comparison can fail)."""
    conf_path = data_dir / "survey" / "nhanes.csv"
    syn_path = data_dir / "survey" / "nhanes_syn.csv"
    common = dict(metrics=["analysis_inference_comparison", "mean_in_confidence_interval"],
                  analyses=["chol=mean: HI_CHOL"], seed=3, threads=1,
                  policy={"require_default_checks": False})
    out = tmp_path / "cli"
    run_cli(cli, "evaluate", "--quiet", "--confidential", conf_path, "--synthetic",
            f"c={syn_path}", "--weights", "WTMEC2YR", "--strata", "SDMVSTRA", "--clusters",
            "SDMVPSU", "--nest", "--metrics", ",".join(common["metrics"]), "--analysis",
            "chol=mean: HI_CHOL", "--seed", 3, "--threads", 1, "--out", out)
    cli_table = read_results_tsv(out / "results.tsv")
    conf, syn = pd.read_csv(conf_path), pd.read_csv(syn_path)
    designed = synthaudit.evaluate(conf, {"c": syn}, weights="WTMEC2YR", strata="SDMVSTRA",
                                   clusters=["SDMVPSU"], nest=True, **common)
    assert_same_table(designed.table, cli_table)

    def se(table):
        row = table[(table["statistic"] == "confidential_se") & (table["scope"] == "chol:HI_CHOL")
                    & (table["candidate"] == "c")]
        return float(row["value"].iloc[0])
    weights_only = synthaudit.evaluate(conf, {"c": syn}, weights="WTMEC2YR", **common)
    assert abs(se(designed.table) / se(weights_only.table) - 1) > 0.05
    assert not designed.table["scope"].isin(["SDMVSTRA", "SDMVPSU"]).any()


def test_bad_subgroup_options(data_dir):
    conf = pd.read_csv(data_dir / "survey" / "apistrat.csv")
    syn = pd.read_csv(data_dir / "survey" / "apistrat_syn.csv")
    with pytest.raises(synthaudit.InputError, match="nope"):
        synthaudit.evaluate(conf, {"c": syn}, by="nope", metrics="ks_distance")
    with pytest.raises(synthaudit.InputError, match="by_min_rows: must be between 1 and 1000000000"):
        synthaudit.evaluate(conf, {"c": syn}, by="stype", by_min_rows=0, metrics="ks_distance")
    with pytest.raises(synthaudit.InputError, match="nope"):
        synthaudit.evaluate(conf, {"c": syn}, weights="nope", metrics="ks_distance")
    with pytest.raises(synthaudit.InputError, match="nope"):
        synthaudit.evaluate(conf, {"c": syn}, household="nope", metrics="ks_distance")
    with pytest.raises(synthaudit.InputError, match="weights: expected a text value"):
        synthaudit.evaluate(conf, {"c": syn}, weights=["pw"], metrics="ks_distance")
    with pytest.raises(synthaudit.InputError, match="'3'"):
        synthaudit.evaluate(conf, {"c": syn}, by=3, metrics="ks_distance")
    with pytest.raises(synthaudit.InputError, match="by_min_rows: '2.5' is not a whole number"):
        synthaudit.evaluate(conf, {"c": syn}, by_min_rows=2.5, metrics="ks_distance")
