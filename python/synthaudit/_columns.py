"""pandas columns as the library's columns: float64 numbers, or int32 codes with text levels.

A column's kind follows its dtype: numbers (NumPy integers and floats, pandas' nullable Int/Float
types) are numeric; ``category``, ``object``, ``string`` and booleans are categorical. A spec
file's ``columns:`` (or SDV metadata) can fix a column's kind as it does for files.
"""

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from ._synthaudit import InputError


def _level_text(value):
    """The text of one level: strings as they are, anything else as str() writes it (as
    DataFrame.to_csv does for integers, floats and booleans)."""
    return value if isinstance(value, str) else str(value)


def _coded(name, values):
    """Codes and levels of any column pandas can factorize; None, NaN and pd.NA are missing."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return (name, codes.astype(np.int32), [_level_text(u) for u in uniques])


def _numeric_from_text(series, name, label):
    """A text column declared numeric: every non-missing value must read as a number."""
    numbers = pd.to_numeric(series, errors="coerce")
    bad = numbers.isna() & series.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"{label}: row {row + 1}, column '{name}': '{series.iloc[row]}' is not a number "
            "(the column is numeric)")
    return (name, numbers.to_numpy(dtype=np.float64, na_value=np.nan))


def column(series, name, label, kind=None):
    """One column for the library. `kind` ('numeric' or 'categorical') overrides the dtype."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        if kind == "numeric":
            return _numeric_from_text(series.astype(object), name, label)
        codes = series.cat.codes.to_numpy().astype(np.int32, copy=False)
        return (name, codes, [_level_text(c) for c in dtype.categories])
    if ptypes.is_bool_dtype(dtype):
        return _coded(name, series)
    if ptypes.is_numeric_dtype(dtype) and not ptypes.is_complex_dtype(dtype):
        if kind == "categorical":
            return _coded(name, series)
        if isinstance(dtype, np.dtype) and dtype == np.float64:
            # The DataFrame's own buffer when it is contiguous (it is for a column of a block).
            return (name, np.ascontiguousarray(series.to_numpy()))
        return (name, series.to_numpy(dtype=np.float64, na_value=np.nan))
    if ptypes.is_object_dtype(dtype) or ptypes.is_string_dtype(dtype):
        if kind == "numeric":
            return _numeric_from_text(series, name, label)
        return _coded(name, series)
    raise InputError(
        f"{label}: column '{name}' has dtype {dtype}, which is neither numbers nor categories "
        "(convert it to numbers, text or category first)")


def table(frame, label, kinds):
    """The columns of one DataFrame, in its order (the row index is not used)."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{label}: expected a pandas DataFrame, got {type(frame).__name__}")
    columns = []
    for position, name in enumerate(frame.columns):
        if not isinstance(name, str):
            raise InputError(f"{label}: column names must be text; column {position + 1} is "
                             f"named {name!r}")
        columns.append(column(frame.iloc[:, position], name, label, kinds.get(name)))
    return columns
