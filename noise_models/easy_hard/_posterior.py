"""The posterior over the number of hard items (SPEC §2.2).

``P(H = h | d) ∝ C(h, d) · p^(h-d) · π(h)`` for ``h = d..n`` (Beigman
Klebanov & Beigman 2009, eq. (1)). :func:`hard_count_posterior` returns a
:class:`HardCountPosterior`, a discrete distribution with ``pmf``, ``cdf``,
``sf``, ``mean``, ``quantile`` and ``support``, backed by one of:

* the negative-binomial closed form (uniform prior): ``H − d`` is
  negative-binomial with ``d + 1`` successes of probability ``1 − p``,
  truncated at ``n − d``; CDFs are regularised incomplete beta functions, so
  every query is O(1) at any n;
* a log-space Numba pass over ``h = d..n`` (any prior), stored as per-block
  log sums so that memory stays small at n = 1e9;
* an explicit log-pmf array (the per-item generalisation for items with their
  own chance agreement ``p_i``, and the far-tail window of the uniform prior).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import (
    Alpha,
    check_alpha,
    check_count,
    check_params,
    check_probability,
    validate_params,
)

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
special = lazy_module("scipy.special")
_kernels = lazy_module("noise_models.easy_hard._kernels")
_nbq = lazy_module("noise_models.easy_hard._nbquantile")

__all__ = ["HardCountPosterior", "hard_count_posterior"]

BLOCK = 4096
# Below this F(n - d) the closed form's ratios lose their digits; the far-tail
# window of the log-space pass takes over.
_TINY = 1e-280
# Terms more than this many nats below the largest one are left out of the
# tail window (their total is < n·e^-80 < 1e-25 of the mass for n <= 1e9).
_WINDOW_NATS = 80.0
_PRIOR_NAMES = ("uniform", "beta-binomial", "binomial")
# Largest agreed count for the untruncated per-item recurrence (non-log-concave priors).
_MAX_FULL_DP = 20_000


# ------------------------------------------------------------------------- priors
@dataclass(frozen=True, repr=False)
class _Prior:
    """A validated prior on the number of hard items H in 0..n."""

    kind: int
    a: float = 1.0
    b: float = 1.0
    rate: float = math.nan
    vector: np.ndarray | None = None  # normalised to max 1, read-only

    @property
    def spec(self) -> Any:
        if self.kind == _kernels.KIND_UNIFORM:
            return "uniform"
        if self.kind == _kernels.KIND_BETA_BINOMIAL:
            return ("beta-binomial", self.a, self.b)
        if self.kind == _kernels.KIND_BINOMIAL:
            return ("binomial", self.rate)
        return self.vector

    def describe(self) -> str:
        if self.kind == _kernels.KIND_UNIFORM:
            return "uniform"
        if self.kind == _kernels.KIND_BETA_BINOMIAL:
            return f"beta-binomial(a={self.a:g}, b={self.b:g})"
        if self.kind == _kernels.KIND_BINOMIAL:
            return f"binomial(rate={self.rate:g})"
        return f"user vector (length {self.vector.size})"

    @property
    def odds(self) -> float:
        return self.rate / (1.0 - self.rate) if self.kind == _kernels.KIND_BINOMIAL else 1.0

    @property
    def log_concave(self) -> bool:
        if self.kind in (_kernels.KIND_UNIFORM, _kernels.KIND_BINOMIAL):
            return True
        if self.kind == _kernels.KIND_BETA_BINOMIAL:
            return self.a >= 1.0 and self.b >= 1.0
        return False

    def log_prior(self, n: int, h: np.ndarray) -> np.ndarray:
        """``log π(h)`` up to a constant, exactly (no recurrence)."""
        h = np.asarray(h, dtype=np.float64)
        if self.kind == _kernels.KIND_UNIFORM:
            return np.zeros_like(h)
        lc = special.gammaln(n + 1.0) - special.gammaln(h + 1.0) - special.gammaln(n - h + 1.0)
        if self.kind == _kernels.KIND_BETA_BINOMIAL:
            return lc + special.betaln(h + self.a, n - h + self.b) - special.betaln(self.a, self.b)
        if self.kind == _kernels.KIND_BINOMIAL:
            return lc + h * math.log(self.rate) + (n - h) * math.log1p(-self.rate)
        with np.errstate(divide="ignore"):
            return np.log(self.vector[h.astype(np.int64)])


def _positive_number(x: Any, what: str) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{what} must be a number; got {x!r}.")
    f = float(x)
    if not (math.isfinite(f) and f > 0):
        raise ValueError(f"{what} must be a finite number > 0; got {x!r}.")
    return f


def check_prior(prior: Any, n: int) -> _Prior:
    """Validate a prior specification (see :func:`hard_count_posterior`)."""
    if isinstance(prior, _Prior):
        return prior
    if isinstance(prior, str):
        if prior == "uniform":
            return _Prior(_kernels.KIND_UNIFORM)
        raise ValueError(
            f"`prior` must be 'uniform', ('beta-binomial', a, b), ('binomial', rate) or a "
            f"vector of n + 1 = {n + 1} weights; got the string {prior!r}."
        )
    if isinstance(prior, tuple) and prior and isinstance(prior[0], str):
        name = prior[0]
        if name == "beta-binomial":
            if len(prior) != 3:
                raise ValueError("`prior=('beta-binomial', a, b)` needs exactly two shape "
                                 f"parameters; got {prior!r}.")
            a = _positive_number(prior[1], "`prior`'s beta-binomial `a`")
            b = _positive_number(prior[2], "`prior`'s beta-binomial `b`")
            return _Prior(_kernels.KIND_BETA_BINOMIAL, a=a, b=b)
        if name == "binomial":
            if len(prior) != 2:
                raise ValueError(f"`prior=('binomial', rate)` needs one rate; got {prior!r}.")
            rate = check_probability(prior[1], "`prior`'s binomial rate", open_low=True,
                                     open_high=True)
            return _Prior(_kernels.KIND_BINOMIAL, rate=rate)
        raise ValueError(f"`prior` name must be one of {_PRIOR_NAMES}; got {name!r}.")
    if isinstance(prior, (list, tuple, np.ndarray)):
        vec = np.asarray(prior)
        if vec.dtype.kind not in "biuf":
            raise TypeError(f"a `prior` vector must hold numbers; got dtype {vec.dtype}.")
        vec = vec.astype(np.float64)
        if vec.ndim != 1 or vec.size != n + 1:
            raise ValueError(
                f"a `prior` vector must have length n + 1 = {n + 1} (one weight for each "
                f"h = 0..n); got shape {vec.shape}."
            )
        if not np.all(np.isfinite(vec)) or np.any(vec < 0):
            raise ValueError("a `prior` vector must be finite and non-negative.")
        top = float(vec.max())
        if top <= 0:
            raise ValueError("a `prior` vector must have a positive entry; it is all zeros.")
        vec = vec / top
        vec.setflags(write=False)
        return _Prior(_kernels.KIND_VECTOR, vector=vec)
    raise TypeError(
        f"`prior` must be 'uniform', a tuple such as ('beta-binomial', a, b) or "
        f"('binomial', rate), or a vector of n + 1 weights; got {type(prior).__name__}."
    )


#: Beyond this, a float no longer holds every integer (2**53).
_EXACT_FLOAT_INT = 2 ** 53


# ----------------------------------------------------------------------- searching
def _first_true(pred: Callable[[int], bool], lo: int, hi: int, guess: int) -> int:
    """Smallest j in [lo, hi] with ``pred(j)``; ``pred`` is monotone and ``pred(hi)`` holds."""
    g = min(max(guess, lo), hi)
    if pred(g):
        true_at, step = g, 1
        false_at = lo - 1
        while true_at - step >= lo:
            if pred(true_at - step):
                true_at -= step
                step *= 2
            else:
                false_at = true_at - step
                break
    else:
        false_at, step = g, 1
        true_at = hi
        while false_at + step < hi:
            if pred(false_at + step):
                true_at = false_at + step
                break
            false_at += step
            step *= 2
    while true_at - false_at > 1:
        mid = (true_at + false_at) // 2
        if pred(mid):
            true_at = mid
        else:
            false_at = mid
    return true_at


# ------------------------------------------------------------------------- backends
class _Backend:
    lo: int
    hi: int
    method: str

    def logpmf(self, h: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def log_cdf(self, h: int) -> float:
        raise NotImplementedError

    def log_sf(self, h: int) -> float:
        raise NotImplementedError

    def mean(self) -> float:
        raise NotImplementedError

    def first_cdf_above(self, q: float, strict: bool) -> int:
        """Smallest h with ``cdf(h) > q`` (strict) or ``cdf(h) >= q``."""
        raise NotImplementedError


class _PointBackend(_Backend):
    method = "point mass"

    def __init__(self, h: int) -> None:
        self.lo = self.hi = h

    def logpmf(self, h):
        return np.where(h == self.lo, 0.0, -np.inf)

    def log_cdf(self, h):
        return 0.0 if h >= self.lo else -math.inf

    def log_sf(self, h):
        return -math.inf if h >= self.lo else 0.0

    def mean(self):
        return float(self.lo)

    def first_cdf_above(self, q, strict):
        return self.lo


class _DiscreteUniformBackend(_Backend):
    """Uniform on lo..hi (the uniform prior when p = 1 and d = 0: nothing is learned)."""

    method = "discrete uniform (posterior = prior)"

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi
        self._m = hi - lo + 1

    def logpmf(self, h):
        return np.where((h >= self.lo) & (h <= self.hi), -math.log(self._m), -np.inf)

    def log_cdf(self, h):
        if h < self.lo:
            return -math.inf
        return 0.0 if h >= self.hi else math.log((h - self.lo + 1) / self._m)

    def log_sf(self, h):
        if h < self.lo:
            return 0.0
        return -math.inf if h >= self.hi else math.log((self.hi - h) / self._m)

    def mean(self):
        return 0.5 * (self.lo + self.hi)

    def first_cdf_above(self, q, strict):
        # cdf(h) = (h - lo + 1)/m; exact integer arithmetic where q·m is whole.
        x = q * self._m
        k = math.floor(x) + 1 if strict else math.ceil(x)
        return min(max(self.lo + k - 1, self.lo), self.hi)


class _NegBinBackend(_Backend):
    """Uniform prior: ``H - d`` ~ NB(d + 1 successes, success prob 1 - p), truncated at n - d."""

    method = "negative-binomial closed form"

    def __init__(self, n: int, d: int, p: float, fn: float) -> None:
        self.lo, self.hi = d, n
        self.n, self.d, self.p = n, d, p
        self.r = float(d + 1)
        self.s = 1.0 - p
        self.big_n = n - d
        self.fn = fn  # F(n - d)
        self.sn = float(special.betaincc(self.r, self.big_n + 1.0, self.s))
        self.log_fn = math.log(fn)

    # F(j) = P(NB <= j) = I_{1-p}(d + 1, j + 1); S(j) = 1 - F(j).
    def _F(self, j):
        return special.betainc(self.r, np.asarray(j, dtype=np.float64) + 1.0, self.s)

    def _S(self, j):
        return special.betaincc(self.r, np.asarray(j, dtype=np.float64) + 1.0, self.s)

    def logpmf(self, h):
        j = np.asarray(h, dtype=np.float64) - self.d
        inside = (j >= 0) & (j <= self.big_n)
        jj = np.where(inside, j, 0.0)
        # log C(j + d, d) = -log(j + d + 1) - log B(d + 1, j + 1)
        lp = (-np.log(jj + self.r) - special.betaln(self.r, jj + 1.0)
              + self.r * math.log1p(-self.p) + jj * math.log(self.p) - self.log_fn)
        return np.where(inside, lp, -np.inf)

    def log_cdf(self, h):
        j = h - self.d
        if j < 0:
            return -math.inf
        if j >= self.big_n:
            return 0.0
        f = float(self._F(j))
        if f > 0.5:
            return math.log1p(-float(self._S(j))) - self.log_fn
        return math.log(f) - self.log_fn if f > 0 else -math.inf

    def log_sf(self, h):
        j = h - self.d
        if j < 0:
            return 0.0
        if j >= self.big_n:
            return -math.inf
        if self.fn <= 0.5:
            num = self.fn - float(self._F(j))
        else:
            num = float(self._S(j)) - self.sn
        if num <= 0.0:
            # Rounding ate the difference: sum the few remaining terms directly.
            if self.big_n - j <= 1_000_000:
                tail = self.logpmf(np.arange(h + 1, self.n + 1))
                return float(special.logsumexp(tail))
            return -math.inf
        return math.log(num) - self.log_fn

    def mean(self):
        if self.big_n == 0:
            return float(self.d)
        # E[X; X <= N] = r·p/(1-p) · F_{r+1}(N - 1) for X ~ NB(r, 1 - p).
        part = float(special.betainc(self.r + 1.0, float(self.big_n), self.s))
        return self.d + self.r * self.p / self.s * part / self.fn

    def first_cdf_above(self, q, strict):
        target_f = q * self.fn
        big_n = self.big_n
        qsn = q * self.sn
        # The comparisons are written so that the subtraction of nearby numbers is exact
        # (Sterbenz): ties such as F(0) = 1 - p = q are then decided correctly.
        if target_f <= 0.5:
            if self.fn >= 0.5:
                # F(j) > q·F(N) = q - q·S(N)
                def gap(j):
                    return (float(self._F(j)) - q) + qsn
            else:
                def gap(j):
                    return float(self._F(j)) - target_f
            guess = special.nbdtrik(target_f, self.r, self.s)
        else:
            # F(j) > q·F(N)  <=>  S(j) < (1 - q) + q·S(N), accurate near q = 1.
            one_minus_q = 1.0 - q

            def gap(j):
                return qsn - (float(self._S(j)) - one_minus_q)

            target_s = one_minus_q + qsn
            guess = (special.nbdtrik(1.0 - target_s, self.r, self.s) if target_s > 1e-8
                     else math.nan)
        if strict:
            def pred(j):
                return gap(j) > 0.0
        else:
            def pred(j):
                return gap(j) >= 0.0
        if not math.isfinite(guess):
            guess = self.r * self.p / self.s
        j = _first_true(pred, 0, big_n, math.floor(max(guess, 0.0)) + (1 if strict else 0))
        return self.d + j


class _LargeNegBinBackend(_NegBinBackend):
    """The uniform prior at large counts: ``(d + 1)·p ≥ 1e7``, or ``d + 1`` beyond 2**53.

    There ``betainc(d + 1, j + 1, 1 - p)`` in floats either sees ``d`` and ``j``
    rounded (by up to 1024 at d = 1e19) or loses the digits that decide the last
    item (one item off at n = 1e15 in the exact tie p = alpha = 1/2). The bound's
    quantile is then the third-order Cornish–Fisher expansion with Sheppard's
    lattice correction, in exact integers and decimal arithmetic (:mod:`._nbquantile`):
    its error is below 1e-9 of an item there. The pmf, cdf and sf are the float closed form's
    while floats hold the counts, and beyond 2**53 the Edgeworth series to the
    skewness term (for display; the bound does not use them).
    """

    method = ("negative-binomial closed form (third-order Cornish-Fisher in exact "
              "integers and decimal arithmetic, at large counts)")

    def __init__(self, n: int, d: int, p: float, fn: float) -> None:
        super().__init__(n, d, p, fn)
        self._floats_hold = d + 1 <= _EXACT_FLOAT_INT
        from fractions import Fraction

        r = d + 1
        self._mu = Fraction(r) * Fraction(p) / Fraction(1.0 - p)  # exact
        rp = float(r) * p
        self._sigma = math.sqrt(rp) / (1.0 - p)
        self._g1 = (1.0 + p) / math.sqrt(rp)
        self._g2 = 6.0 / float(r) + (1.0 - p) ** 2 / rp

    def _t(self, j: Any) -> float:
        """Standardised ``j + 1/2`` (continuity correction), from exact integers."""
        return float(j - self._mu + 0.5) / self._sigma

    def _edgeworth_cdf(self, t: float) -> float:
        return float(special.ndtr(t) - self._g1 / 6.0 * (t * t - 1.0) * _phi(t))

    def logpmf(self, h):
        if self._floats_hold:  # the float closed form is exact there
            return super().logpmf(h)
        flat = np.asarray(h, dtype=object).ravel()
        out = np.empty(flat.shape)
        for k, v in enumerate(flat):
            j = int(v) - self.d
            if j < 0 or j > self.big_n:
                out[k] = -math.inf
                continue
            t = float(j - self._mu) / self._sigma
            dens = _phi(t) * (1.0 + self._g1 / 6.0 * (t ** 3 - 3.0 * t)) / self._sigma
            out[k] = math.log(dens) - self.log_fn if dens > 0 else -math.inf
        return out.reshape(np.shape(h))

    def log_cdf(self, h):
        if self._floats_hold:  # the float closed form is exact there
            return super().log_cdf(h)
        j = h - self.d
        if j < 0:
            return -math.inf
        if j >= self.big_n:
            return 0.0
        f = self._edgeworth_cdf(self._t(j))
        return math.log(min(f, self.fn)) - self.log_fn if f > 0 else -math.inf

    def log_sf(self, h):
        if self._floats_hold:  # the float closed form is exact there
            return super().log_sf(h)
        j = h - self.d
        if j < 0:
            return 0.0
        if j >= self.big_n:
            return -math.inf
        num = self.fn - self._edgeworth_cdf(self._t(j))
        return math.log(num) - self.log_fn if num > 0 else -math.inf

    def mean(self):
        if self._floats_hold:  # the float closed form is exact there
            return super().mean()
        return float(self.d + self._mu)

    def first_cdf_above(self, q, strict):
        from noise_models.easy_hard._nbquantile import nb_quantile

        return self.d + nb_quantile(self.d, self.p, self.big_n, q, strict)


def _phi(t: float) -> float:
    return math.exp(-0.5 * t * t) / math.sqrt(2.0 * math.pi)


class _BlockedBackend(_Backend):
    """Log terms over lo..hi in blocks of ``BLOCK``; subclasses supply each block's terms."""

    def _setup(self, lo: int, hi: int, logsum: np.ndarray, loghsum: np.ndarray) -> None:
        self.lo, self.hi = lo, hi
        self.logsum = logsum
        self.loghsum = loghsum
        with np.errstate(invalid="ignore"):
            self.cum_lo = np.logaddexp.accumulate(logsum)
            self.cum_hi = np.logaddexp.accumulate(logsum[::-1])[::-1]
        self.log_z = float(self.cum_lo[-1])
        if not math.isfinite(self.log_z):
            raise ValueError("the posterior has no mass: the prior gives zero weight to every "
                             "h >= d (the observed disagreements).")
        nb = logsum.size
        # after[b]: log of the mass above block b.
        self.after = np.empty(nb)
        self.after[:-1] = self.cum_hi[1:]
        self.after[-1] = -np.inf

    def _block_terms(self, bi: int) -> np.ndarray:
        raise NotImplementedError

    def _start(self, bi: int) -> int:
        return self.lo + bi * BLOCK

    def logpmf(self, h):
        h = np.asarray(h, dtype=np.int64)
        out = np.full(h.shape, -np.inf)
        inside = (h >= self.lo) & (h <= self.hi)
        if np.any(inside):
            hi_ = h[inside]
            blocks = (hi_ - self.lo) // BLOCK
            vals = np.empty(hi_.shape)
            for bi in np.unique(blocks):
                sel = blocks == bi
                terms = self._block_terms(int(bi))
                vals[sel] = terms[hi_[sel] - self._start(int(bi))]
            out[inside] = vals - self.log_z
        return out

    def log_cdf(self, h):
        if h < self.lo:
            return -math.inf
        if h >= self.hi:
            return 0.0
        bi = (h - self.lo) // BLOCK
        terms = self._block_terms(bi)[: h - self._start(bi) + 1]
        before = self.cum_lo[bi - 1] if bi > 0 else -math.inf
        return min(float(np.logaddexp(before, special.logsumexp(terms))) - self.log_z, 0.0)

    def log_sf(self, h):
        if h < self.lo:
            return 0.0
        if h >= self.hi:
            return -math.inf
        bi = (h - self.lo) // BLOCK
        terms = self._block_terms(bi)[h - self._start(bi) + 1:]
        part = special.logsumexp(terms) if terms.size else -math.inf
        return min(float(np.logaddexp(self.after[bi], part)) - self.log_z, 0.0)

    def mean(self):
        return float(np.exp(special.logsumexp(self.loghsum) - self.log_z))

    def first_cdf_above(self, q, strict):
        if q <= 0.5:
            target = math.log(q) + self.log_z
            side = "right" if strict else "left"
            bi = int(np.searchsorted(self.cum_lo, target, side=side))
            bi = min(bi, self.logsum.size - 1)
            terms = self._block_terms(bi)
            before = self.cum_lo[bi - 1] if bi > 0 else -math.inf
            with np.errstate(invalid="ignore"):
                cum = np.logaddexp.accumulate(np.concatenate(([before], terms)))[1:]
            hit = cum > target if strict else cum >= target
        else:
            # cdf(h) > q  <=>  sf(h) < 1 - q: compare upper tails, accurate near q = 1.
            target = math.log1p(-q) + self.log_z
            neg_after = -self.after
            side = "right" if strict else "left"
            bi = int(np.searchsorted(neg_after, -target, side=side))
            bi = min(bi, self.logsum.size - 1)
            terms = self._block_terms(bi)
            with np.errstate(invalid="ignore"):
                suffix = np.logaddexp.accumulate(terms[::-1])[::-1]
                above = np.empty(terms.size)
                above[:-1] = np.logaddexp(self.after[bi], suffix[1:])
                above[-1] = self.after[bi]
            hit = above < target if strict else above <= target
        k = int(np.argmax(hit)) if np.any(hit) else terms.size - 1
        return min(self._start(bi) + k, self.hi)


