"""Chance-difference margins (SPEC §2.7; Beigman Klebanov & Beigman 2009, §4.1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from noise_models import ChanceMarginResult, chance_margin, noise_bound


def exact_margin_by_convolution(R: int, alpha: float) -> int:
    """Smallest s with P(|S| <= s) >= alpha, S = Σ of R iid {-1: 1/4, 0: 1/2, +1: 1/4}."""
    dist = np.array([1.0])
    step = np.array([0.25, 0.5, 0.25])
    for _ in range(R):
        dist = np.convolve(dist, step)
    # dist[i] = P(S = i - R)
    for s in range(R + 1):
        if dist[R - s: R + s + 1].sum() >= alpha - 1e-13:
            return s
    return R


def test_paper_example_chebyshev():
    # Paper §4.1: L = 900, R = 125: "a difference of up to 35 'correct' answers (3.9% of the
    # gold standard) can be attributed to chance". Exact: σ = sqrt(62.5) = 7.906,
    # margin = σ / sqrt(0.05) = 35.36 items = 3.93% of 900 (the paper prints whole items and
    # one decimal).
    m = chance_margin(125, L=900)
    assert isinstance(m, ChanceMarginResult)
    assert m.sigma == pytest.approx(math.sqrt(62.5))
    assert m.margin == pytest.approx(35.355, abs=1e-3)
    assert round(m.margin) == 35 and round(100 * m.share, 1) == 3.9
    # "within 4.5σ with 95% probability" (printed to one decimal)
    assert m.margin / m.sigma == pytest.approx(4.5, abs=0.05)
    assert not m.is_beyond_chance(35) and m.is_beyond_chance(-36)


def test_normal_is_about_two_sigma():
    # The paper's footnote 9: "the tighter 2σ bound for 95% confidence" (z = 1.96).
    m = chance_margin(125, L=900, method="normal")
    assert m.margin / m.sigma == pytest.approx(1.959964, abs=1e-6)


@pytest.mark.parametrize("R", [0, 1, 2, 5, 17, 125, 300])
@pytest.mark.parametrize("alpha", [0.5, 0.9, 0.95, 0.99])
def test_exact_against_convolution(R, alpha):
    assert chance_margin(R, method="exact", alpha=alpha).margin == \
        exact_margin_by_convolution(R, alpha)


@given(st.integers(0, 5000), st.floats(0.05, 0.999))
def test_chebyshev_is_conservative(R, alpha):
    cheb = chance_margin(R, alpha=alpha).margin
    exact = chance_margin(R, alpha=alpha, method="exact").margin
    assert exact <= math.floor(cheb + 1e-9)


def test_inputs_from_gamma_and_from_a_bound():
    assert chance_margin(L=900, gamma=125 / 900).R == 125  # float noise in γ·L ignored
    assert chance_margin(L=905, gamma=0.1).R == 91  # 90.5 hard items round up
    bound = noise_bound(1000, 100, 0.5)
    m = chance_margin(bound)
    assert (m.R, m.L) == (125, 900) and m.margin == chance_margin(125, L=900).margin
    assert chance_margin(10).share is None
    assert m.to_dict()["R"] == 125 and m.to_frame().shape == (1, 8)
    assert "margin=35.36 items" in repr(m)


@pytest.mark.parametrize("args,kwargs,exc,match", [
    ((), {}, TypeError, "give `R`"),
    ((), {"L": 900}, TypeError, "give `R`"),
    ((10,), {"gamma": 0.1}, TypeError, "not both"),
    ((10,), {"L": 5}, ValueError, "cannot exceed `L`"),
    ((10,), {"method": "Chebyshev"}, ValueError, "`method` must be one of"),
    ((10,), {"alpha": 1}, ValueError, "`alpha` must be in"),
    ((-1,), {}, ValueError, "`R` must be >= 0"),
    ((1.5,), {}, ValueError, "`R` must be a whole number"),
    ((), {"L": 100, "gamma": 1.5}, ValueError, r"`gamma` must be in \[0, 1\]"),
    ((noise_bound(1000, 100, 0.5),), {"L": 3}, TypeError, "gives both R and L"),
])
def test_validation(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        chance_margin(*args, **kwargs)


def test_is_beyond_chance_validation():
    m = chance_margin(10)
    with pytest.raises(TypeError, match="`difference`"):
        m.is_beyond_chance("3")
    with pytest.raises(ValueError, match="finite"):
        m.is_beyond_chance(float("nan"))


def test_auto_switches_to_exact_where_chebyshev_exceeds_the_hard_items():
    # noise_bound(10, 9, 0.5) leaves R = 1 hidden coin-flip among L = 1 agreed item:
    # Chebyshev's sqrt(1/2)/sqrt(0.05) = 3.16 items (316% of L) is more than the one item
    # two systems can differ on. The default applies the rule `goldnoise bound` applies:
    # the exact binomial margin, with a note; an explicit "chebyshev" keeps Chebyshev.
    bound = noise_bound(10, 9, 0.5)
    m = chance_margin(bound)
    assert (m.R, m.L, m.method) == (1, 1, "exact")
    assert m.margin == chance_margin(bound, method="exact").margin == 1.0
    assert m.notes and "Chebyshev margin (3.2 items) exceeds" in m.notes[0]
    assert "note:" in repr(m) and "note:" in m.summary() and m.to_dict()["notes"] == list(m.notes)
    cheb = chance_margin(bound, method="chebyshev")
    assert cheb.method == "chebyshev" and cheb.margin == pytest.approx(math.sqrt(10))
    assert cheb.notes == ()
    # where Chebyshev stays within R the default is the paper's Chebyshev margin, no note
    paper = chance_margin(noise_bound(1000, 100, 0.5))
    assert paper.method == "chebyshev" and paper.notes == ()
