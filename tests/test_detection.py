"""Detection metrics against scikit-learn, direct computations and cleanlab."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import softmax
from sklearn.metrics import average_precision_score, roc_auc_score
from statsmodels.stats.proportion import proportion_confint

from agreement import DegenerateDataWarning
from simulation import (
    ModelScores,
    Ranking,
    detected_error_rate,
    detection_metrics,
    detection_replicates,
    ensemble,
    label_error_ranking,
)
from simulation.detection import _kernels as K
from simulation.detection._metrics import _sort


def _tied_data(seed, n=500, levels=7, share=0.2):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < share
    y[:2] = [True, False]
    s = np.round(rng.normal(size=n) + y, 0) / levels * 3  # few distinct values: many ties
    s = np.floor(s * levels) / levels
    return s, y


@pytest.mark.parametrize("seed", range(8))
def test_ap_and_auroc_equal_sklearn_with_ties(seed):
    s, y = _tied_data(seed, levels=3 + seed)
    assert len(np.unique(s)) < 40
    res = detection_metrics(s, y)
    assert abs(res.average_precision - average_precision_score(y, s)) < 1e-12
    assert abs(res.auroc - roc_auc_score(y, s)) < 1e-12


@given(st.lists(st.tuples(st.integers(0, 5), st.booleans()), min_size=2, max_size=60))
def test_ap_auroc_property(pairs):
    s = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs])
    if y.all() or not y.any():
        return
    res = detection_metrics(s, y)
    assert abs(res.average_precision - average_precision_score(y, s)) < 1e-12
    assert abs(res.auroc - roc_auc_score(y, s)) < 1e-12


@pytest.mark.parametrize("k", [1, 7, 50, 123, 500])
def test_precision_recall_f1_at_k_direct(k):
    s, y = _tied_data(11)
    res = detection_metrics(s, y, k=k)
    top = np.argsort(-s, kind="stable")[:k]  # ties at the cut: item order
    tp = y[top].sum()
    assert res.precision_at_k == tp / k
    assert res.recall_at_k == tp / y.sum()
    assert res.f1_at_k == pytest.approx(2 * (tp / k) * (tp / y.sum()) / (tp / k + tp / y.sum()),
                                        abs=1e-15)
    assert res.curve.loc[k - 1, "precision"] == tp / k
    lo, hi = proportion_confint(tp, k, alpha=0.05, method="beta")
    assert res.precision_at_k_exact == pytest.approx((lo, hi))


@pytest.mark.parametrize("seed", range(5))
def test_weighted_metrics_equal_recomputation_on_resampled_items(seed):
    rng = np.random.default_rng(seed)
    s, y = _tied_data(seed + 20, n=300)
    w = rng.multinomial(300, np.full(300, 1 / 300), size=4)
    rep = detection_replicates(s, y, w, k=40)
    for r in range(4):
        ys, ss = np.repeat(y, w[r]), np.repeat(s, w[r])
        assert abs(rep.average_precision[r] - average_precision_score(ys, ss)) < 1e-12
        assert abs(rep.auroc[r] - roc_auc_score(ys, ss)) < 1e-12
        # top 40 of the resampled items, copies adjacent, ties in item order
        order = np.argsort(-ss, kind="stable")
        assert rep.precision_at_k[r] == pytest.approx(ys[order[:40]].mean(), abs=1e-15)


def _hashes(seed, srt):
    from _goldnoise_lib.resampling import weights as _resample

    return _resample.item_hashes(seed, _resample.item_keys(srt.items))[srt.order]


def test_kernel_replicates_are_weighted_recomputations():
    # each kernel replicate equals the metrics recomputed with its weights
    s, y = _tied_data(3, n=400)
    srt = _sort(s, y, pd.RangeIndex(400))
    h = _hashes(11, srt)
    out = K.stratified_bootstrap(srt.y, srt.last, h, 30.0, np.uint64(5), 3, K.POISSON_CDF, 1)
    for r in range(3):
        w = np.empty(400)
        w[srt.order] = K.poisson_weights(h, 5 + r, srt.y, K.POISSON_CDF)
        # stratified: the strata keep their sizes
        assert w[y].sum() == pytest.approx(y.sum()) and w[~y].sum() == pytest.approx((~y).sum())
        assert abs(out[r, K.AP] - average_precision_score(y, s, sample_weight=w)) < 1e-12
        assert abs(out[r, K.AUROC] - roc_auc_score(y, s, sample_weight=w)) < 1e-12
        rep = detection_replicates(s, y, w, k=30)
        assert abs(out[r, K.PRECISION_AT_K] - rep.precision_at_k[0]) < 1e-12


def test_detection_weights_are_the_engines_keyed_poisson_weights():
    # one keyed Poisson(1) generator: before rescaling, a detection replicate weighs each
    # item exactly as the bootstrap engine does for the same seed, item id and replicate
    from _goldnoise_lib.resampling import weights as _resample

    ids = pd.Index([f"doc{i}" for i in range(300)])
    s, y = _tied_data(4, n=300)
    srt = _sort(s, y, ids)
    h = _hashes(99, srt)
    engine = _resample.poisson_weights(99, _resample.item_keys(ids), 4)
    for r in range(4):
        buf = np.empty(300, np.uint8)
        K._draw_weights(h, np.uint64(r), srt.y, K.POISSON_CDF, buf)
        np.testing.assert_array_equal(buf, engine[r][srt.order])


def test_poisson_weights_are_poisson_one():
    from scipy.stats import chisquare, poisson

    from _goldnoise_lib.resampling import weights as _resample

    y = np.zeros(200_000, np.uint8)
    h = _resample.item_hashes(7, np.arange(200_000))
    buf = np.empty(200_000, np.uint8)
    K._draw_weights(h, np.uint64(0), y, K.POISSON_CDF, buf)
    observed = np.bincount(buf, minlength=6)[:6].astype(float)
    observed[5] += (buf > 5).sum()
    expected = poisson.pmf(np.arange(6), 1) * 200_000
    expected[5] = poisson.sf(4, 1) * 200_000
    assert chisquare(observed, expected).pvalue > 0.001


def test_replicates_do_not_depend_on_threads_and_are_paired_across_rankings():
    s, y = _tied_data(5, n=1000)
    srt = _sort(s, y, pd.RangeIndex(1000))
    args = (srt.y, srt.last, _hashes(3, srt), 50.0, np.uint64(0), 40, K.POISSON_CDF)
    one = K.stratified_bootstrap(*args, 1)
    many = K.stratified_bootstrap(*args, 3)
    np.testing.assert_array_equal(one, many)
    # the same replicate weighs the same items alike whatever the scores
    s2 = np.random.default_rng(0).normal(size=1000)
    srt2 = _sort(s2, y, pd.RangeIndex(1000))
    for rep in (3, 9):
        w1 = np.empty(1000)
        w1[srt.order] = K.poisson_weights(_hashes(3, srt), rep, srt.y, K.POISSON_CDF)
        w2 = np.empty(1000)
        w2[srt2.order] = K.poisson_weights(_hashes(3, srt2), rep, srt2.y, K.POISSON_CDF)
        np.testing.assert_allclose(w1, w2, rtol=1e-15)


def test_bootstrap_intervals_seeded_and_paired():
    rng = np.random.default_rng(0)
    y = rng.random(2000) < 0.1
    a = y + rng.normal(0, 0.6, 2000)
    b = a + rng.normal(0, 0.4, 2000)  # a noisier copy of the same model
    ra = detection_metrics(a, y, n_resamples=300, rng=7)
    rb = detection_metrics(b, y, n_resamples=300, rng=7)
    assert ra.to_frame().equals(detection_metrics(a, y, n_resamples=300, rng=7).to_frame())
    for m in ("average_precision", "auroc", "precision_at_k"):
        lo, hi = ra.metric_interval(m)
        assert lo <= getattr(ra, m) <= hi
    lo, hi = ra.difference_interval(rb, "auroc")
    assert 0 < lo < ra.auroc - rb.auroc < hi
    # the rankings share their items' weights: paired differences are far tighter
    unpaired = np.sqrt(ra.replicates.auroc.var() + rb.replicates.auroc.var())
    assert (ra.replicates.auroc - rb.replicates.auroc).std() < 0.6 * unpaired


def test_bootstrap_interval_coverage():
    # stratified percentile interval of AUROC: coverage near 95% over simulated data
    rng = np.random.default_rng(1)
    n, pos = 400, 40
    true_auc = 0.7602  # P(N(1, 1) > N(0, 1)) with a 1/√2 scale: Φ(1/√2)
    covered = 0
    trials = 120
    for t in range(trials):
        y = np.zeros(n, bool)
        y[:pos] = True
        s = rng.normal(size=n) + y
        lo, hi = detection_metrics(s, y, n_resamples=300, rng=t).metric_interval("auroc")
        covered += lo <= true_auc <= hi
    from scipy.stats import binomtest

    assert binomtest(covered, trials, 0.95).pvalue > 0.001


def test_kernels_against_a_slow_reference_without_jit():
    code = """
