"""Prediction-powered estimates: ``ppi_mean`` and ``judge_estimate`` (SPEC §10).

References: ``ppi_py`` (Angelopoulos et al.; MIT; a test reference only) for PPI and
PPI++ without strata, to 1e-8; a slow pure-Python reference from the definitions
(Angelopoulos, Duchi & Zrnic 2023; Fisch et al. 2024: θ = Σ w_k θ_k, Var = Σ w_k² Var_k)
for the stratified estimate; coverage by simulation with several noisy humans per item (binomtest).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from agreement import EstimationWarning, Ratings, ShapeError, UnstableStartsWarning
from noise_models import LatentClassModel, judge_estimate, ppi_mean
from simulation import judge_plan

ppi_py = pytest.importorskip("ppi_py")


def _data(seed, n=150, big_n=1500, p=0.3, acc=0.85, continuous=False):
    g = np.random.default_rng(seed)
    if continuous:
        y = g.normal(3.0, 1.0, n + big_n)
        f = 0.7 * y + g.normal(0.5, 0.6, n + big_n)
    else:
        y = (g.random(n + big_n) < p).astype(float)
        f = np.where(g.random(n + big_n) < acc, y, 1 - y)
    return y[:n], f[:n], f[n:]


# --------------------------------------------------------------- ppi_py equality
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tuned", [True, False])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_equals_ppi_py(seed, tuned, level):
    y, f, fu = _data(seed, continuous=seed % 2 == 1)
    with warnings.catch_warnings():  # seed 0 with λ = 1 gains only 1.085: the warning is due
        warnings.simplefilter("ignore", EstimationWarning)
        res = ppi_mean(y, f, fu, tuned=tuned, confidence_level=level)
    lo, hi = ppi_py.ppi_mean_ci(y, f, fu, alpha=1 - level, lam=None if tuned else 1)
    assert res.low == pytest.approx(float(lo[0]), abs=1e-8)
    assert res.high == pytest.approx(float(hi[0]), abs=1e-8)
    point = ppi_py.ppi_mean_pointestimate(y, f, fu, lam=None if tuned else 1)
    assert res.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-8)
    c_lo, c_hi = ppi_py.baselines.classical_mean_ci(y, alpha=1 - level)
    assert res.classical_interval() == pytest.approx((c_lo, c_hi), abs=1e-8)
    assert res.confidence_interval(0.8) == pytest.approx(
        [float(v[0]) for v in ppi_py.ppi_mean_ci(y, f, fu, alpha=0.2,
                                                  lam=None if tuned else 1)], abs=1e-8)


def test_lambda_is_ppi_py_lambda_and_clipped():
    # λ̂ against ppi_py's internal plug-in; a judge anti-correlated with the truth gets λ = 0
    y, f, fu = _data(0)
    grads, gh, ghu = y - 0.3, f - 0.3, fu - 0.3
    lam = ppi_py.ppi._calc_lam_glm(grads, gh, ghu, np.eye(1), clip=True)
    assert ppi_mean(y, f, fu).lam == pytest.approx(lam, abs=1e-12)
    with pytest.warns(EstimationWarning, match="too weakly correlated"):
        res = ppi_mean(y, 1 - f, 1 - fu)
    assert res.lam == 0.0 and res.weak_judge
    assert res.estimate == pytest.approx(y.mean(), abs=1e-12)  # λ = 0 is the classical mean
    assert res.sample_size_gain == pytest.approx(1.0)


# --------------------------------------------------------------- stratified, by hand
def _stratified_reference(y, f, fu, s_lab, s_unl, tuned):
    """Fisch et al. (2024): θ = Σ_k w_k θ_k, Var = Σ_k w_k² Var_k, with each stratum's
    PPI++ estimate written out in plain Python loops."""
    total = len(y) + len(fu)
    est = var = 0.0
    for k in sorted(set(s_lab) | set(s_unl)):
        yk = [a for a, s in zip(y, s_lab, strict=True) if s == k]
        fk = [a for a, s in zip(f, s_lab, strict=True) if s == k]
        uk = [a for a, s in zip(fu, s_unl, strict=True) if s == k]
        n, big_n = len(yk), len(uk)
        my, mf, mu = sum(yk) / n, sum(fk) / n, sum(uk) / big_n
        if tuned:
            cov = sum((a - my) * (b - mf) for a, b in zip(yk, fk, strict=True)) / n
            allf = fk + uk
            ma = sum(allf) / len(allf)
            vf = sum((a - ma) ** 2 for a in allf) / (len(allf) - 1)
            lam = min(1.0, max(0.0, cov / ((1 + n / big_n) * vf)))
        else:
            lam = 1.0
        rect = [a - lam * b for a, b in zip(yk, fk, strict=True)]
        mr = sum(rect) / n
        v = (lam**2 * sum((a - mu) ** 2 for a in uk) / big_n / big_n
             + sum((a - mr) ** 2 for a in rect) / n / n)
        w = (n + big_n) / total
        est += w * (lam * mu + mr)
        var += w * w * v
    return est, math.sqrt(var)


@pytest.mark.parametrize("tuned", [True, False])
def test_stratified_against_reference(tuned):
    g = np.random.default_rng(3)
    y, f, fu = _data(4, n=200, big_n=2000)
    s_lab = g.choice(["a", "b", "c"], size=200, p=[0.5, 0.3, 0.2])
    s_unl = g.choice(["a", "b", "c"], size=2000, p=[0.5, 0.3, 0.2])
    res = ppi_mean(y, f, fu, tuned=tuned, strata=(s_lab, s_unl))
    est, se = _stratified_reference(list(y), list(f), list(fu), list(s_lab), list(s_unl),
                                    tuned)
    assert res.estimate == pytest.approx(est, abs=1e-12)
    assert res.standard_error == pytest.approx(se, abs=1e-12)
    assert res.method == ("stratified PPI++" if tuned else "stratified PPI")
    assert res.lam is None and list(res.strata["stratum"]) == ["a", "b", "c"]
    assert res.strata["weight"].sum() == pytest.approx(1.0)


def test_one_stratum_is_unstratified():
    y, f, fu = _data(5)
    plain = ppi_mean(y, f, fu)
    one = ppi_mean(y, f, fu, strata=(np.zeros(len(y)), np.zeros(len(fu))))
    assert one.estimate == pytest.approx(plain.estimate, abs=1e-12)
    assert one.confidence_interval() == pytest.approx(plain.confidence_interval(), abs=1e-12)
    assert one.classical_interval() == pytest.approx(plain.classical_interval(), abs=1e-12)


# --------------------------------------------------------------- the result
def test_result_fields_agree():
    y, f, fu = _data(1)
    res = ppi_mean(y, f, fu)
    assert float(res) == res.estimate
    assert res.sample_size_gain == pytest.approx(
        (res.classical_standard_error / res.standard_error) ** 2)
    assert res.effective_n == pytest.approx(len(y) * res.sample_size_gain)
    assert res.correlation == pytest.approx(np.corrcoef(y, f)[0, 1])
    assert (res.high - res.low) < (res.classical_high - res.classical_low)
    assert res.n_labelled == 150 and res.n_unlabelled == 1500
    assert "PPI++" in res.summary() and "humans only" in res.summary()


def test_untuned_weak_judge_warns_and_can_be_wider():
    g = np.random.default_rng(2)
    y = (g.random(1000) < 0.5).astype(float)
    f = (g.random(1000) < 0.5).astype(float)  # a coin: no information
    with pytest.warns(EstimationWarning, match=r"λ = 1 \(PPI\)"):
        res = ppi_mean(y[:100], f[:100], f[100:], tuned=False)
    assert res.weak_judge and res.sample_size_gain < 1.0


def test_constant_values_say_why():
    with pytest.warns(EstimationWarning, match="its labels are constant"):
        res = ppi_mean([0.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 0.0])
    assert res.lam == 0.0 and math.isnan(res.correlation)
    with pytest.warns(EstimationWarning, match="human values are constant"):
        ppi_mean([1.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0])


@given(st.integers(0, 10_000), st.floats(-5, 5), st.floats(-5, 5), st.floats(0.2, 5),
       st.booleans())
def test_location_and_scale(seed, shift_y, shift_f, scale, tuned):
    # A shift of the human values moves the estimate and both intervals by the shift; a
    # shift of the judge's values changes nothing; scaling both scales the SEs and keeps λ.
    y, f, fu = _data(seed % 50, n=40, big_n=200, continuous=seed % 2 == 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimationWarning)
        base = ppi_mean(y, f, fu, tuned=tuned)
        moved = ppi_mean(y + shift_y, f + shift_f, fu + shift_f, tuned=tuned)
        scaled = ppi_mean(y * scale, f * scale, fu * scale, tuned=tuned)
    assert moved.estimate == pytest.approx(base.estimate + shift_y, abs=1e-9)
    assert moved.standard_error == pytest.approx(base.standard_error, rel=1e-6, abs=1e-12)
    assert moved.lam == pytest.approx(base.lam, abs=1e-9)
    assert scaled.estimate == pytest.approx(base.estimate * scale, rel=1e-9, abs=1e-12)
    assert scaled.standard_error == pytest.approx(base.standard_error * scale, rel=1e-9)
    assert scaled.lam == pytest.approx(base.lam, abs=1e-9)


def test_inputs_not_mutated():
    y, f, fu = _data(0)
    copies = [a.copy() for a in (y, f, fu)]
    ppi_mean(y, f, fu, strata=(np.zeros(len(y)), np.zeros(len(fu))))
    for a, b in zip((y, f, fu), copies, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("args", "kwargs", "error", "match"), [
    (([1.0, np.nan, 0.0], [1, 0, 0], [1]), {}, ValueError, "`labels` holds 1 NaN"),
    (([1.0, 0.0], [1, 0, 0], [1]), {}, ShapeError, "`predictions` must have one value"),
    (([1.0], [1], [1]), {}, ShapeError, "`labels` needs at least 2"),
    (([1.0, 0.0], [1, 0], []), {}, ShapeError, "`unlabeled_predictions` needs at least 1"),
    (([[1.0, 0.0]], [1, 0], [1]), {}, ShapeError, "`labels` must be 1-D"),
    ((["a", "b"], [1, 0], [1]), {}, TypeError, "`labels` must be a 1-D array of numbers"),
    (([1.0, 0.0], [1, 0], [1]), {"tuned": "yes"}, TypeError, "`tuned` must be True or False"),
    (([1.0, 0.0], [1, 0], [1]), {"strata": "ab"}, TypeError, "`strata` must be a pair"),
    (([1.0, 0.0], [1, 0], [1]), {"strata": ([0], [0])}, ShapeError, "`strata` of the labelled"),
    (([1.0, 0.0, 1.0], [1, 0, 1], [1, 0]), {"strata": ([0, 0, 1], [0, 1])}, ValueError,
     "stratum 1 has 1 labelled"),
    (([1.0, 0.0], [1, 0], [1]), {"confidence_level": 95}, ValueError, "`confidence_level`"),
])
def test_ppi_mean_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ppi_mean(*args, **kwargs)


# --------------------------------------------------------------- judge_estimate
def _table(seed, n_items=2000, n_labelled=200, humans=3, prevalence=0.3, human_err=0.15,
           judge_err=0.1):
    g = np.random.default_rng(seed)
    truth = (g.random(n_items) < prevalence).astype(int)
    cols = {}
    for h in range(humans):
        cols[f"h{h}"] = np.where(g.random(n_items) < human_err, 1 - truth, truth).astype(float)
    cols["judge"] = np.where(g.random(n_items) < judge_err, 1 - truth, truth).astype(float)
    table = pd.DataFrame(cols, index=[f"i{i}" for i in range(n_items)])
    table.iloc[n_labelled:, :humans] = np.nan
    return table


def test_judge_estimate_is_ppi_mean_of_item_values():
    # one value per item: the share of its humans who said 1, however many rated it
    table = _table(0)
    table.iloc[:50, 2] = np.nan          # some items with two humans, not three
    res = judge_estimate(table, "judge", category=1.0)
    h = table[["h0", "h1", "h2"]].iloc[:200]
    y = h.mean(axis=1).to_numpy()        # nanmean per item
    f = table["judge"].to_numpy()
    direct = ppi_mean(y, f[:200], f[200:])
    assert res.estimate == pytest.approx(direct.estimate, abs=1e-12)
    assert res.confidence_interval() == pytest.approx(direct.confidence_interval(), abs=1e-12)
    assert res.humans_per_item == pytest.approx((150 * 3 + 50 * 2) / 200)
    assert res.humans == ("h0", "h1", "h2") and res.candidate == "judge"
    # the mean rating of 0/1 labels is the prevalence of 1
    assert judge_estimate(table, "judge").estimate == pytest.approx(res.estimate, abs=1e-12)
    # and the prevalence of 0 is its complement
    assert judge_estimate(table, "judge", category=0.0).estimate == pytest.approx(
        1 - res.estimate, abs=1e-12)


def test_judge_estimate_majority_shares_ties():
    table = pd.DataFrame({"a": ["x", "x", "y", "x", None], "b": ["x", "y", "y", "y", None],
                          "judge": ["x", "x", "y", "y", "x"]})
    table = pd.concat([table] * 3, ignore_index=True)
    # item values: 1, 1/2 (tie), 0, 1/2 (tie) on the labelled rows; λ = 1
    y = np.tile([1.0, 0.5, 0.0, 0.5], 3)
    f = np.tile([1.0, 1.0, 0.0, 0.0], 3)
    with warnings.catch_warnings():  # twelve items: the judge gains nothing, and says so
        warnings.simplefilter("ignore", EstimationWarning)
        res = judge_estimate(table, "judge", category="x", truth="majority", tuned=False)
        direct = ppi_mean(y, f, np.ones(3), tuned=False)
    assert res.estimate == pytest.approx(direct.estimate, abs=1e-12)


def test_judge_estimate_posterior_uses_the_humans_fit():
    table = _table(1, n_items=600, n_labelled=150)
    model = LatentClassModel("one-coin", rng=0)
    res = judge_estimate(table, "judge", category=1.0, truth="posterior", model=model)
    humans = Ratings.from_wide(table[["h0", "h1", "h2"]].iloc[:150])
    post = LatentClassModel("one-coin", rng=0).fit(humans).class_posterior[:, 1]
    # two classes: φ̂ + (post − φ̂)·φ̂(1 − φ̂)/mean((post − φ̂)²), the influence function of
    # the prevalence's MLE with the annotators' parameters fixed (score (post − φ)/(φ(1 − φ)))
    phi = post.mean()
    y = phi + (post - phi) * phi * (1 - phi) / np.mean((post - phi) ** 2)
    f = table["judge"].to_numpy()
    direct = ppi_mean(y, f[:150], f[150:])
    assert res.estimate == pytest.approx(direct.estimate, abs=1e-10)
    assert res.estimate == pytest.approx(phi + direct.lam * (f[150:].mean() - f[:150].mean()),
                                         abs=1e-10)
    assert res.standard_error == pytest.approx(direct.standard_error, abs=1e-10)


def test_posterior_default_drops_the_unidentified_difficulty_part():
    # Two labels and at most 3 ratings per item: the spam model alone has as many
    # parameters as rating patterns, so the default fits it without the item-difficulty
    # part and says so; its interval is the prediction-powered bootstrap's percentiles.
    # With 4 humans per item the difficulty model stays (normal interval, no note).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimationWarning)
        three = judge_estimate(_table(3, n_items=800), "judge", category=1.0,
                               truth="posterior", rng=0)
        four = judge_estimate(_table(3, n_items=800, humans=4), "judge", category=1.0,
                              truth="posterior", rng=0)
    assert any("item-difficulty part cannot be identified" in n for n in three.notes)
    assert not any("item-difficulty" in n for n in four.notes)
    assert four.draws is None
    assert tuple(three.confidence_interval()) == (three.low, three.high)
    assert three.low == pytest.approx(np.quantile(three.draws, 0.025), abs=1e-12)
    lo90, hi90 = three.confidence_interval(0.9)
    assert three.low < lo90 < hi90 < three.high
    assert three.low < three.estimate < three.high


def test_judge_estimate_labelled_and_humans_options():
    table = _table(2)
    table["other_judge"] = table["judge"]
    sub = [f"i{i}" for i in range(100)]
    res = judge_estimate(table, "judge", category=1.0, labelled=sub,
                         humans=["h0", "h1", "h2"])
    assert res.n_labelled == 100 and res.n_unlabelled == 1900
    mask = np.zeros(len(table), bool)
    mask[:100] = True
    same = judge_estimate(table, "judge", category=1.0, labelled=mask,
                          humans=["h0", "h1", "h2"])
    assert same.estimate == res.estimate
    # without `humans` the other judge would count as a human: a different estimate
    other = judge_estimate(table, "judge", category=1.0, labelled=sub)
    assert other.humans_per_item == 4.0


def test_judge_estimate_leaves_out_items_the_judge_did_not_rate():
    table = _table(3)
    table.iloc[[5, 500], 3] = np.nan
    res = judge_estimate(table, "judge", category=1.0)
    assert res.n_left_out == 2 and res.n_items == 1998
    assert any("did not rate" in n for n in res.notes)


def test_judge_estimate_strata_series():
    table = _table(4)
    strata = pd.Series(np.where(np.arange(2000) % 2, "odd", "even"), index=table.index)
    res = judge_estimate(table, "judge", category=1.0, strata=strata.iloc[::-1])
    assert res.method == "stratified PPI++"
    assert set(res.strata["stratum"]) == {"odd", "even"}


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"candidate": "gpt"}, ValueError, "`candidate` 'gpt' is not a rater"),
    ({"category": 7.0}, ValueError, "`category` 7.0 is not a label"),
    ({"humans": ["h0", "judge"]}, ValueError, "includes the candidate"),
    ({"humans": ["zz"]}, ValueError, "`humans` names raters not in"),
    ({"labelled": ["nope"]}, ValueError, "`labelled` names items that are not"),
    ({"labelled": ["i1999"]}, ValueError, "`labelled` names items no human rated"),
    ({"labelled": np.ones(3, bool)}, ShapeError, "boolean mask needs one entry"),
    ({"truth": "median"}, ValueError, "`truth` must be one of"),
    ({"strata": [1, 2]}, ShapeError, "`strata` needs one stratum per item"),
    ({"model": "spam", "truth": "posterior"}, TypeError, "`model` must be a LatentClassModel"),
])
def test_judge_estimate_bad_input(kwargs, error, match):
    args = {"candidate": "judge", "category": 1.0, **kwargs}
    with pytest.raises(error, match=match):
        judge_estimate(_table(5), **args)


def test_judge_estimate_needs_judge_only_items_and_numbers_for_a_mean():
    full = _table(6, n_labelled=2000)
    with pytest.raises(ValueError, match="no judge-only items"):
        judge_estimate(full, "judge", category=1.0)
    words = pd.DataFrame({"a": ["x", "y", None], "b": ["x", "y", None], "j": ["x", "x", "y"]})
    with pytest.raises(ValueError, match="`category` is needed"):
        judge_estimate(words, "j")


# --------------------------------------------------------------- coverage (slow)
def test_posterior_influence_three_classes():
    # Σ_c IF_ic = 0 and the mean of the rows is φ̂; M·IF_i = post_i − φ̂ (the derivative of
    # the estimating equation Σ(post_i − φ) = 0)
    from noise_models.judge._estimate import _prevalence_influence

    g = np.random.default_rng(0)
    post = g.dirichlet([0.5, 0.8, 1.2], size=400)
    vals = _prevalence_influence(post)
    phi = post.mean(axis=0)
    infl = vals - phi
    np.testing.assert_allclose(infl.sum(axis=1), 0.0, atol=1e-10)
    np.testing.assert_allclose(vals.mean(axis=0), phi, atol=1e-12)
    big_m = (post.T @ post) / 400 / phi[None, :]
    np.testing.assert_allclose(infl @ big_m.T, post - phi, atol=1e-10)


def _coverage(truth, n_reps, seed):
    """Share of ``n_reps`` simulated studies whose 95% interval covers the estimand.

    Each study: 2,000 items, a class of prevalence 0.3; 300 items rated by three
    humans who err with probability 0.2 each (independently), the judge on every
    item errs with probability 0.15. Estimand for "mean": P(a random human says 1)
    = 0.3·0.8 + 0.7·0.2 = 0.38; for "majority": P(the majority of 3 says 1) =
    0.3·P(≤1 error) + 0.7·P(≥2 errors); for "posterior" the prevalence 0.3 (the
    one-coin model is the true model).
    """
    p, e = 0.3, 0.2
    if truth == "mean":
        target = p * (1 - e) + (1 - p) * e
    elif truth == "posterior":
        target = p
    else:
        ok = (1 - e) ** 3 + 3 * e * (1 - e) ** 2
        target = p * ok + (1 - p) * (1 - ok)
    g = np.random.default_rng(seed)
    n_items, n_lab = 2000, 300
    hits = 0
    for _ in range(n_reps):
        t = g.random(n_items) < p
        humans = np.where(g.random((n_lab, 3)) < e, ~t[:n_lab, None], t[:n_lab, None])
        table = np.full((n_items, 4), np.nan)
        table[:n_lab, :3] = humans
        table[:, 3] = np.where(g.random(n_items) < 0.15, ~t, t)
        res = judge_estimate(table, 3, category=1.0, truth=truth, rng=0)
        hits += res.low <= target <= res.high
    return hits


# The posterior's latent-class fit costs about 0.15 s of CPU a study: the default run
# checks it on 100 studies, `pytest --slow` on 400.
@pytest.mark.parametrize(("truth", "n_reps"), [
    ("mean", 600), ("majority", 600), ("posterior", 100),
    pytest.param("posterior", 400, marks=pytest.mark.slow)])
def test_coverage_with_several_noisy_humans(truth, n_reps):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # EM starts that label a few items differently do not move the prevalence
        warnings.simplefilter("ignore", UnstableStartsWarning)
        if truth == "posterior":
            # the fit's own uncertainty, which the judge cannot remove, is most of the
            # posterior values' variance here: the gain is about 1.1, and the weak-judge
            # warning can say so
            warnings.simplefilter("ignore", EstimationWarning)
        hits = _coverage(truth, n_reps, seed=11)
    # not significantly below 93% (one-sided), and not significantly off 95%
    assert stats.binomtest(hits, n_reps, 0.93, alternative="less").pvalue > 0.01, hits
    assert stats.binomtest(hits, n_reps, 0.95).pvalue > 0.001, hits


def test_stratified_covers_when_strata_are_sampled_at_different_rates():
    # Two strata of 1,500 items, prevalence 0.1 and 0.6; humans label 3% of the first
    # and 20% of the second. The pooled labelled items over-represent stratum b, so the
    # unstratified estimate is biased; the stratified one weights each stratum by its
    # share of all items and covers the prevalence 0.35 of the items.
    g = np.random.default_rng(21)
    n_reps, hits, plain_hits = 400, 0, 0
    strata = np.repeat(["a", "b"], 1500)
    for _ in range(n_reps):
        t = g.random(3000) < np.where(strata == "a", 0.1, 0.6)
        lab = g.random(3000) < np.where(strata == "a", 0.03, 0.20)
        table = np.full((3000, 4), np.nan)
        table[lab, :3] = np.where(g.random((lab.sum(), 3)) < 0.1, ~t[lab, None], t[lab, None])
        table[:, 3] = np.where(g.random(3000) < 0.1, ~t, t)
        target = 0.5 * (0.1 * 0.9 + 0.9 * 0.1) + 0.5 * (0.6 * 0.9 + 0.4 * 0.1)
        res = judge_estimate(table, 3, category=1.0, strata=strata)
        hits += res.low <= target <= res.high
        plain = judge_estimate(table, 3, category=1.0)
        plain_hits += plain.low <= target <= plain.high
    assert stats.binomtest(hits, n_reps, 0.95).pvalue > 0.001, hits
    assert plain_hits / n_reps < 0.5  # the design matters: without strata it fails


def test_pandalm_item_values_against_ppi_py(shared_data):
    # PandaLM (Wang et al. 2024, Apache-2.0): 3 humans and GPT-3.5 on 974 items; the
    # humans' labels of the first 200 judged items kept. The item values by hand
    # (share of the 3 humans saying "response 1 better"), then ppi_py on them.
    long = pd.read_csv(shared_data / "judges" / "pandalm2023" / "ratings.csv")
    r = Ratings.from_long(long)
    humans = ["annotator1", "annotator2", "annotator3"]
    wide = long.pivot(index="item", columns="rater", values="label").reindex(r.items)
    judged = wide["gpt-3.5-turbo"].notna().to_numpy()
    keep = r.items[judged][:200]
    res = judge_estimate(r, "gpt-3.5-turbo", category=1, humans=humans, labelled=keep)
    lab = wide.index.isin(keep)
    y = (wide.loc[lab, humans] == 1).mean(axis=1).to_numpy()
    f = (wide.loc[lab, "gpt-3.5-turbo"] == 1).to_numpy(dtype=float)
    fu = (wide.loc[judged & ~lab, "gpt-3.5-turbo"] == 1).to_numpy(dtype=float)
    lo, hi = ppi_py.ppi_mean_ci(y, f, fu, alpha=0.05)
    assert (res.low, res.high) == pytest.approx((lo[0], hi[0]), abs=1e-8)
    assert res.n_left_out == 25 and res.n_labelled == 200 and res.n_unlabelled == 774


@pytest.mark.parametrize("n_reps", [20, pytest.param(300, marks=pytest.mark.slow)])
def test_posterior_coverage_three_classes(n_reps):
    # Three classes (0.5, 0.3, 0.2), humans erring 0.25 uniformly to the other classes on
    # 300 of 2,000 items, the judge erring 0.2: the influence values of the latent-class
    # prevalence cover class 1's prevalence and the mean rating (0.7). Two fits a study
    # with 200 refits each (about 0.5 s of CPU): 20 studies in the default run (a coverage
    # that broke down fails them), 300 with `pytest --slow` (measured 0.973-0.993 of 400,
    # `benchmarks/bench_ppi.py`).
    phi = np.array([0.5, 0.3, 0.2])
    g = np.random.default_rng(4)
    hits = np.zeros(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", UnstableStartsWarning)
        warnings.simplefilter("ignore", EstimationWarning)  # the fit's uncertainty: gain ~1
        for r in range(n_reps):
            t = g.choice(3, size=2000, p=phi)
            other = (t + g.integers(1, 3, 2000)) % 3
            table = np.full((2000, 4), np.nan)
            for k in range(3):
                table[:300, k] = np.where(g.random(300) < 0.25, other[:300], t[:300])
                other = (t + g.integers(1, 3, 2000)) % 3
            table[:, 3] = np.where(g.random(2000) < 0.2, other, t)
            one = judge_estimate(table, 3, category=1.0, truth="posterior", rng=r)
            mean = judge_estimate(table, 3, truth="posterior", rng=r)
            hits += [one.low <= 0.3 <= one.high, mean.low <= 0.7 <= mean.high]
    for h in hits:
        assert stats.binomtest(int(h), n_reps, 0.93, alternative="less").pvalue > 0.01, hits
        assert stats.binomtest(int(h), n_reps, 0.95).pvalue > 0.001, hits


def test_judge_estimate_and_judge_plan_resolve_judge_and_humans_alike():
    # one rule (the shared validation layer) for which columns are the judge and the humans:
    # the same humans give the same estimate and plan, the same mistakes the same words
    g = np.random.default_rng(0)
    t = g.integers(0, 2, 600)
    x = pd.DataFrame(np.where(g.random((600, 4)) < [0.1, 0.1, 0.02, 0.1], 1 - t[:, None],
                              t[:, None]).astype(float), columns=["h1", "h2", "judge", "other"])
    x.loc[100:, ["h1", "h2", "other"]] = np.nan  # items only the judge rated

    def both(humans):
        est = judge_estimate(x, "judge", humans=humans, category=1.0, rng=0)
        plan = judge_plan(x, "judge", humans=humans, target=0.05, category=1.0)
        return est.to_dict(), plan.to_dict()

    assert both(None) == both(["h1", "h2", "other"])
    assert both("h2") == both(["h2"])
    assert both(["h2", "h1", "h2"]) == both(["h2", "h1"])
    assert both(["h2", "h1"]) != both(["h1", "other"])
    for candidate, humans, match in [
            ("gpt", None, r"`candidate` 'gpt' is not a rater of the (ratings|pilot); the raters "
                          r"are \['h1', 'h2', 'judge', 'other'\]"),
            ("judge", ["h3"], r"`humans` names raters not in the (ratings|pilot): \['h3'\]"),
            ("judge", ["h1", "judge"], "`humans` includes the candidate 'judge'; a judge "
                                        "cannot be its own truth")]:
        with pytest.raises(ValueError, match=match):
            judge_estimate(x, candidate, humans=humans)
        with pytest.raises(ValueError, match=match):
            judge_plan(x, candidate, humans=humans, target=0.05)


def test_a_prevalence_and_its_interval_stay_in_zero_one_and_say_so():
    # With 4 labelled items (one of them positive) the normal intervals reach below 0, and
    # PPI's estimate itself is negative; a prevalence lies in [0, 1]: clipped, with a note.
    rng = np.random.default_rng(0)
    n = 400
    truth = rng.random(n) < 0.03
    judge = np.where(rng.random(n) < 0.9, truth, ~truth).astype(int)
    rows = [(i, "judge", int(judge[i])) for i in range(n)]
    labelled = [*np.flatnonzero(truth)[:1], *np.flatnonzero(~truth)[:3]]
    rows += [(int(i), f"h{h}", int(truth[i])) for i in labelled for h in range(3)]
    r = Ratings.from_long(pd.DataFrame(rows, columns=["item", "rater", "label"]),
                          item="item", rater="rater", label="label")
    with pytest.warns(EstimationWarning):
        res = judge_estimate(r, "judge", category=1)
    assert 0.0 <= res.low <= res.estimate <= res.high <= 1.0
    assert 0.0 <= res.classical_low <= res.classical_high <= 1.0
    assert res.low == 0.0 and res.estimate == 0.0 and res.classical_low == 0.0
    assert any("clipped" in note for note in res.notes)
    for ci in (res.confidence_interval(0.99), res.classical_interval(0.999)):
        assert 0.0 <= ci.low <= ci.high <= 1.0
    # the mean rating has no such range: nothing clipped
    with pytest.warns(EstimationWarning):
        mean = judge_estimate(r, "judge")
    assert not any("clipped" in note for note in mean.notes)
