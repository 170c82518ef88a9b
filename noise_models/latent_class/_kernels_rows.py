"""The rows the EM visits: identical rows merged (:func:`merge_rows`) and each annotator's
own label counts (:func:`label_counts`, for ``hard="marginal"``). Nothing compiles at
import time."""

from __future__ import annotations

import numpy as np
from numba import njit

from _goldnoise_lib import patterns as _patterns
from noise_models.latent_class._kernels import _readonly

__all__ = ["MERGE_RATIO", "label_counts", "merge_rows"]


@njit(cache=True, error_model="numpy")
def _label_counts(codes, m):
    # Each annotator's own label counts (for hard="marginal").
    n, k = codes.shape
    out = np.zeros((k, m))
    for i in range(n):
        for j in range(k):
            x = codes[i, j]
            if x >= 0:
                out[j, x] += 1.0
    return out


# Merge identical rows when it at least halves the rows the E-step visits.
MERGE_RATIO = 0.5


def merge_rows(codes, m):
    """Identical rows merged: ``(unique_rows, weights, inverse)``, or None.

    Items with the same labels from the same annotators have the same
    posterior, so the E-step can visit each distinct row once with its count
    as weight (exact). Done when a row fits a 63-bit key (the shared row key,
    :mod:`_goldnoise_lib.patterns`) and merging at least halves the rows (few
    annotators, few categories); crowd data with many annotators, where nearly
    every row is distinct, is left as it is.
    """
    codes = np.ascontiguousarray(codes)
    keys = _patterns.row_keys(codes, int(m)) if codes.shape[0] >= 2 else None
    if keys is None:
        return None
    n = codes.shape[0]
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                          return_counts=True)
    if len(first) > MERGE_RATIO * n:
        return None
    return np.ascontiguousarray(codes[first]), counts.astype(np.float64), inverse.ravel()


def label_counts(codes, m):
    """``(k, m)`` counts of each annotator's labels."""
    return _label_counts(_readonly(np.ascontiguousarray(codes)), int(m))
