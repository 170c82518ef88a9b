"""Krippendorff's α_u against a slow reference written from its definition, and the
cases that other tools get wrong (SPEC §7)."""

from __future__ import annotations

import math
import warnings
from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement import DegenerateDataWarning, GoldnoiseWarning, Ratings, krippendorff_alpha
from agreement.spans import Spans, unitizing_alpha

COLS = ["document", "start", "end", "label", "annotator"]
GAP = None


def _spans(rows, coverage=None, lengths=None):
    return Spans(pd.DataFrame(rows, columns=COLS), coverage=coverage, lengths=lengths)


# -- the reference: Krippendorff et al. (2016), pairs of segments, one at a time -------------

def _partition(units, length):
    """An annotator's segments of one document: (start, end, value), gaps valued None.

    Overlapping units: the one that starts first (then the longer) keeps the shared part.
    """
    segs, reach = [], 0
    for start, end, label in sorted(units, key=lambda u: (u[0], -u[1])):
        start = max(start, reach)
        if start >= end:
            continue
        if start > reach:
            segs.append((reach, start, GAP))
        segs.append((start, end, label))
        reach = end
    if reach < length:
        segs.append((reach, length, GAP))
    return segs


def _expected(marg, corr):
    total = sum(marg.values())
    denom = total**2 - sum(corr.values())
    if denom <= 0:
        return dict.fromkeys(marg, math.nan)
    return {c: total * (marg[c] ** 2 - corr.get(c, 0.0)) / denom for c in marg}


def reference(spans):
    """α_u, |u|α, cuα and the split, straight from the definition (slow)."""
    f = spans.frame
    docs = {}
    for a, d in spans.coverage:
        docs.setdefault(d, []).append(a)
    coinc, corr, corr_star = {}, {}, {}
    for d, anns in docs.items():
        m = len(anns)
        if m < 2:
            continue
        ends = f.loc[f["document"] == d, "end"]
        length = spans.lengths.get(d, int(ends.max()) if len(ends) else 0)
        parts = {a: _partition([(s, e, lab) for s, e, lab in f.loc[
            (f["document"] == d) & (f["annotator"] == a), ["start", "end", "label"]
        ].itertuples(index=False, name=None)], length) for a in anns}
        for i in anns:
            for j in anns:
                if i == j:
                    continue
                for gs, ge, gv in parts[i]:
                    for hs, he, hv in parts[j]:
                        inter = max(0, min(ge, he) - max(gs, hs))
                        if inter:
                            coinc[gv, hv] = coinc.get((gv, hv), 0.0) + inter / (m - 1)
        for i in anns:
            others = [p for a, p in parts.items() if a != i]
            for s, e, v in parts[i]:
                corr[v] = corr.get(v, 0.0) + ((e - s) if v is GAP else (e - s) ** 2)
                if v is GAP:
                    continue
                pairable = sum(1 for x in range(s, e) if any(
                    ps <= x < pe and pv is not GAP for p in others for ps, pe, pv in p))
                corr_star[v] = corr_star.get(v, 0.0) + pairable**2
    values = {c for c, _ in coinc} | {k for _, k in coinc}
    if not values:
        return dict.fromkeys(["alpha", "binary", "coding", "boundary", "label"], math.nan)
    marg = {c: sum(coinc.get((c, k), 0.0) for k in values) for c in values}
    total = sum(marg.values())
    e = _expected(marg, corr)
    d_o = total - sum(coinc.get((c, c), 0.0) for c in values)
    d_e = total - sum(e.values())
    labels = values - {GAP}
    # |u|α: labels merged into one value, the units kept as they are
    uu = sum(coinc.get((c, k), 0.0) for c in labels for k in labels)
    m_u = sum(marg[c] for c in labels)
    denom = total**2 - sum(corr.values())
    e_gap = e.get(GAP, 0.0)
    e_uu = total * (m_u**2 - sum(corr.get(c, 0.0) for c in labels)) / denom
    d_o_b = total - coinc.get((GAP, GAP), 0.0) - uu
    d_e_b = total - e_gap - e_uu
    # cuα: the label x label block
    marg_s = {c: sum(coinc.get((c, k), 0.0) for k in labels) for c in labels}
    tot_s = sum(marg_s.values())
    d_o_c = tot_s - sum(coinc.get((c, c), 0.0) for c in labels)
    if tot_s > 0:
        e_s = _expected(marg_s, corr_star)
        d_e_c = tot_s - sum(e_s.values())
    else:
        d_e_c = 0.0

    def ratio(a, b):
        return math.nan if b <= 0 or math.isnan(b) else a / b

    return {"alpha": 1 - ratio(d_o, d_e), "binary": 1 - ratio(d_o_b, d_e_b),
            "coding": 1 - ratio(d_o_c, d_e_c), "boundary": ratio(d_o_b, d_e),
            "label": ratio(d_o_c, d_e)}


