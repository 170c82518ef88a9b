"""The γ noise bound (SPEC §2.3): worked examples, brute force, large n, edge cases, properties.

Reference: Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement
to noise models. Computational Linguistics 35(4), 495–503 (seeds/003).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special

from noise_models import NoiseBoundResult, max_disagreements, noise_bound
from noise_models.easy_hard._bound import gamma_of
from noise_models.easy_hard._posterior import kernel_posterior


# ------------------------------------------------------------------ references
def t0_mpmath(n: int, d: int, p: float, alpha: float, dps: int = 50) -> int:
    """t0 straight from the paper's eq. (1), uniform prior, in 50-digit arithmetic."""
    with mpmath.workdps(dps):
        pm = mpmath.mpf(p)
        terms = [mpmath.binomial(h, d) * pm ** (h - d) for h in range(d, n + 1)]
        total = mpmath.fsum(terms)
        limit = (1 - mpmath.mpf(alpha)) * total
        tail = total
        for idx, h in enumerate(range(d, n + 1)):
            tail -= terms[idx]  # tail = Σ_{h' > h}
            if tail < limit:
                return h
    raise AssertionError("unreachable")


def t0_logspace(n: int, d: int, p: float, alpha: float) -> tuple[int, np.ndarray]:
    """t0 from float64 log terms (gammaln + logsumexp), for larger n; also the cdf."""
    h = np.arange(d, n + 1, dtype=np.float64)
    lt = (special.gammaln(h + 1) - special.gammaln(d + 1) - special.gammaln(h - d + 1)
          + (h - d) * np.log(p))
    lt -= special.logsumexp(lt)
    cdf = np.cumsum(np.exp(lt))
    return d + int(np.argmax(cdf > alpha)), cdf


# ------------------------------------------------------------ worked examples
def test_paper_first_example_exact():
    # Paper §3.1: n = 1000, 900 agreed, p = 0.5, α = 0.95: "up to 125 agreements are due to
    # coin-flipping, hence γ = 13.8%". The exact γ is 125/900 = 0.13889; the paper truncates
    # to 13.8% (rounding gives 13.9%).
    res = noise_bound(1000, 100, 0.5, alpha=0.95)
    assert isinstance(res, NoiseBoundResult)
    assert res.hidden_hard == 125
    assert res.t0 == 225
    assert res.agreed == 900
    assert res.gamma == 125 / 900
    assert (res.n, res.d, res.p, res.alpha, res.prior) == (1000, 100, 0.5, 0.95, "uniform")
    assert res.method == "negative-binomial closed form"
    # the definition of t0: P(H > t0) < 1 - α <= P(H > t0 - 1)
    assert res.posterior.sf(225) < 0.05 <= res.posterior.sf(224)
    assert t0_mpmath(1000, 100, 0.5, 0.95) == 225


def test_poesio_vieira_example():
    # Paper §3.1: Poesio & Vieira (1998) Exp. 1, n = 992, d = 121, p = 0.47: "γ = 15%"
    # (printed to whole percent). Exact: 132 of 871 agreed items, γ = 0.1516.
    res = noise_bound(992, 121, 0.47)
    assert res.hidden_hard == 132
    assert res.gamma == pytest.approx(0.15, abs=0.005)
    assert res.t0 == t0_mpmath(992, 121, 0.47, 0.95)


def test_inverse_example_33_disagreements():
    # Paper §3.1: two annotators, 1000 items, p = 0.5: "Only 33 disagreements, corresponding
    # to κ = 0.93" keep the agreed part 95% noise-free with 95% confidence.
    d_star = max_disagreements(1000, 0.5, gamma=0.05, alpha=0.95)
    assert d_star == 33
    assert noise_bound(1000, 33, 0.5).gamma <= 0.05 < noise_bound(1000, 34, 0.5).gamma
    # κ with equiprobable categories: PA = 967/1000, PE = 0.5 -> 0.934 (printed 0.93)
    assert (0.967 - 0.5) / 0.5 == pytest.approx(0.93, abs=0.005)