import numpy as np
from simulation.detection import detection_metrics
from sklearn.metrics import average_precision_score, roc_auc_score
rng = np.random.default_rng(0)
y = rng.random(200) < 0.3
s = np.round(rng.normal(size=200) + y, 1)
r = detection_metrics(s, y, n_resamples=5, rng=0)
assert abs(r.average_precision - average_precision_score(y, s)) < 1e-12
assert abs(r.auroc - roc_auc_score(y, s)) < 1e-12
print("ok")
"""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True)
    assert out.stdout.strip() == "ok"


def test_alignment_by_id_and_validation():
    scores = pd.Series([0.1, 0.9, 0.5], index=["a", "b", "c"])
    truth = pd.Series([True, False, False], index=["b", "c", "a"])  # shuffled
    res = detection_metrics(scores, truth)
    assert res.precision_at_k == 1.0 and res.auroc == 1.0
    with pytest.raises(ValueError, match=r"lacks 1 of the scored items: 'a'"):
        detection_metrics(scores, truth.iloc[:2])
    with pytest.raises(ValueError, match="has 2 entries for 3 scored items"):
        detection_metrics(scores.to_numpy(), [True, False])
    with pytest.raises(TypeError, match="must be booleans"):
        detection_metrics([0.1, 0.2], ["x", "y"])
    with pytest.raises(ValueError, match=r"`k` must be in 1\.\.3"):
        detection_metrics(scores, truth, k=4)
    with pytest.raises(ValueError, match="NaN or infinite"):
        detection_metrics([np.nan, 1.0], [True, False])
    with pytest.raises(ValueError, match="`confidence_level` must be in"):
        detection_metrics(scores, truth, confidence_level=95)
    with pytest.raises(ValueError, match="`n_resamples` must be"):
        detection_metrics(scores, truth, n_resamples=-1)
    with pytest.warns(DegenerateDataWarning, match="no errors"):
        r = detection_metrics([0.1, 0.2], [False, False], k=1)
    assert np.isnan(r.auroc)


def test_detected_error_rate():
    ranking = Ranking.from_scores(pd.Series(np.linspace(1, 0, 1000)))
    verified = pd.Series(np.arange(1000) % 3 == 0)[::2]  # every other item verified
    res = detected_error_rate(ranking, verified, top_fraction=0.0533)
    assert res.n_top == 53
    top = np.arange(53)
    known = top[top % 2 == 0]
    assert res.n_verified == len(known)
    assert res.rate == pytest.approx(np.mean(known % 3 == 0))
    lo, hi = proportion_confint(res.n_errors, res.n_verified, alpha=0.05, method="beta")
    assert res.interval == pytest.approx((lo, hi))


# ------------------------------------------------------------------- rankings
def _noisy_probs(seed, n=600, m=4, noise=0.15, sharp=2.0):
    rng = np.random.default_rng(seed)
    true = rng.choice(m, size=n, p=np.linspace(1, 2, m) / np.linspace(1, 2, m).sum())
    logits = rng.normal(size=(n, m))
    logits[np.arange(n), true] += sharp
    probs = softmax(logits, axis=1)
    labels = true.copy()
    flip = rng.random(n) < noise
    labels[flip] = (labels[flip] + rng.integers(1, m, flip.sum())) % m
    return labels, probs


def _digits_oof():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    x, y = load_digits(return_X_y=True)
    x, y = x[:600], y[:600]
    rng = np.random.default_rng(0)
    labels = y.copy()
    flip = rng.random(len(y)) < 0.1
    labels[flip] = (labels[flip] + rng.integers(1, 10, flip.sum())) % 10
    probs = cross_val_predict(LogisticRegression(max_iter=300), x / 16, labels, cv=3,
                              method="predict_proba")
    return labels, probs


CL_DATA = {
    "4 classes, 15% noise": lambda: _noisy_probs(0),
    "2 classes, 30% noise": lambda: _noisy_probs(1, m=2, noise=0.3, sharp=1.0),
    "7 classes, sharp": lambda: _noisy_probs(2, n=1500, m=7, noise=0.05, sharp=4.0),
    "3 classes, flat": lambda: _noisy_probs(3, n=300, m=3, noise=0.2, sharp=0.3),
    "digits, logistic regression out of fold": _digits_oof,
}


@pytest.mark.parametrize("name", list(CL_DATA))
def test_confident_learning_equals_cleanlab(name):
    cleanlab_filter = pytest.importorskip(
        "cleanlab.filter", reason="cleanlab (AGPL-3, test reference only) is not installed")
    labels, probs = CL_DATA[name]()
    want = cleanlab_filter.find_label_issues(labels, probs, filter_by="prune_by_noise_rate",
                                             n_jobs=1)
    s = ModelScores.from_arrays(probs, kind="probs")
    r = label_error_ranking(s, labels, method="confident_learning")
    got = np.zeros(len(labels), bool)
    got[np.asarray(r.flagged)] = True
    assert want.sum() > 0
    np.testing.assert_array_equal(got, want)
    # flagged first, then by loss
    assert set(r.items[: r.n_flagged]) == set(r.flagged)
    assert (np.diff(r.scores[: r.n_flagged]) <= 0).all()


def _cl_reference(labels, probs):
    """Prune by noise rate from the paper's steps, in plain numpy, item by item where the
    kernels work in one pass (the confident joint from goldnoise's calibration)."""
    from simulation.detection._confident import _EPS, _prune_counts, _round_rows

    n, m = probs.shape
    counts = np.bincount(labels, minlength=m)
    t = np.array([probs[labels == j, j].mean() if counts[j] else 2.0 for j in range(m)])
    t = np.maximum(t, 2e-6)
    cj = np.zeros((m, m), dtype=np.int64)
    for i in range(n):
        conf = [j for j in range(m) if probs[i, j] >= t[j] - _EPS]
        if conf:
            cj[labels[i], int(np.argmax(probs[i])) if len(conf) > 1 else conf[0]] += 1
    np.fill_diagonal(cj, np.maximum(np.diagonal(cj), 1))
    cal = cj / np.maximum(cj.sum(axis=1), 1e-100)[:, None] * counts[:, None]
    cal = cal / cal.sum() * counts.sum()
    prune = _prune_counts(_round_rows(cal))
    mask = np.zeros(n, dtype=bool)
    for k in range(m):
        members = np.flatnonzero(labels == k)
        if members.size <= 1:
            continue
        for j in range(m):
            if j != k and prune[j, k] > 0:
                margin = probs[members, j] - probs[members, k]
                mask[members[np.argsort(-margin)[:prune[j, k]]]] = True
    for i in np.flatnonzero(mask):
        row = probs[i].copy()
        row[labels[i]] += _EPS
        mask[i] = np.argmax(row) != labels[i]
    return mask


@pytest.mark.parametrize("decimals", [None, 2, 1])
def test_confident_learning_kernels_equal_the_reference(decimals, kernel_builds, monkeypatch):
    # 5000 × 60: the parallel builds by size (with --slow; the serial ones forced in every
    # run); rounded probabilities put ties at the cuts, where numpy's order decides (the
    # kernels hand those pairs back to it).
    labels, probs = _noisy_probs(11, n=5000, m=60, noise=0.2, sharp=2.5)
    if decimals is not None:
        probs = np.round(probs, decimals)
    from simulation.detection import _confident_kernels
    from simulation.detection._confident import confident_learning

    want = _cl_reference(labels, probs)
    for parallel in kernel_builds:
        monkeypatch.setattr(_confident_kernels, "use_parallel",
                            lambda cells, parallel=parallel: parallel)
        got = confident_learning(labels, probs)
        assert got.sum() > 0
        np.testing.assert_array_equal(got, want)
    monkeypatch.undo()
    serial = confident_learning(labels[:1000], probs[:1000])  # below the parallel size
    np.testing.assert_array_equal(serial, _cl_reference(labels[:1000], probs[:1000]))


def _pair_noise_probs(seed, n=4000, m=6, noise=0.3, tiny=3):
    """Flips concentrated on one other class (many items to flag per pair: the
    partition path, beyond the running top lists), and a class of two items."""
    rng = np.random.default_rng(seed)
    true = rng.integers(0, m - 1, size=n)
    true[:tiny] = m - 1
    logits = rng.normal(size=(n, m))
    logits[np.arange(n), true] += 1.5
    probs = softmax(logits, axis=1)
    labels = true.copy()
    flip = rng.random(n) < noise
    labels[flip] = (labels[flip] + 1) % (m - 1)
    labels[:tiny] = 0  # the tiny class's items given another label
    labels[tiny:tiny + 2] = m - 1  # and two items of a big class given the tiny one
    return labels, probs


@pytest.mark.parametrize("decimals", [None, 2])
def test_confident_learning_kernels_many_flags_per_pair(decimals):
    from simulation.detection._confident import (
        _by_label,
        _prune_counts,
        confident_joint,
        confident_learning,
    )
    from simulation.detection._confident_kernels import _FEW

    labels, probs = _pair_noise_probs(5)
    if decimals is not None:
        probs = np.round(probs, decimals)
    prune = _prune_counts(confident_joint(labels, probs, _by_label(labels, probs.shape[1])))
    off = prune[~np.eye(len(prune), dtype=bool)]
    assert off.max() > _FEW  # the partition path runs
    got = confident_learning(labels, probs)
    np.testing.assert_array_equal(got, _cl_reference(labels, probs))
    cleanlab_filter = pytest.importorskip(
        "cleanlab.filter", reason="cleanlab (AGPL-3, test reference only) is not installed")
    want = cleanlab_filter.find_label_issues(labels, probs, filter_by="prune_by_noise_rate",
                                             n_jobs=1)
    np.testing.assert_array_equal(got, want)


@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.25, 3.0, 1e-310, -np.inf, 7.0]),
                min_size=1, max_size=40),
       st.integers(0, 2**31 - 1), st.data())