class _KernelBackend(_BlockedBackend):
    """Any prior: one log-space Numba pass over h = lo..hi (SPEC §2.3, general priors)."""

    method = "log-space kernel"

    def __init__(self, n: int, d: int, p: float, prior: _Prior, lo: int | None = None,
                 hi: int | None = None, anchor0: float = 0.0) -> None:
        lo = d if lo is None else lo
        hi = n if hi is None else hi
        self.n, self.d, self.p, self.prior = n, d, p, prior
        self._args = (prior.kind, p, prior.a, prior.b, prior.odds, prior.vector)
        logsum, loghsum, anchors, _ = _kernels.posterior_blocks(
            n, d, lo, hi, BLOCK, prior.kind, p, prior.a, prior.b, prior.odds, prior.vector,
            anchor0)
        self.anchors = anchors
        self._setup(lo, hi, logsum, loghsum)

    def _block_terms(self, bi):
        start = self._start(bi)
        count = min(BLOCK, self.hi - start + 1)
        kind, p, a, b, odds, vec = self._args
        return _kernels.block_log_terms(self.n, self.d, start, count, self.hi, kind, p, a, b,
                                        odds, vec, float(self.anchors[bi]))


class _ArrayBackend(_BlockedBackend):
    """An explicit (unnormalised) log pmf on lo..lo + len - 1."""

    def __init__(self, lo: int, logterms: np.ndarray, method: str) -> None:
        self.method = method
        self._terms = np.ascontiguousarray(logterms, dtype=np.float64)
        m = self._terms.size
        nb = (m - 1) // BLOCK + 1
        pad = np.full(nb * BLOCK, -np.inf)
        pad[:m] = self._terms
        h = lo + np.arange(nb * BLOCK, dtype=np.float64)
        with np.errstate(divide="ignore"):
            logh = np.log(h)
        logsum = special.logsumexp(pad.reshape(nb, BLOCK), axis=1)
        loghsum = special.logsumexp((pad + logh).reshape(nb, BLOCK), axis=1)
        self._setup(lo, lo + m - 1, np.asarray(logsum, dtype=np.float64),
                    np.asarray(loghsum, dtype=np.float64))

    def _block_terms(self, bi):
        start = bi * BLOCK
        return self._terms[start: start + BLOCK]


