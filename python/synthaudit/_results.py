"""The results of one evaluation: the "synthaudit/1" document the command line writes to
results.json, with the views a Python session wants."""

import json

RESULT_COLUMNS = ["candidate", "replicate", "metric", "statistic", "scope", "value"]


class Results:
    """What ``evaluate()`` returns.

    table: the rows of results.tsv as a DataFrame, columns candidate, replicate, metric,
        statistic, scope (text, dtype object) and value (float64, NaN where results.tsv has NA).
        replicate is text as in the file ("1".."m", "mean", "combined"); ``pd.read_csv`` of
        results.tsv turns it into integers only when every row is numbered.
    verdict: the release verdict (a dict: recommended candidate, each candidate's status
        pass/review/fail and reasons), or None.
    warnings: every warning, as text: those about the data first, then each metric's, as
        "metric, candidate [replicate r]: text".
    document: the whole results document as a dict (results.json).
    """

    def __init__(self, core_document):
        self._core = core_document
        self._document = None
        self._table = None

    @property
    def document(self):
        if self._document is None:
            self._document = json.loads(self._core.text())
        return self._document

    @property
    def table(self):
        if self._table is None:
            import pandas as pd
            columns = self._core.result_columns()
            self._table = pd.DataFrame(
                {name: (values if name == "value" else pd.Series(values, dtype=object))
                 for name, values in zip(RESULT_COLUMNS, columns)},
                columns=RESULT_COLUMNS)
        return self._table.copy()

    @property
    def verdict(self):
        return self.document.get("verdict")

    @property
    def warnings(self):
        found = [str(w) for w in self.document.get("warnings", [])]
        for metric in self.document.get("metrics", []):
            for candidate in metric.get("candidates", []):
                where = f"{metric['name']}, {candidate['name']}"
                for replicate in candidate.get("replicates", []):
                    found.extend(f"{where} replicate {replicate['replicate']}: {w}"
                                 for w in replicate.get("warnings", []))
                found.extend(f"{where}: {w}"
                             for w in candidate.get("combined", {}).get("warnings", []))
        return found

    def to_json(self, path):
        """Writes results.json (the document exactly as ``synthaudit evaluate`` writes it)."""
        self._core.write_json(str(path))

    def to_tsv(self, path):
        """Writes results.tsv as the command line does."""
        self._core.write_tsv(str(path))

    def report(self, path):
        """Writes the self-contained HTML report (report.html of ``synthaudit evaluate``)."""
        self._core.write_html(str(path))

    def markdown(self):
        """The Markdown report (``synthaudit report --format md``)."""
        return self._core.markdown()

    def summary(self):
        """The headline summary ``synthaudit evaluate`` prints: the verdict and the headlines
        beside their baselines."""
        return self._core.summary()

    def __str__(self):
        return self.summary()

    def __repr__(self):
        candidates = [c["name"] for c in self.document.get("candidates", [])]
        verdict = self.verdict or {}
        recommended = verdict.get("recommended")
        return (f"<synthaudit.Results: {len(candidates)} candidate(s) {candidates}, "
                f"{len(self.document.get('metrics', []))} metric(s), recommended "
                f"{recommended!r}>")