def test_select_equals_numpy_partition(values, seed, data):
    # The partition path's quickselect, compiled and as plain Python, against numpy's
    # partition: many ties, both signed zeros, infinities, random extra values.
    from simulation.detection._confident_kernels import _select

    rng = np.random.default_rng(seed)
    a = np.array(values + list(rng.normal(size=rng.integers(0, 30))), dtype=np.float64)
    r = data.draw(st.integers(0, a.size - 1))
    want = np.partition(a, r)[r]
    for fn in (_select, _select.py_func):
        b = a.copy()
        assert fn(b, r) == want
        np.testing.assert_array_equal(np.sort(b), np.sort(a))  # a permutation of a


@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.25, 3.0, 1e-310, -1e-310, np.inf,
                                 -np.inf, 7.0]), min_size=0, max_size=60),
       st.integers(0, 2**31 - 1))
def test_radix_argsort_equals_numpy_stable(values, seed):
    rng = np.random.default_rng(seed)
    scores = np.array(values + list(rng.normal(size=rng.integers(0, 40))), dtype=np.float64)
    np.testing.assert_array_equal(K.argsort_descending(scores),
                                  np.argsort(-scores, kind="stable"))


@pytest.mark.parametrize("n", [500, 60_000])  # numpy's sort, then the radix kernel
def test_ranking_order_is_the_stable_sort_of_flag_then_score(n):
    # the ranking's order: flagged first, each part by score (ties, and -0.0 with 0.0, in
    # input order), as a stable argsort of the exact (flagged, score) key
    from simulation.detection._ranking import Ranking, _flag_key

    rng = np.random.default_rng(n)
    values = np.round(rng.normal(size=n), 2)  # many ties
    values[:50] = 0.0
    values[50:100] = -0.0
    mask = rng.random(n) < 0.1
    items = pd.Index(rng.permutation(n) + 7, name="item")
    r = Ranking.from_scores(pd.Series(values, index=items), flagged=items[mask])
    want = np.argsort(-_flag_key(values, mask), kind="stable")
    assert r.items.equals(items[want])
    assert r.flagged.equals(items[want][: mask.sum()])
    plain = Ranking.from_scores(pd.Series(values, index=items))
    assert plain.items.equals(items[np.argsort(-values, kind="stable")])