def _check(res, ref):
    got = {"alpha": res.alpha, "binary": res.binary_alpha, "coding": res.coding_alpha,
           "boundary": res.boundary_disagreement, "label": res.label_disagreement}
    for k, v in ref.items():
        assert got[k] == pytest.approx(v, abs=1e-9, nan_ok=True), k


def _quiet(spans):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoldnoiseWarning)
        return unitizing_alpha(spans)


# -- equal to the reference on random cases -------------------------------------------------

_row = st.tuples(st.sampled_from(["d1", "d2", "d3"]), st.integers(0, 25), st.integers(1, 6),
                 st.sampled_from(["A", "B", "C"]), st.sampled_from(["x", "y", "z"]))


@settings(max_examples=examples(120), deadline=None)
@given(st.lists(_row, min_size=1, max_size=18),
       st.sets(st.tuples(st.sampled_from(["x", "y", "z"]), st.sampled_from(["d1", "d2", "d3"]))),
       st.booleans())
def test_equals_the_reference_on_random_cases(rows, extra, known_length):
    rows = [(d, s, s + w, lab, a) for d, s, w, lab, a in rows]
    lengths = {"d1": 31, "d2": 40, "d3": 33} if known_length else None
    spans = _spans(rows, coverage=extra, lengths=lengths)
    if len(spans.annotators) < 2:
        return
    _check(_quiet(spans), reference(spans))


def test_reference_agrees_on_a_case_by_hand():
    # a: PER [0,3), ORG [10,14); b: PER [0,3), LOC [11,14); 20 characters
    rows = [("d", 0, 3, "PER", "a"), ("d", 10, 14, "ORG", "a"),
            ("d", 0, 3, "PER", "b"), ("d", 11, 14, "LOC", "b")]
    s = _spans(rows, lengths={"d": 20})
    res = unitizing_alpha(s)
    # coincidences by hand: ∅∅ 2 × 13, PER 2 × 3, ORG–LOC 3 each way, ORG–∅ 1 each way
    c = res.coincidences
    assert (c.loc["∅", "∅"], c.loc["PER", "PER"], c.loc["ORG", "LOC"], c.loc["ORG", "∅"]) == (
        26.0, 6.0, 3.0, 1.0)
    # ℓ.. = 40; corr: ∅ 27, PER 9 + 9, ORG 16, LOC 9; denominator 40² − 70 = 1530
    e = {"∅": 40 * (27**2 - 27) / 1530, "PER": 40 * (36 - 18) / 1530,
         "ORG": 40 * (16 - 16) / 1530, "LOC": 40 * (9 - 9) / 1530}
    assert res.alpha == pytest.approx(1 - (40 - 32) / (40 - sum(e.values())))
    # cuα: block PER 6, ORG 3, LOC 3; pairable parts 3, 3, 3, 3: e*_PER = 12·18/108 = 2
    assert res.coding_alpha == pytest.approx(1 - 6 / 10)
    _check(res, reference(s))


# -- what it must and must not do -----------------------------------------------------------

def test_identical_annotations_give_one():
    rng = np.random.default_rng(3)
    rows = []
    for d in range(20):
        for s in np.sort(rng.choice(90, 6, replace=False))[::2]:
            rows.append((d, int(s), int(s) + 3, ["A", "B"][d % 2], "a"))
    rows += [(d, s, e, lab, "b") for d, s, e, lab, _ in rows]
    res = unitizing_alpha(_spans(rows, lengths=dict.fromkeys(range(20), 100)))
    assert res.alpha == 1.0 and res.binary_alpha == 1.0 and res.coding_alpha == 1.0
    assert res.boundary_disagreement == 0.0 and res.label_disagreement == 0.0


def test_independent_random_spans_give_about_zero():
    from simulation import simulate_spans

    sim = simulate_spans(400, n_annotators=3, tokens_per_document=200, spans_per_document=8,
                         labels=("PER", "ORG", "LOC"), independent=True, rng=11)
    res = unitizing_alpha(sim.spans)
    assert abs(res.alpha) < 0.03 and abs(res.binary_alpha) < 0.03
    assert abs(res.coding_alpha) < 0.05


def test_exact_match_agrees_more_than_a_one_token_overlap():
    # INCEpTION #5305: one annotator 5 spans, the other 1; 0.40 for the exact match and 0.42
    # for a match one token off there. Here exact must beat off-by-one.
    a = [("d", s, s + 2, "X", "a") for s in (0, 10, 20, 30, 40)]
    exact = unitizing_alpha(_spans([*a, ("d", 20, 22, "X", "b")], lengths={"d": 50}))
    off = unitizing_alpha(_spans([*a, ("d", 20, 23, "X", "b")], lengths={"d": 50}))
    assert exact.alpha > off.alpha
    assert exact.binary_alpha > off.binary_alpha


