"""Annotator accuracy over easy and hard items, and warm-started bootstrap refits.

``LatentClassFit.annotator_frame``'s ``accuracy`` is checked against a reference written from the definition (the
probability, summed over the model's states, that the annotator reports the state's
class) and against the simulated annotators' realised accuracy; the warm-started refits
of ``refit_resamples(start=fit)`` against the fit itself (the full sample is a fixed point
of its own EM) and against cold refits of the same resamples.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from noise_models import LatentClassModel, annotator_intervals
from simulation import simulate_annotations

LEVELS = (0.2, 0.4, 0.6)  # the item-difficulty model's accuracy levels (its docstring)


def _sim(seed=4, n=1500):
    return simulate_annotations(n, 20, model="M2", hard_share=0.3,
                                error_rates=np.linspace(0.05, 0.35, 20), raters_per_item=6,
                                hardness=(0.4, 0.7, 1.0), rng=seed)


def _fit(r, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LatentClassModel("spam", "difficulty", rng=0, **kw).fit(r)


def _reference_accuracy(fit) -> np.ndarray:
    """Σ over states s (easy of class c; hard of class c at level a) of w_s · P(x = c | s),
    from the model's definition: on an easy item annotator j knows the class with θ_j,
    on a hard item of level a with θ_j·a, and otherwise draws from ξ_j."""
    theta, xi = np.asarray(fit.competence), np.asarray(fit.spam_distribution)
    phi, pi, omega = np.asarray(fit.class_weights), fit.pi, np.asarray(fit.level_weights)
    out = np.zeros(len(theta))
    for j in range(len(theta)):
        for c in range(len(phi)):
            out[j] += (1 - pi) * phi[c] * (theta[j] + (1 - theta[j]) * xi[j, c])
            for a, w in zip(LEVELS, omega, strict=True):
                ta = theta[j] * a
                out[j] += pi * w * phi[c] * (ta + (1 - ta) * xi[j, c])
    return out


def test_accuracy_of_the_difficulty_model_is_over_easy_and_hard_items():
    sim = _sim()
    fit = _fit(sim.ratings)
    acc = fit.annotator_frame()["accuracy"].to_numpy()
    np.testing.assert_allclose(acc, _reference_accuracy(fit), rtol=1e-12)
    # the realised accuracy of each simulated annotator against the true classes
    x, truth = sim.ratings.codes, np.asarray(sim.true_class)
    rated = x >= 0
    realised = ((x == truth[:, None]) & rated).sum(axis=0) / rated.sum(axis=0)
    assert np.abs(acc - realised).max() < 0.05
    assert np.abs(acc - realised).mean() < 0.02
    # below the competence on easy items wherever the model finds hard items
    theta, xi = np.asarray(fit.competence), np.asarray(fit.spam_distribution)
    easy = theta + (1 - theta) * (xi @ np.asarray(fit.class_weights))
    assert fit.pi > 0.1 and np.all(acc < easy)


def test_accuracy_of_the_plain_models_is_unchanged_and_m1_is_right_on_easy_items():
    sim = _sim(seed=5, n=600)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spam = LatentClassModel("spam", rng=0).fit(sim.ratings)
        coin = LatentClassModel("one-coin", rng=0).fit(sim.ratings)
        m1 = LatentClassModel("perfect", "free", rng=0).fit(sim.ratings)
    theta = np.asarray(spam.competence)
    np.testing.assert_allclose(spam.annotator_frame()["accuracy"],
                               theta + (1 - theta) * (spam.spam_distribution @ spam.phi))
    np.testing.assert_allclose(coin.annotator_frame()["accuracy"], 1 - coin.error_rate)
    assert m1.annotator_frame()["accuracy"].tolist() == [1.0] * sim.ratings.n_raters
    with pytest.raises(ValueError, match="no annotator parameter"):
        annotator_intervals(m1, n_resamples=5)


def test_warm_refit_of_the_full_sample_is_the_fit_itself():
    sim = _sim(seed=6, n=800)
    fit = _fit(sim.ratings)
    model = LatentClassModel("spam", "difficulty", n_starts=1)
    (rep,) = model.refit_resamples(sim.ratings, [np.ones(800, dtype=np.int64)], [0],
                                   start=fit)
    np.testing.assert_allclose(rep["competence"], fit.competence, atol=2e-3)
    np.testing.assert_allclose(rep["level_weights"], fit.level_weights, atol=2e-2)
    assert rep["pi"] == pytest.approx(fit.pi, abs=5e-3)


def test_warm_refits_agree_with_cold_refits():
    sim = _sim(seed=7, n=1000)
    fit = _fit(sim.ratings)
    g = np.random.default_rng(1)
    counts = [g.multinomial(1000, np.full(1000, 1e-3)) for _ in range(8)]
    model = LatentClassModel("spam", "difficulty", n_starts=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cold = list(model.refit_resamples(sim.ratings, counts, range(8)))
        warm = list(model.refit_resamples(sim.ratings, counts, range(8), start=fit))
    def accuracy(rep):  # from the definition, as _reference_accuracy
        eff = rep["competence"] * ((1 - rep["pi"]) + rep["pi"] * np.dot(rep["level_weights"],
                                                                        LEVELS))
        return eff + (1 - eff) * (rep["spam_distribution"] @ rep["phi"])

    diff = [np.abs(accuracy(c) - accuracy(w)).max() for c, w in zip(cold, warm, strict=True)]
    # a cold refit may stop elsewhere along the flat level weights: small against the
    # accuracies' bootstrap spread (95% half-widths about 0.03 here)
    assert np.median(diff) < 0.005 and max(diff) < 0.02


def test_intervals_of_the_default_model_cover_the_realised_accuracy():
    sim = _sim(seed=8, n=1500)
    fit = _fit(sim.ratings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = annotator_intervals(fit, n_resamples=100, rng=0)
    x, truth = sim.ratings.codes, np.asarray(sim.true_class)
    rated = x >= 0
    realised = ((x == truth[:, None]) & rated).sum(axis=0) / rated.sum(axis=0)
    inside = (table["accuracy_low"] <= realised) & (realised <= table["accuracy_high"])
    # 20 annotators at 95%: Binomial(20, 0.95) is at least 16 with probability 0.997
    assert inside.sum() >= 16


def test_refits_that_collapse_are_one_warning_with_their_count():
    # each bootstrap refit that lost a class used to warn as if the fit had collapsed (the
    # judge audit printed four such notes for four of its 100 refits); the fit here warns
    # of nothing, and a rare class (5% of the items, noisy annotators) is lost by some
    # refits: one warning counts them
    from agreement import ConvergenceWarning

    sim = simulate_annotations(200, 3, model="M2", class_shares=[0.85, 0.1, 0.05],
                               error_rates=[0.3, 0.35, 0.4], hard_share=0.2, rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = LatentClassModel("spam", rng=0).fit(sim.ratings)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        annotator_intervals(fit, n_resamples=30, rng=0)
    assert len(caught) == 1 and caught[0].category is ConvergenceWarning
    # 4 of the 30 seeded refits lose the rare class (the code before the summary warned 4
    # times, once a refit, on these data): the count and the words are pinned
    assert str(caught[0].message) == (
        "MACE (spam): of the 30 bootstrap refits behind the annotator intervals, 4 lost a "
        "class that the majority vote has (the fit itself is as reported); the annotator "
        "intervals include those refits.")
