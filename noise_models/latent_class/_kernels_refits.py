"""Warm-started bootstrap refits of a latent-class model, all of a block in one Numba call.

Each refit is the engine's own EM (:func:`~noise_models.latent_class._kernels._em_run`, the
serial build) over its rows of labels (a subset of ``base``, given by index) with their
weights, from the same start, followed by each row's label (the most probable easy state,
as :func:`~noise_models.latent_class._kernels.posteriors` gives it). The refits are
independent and each runs on one thread from start to end, so the results are the same
whatever the thread count; the parallel build spreads the refits over the threads (the
wrapper is :meth:`noise_models.latent_class._em._PatternRefits.block`). Nothing compiles
at import time.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from _goldnoise_lib.threads import serial_and_parallel
from noise_models.latent_class._kernels import _build_tables, _em_run

__all__: list[str] = []


def _warm_refits_impl(base, offsets, index, weights, n_eff, n_chunks, model, hard, a, cap,
                      max_iter, tol, h_agree, h_dis, phi, pi, eps, conf, theta, xi, q, groups,
                      n_groups, jw, known_cnt, known_tot, n_iter, converged, labels):
    # Refit b: rows base[index[offsets[b]:offsets[b + 1]]] with those weights; its
    # parameters start as phi[b], pi[b], ... (the caller's start) and are updated in place;
    # n_iter[b], converged[b] and the rows' labels (labels[offsets[b]:offsets[b + 1]]) out.
    n_refits = offsets.shape[0] - 1
    k = base.shape[1]
    m = phi.shape[1]
    for b in prange(n_refits):
        lo = offsets[b]
        nb = offsets[b + 1] - lo
        rows = np.empty((nb, k), dtype=base.dtype)
        w = np.empty(nb)
        for i in range(nb):
            src = index[lo + i]
            for j in range(k):
                rows[i, j] = base[src, j]
            w[i] = weights[lo + i]
        trace = np.empty(max_iter + 1)
        t, conv = _em_run(rows, w, model, hard, a, cap, max_iter, tol, n_eff[b], n_chunks[b],
                          False, h_agree, h_dis, phi[b], pi[b], eps[b], conf[b], theta[b],
                          xi[b], q[b], trace, groups, n_groups, jw, known_cnt, known_tot)
        n_iter[b] = t
        converged[b] = conv
        # each row's label: the most probable easy state (its log weight plus the ratings'
        # log emissions, summed in the order of the posterior pass), ties to the first;
        # where no easy state is possible, the majority vote
        n_states = known_tot.shape[0]
        logtab = np.empty((k, m, n_states))
        logw = np.empty(n_states)
        _build_tables(model, hard, (phi[b], pi[b], eps[b], conf[b], theta[b], xi[b], q[b]),
                      logtab, logw)
        ls = np.empty(m)
        vote = np.empty(m)
        for i in range(nb):
            for c in range(m):
                ls[c] = logw[c]
                vote[c] = 0.0
            for j in range(k):
                x = rows[i, j]
                if x >= 0:
                    vote[x] += 1.0
                    for c in range(m):
                        ls[c] += logtab[j, x, c]
            best = -1
            best_v = -np.inf
            for c in range(m):
                if ls[c] > best_v:
                    best_v = ls[c]
                    best = c
            if best_v == -np.inf:
                best = 0
                for c in range(1, m):
                    if vote[c] > vote[best]:
                        best = c
            labels[lo + i] = best


_warm_refits_serial, _warm_refits_parallel = serial_and_parallel(_warm_refits_impl,
                                                                 error_model="numpy")
