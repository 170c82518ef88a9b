"""Numba kernel of the score loader: rows into item order, checked, in one pass."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["place_check"]


@njit(cache=True)
def place_check(colmajor, position, out):
    """``out[position[r]] = colmajor[:, r]``, and whether every row passes the checks.

    ``colmajor`` holds the file's columns (classes × rows), read sequentially;
    ``position[r]`` is the item of file row ``r`` (``position[0] = -1``: the
    rows are already in item order), so each row is written once where it
    belongs (two cache lines) instead of gathered class by class. The checks
    are reduced as the rows go, so nothing else is written at a random place:
    ``(all_finite, all_in_unit, largest |row sum - 1|)``; an entry outside
    [0, 1] or NaN clears ``all_in_unit``.
    """
    m, n = colmajor.shape
    all_finite = True
    all_unit = True
    worst = 0.0
    for r in range(n):
        i = r if position[0] < 0 else position[r]
        s = 0.0
        unit = True
        for j in range(m):
            v = colmajor[j, r]
            out[i, j] = v
            s += v
            unit &= (v >= 0.0) & (v <= 1.0)  # False for NaN
        # a non-finite entry makes the sum non-finite (a huge finite row may too: the
        # caller then checks entry by entry)
        all_finite &= np.isfinite(s)
        all_unit &= unit
        worst = max(worst, abs(s - 1.0))
    return all_finite, all_unit, worst


@njit(cache=True)
def int_positions(items, file_ids, lo, span, pos, seen):
    """``pos[r]``: the item position of integer id ``file_ids[r]`` (-1 if not an item).

    A lookup table over the ids' range ``lo .. lo + span - 1``; ``seen[i]``
    counts the file rows of item ``i`` (0: missing, 2+: repeated).
    """
    lut = np.full(span, -1, dtype=np.int64)
    for i in range(items.shape[0]):
        lut[items[i] - lo] = i
    seen[:] = 0
    for r in range(file_ids.shape[0]):
        d = file_ids[r] - lo
        p = lut[d] if 0 <= d < span else -1
        pos[r] = p
        if p >= 0:
            seen[p] += 1
