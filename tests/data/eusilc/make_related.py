#!/usr/bin/python3
"""Related-tables files from eusilc.csv.gz (households.csv.gz and persons.csv.gz per folder), chosen by
household number so that they need no random draws: `conf` holds the households whose db030 is a
multiple of 3 (2,000 households), `cand` those one above a multiple of 3, made imperfect the way
a synthesiser can be: the first 2 % of its households repeated under new numbers with no persons
(childless), every 33rd person moved to a household number that does not exist (orphans), and
the first 10 households' first person given the household number of the next household (so the
household sizes move). Run: /usr/bin/python3 make_related.py (writes related/)."""
from pathlib import Path

import pandas as pd

here = Path(__file__).parent
persons = pd.read_csv(here / "eusilc.csv.gz")
persons["pid"] = range(1, len(persons) + 1)
household_columns = ["hsize", "db040", "hy040n", "hy050n", "hy070n", "hy090n", "eqSS", "eqIncome"]
person_columns = ["pid", "db030", "age", "rb090", "pl030", "pb220a", "py010n", "py050n",
                  "py090n", "py100n", "rb050"]


def tables(part):
    households = part.groupby("db030", as_index=False)[household_columns].first()
    return households, part[person_columns].copy()


conf_h, conf_p = tables(persons[persons["db030"] % 3 == 0])
cand_h, cand_p = tables(persons[persons["db030"] % 3 == 1])
childless = cand_h.head(round(0.02 * len(cand_h))).copy()
childless["db030"] += 900000
cand_h = pd.concat([cand_h, childless])
cand_p.loc[cand_p["pid"] % 33 == 0, "db030"] += 800000
first_ten = cand_h["db030"].head(11).tolist()
for this, following in zip(first_ten[:-1], first_ten[1:]):
    first = cand_p.index[cand_p["db030"] == this][0]
    cand_p.loc[first, "db030"] = following
for name, (h, p) in {"conf": (conf_h, conf_p), "cand": (cand_h, cand_p)}.items():
    (here / "related" / name).mkdir(parents=True, exist_ok=True)
    h.to_csv(here / "related" / name / "households.csv.gz", index=False,
             compression={"method": "gzip", "mtime": 0})
    p.to_csv(here / "related" / name / "persons.csv.gz", index=False,
             compression={"method": "gzip", "mtime": 0})
    print(name, len(h), "households,", len(p), "persons")
