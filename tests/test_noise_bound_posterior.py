"""The posterior over the number of hard items (SPEC §2.2), its priors and its kernels."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special, stats

from noise_models import HardCountPosterior, hard_count_posterior, noise_bound
from noise_models.easy_hard import _kernels
from noise_models.easy_hard._posterior import check_prior, kernel_posterior, per_item_posterior

ROOT = Path(__file__).resolve().parents[1]


def reference_logpmf(n, d, p, log_prior=None):
    """Normalised log pmf on h = d..n from the definition (gammaln, logsumexp)."""
    h = np.arange(d, n + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        lt = (special.gammaln(h + 1) - special.gammaln(d + 1) - special.gammaln(h - d + 1)
              + (h - d) * np.log(p))
    if log_prior is not None:
        lt = lt + log_prior(h)
    return h, lt - special.logsumexp(lt)


def check_against_reference(post: HardCountPosterior, h, logpmf, rtol=1e-9):
    pmf = np.exp(logpmf)
    np.testing.assert_allclose(post.pmf(h), pmf, rtol=rtol, atol=1e-300)
    cdf = np.minimum(np.cumsum(pmf), 1.0)
    np.testing.assert_allclose(post.cdf(h), cdf, rtol=1e-9, atol=1e-13)
    sf_ref = np.concatenate((np.cumsum(pmf[::-1])[::-1][1:], [0.0]))
    np.testing.assert_allclose(post.sf(h), sf_ref, rtol=1e-7, atol=1e-13)
    assert post.mean() == pytest.approx(float(np.sum(h * pmf)), rel=1e-10)
    for q in (0.01, 0.3, 0.5, 0.9, 0.999):
        assert post.quantile(q) == int(h[np.argmax(cdf >= q - 1e-13)])


# --------------------------------------------------------------------- uniform prior
@pytest.mark.parametrize("n,d,p", [(1000, 100, 0.5), (50, 0, 0.9), (300, 200, 0.2),
                                   (2000, 5, 0.01), (500, 499, 0.7)])
def test_uniform_posterior_matches_definition(n, d, p):
    h, lp = reference_logpmf(n, d, p)
    for post in (hard_count_posterior(n, d, p), kernel_posterior(n, d, p)):
        check_against_reference(post, h, lp)
        assert post.support() == (d, n)
        assert post.pmf(h).sum() == pytest.approx(1.0, abs=1e-12)


def test_far_upper_tail_in_log_space():
    # P(H > h) far beyond the bulk: the closed form keeps it, the kernel too.
    n, d, p = 1000, 100, 0.5
    h, lp = reference_logpmf(n, d, p)
    tail_ref = np.array([special.logsumexp(lp[i + 1:]) for i in range(len(h) - 1)])
    for post in (hard_count_posterior(n, d, p), kernel_posterior(n, d, p)):
        got = post.logsf(h[:-1])
        sel = tail_ref > -700
        np.testing.assert_allclose(got[sel], tail_ref[sel], rtol=1e-8, atol=1e-12)
        assert post.logsf(900) < -100 and math.isfinite(post.logsf(900))


def test_posterior_api_scalars_arrays_non_integers():
    post = hard_count_posterior(1000, 100, 0.5)
    assert isinstance(post.pmf(200), float)
    assert post.pmf(99) == 0.0 and post.pmf(1001) == 0.0 and post.pmf(200.5) == 0.0
    assert post.cdf(200.7) == post.cdf(200)  # floored, as scipy's discrete distributions
    assert post.cdf(np.inf) == 1.0 and post.sf(-np.inf) == 1.0
    assert post.cdf([[150, 200], [250, 300]]).shape == (2, 2)
    assert post.cdf(99) == 0.0 and post.sf(1000) == 0.0
    assert post.prior == "uniform" and "negative-binomial" in post.method
    assert "HardCountPosterior(n=1000, d=100" in repr(post)
    with pytest.raises(ValueError, match=r"`q` must be in \(0, 1\)"):
        post.quantile(1.0)
    with pytest.raises(ValueError, match="`alpha`"):
        post.upper_bound(1.5)


def test_degenerate_posteriors():
    point = hard_count_posterior(100, 10, 0.0)  # p = 0: no hidden hard item
    assert point.pmf(10) == 1.0 and point.mean() == 10.0 and point.upper_bound(0.99) == 10
    full = hard_count_posterior(100, 100, 0.5)  # d = n: all items hard
    assert full.pmf(100) == 1.0
    flat = hard_count_posterior(100, 0, 1.0)  # p = 1, d = 0: the prior, uniform on 0..100
    np.testing.assert_allclose(flat.pmf(np.arange(101)), 1 / 101)
    assert flat.mean() == 50.0 and flat.quantile(0.5) == 50
    with pytest.raises(ValueError, match="impossible under the model"):
        hard_count_posterior(100, 1, 1.0)
    with pytest.raises(ValueError, match="cannot exceed"):
        hard_count_posterior(100, 101, 0.5)


# --------------------------------------------------------------------- other priors
def test_beta_binomial_one_one_is_uniform():
    a = hard_count_posterior(1000, 100, 0.5)
    b = hard_count_posterior(1000, 100, 0.5, prior=("beta-binomial", 1, 1))
    h = np.arange(100, 1001)
    np.testing.assert_allclose(b.pmf(h), a.pmf(h), rtol=1e-10, atol=1e-300)
    assert b.method == "log-space kernel"


@pytest.mark.parametrize("a,b", [(2.0, 5.0), (0.3, 0.7), (50.0, 1.0), (0.01, 0.01)])
def test_beta_binomial_prior_matches_scipy(a, b):
    n, d, p = 800, 60, 0.4
    h, lp = reference_logpmf(n, d, p, lambda h: stats.betabinom.logpmf(h, n, a, b))
    post = hard_count_posterior(n, d, p, prior=("beta-binomial", a, b))
    check_against_reference(post, h, lp, rtol=1e-8)
    assert post.prior == ("beta-binomial", a, b)


@pytest.mark.parametrize("rate", [0.05, 0.3, 0.9])
def test_binomial_prior_is_thinned_binomial(rate):
    # Every item hard with `rate`: an agreed item is a hidden hard one with probability
    # rate·p / (rate·p + 1 - rate), independently, so H - d ~ Binomial(n - d, that).
    n, d, p = 1000, 100, 0.5
    post = hard_count_posterior(n, d, p, prior=("binomial", rate))
    q = rate * p / (rate * p + 1 - rate)
    j = np.arange(0, n - d + 1)
    np.testing.assert_allclose(post.pmf(d + j), stats.binom.pmf(j, n - d, q), rtol=1e-9,
                               atol=1e-300)
    assert noise_bound(n, d, p, prior=("binomial", rate)).hidden_hard == \
        int(stats.binom.ppf(0.95, n - d, q)) + (stats.binom.cdf(stats.binom.ppf(0.95, n - d, q),
                                                                n - d, q) == 0.95)


def test_vector_prior():
    n, d, p = 400, 30, 0.6
    flat = hard_count_posterior(n, d, p, prior=np.full(n + 1, 7.0))  # any scale
    uni = hard_count_posterior(n, d, p)
    h = np.arange(d, n + 1)
    np.testing.assert_allclose(flat.pmf(h), uni.pmf(h), rtol=1e-10, atol=1e-300)
    rng = np.random.default_rng(3)
    vec = rng.random(n + 1)
    vec[::7] = 0.0  # zeros are allowed
    with np.errstate(divide="ignore"):
        hh, lp = reference_logpmf(n, d, p, lambda x: np.log(vec[x.astype(int)] / vec.sum()))
    post = hard_count_posterior(n, d, p, prior=vec)
    check_against_reference(post, hh, lp)
    assert np.all(post.pmf(np.arange(35, n + 1, 7)) == 0.0)
    spec = check_prior(vec, n).spec
    assert not spec.flags.writeable  # stored read-only, input untouched
    assert vec.flags.writeable


@given(st.integers(1, 3000).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
       st.floats(0.001, 0.999), st.floats(0.2, 5.0), st.floats(0.2, 5.0))
def test_kernel_block_sums_match_definition(nd, p, a, b):
    n, d = nd
    h, lp = reference_logpmf(n, d, p, lambda h: stats.betabinom.logpmf(h, n, a, b))
    post = hard_count_posterior(n, d, p, prior=("beta-binomial", a, b))
    np.testing.assert_allclose(post.logpmf(h)[lp > -600], lp[lp > -600], rtol=1e-9, atol=1e-9)


# --------------------------------------------------------------------- the kernels
def slow_posterior_blocks(n, d, lo, hi, block, p, prior_log):
    """Per-block log sums straight from the definition (lgamma per h), pure Python."""
    out = []
    for start in range(lo, hi + 1, block):
        vals = []
        for h in range(start, min(start + block, hi + 1)):
            vals.append(math.lgamma(h + 1) - math.lgamma(d + 1) - math.lgamma(h - d + 1)
                        + (h - d) * math.log(p) + prior_log(h))
        m = max(vals)
        out.append(m + math.log(sum(math.exp(v - m) for v in vals)))
    return np.array(out)


@pytest.mark.parametrize("p", [0.5, 1e-30, 0.999999])
def test_posterior_pass_against_slow_reference(p):
    # p = 1e-30 makes every ratio ~1e-30: the linear value leaves [1e-100, 1e100] every few
    # steps and the renormalisation branch runs constantly.
    n, d, block = 5000, 40, 512
    logsum, _, anchors, _ = _kernels.posterior_blocks(n, d, d, n, block, _kernels.KIND_UNIFORM, p)
    ref = slow_posterior_blocks(n, d, d, n, block, p, lambda h: 0.0)
    sel = ref > -700
    np.testing.assert_allclose(logsum[sel], ref[sel], rtol=1e-10, atol=1e-7)
    # the block terms restart from the stored anchors with identical arithmetic
    for bi in (0, 3, len(anchors) - 1):
        start = d + bi * block
        count = min(block, n - start + 1)
        terms = _kernels.block_log_terms(n, d, start, count, n, 0, p, 1, 1, 1, None, anchors[bi])
        assert special.logsumexp(terms) == pytest.approx(logsum[bi], rel=1e-12, abs=1e-9)


def test_beta_binomial_bimodal_prior_against_slow_reference():
    # a, b < 1: a U-shaped prior, so terms fall by ~1e100 and rise again inside one block.
    n, d, p, a, b = 3000, 3, 1e-3, 0.05, 0.05
    logsum, _, _, _ = _kernels.posterior_blocks(n, d, d, n, 700, _kernels.KIND_BETA_BINOMIAL,
                                                p, a, b)
    lp0 = stats.betabinom.logpmf(d, n, a, b)
    ref = slow_posterior_blocks(n, d, d, n, 700, p,
                                lambda h: stats.betabinom.logpmf(h, n, a, b) - lp0)
    np.testing.assert_allclose(logsum, ref, rtol=1e-10, atol=1e-6)


def test_kernels_without_jit():
    # The same checks with NUMBA_DISABLE_JIT=1: the kernels as plain Python.
    code = textwrap.dedent("""
        import math, numpy as np
        from scipy import special
        from noise_models.easy_hard import _kernels
        n, d, p = 300, 20, 0.45
        ls, lh, an, last = _kernels.posterior_blocks(n, d, d, n, 64, 0, p)
        h = np.arange(d, n + 1)
        lt = special.gammaln(h + 1) - special.gammaln(d + 1) - special.gammaln(h - d + 1) \\
            + (h - d) * math.log(p)
        assert abs(special.logsumexp(ls) - special.logsumexp(lt)) < 1e-9
        pb, sc = _kernels.poisson_binomial_head(np.array([0.1, 0.3, 0.5]), 3)
        assert np.allclose(pb * math.exp(sc), [0.315, 0.485, 0.185, 0.015])
        q = np.array([[0.5, 0.5], [0.25, 0.75]])
        codes = np.array([[0, 1], [1, -1]], dtype=np.int8)
        assert np.allclose(_kernels.item_chance_agreement(codes, q), [0.5, 1.0])
        print("ok")
    """)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_poisson_binomial_head_against_convolution():
    rng = np.random.default_rng(0)
    w = rng.uniform(0, 0.5, size=3000)  # the product (1-w_i) underflows: rescaling needed
    pb, scale = _kernels.poisson_binomial_head(w, 40)
    # reference: exact log-space DP over all j
    lp = np.full(w.size + 1, -np.inf)
    lp[0] = 0.0
    for i, wi in enumerate(w):
        new = lp.copy()
        new[: i + 2] = np.logaddexp(lp[: i + 2] + np.log1p(-wi),
                                    np.concatenate(([-np.inf], lp[: i + 1])) + np.log(wi))
        lp = new
    np.testing.assert_allclose(np.log(pb) + scale, lp[:41], rtol=1e-10)


# --------------------------------------------------------------------- per-item p_i
def brute_force_per_item(p_items, disagreed, prior=None):
    """P(H = h | observed) by enumerating every hard set.

    With a uniform hard rate π ~ Uniform(0, 1): P(hard set T) = ∫ π^|T| (1 - π)^(n - |T|) dπ
    = 1 / ((n + 1) C(n, |T|)); with a prior vector on |T|: prior[|T|] / C(n, |T|). A hard item
    agrees with probability p_i, an easy one always.
    """
    n = len(p_items)
    if prior is None:
        prior = np.full(n + 1, 1.0 / (n + 1))
    post = np.zeros(n + 1)
    agreed = [i for i in range(n) if not disagreed[i]]
    base = [i for i in range(n) if disagreed[i]]
    for r in range(len(agreed) + 1):
        for extra in itertools.combinations(agreed, r):
            hard = set(base) | set(extra)
            like = 1.0
            for i in hard:
                like *= (1 - p_items[i]) if disagreed[i] else p_items[i]
            post[len(hard)] += like * prior[len(hard)] / math.comb(n, len(hard))
    return post / post.sum()


def test_per_item_posterior_against_enumeration():
    rng = np.random.default_rng(7)
    for _ in range(5):
        n = 9
        p_items = rng.uniform(0.05, 0.9, size=n)
        disagreed = rng.random(n) < 0.3
        d = int(disagreed.sum())
        post = per_item_posterior(n, d, p_items[~disagreed], p_items[disagreed],
                                  check_prior("uniform", n))
        ref = brute_force_per_item(p_items, disagreed)
        np.testing.assert_allclose(post.pmf(np.arange(n + 1)), ref, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("prior", [("binomial", 0.3), ("beta-binomial", 0.4, 2.0),
                                   ("beta-binomial", 3.0, 2.0), "vector"])
def test_per_item_posterior_other_priors(prior):
    rng = np.random.default_rng(17)
    n = 10
    p_items = rng.uniform(0.05, 0.9, size=n)
    disagreed = rng.random(n) < 0.3
    d = int(disagreed.sum())
    if prior == "vector":
        prior = rng.random(n + 1)
        vec = prior / prior.sum()
    elif prior[0] == "binomial":
        vec = stats.binom.pmf(np.arange(n + 1), n, prior[1])
    else:
        vec = stats.betabinom.pmf(np.arange(n + 1), n, prior[1], prior[2])
    post = per_item_posterior(n, d, p_items[~disagreed], p_items[disagreed],
                              check_prior(prior, n))
    ref = brute_force_per_item(p_items, disagreed, vec)
    np.testing.assert_allclose(post.pmf(np.arange(n + 1)), ref, rtol=1e-9, atol=1e-15)


def test_per_item_posterior_refuses_quadratic_work():
    big = 30_000
    with pytest.raises(ValueError, match="not log-concave"):
        per_item_posterior(big + 10, 10, np.full(big, 0.3), np.full(10, 0.2),
                           check_prior(("beta-binomial", 0.5, 0.5), big + 10))


def test_per_item_posterior_equal_p_is_closed_form():
    n, d, p = 2000, 150, 0.37
    post = per_item_posterior(n, d, np.full(n - d, p), np.full(d, p), check_prior("uniform", n))
    closed = hard_count_posterior(n, d, p)
    h = np.arange(d, n + 1)
    # the recurrence stops where the remaining tail is below e^-40 of the largest term
    np.testing.assert_allclose(post.pmf(h), closed.pmf(h), rtol=1e-8, atol=1e-20)
    assert post.upper_bound(0.95) == closed.upper_bound(0.95)
    assert post.method == "per-item exact (Poisson-binomial)"