def test_third_annotator_example():
    # Paper §5.3: 800 easy of 1000, a third annotator (p = 0.25): "most likely 850 agreed
    # instances, which would not contain more than 7.7% noise". The exact bound of 850 agreed
    # (d = 150) is 64/850 = 7.53%; the paper's 7.7% is not reproduced by its own eq. (1)
    # (the exact computation governs, SPEC preamble).
    res = noise_bound(1000, 150, 0.25)
    assert res.hidden_hard == 64
    assert res.gamma == pytest.approx(64 / 850)
    assert res.t0 == t0_mpmath(1000, 150, 0.25, 0.95)


# ------------------------------------------------------------------ brute force
GRID = [
    (n, d, p, a)
    for n in (1, 2, 7, 40, 150)
    for d in sorted({0, 1, n // 3, n // 2, n - 1})
    for p in (0.02, 0.3, 0.5, 0.81, 0.97)
    for a in (0.5, 0.9, 0.95, 0.999)
    if d < n
]


@pytest.mark.parametrize("n,d,p,alpha", GRID)
def test_closed_form_matches_direct_sum(n, d, p, alpha):
    res = noise_bound(n, d, p, alpha=alpha)
    assert res.t0 == t0_mpmath(n, d, p, alpha)


@pytest.mark.parametrize("n,d,p,alpha", [(5000, 400, 0.5, 0.95), (20000, 3000, 0.1, 0.99),
                                         (3000, 2900, 0.6, 0.9), (10000, 0, 0.9, 0.95),
                                         (4000, 1000, 0.75, 0.999999)])
def test_closed_form_matches_logspace_sum(n, d, p, alpha):
    t_ref, _ = t0_logspace(n, d, p, alpha)
    assert noise_bound(n, d, p, alpha=alpha).t0 == t_ref
    # and the kernel path with the same (uniform) prior
    assert kernel_posterior(n, d, p).upper_bound(alpha) == t_ref


# ------------------------------------------------------------------ large n
def test_n_1e9_finite_and_correct():
    # n = 1e9, d = 1e6, p = 0.3. F(n - d) = 1 to double precision (n - d is ~1.2e6 standard
    # deviations above the NB mean), so t0 - d is the untruncated NB(1e6 + 1, 0.7) quantile,
    # the same for any n with n - d far above the mean: check it against a 40-digit sum of the
    # pmf over mean ± 40 sd (the mass outside is below 1e-300).
    n, d, p, alpha = 10**9, 10**6, 0.3, 0.95
    res = noise_bound(n, d, p, alpha=alpha)
    assert math.isfinite(res.gamma)
    r = d + 1
    mean = r * p / (1 - p)
    sd = math.sqrt(r * p) / (1 - p)
    lo, hi = int(mean - 40 * sd), int(mean + 40 * sd)
    with mpmath.workdps(40):
        pm = mpmath.mpf(p)
        # NB pmf(j) = C(j + d, d) (1-p)^(d+1) p^j, from its log at the window start
        term = mpmath.exp(mpmath.loggamma(lo + d + 1) - mpmath.loggamma(d + 1)
                          - mpmath.loggamma(lo + 1) + r * mpmath.log(1 - pm) + lo * mpmath.log(pm))
        cum = mpmath.mpf(0)
        j_ref = None
        for j in range(lo, hi + 1):
            cum += term
            if cum > alpha:
                j_ref = j
                break
            term *= pm * (j + d + 1) / (j + 1)
    assert j_ref is not None
    assert res.hidden_hard == j_ref
    assert res.gamma == j_ref / (n - d)
    # normal approximation with skewness (Cornish–Fisher) agrees to within a couple of items
    z = 1.6448536269514722
    skew = (1 + p) / math.sqrt(r * p)
    assert abs(res.hidden_hard - (mean + sd * (z + (z * z - 1) * skew / 6))) < 3


def test_large_n_other_regimes_no_overflow():
    # far-tail window (F(n - d) underflows: p near 1, many disagreements), at n = 1e9
    res = noise_bound(10**9, 10**8, 0.999)
    assert res.gamma == 1.0 and "window" in res.method
    # mode inside the range at n = 1e9: compare with the kernel over a window via the NB
    res = noise_bound(10**9, 3 * 10**8, 0.7)
    assert 0 < res.gamma <= 1 and math.isfinite(res.posterior.mean())


def test_tail_window_matches_logspace():
    for n, d, p in [(1000, 500, 0.99), (1000, 999, 0.5), (3000, 2000, 0.97)]:
        res = noise_bound(n, d, p)
        assert "window" in res.method
        for alpha in (0.5, 0.95, 0.99999):
            t_ref, _ = t0_logspace(n, d, p, alpha)
            assert noise_bound(n, d, p, alpha=alpha).t0 == t_ref


# ------------------------------------------------------------------ edge cases
def test_p_zero_gives_zero():
    res = noise_bound(1000, 100, 0.0)
    assert res.gamma == 0.0 and res.hidden_hard == 0 and res.t0 == 100


def test_p_one_without_disagreements():
    # p = 1, d = 0: the data say nothing, the posterior is the uniform prior on 0..n;
    # t0 = smallest t with (t + 1)/(n + 1) > α.
    res = noise_bound(1000, 0, 1.0, alpha=0.95)
    assert res.t0 == math.floor(0.95 * 1001)


def test_zero_disagreements():
    # d = 0: H ~ truncated geometric: P(H > t) = (p^(t+1) - p^(n+1))/(1 - p^(n+1)).
    res = noise_bound(1000, 0, 0.5)
    assert res.t0 == 4  # 0.5^5 = 0.031 < 0.05 <= 0.5^4 = 0.0625


@pytest.mark.parametrize(
    "args,kwargs,exc,match",
    [
        ((100, 100, 0.5), {}, ValueError, "no agreed subset"),
        ((100, 10, 1.0), {}, ValueError, "impossible under the model"),
        ((100, 101, 0.5), {}, ValueError, "cannot exceed `n`"),
        ((100, 10, 0.5), {"alpha": 1.0}, ValueError, r"`alpha` must be in \(0, 1\)"),
        ((100, 10, 0.5), {"alpha": 0.0}, ValueError, r"`alpha` must be in \(0, 1\)"),
        ((100, 10, 0.5), {"alpha": 95}, ValueError, "not a significance level"),
        ((100, 10, 0.5), {"alpha": "0.95"}, TypeError, "`alpha`"),
        ((100, 10.5, 0.5), {}, ValueError, "`d` must be a whole number"),
        ((100.5, 10, 0.5), {}, ValueError, "`n` must be a whole number"),
        ((100, 10, 1.5), {}, ValueError, r"`p` must be in \[0, 1\]"),
        ((100, 10, -0.1), {}, ValueError, r"`p` must be in \[0, 1\]"),
        ((100, 10, float("nan")), {}, ValueError, r"`p` must be in \[0, 1\]"),
        ((100, 10, "0.5"), {}, TypeError, "`p` must be a probability"),
        (("100", 10, 0.5), {}, TypeError, "`n` must be a whole number"),
        ((100, "10", 0.5), {}, TypeError, "`d` must be a whole number"),
        ((100, True, 0.5), {}, TypeError, "`d` must be a whole number"),
        ((0, 0, 0.5), {}, ValueError, "`n` must be >= 1"),
        ((100, -1, 0.5), {}, ValueError, "`d` must be >= 0"),
        ((100, None, 0.5), {}, TypeError, "needs `n`, `d` and `p`"),
        ((100, 10), {}, TypeError, "needs `n`, `d` and `p`"),
        ((100, 10, 0.5), {"prior": "flat"}, ValueError, "`prior` must be 'uniform'"),
        ((100, 10, 0.5), {"prior": ("beta", 1, 1)}, ValueError, "`prior` name must be"),
        ((100, 10, 0.5), {"prior": ("beta-binomial", 1)}, ValueError, "two shape parameters"),
        ((100, 10, 0.5), {"prior": ("beta-binomial", 0, 1)}, ValueError, "> 0"),
        ((100, 10, 0.5), {"prior": ("binomial", 1.0)}, ValueError, r"rate` must be in \(0, 1\)"),
        ((100, 10, 0.5), {"prior": np.ones(100)}, ValueError, "length n \\+ 1 = 101"),
        ((100, 10, 0.5), {"prior": -np.ones(101)}, ValueError, "non-negative"),
        ((100, 10, 0.5), {"prior": np.zeros(101)}, ValueError, "all zeros"),
        ((100, 10, 0.5), {"prior": 3}, TypeError, "`prior` must be"),
    ],
)
def test_noise_bound_validation(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        noise_bound(*args, **kwargs)


def test_prior_without_mass_above_d():
    vec = np.zeros(101)
    vec[:5] = 1.0  # the prior says H < 5, but 10 items were disagreed on
    with pytest.raises(ValueError, match="prior gives zero weight"):
        noise_bound(100, 10, 0.5, prior=vec)


def test_float_counts_accepted_when_whole():
    assert noise_bound(1e3, 1e2, 0.5).gamma == noise_bound(1000, 100, 0.5).gamma
    assert noise_bound(np.int64(1000), np.int32(100), np.float32(0.5)).hidden_hard == 125


def test_result_api():
    res = noise_bound(1000, 100, 0.5)
    d = res.to_dict()
    assert d["gamma"] == res.gamma and d["hidden_hard"] == 125 and d["prior"] == "uniform"
    assert res.to_frame().shape == (1, len(d))
    assert float(res) == res.gamma
    assert "gamma=0.1389" in repr(res) and "125 of the 900" in repr(res)
    with pytest.raises(AttributeError):
        res.gamma = 0.0  # frozen


def test_max_disagreements_validation():
    with pytest.raises(ValueError, match="even with no disagreements"):
        max_disagreements(10, 0.5, gamma=0.01)
    with pytest.raises(TypeError, match="`gamma`"):
        max_disagreements(1000, 0.5, gamma="0.05")
    with pytest.raises(ValueError, match=r"`gamma` must be in \[0, 1\]"):
        max_disagreements(1000, 0.5, gamma=1.5)
    with pytest.raises(ValueError, match="`n` must be >= 2"):
        max_disagreements(1, 0.5, gamma=0.5)
    assert max_disagreements(1000, 0.0, gamma=0.0) == 999
    assert max_disagreements(1000, 0.5, gamma=1.0) == 999


# ------------------------------------------------------------------ properties
counts = st.integers(2, 4000).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n - 2)))
probs = st.floats(0.01, 0.99)
alphas = st.floats(0.05, 0.999)