def test_rank_scores_equal_cleanlab_quality_scores():
    rank = pytest.importorskip("cleanlab.rank", reason="cleanlab is not installed")
    labels, probs = _noisy_probs(4)
    s = ModelScores.from_arrays(probs, kind="probs")
    for method, fn in (("self_confidence", rank.get_self_confidence_for_each_label),
                       ("normalized_margin", rank.get_normalized_margin_for_each_label)):
        r = label_error_ranking(s, labels, method=method)
        key = r.score_key().to_numpy()
        np.testing.assert_allclose(1 - key, fn(labels, probs), atol=1e-15)


def test_loss_ranking_fml_and_fme():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(3, 50, 3))
    labels = rng.integers(0, 3, 50)
    s = ModelScores.from_arrays(z, kind="logits", model_names=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"holds 3 models .*ensemble\(scores\)"):
        label_error_ranking(s, labels)
    fml = label_error_ranking(s.select("b"), labels)
    direct = -np.log(softmax(z[1], axis=1)[np.arange(50), labels])
    np.testing.assert_allclose(fml.scores, np.sort(direct)[::-1], rtol=1e-12)
    fme = label_error_ranking(ensemble(s, "logits"), labels)
    assert fme.model == "ensemble(logits)"
    with pytest.raises(ValueError, match="`method` must be one of"):
        label_error_ranking(s.select(0), labels, method="margin")
    loss_only = ModelScores.from_arrays(direct, kind="loss")
    with pytest.raises(ValueError, match="needs probabilities or logits"):
        label_error_ranking(loss_only, labels, method="self_confidence")
    assert label_error_ranking(loss_only, labels).items.equals(fml.items)


