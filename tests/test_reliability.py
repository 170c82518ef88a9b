"""Annotator reliability with intervals: the bootstrap over items of a latent-class fit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from _goldnoise_lib.resampling import weights as _resample
from noise_models import LatentClassModel, annotator_intervals
from simulation import simulate_annotations


def _sim(seed, n=300, rates=(0.05, 0.15, 0.3, 0.45), missing=0.0, m=2):
    return simulate_annotations(n, len(rates), model="M2", n_categories=m, hard_share=0.0,
                                error_rates=list(rates), missing=missing, rng=seed)


def test_replicates_are_refits_on_the_engines_resamples():
    # Replicate b of an interval is the same model refitted on the items drawn by the
    # engine's multinomial counts for that seed: checked through the percentile interval
    # recomputed by hand from those refits.
    sim = _sim(3, n=120)
    fit = LatentClassModel("one-coin", rng=0).fit(sim.ratings)
    table = annotator_intervals(fit, n_resamples=30, rng=7)
    gen = np.random.default_rng(7)
    seeds = _resample.replicate_seeds(gen, 30)
    reps = []
    for b in range(30):
        counts = _resample.multinomial_counts(np.ones(120, dtype=np.int64), seeds[b:b + 1])[0]
        model = LatentClassModel("one-coin", n_starts=1, rng=int(gen.integers(2**63)))
        reps.append(1.0 - model.fit(sim.ratings.take(np.repeat(np.arange(120), counts))
                                    ).error_rate)
    reps = np.array(reps)
    lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(table["accuracy_low"], lo, atol=1e-12)
    np.testing.assert_allclose(table["accuracy_high"], hi, atol=1e-12)
    np.testing.assert_allclose(table["error_rate_low"], 1.0 - hi, atol=1e-12)
    np.testing.assert_allclose(table["accuracy"], 1.0 - fit.error_rate, atol=1e-15)


@pytest.mark.parametrize("annotators", ["one-coin", "spam", "confusion"])
def test_columns_seeds_and_bounds(annotators):
    sim = _sim(5, n=150, missing=0.2, m=3)
    fit = LatentClassModel(annotators, rng=0).fit(sim.ratings)
    a = annotator_intervals(fit, n_resamples=25, rng=1)
    b = annotator_intervals(fit, n_resamples=25, rng=1)
    pd_equal = a.equals(b)
    assert pd_equal  # the same seed, the same intervals
    for name in [c for c in a.columns if c.endswith("_low")]:
        base = name[:-4]
        assert (a[name] <= a[f"{base}_high"]).all()
        assert ((a[name] >= 0) & (a[f"{base}_high"] <= 1)).all()
    assert "accuracy_low" in a.columns
    truth = 1.0 - np.array([0.05, 0.15, 0.3, 0.45])
    assert np.abs(a["accuracy"].to_numpy() - truth).max() < 0.15


def test_refuses_a_model_without_annotator_parameters():
    fit = LatentClassModel("perfect", "free", rng=0).fit(_sim(1, n=80).ratings)
    with pytest.raises(ValueError, match="no annotator parameter"):
        annotator_intervals(fit, n_resamples=5)
    with pytest.raises(ValueError, match="n_resamples"):
        annotator_intervals(fit, n_resamples=0)


@pytest.mark.parametrize("n_sets", [pytest.param(80, marks=pytest.mark.slow), 20])
def test_accuracy_intervals_cover_the_true_accuracy(n_sets):
    # 80 simulated data sets x 5 annotators (400 intervals, every annotator with >= 20
    # ratings), the default 200 resamples. Measured: the 95% percentile intervals cover the
    # true accuracy 1 - error rate for 373 of 400 (0.9325; 0.9308 of 1,200 over 240 data
    # sets; 0.925 with 100 resamples): the 0.93 the issue asks for, a little short of
    # nominal (the refitted EM's replicates are a little too narrow). Asserted: at least
    # 0.93, and not below 0.95 at the 0.1% level (binomial test).
    rates = (0.05, 0.12, 0.2, 0.3, 0.4)
    covered = total = 0
    for seed in range(n_sets):
        sim = _sim(100 + seed, n=200, rates=rates, missing=0.3)
        fit = LatentClassModel("one-coin", rng=seed).fit(sim.ratings)
        table = annotator_intervals(fit, rng=seed)
        keep = table["n_ratings"].to_numpy() >= 20
        truth = 1.0 - np.array(rates)
        inside = (table["accuracy_low"].to_numpy() <= truth) & \
            (truth <= table["accuracy_high"].to_numpy())
        covered += int(inside[keep].sum())
        total += int(keep.sum())
    assert total == 5 * n_sets
    # 0.93 over 400; over the default run's 100 intervals 0.87 (2.5 binomial SDs below)
    assert covered / total >= (0.93 if n_sets >= 80 else 0.87), covered / total
    assert binomtest(covered, total, 0.95, alternative="less").pvalue > 1e-3


def _row_refit_params(model, ratings, counts, seed):
    import copy

    one = copy.copy(model)
    one.rng = seed
    fit = one.fit(ratings.take(np.repeat(np.arange(ratings.n_items), counts)))
    return {"phi": fit.phi, "pi": fit.pi, "q": fit.q, "error_rate": fit.error_rate,
            "confusion": fit.confusion, "competence": fit.competence,
            "spam_distribution": fit.spam_distribution, "converged": fit.converged}


@pytest.mark.parametrize(("annotators", "hard", "n_starts", "m", "missing"), [
    ("one-coin", None, 1, 2, 0.0), ("spam", None, 1, 3, 0.2), ("confusion", None, 1, 3, 0.1),
    ("one-coin", "marginal", 1, 3, 0.0), ("spam", "uniform", 3, 2, 0.1),
    ("confusion", "marginal", 2, 3, 0.0), ("perfect", "free", 2, 3, 0.1),
])
def test_weighted_pattern_refits_equal_row_refits_bit_for_bit(annotators, hard, n_starts, m,
                                                              missing):
    # refit_resamples runs the EM over the distinct rows weighted by the items' counts:
    # the very rows and integer weights the row refit's engine gets after merging its
    # identical rows, so every parameter is equal bit for bit (not just to rounding).
    sim = simulate_annotations(200, 4, model="M2", n_categories=m, hard_share=0.1,
                               error_rates=[0.05, 0.15, 0.3, 0.45], missing=missing, rng=4)
    model = LatentClassModel(annotators, hard, n_starts=n_starts)
    gen = np.random.default_rng(5)
    draws = [gen.multinomial(200, np.full(200, 1 / 200)) for _ in range(6)]
    seeds = [int(s) for s in gen.integers(2**63, size=6)]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = list(model.refit_resamples(sim.ratings, draws, seeds))
        slow = [_row_refit_params(model, sim.ratings, c, s) for c, s in zip(draws, seeds,
                                                                              strict=True)]
    for a, b in zip(fast, slow, strict=True):
        for key, value in b.items():
            if value is None:
                assert a[key] is None, key
            else:
                assert np.array_equal(np.asarray(a[key]), np.asarray(value)), key


def test_refit_resamples_falls_back_to_the_rows_when_rows_are_all_distinct():
    # 12 annotators, 4 categories: nearly every row distinct, so the fit does not merge
    # rows; the refit of the rows runs instead, with the same result.
    sim = simulate_annotations(60, 12, model="M2", n_categories=4, hard_share=0.0,
                               error_rates=[0.2] * 12, rng=1)
    model = LatentClassModel("one-coin", n_starts=1)
    counts = np.random.default_rng(0).multinomial(60, np.full(60, 1 / 60))
    (fast,) = model.refit_resamples(sim.ratings, [counts], [3])
    slow = _row_refit_params(model, sim.ratings, counts, 3)
    assert np.array_equal(fast["error_rate"], slow["error_rate"])
    assert np.array_equal(fast["phi"], slow["phi"])


def test_refit_resamples_refuses_counts_of_the_wrong_length():
    sim = _sim(1, n=50)
    with pytest.raises(ValueError, match="needs 50 counts"):
        list(LatentClassModel("one-coin").refit_resamples(sim.ratings, [np.ones(49)], [0]))


def test_a_warning_of_a_row_refit_is_a_warning_of_the_weighted_refit():
    # a refit that stops at max_iter says so, as the refit of the rows does
    sim = _sim(2, n=100)
    model = LatentClassModel("confusion", max_iter=2, n_starts=1)
    counts = np.random.default_rng(1).multinomial(100, np.full(100, 1 / 100))
    with pytest.warns(Warning, match="did not converge") as fast:
        list(model.refit_resamples(sim.ratings, [counts], [0]))
    with pytest.warns(Warning, match="did not converge") as slow:
        _row_refit_params(model, sim.ratings, counts, 0)
    assert [str(w.message) for w in fast] == [str(w.message) for w in slow]


def _warm_cases():
    """(ratings, model) pairs whose warm-started refits take each path of a block: rows
    merged, rows weighted (nearly every row distinct), replicate columns, several models."""
    import pandas as pd

    from agreement import Ratings

    def sim(n, k, m, missing, seed):
        return simulate_annotations(n, k, model="M2", n_categories=m, hard_share=0.2,
                                    error_rates=list(np.linspace(0.05, 0.4, k)),
                                    missing=missing, rng=seed).ratings

    rng = np.random.default_rng(5)
    truth = np.repeat(rng.integers(0, 2, 150), 6)
    label = np.where(rng.random(900) < 0.75, truth, rng.integers(0, 2, 900))
    reps = Ratings.from_long(pd.DataFrame({"item": np.repeat(np.arange(150), 6),
                                           "rater": np.tile([0, 0, 1, 1, 2, 3], 150),
                                           "label": label}),
                             item="item", rater="rater", label="label", replicates="separate")
    return [(sim(300, 5, 3, 0.1, 1), LatentClassModel("spam", "difficulty", n_starts=1)),
            (sim(120, 12, 3, 0.2, 2), LatentClassModel("spam", "difficulty", n_starts=1)),
            (reps, LatentClassModel("spam", "difficulty", n_starts=1)),
            (sim(200, 4, 3, 0.0, 3), LatentClassModel("confusion", "marginal", n_starts=1)),
            (sim(200, 4, 2, 0.1, 4), LatentClassModel("one-coin", None, n_starts=1))]


@pytest.mark.parametrize("case", range(5))
def test_a_block_of_warm_refits_is_each_refit_run_alone(case):
    # One kernel call runs a block's warm-started refits, spread over the threads: each
    # refit is the engine's serial EM from the fit's parameters, so every parameter (and
    # every warning) is the one of the same refit run alone, bit for bit, on any number
    # of threads.
    import warnings

    import numba

    r, model = _warm_cases()[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = LatentClassModel(model.annotators, model.hard, rng=0).fit(r)
    gen = np.random.default_rng(case)
    counts = np.array([gen.multinomial(r.n_items, np.full(r.n_items, 1 / r.n_items))
                       for _ in range(7)])
    seeds = list(range(7))
    refits = model._pattern_refits(r, fit)
    alone = []
    with warnings.catch_warnings(record=True) as said_alone:
        warnings.simplefilter("always")
        for c, s in zip(counts, seeds, strict=True):
            alone.append(refits.params(c, s) or refits._rows_refit(c, s))
    before = numba.get_num_threads()
    blocks = []
    try:
        for threads in sorted({1, before}):
            numba.set_num_threads(threads)
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                blocks.append(refits.block(counts, seeds))
            assert [str(w.message) for w in said] == [str(w.message) for w in said_alone]
    finally:
        numba.set_num_threads(before)
    for block in blocks:
        for a, b in zip(block, alone, strict=True):
            assert a.keys() == b.keys()
            for key, value in b.items():
                if value is None:
                    assert a[key] is None, key
                else:
                    assert np.array_equal(np.asarray(a[key]), np.asarray(value)), key
    # and through the public entry, one resample at a time
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        public = list(model.refit_resamples(r, counts, seeds, start=fit))
    for a, b in zip(public, alone, strict=True):
        assert all(np.array_equal(np.asarray(a[key]), np.asarray(b[key]))
                   for key in b if b[key] is not None)


def _reference_easy_labels(rows, params, model):
    """Each row's most probable easy class, from the model's definition, rating by rating:
    log((1 − π) φ_c) + Σ_j log P(x_j | class c) — spam: θ_j [x = c] + (1 − θ_j) ξ_j(x);
    perfect: [x = c] — ties to the first class; where no class is possible, the majority
    vote (ties to the first)."""
    import math

    phi, pi, theta, xi = params["phi"], params["pi"], params["theta"], params["xi"]
    out = []
    for row in rows:
        best, best_v = -1, -math.inf
        for c in range(len(phi)):
            v = math.log1p(-pi) + math.log(phi[c])
            for j, x in enumerate(row):
                if x < 0:
                    continue
                p = (theta[j] * (x == c) + (1 - theta[j]) * xi[j][x] if model == "spam"
                     else float(x == c))
                v += math.log(p) if p > 0 else -math.inf
            if v > best_v:
                best, best_v = c, v
        if best_v == -math.inf:
            votes = [sum(1 for x in row if x == c) for c in range(len(phi))]
            best = max(range(len(phi)), key=lambda c: (votes[c], -c))
        out.append(best)
    return np.array(out)


@pytest.mark.parametrize("annotators", ["spam", "perfect"])
def test_the_refit_labels_kernel_against_the_definition(annotators):
    # The refits' labels: each row's most probable easy class, as a slow reference
    # computes it from the model's definition (and as the full posterior pass labels it).
    from noise_models.latent_class import _kernels as K
    from noise_models.latent_class import _kernels_refits as KF

    rng = np.random.default_rng(3)
    k, m = 4, 3
    rows = rng.integers(-1, m, size=(60, k)).astype(np.int8)
    rows[0] = [0, 1, 2, -1]  # a disagreement: impossible under the perfect emission
    rows[1] = [-1, -1, -1, -1]  # no rating: the class weights alone
    hard = K.HARD_DIFFICULTY if annotators == "spam" else K.HARD_FREE
    model = K.SPAM if annotators == "spam" else K.PERFECT
    phi = rng.dirichlet(np.ones(m))
    pi = np.r_[0.3, rng.dirichlet(np.ones(K.N_LEVELS))]
    theta, xi = rng.uniform(0.3, 0.9, k), rng.dirichlet(np.ones(m), size=k)
    logtab, logw = K.tables(model, hard, phi, pi, np.full(k, 0.2), np.tile(np.eye(m), (k, 1, 1)),
                            theta, xi, np.full((k, m), 1 / m))
    labels = KF.easy_labels(rows, logtab, logw)
    want = _reference_easy_labels(rows.tolist(), {"phi": phi, "pi": pi[0], "theta": theta,
                                                  "xi": xi}, annotators)
    assert labels.tolist() == want.tolist()
    assert labels.tolist() == K.posteriors(rows, logtab, logw)[2].tolist()
    if annotators == "perfect":
        assert labels[0] == 0  # no class possible: the vote, ties to the first
