"""The swap and join tests: a coefficient with a candidate in a human's place, or added.

Every set of annotators compared (the humans; the humans with one of them
replaced by a candidate, for each human and candidate; the humans with a
candidate added) gets its per-item rows from :func:`agreement.item_statistics`
on the same items; the rows sit side by side, items with the same labels are
merged, and the bootstrap engine (:func:`simulation.bootstrap_rows`) resamples
the items once for all of them, so every difference is paired.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib import patterns as _patterns

__all__ = ["SwapParts", "swap_test", "subset_ratings"]


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


def _distinct(codes: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each distinct row of labels and how many items share it."""
    keys = _patterns.row_keys(codes, m)
    if keys is None:
        keys = np.unique(codes, axis=0, return_inverse=True)[1].ravel()
    _, first, freq = np.unique(keys, return_index=True, return_counts=True)
    return first, freq.astype(np.int64)


def swap_test(r: Any, codes: np.ndarray, names: list[str], n_humans: int,
              candidates: list[str], *, coefficient: str, level: str | None, margin: float,
              n_resamples: int, confidence_level: float, rng: Any) -> SwapParts:
    """``codes``: items × (humans, then candidates); items with a human rating only."""
    from agreement import item_statistics
    from simulation import bootstrap_rows

    first, freq = _distinct(codes, r.n_categories)
    rep = codes[first]
    humans = list(range(n_humans))
    sets: list[tuple[str, list[int]]] = [("humans", humans)]
    for c, cand in enumerate(candidates):
        col = n_humans + c
        for h in humans:
            sets.append((f"swap {cand} for {names[h]}", [x for x in humans if x != h] + [col]))
        sets.append((f"join {cand}", humans + [col]))
    stats, widths = [], []
    for _, cols in sets:
        sub = subset_ratings(r, rep, cols, names)
        st = (item_statistics(sub, coefficient, level=level) if coefficient == "krippendorff_alpha"
              else item_statistics(sub, coefficient))
        stats.append(st)
        widths.append(st.values.shape[1])
    rows = np.concatenate([st.values for st in stats], axis=1)
    bounds = np.cumsum([0, *widths])
    k = len(candidates)
    out_names = ["humans"] + [f"with {c}" for c in candidates] + [f"join {c}" for c in candidates]

    def finalize(sums: np.ndarray) -> np.ndarray:
        vals = [np.asarray(st.finalize(sums[..., bounds[i]:bounds[i + 1]]).value,
                           dtype=np.float64) for i, st in enumerate(stats)]
        v = np.stack(vals, axis=-1)
        per = n_humans + 1  # each candidate: its swaps, then its join
        swaps = [v[..., 1 + c * per: 1 + c * per + n_humans].mean(axis=-1) for c in range(k)]
        joins = [v[..., 1 + c * per + n_humans] for c in range(k)]
        return np.stack([v[..., 0], *swaps, *joins], axis=-1)

    res = bootstrap_rows(rows, finalize, names=out_names, freq=freq, n_resamples=n_resamples,
                         confidence_level=confidence_level, rng=rng)
    notes = list(res.notes)

    def table(kind: str) -> pd.DataFrame:
        recs = []
        for cand in candidates:
            name = f"{'with' if kind == 'swap' else 'join'} {cand}"
            d = res.difference(name, "humans")
            notes.extend(n for n in d.notes if n not in notes)
            low, high = float(d.interval.low[0]), float(d.interval.high[0])
            recs.append({"candidate": cand,
                         "with_candidate": float(res.estimate[out_names.index(name)]),
                         "humans": float(res.estimate[0]), "difference": float(d.estimate[0]),
                         "low": low, "high": high,
                         "non_inferior": bool(np.isfinite(low) and low > -margin)})
        return pd.DataFrame(recs).set_index("candidate")

    return SwapParts(table("swap"), table("join"), float(res.estimate[0]),
                     float(res.interval.low[0]), float(res.interval.high[0]),
                     int(freq.sum()), notes, res)
