"""Coverage studies of γ and of the verified-sample bound (SPEC §3, "Calibration of γ")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats

from agreement import EstimationWarning, Ratings
from noise_models import chance_agreement, noise_bound
from simulation import gamma_coverage, verified_sample_coverage


def test_gamma_coverage_monte_carlo_agrees_with_exact_binomial_sum():
    tab = gamma_coverage(300, [0, 30, 150, 300], n_raters=3, n_categories=2, n_sims=2000, rng=1)
    assert list(tab["hard_count"]) == [0, 30, 150, 300]
    for row in tab.itertuples():
        hits = round(row.coverage * row.n_sims)
        assert scipy.stats.binomtest(hits, row.n_sims, row.exact_coverage).pvalue > 0.001
        assert row.coverage_low <= row.coverage <= row.coverage_high
    assert tab["exact_coverage"].iloc[0] == 1.0
    assert (tab["noisy_coverage"] == tab["coverage"]).all()  # M1: no wrong labels on easy items


def test_gamma_exact_coverage_from_first_principles():
    # Two annotators, two categories: d ~ Binomial(H, 1/2); covered when
    # (H − d)/(n − d) ≤ γ(n, d, 1/2).
    n, h = 100, 40
    cov = sum(scipy.stats.binom.pmf(d, h, 0.5)
              for d in range(h + 1) if (h - d) / (n - d) <= noise_bound(n, d, 0.5).gamma)
    tab = gamma_coverage(n, h, n_sims=10, rng=0)
    assert tab["exact_coverage"].iloc[0] == pytest.approx(cov, abs=1e-12)


def _redraw(seed, n, hard, k, m):
    """The one data set gamma_coverage(n, [hard], n_sims=1, rng=default_rng(seed)) draws
    under M1: every item's true class, then the hard items' labels drawn uniformly."""
    g = np.random.default_rng(seed)
    truth = g.integers(0, m, size=(1, n, 1))
    labels = np.broadcast_to(truth, (1, n, k)).copy()
    labels[:, :hard, :] = g.integers(0, m, size=(1, hard, k))
    return labels[0]


def test_estimated_p_is_what_noise_bound_uses():
    # p="estimated": each simulated data set's γ is noise_bound(ratings).gamma of that data
    # set (p from the per-annotator shares over its disagreed items). The data sets are
    # drawn again here from the same seeds; γ from shares pooled over all items, the
    # estimate a wrong rule would give, differs on several of them.
    other = 0
    for seed in range(8):
        labels = _redraw(seed, 80, 30, 3, 3)
        row = gamma_coverage(80, [30], n_raters=3, n_categories=3, p="estimated", n_sims=1,
                             rng=np.random.default_rng(seed)).iloc[0]
        r = Ratings.from_wide(labels, categories=[0, 1, 2])
        disagreed = (labels != labels[:, :1]).any(axis=1)
        assert row["mean_gamma"] == pytest.approx(noise_bound(r).gamma, abs=1e-12)
        assert noise_bound(r).gamma == pytest.approx(noise_bound(
            80, int(disagreed.sum()), chance_agreement(r).p).gamma, abs=1e-12)
        hidden = 30 - int(disagreed[:30].sum())
        assert row["mean_true_share"] == pytest.approx(hidden / (80 - disagreed.sum()))
        pooled = ((np.bincount(labels.ravel(), minlength=3) / labels.size) ** 3).sum()
        other += noise_bound(80, int(disagreed.sum()), pooled).gamma != row["mean_gamma"]
    assert other >= 2
    # no disagreement: q from all labels, as chance_agreement does (with its warning)
    for seed in range(3):
        labels = _redraw(seed, 10, 0, 2, 2)
        assert len(set(labels.ravel())) == 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EstimationWarning)
            ref = chance_agreement(Ratings.from_wide(labels, categories=[0, 1])).p
        row = gamma_coverage(10, [0], p="estimated", n_sims=1,
                             rng=np.random.default_rng(seed)).iloc[0]
        assert row["mean_gamma"] == pytest.approx(noise_bound(10, 0, ref).gamma, abs=1e-12)


def test_gamma_coverage_m2_and_estimated():
    tab = gamma_coverage(200, [20, 60], model="M2", error_rate=0.1, n_categories=3, n_sims=300,
                         rng=2)
    assert (tab["noisy_coverage"] <= tab["coverage"]).all()
    assert tab["exact_coverage"].isna().all()
    est = gamma_coverage(200, [20], p="estimated", n_sims=200, rng=2)
    assert 0 <= est["coverage"].iloc[0] <= 1 and est["n_undefined"].iloc[0] == 0
    allhard = gamma_coverage(4, [4], n_sims=2000, rng=0)  # every item may be disagreed
    row = allhard.iloc[0]
    assert row["n_undefined"] > 0
    # exact coverage is conditional on an agreed subset existing, as the simulated one is
    used = int(row["n_sims"] - row["n_undefined"])
    hits = round(row["coverage"] * used)
    assert scipy.stats.binomtest(hits, used, row["exact_coverage"]).pvalue > 0.001


def test_verified_sample_coverage_at_least_alpha():
    tab = verified_sample_coverage(2000, [0, 5, 40, 200, 1000, 2000], sample_size=150,
                                   n_sims=1500, rng=4)
    assert (tab["exact_coverage"] >= 0.95 - 1e-12).all()
    for row in tab.itertuples():
        hits = round(row.coverage * row.n_sims)
        assert scipy.stats.binomtest(hits, row.n_sims, row.exact_coverage).pvalue > 0.001
    full = verified_sample_coverage(50, [7], sample_size=50, n_sims=20, rng=0)
    assert full["coverage"].iloc[0] == 1.0 and full["mean_max_errors"].iloc[0] == 7


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"n": 1}, ValueError, "`n` must be an integer ≥ 2"),
    ({"n": 10.0}, TypeError, "`n` must be an integer"),
    ({"hard_counts": [11]}, ValueError, "`hard_counts` must lie in 0..n"),
    ({"hard_counts": [1.5]}, TypeError, "`hard_counts` must be a non-empty list"),
    ({"p": "guess"}, ValueError, "`p` must be one of"),
    ({"model": "M3"}, ValueError, "`model` must be one of"),
    ({"error_rate": 0.1}, ValueError, "under M1 easy items"),
    ({"model": "M2", "error_rate": 1.0}, ValueError, "`error_rate` must be in"),
    ({"alpha": 1.0}, ValueError, "`alpha`"),
    ({"n_sims": 0}, ValueError, "`n_sims` must be an integer ≥ 1"),
    ({"n_raters": 1}, ValueError, "`n_raters` must be an integer ≥ 2"),
])
def test_gamma_coverage_validation(kwargs, error, match):
    args = {"n": 10, "hard_counts": [2], **kwargs}
    with pytest.raises(error, match=match):
        gamma_coverage(args.pop("n"), args.pop("hard_counts"), **args)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"sample_size": 11}, ValueError, "cannot exceed `n_agreed`"),
    ({"error_counts": [-1]}, ValueError, "`error_counts` must lie in"),
    ({"alpha": 0}, ValueError, "`alpha`"),
    ({"n_agreed": 0}, ValueError, "`n_agreed` must be an integer ≥ 1"),
])
def test_verified_sample_coverage_validation(kwargs, error, match):
    args = {"n_agreed": 10, "error_counts": [2], "sample_size": 5, **kwargs}
    with pytest.raises(error, match=match):
        verified_sample_coverage(args.pop("n_agreed"), args.pop("error_counts"), **args)