@given(counts, probs, alphas, alphas)
def test_gamma_grows_with_alpha(nd, p, a1, a2):
    n, d = nd
    lo, hi = sorted((a1, a2))
    assert gamma_of(n, d, p, lo) <= gamma_of(n, d, p, hi)


@given(counts, probs, alphas)
def test_gamma_grows_with_d(nd, p, alpha):
    # γ grows with d at fixed n while the truncation of the posterior at n - d - 1 does not
    # bind (F_{NB(d+2, 1-p)}(n - d - 1) > 1 - 1e-9); see the next test for what happens beyond.
    n, d = nd
    if special.betainc(d + 2.0, n - d, 1.0 - p) > 1.0 - 1e-9:
        assert gamma_of(n, d, p, alpha) <= gamma_of(n, d + 1, p, alpha)


def test_gamma_not_monotone_in_d_when_truncation_binds():
    # Near d = n the bound covers nearly all agreed items and can shrink by an item:
    # n = 8, p = 0.5, α = 0.25: the posterior of H - d is ∝ C(d + j, d) 0.5^j on j <= n - d;
    # d = 5: weights 1, 3, 5.25, 7 -> cdf .062 .246 .569 1 -> t0 - d = 2 of 3 agreed;
    # d = 6: weights 1, 3.5, 7.875 -> cdf .081 .364 1     -> t0 - d = 1 of 2 agreed.
    assert noise_bound(8, 5, 0.5, alpha=0.25).hidden_hard == 2 == t0_mpmath(8, 5, 0.5, 0.25) - 5
    assert noise_bound(8, 6, 0.5, alpha=0.25).hidden_hard == 1 == t0_mpmath(8, 6, 0.5, 0.25) - 6
    # max_disagreements answers with the first crossing: every d <= d* meets the target
    assert max_disagreements(8, 0.5, gamma=0.6, alpha=0.25) == 4


