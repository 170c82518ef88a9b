"""The seed benchmarks' noise constructions (SPEC §9): NoisywikiHow, CILN, separability."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest, chisquare

from noise_models import SoftLabels, noise_rate, noise_transition_heterogeneity
from simulation import (
    ModelScores,
    loss_separability,
    overlap_coefficient,
    perturb_similar,
    perturb_uniform,
    voter_labels,
)

ROOT = Path(__file__).resolve().parents[1]


def _data(n=60, d=5, k=3, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    emb = rng.normal(size=(n, d)) + labels[:, None] * 0.5
    return labels, emb


def _brute_force(labels, emb):
    """Most similar item of another class, straight from the definition (float64)."""
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    n = len(labels)
    nb, sim = np.empty(n, int), np.empty(n)
    for i in range(n):
        best, arg = -np.inf, -1
        for j in range(n):
            if labels[j] != labels[i]:
                s = float(unit[i] @ unit[j])
                if s > best:
                    best, arg = s, j
        nb[i], sim[i] = arg, best
    return nb, sim


def test_nearest_other_class_equals_brute_force():
    # NoisywikiHow's construction (method="in-data") reports each item's most similar item
    # of another class and their similarity: the items here are numbered 0..n-1.
    labels, emb = _data()
    noisy = perturb_similar(labels, emb, rate=0.2, method="in-data", rng=0)
    nb, sim = np.asarray(noisy.neighbour, dtype=int), np.asarray(noisy.similarity)
    assert len(nb) == len(labels)
    want_nb, want_sim = _brute_force(labels, emb)
    np.testing.assert_allclose(sim, want_sim, rtol=0, atol=1e-12)
    # float32 products: a neighbour may differ only where two candidates tie to 1e-6
    np.testing.assert_array_equal(nb, want_nb)


def _brute_force_allowed(labels, emb, pool_labels, pool_emb, ok):
    """Most similar pool item whose class ``ok(item class, pool class)`` allows (float64);
    -1 and NaN where none is allowed."""
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    punit = pool_emb / np.linalg.norm(pool_emb, axis=1, keepdims=True)
    nb, sim = np.full(len(labels), -1), np.full(len(labels), np.nan)
    for i in range(len(labels)):
        best = -np.inf
        for j in range(len(pool_labels)):
            if ok(labels[i], pool_labels[j]):
                s = float(unit[i] @ punit[j])
                if s > best:
                    best, nb[i], sim[i] = s, j, s
    return nb, sim


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.4, 0.6])
def test_in_data_the_most_similar_items_are_changed(rate):
    # method="in-data", the construction of earlier versions, unchanged
    labels, emb = _data(n=80, seed=int(rate * 10))
    noisy = perturb_similar(labels, emb, rate=rate, method="in-data", rng=1)
    nb, sim = _brute_force(labels, emb)
    count = int(np.floor(rate * 80 + 0.5))
    assert noisy.n_changed == count
    changed = np.flatnonzero(noisy.changed)
    # every changed item is at least as similar to its neighbour as every unchanged one
    assert sim[changed].min() >= sim[~noisy.changed].max() - 1e-12
    np.testing.assert_array_equal(noisy.labels.to_numpy()[changed], labels[nb[changed]])
    np.testing.assert_array_equal(noisy.labels.to_numpy()[~noisy.changed],
                                  labels[~noisy.changed])
    frame = noisy.to_frame()
    np.testing.assert_allclose(frame["similarity"], sim, atol=1e-12)
    assert (frame.loc[noisy.changed, "protocol"] == "perturb_similar").all()
    assert "neighbour_class" not in frame


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.4])
def test_published_without_a_pool_changes_the_most_similar_and_never_swaps(rate):
    # The default without a pool: per-source counts round(rate * size); no changed item's
    # neighbour changes; an unchanged item ranked above a changed one of its source was
    # passed over for that rule alone.
    labels, emb = _data(n=90, seed=int(rate * 10))
    sources = {0: "a", 1: "a", 2: "b"}
    noisy = perturb_similar(labels, emb, rate=rate, sources=sources, rng=1)
    nb, sim = _brute_force(labels, emb)
    frame = noisy.to_frame()
    np.testing.assert_allclose(frame["similarity"], sim, atol=1e-12)
    np.testing.assert_array_equal(frame["neighbour"].to_numpy(dtype=int), nb)
    np.testing.assert_array_equal(frame["neighbour_class"].to_numpy(dtype=int), labels[nb])
    changed = noisy.changed
    src = np.array([sources[c] for c in labels])
    for name in ("a", "b"):
        assert changed[src == name].sum() == np.floor(rate * (src == name).sum() + 0.5)
    assert not changed[nb[changed]].any()  # no swaps, no chains
    np.testing.assert_array_equal(noisy.labels.to_numpy()[changed], labels[nb[changed]])
    np.testing.assert_array_equal(noisy.labels.to_numpy()[~changed], labels[~changed])
    blocked = np.zeros(len(labels), bool)
    blocked[nb[changed]] = True
    for name in ("a", "b"):
        here = src == name
        floor = sim[changed & here].min()
        above = np.flatnonzero(here & ~changed & (sim > floor + 1e-12))
        assert all(blocked[i] or changed[nb[i]] for i in above)


def test_mutual_neighbours_swap_only_in_data():
    # Two tight pairs across the classes: items 0-2 and 1-3 are each other's nearest
    # neighbour of the other class. At rate 0.5 "in-data" swaps both pairs' labels;
    # the published construction keeps each changed item's neighbour clean.
    emb = np.array([[1.0, 0.0], [0.0, 1.0], [0.99, 0.05], [0.05, 0.99],
                    [0.7, 0.7], [0.6, 0.8], [0.8, 0.6], [0.65, 0.75]])
    labels = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    old = perturb_similar(labels, emb, rate=0.5, method="in-data", rng=0)
    nb = old.to_frame()["neighbour"].to_numpy()
    swaps = [i for i in np.flatnonzero(old.changed) if old.changed[nb[i]] and nb[nb[i]] == i]
    assert len(swaps) >= 2
    new = perturb_similar(labels, emb, rate=0.5, rng=0)
    nb_new = new.to_frame()["neighbour"].to_numpy(dtype=int)
    assert new.n_changed == 4 and not new.changed[nb_new[new.changed]].any()


def test_published_with_a_pool_and_parents_as_wu_et_al():
    # A pool outside the data set (ids shared with the data are not candidates), a
    # parent for the sub-category classes: the candidate is the most similar pool item
    # of an allowed class; the hard cases (top round(rate * size) per source) keep their
    # label and take the candidate's input.
    g = np.random.default_rng(3)
    labels = pd.Series(np.array(["s1", "s2", "s3", "b", "t"])[g.integers(0, 5, 60)],
                       index=[f"x{i}" for i in range(60)])
    emb = g.normal(size=(60, 4))
    pool_cls = np.array(["s1", "s2", "s3", "b", "t", "other", "s9"])[g.integers(0, 7, 40)]
    pool_ids = [f"p{i}" for i in range(38)] + ["x0", "x1"]  # two data items: not candidates
    pool = pd.Series(pool_cls, index=pool_ids)
    pool_emb = g.normal(size=(40, 4))
    pool_emb[38:] = emb[:2]  # identical to the data items: would win if they were candidates
    parents = {"s1": "S", "s2": "S", "s3": "S", "s9": "S"}
    sources = {"s1": "SC", "s2": "SC", "s3": "SC", "b": "BCC", "t": "TC"}
    noisy = perturb_similar(labels, emb, rate=0.2, sources=sources, pool_labels=pool,
                            pool_embeddings=pool_emb, parents=parents, rng=0)

    def ok(a, b):
        if a == b:
            return False
        return parents.get(a) is None or parents.get(b) == parents[a]

    nb, sim = _brute_force_allowed(labels.to_numpy(), emb, pool_cls[:38], pool_emb[:38], ok)
    frame = noisy.to_frame()
    np.testing.assert_allclose(frame["similarity"], sim, atol=1e-12)
    assert frame["neighbour"].tolist() == [pool_ids[j] for j in nb]
    assert frame["neighbour_class"].tolist() == pool_cls[nb].tolist()
    sc = labels.isin(["s1", "s2", "s3"]).to_numpy()
    assert set(pool_cls[nb[sc]]) <= {"s1", "s2", "s3", "s9"}  # siblings only
    pd.testing.assert_series_equal(noisy.labels, labels.rename("label"), check_names=False)
    src = np.array([sources[c] for c in labels])
    for name in ("SC", "BCC", "TC"):
        here = src == name
        c = int(np.floor(0.2 * here.sum() + 0.5))
        assert noisy.changed[here].sum() == c
        top = np.sort(sim[here])[::-1][:c]
        np.testing.assert_allclose(np.sort(sim[here & noisy.changed])[::-1], top)
    with pytest.raises(ValueError, match="go together"):
        perturb_similar(labels, emb, rate=0.2, pool_labels=pool)
    with pytest.raises(ValueError, match="same encoder"):
        perturb_similar(labels, emb, rate=0.2, pool_labels=pool, pool_embeddings=pool_emb[:, :3])
    with pytest.raises(ValueError, match="belong to method='published'"):
        perturb_similar(labels, emb, rate=0.2, parents=parents, method="in-data")


def test_a_source_short_of_candidates_says_so():
    # a parent with one child class: its items have no sibling candidate
    labels = np.array([0, 0, 0, 1, 1, 1])
    emb = np.random.default_rng(0).normal(size=(6, 3))
    with pytest.warns(UserWarning, match="short by"):
        noisy = perturb_similar(labels, emb, rate=1.0, parents={0: "A"}, rng=0)
    assert noisy.changed[:3].sum() == 0 and np.isnan(noisy.similarity[:3]).all()
    assert noisy.changed[3:].all()


@settings(max_examples=examples(40), deadline=None)
@given(n=st.integers(4, 60), rate=st.floats(0, 1), n_sources=st.integers(1, 3),
       seed=st.integers(0, 10_000))
def test_exact_counts_per_source(n, rate, n_sources, seed):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 4
    emb = rng.normal(size=(n, 3))
    sources = {c: f"s{c % n_sources}" for c in range(4)}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # high rates pass some over: counted
        noisy = perturb_similar(labels, emb, rate=rate, sources=sources, rng=seed)
    src = noisy.to_frame()["noise_source"].to_numpy()
    names = pd.unique(src)
    # published: each source its own round(rate * size), halves up
    assert [int(noisy.changed[src == s].sum()) for s in names] == [
        int(np.floor(rate * (src == s).sum() + 0.5)) for s in names]
    # in-data: one total split over the sources by largest remainders
    old = perturb_similar(labels, emb, rate=rate, sources=sources, method="in-data", rng=seed)
    total = int(np.floor(rate * n + 0.5))
    assert old.n_changed == total
    sizes = np.array([(src == s).sum() for s in names], float)
    raw = total * sizes / sizes.sum()
    parts = np.floor(raw).astype(int)
    rest = total - parts.sum()
    parts[np.argsort(-(raw - parts), kind="stable")[:rest]] += 1
    assert [int(old.changed[src == s].sum()) for s in names] == parts.tolist()


def test_seeded_and_ids_kept():
    labels, emb = _data(n=50)
    s = pd.Series(labels, index=[f"x{i}" for i in range(50)])
    a = perturb_similar(s, emb, rate=0.3, rng=5)
    b = perturb_similar(s, pd.DataFrame(emb, index=s.index).iloc[::-1], rate=0.3, rng=5)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    assert list(a.labels.index) == list(s.index)
    assert set(a.to_frame()["neighbour"]) <= set(s.index)


def test_same_changes_for_one_and_two_threads(tmp_path):
    labels, emb = _data(n=400, d=16)
    np.save(tmp_path / "emb.npy", emb)
    np.save(tmp_path / "labels.npy", labels)
    code = ("import numpy as np; from simulation import perturb_similar; "
            f"l = np.load(r'{tmp_path}/labels.npy'); e = np.load(r'{tmp_path}/emb.npy'); "
            "r = perturb_similar(l, e, rate=0.2, rng=3); "
            "print(np.flatnonzero(r.changed).tolist(), r.labels.tolist())")
    outs = []
    for threads in ("1", "2"):
        env = {**os.environ, "OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads,
               "MKL_NUM_THREADS": threads, "NUMBA_NUM_THREADS": threads,
               "PYTHONPATH": str(ROOT)}
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                   text=True, check=True).stdout)
    assert outs[0] == outs[1]


def test_embeddings_from_files(tmp_path):
    labels, emb = _data(n=30)
    ids = np.arange(100, 130)
    s = pd.Series(labels, index=ids)
    frame = pd.DataFrame(emb, columns=[f"d{j}" for j in range(emb.shape[1])])
    frame.insert(0, "id", ids)
    frame.sample(frac=1, random_state=0).to_parquet(tmp_path / "emb.parquet", index=False)
    np.savez(tmp_path / "emb.npz", ids=ids[::-1], logits=emb[::-1])
    want = perturb_similar(s, emb, rate=0.2, rng=0).to_frame()
    for f in ("emb.parquet", "emb.npz"):
        got = perturb_similar(s, tmp_path / f, rate=0.2, rng=0).to_frame()
        pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(rate=1.5), ValueError, "`rate` must be in"),
    (dict(rate="a"), TypeError, "`rate` must be a number"),
    (dict(rate=0.1, sources={0: "a"}), ValueError, "does not map the classes"),
])
def test_perturb_similar_bad_input(kwargs, error, match):
    labels, emb = _data(n=10)
    with pytest.raises(error, match=match):
        perturb_similar(labels, emb, **kwargs)


def test_perturb_similar_bad_embeddings():
    labels, emb = _data(n=10)
    with pytest.raises(ValueError, match="one row per label"):
        perturb_similar(labels, emb[:5], rate=0.1)
    bad = emb.copy()
    bad[2] = 0
    with pytest.raises(ValueError, match="all-zero rows"):
        perturb_similar(labels, bad, rate=0.1)
    bad[2, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        perturb_similar(labels, bad, rate=0.1)
    with pytest.raises(ValueError, match="one class"):
        perturb_similar(np.zeros(10), emb, rate=0.1)


# ----------------------------------------------------------------------------- voter pools


def test_voter_votes_follow_the_pool():
    # One item, two voters, vote="sample": votes are a multinomial with the voters' mean
    # distribution.
    pool = np.array([[[0.7, 0.2, 0.1]], [[0.1, 0.3, 0.6]]])
    soft = voter_labels(pool, n_votes=20_000, labels=[0], vote="sample", rng=4)
    counts = soft.probs[0] * 20_000
    expected = pool.mean(axis=0)[0] * 20_000
    assert chisquare(counts, expected).pvalue > 1e-3
    assert soft.probs.sum(axis=1) == pytest.approx(1.0)
    # the default, CILN's rule: a drawn voter votes its prediction (argmax), so the votes
    # are a multinomial with the shares of voters predicting each class: (1/2, 0, 1/2)
    arg = voter_labels(pool, n_votes=20_000, labels=[0], rng=4)
    assert arg.probs[0, 1] == 0.0
    assert binomtest(round(arg.probs[0, 0] * 20_000), 20_000, 0.5).pvalue > 1e-3


def test_voter_hard_label_is_the_drawn_voters_prediction_as_in_ciln():
    # CILN §III-A: "select one voter uniformly at random and use its prediction as the
    # observed label". Voters that all give the true class 0.6 predict it: no noise
    # (the sampling rule, once the default, gave a noise rate about 0.4).
    g = np.random.default_rng(0)
    n = 500
    y = g.integers(0, 3, n)
    probs = np.full((3, n, 3), 0.2)
    probs[:, np.arange(n), y] = 0.6
    soft = voter_labels(probs, n_votes=7, labels=y, rng=1)
    assert noise_rate(soft).rate == 0.0
    np.testing.assert_array_equal(soft.probs, np.eye(3)[y])
    sampled = voter_labels(probs, n_votes=7, labels=y, vote="sample", rng=1)
    assert 0.3 < noise_rate(sampled).rate < 0.5
    # without labels the reference is a drawn voter's prediction; ties go to the lowest
    # class, as in noise_models.sample_hard_labels
    mixed = np.array([[[0.5, 0.5], [0.1, 0.9]], [[0.2, 0.8], [0.3, 0.7]]])
    ref = voter_labels(mixed, n_votes=1, rng=3).reference_labels.to_numpy()
    assert ref[1] == 1 and ref[0] in (0, 1)
    firsts = {int(voter_labels(mixed, n_votes=1, rng=s).reference_labels.iloc[0])
              for s in range(30)}
    assert firsts == {0, 1}  # voter 1's tie -> 0, voter 2's prediction -> 1
    with pytest.raises(ValueError, match="vote"):
        voter_labels(mixed, n_votes=1, vote="mean")


def test_voter_labels_from_model_scores_and_logits():
    probs = np.array([[[0.9, 0.1], [0.2, 0.8]], [[0.8, 0.2], [0.4, 0.6]]])
    s = ModelScores.from_arrays(probs, kind="probs", items=["a", "b"], classes=["neg", "pos"])
    soft = voter_labels(s, n_votes=50, rng=0)
    assert list(soft.reference_labels.index) == ["a", "b"]
    assert set(soft.reference_labels) <= {"neg", "pos"}
    z = ModelScores.from_arrays(np.log(probs), kind="logits", items=["a", "b"],
                                classes=["neg", "pos"])
    np.testing.assert_array_equal(voter_labels(z, n_votes=50, rng=0).probs, soft.probs)
    with pytest.raises(ValueError, match="sum to 1"):
        voter_labels(np.array([[[0.5, 0.6]]]), n_votes=3)
    with pytest.raises(ValueError, match="`n_votes`"):
        voter_labels(probs, n_votes=0)


def test_ciln_claim_instance_dependent_voters_give_nth():
    # CILN §IV-A2: class-conditional noise has nth = 0. Three classes; identical
    # class-conditional voters -> nth ≈ 0. Voters that each confuse a different class pair
    # on a different half of that class's items (instance-dependent) -> nth > 0.
    rng = np.random.default_rng(0)
    n, k = 600, 3
    y = np.arange(n) % k
    T = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    same = np.stack([T[y]] * 4)
    pairs = [(0, 1), (1, 2), (2, 0), (0, 2)]
    diff = np.stack([np.eye(k)[y]] * 4).astype(float)
    for m, (a, b) in enumerate(pairs):
        hit = (y == a) & (rng.random(n) < 0.5)
        diff[m, hit] = 0.3 * np.eye(k)[a] + 0.7 * np.eye(k)[b]
    nth_same = noise_transition_heterogeneity(voter_labels(same, n_votes=400, labels=y,
                                                           rng=1)).nth
    nth_diff = noise_transition_heterogeneity(voter_labels(diff, n_votes=400, labels=y,
                                                           rng=1)).nth
    # nth_same is the votes' sampling noise alone, about (1 - Σ T²) / n_votes ≈ 0.00085
    assert nth_same < 0.002
    assert nth_diff > 0.01 and nth_diff > 10 * nth_same
    # The exact pool means: exactly 0 against clearly positive.
    assert noise_transition_heterogeneity(SoftLabels.from_voters(same, y)).nth == \
        pytest.approx(0.0, abs=1e-15)
    assert noise_rate(voter_labels(diff, n_votes=400, labels=y, rng=1)).rate > 0


# ----------------------------------------------------------------------------- separability


def test_overlap_coefficient_limits():
    x = np.random.default_rng(0).normal(size=200)
    assert overlap_coefficient(x, x) == pytest.approx(1.0)
    assert overlap_coefficient(x, x + 100) == 0.0
    assert 0 < overlap_coefficient(x, x + 1) < 1


def test_separability_auroc_equals_sklearn_and_intervals_cover():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(2)
    noisy = rng.random(300) < 0.2
    loss = rng.normal(size=300) + noisy * 1.0
    res = loss_separability(loss, None, noisy, n_resamples=300, rng=0)
    assert res.auroc == pytest.approx(roc_auc_score(noisy, loss), abs=1e-12)
    assert res.auroc_interval.low < res.auroc < res.auroc_interval.high
    assert res.overlap_interval.low <= res.overlap <= res.overlap_interval.high
    json.dumps(res.to_dict())
    assert res.to_frame().shape == (2, 4) and float(res) == res.auroc
    assert "<table" in res._repr_html_() and "AUROC" in res.summary()
    a, b = res.confidence_interval(0.9), res.confidence_interval(0.99)
    assert b.low <= a.low and a.high <= b.high
    with pytest.raises(ValueError, match="both noisy and clean"):
        loss_separability(loss, None, np.zeros(300, bool))


def test_uniform_noise_separates_better_than_similarity_noise():
    # NoisywikiHow Fig. 3 on scikit-learn's digits: out-of-fold scores of a model trained
    # on the noisy labels; uniform (synthetic) noise separates by loss, noise that follows
    # the data's own similarity much less.
    from sklearn.datasets import load_digits
    from sklearn.model_selection import cross_val_predict
    from sklearn.neighbors import KNeighborsClassifier

    x, y = load_digits(return_X_y=True)
    results = {}
    for name in ("uniform", "similar"):
        if name == "uniform":
            ratings = y.reshape(-1, 1)
            noisy = perturb_uniform(ratings, y, rate=0.2, rng=0)
        else:
            noisy = perturb_similar(y, x + 1e-9, rate=0.2, rng=0)
        given = noisy.labels.to_numpy().astype(int)
        probs = cross_val_predict(KNeighborsClassifier(15), x / 16.0, given, cv=5,
                                  method="predict_proba")
        res = loss_separability(probs, given, noisy.changed, n_resamples=200, rng=0)
        results[name] = res
    assert results["uniform"].auroc > results["similar"].auroc
    assert results["uniform"].auroc_interval.low > results["similar"].auroc_interval.high
    assert results["uniform"].overlap < results["similar"].overlap


# ----------------------------------------------------------------------------- the commands


def _run(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_noise_voters_separability(tmp_path, capsys):
    labels, emb = _data(n=120, d=6, k=3, seed=3)
    ids = [f"i{j}" for j in range(120)]
    pd.DataFrame({"id": ids, "label": labels}).to_csv(tmp_path / "labels.csv", index=False)
    frame = pd.DataFrame(emb, columns=[f"e{j}" for j in range(6)])
    frame.insert(0, "id", ids)
    frame.to_parquet(tmp_path / "emb.parquet", index=False)
    pd.DataFrame({"class": [0, 1, 2], "source": ["a", "a", "b"]}).to_csv(
        tmp_path / "sources.csv", index=False)
    status, out, err = _run(capsys, "simulate", "noise", tmp_path / "labels.csv",
                            tmp_path / "emb.parquet", "--rate", "0.2", "--sources",
                            tmp_path / "sources.csv", "--out", tmp_path / "noisy.csv")
    assert status == 0, err
    noisy = pd.read_csv(tmp_path / "noisy.csv")
    assert int(noisy["changed"].sum()) == 24 and set(noisy["noise_source"]) == {"a", "b"}
    want = perturb_similar(pd.Series(labels, index=pd.Index(ids, name="item")), emb,
                           rate=0.2, sources={0: "a", 1: "a", 2: "b"}, rng=0)
    np.testing.assert_array_equal(noisy["changed"].to_numpy(), want.changed)
    # the pool, the parents and the former construction on the command line
    pool_ids = [f"p{i}" for i in range(30)]
    pool_y = np.random.default_rng(5).integers(0, 4, 30)
    pool_emb = np.random.default_rng(6).normal(size=(30, 6))
    pd.DataFrame({"id": pool_ids, "label": pool_y}).to_csv(tmp_path / "pool.csv", index=False)
    pframe = pd.DataFrame(pool_emb, columns=[f"e{j}" for j in range(6)])
    pframe.insert(0, "id", pool_ids)
    pframe.to_parquet(tmp_path / "pool_emb.parquet", index=False)
    pd.DataFrame({"class": [0, 1, 3], "parent": ["P", "P", "P"]}).to_csv(
        tmp_path / "parents.csv", index=False)
    status, out, err = _run(capsys, "simulate", "noise", tmp_path / "labels.csv",
                            tmp_path / "emb.parquet", "--rate", "0.2", "--pool",
                            tmp_path / "pool.csv", tmp_path / "pool_emb.parquet", "--parents",
                            tmp_path / "parents.csv", "--out", tmp_path / "noisy_pool.csv")
    assert status == 0, err
    got = pd.read_csv(tmp_path / "noisy_pool.csv")
    want = perturb_similar(pd.Series(labels, index=pd.Index(ids, name="item")), emb, rate=0.2,
                           pool_labels=pd.Series(pool_y, index=pool_ids),
                           pool_embeddings=pool_emb, parents={0: "P", 1: "P", 3: "P"}, rng=0)
    np.testing.assert_array_equal(got["changed"].to_numpy(), want.changed)
    assert got["neighbour"].tolist() == want.to_frame()["neighbour"].tolist()
    assert (got["label"] == got["clean"]).all()  # labels kept, inputs replaced
    status, out, err = _run(capsys, "simulate", "noise", tmp_path / "labels.csv",
                            tmp_path / "emb.parquet", "--rate", "0.2", "--method", "in-data",
                            "--out", tmp_path / "noisy_old.csv")
    assert status == 0, err
    old = perturb_similar(pd.Series(labels, index=pd.Index(ids, name="item")), emb, rate=0.2,
                          method="in-data", rng=0)
    np.testing.assert_array_equal(pd.read_csv(tmp_path / "noisy_old.csv")["changed"],
                                  old.changed)

    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(3), size=120)
    np.savez(tmp_path / "m1.npz", ids=np.array(ids), probs=probs)
    np.savez(tmp_path / "m2.npz", ids=np.array(ids), probs=probs[::-1])
    status, out, err = _run(capsys, "simulate", "voters", tmp_path / "m1.npz",
                            tmp_path / "m2.npz", "--votes", "10", "--labels",
                            tmp_path / "labels.csv", "--format", "json")
    assert status == 0, err
    values = json.loads(out)["sections"]["voters"]["values"]
    assert values["n_voters"] == 2 and 0 < values["delta"] < 1 and values["nth"] > 0
    pool = np.stack([probs, probs[::-1]])
    for vote in ("argmax", "sample"):
        status, out, err = _run(capsys, "simulate", "voters", tmp_path / "m1.npz",
                                tmp_path / "m2.npz", "--votes", "10", "--labels",
                                tmp_path / "labels.csv", "--vote", vote, "--format", "json")
        assert status == 0, err
        got = json.loads(out)["sections"]["voters"]["values"]
        want = voter_labels(pool, n_votes=10, labels=labels, vote=vote, rng=0)
        assert got["vote"] == vote
        assert got["delta"] == pytest.approx(noise_rate(want).rate, abs=1e-12)
        if vote == "argmax":
            assert got["delta"] == values["delta"]  # the default

    status, out, err = _run(capsys, "simulate", "separability", tmp_path / "m1.npz",
                            "--noisy", tmp_path / "noisy.csv", "--resamples", "100")
    assert status == 0, err
    assert "AUROC" in out


@pytest.mark.parametrize("argv, match", [
    (["noise", "LABELS", "missing.parquet", "--rate", "0.1"], "no such file"),
    (["noise", "LABELS", "BAD", "--rate", "0.1"], "has 20 ids for 5 rows"),
    (["voters", "missing.npz", "--votes", "3"], "no such score file"),
    (["separability", "missing.npz", "--noisy", "LABELS"], "needs columns label and changed"),
])
def test_cli_bad_input_one_line(tmp_path, capsys, argv, match):
    labels, emb = _data(n=20)
    pd.DataFrame({"id": range(20), "label": labels}).to_csv(tmp_path / "labels.csv",
                                                            index=False)
    np.save(tmp_path / "bad.npy", emb[:5])
    argv = [str(tmp_path / "labels.csv") if a == "LABELS" else
            str(tmp_path / "bad.npy") if a == "BAD" else
            str(tmp_path / a) if a.startswith("missing") else a for a in argv]
    status, _out, err = _run(capsys, "simulate", *argv)
    assert status == 1
    assert match in err and len(err.strip().splitlines()) == 1
