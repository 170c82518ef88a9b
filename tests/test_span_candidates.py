"""Candidate spans as items (SPEC §7, "Noise"): hand-computed tables, invariance, the models on them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement.spans import Spans, candidate_ratings
from noise_models import EasyHardModel, LatentClassModel, noise_bound

COLUMNS = ["document", "start", "end", "label", "annotator"]


def _spans(rows, coverage=None):
    return Spans(pd.DataFrame(rows, columns=COLUMNS), coverage=coverage)


def _table(res):
    """The candidates as (document, start, end, {annotator: rating}) tuples, NaN left out."""
    out = []
    for _, row in res.to_frame().iterrows():
        ratings = {a: row[a] for a in res.ratings.raters if isinstance(row[a], str)}
        out.append((row["document"], row["start"], row["end"], ratings))
    return out


def test_exact_candidates_with_an_annotator_missing_a_document():
    # c annotated d2 only: on d1 c is missing, not "no entity"
    s = _spans([("d1", 0, 5, "PER", "a"), ("d1", 10, 14, "ORG", "a"),
                ("d1", 0, 5, "PER", "b"), ("d1", 11, 14, "ORG", "b"),
                ("d2", 3, 6, "LOC", "c"), ("d2", 3, 6, "LOC", "a")],
               coverage=[("b", "d2")])
    res = candidate_ratings(s)
    none = "no entity"
    assert _table(res) == [
        ("d1", 0, 5, {"a": "PER", "b": "PER"}),
        ("d1", 10, 14, {"a": "ORG", "b": none}),
        ("d1", 11, 14, {"a": none, "b": "ORG"}),
        ("d2", 3, 6, {"a": "LOC", "b": none, "c": "LOC"}),
    ]
    assert res.candidates["n_marked"].tolist() == [2, 1, 1, 2]
    assert res.candidates["n_rated"].tolist() == [2, 2, 2, 3]
    # agreed: two or more ratings, all one category -> only the PER candidate
    assert res.ratings.agreed.tolist() == [True, False, False, False]
    assert res.ratings.ratings_per_item.tolist() == [2, 2, 2, 3]
    # under the overlap rule the ORG spans are one candidate, agreed
    over = candidate_ratings(s, match="overlap")
    assert _table(over)[1] == ("d1", 10, 14, {"a": "ORG", "b": "ORG"})
    assert over.ratings.agreed.sum() == 2


def test_nested_spans_of_one_annotator_stay_separate_candidates():
    # a marks a name and its first part; b the name only. Under overlap a's inner span
    # matches the name's candidate, but a already has a span there: it founds its own.
    s = _spans([("d", 0, 12, "name", "a"), ("d", 0, 3, "name.first", "a"),
                ("d", 0, 12, "name", "b")])
    res = candidate_ratings(s, match="overlap")
    assert _table(res) == [("d", 0, 3, {"a": "name.first", "b": "no entity"}),
                           ("d", 0, 12, {"a": "name", "b": "name"})]
    # the nested span, too, is merged with b's inner span when b marks one; of two
    # anchors marked once each, the one that starts (then ends) first founds it
    s2 = _spans([("d", 0, 12, "name", "a"), ("d", 0, 3, "name.first", "a"),
                 ("d", 0, 12, "name", "b"), ("d", 0, 2, "name.first", "b")])
    assert _table(candidate_ratings(s2, match="overlap")) == [
        ("d", 0, 2, {"a": "name.first", "b": "name.first"}),
        ("d", 0, 12, {"a": "name", "b": "name"})]


def test_overlap_does_not_chain_and_labels_disagree_within_a_candidate():
    # a [0,4) overlaps b [3,7), b overlaps c [6,10), a and c do not: two candidates,
    # founded by a's span (the first in offset order among equal support) and c's
    s = _spans([("d", 0, 4, "X", "a"), ("d", 3, 7, "Y", "b"), ("d", 6, 10, "X", "c")])
    res = candidate_ratings(s, match="overlap")
    assert _table(res) == [("d", 0, 4, {"a": "X", "b": "Y", "c": "no entity"}),
                           ("d", 6, 10, {"a": "no entity", "b": "no entity", "c": "X"})]
    assert res.spans.set_index("annotator")["candidate"].to_dict() == {"a": 0, "b": 0, "c": 1}


def test_the_most_marked_boundaries_found_the_candidate():
    # b and c marked [2,10) exactly, a [0,10): [2,10) is the anchor, a joins it (IoU 0.8)
    s = _spans([("d", 0, 10, "X", "a"), ("d", 2, 10, "X", "b"), ("d", 2, 10, "X", "c")])
    res = candidate_ratings(s, match="iou", threshold=0.5)
    assert _table(res) == [("d", 2, 10, {"a": "X", "b": "X", "c": "X"})]
    assert res.likely_wrong.__doc__  # the ranking is documented where the table is
    # IoU 0.8 < 0.9: a's span is a candidate of its own
    strict = candidate_ratings(s, match="iou", threshold=0.9)
    assert _table(strict) == [("d", 0, 10, {"a": "X", "b": "no entity", "c": "no entity"}),
                              ("d", 2, 10, {"a": "no entity", "b": "X", "c": "X"})]
    assert strict.threshold == 0.9 and res.threshold == 0.5
    assert candidate_ratings(s, match="overlap").threshold is None


def test_a_span_joins_the_anchor_it_matches_best():
    # a and c mark [0,10) and [20,30) (support 2: these found the candidates); b's [5, 28)
    # overlaps both: IoU 5/28 with [0,10), 8/25 with [20,30)
    s = _spans([("d", 0, 10, "X", "a"), ("d", 20, 30, "X", "a"), ("d", 0, 10, "X", "c"),
                ("d", 20, 30, "X", "c"), ("d", 5, 28, "X", "b")])
    res = candidate_ratings(s, match="overlap")
    assert _table(res) == [("d", 0, 10, {"a": "X", "b": "no entity", "c": "X"}),
                           ("d", 20, 30, {"a": "X", "b": "X", "c": "X"})]
    own = res.spans.set_index(["candidate", "annotator"])
    assert tuple(own.loc[(1, "b"), ["start", "end"]]) == (5, 28)


def test_gamma_of_the_agreed_spans_by_hand():
    # 10 documents; in each, a and b mark one span [0, 3). In d0 a says PER and b ORG, in
    # d1 the reverse, else both PER; in d9 b marks an extra LOC span that a did not:
    # 11 candidates, 3 disagreed, 8 agreed
    rows = []
    for i in range(10):
        rows.append((f"d{i}", 0, 3, "ORG" if i == 1 else "PER", "a"))
        rows.append((f"d{i}", 0, 3, "ORG" if i == 0 else "PER", "b"))
    rows.append(("d9", 5, 7, "LOC", "b"))
    res = candidate_ratings(_spans(rows))
    r = res.ratings
    assert (r.n_items, int(r.agreed.sum())) == (11, 8)
    # chance agreement from the 3 disagreed items (q[j, c] = j's share of c on them):
    # a: PER, ORG, no entity 1/3 each; b: ORG, PER, LOC 1/3 each -> p = 1/9 + 1/9 = 2/9
    res_gamma = noise_bound(r)
    assert (res_gamma.n, res_gamma.d) == (11, 3)
    assert res_gamma.p == pytest.approx(2 / 9)
    assert res_gamma.gamma == noise_bound(11, 3, 2 / 9).gamma
    # M1 fitted to the candidates: its γ is the closed form at the fit's own p
    fit = EasyHardModel(rng=0).fit(r)
    p_fit = float(np.sum(np.prod(fit.q, axis=0)))
    assert fit.noise_bound().hidden_hard == noise_bound(11, 3, p_fit).hidden_hard


def test_likely_wrong_ranks_the_odd_span_first():
    # 40 documents where a, b, c mark the same PER span; in d0 c marks an ORG span
    # no one else saw, and in d1 b calls the PER span LOC
    rows = [(f"d{i}", 0, 4, "PER", a) for i in range(40) for a in "abc"]
    rows = [r for r in rows if not (r[0] == "d1" and r[4] == "b")]
    rows += [("d1", 0, 4, "LOC", "b"), ("d0", 6, 9, "ORG", "c")]
    res = candidate_ratings(_spans(rows))
    fit = LatentClassModel("one-coin", rng=0).fit(res.ratings)
    ranked = res.likely_wrong(fit)
    assert len(ranked) == res.ratings.n_ratings
    top = ranked.head(2)[["document", "start", "end", "annotator", "label", "fitted"]]
    assert sorted(map(tuple, top.to_numpy().tolist())) == [
        ("d0", 6, 9, "c", "ORG", "no entity"), ("d1", 0, 4, "b", "LOC", "PER")]
    assert (ranked["p_wrong"].diff().dropna() <= 1e-12).all()
    # a "no entity" rating is placed at the candidate's anchor
    row = ranked[(ranked.document == "d0") & (ranked.annotator == "a") & (ranked.start == 6)]
    assert row["label"].tolist() == ["no entity"]
    assert len(res.likely_wrong(fit, top=3)) == 3


def test_bad_input():
    s = _spans([("d", 0, 4, "X", "a"), ("d", 0, 4, "X", "b")])
    with pytest.raises(TypeError, match="`spans` must be Spans"):
        candidate_ratings(pd.DataFrame())
    with pytest.raises(ValueError, match="`match`"):
        candidate_ratings(s, match="overlaps")
    with pytest.raises(ValueError, match="`threshold`"):
        candidate_ratings(s, match="iou", threshold=0.0)
    with pytest.raises(TypeError, match="`none_label`"):
        candidate_ratings(s, none_label="")
    with pytest.raises(ValueError, match="is `none_label`"):
        candidate_ratings(_spans([("d", 0, 4, "O", "a")]), none_label="O")
    with pytest.raises(ValueError, match="no spans"):
        candidate_ratings(Spans(pd.DataFrame(columns=COLUMNS)))
    res = candidate_ratings(s)
    other = candidate_ratings(_spans([("d", 0, 4, "X", "a"), ("d", 5, 8, "X", "b")]))
    fit = EasyHardModel(rng=0).fit(other.ratings)
    with pytest.raises(ValueError, match="other ratings"):
        res.likely_wrong(fit)
    with pytest.raises(TypeError, match="latent-class fit"):
        res.likely_wrong(res.ratings)


_span = st.tuples(st.sampled_from(["d1", "d2"]), st.integers(0, 12), st.integers(1, 5),
                  st.sampled_from(["X", "Y"]), st.sampled_from(["a", "b", "c"]))


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(_span, min_size=1, max_size=14), st.randoms(use_true_random=False),
       st.sampled_from([("exact", 0.5), ("overlap", 0.5), ("iou", 0.5), ("iou", 0.3)]))
def test_the_table_does_not_depend_on_the_order_of_the_spans(rows, random, rule):
    rows = [(d, s, s + n, lab, a) for d, s, n, lab, a in rows]
    match, threshold = rule
    first = candidate_ratings(_spans(rows), match=match, threshold=threshold)
    shuffled = list(rows)
    random.shuffle(shuffled)
    second = candidate_ratings(_spans(shuffled), match=match, threshold=threshold)
    pd.testing.assert_frame_equal(first.to_frame(), second.to_frame())
    # every span is in exactly one candidate, at most one span per annotator a candidate,
    # and every candidate has at least one span
    assert len(first.spans) == len(rows)
    assert not first.spans.duplicated(["candidate", "annotator"]).any()
    assert (first.candidates["n_marked"] >= 1).all()
    wide = first.ratings.to_wide().to_numpy(dtype=object)
    marked = np.array([[isinstance(v, str) and v != "no entity" for v in row] for row in wide])
    assert marked.sum(axis=1).tolist() == first.candidates["n_marked"].tolist()


def test_span_noise_is_gamma_and_fit_of_the_candidates():
    # span_noise = candidate_ratings -> noise_bound and a one-coin fit, wired as the
    # command line reports them.
    from agreement.spans import candidate_ratings
    from noise_models import LatentClassModel, noise_bound, span_noise

    rows = []
    for d in range(30):
        for e, start in enumerate((0, 10, 20)):
            for a in "abc":
                label = "PER" if (d + e) % 2 else "ORG"
                if a == "c" and (d * 3 + e) % 5 == 0:
                    label = "LOC"
                rows.append((f"d{d}", start, start + 4, label, a))
    spans = Spans(pd.DataFrame(rows, columns=["document", "start", "end", "label",
                                              "annotator"]))
    res = span_noise(spans)
    cand = candidate_ratings(spans)
    bound = noise_bound(cand.ratings)
    assert (res.n_candidates, res.n_agreed) == (90, 72)
    assert res.gamma == pytest.approx(bound.gamma) and res.hidden_hard == bound.hidden_hard
    fit = LatentClassModel("one-coin", rng=0).fit(cand.ratings)
    wrong = cand.likely_wrong(fit)
    assert res.expected_wrong == pytest.approx(wrong["p_wrong"].sum())
    pd.testing.assert_frame_equal(res.to_frame(), wrong)
    with pytest.raises(TypeError, match="LatentClassModel"):
        span_noise(spans, model="one-coin")
