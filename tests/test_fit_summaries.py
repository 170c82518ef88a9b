"""What a report reads from the library: ``Ratings.describe``/``gold_accuracy`` and the
fit's summaries (``LatentClassFit``: expected wrong labels, hard items, agreement with the
labels, accuracy on gold, each annotator's ``accuracy``), each against a slow computation
written from its definition."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from test_latent_class import ALL_MODELS, params_of, slow_emission, small_data

from agreement import Ratings
from noise_models import EasyHardModel, LatentClassModel, annotator_intervals

WIDE = [["a", "a", "a"], ["a", "b", None], ["b", None, None], [None, None, None],
        ["b", "b", None], ["c", "a", "b"]]


def _slow_counts(rows):
    """Per item: the labels given, from the raw rows."""
    return [[x for x in row if x is not None] for row in rows]


# ------------------------------------------------------------------ Ratings
def test_describe_counts_by_hand():
    d = Ratings.from_wide(WIDE).describe()
    given = _slow_counts(WIDE)
    rated = [len(g) for g in given if g]
    assert d["n_items"] == 6 and d["n_raters"] == 3 and d["n_categories"] == 3
    assert d["n_ratings"] == sum(rated) == 11
    assert (d["ratings_per_item_min"], d["ratings_per_item_max"]) == (1, 3)
    assert d["ratings_per_item_mean"] == pytest.approx(sum(rated) / len(rated))
    assert d["items_with_one_rating"] == 1
    assert d["items_with_two_or_more"] == 4
    assert d["agreed_items"] == sum(len(g) >= 2 and len(set(g)) == 1 for g in given) == 2
    assert d["disagreed_items"] == 2
    assert all(type(d[k]) is int for k in d.index if k != "ratings_per_item_mean")


def test_describe_a_count_table():
    d = Ratings.from_counts([[0, 0], [3, 0], [1, 1], [0, 1]]).describe()
    assert (d["ratings_per_item_min"], d["ratings_per_item_max"]) == (1, 3)
    assert d["ratings_per_item_mean"] == 2.0  # over the three rated items
    assert (d["agreed_items"], d["disagreed_items"], d["items_with_one_rating"]) == (1, 1, 1)


def test_gold_accuracy_by_hand():
    r = Ratings.from_wide(WIDE)
    gold = {0: "a", 1: "b", 2: "b", 3: "a", 4: "a", 5: "z", 99: "a"}
    acc = r.gold_accuracy(gold)
    given = _slow_counts(WIDE)
    right, n, wrong, agreed = 0, 0, 0, 0
    for i, g in enumerate(given):
        if not g or gold[i] not in "abc":
            continue
        first = max(["a", "b", "c"], key=lambda c: (g.count(c), -"abc".index(c)))
        n += 1
        right += first == gold[i]
        if len(g) >= 2 and len(set(g)) == 1:
            agreed += 1
            wrong += g[0] != gold[i]
    assert acc["items_with_gold"] == 5  # item 3 (unrated) counts; 5's "z" does not; 99 is no item
    assert acc["unknown_gold"] == 1
    assert acc["majority_items"] == n == 4
    assert acc["majority_accuracy"] == pytest.approx(right / n) == 0.5
    assert (acc["unanimous_items"], acc["unanimous_wrong"]) == (agreed, wrong) == (2, 1)
    assert acc["unanimous_wrong_share"] == 0.5 and acc["unanimous_accuracy"] == 0.5


def test_gold_accuracy_without_gold_items_is_nan():
    acc = Ratings.from_wide(WIDE).gold_accuracy({"x": "a"})
    assert acc["items_with_gold"] == 0 and math.isnan(acc["majority_accuracy"])
    assert math.isnan(acc["unanimous_accuracy"])


# ------------------------------------------------------------------ the fit
@pytest.fixture(scope="module")
def fits():
    r = small_data(3)
    return [LatentClassModel(a, h, rng=0, n_starts=2).fit(r) for a, h in ALL_MODELS] + [
        LatentClassModel("spam", "difficulty", rng=0, n_starts=2).fit(r)]


def test_fit_summaries_from_their_definitions(fits):
    for fit in fits:
        r = fit.ratings
        codes = r.codes
        post = fit.label_posterior
        assert fit.expected_wrong_labels == pytest.approx(sum(1 - p for p in post))
        assert fit.labels_likely_wrong == sum(p < 0.5 for p in post)
        differs = 0
        for i in range(r.n_items):
            given = [int(x) for x in codes[i] if x >= 0]
            if given:
                votes = [given.count(c) for c in range(r.n_categories)]
                differs += fit.label_codes[i] != votes.index(max(votes))
        assert fit.labels_differing_from_majority == differs
        for j in range(r.n_raters):
            own = [(i, int(codes[i, j])) for i in range(r.n_items) if codes[i, j] >= 0]
            same = sum(x == fit.label_codes[i] for i, x in own)
            assert fit.label_agreement.iloc[j] == pytest.approx(same / len(own))
        if fit.posterior_hard is None:
            assert fit.expected_hard_items is None and fit.expected_hidden_hard is None
            with pytest.raises(ValueError, match="no hard component"):
                fit.hard_items()
            continue
        hard = fit.posterior_hard
        assert fit.expected_hard_items == pytest.approx(sum(hard))
        agreed = [i for i in range(r.n_items) if len({int(x) for x in codes[i] if x >= 0}) == 1
                  and sum(codes[i] >= 0) >= 2]
        assert fit.expected_hidden_hard == pytest.approx(sum(hard[i] for i in agreed))
        top = fit.hard_items(5, unanimous=True)
        slow = sorted(agreed, key=lambda i: (-hard[i], i))[:5]
        assert top.index.tolist() == r.items[slow].tolist()
        assert top["label"].tolist() == fit.labels.iloc[slow].tolist()
        assert len(fit.hard_items()) == r.n_items


def test_label_accuracy_by_hand(fits):
    fit = fits[3]
    r = fit.ratings
    gold = pd.Series(r.categories[np.arange(r.n_items) % r.n_categories], index=r.items)
    gold.iloc[:5] = None  # no gold for these
    right = [fit.labels.iloc[i] == gold.iloc[i] for i in range(5, r.n_items)]
    assert fit.label_accuracy(gold) == pytest.approx(sum(right) / len(right))
    assert math.isnan(fit.label_accuracy({"nowhere": r.categories[0]}))


# ------------------------------------------------------------------ annotator accuracy
#: The item-difficulty model's accuracy levels of hard items (its docstring).
LEVELS = (0.2, 0.4, 0.6)


def _states(fit):
    """The fit's annotator parameters on easy items and, with ``hard="difficulty"``, on the
    hard items of each level (the competence times the level), each with its weight."""
    params = params_of(fit)
    if fit.level_weights is None:
        return [(1.0, params)]
    out = [(1.0 - fit.pi, params)]
    for a, w in zip(LEVELS, fit.level_weights, strict=True):
        out.append((fit.pi * w, (*params[:4], params[4] * a, *params[5:])))
    return out


def _slow_accuracy(fit) -> list[float]:
    """P(annotator j's label is the true class), from the emission: over the easy items,
    and with item difficulty over the easy and the hard items of every level."""
    m = fit.ratings.n_categories
    w = fit.phi if fit.class_weights is None else fit.class_weights
    return [sum(share * w[c] * slow_emission(fit.model.annotators, params, j, c, c, m)
                for share, params in _states(fit) for c in range(m))
            for j in range(fit.ratings.n_raters)]


def test_accuracy_of_every_model_from_the_emission(fits):
    assert {(f.model.annotators, f.model.hard) for f in fits} == {*ALL_MODELS,
                                                                   ("spam", "difficulty")}
    for fit in fits:
        frame = fit.annotator_frame()
        assert frame.columns[:2].tolist() == ["n_ratings", "accuracy"]
        np.testing.assert_allclose(frame["accuracy"], _slow_accuracy(fit), rtol=1e-12)


def test_accuracy_is_the_intervals_accuracy(fits):
    spam = fits[9]
    assert (spam.model.annotators, spam.model.hard) == ("spam", None)
    table = annotator_intervals(spam, n_resamples=5, rng=0)
    np.testing.assert_array_equal(table["accuracy"], spam.annotator_frame()["accuracy"])


def test_accuracy_recovers_known_confusion_matrices():
    # Three classes, shares phi, five annotators with known confusion matrices: the fitted
    # accuracy is near sum_c phi_c C_j[c, c] (3000 items, 5 ratings each).
    rng = np.random.default_rng(7)
    phi = np.array([0.5, 0.3, 0.2])
    conf = np.empty((5, 3, 3))
    for j, right in enumerate([0.9, 0.8, 0.7, 0.85, 0.6]):
        conf[j] = (1 - right) / 2
        np.fill_diagonal(conf[j], right)
    conf[4, 0] = [0.95, 0.05, 0.0]  # annotator 4: good on class 0 only
    truth = rng.choice(3, size=3000, p=phi)
    labels = np.array([[rng.choice(3, p=conf[j, c]) for j in range(5)] for c in truth])
    fit = LatentClassModel("confusion", rng=0, n_starts=1).fit(labels)
    known = np.einsum("c,jcc->j", phi, conf)
    np.testing.assert_allclose(fit.annotator_frame()["accuracy"], known, atol=0.02)


def test_accuracy_of_perfect_annotators_is_one():
    x = np.array([[0, 0], [1, 1], [0, 1], [1, 1]] * 20)
    fit = EasyHardModel(rng=0).fit(x)
    assert fit.annotator_frame()["accuracy"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="no annotator parameter"):
        annotator_intervals(fit, n_resamples=5)


def test_accuracy_is_how_often_a_drawn_label_is_the_class(fits):
    # Draw items from the fitted model (class by its weights, easy or hard by level with
    # item difficulty, each annotator's label from their emission) and count how often the
    # label is the class: the exact interval of that share (99.9%) holds the accuracy, for
    # every annotator of three models.
    from scipy.stats import binomtest

    rng = np.random.default_rng(0)
    n = 20_000
    for fit in (fits[3], fits[6], fits[-1]):  # one-coin, confusion, spam with difficulty
        m = fit.ratings.n_categories
        states = _states(fit)  # easy items, and hard items by level (difficulty)
        w = np.asarray(fit.phi if fit.class_weights is None else fit.class_weights)
        classes = rng.choice(m, size=n, p=w / w.sum())
        state = rng.choice(len(states), size=n, p=[s for s, _ in states])
        accuracy = fit.annotator_frame()["accuracy"]
        for j in range(fit.ratings.n_raters):
            emit = np.array([[[slow_emission(fit.model.annotators, params, j, x, c, m)
                               for x in range(m)] for c in range(m)] for _, params in states])
            u = rng.random(n)
            said = (u[:, None] > np.cumsum(emit[state, classes], axis=1)).sum(axis=1)
            ci = binomtest(int(np.sum(said == classes)), n).proportion_ci(0.999)
            assert ci.low <= accuracy.iloc[j] <= ci.high, (fit.model.name, j)


def test_hard_items_of_items_named_by_tuples():
    x = pd.DataFrame([["a", "a"], ["a", "b"], ["b", "b"]] * 10,
                     index=pd.MultiIndex.from_tuples([(i, "x") for i in range(30)]))
    fit = EasyHardModel(rng=0).fit(x)
    top = fit.hard_items(3, unanimous=True)
    assert top.index.tolist() == [(0, "x"), (2, "x"), (3, "x")]
