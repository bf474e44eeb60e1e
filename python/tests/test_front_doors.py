"""The Python door gives what the command line gives: the same options (its signature is the
option table's), the same protections (a spec's safe_output withholds what the command line
withholds, checked on real survey data), the same missing values (the text NA)."""

import inspect
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthaudit
from conftest import run_cli

SCAN = Path(__file__).resolve().parents[2] / "tests" / "cli" / "safe_output_scan.py"


def test_signature_is_the_option_table(cli):
    table = json.loads(run_cli(cli, "options", "--json").stdout)["options"]
    expected = [o["binding_argument"] for o in table if o["binding_argument"]]
    parameters = inspect.signature(synthaudit.evaluate).parameters
    keyword_only = [name for name, p in parameters.items()
                    if p.kind is inspect.Parameter.KEYWORD_ONLY and name != "progress"]
    assert keyword_only == expected
    assert all(parameters[name].default is None for name in expected)
    for option in table:
        if option["binding_argument"]:
            assert f"    {option['binding_argument']} (" in synthaudit.evaluate.__doc__
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'sead' \(did you mean "
                                        r"'seed'\?\)"):
        synthaudit.evaluate(pd.DataFrame({"x": [1.0]}), {"c": pd.DataFrame({"x": [1.0]})},
                            sead=1)


def sd2011(data_dir):
    folder = data_dir / "sd2011"
    # pandas' own missing spellings include "NA" and "": as the command line reads the files.
    return (pd.read_csv(folder / "train.csv"), pd.read_csv(folder / "train_syn.csv"),
            pd.read_csv(folder / "holdout.csv"), folder)


def released_files(results, tmp_path, name):
    """What a run leaves to be released: results.json, results.tsv, report.html, the summary
    and the Markdown report."""
    out = tmp_path / name
    out.mkdir()
    results.to_json(out / "results.json")
    results.to_tsv(out / "results.tsv")
    results.report(out / "report.html")
    (out / "summary.txt").write_text(results.summary(), encoding="utf-8")
    (out / "report.md").write_text(results.markdown(), encoding="utf-8")
    return [str(p) for p in sorted(out.iterdir())]


def scan(cli, tmp_path, folder, files):
    registry = tmp_path / "registry.json"
    if not registry.exists():
        registry.write_text(run_cli(cli, "list-metrics", "--json").stdout)
    done = subprocess.run(
        [sys.executable, str(SCAN), "10", f"{folder / 'train.csv'},{folder / 'holdout.csv'}",
         str(registry), *files], capture_output=True, text=True)
    return done.returncode, done.stdout


SPEC = """confidential: unused.csv
candidates: [{name: cart, replicates: [unused.csv]}]
missing_codes: {income: -8}
disclosure: [{keys: [sex, age, edu, marital], targets: [smoke]}]
metrics: [column_summaries, k_anonymity, distance_to_closest_record, correct_attribution_probability]
baseline_draws: 1
"""


