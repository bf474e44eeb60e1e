"""Weighted total variation on the api data, computed independently with pandas (group sums of
the sampling weight pw over its total), for tests/unit/survey_test.cpp. Run with Debian's
/usr/bin/python3 from this folder; prints the values the test holds."""
import pandas as pd

conf = pd.read_csv("../../data/survey/apistrat.csv")
syn = pd.read_csv("../../data/survey/apistrat_syn.csv")
for column in ["stype", "sch_wide"]:
    p = conf.groupby(column).pw.sum() / conf.pw.sum()
    q = syn.groupby(column).pw.sum() / syn.pw.sum()
    q_unweighted = syn[column].value_counts(normalize=True)
    print(f"{column}\tweighted\t{0.5 * (p - q).abs().sum()!r}")
    print(f"{column}\tsynthetic_unweighted\t{0.5 * (p - q_unweighted).abs().sum()!r}")
