"""Numba kernels of the noise bound of a latent-class fit
(:meth:`~noise_models.LatentClassFit.noise_bound`).

Per item, the probabilities that its own annotators all agree if it is hard and if it is
easy (:func:`item_agreement`), and the Poisson-binomial CDF of the number of agreed hard
items (:func:`pb_cdf`). Conventions as in :mod:`noise_models.latent_class._kernels`:
``codes`` is a C-ordered int8/int16 matrix (items × raters), ``-1`` = missing; nothing
here compiles at import time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from noise_models.latent_class._kernels import _readonly


@njit(cache=True, error_model="numpy")
def _item_agreement(codes, log_q, log_phi, log_easy, perfect):
    # Per item: number of ratings, whether they are unanimous, and the
    # category-blind probabilities that the item's own annotators all agree
    # if it is hard (p_i = Σ_c Π_j q[j, c]) and if it is easy
    # (e_i = Σ_c φ_c Σ_x Π_j P_j(x | c), with log_easy[j, c, x] = log P_j(x | c);
    # e_i = 1 under the perfect emission).
    n, k = codes.shape
    m = log_q.shape[1]
    r = np.zeros(n, dtype=np.int64)
    agreed = np.zeros(n, dtype=np.bool_)
    p = np.zeros(n)
    e = np.ones(n)
    acc = np.empty(m)
    acc2 = np.empty((m, m))
    for i in range(n):
        first = -1
        same = True
        acc[:] = 0.0
        for c in range(m):
            for y in range(m):
                acc2[c, y] = log_phi[c]
        for j in range(k):
            x = codes[i, j]
            if x >= 0:
                r[i] += 1
                if first < 0:
                    first = x
                elif x != first:
                    same = False
                for c in range(m):
                    acc[c] += log_q[j, c]
                    if not perfect:
                        for y in range(m):
                            acc2[c, y] += log_easy[j, c, y]
        agreed[i] = same and r[i] >= 2
        s = 0.0
        for c in range(m):
            s += np.exp(acc[c])
        p[i] = s
        if not perfect:
            s = 0.0
            for c in range(m):
                for y in range(m):
                    s += np.exp(acc2[c, y])
            e[i] = s
    return r, agreed, p, e


def item_agreement(codes, q, phi=None, easy=None):
    """Per-item ``(r, agreed, p_hard_agree, p_easy_agree)`` (see ``_item_agreement``).

    ``easy[j, c, x] = P_j(x | c)``; ``None`` means the perfect emission.
    """
    perfect = easy is None
    m = q.shape[1]
    with np.errstate(divide="ignore"):
        log_q = np.log(np.asarray(q, dtype=np.float64))
        if perfect:
            log_phi = np.zeros(m)
            log_easy = np.zeros((0, m, m))
        else:
            log_phi = np.log(np.asarray(phi, dtype=np.float64))
            log_easy = np.log(np.asarray(easy, dtype=np.float64))
    return _item_agreement(_readonly(np.ascontiguousarray(codes)), np.ascontiguousarray(log_q),
                           np.ascontiguousarray(log_phi), np.ascontiguousarray(log_easy),
                           perfect)


@njit(cache=True, error_model="numpy")
def pb_cdf(rho, counts, support):
    # Poisson-binomial CDF at 0..support-1 for each node: DP over the
    # agreed items (grouped: counts[g] items with probability rho[node, g]).
    # Mass beyond support-1 is dropped, so entries are exact below it.
    n_nodes, n_groups = rho.shape
    out = np.empty((n_nodes, support))
    pmf = np.empty(support)
    for t in range(n_nodes):
        pmf[:] = 0.0
        pmf[0] = 1.0
        top = 0
        for g in range(n_groups):
            r = rho[t, g]
            for _ in range(counts[g]):
                if top < support - 1:
                    top += 1
                for h in range(top, 0, -1):
                    pmf[h] = pmf[h] * (1.0 - r) + pmf[h - 1] * r
                pmf[0] *= 1.0 - r
        acc = 0.0
        for h in range(support):
            acc += pmf[h]
            out[t, h] = acc
    return out
