"""The cross-check of a model's ranking against the annotation model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import average_precision_score, roc_auc_score

from noise_models import LatentClassModel, agreed_error_bracket
from simulation import (
    CrosscheckResult,
    ModelScores,
    crosscheck,
    label_error_ranking,
    simulate_annotations,
)


@pytest.fixture(scope="module")
def case():
    sim = simulate_annotations(500, 4, model="M2", error_rates=0.2, hard_share=0.1,
                               n_categories=3, rng=2)
    r = sim.ratings
    labels = pd.Series(r.categories[r.counts.argmax(axis=1)], index=r.items)
    rng = np.random.default_rng(0)
    z = rng.normal(size=(500, 3))
    z[np.arange(500), sim.true_class] += 2.5
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    # shuffled items: the cross-check aligns by id
    perm = rng.permutation(500)
    scores = ModelScores.from_arrays(p[perm], kind="probs", items=r.items[perm],
                                     classes=r.categories)
    fit = LatentClassModel("spam", rng=0).fit(r)
    truth = pd.Series(labels.to_numpy() != r.categories[sim.true_class], index=r.items)
    return r, labels, scores, fit, truth, p


def _soft_auroc(score, p):
    # Σ_i Σ_j p_i (1 − p_j) [s_i > s_j] + ½ [s_i = s_j], over all pairs (i = j included)
    gt = (score[:, None] > score[None, :]) + 0.5 * (score[:, None] == score[None, :])
    num = (p[:, None] * (1 - p)[None, :] * gt).sum()
    return num / (p.sum() * (1 - p).sum())


def test_numbers_against_direct_computations(case):
    r, labels, scores, fit, truth, p = case
    res = crosscheck(scores, labels, r, fit=fit, truth=truth)
    assert isinstance(res, CrosscheckResult)
    frame = res.frame
    lab = r.categories.get_indexer(labels)
    loss = -np.log(p[np.arange(500), lab])
    np.testing.assert_allclose(frame.loss, loss, rtol=1e-12)
    counts = r.counts
    disagreed = counts.max(axis=1) < counts.sum(axis=1)
    assert res.auroc_disagreement == pytest.approx(roc_auc_score(disagreed, loss), abs=1e-12)
    assert res.ap_disagreement == pytest.approx(average_precision_score(disagreed, loss),
                                                abs=1e-12)
    p_wrong = 1 - fit.class_posterior[np.arange(500), lab]
    np.testing.assert_allclose(frame.posterior_wrong, p_wrong)
    assert res.auroc_posterior == pytest.approx(_soft_auroc(loss, p_wrong), abs=1e-12)
    assert res.spearman == pytest.approx(spearmanr(loss, p_wrong).statistic)
    agreed = ~disagreed & (counts.sum(axis=1) >= 2)
    flags = p.argmax(axis=1) != lab
    assert res.n_flagged_agreed == (flags & agreed).sum()
    assert res.flagged_agreed_share == pytest.approx((flags & agreed).sum() / agreed.sum())
    bracket = agreed_error_bracket(r, model=fit.model)
    assert res.bracket.pessimistic == bracket.pessimistic
    assert res.detection.loc["model loss", "auroc"] == pytest.approx(
        roc_auc_score(truth, loss), abs=1e-12)
    # the combination uses both accounts: at least as good as the worse one here
    det = res.detection
    assert det.loc["combined", "auroc"] >= min(det.loc["model loss", "auroc"],
                                               det.loc["annotation posterior", "auroc"])
    assert "consistent" in res.verdict or "disagree" in res.verdict
    assert res.to_frame().loc["gamma", "value"] == bracket.pessimistic
    assert "Cross-check of" in res.summary()
    assert list(res.combined.items[:5]) == list(
        frame.combined.sort_values(ascending=False, kind="stable").index[:5])


def test_confident_learning_ranking_is_accepted(case):
    r, labels, scores, fit, _, _ = case
    aligned = ModelScores.from_arrays(
        scores.values[0][scores.items.get_indexer(r.items)], kind="probs", items=r.items,
        classes=r.categories)
    cl = label_error_ranking(aligned, labels, method="confident_learning")
    res = crosscheck(cl, labels, r, fit=fit)
    assert res.n_flagged_agreed == int(res.frame.agreed[cl.flagged].sum())


def test_verdict_when_the_model_flags_too_many_agreed_items(case):
    r, labels, _, fit, _, _ = case
    # a model that contradicts every label
    lab = r.categories.get_indexer(labels)
    p = np.full((500, 3), 0.45)
    p[np.arange(500), lab] = 0.1
    bad = ModelScores.from_arrays(p, kind="probs", items=r.items, classes=r.categories)
    res = crosscheck(bad, labels, r, fit=fit)
    assert res.flagged_agreed_share == 1.0
    assert "more than γ" in res.verdict


def test_validation(case):
    r, labels, scores, fit, _, _ = case
    with pytest.raises(TypeError, match="`fit` must be a LatentClassFit"):
        crosscheck(scores, labels, r, fit="spam")
    with pytest.raises(ValueError, match=r"`labels` lacks 1 rated items"):
        crosscheck(scores, labels.iloc[1:], r, fit=fit)
    short = ModelScores.from_arrays(scores.values[0][:-1], kind="probs",
                                    items=scores.items[:-1], classes=r.categories)
    with pytest.raises(ValueError, match=r"`scores` lacks 1 of the rated items"):
        crosscheck(short, labels, r, fit=fit)
    with pytest.raises(TypeError, match="must be ModelScores or a Ranking"):
        crosscheck(np.zeros(500), labels, r, fit=fit)


def test_a_ranking_without_flags_is_refused(case):
    from simulation import Ranking

    r, labels, _, fit, _, _ = case
    plain = Ranking.from_scores(pd.Series(np.arange(500.0), index=r.items))
    with pytest.raises(ValueError, match="without a flagged set"):
        crosscheck(plain, labels, r, fit=fit)
