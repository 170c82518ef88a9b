"""The swap and join tests of ``judge_audit``: :func:`simulation.swap_test` on the audit's items.

The computation (every set of annotators' per-item rows side by side, one paired
bootstrap of the items) lives in :mod:`simulation` beside ``judge_plan``, which sizes
a study from a pilot's swap difference; here the audit's codes (humans, then the
candidates, items with a human rating) become ratings for it, and its tables keep
the audit's columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["SwapParts", "subset_ratings", "swap_test"]

_COLUMNS = ["with_candidate", "humans", "difference", "low", "high", "non_inferior", "n_items"]


@dataclass
class SwapParts:
    """The swap and join tables and the humans' own coefficient with its interval."""

    swap: pd.DataFrame
    join: pd.DataFrame
    humans: float
    humans_low: float
    humans_high: float
    n_items: int
    notes: list[str]
    bootstrap: Any = None  # the engine's BootstrapResult (humans' coefficient first)


def subset_ratings(r: Any, codes: np.ndarray, columns: list[int], names: list[str]) -> Any:
    """Ratings of some columns of ``codes`` (same categories, values and order as ``r``)."""
    from agreement import Ratings

    return Ratings(np.ascontiguousarray(codes[:, columns]), r.categories,
                   items=pd.RangeIndex(codes.shape[0], name="item"),
                   raters=pd.Index([names[c] for c in columns], name="rater"),
                   ordered=r.ordered, category_values=r.category_values)


def swap_test(r: Any, codes: np.ndarray, names: list[str], n_humans: int,
              candidates: list[str], *, coefficient: str, level: str | None, margin: float,
              n_resamples: int, confidence_level: float, rng: Any) -> SwapParts:
    """``codes``: items × (humans, then candidates); items with a human rating only."""
    from simulation import swap_test as run

    sub = subset_ratings(r, codes, list(range(n_humans + len(candidates))), names)
    res = run(sub, candidates, humans=names[:n_humans], coefficient=coefficient, level=level,
              margin=margin, n_resamples=n_resamples, confidence_level=confidence_level,
              rng=rng)
    return SwapParts(res.swap[_COLUMNS], res.join[_COLUMNS], res.humans, res.humans_low,
                     res.humans_high, res.n_items, list(res.notes), res.bootstrap)