def test_a_spec_files_safe_output_is_honoured(cli, data_dir, tmp_path):
    conf, syn, holdout, folder = sd2011(data_dir)
    open_spec = tmp_path / "open.yaml"
    open_spec.write_text(SPEC)
    safe_spec = tmp_path / "safe.yaml"
    safe_spec.write_text(SPEC + "safe_output: true\nlimits: {field_bytes: 2M}\n")

    unchecked = synthaudit.evaluate(conf, {"cart": syn}, holdout, spec=open_spec)
    code, findings = scan(cli, tmp_path, folder, released_files(unchecked, tmp_path, "open"))
    assert code == 1 and "unique value" in findings  # so the scan below can fail

    checked = synthaudit.evaluate(conf, {"cart": syn}, holdout, spec=safe_spec)
    code, findings = scan(cli, tmp_path, folder, released_files(checked, tmp_path, "safe"))
    assert code == 0, findings
    assert checked.document["spec"]["safe_output"] == {"threshold": 10}
    assert checked.document["output_check"]["withheld"]

    # The same spec on the command line withholds the same: the results tables are equal.
    out = tmp_path / "cli"
    for name in ("train.csv", "train_syn.csv", "holdout.csv"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    safe_files = tmp_path / "files.yaml"
    safe_files.write_text(
        safe_spec.read_text().replace("confidential: unused.csv", "confidential: train.csv")
        .replace("replicates: [unused.csv]", "replicates: [train_syn.csv]")
        + "holdout: holdout.csv\n")
    run_cli(cli, "evaluate", "--spec", safe_files, "--out", out, "--quiet")
    from conftest import read_results_tsv
    cli_table = read_results_tsv(out / "results.tsv")
    pd.testing.assert_frame_equal(checked.table.reset_index(drop=True), cli_table,
                                  check_exact=False, rtol=1e-12, atol=0)
    assert checked.verdict == json.loads((out / "results.json").read_text())["verdict"]


def test_a_call_cannot_turn_a_spec_files_output_checking_off(data_dir, tmp_path):
    conf, syn, holdout, _ = sd2011(data_dir)
    spec = tmp_path / "safe.yaml"
    spec.write_text(SPEC + "safe_output: true\n")
    with pytest.raises(synthaudit.InputError, match="may raise the threshold but not turn"):
        synthaudit.evaluate(conf, {"cart": syn}, holdout, spec=spec, safe_output=False)


def test_the_text_NA_is_missing_as_in_a_file(cli, tmp_path):
    rng = np.random.default_rng(5)
    levels = np.array(["a", "b", "NA"], dtype=object)
    conf = pd.DataFrame({"g": levels[rng.integers(0, 3, 300)], "x": rng.normal(size=300)})
    syn = pd.DataFrame({"g": levels[rng.integers(0, 3, 300)], "x": rng.normal(size=300)})
    as_text = synthaudit.evaluate(conf, {"s": syn}, metrics="column_summaries,total_variation")
    as_none = synthaudit.evaluate(conf.replace({"g": {"NA": None}}),
                                  {"s": syn.replace({"g": {"NA": None}})},
                                  metrics="column_summaries,total_variation")
    pd.testing.assert_frame_equal(as_text.table, as_none.table)
    conf.to_csv(tmp_path / "conf.csv", index=False)
    syn.to_csv(tmp_path / "syn.csv", index=False)
    run_cli(cli, "evaluate", "--confidential", tmp_path / "conf.csv", "--synthetic",
            f"s={tmp_path / 'syn.csv'}", "--metrics", "column_summaries,total_variation",
            "--out", tmp_path / "out", "--quiet")
    from conftest import read_results_tsv
    pd.testing.assert_frame_equal(as_text.table.reset_index(drop=True),
                                  read_results_tsv(tmp_path / "out" / "results.tsv"),
                                  check_exact=False, rtol=1e-12, atol=0)
    # na_strings changes it, as --na does.
    kept = synthaudit.evaluate(conf, {"s": syn}, metrics="column_summaries", na_strings=[""])
    assert not kept.table.equals(as_text.table)


def test_the_policys_utility_floor_reaches_the_verdict_as_on_the_command_line(cli, data_dir,
                                                                                tmp_path):
    """A file whose columns are drawn each on its own (independent marginals) is safe but keeps
    no relationship: the default policy fails it as not fit for use, here as on the command line,
    and a policy mapping turns the floor off."""
    conf, syn, holdout, folder = sd2011(data_dir)
    rng = np.random.default_rng(11)
    indep = pd.DataFrame({c: conf[c].to_numpy()[rng.integers(0, len(conf), len(syn))]
                          for c in conf.columns})
    common = dict(metrics="general,propensity,distance_to_closest_record",
                  missing_codes={"income": -8}, threads=2)
    judged = synthaudit.evaluate(conf, {"cart": syn, "indep": indep}, holdout,
                                 policy={"require_default_checks": False}, **common)
    status = {c["name"]: c for c in judged.verdict["candidates"]}
    floor = {name: next(k for k in c["checks"] if k["criterion"] == "utility_floor")
             for name, c in status.items()}
    assert status["indep"]["status"] == "fail"
    assert floor["indep"]["status"] == "fail" and floor["indep"]["value"] < 0.25
    assert floor["cart"]["status"] == "pass" and floor["cart"]["value"] > 0.5
    assert judged.verdict["recommended"] != "indep"
    # Without the policy's require_default_checks: false the risk families left out keep every
    # candidate from passing, and say so.
    strict = synthaudit.evaluate(conf, {"cart": syn, "indep": indep}, holdout, **common)
    assert all(c["status"] != "pass" for c in strict.verdict["candidates"])
    assert {"key-disclosure", "attack-disclosure", "sdc-risk"} <= {
        check["family"] for check in strict.verdict["not_run"]}
    assert strict.verdict["policy"]["require_default_checks"] is True
    # The same on the command line.
    indep.to_csv(tmp_path / "indep.csv", index=False)
    policy = tmp_path / "policy.yaml"
    policy.write_text("require_default_checks: false\n")
    run_cli(cli, "evaluate", "--confidential", folder / "train.csv", "--synthetic",
            f"cart={folder / 'train_syn.csv'}", "--synthetic", f"indep={tmp_path / 'indep.csv'}",
            "--holdout", folder / "holdout.csv", "--missing-codes", "income=-8", "--metrics",
            common["metrics"], "--threads", "2", "--policy", policy, "--out", tmp_path / "out",
            "--quiet")
    on_the_command_line = json.loads((tmp_path / "out" / "results.json").read_text())["verdict"]
    assert judged.verdict["candidates"] == on_the_command_line["candidates"]
    off = synthaudit.evaluate(conf, {"cart": syn, "indep": indep}, holdout,
                              policy={"require_default_checks": False, "utility_floor": False},
                              **common)
    assert all(k["criterion"] != "utility_floor"
               for c in off.verdict["candidates"] for k in c["checks"])