def _log_term_uniform(j: np.ndarray | float, d: int, p: float) -> np.ndarray:
    """``log[C(j + d, d) p^j]`` with gammaln (exact up to rounding)."""
    j = np.asarray(j, dtype=np.float64)
    return (special.gammaln(j + d + 1.0) - special.gammaln(j + 1.0) - special.gammaln(d + 1.0)
            + j * math.log(p))


def _uniform_window(n: int, d: int, p: float) -> _Backend:
    """Uniform prior when F(n - d) underflows: the log-space pass over the window that holds
    the mass (the posterior is log-concave, so that window is one interval)."""
    big_n = n - d
    # The untruncated pmf rises while p(j + d + 1) >= j + 1.
    mode = math.floor((p * (d + 1) - 1.0) / (1.0 - p)) + 1 if p < 1 else big_n
    jm = min(max(mode, 0), big_n)
    top = float(_log_term_uniform(jm, d, p))
    floor_ = top - _WINDOW_NATS

    lo_j = _first_true(lambda j: float(_log_term_uniform(j, d, p)) >= floor_, 0, jm, 0)
    # Largest j >= jm above the floor = (first j with the term below it) - 1.
    if float(_log_term_uniform(big_n, d, p)) >= floor_:
        hi_j = big_n
    else:
        hi_j = _first_true(lambda j: float(_log_term_uniform(j, d, p)) < floor_,
                           jm, big_n, jm) - 1
    anchor = float(_log_term_uniform(lo_j, d, p))
    backend = _KernelBackend(n, d, p, _Prior(_kernels.KIND_UNIFORM), lo=d + lo_j,
                             hi=d + hi_j, anchor0=anchor)
    backend.method = "log-space kernel over the tail window (closed form underflows)"
    return backend