@given(counts, probs, probs, alphas)
def test_gamma_falls_as_p_falls(nd, p1, p2, alpha):
    n, d = nd
    lo, hi = sorted((p1, p2))
    assert gamma_of(n, d, lo, alpha) <= gamma_of(n, d, hi, alpha)


@given(st.integers(2, 3000), probs, st.floats(0.0, 1.0), alphas)
def test_max_disagreements_is_exact_inverse(n, p, target, alpha):
    if gamma_of(n, 0, p, alpha) > target:
        with pytest.raises(ValueError, match="even with no disagreements"):
            max_disagreements(n, p, gamma=target, alpha=alpha)
        return
    d_star = max_disagreements(n, p, gamma=target, alpha=alpha)
    assert noise_bound(n, d_star, p, alpha=alpha).gamma <= target
    if d_star + 1 < n:
        assert noise_bound(n, d_star + 1, p, alpha=alpha).gamma > target


@given(st.integers(2, 60), probs, st.floats(0.0, 1.0), alphas)
def test_max_disagreements_brute_force(n, p, target, alpha):
    # d* = the last d of the initial run of d's with γ(d) <= target
    gammas = [noise_bound(n, d, p, alpha=alpha).gamma for d in range(n)]
    if gammas[0] > target:
        with pytest.raises(ValueError, match="even with no disagreements"):
            max_disagreements(n, p, gamma=target, alpha=alpha)
        return
    d_star = 0
    while d_star + 1 < n and gammas[d_star + 1] <= target:
        d_star += 1
    assert max_disagreements(n, p, gamma=target, alpha=alpha) == d_star


