"""The likelihoods of ``benchmarks/bench_hard_forms.py`` (hard states that can give
near-unanimous hard items), checked against their definitions: the Dirichlet integral by
quadrature and the Dirichlet-multinomial's closed form; and its EM's posteriors."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate
from scipy.special import betaln, gammaln

from noise_models import LatentClassModel
from simulation import simulate_annotations


@pytest.fixture(scope="module")
def bench():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_hard_forms.py"
    spec = importlib.util.spec_from_file_location("bench_hard_forms", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("s", [0.5, 2.0, 7.0])
def test_dirichlet_integral_two_classes_equals_quadrature(bench, s):
    # E[Π_j (α_j p + β_j) Π_j' (α_j' (1 - p) + β_j')] for p ~ Beta(s/2, s/2)
    g = np.random.default_rng(int(s * 10))
    zero = [tuple(v) for v in g.uniform(0.05, 1.0, (4, 2))]
    one = [tuple(v) for v in g.uniform(0.05, 1.0, (3, 2))]

    def integrand(p):
        return np.prod([a * p + b for b, a in zero]) * np.prod([a * (1 - p) + b for b, a in one])

    # the Beta density's singular ends handled by QUADPACK's algebraic weight p^u (1 - p)^u
    want = integrate.quad(integrand, 0, 1, weight="alg", wvar=(s / 2 - 1, s / 2 - 1))[0]
    want /= np.exp(betaln(s / 2, s / 2))
    got = bench._dirichlet_mixture([zero, one], 2, s)
    assert got == pytest.approx(np.log(want), rel=1e-7)


def test_every_rating_drawn_from_p_is_the_dirichlet_multinomial(bench):
    n_c = np.array([4, 0, 2])
    s, m = 1.5, 3
    a = s / m
    closed = (gammaln(s) - gammaln(s + n_c.sum()) + np.sum(gammaln(a + n_c) - gammaln(a)))
    got = bench._dirichlet_mixture([[(0.0, 1.0)] * int(c) for c in n_c], m, s)
    assert got == pytest.approx(closed, rel=1e-12)


@pytest.mark.parametrize("form, refit", [("pure DM", False), ("pure DM", True),
                                         ("DM with competence", False),
                                         ("simulator's form", False)])
def test_each_form_gives_posteriors(bench, form, refit):
    sim = simulate_annotations(150, 8, model="M2", hard_share=0.3, error_rates=0.15,
                               raters_per_item=5, hard_concentration=2.0, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = LatentClassModel("spam", "difficulty", rng=0).fit(sim.ratings)
    codes = np.ascontiguousarray(np.asarray(sim.ratings.codes))
    out = bench.with_form(codes, fit, form, refit=refit, max_iter=200)
    assert np.allclose(out["post"].sum(axis=1), 1.0)
    assert np.all((out["hard"] >= 0) & (out["hard"] <= 1))
    assert 0 < out["pi"] < 1 and 0 < out["new_share"] < 1
    assert np.isfinite(out["ll"])