def _backend_for(n: int, d: int, p: float, prior: _Prior, *, use_kernel: bool) -> _Backend:
    if p == 0.0 or d == n:
        return _PointBackend(d)
    if p == 1.0:
        if d > 0:
            raise ValueError(
                f"`p` = 1 means hard items always agree, so the {d} observed disagreement(s) "
                "are impossible under the model. Estimate p from the data (chance_agreement) "
                "or check the counts."
            )
        if prior.kind == _kernels.KIND_UNIFORM:
            return _DiscreteUniformBackend(0, n)
        return _KernelBackend(n, d, p, prior)
    if prior.kind == _kernels.KIND_UNIFORM and not use_kernel:
        fn = float(special.betainc(d + 1.0, n - d + 1.0, 1.0 - p))
        if fn >= _TINY:
            if d + 1 > _EXACT_FLOAT_INT or (d + 1) * p >= _nbq.MIN_RP:
                return _LargeNegBinBackend(n, d, p, fn)
            return _NegBinBackend(n, d, p, fn)
        return _uniform_window(n, d, p)
    return _KernelBackend(n, d, p, prior)


# --------------------------------------------------------------------- public object
def _scalar_or_array(x: Any, out: np.ndarray) -> Any:
    return float(out) if np.ndim(x) == 0 else out


