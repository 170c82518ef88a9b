"""Analytic standard errors: jackknife and Monte-Carlo checks, identities between them."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import agreement as ag
from agreement import Ratings
from agreement._item_stats import SPECS
from agreement._variance import linearization

NAMES = ["percent_agreement", "fleiss_kappa", "conger_kappa", "light_kappa",
         "brennan_prediger", "gwet_ac1"]


def _simulate(rng, n, k, m, *, missing=0.0):
    """Items from one fixed model: a latent truth, annotators with their own accuracy
    and favourite category (the same annotators in every data set, as the SE assumes)."""
    prevalence = np.linspace(1, 2, m) / np.linspace(1, 2, m).sum()
    accuracy = np.linspace(0.55, 0.8, k)
    favourite = np.arange(k) % m
    truth = rng.choice(m, size=n, p=prevalence)
    noise = np.where(rng.random((n, k)) < 0.5, favourite[None, :], rng.integers(0, m, (n, k)))
    x = np.where(rng.random((n, k)) < accuracy[None, :], truth[:, None], noise).astype(float)
    x[rng.random((n, k)) < missing] = np.nan
    return x


def _jackknife_se(st):
    """Leave-one-item-out SE over rated items, from the per-item sums (vectorised)."""
    rated = st.values[:, 0] > 0
    total = st.sums()
    loo = total[None, :] - st.values[rated]
    values = st.finalize(loo).value
    n = values.size
    return np.sqrt((n - 1) / n * np.sum((values - values.mean()) ** 2))


@pytest.mark.parametrize("name", [*NAMES, "cohen_kappa", "scott_pi"])
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_linearised_se_matches_jackknife(name, weights):
    # Both estimate the same first-order variance: they agree closely for n = 800 on
    # complete data. (With missing ratings Gwet's linearisation, as irrCAC's, also counts
    # items with one rating as deviations, so it is the larger of the two.)
    rng = np.random.default_rng(zlib.crc32(f"{name}{weights}".encode()))
    k = 2 if name in ("cohen_kappa", "scott_pi") else 4
    x = _simulate(rng, 800, k, 4)
    ratings = Ratings.from_wide(x, categories=[0.0, 1.0, 2.0, 3.0])
    res = getattr(ag, name)(ratings, weights=weights)
    jack = _jackknife_se(ag.item_statistics(ratings, name, weights=weights))
    assert res.standard_error == pytest.approx(jack, rel=0.05)


@pytest.mark.parametrize("name", ["fleiss_kappa", "conger_kappa", "light_kappa", "gwet_ac1",
                                  "cohen_kappa"])
def test_se_matches_monte_carlo_spread(name):
    # Across 300 data sets from one model, the mean analytic SE is close to the standard
    # deviation of the coefficient (the SE's target), within Monte-Carlo error (~6%).
    rng = np.random.default_rng(2024)
    k = 2 if name == "cohen_kappa" else 3
    values, ses = [], []
    for _ in range(300):
        x = _simulate(rng, 150, k, 3, missing=0.1 if name != "cohen_kappa" else 0.0)
        res = getattr(ag, name)(Ratings.from_wide(x, categories=[0.0, 1.0, 2.0]))
        values.append(res.value)
        ses.append(res.standard_error)
    assert np.mean(ses) == pytest.approx(np.std(values, ddof=1), rel=0.12)


def test_light_with_two_annotators_is_conger():
    rng = np.random.default_rng(3)
    x = _simulate(rng, 120, 2, 3, missing=0.2)
    light, conger = ag.light_kappa(x), ag.conger_kappa(x)
    assert light.value == pytest.approx(conger.value, abs=1e-13)
    assert light.standard_error == pytest.approx(conger.standard_error, rel=1e-12)


def test_cohen_fce_and_gwet_variances_are_close():
    # Complete data: FCE (divisor n) and Gwet's linearisation of the same κ (divisor
    # n - 1, conger_kappa) estimate the same variance.
    rng = np.random.default_rng(4)
    x = _simulate(rng, 2000, 2, 4)
    fce = ag.cohen_kappa(x).standard_error
    gwet = ag.conger_kappa(x).standard_error
    assert fce == pytest.approx(gwet, rel=0.03)


def test_scott_table_and_raw_variances_differ_by_n_over_n_minus_1():
    # irrCAC's scott2.table divides by n, fleiss.kappa.raw by n - 1 (same linearisation).
    rng = np.random.default_rng(5)
    x = _simulate(rng, 60, 2, 3)
    res = ag.scott_pi(x)
    st = ag.item_statistics(x, "scott_pi")
    fin = st.finalize(st.sums())
    lin = linearization(SPECS["scott_pi"], st.sums(), fin, st.weights, 2)
    xs = st.values @ lin.beta
    table_var = np.sum((xs - xs.mean()) ** 2) / 60**2
    assert res.standard_error**2 == pytest.approx(table_var * 60 / 59, rel=1e-12)


def test_se_is_zero_for_perfect_agreement():
    x = np.repeat(np.arange(4.0)[:, None], 3, axis=1)
    for name in NAMES:
        res = getattr(ag, name)(np.vstack([x, x]))
        assert res.value == pytest.approx(1.0)
        assert res.standard_error == pytest.approx(0.0, abs=1e-12)
