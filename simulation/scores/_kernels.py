"""Numba kernel of the score loader: gather rows into item order and check them, one pass."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["gather_check"]


@njit(cache=True)
def gather_check(rows, inverse, out, row_sum, finite, in_unit):
    """``out[i] = rows[inverse[i]]``, with each row's sum, finiteness and range.

    ``rows`` holds the file's rows (rows × classes, C order); ``inverse[i]``
    is the file row of item ``i`` (``inverse[0] = -1``: already in item order).
    ``in_unit[i]``: every entry of row ``i`` lies in [0, 1].
    """
    m = rows.shape[1]
    for i in range(out.shape[0]):
        r = i if inverse[0] < 0 else inverse[i]
        s = 0.0
        unit = True
        for j in range(m):
            v = rows[r, j]
            out[i, j] = v
            s += v
            unit &= (v >= 0.0) & (v <= 1.0)  # False for NaN
        row_sum[i] = s
        # a non-finite entry makes the sum non-finite (a huge finite row may too: the
        # caller then checks entry by entry)
        finite[i] = np.isfinite(s)
        in_unit[i] = unit
