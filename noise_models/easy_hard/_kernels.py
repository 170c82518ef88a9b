"""Numba kernels of the noise bound (SPEC §2.2–2.3) and of per-item chance agreement.

* :func:`posterior_blocks` — one log-space pass over ``h = lo..hi`` of the
  unnormalised posterior ``C(h, d) p^(h-d) π(h)`` (Beigman Klebanov & Beigman
  2009, eq. (1)), summed per block of ``block`` consecutive h. Successive terms
  are linked by their ratio (one multiply and one division per h, no
  ``lgamma``), kept in linear space relative to a running log scale that is
  renormalised whenever the linear value leaves ``[1e-100, 1e100]``; so nothing
  overflows or underflows at any n and the pass runs at a few ns per h.
* :func:`block_log_terms` — the same recurrence inside one block, term by term,
  starting from the block's stored anchor (identical arithmetic to the pass).
* :func:`poisson_binomial_head` — the first ``jmax + 1`` probabilities of a
  Poisson-binomial count with rescaling against underflow (the exact per-item
  generalisation of the bound when items have their own chance agreement).
* :func:`item_chance_agreement` — ``p_i = Σ_c Π_{j rates i} q[j, c]`` over a
  code matrix with missing ratings (SPEC §2.1).

Kernels are private, compiled lazily (``cache=True``, ``error_model="numpy"``,
no fastmath) and called through the thin wrappers at the bottom, which fix
dtypes and C order. The passes are sequential recurrences, so there is no
parallel build.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# Prior kinds understood by the kernels.
KIND_UNIFORM = 0
KIND_BETA_BINOMIAL = 1
KIND_BINOMIAL = 2
KIND_VECTOR = 3

_BIG = 1e100
_SMALL = 1e-100


@njit(cache=True, error_model="numpy")
def _ratio(hf, nf, df, p, kind, a, b, odds):
    # term(h + 1) / term(h) for term(h) = C(h, d) p^(h-d) π(h):
    #   C(h+1, d)/C(h, d) = (h + 1)/(h + 1 - d);
    #   beta-binomial π(h+1)/π(h) = (n - h)(h + a) / ((h + 1)(n - h - 1 + b));
    #   binomial      π(h+1)/π(h) = (n - h)/(h + 1) · rate/(1 - rate).
    if kind == KIND_BETA_BINOMIAL:
        return p * (nf - hf) * (hf + a) / ((hf + 1.0 - df) * (nf - hf - 1.0 + b))
    if kind == KIND_BINOMIAL:
        return p * odds * (nf - hf) / (hf + 1.0 - df)
    return p * (hf + 1.0) / (hf + 1.0 - df)


@njit(cache=True, error_model="numpy", inline="always")
def _step(v, lv, r):
    # One step of the scaled recurrence term(h+1) = term(h)·r: the term is
    # exp(lv)·v; v is kept in (1e-100, 1e100) and folded into lv when it would
    # leave that range. Returns (v, lv, folded).
    nv = v * r
    if nv > _SMALL and nv < _BIG:
        return nv, lv, False
    return 1.0, lv + math.log(v) + math.log(r), True


@njit(cache=True, error_model="numpy")
def _posterior_pass(n, d, lo, hi, block, kind, p, a, b, odds, prior, anchor0,
                    logsum, loghsum, anchors):
    nf = float(n)
    df = float(d)
    nblocks = logsum.shape[0]
    lv = anchor0  # log of the current term is lv + log(v)
    v = 1.0
    h = lo
    for bi in range(nblocks):
        if v != 1.0:
            lv += math.log(v)
            v = 1.0
        anchors[bi] = lv
        lb = lv  # the block's sums are in units of exp(lb)
        c = 1.0  # exp(lv - lb)
        s = 0.0
        sh = 0.0
        end = min(lo + (bi + 1) * block, hi + 1)
        while h < end:
            hf = float(h)
            w = c * v
            if kind == KIND_VECTOR:
                w *= prior[h]
            s += w
            sh += w * hf
            if h < hi:
                v, lv, folded = _step(v, lv, _ratio(hf, nf, df, p, kind, a, b, odds))
                if folded:
                    c = math.exp(lv - lb)
                    if c > _BIG:  # terms rose far above the block's first: rescale
                        f = math.exp(lb - lv)
                        s *= f
                        sh *= f
                        lb = lv
                        c = 1.0
            h += 1
        logsum[bi] = lb + math.log(s) if s > 0.0 else -np.inf
        loghsum[bi] = lb + math.log(sh) if sh > 0.0 else -np.inf
    return lv + math.log(v)


@njit(cache=True, error_model="numpy")
def _block_log_terms(n, d, start, count, hi, kind, p, a, b, odds, prior, anchor, out):
    nf = float(n)
    df = float(d)
    lv = anchor
    v = 1.0
    for t in range(count):
        h = start + t
        hf = float(h)
        val = lv + math.log(v)
        if kind == KIND_VECTOR:
            pr = prior[h]
            val = val + math.log(pr) if pr > 0.0 else -np.inf
        out[t] = val
        if h < hi:
            v, lv, _ = _step(v, lv, _ratio(hf, nf, df, p, kind, a, b, odds))
    return out


@njit(cache=True, error_model="numpy")
def _poisson_binomial_head(w, jmax):
    # pb[j] = P(Σ_i B_i = j), B_i ~ Bernoulli(w_i), for j <= jmax, as pb * exp(logscale).
    pb = np.zeros(jmax + 1)
    pb[0] = 1.0
    logscale = 0.0
    top = 0
    for i in range(w.shape[0]):
        wi = w[i]
        qi = 1.0 - wi
        if top < jmax:
            top += 1
        for j in range(top, 0, -1):
            pb[j] = pb[j] * qi + pb[j - 1] * wi
        pb[0] *= qi
        # w_i <= 1/2, so the largest entry shrinks by at most 2x per item.
        if (i & 31) == 31:
            m = 0.0
            for j in range(top + 1):
                if pb[j] > m:
                    m = pb[j]
            if m < 1e-200 and m > 0.0:
                for j in range(top + 1):
                    pb[j] /= m
                logscale += math.log(m)
    return pb, logscale


@njit(cache=True, error_model="numpy")
def _item_chance_agreement(codes, logq, zeroq):
    # p_i = Σ_c Π_{j rated i} q[j, c] (Beigman Klebanov & Beigman 2009, §2), in log space
    # per category so that many annotators do not underflow the product.
    n, k = codes.shape
    m = logq.shape[1]
    out = np.empty(n)
    acc = np.empty(m)
    zeros = np.empty(m, dtype=np.int64)
    for i in range(n):
        for c in range(m):
            acc[c] = 0.0
            zeros[c] = 0
        for j in range(k):
            if codes[i, j] >= 0:
                for c in range(m):
                    acc[c] += logq[j, c]
                    zeros[c] += zeroq[j, c]
        tot = 0.0
        for c in range(m):
            if zeros[c] == 0:
                tot += math.exp(acc[c])
        out[i] = tot
    return out


# ---------------------------------------------------------------------------- wrappers
def posterior_blocks(n: int, d: int, lo: int, hi: int, block: int, kind: int, p: float,
                     a: float = 1.0, b: float = 1.0, odds: float = 1.0,
                     prior: np.ndarray | None = None, anchor0: float = 0.0):
    """Per-block log sums of ``term(h)`` and ``h·term(h)`` over ``h = lo..hi``.

    ``term(lo) = exp(anchor0)``. Returns ``(logsum, loghsum, anchors, last)``
    where ``anchors[b]`` is the log term at the first h of block ``b`` and
    ``last`` the log term at ``hi``.
    """
    nblocks = (hi - lo) // block + 1
    logsum = np.empty(nblocks)
    loghsum = np.empty(nblocks)
    anchors = np.empty(nblocks)
    pr = np.zeros(1) if prior is None else np.ascontiguousarray(prior, dtype=np.float64)
    last = _posterior_pass(np.int64(n), np.int64(d), np.int64(lo), np.int64(hi),
                           np.int64(block), np.int64(kind), float(p), float(a), float(b),
                           float(odds), pr, float(anchor0), logsum, loghsum, anchors)
    return logsum, loghsum, anchors, float(last)


def block_log_terms(n: int, d: int, start: int, count: int, hi: int, kind: int, p: float,
                    a: float, b: float, odds: float, prior: np.ndarray | None,
                    anchor: float) -> np.ndarray:
    """Log terms ``log term(h)`` for ``h = start..start+count-1``, from ``anchor``."""
    out = np.empty(count)
    pr = np.zeros(1) if prior is None else np.ascontiguousarray(prior, dtype=np.float64)
    return _block_log_terms(np.int64(n), np.int64(d), np.int64(start), np.int64(count),
                            np.int64(hi), np.int64(kind), float(p), float(a), float(b),
                            float(odds), pr, float(anchor), out)


def poisson_binomial_head(w: np.ndarray, jmax: int) -> tuple[np.ndarray, float]:
    """``(pb, logscale)`` with ``P(Σ B_i = j) = pb[j]·exp(logscale)`` for ``j <= jmax``."""
    return _poisson_binomial_head(np.ascontiguousarray(w, dtype=np.float64), np.int64(jmax))


def item_chance_agreement(codes: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per-item chance agreement ``p_i`` of a code matrix (missing = -1) and ``q[j, c]``."""
    q = np.ascontiguousarray(q, dtype=np.float64)
    zero = q <= 0.0
    logq = np.where(zero, 0.0, np.log(np.where(zero, 1.0, q)))
    return _item_chance_agreement(np.ascontiguousarray(codes), logq,
                                  np.ascontiguousarray(zero, dtype=np.int64))
