"""The negative-binomial quantile at any size, in exact integers and decimal arithmetic.

The bound's ``t0 − d`` is the smallest j with ``F(j) > q·F(N)`` (F the CDF of
``NB(r = d + 1, 1 − p)`` failures, ``N = n − d``). Where ``r·p`` is large this
distribution is a sum of r geometric variables, and its quantile follows from the
Cornish–Fisher expansion (Abramowitz & Stegun 26.2.49) to the third order — the
terms in ``γ1``, ``γ2``, ``γ1²``, ``γ3``, ``γ1γ2`` and ``γ1³``, with the cumulants
``κ_k = r·p·A_{k−1}(p)/(1 − p)^k`` (``A`` the Eulerian polynomials: 1, 1 + p,
1 + 4p + p², 1 + 11p + 11p² + p³). The lattice is handled by Sheppard's
corrections (``κ2 − 1/12``, ``κ4 + 1/120``): ``F(j)`` is the expansion's CDF at
``j + 1/2`` (Euler–Maclaurin). The error left is of order ``γ1⁴`` in standard
units, ``(r p)^(−3/2)/(1 − p)`` items, below 1e-9 of an item at ``r·p ≥ 1e7``.

Everything is computed in :mod:`decimal` with more digits than the counts have
(the mean ``r·p/(1 − p)`` exactly, from the integer d and the float p as the
binary fraction it is), so no float rounds an integer of 1e30 items; the normal
CDF is its Taylor series, and its inverse Newton's method, at that precision.

Beyond 2**53 with ``r·p`` below :data:`MIN_RP` (p below 1.2e-9: a few expected hard
items among a huge count) the expansion does not hold; the pmf is summed directly
there (:func:`_few_expected`).
"""

from __future__ import annotations

import decimal
from decimal import Decimal

__all__ = ["MIN_RP", "nb_quantile"]

#: The expansion is used where r·p reaches this (its error is then < 1e-9 items).
MIN_RP = 10**7
#: Beyond this many standard deviations above the mean, F(N) is 1 to every digit kept.
_FAR = 40


def _pi(ctx: decimal.Context) -> Decimal:
    """π to the context's precision (the series of the decimal module's documentation)."""
    with decimal.localcontext(ctx) as c:
        c.prec += 2
        three = Decimal(3)
        lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
        while s != lasts:
            lasts = s
            n, na = n + na, na + 8
            d, da = d + da, da + 32
            t = (t * n) / d
            s += t
    return +s


class _Normal:
    """Φ, φ and Φ⁻¹ at a given precision."""

    def __init__(self, prec: int) -> None:
        self.prec = prec
        self.ctx = decimal.Context(prec=prec)
        pi = _pi(self.ctx)
        with decimal.localcontext(self.ctx):
            self.sqrt_2pi = (2 * pi).sqrt()
            self.two_over_sqrt_pi = 2 / pi.sqrt()
            self.sqrt2 = Decimal(2).sqrt()

    def pdf(self, z: Decimal) -> Decimal:
        with decimal.localcontext(self.ctx):
            return (-(z * z) / 2).exp() / self.sqrt_2pi

    def _erf(self, x: Decimal) -> Decimal:
        # Taylor series; its terms grow to about e^(x²) before they fall, so that many
        # more digits are carried.
        extra = int(float(x * x) * 0.4343) + 10
        with decimal.localcontext(decimal.Context(prec=self.prec + extra)):
            x2 = x * x
            term = x
            total = x
            k = 0
            eps = Decimal(10) ** (-(self.prec + 5))
            while True:
                k += 1
                term = -term * x2 / k
                add = term / (2 * k + 1)
                total += add
                if abs(add) <= eps * abs(total):
                    break
            return total * self.two_over_sqrt_pi

    def cdf(self, z: Decimal) -> Decimal:
        with decimal.localcontext(self.ctx):
            return (1 + self._erf(z / self.sqrt2)) / 2

    def ppf(self, prob: Decimal) -> Decimal:
        from scipy.special import ndtri

        z = Decimal(float(ndtri(float(prob))))
        tol = Decimal(10) ** (-(self.prec - 8))
        for _ in range(100):
            with decimal.localcontext(self.ctx):
                step = (self.cdf(z) - prob) / self.pdf(z)
                z -= step
            if abs(step) < tol:
                break
        return z


def _cumulants(r: int, p: Decimal) -> tuple[Decimal, ...]:
    s = 1 - p
    k1 = r * p / s
    k2 = r * p / s**2
    k3 = r * p * (1 + p) / s**3
    k4 = r * p * (1 + 4 * p + p * p) / s**4
    k5 = r * p * (1 + 11 * p + 11 * p * p + p**3) / s**5
    return k1, k2 - Decimal(1) / 12, k3, k4 + Decimal(1) / 120, k5


def _w(z: Decimal, g1: Decimal, g2: Decimal, g3: Decimal) -> Decimal:
    """The Cornish–Fisher standardised quantile at the normal quantile z."""
    z2 = z * z
    return (z + g1 * (z2 - 1) / 6
            + g2 * (z2 * z - 3 * z) / 24 - g1 * g1 * (2 * z2 * z - 5 * z) / 36
            + g3 * (z2 * z2 - 6 * z2 + 3) / 120 - g1 * g2 * (z2 * z2 - 5 * z2 + 2) / 24
            + g1**3 * (12 * z2 * z2 - 53 * z2 + 17) / 324)


