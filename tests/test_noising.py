"""Noising protocols: exact counts, labels some annotator gave, seeded, provenance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agreement import Ratings
from simulation import (
    crowd_majority,
    dissenting_label,
    dissenting_worker,
    mix_protocols,
    perturb_class_conditional,
    perturb_uniform,
    simulate_annotations,
)

TRANSITION = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.0, 0.0, 1.0]]


@pytest.fixture(scope="module")
def data():
    sim = simulate_annotations(1001, 5, model="M2", error_rates=0.2, hard_share=0.1,
                               n_categories=3, missing=0.1, categories=["a", "b", "c"], rng=3)
    return sim.ratings, sim.true_labels


PROTOCOL_CALLS = {
    "perturb_uniform": lambda r, ref, **kw: perturb_uniform(r, ref, **kw),
    "perturb_class_conditional": lambda r, ref, **kw: perturb_class_conditional(
        r, ref, transition=TRANSITION, **kw),
    "dissenting_label": lambda r, ref, **kw: dissenting_label(r, ref, **kw),
    "dissenting_worker": lambda r, ref, **kw: dissenting_worker(r, ref, **kw),
    "crowd_majority": lambda r, ref, **kw: crowd_majority(r, ref, threshold=0.4, **kw),
}


@pytest.mark.parametrize("name", list(PROTOCOL_CALLS))
@pytest.mark.parametrize("rate", [0.0, 0.0005, 0.05, 0.1])
def test_exact_count_and_reproducible(data, name, rate):
    r, ref = data
    call = PROTOCOL_CALLS[name]
    noisy = call(r, ref, rate=rate, rng=42)
    want = int(np.floor(rate * r.n_items + 0.5))
    assert noisy.n_changed == want
    changed = noisy.changed
    assert (noisy.labels[changed] != noisy.clean[changed]).all()
    assert (noisy.labels[~changed] == noisy.clean[~changed]).all()
    assert noisy.clean.equals(ref.rename("clean").rename_axis("item")) or \
        (noisy.clean.to_numpy() == ref.to_numpy()).all()
    assert set(noisy.protocol[changed]) <= {name}
    assert (noisy.protocol[~changed] == None).all()  # noqa: E711
    again = call(r, ref, rate=rate, rng=42)
    pd.testing.assert_frame_equal(noisy.to_frame(), again.to_frame())
    if want >= 20:
        other = call(r, ref, rate=rate, rng=43)
        assert not np.array_equal(other.changed, noisy.changed)


@pytest.mark.parametrize("name", ["dissenting_label", "dissenting_worker", "crowd_majority"])
def test_dissenting_protocols_use_labels_some_annotator_gave(data, name):
    r, ref = data
    noisy = PROTOCOL_CALLS[name](r, ref, rate=0.08, rng=0)
    wide = r.to_wide()
    for item in np.flatnonzero(noisy.changed):
        given = set(wide.iloc[item].dropna())
        assert noisy.labels.iloc[item] in given
        src = noisy.source_annotator[item]
        if name != "crowd_majority":
            assert wide.iloc[item][src] == noisy.labels.iloc[item]


def test_dissenting_worker_follows_the_paper(data):
    r, ref = data
    noisy = dissenting_worker(r, ref, rate=0.1, rng=5)
    wide = r.to_wide()
    refv = ref.to_numpy()
    used = pd.unique(noisy.source_annotator[noisy.changed])
    partial = 0
    taken = np.zeros(r.n_items, bool)
    # each annotator lends every dissent not already taken, except (at most) the last one
    per = {a: np.flatnonzero(noisy.source_annotator == a) for a in used}
    for a in used:
        col = wide[a].to_numpy()
        dissents = np.flatnonzero(pd.notna(col) & (col != refv))
        mine = per[a]
        others = np.setdiff1d(dissents, mine)
        if not noisy.changed[others].all():
            partial += 1
        taken[mine] = True
    assert partial <= 1
    assert len(used) < r.n_raters or partial == 1


def test_dissenting_label_draws_among_dissenting_ratings():
    # one item, ratings b, b, c against reference a: b twice as likely as c
    x = np.array([["a", "b", "b", "c"]])
    got = [dissenting_label(x, ["a"], rate=1.0, rng=s).labels.iloc[0] for s in range(600)]
    share_b = np.mean(np.array(got) == "b")
    assert abs(share_b - 2 / 3) < 0.06


def test_uniform_covers_every_other_class():
    x = np.array([[0, 0]] * 200 + [[1, 1], [2, 2], [3, 3]])
    noisy = perturb_uniform(x, x[:, 0], rate=1.0, rng=0)
    zero = noisy.labels[noisy.clean == 0]
    counts = zero.value_counts()
    assert set(counts.index) == {1, 2, 3}
    assert counts.min() > 40


def test_class_conditional_respects_the_transition(data):
    r, ref = data
    noisy = perturb_class_conditional(r, ref, rate=0.15, rng=1, transition=TRANSITION)
    ch = noisy.changed
    assert set(noisy.clean[ch]) <= {"a", "b"}  # class c never flips
    a_to = noisy.labels[ch & (noisy.clean == "a").to_numpy()].value_counts(normalize=True)
    assert a_to["b"] > a_to["c"]  # 0.2 vs 0.1 off the diagonal
    with pytest.raises(ValueError, match="rows must be probabilities"):
        perturb_class_conditional(r, ref, rate=0.1, transition=[[0.5, 0.6, 0], [0, 1, 0],
                                                                [0, 0, 1]])
    with pytest.raises(ValueError, match=r"must be 3 × 3"):
        perturb_class_conditional(r, ref, rate=0.1, transition=np.eye(2))
    with pytest.raises(TypeError, match="needs `transition=`"):
        perturb_class_conditional(r, ref, rate=0.1)


def test_crowd_majority_takes_the_most_chosen_wrong_label():
    x = np.array([["a", "b", "b", "c"], ["a", "a", "a", "b"], ["c", "c", "b", "a"]])
    noisy = crowd_majority(x, ["a", "a", "a"], rate=2 / 3, rng=0, threshold=0.5)
    assert noisy.labels.tolist() == ["b", "a", "c"]
    with pytest.raises(ValueError, match=r"only 2 can be changed"):
        crowd_majority(x, ["a", "a", "a"], rate=1.0, rng=0, threshold=0.5)


@pytest.mark.parametrize(("shares", "rate", "expected"), [
    ({"dissenting_worker": 0.8, "dissenting_label": 0.2}, 0.05, {"dissenting_worker": 40,
                                                                 "dissenting_label": 10}),
    ({"dissenting_worker": 0.8, "dissenting_label": 0.2}, 0.007, {"dissenting_worker": 6,
                                                                  "dissenting_label": 1}),
    ({"perturb_uniform": 1 / 3, "crowd_majority": 1 / 3, "dissenting_label": 1 / 3}, 0.01,
     {"perturb_uniform": 4, "crowd_majority": 3, "dissenting_label": 3}),
])
def test_mix_protocols_splits_the_count(data, shares, rate, expected):
    r, ref = data
    noisy = mix_protocols(shares, r, ref, rate=rate, rng=0, threshold=0.4)
    assert noisy.protocol_counts() == expected
    assert noisy.n_changed == int(np.floor(rate * r.n_items + 0.5))


def test_too_few_items_says_how_many_can_change():
    x = np.array([[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 0, 1]])
    with pytest.raises(ValueError, match=r"`dissenting_label` cannot change 3 items: only 2 "
                                         r"can be changed"):
        dissenting_label(x, [0, 1, 0, 1], rate=0.75)
    with pytest.raises(ValueError, match=r"`dissenting_worker` cannot change 4 items: only 2"):
        dissenting_worker(x, [0, 1, 0, 1], rate=1.0)


def test_validation(data):
    r, ref = data
    with pytest.raises(ValueError, match=r"`rate` must be in \[0, 1\]"):
        perturb_uniform(r, ref, rate=5)
    with pytest.raises(TypeError, match="`rate` must be a number"):
        perturb_uniform(r, ref, rate="5%")
    with pytest.raises(ValueError, match="not categories of the ratings"):
        perturb_uniform(r, ["z"] * r.n_items, rate=0.1)
    with pytest.raises(ValueError, match="one label per item"):
        perturb_uniform(r, ["a"], rate=0.1)
    with pytest.raises(ValueError, match=r"`reference` lacks 1 of the rated items"):
        perturb_uniform(r, ref.iloc[1:], rate=0.1)
    with pytest.raises(ValueError, match="unknown protocols"):
        mix_protocols({"dissent": 1.0}, r, ref, rate=0.1)
    with pytest.raises(ValueError, match="sum to 1"):
        mix_protocols({"dissenting_label": 0.5}, r, ref, rate=0.1)
    counts = Ratings.from_counts(r.counts_frame())
    with pytest.raises(ValueError, match="needs each annotator's own labels"):
        dissenting_worker(counts, ref.to_numpy(), rate=0.1)


def test_reference_series_is_aligned_by_id(data):
    r, ref = data
    shuffled = ref.sample(frac=1.0, random_state=0)
    a = dissenting_label(r, ref, rate=0.05, rng=0)
    b = dissenting_label(r, shuffled, rate=0.05, rng=0)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
