"""Honest posteriors (SPEC §5): the held-out check, the tempered fit, calibration, gold in the fit."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from agreement import ConvergenceWarning, Ratings, UnstableStartsWarning
from noise_models import LatentClassModel, calibration, posterior_check
from noise_models.latent_class import _tempering as T
from noise_models.latent_class._check import reliability_table
from noise_models.latent_class._em import fit_tables


def _independent(n=2000, k=5, acc=0.75, m=2, seed=0):
    """Annotators who err independently (the one-coin model itself)."""
    g = np.random.default_rng(seed)
    truth = g.integers(0, m, n)
    wrong = (truth[:, None] + g.integers(1, m, (n, k))) % m
    x = np.where(g.random((n, k)) < acc, truth[:, None], wrong)
    return Ratings.from_wide(x), truth


def _slow_ece(conf, right, n_bins=10):
    bins = {}
    for c, r in zip(conf, right, strict=True):
        b = min(int(c * n_bins), n_bins - 1)
        bins.setdefault(b, []).append((c, r))
    total = len(conf)
    return sum(len(v) / total * abs(sum(r for _, r in v) / len(v) - sum(c for c, _ in v) / len(v))
               for v in bins.values())


def _gold_ece(fit, truth):
    return reliability_table(fit.label_posterior, fit.label_codes == truth)[1]


def test_reliability_table_matches_a_slow_reference():
    g = np.random.default_rng(4)
    for _ in range(20):
        conf = g.random(int(g.integers(1, 300)))
        conf[: len(conf) // 5] = 1.0
        right = g.random(len(conf)) < conf
        table, ece = reliability_table(conf, right)
        assert ece == pytest.approx(_slow_ece(conf, right), abs=1e-12)
        assert int(table["n"].sum()) == len(conf)


@pytest.mark.parametrize(("annotators", "hard"), [("spam", None), ("confusion", None),
                                                  ("one-coin", None), ("spam", "marginal"),
                                                  ("perfect", "free")])
def test_tables_of_a_fit_give_back_its_posteriors(annotators, hard):
    r, _ = _independent(400, 4, 0.7, m=3, seed=1)
    fit = LatentClassModel(annotators, hard, rng=0, n_starts=2).fit(r)
    logtab, logw = fit_tables(fit)
    post = T.state_log_posterior(r.codes, logtab, logw)
    class_post, hard_post, label_post = T.tempered_posteriors(post, r.n_categories,
                                                              np.asarray(fit.label_codes), 1.0)
    np.testing.assert_allclose(class_post, fit.class_posterior, atol=1e-12)
    np.testing.assert_allclose(label_post, fit.label_posterior, atol=1e-12)
    if hard is not None:
        np.testing.assert_allclose(hard_post, fit.posterior_hard, atol=1e-12)


def test_held_out_ratings_are_every_rating_of_items_rated_twice():
    x = np.array([[0, 1, -1], [1, 1, 1], [0, -1, -1], [-1, 0, 1]])
    held = T.heldout_sample(x, np.random.default_rng(0))
    assert list(zip(held.items.tolist(), held.annotator.tolist(), strict=True)) == [
        (0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (3, 1), (3, 2)]
    assert (x[held.items, held.annotator] == held.label).all()
    sub = T.heldout_sample(x, np.random.default_rng(0), max_items=2)
    assert len(np.unique(sub.items)) == 2


def test_the_true_model_is_calibrated_and_beats_the_baselines():
    r, truth = _independent(6000, 5, 0.7, seed=2)
    fit = LatentClassModel("one-coin", rng=0).fit(r)
    # against the truth: ECE within sampling error of a calibrated forecaster
    assert _gold_ece(fit, truth) < 0.02
    check = posterior_check(fit, rng=0)
    assert not check.worse_than_baseline
    assert check.log_score > check.log_score_majority > check.log_score_marginal - 0.1
    assert check.ece < 0.02  # the held-out ratings are predicted calibrated too
    assert check.n_heldout == 6000 * 5
    assert "better than both baselines" in check.verdict
    assert set(check.to_dict()) >= {"log_score", "log_score_majority", "log_score_marginal",
                                    "ece", "reliability"}


def _mixed_difficulty(n=3000, hard_share=0.4, seed=3):
    """Easy items (annotators right 85%) and hard ones (55%): one error rate is misspecified."""
    g = np.random.default_rng(seed)
    truth = g.integers(0, 2, n)
    acc = np.where(g.random(n) < hard_share, 0.55, 0.85)[:, None]
    x = np.where(g.random((n, 5)) < acc, truth[:, None], 1 - truth[:, None])
    return Ratings.from_wide(x), truth


def test_the_check_flags_mixed_difficulty_and_the_held_out_fit_is_humbler():
    r, truth = _mixed_difficulty()
    plain = LatentClassModel("one-coin", rng=0).fit(r)
    humble = LatentClassModel("one-coin", rng=0, calibrate="held-out").fit(r)
    # one error rate for easy and hard items makes the plain fit overconfident ...
    assert _gold_ece(plain, truth) > 0.05
    # ... the held-out ratings say so (a temperature above 1), labels stay the same
    check = posterior_check(plain, rng=0)
    assert check.suggested_temperature > 1.1 and "sharper than the ratings" in check.verdict
    assert humble.temperature == pytest.approx(check.suggested_temperature, rel=1e-9)
    np.testing.assert_array_equal(humble.label_codes, plain.label_codes)
    assert _gold_ece(humble, truth) < _gold_ece(plain, truth)
    r2, _ = _independent(3000, 5, 0.7, seed=3)
    t_indep = LatentClassModel("one-coin", rng=0, calibrate="held-out").fit(r2).temperature
    assert t_indep < humble.temperature
    assert posterior_check(LatentClassModel("one-coin", rng=0).fit(r2),
                           rng=0).suggested_temperature < 1.1


def _shared_lure(n=3000, *, pull=0.5, seed=0, m=3, k=5):
    """Correlated annotators: on 30% of the items one wrong label (the item's own lure)
    draws each annotator with probability ``pull``; elsewhere they err independently."""
    g = np.random.default_rng(seed)
    truth = g.integers(0, m, n)
    lure = (truth + g.integers(1, m, n)) % m
    other = (truth[:, None] + g.integers(1, m, (n, k))) % m
    x = np.where(g.random((n, k)) < 0.85, truth[:, None], other)
    lured = (g.random(n) < 0.3)[:, None] & (g.random((n, k)) < pull)
    return Ratings.from_wide(np.where(lured, lure[:, None], x)), truth


@pytest.mark.parametrize("annotators", ["one-coin", "spam", "confusion"])
def test_the_check_flags_correlated_annotators(annotators):
    # Errors shared across annotators break the independence every model assumes: the
    # plain fit is overconfident against the truth, the held-out ratings ask for a
    # temperature well above 1 and say so, and the tempered fit is closer to calibrated.
    # With pull=0 (the same annotators erring independently) the check asks for none.
    r, truth = _shared_lure(seed=1)
    plain = LatentClassModel(annotators, rng=0).fit(r)
    check = posterior_check(plain, rng=0)
    assert _gold_ece(plain, truth) > 0.1
    assert check.suggested_temperature > 1.25
    assert "sharper than the ratings" in check.verdict
    humble = LatentClassModel(annotators, rng=0, calibrate="held-out").fit(r)
    assert _gold_ece(humble, truth) < _gold_ece(plain, truth) - 0.02
    r0, _ = _shared_lure(seed=1, pull=0.0)
    assert posterior_check(LatentClassModel(annotators, rng=0).fit(r0),
                           rng=0).suggested_temperature < 1.1


def _many_light_annotators(n=800, k=400, per=10, seed=0):
    """Mixed difficulty (30% hard items: right 55%, else 85%), ten of 400 annotators per
    item: about 20 ratings each, so each annotator's parameters lean on every one of them."""
    g = np.random.default_rng(seed)
    truth = g.integers(0, 2, n)
    hard = g.random(n) < 0.3
    x = np.full((n, k), np.nan)
    for i in range(n):
        js = g.choice(k, per, replace=False)
        acc = 0.55 if hard[i] else 0.85
        x[i, js] = np.where(g.random(per) < acc, truth[i], 1 - truth[i])
    return Ratings.from_wide(x), truth


@pytest.mark.parametrize("annotators", ["spam", "confusion"])
def test_held_out_ratings_are_predicted_by_parameters_that_never_saw_them(annotators):
    # With about 20 ratings per annotator, the full fit's tables have learnt each held-out
    # rating: scored with them the check asks for no flattening at all (T = 1), while the
    # cross-fitted tables ask for T well above 1, and that temperature at least halves the
    # ECE against the truth.
    r, truth = _many_light_annotators()
    plain = LatentClassModel(annotators, rng=0).fit(r)
    humble = LatentClassModel(annotators, rng=0, calibrate="held-out").fit(r)
    codes = np.asarray(r.codes)
    logtab, logw = fit_tables(plain)
    in_sample = T.Fold.of(codes, logtab, logw, T.heldout_sample(codes, np.random.default_rng(0)))
    assert T.choose_temperature([in_sample]) < 1.1
    assert humble.temperature > 2.5
    np.testing.assert_array_equal(humble.label_codes, plain.label_codes)
    assert _gold_ece(plain, truth) > 0.08
    assert _gold_ece(humble, truth) <= 0.5 * _gold_ece(plain, truth)
    assert posterior_check(plain, rng=0).suggested_temperature == pytest.approx(
        humble.temperature, rel=1e-9)


def test_a_fold_is_predicted_without_its_own_ratings():
    # Change one rating of an item: the tables that predict that item's fold do not move,
    # the tables of every other fold do (their refits saw the changed rating).
    from noise_models.latent_class._em import HELD_OUT_FOLDS, heldout_folds

    r, _ = _independent(300, 4, 0.75, m=3, seed=6)
    fit = LatentClassModel("confusion", rng=0).fit(r)
    codes = np.array(r.codes)
    folds = heldout_folds(fit, codes, np.random.default_rng(1))
    assert len(folds) == HELD_OUT_FOLDS
    assert sum(f.held.total for f in folds) == np.count_nonzero(codes >= 0)
    # which fold holds item 0: its row is among that fold's rows
    fold_of = np.random.default_rng(1).permutation(300) % HELD_OUT_FOLDS
    changed = codes.copy()
    changed[0, 0] = (changed[0, 0] + 1) % 3
    again = heldout_folds(fit, changed, np.random.default_rng(1))
    for f, (a, b) in enumerate(zip(folds, again, strict=True)):
        if f == fold_of[0]:
            np.testing.assert_array_equal(a.logtab, b.logtab)
        else:
            assert not np.allclose(a.logtab, b.logtab)


def _slow_predictive(fold, temperature):
    """P(held-out rating = y | the item's other ratings), summed from the definition."""
    from scipy.special import logsumexp

    out = np.zeros((len(fold.held), fold.logtab.shape[1]))
    for h, (item, j) in enumerate(zip(fold.held.items, fold.held.annotator, strict=True)):
        row = fold.rows[item]
        rest = fold.logw.copy()
        for jj, x in enumerate(row):
            if x >= 0 and jj != j:
                rest = rest + fold.logtab[jj, x, :]
        post = np.exp(rest / temperature - logsumexp(rest / temperature))
        out[h] = np.exp(fold.logtab[j]) @ post
    return out


@pytest.mark.parametrize("which", ["easy-hard", "confusion+hard", "spam"])
def test_held_out_predictions_match_the_definition_even_where_a_rating_rules_a_state_out(
        which):
    # Perfect annotators (the easy/hard model) rule out every easy state but one with
    # each rating: the rest of an item cannot be had by subtracting the held-out
    # rating's log emission (-inf - -inf). The check once scored every such rating 0.
    from goldnoise.datasets import load_dawid_skene1979
    from noise_models import EasyHardModel
    from noise_models.latent_class._em import heldout_folds

    df = load_dawid_skene1979()
    r = Ratings.from_long(df, item="patient", rater="observer", label="rating",
                          replicates="separate")
    model = {"easy-hard": EasyHardModel(rng=0),
             "confusion+hard": LatentClassModel("confusion", hard="uniform", rng=0),
             "spam": LatentClassModel("spam", rng=0)}[which]
    with warnings.catch_warnings():  # 45 patients: the starts may disagree, not the point here
        warnings.simplefilter("ignore", UnstableStartsWarning)
        fit = model.fit(r)
    folds = heldout_folds(fit, np.asarray(r.codes), np.random.default_rng(0))
    for f in folds:
        for t in (1.0, 2.5):
            fast = T.predictive(f, t)
            np.testing.assert_allclose(fast, _slow_predictive(f, t), rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(fast.sum(axis=1), 1.0, rtol=1e-9)
    check = posterior_check(fit)
    assert np.isfinite(check.log_score) and check.log_score > -5.0


def _slow_check(fit, rng):
    """The held-out check's scores, summed one held-out rating at a time from the
    definition: the model by :func:`_slow_predictive`, the majority of the item's other
    ratings and the annotator's other ratings, each add-one smoothed."""
    from _goldnoise_lib.validation import check_rng
    from noise_models.latent_class._em import HELD_OUT_MAX_ITEMS, heldout_folds

    codes = np.asarray(fit.ratings.codes)
    m = fit.ratings.n_categories
    folds = heldout_folds(fit, codes, check_rng(rng), HELD_OUT_MAX_ITEMS, fit.gold_codes)
    model = majority = marginal = total = 0.0
    for f in folds:
        pred = _slow_predictive(f, fit.temperature)
        for h, (item, j, y, w) in enumerate(zip(f.held.items, f.held.annotator, f.held.label,
                                                f.held.weight, strict=True)):
            others = [x for jj, x in enumerate(f.rows[item]) if x >= 0 and jj != j]
            mine = [x for ii, x in enumerate(codes[:, j]) if x >= 0]
            model += w * math.log(max(pred[h, y], 1e-300))
            majority += w * math.log((others.count(y) + 1.0) / (len(others) + m))
            marginal += w * math.log((mine.count(y) - 1.0 + 1.0) / (len(mine) - 1.0 + m))
            total += w
    return model / total, majority / total, marginal / total


@pytest.mark.parametrize("case", ["complete", "sparse", "many annotators", "gold"])
def test_the_check_equals_a_slow_reference_from_its_definition(case):
    # The baselines once looped over the annotator columns with a dense row per held-out
    # rating (72 s of a 110 s audit at 10 items x 5,000 annotators); counted from the
    # rated cells now, the three scores are those of the definition.
    g = np.random.default_rng(7)
    gold = None
    if case == "many annotators":
        truth = g.integers(0, 3, 6)
        x = np.where(g.random((6, 300)) < 0.7, truth[:, None], g.integers(0, 3, (6, 300)))
        r = Ratings.from_wide(x)
    elif case == "sparse":
        r, _ = _many_light_annotators(n=120, k=30, per=4, seed=2)
    else:
        r, truth = _independent(150, 4, 0.7, m=3, seed=12)
        if case == "gold":
            gold = pd.Series(r.categories[truth[:30]], index=r.items[:30])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnstableStartsWarning)
        fit = LatentClassModel("spam", rng=0).fit(r, gold=gold)
    check = posterior_check(fit, rng=3)
    model, majority, marginal = _slow_check(fit, 3)
    assert check.log_score == pytest.approx(model, rel=1e-9)
    assert check.log_score_majority == pytest.approx(majority, rel=1e-12)
    assert check.log_score_marginal == pytest.approx(marginal, rel=1e-12)


def test_the_check_is_linear_in_the_ratings_with_thousands_of_annotators():
    # 10 items x 2,000 annotators: the baselines once held a dense row of every
    # annotator for each of the 20,000 held-out ratings (78 MB here, 2 GB at 5,000
    # annotators, and a Python loop over the columns). Now memory per held-out rating is
    # a few hundred bytes whatever the number of annotators (measured: 4.3 MB).
    import tracemalloc

    g = np.random.default_rng(0)
    truth = g.integers(0, 2, 10)
    x = np.where(g.random((10, 2000)) < 0.75, truth[:, None], g.integers(0, 2, (10, 2000)))
    fit = LatentClassModel("spam", rng=0).fit(Ratings.from_wide(x))
    posterior_check(fit, rng=0)  # compiled kernels and imports out of the measure
    tracemalloc.start()
    try:
        check = posterior_check(fit, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert check.n_heldout == 20_000
    assert peak < 1024 * check.n_heldout


def test_the_check_says_so_when_the_temperature_reaches_its_bound():
    # Four items: each refit's tables come from three, and predict nothing; the
    # temperature runs to the top of its range, and the verdict says what that means.
    with pytest.warns(UnstableStartsWarning):  # four items: of course
        fit = LatentClassModel("one-coin", rng=0).fit(np.array([[0, 0], [1, 1], [0, 1], [1, 0]]))
    check = posterior_check(fit)
    assert check.suggested_temperature == pytest.approx(T.T_RANGE[1], rel=0.01)
    assert "the top of the range" in check.verdict
    r, _ = _independent(400, 5, 0.8, seed=3)
    roomy = posterior_check(LatentClassModel("one-coin", rng=0).fit(r))
    assert roomy.suggested_temperature < 10 and "the top of the range" not in roomy.verdict


def test_tempering_keeps_labels_and_never_sharpens():
    r, _ = _independent(1000, 4, 0.8, m=3, seed=5)
    for ann in ("spam", "confusion", "one-coin"):
        plain = LatentClassModel(ann, rng=0).fit(r)
        cal = LatentClassModel(ann, rng=0, calibrate="held-out").fit(r)
        np.testing.assert_array_equal(cal.label_codes, plain.label_codes)
        assert cal.temperature >= 1.0
        assert np.all(cal.label_posterior <= plain.label_posterior + 1e-12)
    assert "calibrate='held-out'" in repr(LatentClassModel("spam", calibrate="held-out"))
    with pytest.raises(ValueError, match="`calibrate` must be one of"):
        LatentClassModel("spam", calibrate="isotonic")


def test_calibration_against_a_verified_sample():
    r, truth = _mixed_difficulty(4000, seed=6)
    fit = LatentClassModel("one-coin", rng=0).fit(r)
    items = pd.Index(r.items)
    g = np.random.default_rng(0)
    sample = np.sort(g.choice(4000, 400, replace=False))
    verified = pd.Series(r.categories[truth[sample]], index=items[sample])
    res = calibration(fit, verified, rng=0)
    right = fit.label_codes[sample] == truth[sample]
    assert res.n_verified == 400
    assert res.verified_accuracy == right.mean()
    ci = binomtest(int(right.sum()), 400).proportion_ci(0.95, method="exact")
    assert res.verified_interval == pytest.approx((ci.low, ci.high))
    assert res.claimed_accuracy == pytest.approx(fit.label_posterior[sample].mean())
    assert res.ece == pytest.approx(_slow_ece(fit.label_posterior[sample], right))
    # the map is monotone in the fit's confidence, and rows are distributions
    order = np.argsort(fit.label_posterior, kind="stable")
    assert np.all(np.diff(res.recalibrated_label_posterior[order]) >= -1e-12)
    np.testing.assert_allclose(res.recalibrated.sum(axis=1), 1.0)
    # on the items not in the sample, recalibration lowers the ECE
    rest = np.setdiff1d(np.arange(4000), sample)
    right_rest = fit.label_codes[rest] == truth[rest]
    before = reliability_table(fit.label_posterior[rest], right_rest)[1]
    after = reliability_table(res.recalibrated_label_posterior[rest], right_rest)[1]
    assert after < before / 2
    assert res.ece_recalibrated < res.ece
    assert res.confidence_interval(0.9)[0] > res.verified_interval[0]


def test_calibration_refuses_bad_samples():
    r, _truth = _independent(50, 3, 0.8, seed=7)
    fit = LatentClassModel("one-coin", rng=0).fit(r)
    with pytest.raises(ValueError, match="not in the ratings: 99; give labels only for rated"):
        calibration(fit, pd.Series({0: 0, 99: 1}))
    with pytest.raises(ValueError, match=r"not categories of the ratings: 7 .*give each item"):
        calibration(fit, pd.Series({0: 7}))
    with pytest.raises(ValueError, match="`verified` is empty"):
        calibration(fit, pd.Series([], dtype=object))
    with pytest.raises(TypeError, match="`verified` must map item ids"):
        calibration(fit, [0, 1])
    with pytest.raises(TypeError, match="`fit` must be a LatentClassFit"):
        posterior_check(r)
    # 1, 1.0 and "1" are one label
    assert calibration(fit, pd.Series({0: "1", 1: 1.0})).n_verified == 2


def test_gold_in_the_fit_all_items():
    g = np.random.default_rng(8)
    n, k, m = 300, 4, 3
    truth = g.integers(0, m, n)
    x = np.where(g.random((n, k)) < 0.7, truth[:, None], g.integers(0, m, (n, k))).astype(float)
    x[g.random((n, k)) < 0.2] = np.nan
    r = Ratings.from_wide(x)
    gold = pd.Series(r.categories[truth], index=r.items)
    fit = LatentClassModel("confusion", prior_strength=0, n_starts=1).fit(r, gold=gold)
    np.testing.assert_array_equal(fit.label_codes, truth)
    assert fit.n_gold == n and np.all(fit.label_posterior == 1.0)
    codes = r.codes
    emp = np.zeros((k, m, m))
    for j in range(k):
        ok = codes[:, j] >= 0
        np.add.at(emp, (j, truth[ok], codes[ok, j]), 1)
    emp /= emp.sum(axis=2, keepdims=True)
    np.testing.assert_allclose(fit.confusion, emp, atol=1e-12)
    np.testing.assert_allclose(fit.phi, np.bincount(truth, minlength=m) / n, atol=1e-12)
    # the objective is the complete-data log-likelihood
    ll = sum(np.log(fit.phi[truth[i]]) + sum(np.log(emp[j, truth[i], codes[i, j]])
                                             for j in range(k) if codes[i, j] >= 0)
             for i in range(n))
    assert fit.log_likelihood == pytest.approx(ll, rel=1e-12)


def test_gold_in_the_fit_some_items_and_refusals():
    r, truth = _independent(600, 3, 0.65, m=2, seed=9)
    gold = pd.Series(truth[:200], index=r.items[:200])
    semi = LatentClassModel("one-coin", rng=0).fit(r, gold=gold)
    assert semi.n_gold == 200
    np.testing.assert_array_equal(semi.label_codes[:200], truth[:200])
    assert np.all(semi.label_posterior[:200] == 1.0)
    # the annotators' error rates use the gold items: closer to the truth's
    errs = np.array([np.mean(r.codes[:, j] != truth) for j in range(3)])
    plain = LatentClassModel("one-coin", rng=0).fit(r)
    assert np.abs(semi.error_rate - errs).sum() <= np.abs(plain.error_rate - errs).sum() + 0.02
    with pytest.raises(ValueError, match="not in the ratings"):
        LatentClassModel("one-coin").fit(r, gold={"nope": 1})
    with pytest.raises(ValueError, match="not categories of the ratings"):
        LatentClassModel("one-coin").fit(r, gold={0: 5})
    with pytest.raises(TypeError, match="`gold` must map item ids"):
        LatentClassModel("one-coin").fit(r, gold=[0, 1])


def test_the_check_of_a_gold_fit_keeps_its_gold_items_known():
    # The check refits a fit with gold as the fit was made: gold items known, not held
    # out; so its suggested temperature is the one calibrate="held-out" chose with gold.
    r, truth = _independent(600, 4, 0.7, m=3, seed=11)
    gold = pd.Series(r.categories[truth[:150]], index=r.items[:150])
    fit = LatentClassModel("confusion", rng=0).fit(r, gold=gold)
    expected = np.full(600, -1)
    expected[:150] = truth[:150]
    np.testing.assert_array_equal(fit.gold_codes, expected)
    assert not fit.gold_codes.flags.writeable
    assert LatentClassModel("confusion", rng=0).fit(r).gold_codes is None
    check = posterior_check(fit)
    assert check.n_heldout == np.count_nonzero(np.asarray(r.codes)[150:] >= 0)
    cal = LatentClassModel("confusion", rng=0, calibrate="held-out").fit(r, gold=gold)
    assert check.suggested_temperature == pytest.approx(cal.temperature, rel=1e-9)
    all_gold = pd.Series(r.categories[truth], index=r.items)
    every = LatentClassModel("confusion", rng=0).fit(r, gold=all_gold)
    with pytest.raises(ValueError, match="no item without gold has two or more ratings"):
        posterior_check(every)


def test_one_item_is_too_few_for_the_held_out_check_and_says_so():
    # one item with two ratings was reported as "no item has two or more ratings": the
    # check deals items into folds and refits without each, so one item gives no fold
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnstableStartsWarning)  # two ratings, two labels
        fit = LatentClassModel("spam", rng=0).fit(Ratings.from_wide(np.array([[0, 1]])))
        two = LatentClassModel("spam", rng=0).fit(Ratings.from_wide(np.array([[0, 1],
                                                                              [1, 1]])))
    with pytest.raises(ValueError, match="needs two or more items; there is 1"):
        posterior_check(fit)
    assert posterior_check(two).n_heldout == 4


def test_audit_shows_the_check_and_the_calibration(tmp_path, capsys):
    import json

    from goldnoise import audit
    from goldnoise._cli import main

    r, truth = _mixed_difficulty(600, seed=11)
    res = audit(r, rng=0)
    chk = res.sections["posterior_check"].values
    direct = posterior_check(res.fit, rng=0)
    assert chk["log_score"] == pytest.approx(direct.log_score)
    assert "calibration" not in res.sections
    verified = pd.Series(truth[:60], index=r.items[:60])
    res2 = audit(r, rng=0, verified=verified, calibrate="held-out")
    cal = res2.sections["calibration"].values
    assert cal["n_verified"] == 60 and res2.fit.temperature > 1.0
    assert cal["ece"] == pytest.approx(calibration(res2.fit, verified, rng=0).ece)
    # the command line: --verified FILE and --calibrate
    frame = pd.DataFrame(r.codes, index=r.items)
    frame.index.name = "id"
    frame.to_csv(tmp_path / "r.csv")
    pd.DataFrame({"id": r.items[:60], "label": truth[:60]}).to_csv(tmp_path / "v.csv",
                                                                   index=False)
    assert main(["audit", str(tmp_path / "r.csv"), "--item", "id", "--verified",
                 str(tmp_path / "v.csv"), "--calibrate", "held-out", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sections"]["calibration"]["values"]["n_verified"] == 60
    assert report["sections"]["posterior_check"]["status"] == "ok"
    assert main(["audit", str(tmp_path / "r.csv"), "--item", "id", "--verified",
                 str(tmp_path / "nope.csv")]) == 1
    assert "--verified" in capsys.readouterr().err
    # a sample naming unknown items or labels is an error, not a section left out
    with pytest.raises(ValueError, match="`verified` names 1 item"):
        audit(r, rng=0, verified=pd.Series({"no-such-item": 0}))
    with pytest.raises(ValueError, match="`verified` has labels that are not categories"):
        audit(r, rng=0, verified=pd.Series({r.items[0]: 7}))
    pd.DataFrame({"id": ["no-such-item"], "label": [0]}).to_csv(tmp_path / "bad.csv",
                                                                 index=False)
    assert main(["audit", str(tmp_path / "r.csv"), "--item", "id", "--verified",
                 str(tmp_path / "bad.csv")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["goldnoise: error: --verified names 1 item(s) that are not in the ratings: "
                   "no-such-item; give labels only for rated items, with the ids the ratings "
                   "use."]
    assert main(["fit", str(tmp_path / "r.csv"), "--item", "id", "--calibrate", "held-out",
                 "--format", "json"]) == 0
    fit_report = json.loads(capsys.readouterr().out)
    assert fit_report["sections"]["fit"]["values"]["temperature"] > 1.0


def test_calibration_does_not_depend_on_the_order_of_the_sample():
    r, truth = _mixed_difficulty(800, seed=12)
    fit = LatentClassModel("one-coin", rng=0).fit(r)
    verified = pd.Series(truth[:300], index=r.items[:300])
    a = calibration(fit, verified, rng=0).to_dict()
    b = calibration(fit, verified.sample(frac=1, random_state=1), rng=0).to_dict()
    assert repr(a) == repr(b)  # NaN of the empty bins compare equal as text


def test_every_start_is_kept_and_near_best_disagreement_is_listed():
    # Dawid & Skene (1979): starts within half a log-likelihood unit of the best label
    # 4.4% of the patients differently (issue: the reported optimum depends on the seed).
    from goldnoise import datasets

    frame = datasets.load_dawid_skene1979()
    r = Ratings.from_long(frame, item="patient", rater="observer", label="rating",
                          replicates="separate")
    with pytest.warns(UnstableStartsWarning, match=r"within 1 log-likelihood unit.*4\.4% of "
                      r"the items.*`fit\.unstable_starts\(\)`.*`n_starts`"):
        fit = LatentClassModel("confusion", rng=0).fit(r)
    assert issubclass(UnstableStartsWarning, ConvergenceWarning)
    assert fit.start_objectives.shape == fit.start_disagreement.shape == (10,)
    assert fit.start_labels.shape == (10, r.n_items)
    kept = int(np.argmax(fit.start_objectives))
    assert fit.start_disagreement[kept] == 0.0
    # every start's labels are kept (classes matched to the kept start's), and the shares
    # of items they give differently are the disagreements reported
    np.testing.assert_array_equal(fit.start_labels[kept], fit.label_codes)
    np.testing.assert_allclose(fit.start_disagreement,
                               (fit.start_labels != fit.label_codes).mean(axis=1))
    unstable = fit.unstable_starts()
    assert len(unstable) > 0 and (unstable["gap"] <= 1.0).all()
    assert (unstable["disagreement"] > 0.01).all()
    # the majority-vote start comes first, the same whatever the seed and number of starts
    one = LatentClassModel("confusion", n_starts=1).fit(r)
    assert one.start_objectives[0] == fit.start_objectives[0]
    assert one.start_labels.shape == (1, r.n_items) and one.unstable_starts().empty
    with pytest.warns(UnstableStartsWarning):
        other = LatentClassModel("confusion", rng=5).fit(r)
    assert other.start_objectives[0] == fit.start_objectives[0]
    # a clear optimum: no warning (the suite turns warnings into errors), nothing listed
    g = np.random.default_rng(3)
    truth = g.integers(0, 2, 500)
    x = np.where(g.random((500, 5)) < 0.85, truth[:, None], 1 - truth[:, None])
    clean = LatentClassModel("one-coin", rng=0).fit(x)
    assert clean.unstable_starts().empty
    assert clean.start_labels.shape == (10, 500)
    assert (clean.start_labels == clean.label_codes).all()


def test_gold_items_keep_their_class_in_every_start():
    r, truth = _independent(300, 3, 0.7, m=3, seed=13)
    gold = pd.Series(truth[:40], index=r.items[:40])
    fit = LatentClassModel("confusion", rng=0).fit(r, gold=gold)
    assert (fit.start_labels[:, :40] == truth[:40]).all()
    np.testing.assert_array_equal(fit.start_labels[int(np.argmax(fit.start_objectives))],
                                  fit.label_codes)


def test_the_audit_notes_unstable_starts_and_says_what_to_do():
    from goldnoise import audit, datasets

    frame = datasets.load_dawid_skene1979()
    frame["rater"] = frame["observer"].astype(str) + "." + frame["replicate"].astype(str)
    r = Ratings.from_long(frame, item="patient", rater="rater", label="rating")
    res = audit(r, rng=0, model="confusion")  # the audit collects warnings as notes
    section = res.sections["latent_class"]
    assert section.values["unstable_starts"] == len(res.fit.unstable_starts()) > 0
    assert any("depends on the starts" in line and "--starts" in line for line in section.lines)
    assert any("unstable_starts" in n and "n_starts" in n for n in section.notes)


def test_annotator_accuracy_on_gold_has_its_exact_interval():
    # Each annotator's accuracy on the gold items they rated, with the Clopper-Pearson
    # interval scipy's binomtest gives for the same counts; annotators without gold items NaN.
    from scipy.stats import binomtest

    from noise_models import LatentClassModel
    from simulation import simulate_annotations

    sim = simulate_annotations(300, 5, model="M2", n_categories=3, hard_share=0.0,
                               error_rates=[0.05, 0.1, 0.2, 0.3, 0.4], missing=0.3, rng=4)
    r = sim.ratings
    fit = LatentClassModel("confusion", rng=0).fit(r)
    gold = sim.true_labels.iloc[:120]  # a gold subset
    table = fit.annotator_frame(gold=gold, confidence_level=0.9)
    codes = r.codes[:120]
    truth = np.asarray(r.categories.get_indexer(gold.to_numpy()))
    for j in range(r.n_raters):
        rated = codes[:, j] >= 0
        right = int((codes[rated, j] == truth[rated]).sum())
        ci = binomtest(right, int(rated.sum())).proportion_ci(0.9, method="exact")
        row = table.iloc[j]
        assert row["n_gold"] == rated.sum()
        assert row["gold_accuracy"] == pytest.approx(right / rated.sum(), abs=1e-15)
        # binomtest root-finds the Clopper–Pearson ends; annotator_frame takes them as
        # beta quantiles: the same numbers to the root-finder's tolerance.
        assert (row["gold_accuracy_low"], row["gold_accuracy_high"]) == pytest.approx(
            (ci.low, ci.high), abs=1e-12)
    assert "gold_accuracy" not in fit.annotator_frame().columns
    with pytest.raises(ValueError, match="not in the ratings"):
        fit.annotator_frame(gold={"nope": 1})
    with pytest.raises(ValueError, match="confidence_level"):
        fit.annotator_frame(gold=gold, confidence_level=1.5)


def _slow_temperature_slope(conf, right):
    """The penalised log-likelihood of "label right" under σ(a · logit p), with
    Platt's smoothed targets, maximised over a grid of slopes, written term by term."""
    n, k = len(right), int(sum(bool(y) for y in right))
    t_right, t_wrong = (k + 1) / (k + 2), 1 / (n - k + 2)

    def objective(a):
        total = 0.0
        for p, y in zip(conf, right, strict=True):
            p = min(max(p, 1e-12), 1 - 1e-12)
            u = a * math.log(p / (1 - p))
            # log q and log(1 - q) of q = 1 / (1 + e^-u), without forming q
            log_q = -math.log1p(math.exp(-u)) if u >= 0 else u - math.log1p(math.exp(u))
            t = t_right if y else t_wrong
            total += t * log_q + (1 - t) * (log_q - u)
        return total - (a - 1) ** 2
    grid = np.linspace(0.0, 6.0, 6001)
    values = [objective(a) for a in grid]
    return grid[int(np.argmax(values))], objective


def test_temperature_recalibration_against_its_definition():
    from noise_models.latent_class._check import _temperature_map

    r, truth = _mixed_difficulty(1500, seed=21)
    fit = LatentClassModel("one-coin", rng=0).fit(r)
    g = np.random.default_rng(3)
    sample = np.sort(g.choice(1500, 120, replace=False))
    conf = fit.label_posterior[sample]
    right = fit.label_codes[sample] == truth[sample]
    res = calibration(fit, pd.Series(r.categories[truth[sample]], index=r.items[sample]),
                      method="temperature", rng=0)
    assert res.method == "temperature"
    slow_a, objective = _slow_temperature_slope(conf, right)
    assert res.slope == pytest.approx(slow_a, abs=2e-3)
    assert objective(res.slope) >= objective(slow_a) - 1e-9
    # the map itself: σ(a · logit p) on every item, monotone
    p = np.clip(fit.label_posterior, 1e-12, 1 - 1e-12)
    expected = 1 / (1 + np.exp(-res.slope * np.log(p / (1 - p))))
    np.testing.assert_allclose(res.recalibrated_label_posterior, expected, rtol=1e-12)
    # an overconfident fit (mixed difficulty, one-coin) is flattened
    assert res.slope < 1
    assert "by temperature" in res.summary()
    # every verified label right: the slope is the penalised optimum of the smoothed
    # targets (5/6 for each of 4 right labels): finite, and it sharpens without reaching 1
    conf4, right4 = np.array([0.6, 0.7, 0.8, 0.9]), np.ones(4, dtype=bool)
    f = _temperature_map(conf4, right4.astype(float))
    slow_all, _ = _slow_temperature_slope(conf4, right4)
    assert f.slope == pytest.approx(slow_all, abs=2e-3)
    assert f.slope > 1
    sharpened = f(np.array([0.6, 0.9]))
    assert np.all(sharpened > [0.6, 0.9])
    assert np.all(sharpened < 1)


def test_temperature_recalibration_small_sample_all_right_is_not_certainty():
    """Five verified labels, all right, of a fit that claims 0.9985 on each (as a
    latent-class fit does on a small crowd set whose accuracy is 0.90): the smoothed
    targets say "about 6/7", so the map flattens the confidence; with 0/1 targets the
    slope would grow past 1 and confirm the overconfidence."""
    from noise_models.latent_class._check import _temperature_map

    conf, right = np.full(5, 0.9985), np.ones(5, dtype=bool)
    f = _temperature_map(conf, right.astype(float))
    slow, _ = _slow_temperature_slope(conf, right)
    assert f.slope == pytest.approx(slow, abs=2e-3)
    assert f.slope < 1
    mapped = float(f(np.array([0.9985]))[0])
    # between the targets' 6/7 and the fit's claim: the pull toward the identity keeps
    # it above 6/7, the targets keep it below the claim
    assert mapped > 6 / 7
    assert mapped < 0.99


def _slow_bayes_map(conf, right, values, prior_sd=0.66):
    """E[σ(a · logit v) | verified] for each v, written from the definition: log a ~
    N(0, prior_sd²), each verified outcome Bernoulli with σ(a · logit x_i), the posterior
    of log a integrated by adaptive quadrature (scipy's quad) term by term; and the
    posterior mean of a."""
    from scipy.integrate import quad
    from scipy.optimize import minimize_scalar

    def logit(p):
        p = min(max(p, 1e-12), 1 - 1e-12)
        return math.log(p / (1 - p))

    def log_sigmoid(u):
        return -math.log1p(math.exp(-u)) if u >= 0 else u - math.log1p(math.exp(u))

    z = [logit(x) for x in conf]

    def log_post(la):
        a = math.exp(la)
        total = -0.5 * (la / prior_sd) ** 2
        for zi, y in zip(z, right, strict=True):
            total += log_sigmoid(a * zi) if y else log_sigmoid(-a * zi)
        return total

    lo, hi = -8 * prior_sd, 8 * prior_sd
    mode = minimize_scalar(lambda la: -log_post(la), bounds=(lo, hi), method="bounded").x
    top = log_post(mode)

    def integral(f):
        return quad(lambda la: math.exp(log_post(la) - top) * f(la), lo, hi,
                    points=[mode], limit=200, epsabs=0, epsrel=1e-10)[0]

    norm = integral(lambda la: 1.0)
    def mapped_at(v):
        zv = logit(v)
        return integral(lambda la: math.exp(log_sigmoid(math.exp(la) * zv))) / norm

    mapped = [mapped_at(v) for v in values]
    return np.array(mapped), integral(math.exp) / norm


def test_bayes_recalibration_against_its_definition():
    # The default map: the temperature map averaged over its slope's posterior, checked
    # against adaptive quadrature of the posterior written out term by term, on a small
    # sample (a wide posterior) and a large one (a narrow one), through calibration().
    r, truth = _mixed_difficulty(1500, seed=21)
    fit = LatentClassModel("one-coin", rng=0).fit(r)
    g = np.random.default_rng(3)
    values = np.array([0.3, 0.55, 0.8, 0.95, 0.999, 1 - 1e-9])
    for n in (12, 400):
        sample = np.sort(g.choice(1500, n, replace=False))
        conf = fit.label_posterior[sample]
        right = fit.label_codes[sample] == truth[sample]
        res = calibration(fit, pd.Series(r.categories[truth[sample]], index=r.items[sample]),
                          rng=0)
        assert res.method == "bayes"
        assert "averaged over its posterior" in res.summary()
        slow_on_items, slow_slope = _slow_bayes_map(conf, right, fit.label_posterior[:8])
        np.testing.assert_allclose(res.recalibrated_label_posterior[:8], slow_on_items,
                                   rtol=0, atol=1e-7)
        assert res.slope == pytest.approx(slow_slope, rel=1e-6)
        from noise_models.latent_class._check import _bayes_temperature_map

        f = _bayes_temperature_map(conf, right.astype(float))
        np.testing.assert_allclose(f(values), _slow_bayes_map(conf, right, values)[0],
                                   rtol=0, atol=1e-7)
    # an overconfident fit (mixed difficulty, one-coin) checked on 400 items is flattened
    assert res.slope < 1
    order = np.argsort(fit.label_posterior, kind="stable")
    assert np.all(np.diff(res.recalibrated_label_posterior[order]) >= -1e-12)


def test_bayes_recalibration_keeps_the_identity_when_the_sample_agrees():
    # Verified outcomes drawn from the fit's own claims (no disagreement in expectation):
    # the posterior of the slope gathers at 1 and the map is the identity within 0.01,
    # closer with more items.
    from noise_models.latent_class._check import _bayes_temperature_map

    g = np.random.default_rng(11)
    v = np.linspace(0.5, 0.999, 60)
    gaps = []
    for n in (500, 5000):
        conf = g.uniform(0.5, 1.0, n)
        right = (g.random(n) < conf).astype(float)
        f = _bayes_temperature_map(conf, right)
        gaps.append(float(np.max(np.abs(f(v) - v))))
        assert f.slope == pytest.approx(1.0, abs=0.15)
    assert gaps[0] < 0.01 and gaps[1] < 0.004


def test_bayes_recalibration_on_tiny_samples():
    from noise_models.latent_class._check import _bayes_temperature_map, _temperature_map

    claims = np.array([0.6, 0.9, 0.99, 0.9985])
    # five right labels where the fit claims 0.9985 (a small crowd set): the map stays
    # within 0.02 of the claim -- the prior's mild hedge -- where the smoothed targets of
    # the penalised temperature map pull it to 0.90
    conf, right = np.full(5, 0.9985), np.ones(5)
    f, old = _bayes_temperature_map(conf, right), _temperature_map(conf, right)
    assert float(f(conf[:1])[0]) > 0.9985 - 0.02
    assert float(old(conf[:1])[0]) < 0.9
    # one wrong of five where the fit claims 0.99 each: the map moves below the claim
    # (the sample says overconfident), by less than the smoothed targets' map
    conf, right = np.full(5, 0.99), np.array([1.0, 1.0, 1.0, 1.0, 0.0])
    f, old = _bayes_temperature_map(conf, right), _temperature_map(conf, right)
    assert np.all(f(claims) < claims) and np.all(f(claims) > old(claims))
    # a single verified item: a finite, monotone map inside (0, 1), the slope's posterior
    # mean moved from the prior's, exp(0.66² / 2), toward the item (up after a right
    # label, down after a wrong one)
    for y, sharper in ((1.0, True), (0.0, False)):
        f = _bayes_temperature_map(np.array([0.9]), np.array([y]))
        mapped = f(claims)
        assert np.all(np.isfinite(mapped)) and np.all((mapped > 0) & (mapped < 1))
        assert np.all(np.diff(mapped) > 0)
        assert (f.slope > math.exp(0.66 ** 2 / 2)) is sharper
        assert f.slope == pytest.approx(_slow_bayes_map([0.9], [y], [0.9])[1], rel=1e-6)


def test_isotonic_recalibration_is_the_other_method():
    r, truth = _mixed_difficulty(2000, seed=22)
    fit = LatentClassModel("one-coin", rng=0).fit(r)
    sample = np.arange(0, 2000, 5)
    verified = pd.Series(r.categories[truth[sample]], index=r.items[sample])
    res = calibration(fit, verified, method="isotonic", rng=0)
    assert res.method == "isotonic" and np.isnan(res.slope)
    assert "by isotonic regression" in res.summary()
    order = np.argsort(fit.label_posterior, kind="stable")
    assert np.all(np.diff(res.recalibrated_label_posterior[order]) >= -1e-12)
    with pytest.raises(ValueError, match="`method` must be one of"):
        calibration(fit, verified, method="platt")


def test_guide_rte_sections_are_what_the_command_prints(shared_data):
    # The guide's RTE block (docs/guide/fit-calibration.md: held-out check, calibration
    # against gold, accuracy against gold) is the command's output, word for word.
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "guide" / "fit-calibration.md"
    block = page.read_text().split("prints, among its sections", 1)[1]
    block = re.search(r"```text\n(.*?)```", block, flags=re.S).group(1)
    d = shared_data / "crowd_gold" / "rte"
    out = subprocess.run(
        [sys.executable, "-m", "goldnoise", "audit", str(d / "label.csv"), "--layout", "long",
         "--item", "item", "--rater", "worker", "--label", "label", "--calibrate", "held-out",
         "--gold", str(d / "truth.csv")],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert out.returncode == 0, out.stderr
    assert block.strip("\n") in out.stdout


def test_annotator_gold_intervals_at_the_ends_match_binomtest():
    # An annotator right on every gold item, one wrong on every one, one in between, one
    # who rated no gold item: Clopper–Pearson's ends (0 and 1) and scipy's exact interval.
    x = pd.DataFrame({"a": [0, 1, 0, 1, 0, 1], "b": [1, 0, 1, 0, 1, 0],
                      "c": [0, 1, 1, 1, 0, 0], "d": [np.nan, np.nan, np.nan, np.nan, 0, 1]})
    fit = LatentClassModel("one-coin", rng=0).fit(Ratings.from_wide(x))
    table = fit.annotator_frame(gold={0: 0, 1: 1, 2: 0, 3: 1}, confidence_level=0.9)
    for j, right in enumerate((4, 0, 3)):
        ci = binomtest(right, 4).proportion_ci(0.9, method="exact")
        assert (table.iloc[j]["gold_accuracy_low"], table.iloc[j]["gold_accuracy_high"]) == \
            pytest.approx((ci.low, ci.high), abs=1e-12)
    assert table.iloc[0]["gold_accuracy_high"] == 1.0 and table.iloc[1]["gold_accuracy_low"] == 0
    assert table.iloc[3]["n_gold"] == 0 and np.isnan(table.iloc[3]["gold_accuracy_low"])


def test_auto_recalibration_chooses_by_leave_one_out_log_score():
    # method="auto": the identity, the temperature map or Platt's map, whichever predicts
    # each verified item best when fitted without it. Checked against the score written
    # out here; an all-right small sample keeps the fit's own confidence, and an
    # overconfident fit checked on many items is flattened.
    from noise_models.latent_class import _check as C

    g = np.random.default_rng(5)
    conf = np.clip(g.beta(8, 1, 200), 0.5, 1 - 1e-9)
    right = (g.random(200) < 0.5 + 0.7 * (conf - 0.5)).astype(float)  # overconfident
    maps = {"identity": C._identity_map, "temperature": C._temperature_map,
            "platt": C._platt_map}

    def loo(fm, x, y):
        out = 0.0
        for i in range(len(x)):
            p = fm(np.delete(x, i), np.delete(y, i))(x[i:i + 1])[0]
            p = min(max(p, 1e-12), 1 - 1e-12)
            out += np.log(p if y[i] else 1 - p)
        return out

    for n in (9, 60, 200):
        x, y = conf[:n], right[:n]
        scores = {k: loo(fm, x, y) for k, fm in maps.items()}
        assert C._auto_map(x, y).chosen == max(scores, key=scores.get)
    assert C._auto_map(conf[:200], right[:200]).chosen != "identity"
    ones = np.ones(9)
    assert C._auto_map(np.full(9, 0.999), ones).chosen == "identity"
