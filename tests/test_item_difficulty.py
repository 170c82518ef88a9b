"""The default crowd model: the spam emission with item difficulty (hard="difficulty")."""

from __future__ import annotations

import importlib.util
import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from noise_models import LatentClassModel, judge_estimate
from noise_models.latent_class import _em as E
from noise_models.latent_class import _kernels as K
from noise_models.latent_class import _kernels_hard as KH
from simulation import simulate_annotations

LEVELS = (0.2, 0.4, 0.6)


def _reference_state_logs(codes, phi, pi, omega, theta, xi):
    """log P(state, ratings) of every item and state, rating by rating from the model's
    definition: easy class c -- annotator j says c with θ_j, else draws from ξ_j; hard
    (c, level a) -- says c with θ_j·a, else draws from ξ_j."""
    n, k = codes.shape
    m = len(phi)
    out = []
    for i in range(n):
        row = []
        for c in range(m):
            lp = np.log(1 - pi) + np.log(phi[c])
            for j in range(k):
                x = codes[i, j]
                if x >= 0:
                    lp += np.log(theta[j] * (x == c) + (1 - theta[j]) * xi[j, x])
            row.append(lp)
        for c in range(m):
            for lev, a in enumerate(LEVELS):
                lp = np.log(pi) + np.log(phi[c]) + np.log(omega[lev])
                for j in range(k):
                    x = codes[i, j]
                    if x >= 0:
                        ta = theta[j] * a
                        lp += np.log(ta * (x == c) + (1 - ta) * xi[j, x])
                row.append(lp)
        out.append(row)
    return np.array(out)


def _reference_hard_means(codes, theta, xi, m):
    """E[p_c | ratings] of a hard item from the definition: p ~ Dirichlet(1/m, ..., 1/m)
    (Perks), annotator j's rating a draw from p with θ_j, else from ξ_j; the product over
    ratings expanded over every subset of annotators who drew from p, each term's
    E[Π_c p_c^{n_c}] the Dirichlet moment Π_c Γ(a + n_c)/Γ(a) · Γ(1)/Γ(1 + n)."""
    a = 1.0 / m

    def moment(n):
        return math.exp(sum(math.lgamma(a + nc) - math.lgamma(a) for nc in n)
                        - math.lgamma(1.0 + sum(n)))

    out = []
    for row in codes:
        rated = [(j, x) for j, x in enumerate(row) if x >= 0]
        num, tot = np.zeros(m), 0.0
        for drew in itertools.product((0, 1), repeat=len(rated)):
            w, n = 1.0, [0] * m
            for (j, x), d in zip(rated, drew, strict=True):
                if d:
                    w *= theta[j]
                    n[x] += 1
                else:
                    w *= (1 - theta[j]) * xi[j, x]
            tot += w * moment(n)
            for c in range(m):
                num[c] += w * moment([nc + (c == y) for y, nc in enumerate(n)])
        out.append(num / tot)
    return np.array(out)


def _params(k, m, seed):
    g = np.random.default_rng(seed)
    p = E._base_params(k, m, None)
    p.phi[:] = g.dirichlet(np.ones(m))
    p.pi[:] = np.r_[g.uniform(0.1, 0.5), g.dirichlet(np.ones(len(LEVELS)))]
    p.theta[:] = g.uniform(0.3, 0.9, k)
    p.xi[:] = g.dirichlet(np.ones(m), size=k)
    return p