def _dw(z: Decimal, g1: Decimal, g2: Decimal, g3: Decimal) -> Decimal:
    z2 = z * z
    return (1 + g1 * z / 3 + g2 * (3 * z2 - 3) / 24 - g1 * g1 * (6 * z2 - 5) / 36
            + g3 * (4 * z2 * z - 12 * z) / 120 - g1 * g2 * (4 * z2 * z - 10 * z) / 24
            + g1**3 * (48 * z2 * z - 106 * z) / 324)


def nb_quantile(d: int, p: float, big_n: int, q: float, strict: bool) -> int:
    """Smallest j in 0..big_n with ``F(j) > q·F(N)`` (strict) or ``≥``; F of NB(d + 1, 1 − p).

    Exact integers throughout; valid where ``(d + 1)·p ≥ MIN_RP`` (see the module).
    """
    r = d + 1
    if r > 2**53 and r * p < MIN_RP:  # too few expected hard items to expand
        return _few_expected(r, p, big_n, q, strict)
    prec = max(60, len(str(r)) + len(str(big_n)) + 40)
    normal = _Normal(prec)
    with decimal.localcontext(normal.ctx):
        pd = Decimal(p)  # the float's exact binary value
        k1, k2, k3, k4, k5 = _cumulants(r, pd)
        sd = k2.sqrt()
        g1, g2, g3 = k3 / (k2 * sd), k4 / (k2 * k2), k5 / (k2 * k2 * sd)
        qd = Decimal(q)
        # F(N) at N + 1/2, by inverting the expansion (Newton on w(z) = t)
        t_n = (Decimal(big_n) + Decimal("0.5") - k1) / sd
        if t_n > _FAR:
            f_n = None  # 1 to every digit kept (but below 1: it breaks exact ties)
            target = qd
        else:
            z = t_n
            for _ in range(100):
                step = (_w(z, g1, g2, g3) - t_n) / _dw(z, g1, g2, g3)
                z -= step
                if abs(step) < Decimal(10) ** (-(prec - 8)):
                    break
            f_n = normal.cdf(z)
            target = qd * f_n
        x = k1 + sd * _w(normal.ppf(target), g1, g2, g3) - Decimal("0.5")
        # F(j) > target  <=>  j + 1/2 > x + 1/2; an exact tie needs F(j) = target exactly
        j = int(x.to_integral_value(rounding=decimal.ROUND_FLOOR)) + 1 if strict else int(
            x.to_integral_value(rounding=decimal.ROUND_CEILING))
        j = _symmetric_tie(j, x, d, p, q, strict, f_n)
    return min(max(j, 0), big_n)


def _symmetric_tie(j: int, x: Decimal, d: int, p: float, q: float, strict: bool,
                   f_n: Decimal | None) -> int:
    """The one exact tie: with p = 1/2, F(d) = I_{1/2}(d + 1, d + 1) = 1/2 exactly.

    When q = 1/2 the expansion puts the quantile at d + 1/2 to within its error, and
    rounding would decide the bound; exactly, F(d) = 1/2 > q·F(N) since F(N) < 1 (so
    j = d, strict or not).
    """
    if p != 0.5 or q != 0.5 or abs(x - d) > Decimal("1e-6"):
        return j
    return d


def _few_expected(r: int, p: float, big_n: int, q: float, strict: bool) -> int:
    """The quantile where ``r`` is beyond 2**53 but ``r·p`` below :data:`MIN_RP`.

    There p < 1.2e-9 and j/r < 1.2e-9 over the window, so ``1 − p`` and ``betainc`` in floats lose p altogether, and the
    expansion (an asymptotic series in ``1/√(r·p)``) does not hold. The pmf is summed
    directly over the window ``m ± 40√m`` (m = r·p; the mass outside is below 1e-300):
    ``log P(j) = j·log(r·p) − log j! + r·log1p(−p) + S1/r − S2/(2r²)``, the last two
    terms ``Σ_{i<j} log1p(i/r)`` to second order (``S1 = Σ i``, ``S2 = Σ i²``; the third
    is below 1e-19 here). Its rounding (about 1e-7 of the pmf) moves the quantile by less
    than 1e-4 of an item.
    """
    import math

    import numpy as np
    from scipy.special import gammaln

    m = float(r) * p
    lo = max(0, int(m - 40 * math.sqrt(m)) - 10)
    hi = min(big_n, int(m + 40 * math.sqrt(m)) + 10)
    j = np.arange(lo, hi + 1, dtype=np.float64)
    rf = float(r)
    s1 = j * (j - 1) / 2
    s2 = (j - 1) * j * (2 * j - 1) / 6
    log_pmf = (j * math.log(m) - gammaln(j + 1) + rf * math.log1p(-p) + s1 / rf
               - s2 / (2 * rf * rf))
    cdf = np.cumsum(np.exp(log_pmf))
    target = q * cdf[-1]  # F(N): the window's mass (all of it to 1e-300, or up to N)
    k = int(np.searchsorted(cdf, target, side="right" if strict else "left"))
    return min(lo + k, big_n)