@given(st.integers(1, 20000).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))),
       st.floats(0.001, 0.999), alphas)
def test_kernel_path_agrees_with_closed_form(nd, p, alpha):
    n, d = nd
    closed = noise_bound(n, d, p, alpha=alpha)
    kern = kernel_posterior(n, d, p)
    t_kernel = kern.upper_bound(alpha)
    if t_kernel != closed.t0:  # only a floating tie at the boundary may split them
        assert abs(closed.posterior.cdf(min(t_kernel, closed.t0)) - alpha) < 1e-9


# ------------------------------------------------------------------ exact at any size
def _nb_quantile_decimal_sum(d, p, alpha, prec=50):
    """Smallest j with F(j) > alpha for NB(d + 1, 1 - p) failures (untruncated), by summing
    the pmf from j = 0 in 50-digit decimals: pmf(0) = (1 - p)^(d+1), pmf(j+1)/pmf(j) =
    p (j + d + 1)/(j + 1), with p the float's exact binary value."""
    from decimal import Context, Decimal, localcontext

    with localcontext(Context(prec=prec, Emin=-10**8)):
        pd, a = Decimal(p), Decimal(alpha)
        term = (1 - pd) ** (d + 1)
        cum, j = Decimal(0), 0
        while True:
            cum += term
            if cum > a:
                return j
            term = term * pd * (j + d + 1) / (j + 1)
            j += 1


@pytest.mark.parametrize("d, p", [(20_000, 0.3), (20_001, 0.5), (5_000, 0.8), (200_000, 0.05)])
@pytest.mark.parametrize("alpha", [0.05, 0.5, 0.95, 0.999])
def test_large_count_quantile_equals_exact_sum(d, p, alpha):
    """The large-count quantile (third-order Cornish-Fisher with the lattice's Sheppard
    correction, in exact integers and decimals) against a 50-digit sum of the pmf, at sizes
    where the sum is cheap; its error shrinks as (r p)^(-3/2), so it is exact here already."""
    from noise_models.easy_hard._nbquantile import nb_quantile

    if p == 0.5 and alpha == 0.5:
        pytest.skip("F(d) = 1/2 exactly: a tie the sum cannot decide (the tie test below)")
    assert nb_quantile(d, p, 10**15, alpha, True) == _nb_quantile_decimal_sum(d, p, alpha)


@pytest.mark.parametrize("n, d", [(10**14, 10**8), (10**15, 10**9), (10**16 - 1, 10**10)])
def test_bound_exact_at_the_symmetric_tie(n, d):
    """p = 1/2, alpha = 1/2: F(d) = I_{1/2}(d + 1, d + 1) = 1/2 exactly, and F(n - d) < 1,
    so F(d) > alpha F(n - d) and t0 - d = d. The float incomplete beta used before put it
    one item off at n = 1e15 (d + 1); a second-order expansion, at 1e14 and 1e16."""
    res = noise_bound(n, d, 0.5, alpha=0.5)
    assert res.hidden_hard == d


