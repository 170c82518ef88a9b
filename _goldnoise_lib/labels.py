"""Matching labels that are the same label written differently.

A label read from a CSV header is text (``"1"``), the same label in a ratings
column with a missing value is a float (``1.0``), and in an integer column it is
``np.int64(1)``. :func:`label_key` maps all of them to one key, and
:func:`match_labels` finds each value's position among some classes: exactly
first, then by key when the exact match fails (and the keys are unambiguous).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

# A whole number written as text: "2", "-3", "2.0" (not "02": a code, not a number).
_WHOLE = re.compile(r"(-?(?:0|[1-9][0-9]*))(?:\.0+)?")

__all__ = ["label_key", "labels_by_item", "match_labels"]


def label_key(value: Any) -> Any:
    """One key for ``1``, ``1.0``, ``"1"``, ``" 1 "`` and ``np.int64(1)``; text otherwise."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (ValueError, TypeError):
            pass
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        text = value.strip()
        whole = _WHOLE.fullmatch(text)
        return whole.group(1) if whole else text
    return str(value).strip()


def match_labels(values: Sequence[Any] | np.ndarray, classes: Sequence[Any]) -> np.ndarray:
    """Position of each value among ``classes`` (-1 where it is none of them).

    Exact matches first; values that match nothing exactly are matched by
    :func:`label_key` when the classes' keys are distinct.

    Examples
    --------
    >>> match_labels([1.0, 2.0, 3.0], ["1", "2"]).tolist()
    [0, 1, -1]
    >>> match_labels(["b", "a"], ["a", "b"]).tolist()
    [1, 0]
    """
    import pandas as pd

    index = pd.Index(list(classes))
    values = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    codes = np.asarray(index.get_indexer(values), dtype=np.intp) if index.is_unique else \
        np.full(len(values), -1, dtype=np.intp)
    missing = codes < 0
    if missing.any():
        keys = pd.Index([label_key(c) for c in classes])
        if keys.is_unique:
            alt = keys.get_indexer([label_key(v) for v in values[missing]])
            codes[missing] = alt
    return codes


def labels_by_item(mapping: Any, items: Any, categories: Sequence[Any], name: str, *,
                   allow_empty: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Known labels of some items as ``(positions among items, category codes)``.

    ``mapping`` is a pandas Series indexed by item id or a dict (missing values are
    dropped). One message per problem, naming the parameter ``name``: not a mapping,
    empty, repeated ids, ids not among ``items``, labels not among ``categories``
    (matched by :func:`match_labels`).
    """
    import pandas as pd

    if isinstance(mapping, dict):
        mapping = pd.Series(mapping, dtype=object)
    if not isinstance(mapping, pd.Series):
        raise TypeError(f"`{name}` must map item ids to true labels: a pandas Series indexed "
                        f"by item, or a dict; got {type(mapping).__name__}.")
    mapping = mapping.dropna()
    if len(mapping) == 0 and not allow_empty:
        raise ValueError(f"`{name}` is empty: give the true labels of some items.")
    if not mapping.index.is_unique:
        raise ValueError(f"`{name}` repeats item ids: give each item's true label once.")
    pos = pd.Index(items).get_indexer(mapping.index)
    if (pos < 0).any():
        bad = mapping.index[pos < 0]
        raise ValueError(f"`{name}` names {len(bad)} item(s) that are not in the ratings: "
                         f"{', '.join(map(str, bad[:5]))}; give labels only for rated items, "
                         "with the ids the ratings use.")
    values = mapping.to_numpy(dtype=object)
    codes = match_labels(values, categories)
    if (codes < 0).any():
        bad = pd.unique(values[codes < 0])
        raise ValueError(f"`{name}` has labels that are not categories of the ratings: "
                         f"{', '.join(map(str, bad[:5]))} (categories: "
                         f"{', '.join(map(str, list(categories)[:10]))}); give each item "
                         "one of the categories.")
    return np.asarray(pos, dtype=np.intp), np.asarray(codes, dtype=np.intp)