class HardCountPosterior:
    """Posterior distribution of the number ``H`` of hard items given ``d`` disagreements.

    Built by :func:`hard_count_posterior` (or found on
    :attr:`NoiseBoundResult.posterior`). A discrete distribution on
    ``d..n`` with scipy-like methods; ``h`` arguments may be scalars or arrays
    (non-integers are floored by ``cdf``/``sf`` and have ``pmf`` 0, as in
    :mod:`scipy.stats`).

    Attributes
    ----------
    n, d : int
        Items and observed disagreements.
    p : float
        Chance agreement on a hard item (the mean ``p_i`` when items have their own).
    prior : str, tuple or ndarray
        The prior on ``H`` as given (normalised).
    method : str
        How the distribution is computed: ``"negative-binomial closed form"``,
        ``"log-space kernel"``, ``"per-item exact (Poisson-binomial)"``, ...
    """

    def __init__(self, backend: _Backend, *, n: int, d: int, p: float, prior: _Prior) -> None:
        self._backend = backend
        self.n = n
        self.d = d
        self.p = p
        self._prior = prior

    @property
    def prior(self) -> Any:
        return self._prior.spec

    @property
    def method(self) -> str:
        return self._backend.method

    def support(self) -> tuple[int, int]:
        """``(d, n)``: the smallest and largest possible number of hard items."""
        return (self.d, self.n)

    def logpmf(self, h: npt.ArrayLike) -> Any:
        """Log of :meth:`pmf`."""
        raw = np.asarray(h)
        if raw.dtype == object and raw.size and all(
                isinstance(v, numbers.Integral) for v in raw.ravel()):
            # Python integers, maybe beyond int64 (n of 1e20): exact, not through floats
            big = isinstance(self._backend, _LargeNegBinBackend)
            out = np.array([self._backend.logpmf(np.array([int(v)], dtype=object))[0] if big
                            else self._logpmf_int(int(v)) for v in raw.ravel()])
            return _scalar_or_array(h, out.reshape(raw.shape))
        arr = np.asarray(h, dtype=np.float64)
        whole = arr == np.floor(arr)
        hh = np.where(whole & np.isfinite(arr), arr, -1).astype(np.int64)
        out = np.where(whole, self._backend.logpmf(hh), -np.inf)
        return _scalar_or_array(h, out)

    def _logpmf_int(self, h: int) -> float:
        if not -(2 ** 62) < h < 2 ** 62:
            return -math.inf  # beyond int64 the small-d posterior has no mass left
        return float(self._backend.logpmf(np.array([h], dtype=np.int64))[0])

    def pmf(self, h: npt.ArrayLike) -> Any:
        """``P(H = h | d)``."""
        return _scalar_or_array(h, np.exp(np.asarray(self.logpmf(h))))

    def _apply(self, fn: Callable[[int], float], h: npt.ArrayLike) -> Any:
        arr = np.asarray(h, dtype=np.float64)
        flat = np.floor(arr).ravel()
        out = np.empty(flat.shape)
        for t, v in enumerate(flat):
            if v == np.inf:
                out[t] = fn(self.n)
            elif v == -np.inf:
                out[t] = fn(self.d - 1)
            else:
                out[t] = fn(int(v))
        return _scalar_or_array(h, out.reshape(arr.shape))

    def logcdf(self, h: npt.ArrayLike) -> Any:
        """Log of :meth:`cdf`."""
        return self._apply(self._backend.log_cdf, h)

    def cdf(self, h: npt.ArrayLike) -> Any:
        """``P(H <= h | d)``."""
        return _scalar_or_array(h, np.exp(np.asarray(self.logcdf(h))))

    def logsf(self, h: npt.ArrayLike) -> Any:
        """Log of :meth:`sf`, accurate far into the upper tail."""
        return self._apply(self._backend.log_sf, h)

    def sf(self, h: npt.ArrayLike) -> Any:
        """``P(H > h | d)``, the paper's eq. (1)."""
        return _scalar_or_array(h, np.exp(np.asarray(self.logsf(h))))

    def mean(self) -> float:
        """``E[H | d]``."""
        return float(self._backend.mean())

    def quantile(self, q: float) -> int:
        """Smallest ``h`` with ``P(H <= h | d) >= q`` (scipy's ``ppf``), for q in (0, 1)."""
        q = check_probability(q, "q", open_low=True, open_high=True)
        return int(self._backend.first_cdf_above(q, strict=False))

    @validate_params(alpha=Alpha())
    def upper_bound(self, alpha: float) -> int:
        """The paper's ``t0``: smallest ``t`` with ``P(H > t | d) < 1 − alpha``.

        Differs from ``quantile(alpha)`` only when the CDF hits ``alpha`` exactly.
        """
        check_params(HardCountPosterior.upper_bound, locals())
        return int(self._backend.first_cdf_above(check_alpha(alpha), strict=True))

    def __repr__(self) -> str:
        return (f"HardCountPosterior(n={self.n}, d={self.d}, p={self.p:.6g}, "
                f"prior={self._prior.describe()}, mean={self.mean():.6g}, "
                f"method={self.method!r})")