def _edgeworth_cdf(j, d, p, prec=80):
    """F(j) of NB(d + 1, 1 - p) by the third-order Edgeworth series at j + 1/2 (Sheppard's
    variance), in decimals -- the CDF direction, written apart from the quantile's
    Cornish-Fisher inversion."""
    from decimal import Context, Decimal, localcontext

    with localcontext(Context(prec=prec)) as ctx:
        r, pd = d + 1, Decimal(p)
        s = 1 - pd
        k1 = r * pd / s
        k2 = r * pd / s**2 - Decimal(1) / 12
        k3 = r * pd * (1 + pd) / s**3
        k4 = r * pd * (1 + 4 * pd + pd * pd) / s**4 + Decimal(1) / 120
        k5 = r * pd * (1 + 11 * pd + 11 * pd * pd + pd**3) / s**5
        sd = k2.sqrt()
        g1, g2, g3 = k3 / sd**3, k4 / k2**2, k5 / sd**5
        z = (Decimal(j) + Decimal("0.5") - k1) / sd
        he = {2: z**2 - 1, 3: z**3 - 3 * z, 4: z**4 - 6 * z**2 + 3,
              5: z**5 - 10 * z**3 + 15 * z, 6: z**6 - 15 * z**4 + 45 * z**2 - 15,
              8: z**8 - 28 * z**6 + 210 * z**4 - 420 * z**2 + 105}
        corr = (g1 / 6 * he[2] + g2 / 24 * he[3] + g1**2 / 72 * he[5] + g3 / 120 * he[4]
                + g1 * g2 / 144 * he[6] + g1**3 / 1296 * he[8])
        pi = Decimal(
            "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899")
        x = z / Decimal(2).sqrt()
        term, total, k = x, x, 0
        while True:  # erf by its Taylor series
            k += 1
            term = -term * x * x / k
            total += term / (2 * k + 1)
            if abs(term) < Decimal(10) ** (-prec + 5):
                break
        big_phi = (1 + total * 2 / pi.sqrt()) / 2
        small_phi = (-(z * z) / 2).exp() / (2 * pi).sqrt()
        return +(big_phi - small_phi * corr), ctx.prec


@pytest.mark.parametrize("n, d, p", [(10**30, 10**25, 0.3), (2**70, 2**64 + 12345, 0.5),
                                     (10**40, 3 * 10**38, 0.9), (10**20, 10**17, 0.01)])
def test_bound_beyond_int64_exact_property(n, d, p):
    """Counts far beyond 2^63: the bound is an exact integer, monotone in alpha and d, and
    the tail inequality holds at the answer and fails at answer - 1, evaluated in 80-digit
    decimals by the Edgeworth series (F(n - d) = 1 to every digit at these designs)."""
    from decimal import Decimal

    t = {a: noise_bound(n, d, p, alpha=a).hidden_hard for a in (0.9, 0.95, 0.99)}
    assert t[0.9] <= t[0.95] <= t[0.99]
    assert noise_bound(n, d + 1000, p).hidden_hard >= t[0.95]
    j = t[0.95]
    above, _ = _edgeworth_cdf(j, d, p)
    below, _ = _edgeworth_cdf(j - 1, d, p)
    alpha = Decimal.from_float(0.95)  # the float alpha, exactly as given
    assert below <= alpha < above
    res = noise_bound(n, d, p)
    assert isinstance(res.t0, int) and res.t0 == d + j and "decimal" in res.method


# ------------------- large counts: the Cornish-Fisher backend against the exact betainc search
@pytest.mark.parametrize("d", [10 ** 6, 10 ** 8, 10 ** 10, 10 ** 12, 10 ** 13])
@pytest.mark.parametrize("p", [0.05, 0.25, 0.5, 0.9])
@pytest.mark.parametrize("alpha", [0.8, 0.95, 0.99, 0.999])
def test_large_count_quantile_matches_the_incomplete_beta_search(d, p, alpha):
    """The Cornish-Fisher quantile used beyond 2**53 equals the exact betainc search.

    Where floats still hold every count (d <= 1e13, the quantile below 2**53) the search
    over I_{1-p}(d + 1, j + 1) is exact; the expansion must give the same integer.
    """
    from noise_models.easy_hard import _posterior as P

    n = 10 * d
    fn = float(special.betainc(d + 1.0, n - d + 1.0, 1.0 - p))
    exact = P._NegBinBackend(n, d, p, fn).first_cdf_above(alpha, True)
    assert P._LargeNegBinBackend(n, d, p, fn).first_cdf_above(alpha, True) == exact
