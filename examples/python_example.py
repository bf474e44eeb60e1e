import pandas as pd, synthaudit
conf, syn = (pd.read_csv(f"tests/data/sd2011/{name}.csv") for name in ("train", "train_syn"))
res = synthaudit.evaluate(conf, {"cart": syn}, keys="sex,age,edu,marital", targets="smoke",
                          metrics="general,key-disclosure", missing_codes={"income": [-8]})
print(res.table.head()); res.report("report.html")