def hard_count_posterior(n: int, d: int, p: float, *, prior: Any = "uniform") -> HardCountPosterior:
    """Posterior over the number of hard items given ``d`` disagreements (SPEC §2.2).

    ``P(H = h | d) ∝ C(h, d) · p^(h−d) · π(h)`` for ``h = d..n``: each of
    the ``h`` hard items is disagreed on with probability ``1 − p``, and every
    easy item is agreed on.

    Parameters
    ----------
    n : int
        Number of items (whole number >= 1; a whole-valued float such as
        ``1e9`` is accepted).
    d : int
        Observed disagreements, ``0 <= d <= n``.
    p : float
        Probability that the annotators agree on a hard item (see
        :func:`chance_agreement`), in [0, 1].
    prior : {"uniform"} or tuple or array_like, default "uniform"
        The prior ``π`` on ``H``: ``"uniform"`` on 0..n (the paper's choice),
        ``("beta-binomial", a, b)`` (a, b > 0; a = b = 1 is the uniform),
        ``("binomial", rate)`` (every item hard independently with
        ``0 < rate < 1``), or a vector of n + 1 non-negative weights.

    Returns
    -------
    HardCountPosterior
        With ``pmf``, ``cdf``, ``sf``, ``logpmf``, ``logcdf``, ``logsf``,
        ``mean``, ``quantile``, ``upper_bound`` and ``support``.

    Raises
    ------
    TypeError
        If a count is not a whole number type, or ``prior`` has the wrong type.
    ValueError
        If ``d > n``, ``p`` is outside [0, 1], ``p = 1`` while ``d > 0``
        (impossible under the model), or the prior has no mass on ``h >= d``.

    Notes
    -----
    With the uniform prior, ``H − d`` is negative-binomial (``d + 1``
    successes of probability ``1 − p``) truncated at ``n − d``; its CDF is the
    regularised incomplete beta ``F(j) = I_{1−p}(d + 1, j + 1)``, so the
    distribution is evaluated in O(1) at any n. When ``F(n − d)`` underflows
    (``p`` near 1 with many disagreements), the log-space kernel sums the
    window that holds the mass instead. Other priors use one log-space Numba
    pass over ``h = d..n`` (about 3 ns per h), kept as per-block log sums.
    ``p = 0`` gives a point mass at ``d``; ``p = 1`` with ``d = 0`` leaves the
    prior unchanged.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503, eq. (1).
    doi:10.1162/coli.2009.35.4.35402

    Examples
    --------
    >>> from noise_models import hard_count_posterior
    >>> post = hard_count_posterior(1000, 100, 0.5)
    >>> post.support()
    (100, 1000)
    >>> round(post.mean(), 2)
    201.0
    >>> post.upper_bound(0.95)          # t0 of the paper's first example
    225
    >>> round(float(post.sf(224)), 4), round(float(post.sf(225)), 4)
    (0.0547, 0.0481)
    """
    n = check_count(n, "n", minimum=1)
    d = check_count(d, "d")
    if d > n:
        raise ValueError(f"`d` (disagreements) cannot exceed `n` (items); got d={d} > n={n}.")
    p = check_probability(p, "p")
    prior_ = check_prior(prior, n)
    backend = _backend_for(n, d, p, prior_, use_kernel=False)
    return HardCountPosterior(backend, n=n, d=d, p=p, prior=prior_)


