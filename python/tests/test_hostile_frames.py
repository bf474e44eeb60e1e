"""Hostile DataFrames (docs/limits.md): whatever a notebook passes, the package either evaluates
it or raises an exception with one line naming the table and the column — never a crash of the
interpreter, never a hang. The cases are the command line's hostile inputs that have a DataFrame
form, plus the ones only a DataFrame has (mixed-type object columns, NaN in text, non-text
column names). Each case runs in a child interpreter, so a crash is seen as a signal, not as the
end of the test session."""

import subprocess
import sys
import textwrap

import pytest

# Run in the child: `frame(...)` builds the confidential table; the synthetic one is its copy
# unless the case builds `syn` itself.
PRELUDE = textwrap.dedent("""
    import numpy as np, pandas as pd, synthaudit
    rng = np.random.default_rng(1)
    n = 200
    def base():
        return pd.DataFrame({"age": rng.integers(18, 80, n).astype(float),
                             "sex": np.where(rng.random(n) < 0.5, "F", "M").astype(object)})
""")

CASES = {
    # name: (code that sets conf and syn, what must happen: "ok" or an exception class name and
    # a phrase the message holds)
    "mixed types in an object column": (
        "conf = base(); conf['mixed'] = pd.Series([1, 'a', 2.5, None] * 50, dtype=object)\n"
        "syn = conf.copy()", ("ok", "")),
    "NaN and None in a text column": (
        "conf = base(); conf['region'] = pd.Series(['a', np.nan, None, 'b'] * 50, dtype=object)\n"
        "syn = conf.copy()", ("ok", "")),
    "a column of NaN only": (
        "conf = base(); conf['empty'] = np.nan\nsyn = conf.copy()", ("ok", "")),
    "infinite values": (
        "conf = base(); conf.loc[3, 'age'] = np.inf\nsyn = conf.copy()",
        ("InputError", "age")),
    "a column name that is not text": (
        "conf = base(); conf[7] = 1.0\nsyn = conf.copy()", ("InputError", "column names must be text")),
    "duplicate column names": (
        "conf = pd.concat([base(), base()[['age']]], axis=1)\nsyn = conf.copy()",
        ("InputError", "age")),
    "a datetime column": (
        "conf = base(); conf['when'] = pd.Timestamp('2020-01-01')\nsyn = conf.copy()",
        ("InputError", "when")),
    "complex numbers": (
        "conf = base(); conf['z'] = 1 + 2j\nsyn = conf.copy()", ("InputError", "z")),
    "no rows": (
        "conf = base().iloc[:0]\nsyn = base()", ("InputError", "")),
    "no columns": (
        "conf = pd.DataFrame(index=range(5))\nsyn = conf.copy()", ("InputError", "")),
    "a Series, not a DataFrame": (
        "conf = base()['age']\nsyn = base()", ("TypeError", "DataFrame")),
    "synthetic columns the confidential data lack": (
        "conf = base()\nsyn = base().rename(columns={'sex': 'gender'})", ("InputError", "sex")),
    "a huge text value": (
        "conf = base(); conf['note'] = 'x'; conf.loc[0, 'note'] = 'y' * (3 << 20)\nsyn = conf.copy()",
        ("InputError", "note")),
    "a hundred thousand categories": (
        "conf = pd.DataFrame({'id': [f'r{i}' for i in range(100000)], 'x': np.arange(100000.0)})\n"
        "syn = conf.copy()", ("ok", "")),
    "a line break and a NUL in a level": (
        "conf = base(); conf['odd'] = pd.Series(['a\\nb', 'c\\x00d'] * 100, dtype=object)\n"
        "syn = conf.copy()", ("ok", "")),
}


def run_case(code):
    script = PRELUDE + code + textwrap.dedent("""
        try:
            synthaudit.evaluate(conf, {"s": [syn]}, metrics="ks_distance,total_variation",
                                baseline_draws=0, null_draws=0)
            print("RESULT ok")
        except Exception as error:
            message = str(error)
            print("RESULT", type(error).__name__, len(message.splitlines()))
            print("MESSAGE", message.replace("\\n", "\\\\n"))
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_frame(name):
    code, (expected, phrase) = CASES[name]
    done = run_case(code)
    assert done.returncode == 0, f"the interpreter died ({done.returncode}): {done.stderr[-2000:]}"
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines()
                 if line.startswith(("RESULT", "MESSAGE")))
    result = lines.get("RESULT", "").split()
    assert result, done.stdout + done.stderr
    if expected == "ok":
        assert result == ["ok"], f"{result}: {lines.get('MESSAGE')}"
        return
    assert result[0] == expected, f"{result}: {lines.get('MESSAGE')}"
    assert result[1] == "1", f"a message of {result[1]} lines: {lines.get('MESSAGE')}"
    assert phrase in lines.get("MESSAGE", ""), lines.get("MESSAGE")
