"""The one EM engine of the latent-class family (SPEC §2.4), in Numba.

Every model of :class:`~noise_models.LatentClassModel` is a mixture over
``S`` latent states of an item: the ``m`` easy states "true class ``c``" and,
when the model has one, the hard state. Given the state, annotators report
independently, so one per-annotator table of log emission probabilities

    ``logtab[j, x, s] = log P(annotator j reports x | state s)``

and the log state weights ``logw[s]`` (``log((1 - π) φ_c)`` and ``log π``)
describe any member of the family. The E-step then costs ``O(k · S)`` per item
whatever the annotator model, and the M-step needs only the expected counts

    ``counts[j, x, s] = Σ_i P(state s | x_i) · [x_ij = x]``,
    ``totals[s] = Σ_i P(state s | x_i)``,

``k · m · S`` numbers, never an items × raters × m array.

Determinism: items are cut into a number of chunks that depends only on the
data's shape (never on the thread count). Each chunk sums its items into its
own slot, and the slots are added in chunk order, so the serial and the
parallel build give bit-identical results on any number of threads.

Identical rows (the same labels from the same annotators) have the same
posterior; when there are few of them (few annotators and categories), the
engine visits each distinct row once with its count as a weight
(:func:`merge_rows`), which is exact.

Conventions: ``codes`` is a C-ordered int8/int16 matrix (items × raters),
``-1`` = missing. Items without a rating are skipped by the fit (they carry no
information) and get the prior state weights as their posterior. Nothing here
compiles at import time.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from _goldnoise_lib.threads import HISTOGRAM_PARALLEL_CELLS, serial_and_parallel
from noise_models.latent_class._kernels_hard import (
    _hard_label_mean,
    _hard_means_parallel,
    _hard_means_serial,
)

# Below this many cells (items × annotators) the EM and the posterior pass run the serial
# builds. A pass costs a few nanoseconds per cell: on web (2,665 × 177 = 471,705 cells) the
# serial E-step took 1.2 ms and the parallel build 40 ms (posterior pass 0.6 against 24 ms;
# 2 cores, load 8), and compiling the parallel builds cost its first audit about 4.5 s.
PARALLEL_THRESHOLD = HISTOGRAM_PARALLEL_CELLS

# Annotator ("easy emission") models and hard components: integer codes
# shared with _latent.py.
PERFECT, ONE_COIN, CONFUSION, SPAM = 0, 1, 2, 3
HARD_NONE, HARD_FREE, HARD_MARGINAL, HARD_UNIFORM, HARD_DIFFICULTY = 0, 1, 2, 3, 4
# The item difficulties of the hard states of hard="difficulty" (with the spam emission): on a
# hard item of class c at level l annotator j knows the class with probability
# θ_j · LEVELS[l] (their competence times the item's), else draws from their own spam
# distribution ξ_j; on an easy item the item's factor is 1 (MACE). The levels' weights ω_l
# (stored after π in the `pi` array) are estimated by EM: the spread of the items'
# difficulty, read from how the vote splits are distributed across items.
LEVELS = (0.2, 0.4, 0.6)
N_LEVELS = 3


@njit(cache=True, inline="always")
def n_states_of(hard, m):
    """Latent states of an item: m easy classes, plus the hard state(s)."""
    if hard == HARD_NONE:
        return m
    if hard == HARD_DIFFICULTY:
        return m + m * N_LEVELS
    return m + 1

# Items per chunk, the most chunks, and the most memory the chunk slots may take.
CHUNK_ITEMS = 1024
MAX_CHUNKS = 256
CHUNK_MEMORY = 64 * 2**20
# Probabilities are floored here (only reachable with prior_strength = 0), so
# that a log never becomes -inf by underflow of an estimated parameter.
FLOOR = 1e-300


def n_chunks_for(n: int, k: int, m: int, s: int) -> int:
    """Chunk count: a function of the data's shape only, never of the threads."""
    chunks = min(MAX_CHUNKS, max(1, -(-n // CHUNK_ITEMS)))
    per_chunk = 8 * (k * m * s + s + 1)
    return max(1, min(chunks, CHUNK_MEMORY // per_chunk))


# ---------------------------------------------------------------------- E-step
def _estep_impl(codes, weights, logtab, logw, n_chunks, counts, totals, lls,
                init_mode, h_agree, h_dis):
    # One pass over the items. Each chunk accumulates its expected counts
    # into its own slot counts[ch] (no shared writes, no atomics).
    # weights[i]: how many items share row i (identical rows merged), 1 else.
    # init_mode: instead of the model posterior, use the majority-vote start
    # (soft vote shares for the easy states, h_agree / h_dis for the hard one).
    n, k = codes.shape
    n_states = logw.shape[0]
    m = logtab.shape[1]
    has_hard = n_states > m
    chunk = (n + n_chunks - 1) // n_chunks
    for ch in prange(n_chunks):
        lo = ch * chunk
        hi = min(n, lo + chunk)
        cnt = counts[ch]
        tot = totals[ch]
        cnt[:] = 0.0
        tot[:] = 0.0
        ll = 0.0
        # Σ_i log z_i is kept as the log of a running product (one log per
        # several hundred items instead of one per item).
        zprod = 1.0
        ls = np.empty(n_states)
        vote = np.zeros(m)
        for i in range(lo, hi):
            r = 0
            if init_mode:
                vote[:] = 0.0
                for j in range(k):
                    x = codes[i, j]
                    if x >= 0:
                        vote[x] += 1.0
                        r += 1
                if r == 0:
                    continue
                n_used = 0
                for c in range(m):
                    if vote[c] > 0:
                        n_used += 1
                h = 0.0
                if has_hard:
                    h = h_agree if n_used == 1 else h_dis
                    if n_states > m + 1:
                        # hard="difficulty": the hard share spread over the levels, by votes
                        n_lev = (n_states - m) // m
                        for c in range(m):
                            for lev in range(n_lev):
                                ls[m + c * n_lev + lev] = h / n_lev * vote[c] / r
                    else:
                        ls[m] = h
                for c in range(m):
                    ls[c] = (1.0 - h) * vote[c] / r
            else:
                for s in range(n_states):
                    ls[s] = logw[s]
                for j in range(k):
                    x = codes[i, j]
                    if x >= 0:
                        r += 1
                        for s in range(n_states):
                            ls[s] += logtab[j, x, s]
                if r == 0:
                    continue
                mx = -np.inf
                top = 0
                for s in range(n_states):
                    if ls[s] > mx:
                        mx = ls[s]
                        top = s
                if mx == -np.inf:
                    # Impossible under the model (only with prior_strength = 0).
                    ll = -np.inf
                    continue
                z = 0.0
                for s in range(n_states):
                    if s == top:
                        ls[s] = 1.0
                    elif ls[s] - mx > -700.0:
                        ls[s] = np.exp(ls[s] - mx)
                    else:
                        # Below e^-700 (relative): zero, never a subnormal, whose
                        # arithmetic would slow every later sum it enters.
                        ls[s] = 0.0
                    z += ls[s]
                inv = 1.0 / z
                for s in range(n_states):
                    ls[s] *= inv
                w = weights[i]
                if w == 1.0:
                    ll += mx
                    zprod *= z
                    if zprod > 1e280:
                        ll += np.log(zprod)
                        zprod = 1.0
                else:
                    ll += w * (mx + np.log(z))
            w = weights[i]
            if w != 1.0:
                for s in range(n_states):
                    ls[s] *= w
            for s in range(n_states):
                tot[s] += ls[s]
            for j in range(k):
                x = codes[i, j]
                if x >= 0:
                    for s in range(n_states):
                        cnt[j, x, s] += ls[s]
        lls[ch] = ll + np.log(zprod)


_estep_serial, _estep_parallel = serial_and_parallel(_estep_impl, error_model="numpy")


@njit(cache=True, error_model="numpy", inline="always")
def _add_into(cnt, tot, more_cnt, more_tot):
    # cnt += more_cnt; tot += more_tot, as element loops (array expressions with
    # broadcasting take seconds to compile; these do not).
    k, m, n_s = cnt.shape
    for j in range(k):
        for x in range(m):
            for s in range(n_s):
                cnt[j, x, s] += more_cnt[j, x, s]
    for s in range(n_s):
        tot[s] += more_tot[s]


@njit(cache=True, error_model="numpy", inline="always")
def _reduce(counts, totals, lls, cnt, tot):
    # Fixed-order sum of the chunk slots: the same bits on any thread count.
    cnt[:] = 0.0
    tot[:] = 0.0
    ll = 0.0
    for ch in range(lls.shape[0]):
        _add_into(cnt, tot, counts[ch], totals[ch])
        ll += lls[ch]
    return ll


# ------------------------------------------------------------- the parameters
@njit(cache=True, error_model="numpy")
def _build_tables(model, hard, params, logtab, logw):
    # logtab[j, x, s] and logw[s] from the parameters (SPEC §2.4's emissions);
    # params = (phi, pi, eps, conf, theta, xi, q), as everywhere below.
    phi, pi, eps, conf, theta, xi, q = params
    k, m, n_states = logtab.shape
    for j in range(k):
        for x in range(m):
            for c in range(m):
                if model == PERFECT:
                    v = 0.0 if x == c else -np.inf
                elif model == ONE_COIN:
                    # Right with 1 - ε_j, else uniform over the other labels.
                    v = np.log(1.0 - eps[j]) if x == c else np.log(eps[j] / (m - 1))
                elif model == CONFUSION:
                    v = np.log(conf[j, c, x])  # Dawid & Skene (1979)
                else:
                    # Hovy et al. (2013): true with θ_j, else a draw from ξ_j.
                    p = (1.0 - theta[j]) * xi[j, x]
                    if x == c:
                        p += theta[j]
                    v = np.log(p)
                logtab[j, x, c] = v
            if hard == HARD_DIFFICULTY:
                # item accuracy LEVELS[l], else the annotator's own spam draw ξ_j
                for c in range(m):
                    for lev in range(N_LEVELS):
                        ta = theta[j] * LEVELS[lev]
                        p = (1.0 - ta) * xi[j, x]
                        if x == c:
                            p += ta
                        logtab[j, x, m + c * N_LEVELS + lev] = np.log(p)
            elif n_states > m:
                logtab[j, x, m] = np.log(q[j, x])
    if hard == HARD_DIFFICULTY:
        for c in range(m):
            logw[c] = np.log1p(-pi[0]) + np.log(phi[c])
            for lev in range(N_LEVELS):
                logw[m + c * N_LEVELS + lev] = np.log(pi[0]) + np.log(phi[c]) + np.log(
                    pi[1 + lev])
    elif n_states > m:
        for c in range(m):
            logw[c] = np.log1p(-pi[0]) + np.log(phi[c])
        logw[m] = np.log(pi[0])
    else:
        for c in range(m):
            logw[c] = np.log(phi[c])


@njit(cache=True, error_model="numpy")
def _log_prior(model, hard, a, params, jw):
    # log of the Dirichlet/Beta prior densities (pseudo-counts a), up to a
    # constant: the M-step below maximises log-likelihood + this. jw[j] is
    # 1 / (columns of annotator j's group): replicate columns share one set of
    # parameters, whose prior counts once.
    phi, pi, eps, conf, theta, xi, q = params
    if a == 0.0:
        return 0.0
    k = q.shape[0]
    m = phi.shape[0]
    lp = 0.0
    for c in range(m):
        lp += np.log(phi[c])
    if hard != HARD_NONE:
        lp += np.log(pi[0]) + np.log1p(-pi[0])
    if hard == HARD_DIFFICULTY:
        for lev in range(N_LEVELS):
            lp += np.log(pi[1 + lev])
    if hard == HARD_FREE:
        for j in range(k):
            for x in range(m):
                lp += jw[j] * np.log(q[j, x])
    if model == ONE_COIN:
        for j in range(k):
            lp += jw[j] * (np.log(eps[j]) + np.log1p(-eps[j]))
    elif model == CONFUSION:
        for j in range(k):
            for c in range(m):
                for x in range(m):
                    lp += jw[j] * np.log(conf[j, c, x])
    elif model == SPAM:
        for j in range(k):
            lp += jw[j] * (np.log(theta[j]) + np.log1p(-theta[j]))
            for x in range(m):
                lp += jw[j] * np.log(xi[j, x])
    return a * lp


@njit(cache=True, error_model="numpy")
def _mstep(model, hard, a, cap, cnt, tot, n_eff, params):
    # Maximise expected complete-data log-likelihood + log prior, in closed
    # form from the expected counts cnt[j, x, s] and totals tot[s]; the
    # parameter arrays are updated in place.
    phi, pi, eps, conf, theta, xi, q = params
    k, m, _ = cnt.shape
    easy = 0.0
    for c in range(m):
        easy += tot[c]
    if hard == HARD_DIFFICULTY:
        # every state has a class: φ from all of them, π and the level weights ω
        all_ = 0.0
        for s in range(tot.shape[0]):
            all_ += tot[s]
        hard_tot = all_ - easy
        for c in range(m):
            t = tot[c]
            for lev in range(N_LEVELS):
                t += tot[m + c * N_LEVELS + lev]
            phi[c] = max((t + a) / (all_ + m * a), FLOOR)
        p = (hard_tot + a) / (n_eff + 2.0 * a)
        pi[0] = min(max(p, FLOOR), 1.0 - 1e-16)
        for lev in range(N_LEVELS):
            t = 0.0
            for c in range(m):
                t += tot[m + c * N_LEVELS + lev]
            pi[1 + lev] = max((t + a) / (hard_tot + N_LEVELS * a), FLOOR)
    else:
        for c in range(m):
            phi[c] = max((tot[c] + a) / (easy + m * a), FLOOR)
    if hard != HARD_NONE and hard != HARD_DIFFICULTY:
        p = (tot[m] + a) / (n_eff + 2.0 * a)
        pi[0] = min(max(p, FLOOR), 1.0 - 1e-16)
    if hard == HARD_FREE:
        for j in range(k):
            s = 0.0
            for x in range(m):
                s += cnt[j, x, m]
            for x in range(m):
                q[j, x] = max((cnt[j, x, m] + a) / (s + m * a), FLOOR)
    if model == ONE_COIN:
        for j in range(k):
            right = 0.0
            total = 0.0
            for x in range(m):
                for c in range(m):
                    total += cnt[j, x, c]
                right += cnt[j, x, x]
            if total + 2.0 * a > 0.0:
                e = (total - right + a) / (total + 2.0 * a)
            else:
                e = cap
            # The objective is concave in ε, so the capped maximiser is
            # min(ε*, cap): the step still never lowers the objective.
            eps[j] = min(max(e, FLOOR), cap)
    elif model == CONFUSION:
        for j in range(k):
            for c in range(m):
                s = 0.0
                for x in range(m):
                    s += cnt[j, x, c]
                for x in range(m):
                    if s + m * a > 0.0:
                        conf[j, c, x] = max((cnt[j, x, c] + a) / (s + m * a), FLOOR)
                    else:
                        conf[j, c, x] = 1.0 / m
    elif model == SPAM:
        # Expected "knowing" and "spamming" counts (MACE's latent indicator):
        # a rating x of an item of class c is a spam draw with probability
        # (1 - θ) ξ_x / P(x | c), which is 1 when x != c.
        spam = np.empty(m)
        for j in range(k):
            th = theta[j]
            know = 0.0
            total = 0.0
            spam[:] = 0.0
            for x in range(m):
                px = (1.0 - th) * xi[j, x]
                for c in range(m):
                    w = cnt[j, x, c]
                    total += w
                    if x == c:
                        pk = th / (th + px)
                        know += w * pk
                        spam[x] += w * (1.0 - pk)
                    else:
                        spam[x] += w
                if hard == HARD_DIFFICULTY:
                    # On a hard item of accuracy a the annotator knows the class when they
                    # are competent (θ_j) and the item lets them (a): two indicators, each
                    # with its expected count; the rating is a spam draw otherwise.
                    for c in range(m):
                        for lev in range(N_LEVELS):
                            w = cnt[j, x, m + c * N_LEVELS + lev]
                            if w == 0.0:
                                continue
                            al = LEVELS[lev]
                            ps = (1.0 - th * al) * xi[j, x]
                            total += w
                            if x == c:
                                px = th * al + ps
                                know += w * (th * al + th * (1.0 - al) * xi[j, x]) / px
                                spam[x] += w * ps / px
                            else:
                                know += w * th * (1.0 - al) * xi[j, x] / ps
                                spam[x] += w
            if total + 2.0 * a > 0.0:
                t = (know + a) / (total + 2.0 * a)
            else:
                t = 0.5
            theta[j] = min(max(t, FLOOR), 1.0 - 1e-16)
            s = 0.0
            for x in range(m):
                s += spam[x]
            for x in range(m):
                if s + m * a > 0.0:
                    xi[j, x] = max((spam[x] + a) / (s + m * a), FLOOR)
                else:
                    xi[j, x] = 1.0 / m


@njit(cache=True, error_model="numpy", inline="always")
def _pool(cnt, groups, n_groups):
    # Replicate columns of one annotator share their parameters: give each column
    # the expected counts of its whole group, so the M-step fits them jointly.
    # Element loops, not array expressions: they compile much faster (no broadcasting).
    k, m, n_s = cnt.shape
    pooled = np.zeros((n_groups, m, n_s))
    for j in range(k):
        g = groups[j]
        for x in range(m):
            for s in range(n_s):
                pooled[g, x, s] += cnt[j, x, s]
    for j in range(k):
        g = groups[j]
        for x in range(m):
            for s in range(n_s):
                cnt[j, x, s] = pooled[g, x, s]


# ---------------------------------------------------------------- the driver
@njit(cache=True)
def _em_buffers(k, m, hard, n_chunks):
    # The EM's work arrays: log emission table and weights, the per-chunk slots of
    # the expected counts, totals and log-likelihoods, and their reduction.
    n_states = n_states_of(hard, m)
    return (np.empty((k, m, n_states)), np.empty(n_states),
            np.empty((n_chunks, k, m, n_states)), np.empty((n_chunks, n_states)),
            np.empty(n_chunks), np.empty((k, m, n_states)), np.empty(n_states))


# Inlined into `_em_run` (its one call site there); `_em_run_parallel` calls it from Python.
@njit(cache=True, error_model="numpy", inline="always")
def _em_after_estep(t, ll, model, hard, a, cap, max_iter, tol, n_eff, logtab, logw, cnt, tot,
                    groups, n_groups, jw, known_cnt, known_tot, phi, pi, eps, conf, theta, xi,
                    q, trace):
    # Everything of EM iteration t after its E-step (log-likelihood ll, expected
    # counts cnt/tot): the known items' counts, the objective trace[t], the
    # convergence test and, unless done, the M-step and the next tables.
    # Returns 1 when converged, 2 at max_iter, else 0.
    k, m, n_states = logtab.shape
    known = 0.0  # a loop, not known_tot.sum(): Numba's array sum compiles on its own
    for s in range(n_states):
        known += known_tot[s]
    if known > 0.0:
        for j in range(k):
            for x in range(m):
                for s in range(n_states):
                    c = known_cnt[j, x, s]
                    if c > 0.0:
                        ll += c * logtab[j, x, s]
                        cnt[j, x, s] += c
        for s in range(n_states):
            if known_tot[s] > 0.0:
                ll += known_tot[s] * logw[s]
                tot[s] += known_tot[s]
    if n_groups < k:
        _pool(cnt, groups, n_groups)
    trace[t] = ll + _log_prior(model, hard, a, (phi, pi, eps, conf, theta, xi, q), jw)
    if t > 0 and trace[t] - trace[t - 1] <= tol * abs(trace[t]):
        return 1
    if t == max_iter:
        return 2
    _mstep(model, hard, a, cap, cnt, tot, n_eff, (phi, pi, eps, conf, theta, xi, q))
    _build_tables(model, hard, (phi, pi, eps, conf, theta, xi, q), logtab, logw)
    return 0


# nogil: independent runs (a block of bootstrap refits, `_em._PatternRefits.block`) may run
# side by side on Python threads; each run is serial and its result does not depend on them.
@njit(cache=True, error_model="numpy", nogil=True)
def _em_run(codes, weights, model, hard, a, cap, max_iter, tol, n_eff, n_chunks, init_mv,
            h_agree, h_dis, phi, pi, eps, conf, theta, xi, q, trace, groups, n_groups, jw,
            known_cnt, known_tot):
    # One EM run from the given parameters (or from the majority-vote start
    # when init_mv), updating them in place, with the serial E-step (the
    # parallel run is the same loop in Python: `run_em`). trace[t] is the
    # objective (log-likelihood + log prior) after t M-steps; it never decreases.
    # Returns (t_final, converged); the parameters are those of trace[t_final].
    # known_cnt[j, x, s], known_tot[s]: the counts of items whose state is known
    # (gold), not in `codes`; added to every E-step's expected counts, and their
    # complete-data log-likelihood Σ cnt·log P_j(x|s) + Σ tot·log w_s to the objective.
    #
    # `_em_after_estep` is inlined here (Numba's inline="always"): compiled on its own and
    # linked in, its code (the M-step, the prior, the tables) was optimised and turned
    # into machine code twice, about 2 s of CPU of a first fit. Inlined, it must have one
    # call site: the majority-vote start is the pass t = -1 of the loop.
    logtab, logw, counts, totals, lls, cnt, tot = _em_buffers(codes.shape[1], phi.shape[0],
                                                               hard, n_chunks)
    if not init_mv:
        _build_tables(model, hard, (phi, pi, eps, conf, theta, xi, q), logtab, logw)
    # Compiled code calls only the serial E-step; the parallel build is called from
    # Python (`_em_run_parallel`), never from another compiled and cached function. (The
    # crash after cache reuse was the parallel build loaded under the serial one's cache
    # name and linked in here; the two builds now have separate cache files:
    # `serial_and_parallel`.)
    t = -1 if init_mv else 0
    while t <= max_iter:
        # The start's pass: the E-step from the vote shares, then the M-step as iteration
        # 0 of a one-step run (trace: a scratch slot, `lls`).
        start = t < 0
        _estep_serial(codes, weights, logtab, logw, n_chunks, counts, totals, lls, start,
                      h_agree, h_dis)
        ll = _reduce(counts, totals, lls, cnt, tot)
        status = _em_after_estep(0 if start else t, ll, model, hard, a, cap,
                                 1 if start else max_iter, tol, n_eff, logtab, logw, cnt, tot,
                                 groups, n_groups, jw, known_cnt, known_tot, phi, pi, eps,
                                 conf, theta, xi, q, lls if start else trace)
        if status and not start:
            return t, status == 1
        t += 1
    return max_iter, False


def _em_run_parallel(codes, weights, model, hard, a, cap, max_iter, tol, n_eff, n_chunks,
                     init_mv, h_agree, h_dis, phi, pi, eps, conf, theta, xi, q, trace, groups,
                     n_groups, jw, known_cnt, known_tot):
    # `_em_run` with the parallel E-step, the loop in Python: the parallel kernel
    # is called from here only. Same arithmetic in the same order as `_em_run`.
    logtab, logw, counts, totals, lls, cnt, tot = _em_buffers(codes.shape[1], phi.shape[0],
                                                               hard, n_chunks)
    if init_mv:
        _estep_parallel(codes, weights, logtab, logw, n_chunks, counts, totals, lls, True,
                        h_agree, h_dis)
        _reduce(counts, totals, lls, cnt, tot)
        _em_after_estep(0, 0.0, model, hard, a, cap, 1, tol, n_eff, logtab, logw, cnt, tot,
                        groups, n_groups, jw, known_cnt, known_tot, phi, pi, eps, conf, theta,
                        xi, q, lls)
    else:
        _build_tables(model, hard, (phi, pi, eps, conf, theta, xi, q), logtab, logw)
    for t in range(max_iter + 1):
        _estep_parallel(codes, weights, logtab, logw, n_chunks, counts, totals, lls, False,
                        0.0, 0.0)
        ll = _reduce(counts, totals, lls, cnt, tot)
        status = _em_after_estep(t, ll, model, hard, a, cap, max_iter, tol, n_eff, logtab, logw,
                                 cnt, tot, groups, n_groups, jw, known_cnt, known_tot, phi, pi,
                                 eps, conf, theta, xi, q, trace)
        if status:
            return t, status == 1
    return max_iter, False


# -------------------------------------------------------- per-item posteriors
@njit(cache=True, error_model="numpy", inline="always")
def _row_label(ls, vote, m):
    # A row's label: the most probable easy state (its log score ls[c], c < m), ties to
    # the first; where no easy state is possible, the majority vote (ties to the first).
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
    return best


def _posterior_impl(codes, logtab, logw, class_post, hard_post, labels, label_post, ll):
    # Final pass: per-item posteriors, labels and log-likelihood terms.
    # label = the most probable easy state; where no easy state is possible
    # (a disagreed item under the perfect emission), the majority vote with
    # ties to the first category. label_post = P(easy and class = label | x).
    n, k = codes.shape
    n_states = logw.shape[0]
    m = logtab.shape[1]
    for i in prange(n):
        ls = np.empty(n_states)
        vote = np.zeros(m)
        for s in range(n_states):
            ls[s] = logw[s]
        r = 0
        for j in range(k):
            x = codes[i, j]
            if x >= 0:
                r += 1
                vote[x] += 1.0
                for s in range(n_states):
                    ls[s] += logtab[j, x, s]
        mx = -np.inf
        for s in range(n_states):
            if ls[s] > mx:
                mx = ls[s]
        best = _row_label(ls, vote, m)
        if mx == -np.inf:
            ll[i] = -np.inf
            for c in range(m):
                class_post[i, c] = np.nan
            if n_states > m:
                hard_post[i] = np.nan
            labels[i] = best
            label_post[i] = np.nan
            continue
        z = 0.0
        for s in range(n_states):
            ls[s] = np.exp(ls[s] - mx)
            z += ls[s]
        ll[i] = (mx + np.log(z)) if r > 0 else 0.0
        if n_states > m + 1:
            # hard="difficulty": P(c | x) = P(easy | x) P(c | x, easy) + P(hard | x) v_c,
            # v_c the posterior mean of the item's own label distribution (its ratings, each
            # a draw from it with the annotator's competence, under a Dirichlet(SHARE_PRIOR/m)
            # prior: _hard_label_mean), which is what decides a hard item's label;
            # label: the best easy state
            ez = 0.0
            for c in range(m):
                ez += ls[c]
            h = 1.0 - ez / z
            v = np.empty(m)
            _hard_label_mean(codes[i], logtab, v)
            for c in range(m):
                class_post[i, c] = (ls[c] / ez if ez > 0.0 else v[c]) * (1.0 - h) + h * v[c]
            hard_post[i] = h
            labels[i] = best
            label_post[i] = class_post[i, best]
            continue
        for c in range(m):
            class_post[i, c] = ls[c] / z
        if n_states > m:
            hard_post[i] = ls[m] / z
        labels[i] = best
        label_post[i] = ls[best] / z


_posterior_serial, _posterior_parallel = serial_and_parallel(_posterior_impl, error_model="numpy")


# --------------------------------------------------------------- the wrappers
def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view (no copy): kernels then see one array type whether the caller's
    array was writable or not, and compile one specialisation, not two."""
    if not a.flags.writeable:
        return a
    view = a.view()
    view.flags.writeable = False
    return view


def run_em(codes, model, hard, a, cap, max_iter, tol, n_eff, init_mv, h_agree, h_dis,
           phi, pi, eps, conf, theta, xi, q, *, weights=None, parallel=None, groups=None,
           known=None):
    """Run EM in place on the parameter arrays; return (trace, n_iter, converged).

    ``groups[j]`` (0..G-1) names the annotator of column ``j``: columns of one
    group (an annotator's replicates) share their parameters. Default: each
    column its own annotator. ``known = (cnt[j, x, s], tot[s])``: the counts of
    items whose state is known (gold), which are not among ``codes``.
    """
    codes = _readonly(np.ascontiguousarray(codes))
    n, k = codes.shape
    if groups is None:
        groups = np.arange(k, dtype=np.int64)
    groups = _readonly(np.ascontiguousarray(groups, dtype=np.int64))
    n_groups = int(groups.max()) + 1
    jw = 1.0 / np.bincount(groups, minlength=n_groups)[groups].astype(np.float64)
    weights = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    m = phi.shape[0]
    n_states = n_states_of(hard, m)
    if parallel is None:
        parallel = codes.size >= PARALLEL_THRESHOLD
    n_chunks = n_chunks_for(n, k, m, n_states)
    trace = np.empty(max_iter + 1)
    if known is None:
        known = (np.zeros((k, m, n_states)), np.zeros(n_states))
    known_cnt = np.ascontiguousarray(known[0], dtype=np.float64)
    known_tot = np.ascontiguousarray(known[1], dtype=np.float64)
    run = _em_run_parallel if parallel else _em_run
    t, conv = run(codes, weights, model, hard, float(a), float(cap), int(max_iter), float(tol),
                  float(n_eff), n_chunks, bool(init_mv), float(h_agree), float(h_dis), phi, pi,
                  eps, conf, theta, xi, q, trace, groups, n_groups, jw, known_cnt, known_tot)
    return trace[: t + 1].copy(), int(t), bool(conv)


def hard_label_means(codes, logtab, *, parallel=None):
    """Per item, the posterior mean of a hard item's own label distribution (items ×
    classes) under the spam emission of ``logtab``'s easy columns (:func:`_hard_label_mean`)."""
    codes = _readonly(np.ascontiguousarray(codes))
    logtab = np.ascontiguousarray(logtab, dtype=np.float64)
    if parallel is None:
        parallel = codes.size >= PARALLEL_THRESHOLD
    out = np.empty((codes.shape[0], logtab.shape[1]))
    (_hard_means_parallel if parallel else _hard_means_serial)(codes, logtab, out)
    return out


def tables(model, hard, phi, pi, eps, conf, theta, xi, q):
    """The log emission table ``logtab[j, x, s]`` and log weights ``logw[s]``."""
    k, m = q.shape
    n_states = n_states_of(hard, m)
    logtab = np.empty((k, m, n_states))
    logw = np.empty(n_states)
    _build_tables(model, hard, (phi, pi, eps, conf, theta, xi, q), logtab, logw)
    return logtab, logw


def estep_counts(codes, logtab, logw, *, weights=None, parallel=None, init=None):
    """Expected counts ``(cnt[j, x, s], tot[s], loglik)`` of one E-step (for tests)."""
    codes = _readonly(np.ascontiguousarray(codes))
    n, k = codes.shape
    weights = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    m, n_states = logtab.shape[1], logtab.shape[2]
    if parallel is None:
        parallel = codes.size >= PARALLEL_THRESHOLD
    n_chunks = n_chunks_for(n, k, m, n_states)
    counts = np.empty((n_chunks, k, m, n_states))
    totals = np.empty((n_chunks, n_states))
    lls = np.empty(n_chunks)
    cnt = np.empty((k, m, n_states))
    tot = np.empty(n_states)
    h_agree, h_dis = (0.0, 0.0) if init is None else init
    logtab = np.ascontiguousarray(logtab, dtype=np.float64)
    logw = np.ascontiguousarray(logw, dtype=np.float64)
    fn = _estep_parallel if parallel else _estep_serial
    fn(codes, weights, logtab, logw, n_chunks, counts, totals, lls, init is not None,
       float(h_agree), float(h_dis))
    return cnt, tot, _reduce(counts, totals, lls, cnt, tot)


def posteriors(codes, logtab, logw, *, parallel=None):
    """Per-item ``(class_post, hard_post, labels, label_post, loglik_terms)``."""
    codes = _readonly(np.ascontiguousarray(codes))
    n = codes.shape[0]
    m, n_states = logtab.shape[1], logtab.shape[2]
    if parallel is None:
        parallel = codes.size >= PARALLEL_THRESHOLD
    class_post = np.empty((n, m))
    hard_post = np.empty(n if n_states > m else 0)
    labels = np.empty(n, dtype=np.int64)
    label_post = np.empty(n)
    ll = np.empty(n)
    fn = _posterior_parallel if parallel else _posterior_serial
    fn(codes, logtab, logw, class_post, hard_post, labels, label_post, ll)
    return class_post, hard_post, labels, label_post, ll