def kernel_posterior(n: int, d: int, p: float, prior: Any = "uniform") -> HardCountPosterior:
    """The same posterior through the log-space kernel, whatever the prior (for checks)."""
    prior_ = check_prior(prior, n)
    backend = _backend_for(n, d, p, prior_, use_kernel=True)
    return HardCountPosterior(backend, n=n, d=d, p=p, prior=prior_)


def per_item_posterior(n: int, d: int, p_agreed: np.ndarray, p_disagreed: np.ndarray,
                       prior: _Prior) -> HardCountPosterior:
    """Exact posterior of H when every item has its own chance agreement ``p_i``.

    With the hard set exchangeable given its size (equivalently: each item hard
    independently with a rate that has the prior's mixing law),
    ``P(H = d + j | data) ∝ e_j(p_A) · π(d + j) / C(n, d + j)``, where ``e_j``
    is the j-th elementary symmetric polynomial of the agreed items' ``p_i``.
    ``e_j`` is a Poisson-binomial pmf with success probabilities
    ``p_i / (1 + p_i)`` times ``Π (1 + p_i)``; the first ``jmax + 1`` entries
    come from an O(N·jmax) Numba recurrence, with ``jmax`` grown until the
    tail beyond it is below 1e-16 of the mass. With equal ``p_i`` this is the
    negative-binomial posterior of §2.3.
    """
    if np.any(p_disagreed >= 1.0):
        raise ValueError("an item with disagreements has chance agreement p_i = 1, which the "
                         "model rules out; check the q estimates.")
    big_n = n - d
    if big_n == 0:
        return HardCountPosterior(_PointBackend(d), n=n, d=d, p=float(np.mean(p_disagreed)),
                                  prior=prior)
    w = p_agreed / (1.0 + p_agreed)
    if prior.log_concave:
        pmax = float(p_agreed.max())
        if pmax <= 0.0:
            jmax = 0
        else:
            guess = hard_count_posterior(n, d, min(pmax, 1.0 - 1e-12))
            jmax = min(big_n, int(1.25 * (guess.upper_bound(1.0 - 1e-12) - d)) + 64)
    else:
        if big_n > _MAX_FULL_DP:
            raise ValueError(
                f"with items of different chance agreement and a prior that is not log-concave "
                f"({prior.describe()}), the exact bound needs an O((n - d)²) recurrence over "
                f"all {big_n:,} agreed items; use a log-concave prior (uniform, binomial, or "
                "beta-binomial with a, b >= 1) or counts with one p."
            )
        jmax = big_n
    j_all = np.arange(big_n + 1, dtype=np.float64)
    # log C(n, d + j) - log C(n, d) by the ratio recurrence (accurate at any n).
    ratios = np.log((big_n - j_all[:-1]) / (d + j_all[:-1] + 1.0))
    log_binom = np.concatenate(([0.0], np.cumsum(ratios)))
    while True:
        pb, logscale = _kernels.poisson_binomial_head(w, jmax)
        with np.errstate(divide="ignore"):
            logterms = (np.log(pb) + logscale - log_binom[: jmax + 1]
                        + prior.log_prior(n, d + j_all[: jmax + 1]))
        top = float(np.max(logterms))
        if jmax >= big_n or logterms[-1] < top - 40.0 - math.log(big_n + 1.0):
            break
        jmax = min(big_n, 2 * jmax + 64)
    backend = _ArrayBackend(d, logterms, "per-item exact (Poisson-binomial)")
    return HardCountPosterior(backend, n=n, d=d, p=float(np.mean(p_agreed)), prior=prior)