def test_documents_that_no_two_annotators_share_give_nan_not_one():
    # INCEpTION #2219: A annotated only document 1, B only document 2 -> α_u 1.0 there.
    s = _spans([("1", 0, 3, "X", "A"), ("2", 0, 3, "X", "B")], lengths={"1": 7, "2": 8})
    with pytest.warns(DegenerateDataWarning, match="no document is annotated by two"):
        res = unitizing_alpha(s)
    assert math.isnan(res.alpha) and res.n_documents == 0
    assert "left out" in res.notes[0]


def test_completely_different_annotations_of_one_document_disagree():
    s = _spans([("d", 0, 3, "X", "A"), ("d", 4, 8, "X", "B")], lengths={"d": 8})
    assert unitizing_alpha(s).alpha < 0


def test_units_of_length_one_make_it_nominal_alpha_over_positions():
    rng = np.random.default_rng(5)
    n, m = 60, 3
    table = rng.choice(["∅", "A", "B"], size=(n, m), p=[0.5, 0.3, 0.2])
    same = rng.random(n) < 0.5  # some positions unanimous
    table[same] = table[same][:, :1]
    rows = [("d", i, i + 1, table[i, j], f"r{j}") for i in range(n) for j in range(m)
            if table[i, j] != "∅"]
    res = unitizing_alpha(_spans(rows, coverage=[(f"r{j}", "d") for j in range(m)],
                                 lengths={"d": n}))
    ref = krippendorff_alpha(Ratings.from_wide(pd.DataFrame(table))).value
    assert res.alpha == pytest.approx(ref, abs=1e-12)


def test_invariant_to_span_order_annotator_names_and_label_names():
    rows = [("d1", 0, 4, "A", "x"), ("d1", 2, 6, "B", "y"), ("d1", 8, 9, "A", "z"),
            ("d2", 1, 5, "B", "x"), ("d2", 1, 5, "B", "y"), ("d2", 0, 2, "A", "z")]
    base = unitizing_alpha(_spans(rows, lengths={"d1": 12, "d2": 9}))
    for perm in permutations(range(len(rows)), len(rows)):
        if perm[0] > 1:
            break
        got = unitizing_alpha(_spans([rows[i] for i in perm], lengths={"d1": 12, "d2": 9}))
        assert got.alpha == pytest.approx(base.alpha, abs=1e-12)
    names = {"x": "q", "y": "p", "z": "o"}
    labels = {"A": "Z", "B": "Y"}
    renamed = [(d, s, e, labels[lab], names[a]) for d, s, e, lab, a in rows]
    got = unitizing_alpha(_spans(renamed, lengths={"d1": 12, "d2": 9}))
    for f in ("alpha", "binary_alpha", "coding_alpha", "boundary_disagreement"):
        assert getattr(got, f) == pytest.approx(getattr(base, f), abs=1e-12)


def test_an_annotator_who_saw_a_document_and_marked_nothing_disagrees():
    rows = [("d", 0, 3, "X", "a"), ("d", 0, 3, "X", "b")]
    full = unitizing_alpha(_spans(rows, lengths={"d": 10}))
    third = unitizing_alpha(_spans(rows, coverage=[("c", "d")], lengths={"d": 10}))
    assert full.alpha == 1.0 and third.alpha < 1.0
    assert third.n_annotators == 3


def test_overlapping_spans_of_one_annotator_warn_and_follow_the_rule():
    rows = [("d", 0, 6, "A", "a"), ("d", 4, 9, "B", "a"), ("d", 0, 6, "A", "b"),
            ("d", 6, 9, "B", "b")]
    with pytest.warns(GoldnoiseWarning, match="1 span.* overlap an earlier span"):
        res = unitizing_alpha(_spans(rows, lengths={"d": 10}))
    assert res.alpha == 1.0  # a's B span becomes [6, 9), as b marked it
    assert "earlier keeps the shared offsets" in res.notes[0]


def test_refusals():
    with pytest.raises(TypeError, match="`spans` must be Spans"):
        unitizing_alpha(pd.DataFrame())
    with pytest.raises(ValueError, match="at least two annotators"):
        unitizing_alpha(_spans([("d", 0, 1, "X", "a")]))
    with pytest.raises(ValueError, match="ends at 12, past the document's 10"):
        unitizing_alpha(_spans([("d", 0, 12, "X", "a"), ("d", 0, 1, "X", "b")],
                               lengths={"d": 10}))
