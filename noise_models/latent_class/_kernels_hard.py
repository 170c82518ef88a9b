"""A hard item's own label distribution under the item-difficulty model: the posterior
mean of ``p_i`` given the item's ratings (Numba kernels, private; the wrapper is
:func:`noise_models.latent_class._kernels.hard_label_means`). Nothing compiles at import
time."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from _goldnoise_lib.threads import serial_and_parallel

__all__ = ["LINEAR_MAX_RATINGS", "SHARE_PRIOR"]

# A hard item has its own label distribution p_i ~ Dirichlet(SHARE_PRIOR/m, ...) (Perks's prior:
# one pseudo-rating in all); annotator j reports a draw from p_i with their competence θ_j, else
# a draw from their own spam distribution ξ_j, and the item's true label is one more draw from
# p_i. The posterior mean of p_i (:func:`_hard_label_mean`) is what the class posterior gives
# the hard part: with every θ_j = 1 it is the vote shares (votes + 1/m) / (ratings + 1); with
# fallible annotators a spammer's vote counts for less. (Raw vote shares in its place: ECE
# bluebird 0.120, web 0.122 against 0.065 and 0.077; Jeffreys's ½ per class shrank web's five
# classes too far: ECE 0.139.)
SHARE_PRIOR = 1.0  # pseudo-ratings in all, spread evenly over the m classes


# ------------------------------------------------ a hard item's own label distribution
@njit(cache=True, error_model="numpy", inline="always")
def _log_add(a, b):
    # log(e^a + e^b), -inf allowed
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a > b:
        return a + np.log1p(np.exp(b - a))
    return b + np.log1p(np.exp(a - b))


#: Up to this many ratings of an item, _hard_label_mean works with the numbers themselves
#: (rising factorials up to 60! ~ 1e82, Poisson-binomial weights above 1e-300 where they
#: matter); beyond, with their logs (five times slower).
LINEAR_MAX_RATINGS = 60


@njit(cache=True, error_model="numpy")
def _convolve(a, na, b, nb, out, logs):
    # out[t] = Σ_{p+q=t} a[p] b[q], t = 0..na+nb: the product of two polynomials of degrees
    # na and nb (logs: their coefficients' logs, and the product's)
    for t in range(na + nb + 1):
        out[t] = -np.inf if logs else 0.0
    for p in range(na + 1):
        if logs:
            if a[p] == -np.inf:
                continue
            for q in range(nb + 1):
                out[p + q] = _log_add(out[p + q], a[p] + b[q])
        else:
            for q in range(nb + 1):
                out[p + q] += a[p] * b[q]


@njit(cache=True, error_model="numpy", inline="always")
def _ratio_sum(poly, den, r, logs):
    # Σ_n poly[n] / den[n] (logs: log of the sum, from the logs)
    if logs:
        s = -np.inf
        for q in range(r + 1):
            s = _log_add(s, poly[q] - den[q])
        return s
    s = 0.0
    for q in range(r + 1):
        s += poly[q] / den[q]
    return s


@njit(cache=True, error_model="numpy")
def _hard_label_mean(row, logtab, out):
    # out[c] = E[p_c | the item's ratings, hard] with p ~ Dirichlet(a, ..., a), a = SHARE_PRIOR/m,
    # and annotator j's rating a draw from p with probability θ_j, else from ξ_j (the spam
    # emission read off the easy columns of logtab: (1 - θ_j) ξ_j(x) = P_j(x | c) for c != x,
    # θ_j = P_j(x | x) - (1 - θ_j) ξ_j(x)). Expanding Π_j (θ_j p_{x_j} + (1 - θ_j) ξ_j(x_j))
    # over who drew from p, and E[Π_c p_c^{n_c}] = Π_c a^(n_c) / α0^(n) (rising factorials,
    # α0 = m a, n = Σ n_c), the likelihood is Σ_n H[n] / α0^(n) with
    # H = Π_c h_c, h_c[n_c] = P(n_c of the c-voters drew from p) a^(n_c) (Poisson-binomial
    # weights); the numerator of E[p_c | .] is the same sum with h_c[n] (a + n) and
    # α0^(n) (α0 + n). Costs O(r²) per voted class for r ratings.
    k = row.shape[0]
    m = logtab.shape[1]
    a = SHARE_PRIOR / m
    a0 = SHARE_PRIOR
    ints = np.zeros(3 * m, dtype=np.int64)  # few allocations an item: they cost as much
    deg, fill, voted = ints[:m], ints[m:2 * m], ints[2 * m:3 * m]
    r = 0
    for j in range(k):
        if row[j] >= 0:
            deg[row[j]] += 1
            r += 1
    if r == 0:
        for c in range(m):
            out[c] = 1.0 / m
        return
    logs = r > LINEAR_MAX_RATINGS
    u = 0
    for c in range(m):
        if deg[c] > 0:
            voted[u] = c
            u += 1
    w = r + 1
    work = np.empty((m + 2 * (u + 1) + 5) * w)
    h = work[:m * w].reshape((m, w))
    pre = work[m * w:(m + u + 1) * w].reshape((u + 1, w))
    suf = work[(m + u + 1) * w:(m + 2 * u + 2) * w].reshape((u + 1, w))
    rest5 = work[(m + 2 * u + 2) * w:].reshape((5, w))
    den, den1, others, shifted, num = rest5[0], rest5[1], rest5[2], rest5[3], rest5[4]
    # h[c, n]: P(n of the c-voters drew from p) (Poisson-binomial), times a^(n)
    h[:, :] = 0.0
    for c in range(m):
        h[c, 0] = 1.0
    for j in range(k):
        x = row[j]
        if x < 0:
            continue
        other = 1 if x == 0 else 0
        stay = min(np.exp(logtab[j, x, other] - logtab[j, x, x]), 1.0)  # (1-θ)ξ(x) / P_j(x|x)
        know = 1.0 - stay
        d = fill[x]
        h[x, d + 1] = h[x, d] * know
        for q in range(d, 0, -1):
            h[x, q] = h[x, q] * stay + h[x, q - 1] * know
        h[x, 0] *= stay
        fill[x] = d + 1
    lga = math.lgamma(a)
    for c in range(m):
        rise = 1.0
        for q in range(deg[c] + 1):
            if logs:
                g = h[c, q]
                h[c, q] = (np.log(g) + math.lgamma(a + q) - lga) if g > 0.0 else -np.inf
            else:
                h[c, q] *= rise
                rise *= a + q
    # pre[t] = h of voted[0..t-1] multiplied, suf[t] = h of voted[t..u-1]; their degrees
    pre_deg = np.zeros(2 * (u + 1), dtype=np.int64)
    suf_deg = pre_deg[u + 1:]
    pre[0, 0] = 0.0 if logs else 1.0
    suf[u, 0] = pre[0, 0]
    for t in range(u):
        c = voted[t]
        _convolve(pre[t], pre_deg[t], h[c], deg[c], pre[t + 1], logs)
        pre_deg[t + 1] = pre_deg[t] + deg[c]
    for t in range(u - 1, -1, -1):
        c = voted[t]
        _convolve(h[c], deg[c], suf[t + 1], suf_deg[t + 1], suf[t], logs)
        suf_deg[t] = suf_deg[t + 1] + deg[c]
    # den[n] = α0^(n), den1[n] = α0^(n) (α0 + n) (or their logs)
    lg0 = math.lgamma(a0)
    rise = 1.0
    for q in range(r + 1):
        if logs:
            den[q] = math.lgamma(a0 + q) - lg0
            den1[q] = den[q] + np.log(a0 + q)
        else:
            den[q] = rise
            den1[q] = rise * (a0 + q)
            rise *= a0 + q
    z = _ratio_sum(pre[u], den, r, logs)
    rest = _ratio_sum(pre[u], den1, r, logs)
    unvoted = np.exp(np.log(a) + rest - z) if logs else a * rest / z
    for c in range(m):
        out[c] = unvoted
    for t in range(u):
        c = voted[t]
        _convolve(pre[t], pre_deg[t], suf[t + 1], suf_deg[t + 1], others, logs)
        for q in range(deg[c] + 1):
            shifted[q] = h[c, q] + np.log(a + q) if logs else h[c, q] * (a + q)
        _convolve(others, r - deg[c], shifted, deg[c], num, logs)
        s = _ratio_sum(num, den1, r, logs)
        out[c] = np.exp(s - z) if logs else s / z


def _hard_means_impl(codes, logtab, out):
    for i in prange(codes.shape[0]):
        _hard_label_mean(codes[i], logtab, out[i])


_hard_means_serial, _hard_means_parallel = serial_and_parallel(_hard_means_impl,
                                                               error_model="numpy")