def test_kernels_match_a_rating_by_rating_reference():
    assert K.LEVELS == LEVELS
    g = np.random.default_rng(0)
    n, k, m = 40, 5, 3
    codes = g.integers(0, m, size=(n, k)).astype(np.int8)
    codes[g.random((n, k)) < 0.3] = -1
    p = _params(k, m, 1)
    logtab, logw = K.tables(K.SPAM, K.HARD_DIFFICULTY, *p.args())
    ref = _reference_state_logs(codes, p.phi, p.pi[0], p.pi[1:], p.theta, p.xi)
    from noise_models.latent_class._tempering import state_log_posterior
    np.testing.assert_allclose(state_log_posterior(codes, logtab, logw), ref, rtol=1e-12)
    # posterior kernel: P(hard) and the class posterior mixing the easy one with the
    # posterior mean of the hard item's own label distribution
    class_post, hard_post, labels, label_post, ll = K.posteriors(codes, logtab, logw)
    post = np.exp(ref - ref.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    easy = post[:, :m]
    hard = 1 - easy.sum(axis=1)
    share = _reference_hard_means(codes, p.theta, p.xi, m)
    np.testing.assert_allclose(K.hard_label_means(codes, logtab), share, atol=1e-12)
    want = easy / easy.sum(axis=1, keepdims=True) * (1 - hard[:, None]) + hard[:, None] * share
    np.testing.assert_allclose(hard_post, hard, atol=1e-12)
    np.testing.assert_allclose(class_post, want, atol=1e-12)
    np.testing.assert_array_equal(labels, easy.argmax(axis=1))
    np.testing.assert_allclose(label_post, want[np.arange(n), labels], atol=1e-12)
    np.testing.assert_allclose(ll, np.log(np.exp(ref).sum(axis=1)), rtol=1e-10)
    # one E-step's expected counts, summed by hand
    cnt, tot, loglik = K.estep_counts(codes, logtab, logw)
    np.testing.assert_allclose(tot, post.sum(axis=0), rtol=1e-10)
    want_cnt = np.zeros_like(cnt)
    for i in range(n):
        for j in range(k):
            if codes[i, j] >= 0:
                want_cnt[j, codes[i, j]] += post[i]
    np.testing.assert_allclose(cnt, want_cnt, rtol=1e-10, atol=1e-12)
    assert loglik == pytest.approx(ll.sum(), rel=1e-10)


def test_hard_label_means_reduce_to_perks_vote_shares_and_ignore_spammers():
    # Every annotator drawing from the item's distribution (θ_j = 1): the Dirichlet-
    # multinomial posterior mean, (votes + 1/m) / (ratings + 1). A pure spammer (θ_j = 0)
    # says nothing about it: their vote leaves the means as they were without it.
    g = np.random.default_rng(7)
    k, m = 6, 3
    phi, pi = np.full(m, 1 / m), np.r_[0.3, np.full(len(LEVELS), 1 / len(LEVELS))]
    theta = np.ones(k)
    xi = g.dirichlet(np.ones(m), size=k)
    none = (np.zeros(k), np.zeros((k, m, m)))
    logtab, _ = K.tables(K.SPAM, K.HARD_DIFFICULTY, phi, pi, *none, theta, xi, np.zeros((k, m)))
    codes = g.integers(-1, m, size=(50, k)).astype(np.int8)
    votes = np.array([[np.sum(row == c) for c in range(m)] for row in codes], dtype=float)
    perks = (votes + 1 / m) / (votes.sum(axis=1, keepdims=True) + 1)
    np.testing.assert_allclose(K.hard_label_means(codes, logtab), perks, atol=1e-12)
    theta[0] = 0.0
    logtab, _ = K.tables(K.SPAM, K.HARD_DIFFICULTY, phi, pi, *none, theta, xi, np.zeros((k, m)))
    without = codes.copy()
    without[:, 0] = -1
    np.testing.assert_allclose(K.hard_label_means(codes, logtab),
                               K.hard_label_means(without, logtab), atol=1e-12)


def test_hard_label_means_with_many_ratings_serial_and_parallel(kernel_builds):
    # Beyond KH.LINEAR_MAX_RATINGS ratings the kernel works in logs (rising factorials far
    # beyond float range): 600 ratings per item with every θ_j = 1 give Perks's vote
    # shares; 10 informative ratings plus 70 from pure spammers (θ_j = 0, the log path)
    # give what the 10 alone give (the numbers path).
    g = np.random.default_rng(8)
    m = 2
    phi, pi = np.full(m, 1 / m), np.r_[0.3, np.full(len(LEVELS), 1 / len(LEVELS))]

    def tables(theta, xi):
        k = len(theta)
        return K.tables(K.SPAM, K.HARD_DIFFICULTY, phi, pi, np.zeros(k), np.zeros((k, m, m)),
                        theta, xi, np.zeros((k, m)))[0]

    k = 600
    # int8 codes, as Ratings hold two classes (an int16 build would compile for this test alone)
    xi = g.dirichlet(np.ones(m), size=k)
    codes = g.integers(0, m, size=(4, k)).astype(np.int8)
    codes[0] = 0
    logtab = tables(np.ones(k), xi)
    serial = K.hard_label_means(codes, logtab, parallel=False)
    for parallel in kernel_builds[1:]:
        np.testing.assert_array_equal(serial,
                                      K.hard_label_means(codes, logtab, parallel=parallel))
    votes = np.stack([(codes == c).sum(axis=1) for c in range(m)], axis=1)
    np.testing.assert_allclose(serial, (votes + 1 / m) / (k + 1), rtol=1e-9)
    k = 80
    theta = np.r_[g.uniform(0.2, 0.9, 10), np.zeros(k - 10)]
    xi = g.dirichlet(np.ones(m), size=k)
    codes = g.integers(0, m, size=(20, k)).astype(np.int8)
    assert k > KH.LINEAR_MAX_RATINGS >= 10
    few = codes.copy()
    few[:, 10:] = -1
    logtab = tables(theta, xi)
    np.testing.assert_allclose(K.hard_label_means(codes, logtab),
                               K.hard_label_means(few, logtab), rtol=1e-9)


def test_objective_never_decreases_and_labels_are_the_spam_models():
    sim = simulate_annotations(1500, 20, model="M2", hard_share=0.3,
                               error_rates=np.linspace(0.05, 0.35, 20), raters_per_item=6,
                               hardness=(0.4, 0.7, 1.0), rng=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = LatentClassModel("spam", "difficulty", rng=0).fit(sim.ratings)
        spam = LatentClassModel("spam", rng=0).fit(sim.ratings)
    assert np.all(np.diff(fit.loglik) >= -1e-9 * np.abs(fit.loglik[1:]))
    np.testing.assert_array_equal(fit.label_codes, spam.label_codes)
    assert fit.level_weights.shape == (3,) and fit.level_weights.sum() == pytest.approx(1)
    assert np.isfinite(fit.class_posterior).all() and np.isfinite(fit.posterior_hard).all()
    np.testing.assert_allclose(fit.class_posterior.sum(axis=1), 1.0, atol=1e-12)


def _ece(conf, right, bins=10):
    b = np.minimum((conf * bins).astype(int), bins - 1)
    return sum(abs(conf[b == i].mean() - right[b == i].mean()) * np.mean(b == i)
               for i in range(bins) if np.any(b == i))


def test_hard_posterior_is_calibrated_on_simulated_easy_hard_data():
    # Hard items' ratings are flipped to coin draws with the item's own level (shared by
    # its annotators): an item-level accuracy; easy items: one-coin annotators.
    g = np.random.default_rng(3)
    sim = simulate_annotations(3000, 30, model="M2", hard_share=0.25,
                               error_rates=g.uniform(0.05, 0.3, 30), raters_per_item=10,
                               hardness=(0.4, 0.7, 1.0), rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = LatentClassModel("spam", "difficulty", rng=0).fit(sim.ratings)
    hard = np.asarray(fit.posterior_hard)
    truth = np.asarray(sim.is_hard)
    assert _ece(hard, truth) <= 0.05  # measured 0.022
    right = np.asarray(fit.label_codes) == np.asarray(sim.true_class)
    assert _ece(np.asarray(fit.label_posterior), right) <= 0.05  # measured 0.007
    assert hard.mean() == pytest.approx(truth.mean(), abs=0.03)


def _own_form(seed, n=3000, k=30, per_item=5):
    """Easy/hard data of the difficulty model's own form, with its true parameters: one-coin
    annotators with uniform wrong labels (the spam emission with θ_j = 1 − 2ε_j and uniform
    ξ_j, two classes), 25% hard items whose ratings are coin flips with probability 0.4, 0.6
    or 0.8 (item factors 1 − h = 0.6, 0.4, 0.2: the model's levels, equally likely)."""
    g = np.random.default_rng(3 + 1000 * seed)
    eps = g.uniform(0.05, 0.3, k)
    sim = simulate_annotations(n, k, model="M2", hard_share=0.25, error_rates=eps,
                               raters_per_item=per_item, hardness=(0.4, 0.6, 0.8),
                               rng=1 + seed)
    assert tuple(1 - h for h in (0.8, 0.6, 0.4)) == pytest.approx(LEVELS)
    p = E._base_params(k, 2, None)
    p.phi[:] = sim.phi
    p.pi[:] = np.r_[0.25, np.full(len(LEVELS), 1 / len(LEVELS))]
    p.theta[:] = 1 - 2 * eps
    p.xi[:] = 0.5
    return sim, p


def _hard_post_and_loglik(codes, p):
    logtab, logw = K.tables(K.SPAM, K.HARD_DIFFICULTY, *p.args())
    _, hard, _, _, ll = K.posteriors(codes, logtab, logw)
    return hard, ll.sum()


def _bench_hard_posterior():
    """``benchmarks/bench_hard_posterior.py``: its profile likelihood of π (EM with π
    pinned) and the fit's parameters, which this file's recovery test reads too."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_hard_posterior.py"
    spec = importlib.util.spec_from_file_location("bench_hard_posterior", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _five_per_item_check(seed):
    """ECE of P(hard) at the true parameters and of the fit, the fit's hard-share error,
    and the likelihood-ratio statistic of the true hard share against the fit's."""
    sim, true_p = _own_form(seed)
    codes = np.ascontiguousarray(sim.ratings.codes)
    truth = np.asarray(sim.is_hard)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = LatentClassModel("spam", "difficulty", rng=0).fit(sim.ratings)
    ece_true = _ece(_hard_post_and_loglik(codes, true_p)[0], truth)
    ece_fit = _ece(np.asarray(fit.posterior_hard), truth)
    bench = _bench_hard_posterior()
    _, ll_fit = _hard_post_and_loglik(codes, bench.fit_params(fit))
    _, pinned = bench.pinned(codes, bench.fit_params(fit), 0.25, fit.model.prior_strength)
    _, ll_true_share = _hard_post_and_loglik(codes, pinned)
    return ece_true, ece_fit, abs(fit.pi - truth.mean()), 2 * (ll_fit - ll_true_share)


def test_hard_posterior_with_five_annotators_per_item_is_calibrated_up_to_the_hard_share():
    # With 5 ratings per item the data hardly tell how many items are mildly hard: the
    # profile likelihood of π is flat within a log-unit over ±0.1 around the truth
    # (benchmarks/bench_hard_posterior.py), so the fitted hard share π̂ wanders (sd 0.062
    # over 20 replicates of 3,000 items) and the ECE of P(hard) with it (0.056 ± 0.036),
    # while the posterior at the true parameters is calibrated (0.018 ± 0.004: the ECE's
    # own estimation noise). What the fit must do: be calibrated up to its hard-share error
    # (ECE ≤ the true posterior's + |π̂ − share| + 0.01; the excess was ≤ 0.001 in all 20
    # replicates, the 0.01 is 2.5 sd of the true posterior's ECE), and keep π̂ within its
    # likelihood's resolution of the truth (likelihood ratio of π = 0.25 against the fit
    # below χ²₁'s 0.99 quantile; measured -0.3 to 1.1).
    ece_true, ece_fit, share_error, lr = _five_per_item_check(0)
    assert ece_true <= 0.05  # measured 0.016
    assert ece_fit <= ece_true + share_error + 0.01  # measured 0.013 against 0.017
    assert lr <= scipy.stats.chi2.ppf(0.99, 1)  # measured -0.23


@pytest.mark.slow
def test_hard_posterior_with_five_annotators_per_item_over_replicates():
    checks = np.array([_five_per_item_check(seed) for seed in range(20)])
    ece_true, ece_fit, share_error, lr = checks.T
    assert np.all(ece_true <= 0.05)  # measured at most 0.026
    assert np.all(ece_fit <= ece_true + share_error + 0.01)  # excess at most 0.001
    # the true hard share inside the fit's 95% likelihood region about as often as that says
    hits = int(np.sum(lr <= scipy.stats.chi2.ppf(0.95, 1)))
    assert hits >= 19 or scipy.stats.binomtest(hits, 20, 0.95).pvalue > 0.001, hits


def test_overdispersed_generator_shares_each_hard_items_distribution():
    sim = simulate_annotations(4000, 10, model="M2", hard_share=1.0, error_rates=0.0,
                               hardness=1.0, hard_concentration=0.5, rng=0)
    counts = np.asarray(sim.ratings.counts)
    # Dirichlet-multinomial: the vote splits are far more spread than binomial(10, 1/2)
    share = counts[:, 0] / 10
    assert share.var() > 3 * 0.25 / 10
    with pytest.raises(ValueError, match="hard_concentration"):
        simulate_annotations(10, 3, hard_concentration=0.0)


def test_degenerate_inputs_say_so_in_one_line():
    model = LatentClassModel("spam", "difficulty", rng=0)
    with pytest.raises(ValueError, match="single category"):
        model.fit(np.zeros((20, 3), dtype=int))
    one_each = np.full((6, 3), np.nan)
    one_each[np.arange(6), np.arange(6) % 3] = 1
    one_each[0, 0] = 0
    with pytest.raises(ValueError, match="no item of `ratings` has two or more ratings"):
        model.fit(one_each)
    with pytest.raises(ValueError, match="difficulty"):
        LatentClassModel("confusion", "difficulty")
    # no disagreement at all: finite posteriors, few hard items
    x = np.repeat(np.array([[0], [1]]), 50, axis=0) * np.ones((1, 4), dtype=int)
    fit = model.fit(x)
    assert np.isfinite(fit.class_posterior).all() and np.isfinite(fit.posterior_hard).all()
    assert fit.posterior_hard.max() < 0.5


def _judge_replicate(seed, n=3000, n_labelled=300, prevalence=0.3):
    g = np.random.default_rng(seed)
    y = (g.random(n) < prevalence).astype(int)
    judge = np.where(g.random(n) < 0.15, 1 - y, y)
    codes = np.full((n, 4), np.nan)
    codes[:, 3] = judge
    lab = g.choice(n, n_labelled, replace=False)
    for j in range(3):
        flip = np.where(y[lab] == 1, g.random(n_labelled) < 0.35, g.random(n_labelled) < 0.05)
        codes[lab, j] = np.where(flip, 1 - y[lab], y[lab])
    df = pd.DataFrame(codes, columns=["h1", "h2", "h3", "judge"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = judge_estimate(df, "judge", category=1, truth="posterior", rng=0)
    lo, hi = res.confidence_interval(0.95)
    return lo <= prevalence <= hi


def test_judge_posterior_truth_covers_class_dependent_human_errors():
    # Humans err 1→0 35%, 0→1 5% (the one-coin default estimated 0.167 for 0.30, 0 of 150).
    hits = sum(_judge_replicate(seed) for seed in range(20))
    assert scipy.stats.binomtest(hits, 20, 0.95).pvalue > 0.001, hits


@pytest.mark.slow
def test_judge_posterior_truth_covers_class_dependent_human_errors_150():
    hits = sum(_judge_replicate(1000 + seed) for seed in range(150))
    assert hits >= 0.9 * 150 or scipy.stats.binomtest(hits, 150, 0.95).pvalue > 0.001, hits


def test_noise_bound_of_the_difficulty_fit_covers_the_hard_agreed_items():
    # γ from the difficulty model's hard-item agreement probabilities (averaged over its
    # levels): the true number of hard items among the agreed ones is below the 95% bound
    # (measured 11 of 12; M1's bound is about twice as wide here).
    g = np.random.default_rng(3)
    hits = 0
    for seed in range(12):
        sim = simulate_annotations(1500, 20, model="M2", hard_share=0.25,
                                   error_rates=g.uniform(0.05, 0.3, 20), raters_per_item=5,
                                   hardness=(0.4, 0.7, 1.0), rng=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bound = LatentClassModel("spam", "difficulty", rng=0).fit(sim.ratings).noise_bound()
        counts = np.asarray(sim.ratings.counts)
        agreed = counts.max(axis=1) == counts.sum(axis=1)
        hits += int(np.asarray(sim.is_hard)[agreed].sum() <= bound.hidden_hard)
    assert scipy.stats.binomtest(hits, 12, 0.95).pvalue > 0.001, hits


def test_class_shares_are_those_of_the_posteriors_and_the_tables_keep_the_model():
    # The labels are the spam model's, the posteriors the whole model's; the class weights
    # of the model's states count the hard items' classes too and can sit far from both
    # (Dawid & Skene's 45 patients: class 1's weight 0.592 against 0.40 of the labels).
    # `phi` reports the posteriors' shares; the tables are rebuilt from `class_weights`,
    # so the posteriors they give are the fit's own.
    import goldnoise as gn
    from noise_models.latent_class import _tempering as T

    frame = gn.datasets.load_dawid_skene1979()
    r = gn.Ratings.from_long(frame, item="patient", rater="observer", label="rating",
                             replicates="separate")
    fit = LatentClassModel("spam", "difficulty", rng=0).fit(r)
    np.testing.assert_allclose(fit.phi, fit.class_posterior.mean(axis=0), atol=1e-12)
    shares = np.bincount(fit.label_codes, minlength=r.n_categories) / r.n_items
    assert np.abs(fit.phi - shares).max() < 0.1
    assert np.abs(fit.class_weights - shares).max() > 0.15
    logtab, logw = E.fit_tables(fit)
    post = T.state_log_posterior(np.ascontiguousarray(r.codes), logtab, logw)
    means = K.hard_label_means(np.ascontiguousarray(r.codes), logtab)
    class_post = T.tempered_posteriors(post, r.n_categories, np.asarray(fit.label_codes),
                                       1.0, means=means)[0]
    np.testing.assert_allclose(class_post, fit.class_posterior, atol=1e-9)
    held = LatentClassModel("spam", "difficulty", rng=0, calibrate="held-out").fit(r)
    np.testing.assert_allclose(held.phi, held.class_posterior.mean(axis=0), atol=1e-12)
    assert LatentClassModel("spam", rng=0).fit(r).class_weights is None