def test_ranking_feeds_detection_metrics_with_cl_first():
    labels, probs = _noisy_probs(0)
    s = ModelScores.from_arrays(probs, kind="probs")
    r = label_error_ranking(s, labels, method="confident_learning")
    truth = pd.Series(np.zeros(len(labels), bool))
    truth.iloc[np.asarray(r.flagged)] = True
    res = detection_metrics(r, truth)
    assert res.k == r.n_flagged
    assert res.precision_at_k == 1.0 and res.average_precision == 1.0
    frame = r.to_frame()
    assert frame.flagged.sum() == r.n_flagged


# ------------------------------------------------- through the bootstrap engine
@pytest.mark.parametrize("scheme", ["multinomial", "poisson"])
def test_detection_metrics_draw_the_engines_weights(scheme):
    # the engine knows nothing of detection; detection draws the engine's weights
    from _goldnoise_lib.resampling import weights as _resample
    from agreement import BootstrapResult, bootstrap

    s, y = _tied_data(8, n=300)
    det = detection_metrics(s, y, n_resamples=50, scheme=scheme, rng=4)
    res = det.bootstrap
    assert isinstance(res, BootstrapResult) and res.scheme == scheme
    assert res.estimate[0] == pytest.approx(average_precision_score(y, s), abs=1e-12)
    assert res.estimate[1] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    if scheme == "multinomial":
        # each replicate equals the metric recomputed on the engine's resampled items
        seeds = _resample.replicate_seeds(4, 50)
        counts = _resample.multinomial_counts(np.ones(300, dtype=np.int64), seeds[:3], strata=y)
        for r in range(3):
            assert counts[r][y].sum() == y.sum()
            ys, ss = np.repeat(y, counts[r]), np.repeat(s, counts[r])
            assert abs(res.bootstrap_distribution[r, 0] - average_precision_score(ys, ss)) < 1e-12
            assert abs(res.bootstrap_distribution[r, 1] - roc_auc_score(ys, ss)) < 1e-12
    else:
        # the engine's keyed Poisson weights, rescaled within the strata
        w = _resample.poisson_weights(_resample.poisson_seed(4), np.arange(300), 3)
        w = w.astype(float)
        for r in range(3):
            w[r, y] *= y.sum() / w[r, y].sum()
            w[r, ~y] *= (~y).sum() / w[r, ~y].sum()
            assert abs(res.bootstrap_distribution[r, 0]
                       - average_precision_score(y, s, sample_weight=w[r])) < 1e-12
    d = res.difference("auroc", "average_precision")
    assert d.statistics == ("auroc - average_precision",)
    with pytest.raises(ValueError, match="`method` must be one of"):
        detection_metrics(s, y, n_resamples=10, method="bca")
    # the engine refuses metrics it does not know, and says where they are
    with pytest.raises(ValueError, match="detection_metrics"):
        bootstrap(["auroc"], (s, y), n_resamples=10)


