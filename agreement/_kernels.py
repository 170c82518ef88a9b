"""Numba kernels over the integer code matrix of a :class:`~agreement.Ratings`.

Conventions shared by every kernel in this package:

* ``codes`` is a C-ordered ``int8``/``int16`` array of shape ``(n_items, n_raters)``
  holding category codes ``0..m-1`` and ``-1`` for a missing rating.
* Kernels are private. The public functions validate and convert their input,
  then call a kernel; they never let a kernel see unvalidated data.
* Each kernel is compiled lazily (``cache=True``); importing this module
  compiles nothing. Where it helps, one Python function is compiled twice,
  serial and ``parallel=True`` (as umap does), and small inputs take the serial
  one: ``prange`` is a plain ``range`` in the serial build.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# Below this many cells the thread pool costs more than it saves.
PARALLEL_THRESHOLD = 200_000


def _item_counts_impl(codes, m):
    # a[i, c] = number of annotators who put item i in category c (SPEC §1).
    n, k = codes.shape
    out = np.zeros((n, m), dtype=np.int32)
    for i in prange(n):
        for j in range(k):
            c = codes[i, j]
            if c >= 0:
                out[i, c] += 1
    return out


_item_counts_serial = njit(cache=True, error_model="numpy")(_item_counts_impl)
_item_counts_parallel = njit(cache=True, parallel=True, error_model="numpy")(_item_counts_impl)


def item_counts(codes: np.ndarray, m: int) -> np.ndarray:
    """Per-item category counts ``a[i, c]`` of an int code matrix (missing = -1)."""
    codes = np.ascontiguousarray(codes)
    if codes.size >= PARALLEL_THRESHOLD:
        return _item_counts_parallel(codes, m)
    return _item_counts_serial(codes, m)


@njit(cache=True)
def _lookup_codes(values, offset, table, out):
    # Map integer-valued labels through a dense lookup table; NaN -> -1.
    flat_in = values.ravel()
    flat_out = out.ravel()
    for t in range(flat_in.size):
        v = flat_in[t]
        if v != v:  # NaN marks a missing rating
            flat_out[t] = -1
        else:
            flat_out[t] = table[np.int64(v) - offset]
    return out


def lookup_codes(values: np.ndarray, offset: int, table: np.ndarray, dtype) -> np.ndarray:
    """Code an integer-valued float array through ``table[v - offset]``."""
    out = np.empty(values.shape, dtype=dtype)
    return _lookup_codes(np.ascontiguousarray(values, dtype=np.float64), offset, table, out)
