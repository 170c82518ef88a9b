"""Span statistics per document, their bootstrap over documents, and its coverage (SPEC §7)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement import span_intervals
from agreement.spans import (
    Spans,
    document_statistics,
    read_conll,
    span_agreement,
    token_agreement,
    unitizing_alpha,
)
from simulation import simulate_spans


@pytest.fixture(scope="module")
def sim():
    return simulate_spans(40, n_annotators=3, tokens_per_document=60, spans_per_document=5,
                          boundary_error=0.2, label_error=0.1, miss_rate=0.1, rng=7)


@pytest.mark.parametrize("match", ["exact", "overlap", "iou"])
def test_rows_add_up_to_the_statistics_on_all_documents(sim, match):
    ds = document_statistics(sim.spans, match=match)
    est = dict(zip(ds.statistics, ds.estimate(), strict=True))
    sa = span_agreement(sim.spans, match=match)
    assert est["span_f1"] == pytest.approx(sa.f1)
    for label, row in sa.by_label.iterrows():
        assert est[f"span_f1[{label}]"] == pytest.approx(row["f1"])
    ua = unitizing_alpha(sim.spans)
    assert est["unitizing_alpha"] == pytest.approx(ua.alpha)
    assert est["unitizing_alpha_binary"] == pytest.approx(ua.binary_alpha)
    assert est["unitizing_alpha_coding"] == pytest.approx(ua.coding_alpha)
    table = token_agreement(sim.spans)
    assert est["token_fleiss_kappa"] == pytest.approx(table.loc["Fleiss' kappa", "value"])
    assert est["token_krippendorff_alpha"] == pytest.approx(
        table.loc["Krippendorff's alpha (nominal)", "value"])
    assert est["token_gwet_ac1"] == pytest.approx(table.loc["Gwet's AC1", "value"])


def test_one_document_alone_and_the_callers_order(sim):
    names = ["unitizing_alpha", "span_f1", "token_cohen_kappa"]
    two = Spans(sim.spans.frame[sim.spans.frame["annotator"] != "ann3"],
                coverage=[p for p in sim.spans.coverage if p[0] != "ann3"], unit="token",
                lengths=sim.spans.lengths)
    ds = document_statistics(two, names)
    assert ds.statistics == tuple(names)
    one = two.frame[two.frame["document"] == 3]
    alone = Spans(one, coverage=[p for p in two.coverage if p[1] == 3], unit="token",
                  lengths={3: 60})
    got = ds.finalize(ds.values[ds.documents.index(3)])
    assert got[0] == pytest.approx(unitizing_alpha(alone).alpha)
    assert got[1] == pytest.approx(span_agreement(alone).f1)
    assert got[2] == pytest.approx(token_agreement(alone).loc["Cohen's kappa", "value"])


def test_intervals_are_paired_seeded_and_resample_documents(sim):
    res = span_intervals(sim.spans, n_resamples=300, rng=3)
    again = span_intervals(sim.spans, n_resamples=300, rng=3)
    np.testing.assert_array_equal(res.bootstrap_distribution, again.bootstrap_distribution)
    assert res.n_items == 40
    assert "span_f1" in res.statistics and "token_fleiss_kappa" in res.statistics
    lo, hi = res.interval
    assert np.all(lo <= res.estimate) and np.all(res.estimate <= hi)
    # paired: the difference of two statistics has its own interval
    d = res.difference("unitizing_alpha", "span_f1")
    assert d.estimate[0] == pytest.approx(res.estimate[res.statistics.index("unitizing_alpha")]
                                          - res.estimate[0])
    bca = span_intervals(sim.spans, ["span_f1", "unitizing_alpha"], n_resamples=300, rng=3,
                         method="bca")
    assert np.all(np.isfinite(bca.interval.low))
    # a resample is a draw of whole documents: a document drawn twice counts twice
    ds = document_statistics(sim.spans, ["span_f1"])
    twice = ds.finalize(ds.values.sum(axis=0) + ds.values[0])[0]
    assert twice != pytest.approx(ds.estimate()[0])


def test_refusals(sim):
    with pytest.raises(ValueError, match="names 'span_f2', not one of"):
        span_intervals(sim.spans, ["span_f2"])
    with pytest.raises(ValueError, match="names a statistic twice"):
        document_statistics(sim.spans, ["span_f1", "span_f1"])
    chars = Spans(pd.DataFrame({"document": ["d", "d"], "start": [0, 0], "end": [3, 3],
                                "label": ["X", "X"], "annotator": ["a", "b"]}))
    with pytest.raises(ValueError, match="token_fleiss_kappa needs token offsets"):
        document_statistics(chars, ["token_fleiss_kappa"])
    assert "token_fleiss_kappa" not in document_statistics(chars).statistics
    with pytest.raises(ValueError, match="`match` must be one of"):
        span_intervals(sim.spans, match="exactly")
    with pytest.raises(TypeError, match="`spans` must be Spans"):
        document_statistics(sim.spans.frame)


def test_generator_errors_follow_their_rates():
    clean = simulate_spans(200, n_annotators=2, boundary_error=0, label_error=0, miss_rate=0,
                           rng=1)
    assert span_agreement(clean.spans).f1 == 1.0 and unitizing_alpha(clean.spans).alpha == 1.0
    labels_only = simulate_spans(300, n_annotators=2, boundary_error=0, label_error=0.2,
                                 miss_rate=0, rng=2)
    ua = unitizing_alpha(labels_only.spans)
    assert ua.binary_alpha == 1.0 and ua.coding_alpha < 0.8
    # each annotator against the truth: recall 1 − miss_rate, exact F1 hit by boundaries
    s = simulate_spans(400, n_annotators=2, boundary_error=0.2, label_error=0.0,
                       miss_rate=0.1, rng=3)
    both = Spans.concat([s.truth, Spans(s.spans.frame[s.spans.frame["annotator"] == "ann1"],
                                        coverage=[p for p in s.spans.coverage
                                                  if p[0] == "ann1"], unit="token",
                                        lengths=s.spans.lengths)])
    row = span_agreement(both, match="overlap").pairs.iloc[0]
    recall = row["recall"] if row.name[0] == "truth" else row["precision"]
    assert recall == pytest.approx(0.9, abs=0.02)
    with pytest.raises(ValueError, match="spans_per_document` must be at most"):
        simulate_spans(2, tokens_per_document=10, spans_per_document=6)


@pytest.mark.parametrize("n_sets", [pytest.param(400, marks=pytest.mark.slow), 100])
def test_document_bootstrap_covers_at_95_percent(n_sets):
    # 400 data sets of 60 documents (100 tokens, 5 spans, three annotators with boundary,
    # label and miss errors); the true values from one data set of 5,000 documents (their
    # own error, about a ninth of a 60-document data set's standard error, moves the
    # coverage by well under a point; 20,000 documents cost 3 s more of CPU).
    names = ["span_f1", "span_f1[PER]", "unitizing_alpha", "unitizing_alpha_binary",
             "unitizing_alpha_coding", "token_fleiss_kappa"]
    kw = {"n_annotators": 3, "tokens_per_document": 100, "spans_per_document": 5,
          "boundary_error": 0.15, "label_error": 0.1, "miss_rate": 0.1}
    truth = document_statistics(simulate_spans(5_000, rng=12345, **kw).spans,
                                names).estimate()
    hits = np.zeros(len(names), dtype=np.int64)
    for r in range(n_sets):
        res = span_intervals(simulate_spans(60, rng=1000 + r, **kw).spans, names,
                             n_resamples=400, rng=r)
        hits += (res.interval.low <= truth) & (truth <= res.interval.high)
    coverage = hits / n_sets
    for name, h, c in zip(names, hits, coverage, strict=True):
        assert c >= (0.93 if n_sets >= 400 else 0.88), (name, c)  # 0.88: 3 SDs at 100
        assert scipy.stats.binomtest(int(h), n_sets, 0.95).pvalue > 0.001, (name, c)


def test_command_line_shows_the_unitizing_split_and_intervals(tmp_path, capsys):
    from goldnoise._cli import main

    (tmp_path / "t.conll").write_text(4 * (
        "-DOCSTART- O O\n\nAda B-PER B-PER\nLovelace I-PER O\nmet O O\nBabbage B-PER B-PER\n"
        "in O O\nLondon B-LOC B-ORG\n\n-DOCSTART- O O\n\nParis B-LOC B-LOC\nis O O\n\n"
        "-DOCSTART- O O\n\nBob B-PER B-PER\nsaw O O\nAnn B-PER O\n\n"))  # 12 documents
    args = ["spans", str(tmp_path / "t.conll"), "--from", "conll", "--annotators", "a", "b",
            "--format", "json"]
    assert main([*args, "--bootstrap", "200", "--seed", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    u = report["sections"]["unitizing"]["values"]
    s = read_conll(tmp_path / "t.conll", annotators=["a", "b"])
    ua = unitizing_alpha(s)
    assert u["alpha"] == pytest.approx(ua.alpha)
    assert u["boundary_disagreement"] + u["label_disagreement"] == pytest.approx(1 - ua.alpha)
    rows = report["sections"]["bootstrap"]["tables"]["intervals"]["rows"]
    got = {r["statistic"]: (r["low"], r["high"]) for r in rows}
    want = span_intervals(s, n_resamples=200, rng=3)
    for name, lo, hi in zip(want.statistics, want.interval.low, want.interval.high,
                            strict=True):
        assert got[name] == pytest.approx((lo, hi), nan_ok=True)
    assert report["sections"]["agreement"]["values"]["f1_low"] == got["span_f1"][0]
    # without --bootstrap: no interval section
    assert main(args) == 0
    assert "bootstrap" not in json.loads(capsys.readouterr().out)["sections"]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["d1", "d2"]), st.integers(0, 20), st.integers(1, 6),
                          st.sampled_from(["A", "B"]), st.sampled_from(["x", "y"])),
                min_size=1, max_size=30),
       st.sampled_from(["exact", "overlap", "iou"]), st.sampled_from([0.3, 0.5, 0.8]))
def test_vectorised_matching_equals_the_assignment_group_by_group(rows, match, threshold):
    # The reference: for each document and label, the largest one-to-one matching by
    # the Hungarian algorithm over every pair of the two annotators' spans.
    from scipy.optimize import linear_sum_assignment

    rows = [(d, s, s + w, lab, a) for d, s, w, lab, a in rows]
    cov = [(a, d) for a in "xy" for d in ("d1", "d2")]
    spans = Spans(pd.DataFrame(rows, columns=["document", "start", "end", "label",
                                              "annotator"]), coverage=cov)
    tp = 0
    for d in ("d1", "d2"):
        for lab in ("A", "B"):
            a = [(s, e) for dd, s, e, ll, who in rows if (dd, ll, who) == (d, lab, "x")]
            b = [(s, e) for dd, s, e, ll, who in rows if (dd, ll, who) == (d, lab, "y")]
            if not a or not b:
                continue
            ok = np.zeros((len(a), len(b)), dtype=bool)
            for i, (s1, e1) in enumerate(a):
                for j, (s2, e2) in enumerate(b):
                    inter = max(0, min(e1, e2) - max(s1, s2))
                    union = max(e1, e2) - min(s1, s2)
                    ok[i, j] = ((s1, e1) == (s2, e2) if match == "exact" else inter > 0
                                if match == "overlap" else inter / union >= threshold)
            r, c = linear_sum_assignment(ok.astype(float), maximize=True)
            tp += int(ok[r, c].sum())
    assert span_agreement(spans, match=match, threshold=threshold).pairs["tp"].sum() == tp


def test_fewer_than_ten_documents_resample_sentences_or_are_refused(tmp_path, capsys):
    from agreement import GoldnoiseWarning
    from goldnoise._cli import main

    # one document (one -DOCSTART-) of 12 sentences, as a Label Studio CoNLL export writes
    sentence = "Ada B-PER B-PER\nLovelace I-PER O\nmet O O\nParis B-LOC B-ORG\n\n"
    (tmp_path / "one.conll").write_text("-DOCSTART- O O\n\n" + 12 * sentence)
    s = read_conll(tmp_path / "one.conll", annotators=["a", "b"])
    assert len(s.documents) == 1 and s.sentences == {"one:1": (4,) * 12}
    with pytest.warns(GoldnoiseWarning, match="only 1 document.*resamples their 12 sentences"):
        res = span_intervals(s, ["span_f1"], n_resamples=200, rng=0)
    assert res.n_items == 12 and "12 sentences" in res.notes[0]
    # every sentence alike: the interval is the estimate, but from 12 units, not one
    assert res.estimate[0] == pytest.approx(span_agreement(s).f1)
    # a few sentences and no documents: refused, saying why (no zero-width interval)
    (tmp_path / "few.conll").write_text("-DOCSTART- O O\n\n" + 3 * sentence)
    with pytest.raises(ValueError, match="needs at least 10 documents; these spans have 1 and "
                                         "3 sentences"):
        span_intervals(read_conll(tmp_path / "few.conll"), n_resamples=50)
    chars = Spans(pd.DataFrame({"document": ["d", "d"], "start": [0, 0], "end": [3, 3],
                                "label": ["X", "X"], "annotator": ["a", "b"]}))
    with pytest.raises(ValueError, match="have 1 and their sentences are not known"):
        span_intervals(chars, n_resamples=50)
    assert main(["spans", str(tmp_path / "one.conll"), "--from", "conll", "--bootstrap",
                 "100"]) == 0
    out = capsys.readouterr().out
    assert "100 resamples of 12 sentences" in out and "resamples their 12 sentences" in out
    assert main(["spans", str(tmp_path / "few.conll"), "--from", "conll", "--bootstrap",
                 "100"]) == 1
    err = capsys.readouterr().err
    assert "needs at least 10 documents" in err and len(err.strip().splitlines()) == 1