def test_detection_metrics_carry_the_engine_result():
    s, y = _tied_data(9, n=400)
    res = detection_metrics(s, y, n_resamples=200, rng=0, method="basic")
    assert res.bootstrap.method == "basic"
    assert res.bootstrap.statistics[0] == "average_precision"
    lo, hi = res.metric_interval("auroc")
    assert (lo, hi) == (res.bootstrap.interval.low[1],
                        res.bootstrap.interval.high[1])
    assert 0 <= lo <= hi <= 1
    with pytest.raises(ValueError, match="`method` must be one of"):
        detection_metrics(s, y, n_resamples=10, method="bca")


def test_package_code_never_imports_cleanlab():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    offenders = []
    for pkg in ("agreement", "noise_models", "simulation", "goldnoise"):
        for path in (root / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n.split(".")[0] == "cleanlab" for n in names):
                    offenders.append(str(path))
    assert offenders == []  # AGPL-3: a test and benchmark reference only


def test_detected_error_rate_and_ranking_validation():
    ranking = Ranking.from_scores(pd.Series([0.3, 0.2, 0.1]))
    with pytest.raises(TypeError, match="`ranking` must be a Ranking"):
        detected_error_rate([1, 2], pd.Series([True]))
    with pytest.raises(TypeError, match="`verified` must be a Series"):
        detected_error_rate(ranking, [True, False, True])
    with pytest.raises(ValueError, match=r"`top_fraction` must be in \(0, 1\]"):
        detected_error_rate(ranking, pd.Series([True]), top_fraction=0)
    with pytest.warns(DegenerateDataWarning, match="no item of the top has a verdict"):
        res = detected_error_rate(ranking, pd.Series([True], index=[2]), top_fraction=0.34)
    assert np.isnan(res.rate)
    with pytest.raises(TypeError, match="Series of scores indexed by item id"):
        Ranking.from_scores([0.1, 0.2])
    with pytest.raises(ValueError, match="repeats item ids"):
        Ranking.from_scores(pd.Series([0.1, 0.2], index=["a", "a"]))
    with pytest.raises(ValueError, match="NaN or infinite"):
        Ranking.from_scores(pd.Series([np.nan, 0.2]))
    with pytest.raises(ValueError, match="`flagged` names items that are not scored"):
        Ranking.from_scores(pd.Series([0.1, 0.2]), flagged=[5])
    # Issue 22: a plain items × classes array (cleanlab's pred_probs) is accepted now;
    # what is neither scores nor an array is still refused.
    assert len(label_error_ranking(np.ones((3, 2)) / 2, [0, 1, 0]).items) == 3
    with pytest.raises(TypeError, match="must be ModelScores"):
        label_error_ranking({"a": 1}, [0, 1, 0])
    assert "Ranking(custom" in repr(ranking)
    assert ranking.top(2).tolist() == [0, 1]


def test_metric_columns_match_the_kernels():
    # _metrics keeps the kernels' column numbers as literals (importing it must
    # not import Numba); they must be the kernels' own.
    from simulation.detection import _kernels, _metrics

    assert _metrics._COLS == (_kernels.AP, _kernels.AUROC, _kernels.PRECISION_AT_K,
                              _kernels.RECALL_AT_K, _kernels.F1_AT_K)
