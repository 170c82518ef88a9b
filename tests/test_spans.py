"""Spans (SPEC §7): the container, the readers, and span agreement by hand-computed cases."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement.spans import (
    Spans,
    decode_tags,
    read_brat,
    read_conll,
    read_jsonl,
    read_labelstudio,
    span_agreement,
)


def _spans(rows, coverage=None):
    return Spans(pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"]),
                 coverage=coverage)


def test_exact_overlap_and_iou_by_hand():
    s = _spans([("d", 0, 10, "X", "a"), ("d", 20, 30, "X", "a"), ("d", 40, 44, "Y", "a"),
                ("d", 0, 10, "X", "b"), ("d", 22, 30, "X", "b"), ("d", 43, 50, "Y", "b")])
    # exact: one X; a's other X and Y are missed (fn 2), b's are extra (fp 2)
    r = span_agreement(s)
    assert (r.pairs[["tp", "fp", "fn"]].iloc[0].tolist()) == [1, 2, 2]
    assert r.f1 == pytest.approx(2 / 6)
    # overlap: all three match
    assert span_agreement(s, match="overlap").f1 == 1.0
    # IoU: [20,30) vs [22,30) = 0.8; [40,44) vs [43,50) = 1/10
    assert span_agreement(s, match="iou", threshold=0.5).f1 == pytest.approx(4 / 6)
    assert span_agreement(s, match="iou", threshold=0.85).f1 == pytest.approx(2 / 6)
    by = span_agreement(s, match="iou", threshold=0.5).by_label
    assert by.loc["X", "f1"] == 1.0 and by.loc["Y", "f1"] == 0.0


def test_nested_labels_match_only_themselves_and_precision_recall():
    s = _spans([("d", 0, 12, "name", "a"), ("d", 0, 3, "name.first", "a"),
                ("d", 0, 12, "name", "b"), ("d", 0, 3, "name", "b")])
    r = span_agreement(s)
    row = r.pairs.iloc[0]
    assert (row.tp, row.fp, row.fn) == (1, 1, 1)
    assert row.precision == 0.5 and row.recall == 0.5
    assert r.by_label.loc["name.first", "fn"] == 1


def test_one_annotator_missing_a_document_is_left_out_of_its_comparisons():
    rows = [("d1", 0, 4, "X", "a"), ("d1", 0, 4, "X", "b"), ("d1", 0, 4, "X", "c"),
            ("d2", 0, 4, "X", "a"), ("d2", 5, 9, "X", "b")]
    # c never saw d2; b saw d2 and marked a different span
    s = _spans(rows, coverage=[("c", "d1")])
    r = span_agreement(s)
    assert r.pairs.loc[("a", "c"), "documents"] == 1
    assert r.pairs.loc[("a", "c"), "f1"] == 1.0
    assert r.pairs.loc[("a", "b"), ["tp", "fp", "fn"]].tolist() == [1, 1, 1]
    # an annotator who saw a document and marked nothing disagrees with every span there
    s2 = _spans(rows, coverage=[("c", "d1"), ("c", "d2")])
    assert span_agreement(s2).pairs.loc[("a", "c"), ["tp", "fn"]].tolist() == [1, 1]


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["d1", "d2"]), st.integers(0, 30),
                          st.integers(1, 8), st.sampled_from(["A", "B"]),
                          st.sampled_from(["x", "y", "z"])), min_size=1, max_size=25),
       st.randoms(use_true_random=False))
def test_agreement_does_not_depend_on_span_order(rows, rnd):
    rows = [(d, s, s + w, lab, ann) for d, s, w, lab, ann in rows]
    cov = [(a, d) for a in "xyz" for d in ("d1", "d2")]
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    for match in ("exact", "overlap", "iou"):
        a = span_agreement(_spans(rows, cov), match=match)
        b = span_agreement(_spans(shuffled, cov), match=match)
        pd.testing.assert_frame_equal(a.pairs, b.pairs)
        assert (np.isnan(a.f1) and np.isnan(b.f1)) or a.f1 == b.f1


def test_decode_tags_schemes_and_repairs():
    with pytest.warns(UserWarning, match="continues no B span; read as B-B"):
        got = decode_tags(["B-A", "I-A", "B-A", "O", "I-B"], where="x")
    assert got == [(0, 2, "A"), (2, 3, "A"), (4, 5, "B")]
    assert decode_tags(["B-A", "I-A", "E-A", "S-B", "U-C", "B-D", "L-D"], scheme="BIOES") == [
        (0, 3, "A"), (3, 4, "B"), (4, 5, "C"), (5, 7, "D")]
    assert decode_tags(["I-A", "I-A", "O", "I-B"], scheme="IO") == [(0, 2, "A"), (3, 4, "B")]
    with pytest.raises(ValueError, match="token 2 has the tag 'PER'"):
        decode_tags(["O", "PER"], where="f")


def test_read_conll_files_and_columns(tmp_path):
    (tmp_path / "a.conll").write_text("-DOCSTART- O\n\nAda B-PER\nmet O\n\nBob B-PER\n\n"
                                      "-DOCSTART- O\n\nParis B-LOC\n")
    (tmp_path / "b.conll").write_text("-DOCSTART- O\n\nAda B-PER\nmet O\n\nBob O\n\n"
                                      "-DOCSTART- O\n\nParis B-ORG\n")
    s = read_conll([tmp_path / "a.conll", tmp_path / "b.conll"], annotators=["a", "b"])
    assert s.unit == "token" and s.documents == [1, 2]
    assert s.of("a", 1)[["start", "end", "label"]].values.tolist() == [[0, 1, "PER"],
                                                                         [2, 3, "PER"]]
    r = span_agreement(s)
    assert r.pairs[["tp", "fp", "fn"]].iloc[0].tolist() == [1, 1, 2]
    (tmp_path / "ragged.conll").write_text("Ada B-PER B-PER\nmet O\n")
    with pytest.raises(ValueError, match=r"ragged.conll, line 2: 2 columns .* ragged"):
        read_conll(tmp_path / "ragged.conll")


def test_read_brat_and_its_refusals(tmp_path):
    (tmp_path / "d.txt").write_text("Ada met Babbage in London.")
    (tmp_path / "d.ann").write_text("T1\tPER 0 3\tAda\nT2\tPER 8 15\tBabbage\n"
                                    "R1\tmet Arg1:T1 Arg2:T2\nT3\tLOC 19 22;23 25\tLon don\n")
    s = read_brat(tmp_path, annotator="x")
    assert s.frame[["start", "end", "label"]].values.tolist() == [
        [0, 3, "PER"], [8, 15, "PER"], [19, 22, "LOC"], [23, 25, "LOC"]]
    (tmp_path / "d.ann").write_text("T1\tPER 0 3\tAda\nT1\tPER 8 15\tBabbage\n")
    with pytest.raises(ValueError, match=r"d.ann, line 2: the id T1 is used twice"):
        read_brat(tmp_path, annotator="x")
    (tmp_path / "d.ann").write_text("T1\tPER 0 300\tAda\n")
    with pytest.raises(ValueError, match=r"past the 26 characters of d\.txt"):
        read_brat(tmp_path, annotator="x")


def test_read_labelstudio_and_jsonl(tmp_path):
    tasks = [{"id": 1, "data": {"text": "Ada met Babbage"}, "annotations": [
        {"completed_by": {"email": "a@x"}, "result": [
            {"type": "labels", "value": {"start": 0, "end": 3, "labels": ["PER"]}},
            {"type": "labels", "value": {"start": 8, "end": 15, "labels": ["PER"]}}]},
        {"completed_by": {"email": "b@x"}, "result": [
            {"type": "labels", "value": {"start": 0, "end": 3, "labels": ["PER"]}}]}]}]
    (tmp_path / "ls.json").write_text(json.dumps(tasks))
    s = read_labelstudio(tmp_path / "ls.json")
    assert s.annotators == ["a@x", "b@x"] and len(s) == 3
    assert span_agreement(s).f1 == pytest.approx(2 / 3)
    (tmp_path / "empty.json").write_text(json.dumps([{"id": 9, "data": {"text": "x"}}]))
    with pytest.raises(ValueError, match="task 9 has no annotations"):
        read_labelstudio(tmp_path / "empty.json")
    bad = [{"id": 2, "data": {"text": "abc"}, "annotations": [{"completed_by": 1, "result": [
        {"type": "labels", "value": {"start": 0, "end": 9, "labels": ["X"]}}]}]}]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="task 2, annotation 1, result 1: a span ends at 9, "
                                         "past the 3 characters"):
        read_labelstudio(tmp_path / "bad.json")
    prodigy = [{"text": "Ada met Babbage", "_input_hash": 5, "_annotator_id": "p1",
                "answer": "accept", "spans": [{"start": 0, "end": 3, "label": "PER"}]},
               {"text": "Ada met Babbage", "_input_hash": 5, "_annotator_id": "p2",
                "answer": "accept", "spans": [{"start": 0, "end": 3, "label": "PER"}]},
               {"text": "x", "_input_hash": 6, "_annotator_id": "p2", "answer": "reject",
                "spans": []}]
    (tmp_path / "p.jsonl").write_text("\n".join(json.dumps(r) for r in prodigy))
    s = read_jsonl(tmp_path / "p.jsonl")
    assert span_agreement(s).f1 == 1.0 and s.documents == [5]
    (tmp_path / "broken.jsonl").write_text('{"id": 1, "text": "a", "label": []}\n{not json}\n')
    with pytest.raises(ValueError, match=r"broken.jsonl, line 2: not JSON"):
        read_jsonl(tmp_path / "broken.jsonl", annotator="a")


def test_container_refusals():
    with pytest.raises(ValueError, match="must end after it starts; row 0"):
        _spans([("d", 5, 5, "X", "a")])
    with pytest.raises(ValueError, match="lacks the column"):
        Spans(pd.DataFrame({"document": ["d"]}))
    with pytest.raises(ValueError, match="at least two annotators"):
        span_agreement(_spans([("d", 0, 1, "X", "a")]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(_spans([("d", 0, 1, "X", "a")])).startswith("Spans(1 spans, 1 annotators")


def test_command_line_spans(tmp_path, capsys):
    from goldnoise._cli import main

    (tmp_path / "t.conll").write_text("-DOCSTART- O\n\nAda B-PER B-PER\nLovelace I-PER O\n"
                                      "met O O\nBabbage B-PER B-PER\nin O O\n"
                                      "London B-LOC B-ORG\n")
    assert main(["spans", str(tmp_path / "t.conll"), "--from", "conll", "--annotators", "a",
                 "b", "--match", "overlap", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sections"]["agreement"]["values"]["f1"] == pytest.approx(2 / 3)
    rows = report["sections"]["agreement"]["tables"]["labels"]["rows"]
    assert {r["label"]: r["f1"] for r in rows} == {"LOC": 0.0, "ORG": 0.0, "PER": 1.0}
    (tmp_path / "bad.conll").write_text("Ada B-PER B-PER\nmet O\n")
    assert main(["spans", str(tmp_path / "bad.conll"), "--from", "conll"]) == 1
    assert "bad.conll, line 2" in capsys.readouterr().err


def test_command_line_noise_section_is_the_results_summary(tmp_path, capsys):
    # One wording: the noise section of `goldnoise spans` prints span_noise's summary().
    # Candidates (overlap): Ada Lovelace/Ada, Babbage, London, Turing, Berlin; agreed by
    # a, b and c: the three PER (London is LOC/ORG, Berlin lacks b).
    from agreement.spans import read_conll
    from goldnoise._cli import main
    from noise_models import span_noise

    path = tmp_path / "t.conll"
    path.write_text("Ada B-PER B-PER B-PER\nLovelace I-PER O I-PER\nmet O O O\n"
                    "Babbage B-PER B-PER B-PER\nin O O O\nLondon B-LOC B-ORG B-LOC\n\n"
                    "Turing B-PER B-PER B-PER\nin O O O\nBerlin B-LOC O B-LOC\n")
    assert main(["spans", str(path), "--from", "conll", "--annotators", "a", "b", "c",
                 "--match", "overlap"]) == 0
    printed = capsys.readouterr().out.splitlines()
    summary = span_noise(read_conll(path, annotators=["a", "b", "c"]),
                         match="overlap").summary().splitlines()
    assert summary[0].startswith("5 candidate spans (overlap match), 3 agreed")
    assert "latent-class fit (one-coin Dawid–Skene)" in summary[-1]
    start = printed.index("  " + summary[0])
    assert printed[start:start + len(summary)] == ["  " + line for line in summary]


def test_token_agreement_is_the_coefficients_on_the_bio_table(tmp_path):
    from agreement import Ratings, cohen_kappa, krippendorff_alpha
    from agreement.spans import token_agreement, token_ratings

    (tmp_path / "t.conll").write_text(
        "-DOCSTART- O O\n\nAda B-PER B-PER\nLovelace I-PER O\nmet O O\nBabbage B-PER B-PER\n"
        "in O O\nLondon B-LOC B-ORG\n\n-DOCSTART- O O\n\nParis B-LOC B-LOC\nis O O\n")
    s = read_conll(tmp_path / "t.conll", annotators=["a", "b"])
    assert s.lengths == {"t:1": 6, "t:2": 2}
    table = pd.DataFrame({
        "a": ["B-PER", "I-PER", "O", "B-PER", "O", "B-LOC", "B-LOC", "O"],
        "b": ["B-PER", "O", "O", "B-PER", "O", "B-ORG", "B-LOC", "O"]})
    by_hand = Ratings.from_wide(table)
    r = token_ratings(s)
    assert r.n_items == 8 and list(r.raters) == ["a", "b"]
    got = token_agreement(s)
    assert got.loc["Cohen's kappa", "value"] == pytest.approx(cohen_kappa(by_hand).value)
    assert got.loc["Cohen's kappa", "standard_error"] == pytest.approx(
        cohen_kappa(by_hand).standard_error)
    assert got.loc["Krippendorff's alpha (nominal)", "value"] == pytest.approx(
        krippendorff_alpha(by_hand).value)
    char = _spans([("d", 0, 3, "X", "a"), ("d", 0, 3, "X", "b")])
    with pytest.raises(ValueError, match="needs token offsets"):
        token_agreement(char)
    no_len = Spans(char.frame, unit="token")
    with pytest.raises(ValueError, match="length of 1 document"):
        token_agreement(no_len)


def test_annotators_who_marked_nothing_agree_there_is_no_entity(tmp_path, capsys):
    from agreement import DegenerateDataWarning
    from agreement.spans import unitizing_alpha
    from goldnoise._cli import main

    (tmp_path / "none.conll").write_text("Ada O O\nmet O O\n\nBob O O\n\nEve O O\n")
    s = read_conll(tmp_path / "none.conll")
    r = span_agreement(s)
    assert np.isnan(r.f1) and r.notes and "F1 is undefined" in r.notes[0]
    assert (r.n_both_empty, r.n_one_empty, r.no_entity_agreement) == (3, 0, 1.0)
    with pytest.warns(DegenerateDataWarning, match="no annotator marked a unit"):
        ua = unitizing_alpha(s)
    assert np.isnan(ua.alpha) and "no annotator marked a unit" in ua.notes[-1]
    # one document where only b marks a span: 2 both-empty, 1 one-empty -> 2*2 / (2*2 + 1)
    (tmp_path / "one.conll").write_text("Ada O B-PER\nmet O O\n\nBob O O\n\nEve O O\n")
    r = span_agreement(read_conll(tmp_path / "one.conll"))
    assert r.f1 == 0.0 and (r.n_both_empty, r.n_one_empty) == (2, 1)
    assert r.no_entity_agreement == pytest.approx(0.8)
    assert main(["spans", str(tmp_path / "none.conll"), "--from", "conll", "--format",
                 "json"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    sec = report["sections"]["agreement"]
    assert sec["values"]["no_entity_agreement"] == 1.0
    assert report["sections"]["unitizing"]["status"] == "undefined"
    assert "no annotator marked a unit" in report["sections"]["unitizing"]["reason"]
    assert report["sections"]["noise"]["status"] == "undefined"
    assert main(["spans", str(tmp_path / "none.conll"), "--from", "conll"]) == 0
    assert "pooled F1 undefined" in capsys.readouterr().out
    assert main(["spans", str(tmp_path / "none.conll"), "--from", "conll", "--bootstrap", "50",
                 "--format", "json"]) == 0
    boot = json.loads(capsys.readouterr().out)["sections"]["bootstrap"]
    assert boot["status"] == "undefined" and "no span statistic" in boot["reason"]


def test_token_agreement_says_when_an_invalid_I_tag_was_rewritten_and_reads_raw_tags(tmp_path):
    from agreement import GoldnoiseWarning, Ratings, cohen_kappa
    from agreement.spans import token_agreement, token_ratings

    # a starts a PER with I- (no B- before it); b writes B-
    (tmp_path / "t.conll").write_text("Ada I-PER B-PER\nmet O O\n\nBob B-PER O\n\nin O O\n")
    with pytest.warns(GoldnoiseWarning, match="1 I- tag.*continue no span.*I-PER"):
        s = read_conll(tmp_path / "t.conll", annotators=["a", "b"])
    kappa = "Cohen's kappa"
    derived = token_agreement(s)
    # by hand on the derived tags a: B O B O, b: B O O O -> p_o 3/4, p_e 1/2*1/4 + 1/2*3/4
    assert derived.loc[kappa, "value"] == pytest.approx((3 / 4 - 1 / 2) / (1 - 1 / 2))
    assert "1 token tag(s) differ from the tags as written" in derived.loc[kappa, "notes"]
    raw = token_agreement(s, tags="raw")
    by_hand = Ratings.from_wide(pd.DataFrame({"a": ["I-PER", "O", "B-PER", "O"],
                                              "b": ["B-PER", "O", "O", "O"]}))
    assert raw.loc[kappa, "value"] == pytest.approx(cohen_kappa(by_hand).value)
    assert raw.loc[kappa, "value"] != pytest.approx(derived.loc[kappa, "value"])
    assert "differ from the tags as written" not in str(raw.loc[kappa, "notes"])
    assert sorted(token_ratings(s, tags="raw").categories) == ["B-PER", "I-PER", "O"]
    # valid tags: no note; BIOES written tags are not 'rewritten' by reading them as BIO
    (tmp_path / "ok.conll").write_text("Ada S-PER S-PER\nmet O O\nBob B-PER B-PER\n"
                                       "Smith E-PER E-PER\n")
    ok = token_agreement(read_conll(tmp_path / "ok.conll", scheme="BIOES"))
    assert "tags as written" not in " ".join(map(str, ok["notes"]))
    with pytest.raises(ValueError, match="tags='raw' needs the tags as written"):
        token_agreement(Spans(s.frame, coverage=s.coverage, unit="token", lengths=s.lengths),
                        tags="raw")


def test_read_conll_decodes_each_sentence_so_IOB1_files_read_as_seqeval_reads_them(tmp_path):
    # The original CoNLL-2003 files are IOB1: a span starts with I-, B- only between two
    # adjacent spans of one label. A LOC ending sentence 1 and a LOC opening sentence 2
    # are two spans (seqeval and conlleval decode sentence by sentence); decoding the
    # whole document as one tag sequence merged them into one span across the blank line.
    from agreement import GoldnoiseWarning

    (tmp_path / "iob1.conll").write_text(
        "-DOCSTART- -X- -X- O\n\nin IN I-PP O\nBonn NNP I-NP I-LOC\n\n"
        "Cologne NNP I-NP I-LOC\nand CC O O\nKoeln NNP I-NP I-LOC\nBerlin NNP I-NP B-LOC\n")
    with pytest.warns(GoldnoiseWarning) as record:
        s = read_conll(tmp_path / "iob1.conll")
    got = sorted(map(tuple, s.frame[["start", "end", "label"]].to_numpy().tolist()))
    assert got == [(1, 2, "LOC"), (2, 3, "LOC"), (4, 5, "LOC"), (5, 6, "LOC")]
    # one warning for the file, counting its orphan I- tags (3), not one per token
    msgs = [str(w.message) for w in record if issubclass(w.category, GoldnoiseWarning)]
    assert len(msgs) == 1 and "3 I- tag(s) continue no span" in msgs[0]
    assert "document 1, token 2, I-LOC" in msgs[0]
