"""The labels of a bootstrap refit's rows (Numba kernel, private; the caller is
:meth:`noise_models.latent_class._em._PatternRefits.block`). Nothing compiles at import
time."""

from __future__ import annotations

import numpy as np
from numba import njit

from noise_models.latent_class._kernels import _readonly, _row_label

__all__ = ["easy_labels"]


@njit(cache=True, error_model="numpy", nogil=True)
def _easy_labels(codes, logtab, logw, labels):
    # Each row's label: the most probable easy state (its log weight plus the ratings' log
    # emissions, summed in the order of the posterior pass, so the same numbers), ties to
    # the first; where no easy state is possible, the majority vote (ties to the first):
    # the labels of `_kernels.posteriors` without the rest of its pass.
    k = codes.shape[1]
    m = logtab.shape[1]
    ls = np.empty(m)
    vote = np.empty(m)
    for i in range(codes.shape[0]):
        for c in range(m):
            ls[c] = logw[c]
            vote[c] = 0.0
        for j in range(k):
            x = codes[i, j]
            if x >= 0:
                vote[x] += 1.0
                for c in range(m):
                    ls[c] += logtab[j, x, c]
        labels[i] = _row_label(ls, vote, m)


def easy_labels(codes, logtab, logw):
    """Each row's most probable easy class (``_kernels.posteriors``' labels), int64."""
    labels = np.empty(codes.shape[0], dtype=np.int64)
    _easy_labels(_readonly(np.ascontiguousarray(codes)),
                 np.ascontiguousarray(logtab, dtype=np.float64),
                 np.ascontiguousarray(logw, dtype=np.float64), labels)
    return labels
