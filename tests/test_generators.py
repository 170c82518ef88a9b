"""simulate_annotations: the easy/hard generators and their hidden truth (SPEC §3)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from agreement import Ratings
from simulation import SimulatedAnnotations, simulate_annotations

# Statistical checks use fixed seeds and reject only below this p-value.
P_MIN = 1e-4


def test_shapes_types_and_truth():
    sim = simulate_annotations(500, 4, hard_share=0.25, categories=["a", "b", "c"], rng=0)
    assert isinstance(sim, SimulatedAnnotations) and isinstance(sim.ratings, Ratings)
    r = sim.ratings
    assert (r.n_items, r.n_raters, r.n_categories) == (500, 4, 3)
    assert list(r.categories) == ["a", "b", "c"] and r.codes.dtype == np.int8
    assert sim.true_class.shape == sim.is_hard.shape == sim.hardness.shape == (500,)
    assert sim.q.shape == (4, 3) and sim.confusion.shape == (4, 3, 3)
    np.testing.assert_array_equal(sim.confusion, np.broadcast_to(np.eye(3), (4, 3, 3)))
    frame = sim.to_frame()
    assert list(frame.columns) == ["true_label", "is_hard", "hardness", "n_ratings"]
    assert set(sim.true_labels) <= {"a", "b", "c"}
    assert np.all(sim.hardness[sim.is_hard] == 1.0) and np.all(sim.hardness[~sim.is_hard] == 0)
    assert sim.to_dict()["n_hard"] == int(sim.is_hard.sum())
    assert repr(sim).startswith("SimulatedAnnotations(M1: 500 items, 4 annotators")


def test_reproducible_with_a_seed():
    a = simulate_annotations(300, 3, model="M2", missing=0.2, rng=5)
    b = simulate_annotations(300, 3, model="M2", missing=0.2, rng=np.random.default_rng(5))
    c = simulate_annotations(300, 3, model="M2", missing=0.2, rng=6)
    assert np.array_equal(a.ratings.codes, b.ratings.codes)
    assert np.array_equal(a.is_hard, b.is_hard)
    assert not np.array_equal(a.ratings.codes, c.ratings.codes)


def test_m1_easy_items_unanimous_on_their_class():
    sim = simulate_annotations(5000, 5, hard_share=0.4, class_shares=[0.2, 0.5, 0.3], rng=1)
    codes = sim.ratings.codes
    easy = ~sim.is_hard
    assert np.all(codes[easy] == sim.true_class[easy, None])


def test_hard_share_and_class_shares_follow_their_laws():
    n = 20_000
    sim = simulate_annotations(n, 2, hard_share=0.3, class_shares=[0.6, 0.3, 0.1], rng=2)
    assert stats.binomtest(int(sim.is_hard.sum()), n, 0.3).pvalue > P_MIN
    observed = np.bincount(sim.true_class, minlength=3)
    assert stats.chisquare(observed, n * np.array([0.6, 0.3, 0.1])).pvalue > P_MIN


def test_hard_items_draw_from_each_annotators_q():
    q = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]])
    sim = simulate_annotations(20_000, 3, hard_share=0.5, hard_shares=q, rng=3)
    hard = sim.ratings.codes[sim.is_hard]
    for j in range(3):
        ones = int((hard[:, j] == 1).sum())
        assert stats.binomtest(ones, hard.shape[0], q[j, 1]).pvalue > P_MIN


def test_m2_error_rates_on_easy_items():
    eps = np.array([0.05, 0.2, 0.4])
    sim = simulate_annotations(20_000, 3, model="M2", n_categories=3, error_rates=eps,
                               hard_share=0.2, rng=4)
    easy = ~sim.is_hard
    codes = sim.ratings.codes[easy]
    truth = sim.true_class[easy]
    for j in range(3):
        wrong = codes[:, j] != truth
        assert stats.binomtest(int(wrong.sum()), wrong.size, eps[j]).pvalue > P_MIN
        # A wrong label is uniform over the other two categories.
        other = (codes[wrong, j] - truth[wrong]) % 3
        assert stats.binomtest(int((other == 1).sum()), other.size, 0.5).pvalue > P_MIN


def test_m2_confusion_matrix():
    conf = np.array([[0.8, 0.2], [0.3, 0.7]])
    sim = simulate_annotations(20_000, 2, model="M2", confusion=conf, hard_share=0.0, rng=5)
    codes, truth = sim.ratings.codes, sim.true_class
    for c in range(2):
        said_1 = int((codes[truth == c, 0] == 1).sum())
        assert stats.binomtest(said_1, int((truth == c).sum()), conf[c, 1]).pvalue > P_MIN


def test_hardness_levels():
    # Level h: each rating of a hard item is a coin flip with probability h.
    sim = simulate_annotations(40_000, 2, hard_share=1.0, hardness=[0.5, 1.0],
                               hard_shares=[0.0, 1.0], class_shares=[1.0, 0.0], rng=6)
    assert set(np.unique(sim.hardness)) == {0.5, 1.0}
    for h in (0.5, 1.0):
        sel = sim.hardness == h
        ones = int((sim.ratings.codes[sel] == 1).sum())
        assert stats.binomtest(ones, 2 * int(sel.sum()), h).pvalue > P_MIN


def test_missing_at_random_and_raters_per_item():
    sim = simulate_annotations(10_000, 5, missing=0.3, rng=7)
    missing = int((sim.ratings.codes < 0).sum())
    assert stats.binomtest(missing, 50_000, 0.3).pvalue > P_MIN
    sim = simulate_annotations(2_000, 10, raters_per_item=3, rng=8)
    assert np.all(sim.ratings.ratings_per_item == 3)
    # Every annotator is drawn about equally often.
    per_rater = (sim.ratings.codes >= 0).sum(axis=0)
    assert stats.chisquare(per_rater).pvalue > P_MIN


@pytest.mark.parametrize("kw, exc, match", [
    ({"n_items": 0}, ValueError, r"`n_items`"),
    ({"n_items": 2.5}, TypeError, r"`n_items`"),
    ({"n_annotators": 0}, ValueError, r"`n_annotators`"),
    ({"model": "M3"}, ValueError, r"`model` must be one of"),
    ({"hard_share": 1.5}, ValueError, r"`hard_share` must be in \[0, 1\]"),
    ({"hard_share": "0.2"}, TypeError, r"`hard_share`"),
    ({"class_shares": [0.5, 0.6]}, ValueError, r"`class_shares` must hold"),
    ({"class_shares": [[0.5, 0.5]]}, ValueError, r"`class_shares` must have at most"),
    ({"hard_shares": [0.3, 0.3, 0.4]}, ValueError, r"`hard_shares` must have 2"),
    ({"error_rates": 0.1}, ValueError, r"apply to model='M2'"),
    ({"model": "M2", "error_rates": [0.1, 0.2]}, ValueError, r"`error_rates` must be a number"),
    ({"model": "M2", "error_rates": 1.2}, ValueError, r"`error_rates` must be in \[0, 1\]"),
    ({"model": "M2", "error_rates": 0.1, "confusion": np.eye(2)}, ValueError, r"not both"),
    ({"hardness": 0.0}, ValueError, r"`hardness`"),
    ({"missing": 1.0}, ValueError, r"`missing` must be in \[0, 1\)"),
    ({"missing": 0.1, "raters_per_item": 2}, ValueError, r"not both"),
    ({"raters_per_item": 5}, ValueError, r"exceeds `n_annotators`"),
    ({"categories": ["a", "a"]}, ValueError, r"`categories` must name 2 distinct"),
    ({"n_categories": 1}, ValueError, r"`n_categories`"),
])
def test_bad_arguments(kw, exc, match):
    args = {"n_items": 10, "n_annotators": 3, **kw}
    with pytest.raises(exc, match=match):
        simulate_annotations(args.pop("n_items"), args.pop("n_annotators"), **args)
