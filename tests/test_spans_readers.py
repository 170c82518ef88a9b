"""Readers of span annotations: malformed variants beyond ``test_spans.py`` and the
documents' lengths each reader records (α_u needs them: the gap after the last span)."""

from __future__ import annotations

import json

import pytest

from agreement.spans import (
    read_brat,
    read_conll,
    read_jsonl,
    read_labelstudio,
    unitizing_alpha,
)


def test_brat_malformed_variants(tmp_path):
    (tmp_path / "d.txt").write_text("Ada met Babbage.")
    (tmp_path / "d.ann").write_text("T1\tPER 0 3\tAda\nT2\tPER 8 15\tBabbage\nT2\tPER 0 3\tAda\n")
    with pytest.raises(ValueError, match=r"d\.ann, line 3: the id T2 is used twice"):
        read_brat(tmp_path, annotator="x")
    (tmp_path / "d.ann").write_text("T1\tPER zero 3\tAda\n")
    with pytest.raises(ValueError, match=r"d\.ann, line 1: offsets 'zero 3' are not two"):
        read_brat(tmp_path, annotator="x")
    (tmp_path / "d.ann").write_text("T1\tPER 3 3\t\n")
    with pytest.raises(ValueError, match=r"d\.ann, line 1: the span \[3, 3\) is empty"):
        read_brat(tmp_path, annotator="x")
    (tmp_path / "d.ann").write_text("T1\tPER 0 3\tAda\nT2\n")
    with pytest.raises(ValueError, match=r"d\.ann, line 2: a T line needs an id, a tab"):
        read_brat(tmp_path, annotator="x")
    (tmp_path / "d.ann").write_text("T1\tPER 10 17\tBabbage\n")  # one past the 16 characters
    with pytest.raises(ValueError, match=r"ends at 17, past the 16 characters of d\.txt"):
        read_brat(tmp_path, annotator="x")
    with pytest.raises(ValueError, match=r"no \.ann files"):
        read_brat(tmp_path / "nowhere", annotator="x")


def test_conll_malformed_variants(tmp_path):
    (tmp_path / "a.conll").write_text("Ada B-PER\nmet O\n\nBob B-PER\n")
    (tmp_path / "b.conll").write_text("Ada B-PER\nmet O\nand O\n\nBob B-PER\n")
    with pytest.raises(ValueError, match="has 2 tokens in one part and 3 in another"):
        read_conll([tmp_path / "a.conll", tmp_path / "b.conll"], annotators=["a", "b"])
    (tmp_path / "r.conll").write_text("Ada B-PER B-PER\nmet O O\nBob B-PER\n")
    with pytest.raises(ValueError, match=r"r\.conll, line 3: 2 columns .* \(a ragged column\)"):
        read_conll(tmp_path / "r.conll")
    (tmp_path / "one.conll").write_text("Ada\nmet\n")
    with pytest.raises(ValueError, match=r"line 1: a token and at least one tag column"):
        read_conll(tmp_path / "one.conll")
    (tmp_path / "names.conll").write_text("Ada B-PER B-PER\n")
    with pytest.raises(ValueError, match="2 tag column\\(s\\) for 3 annotator name"):
        read_conll(tmp_path / "names.conll", annotators=["a", "b", "c"])
    (tmp_path / "tag.conll").write_text("Ada PER O\n")
    with pytest.raises(ValueError, match="token 1 has the tag 'PER'"):
        read_conll(tmp_path / "tag.conll")
    (tmp_path / "empty.conll").write_text("\n\n")
    with pytest.raises(ValueError, match="no token lines"):
        read_conll(tmp_path / "empty.conll")


def test_labelstudio_malformed_variants(tmp_path):
    def write(tasks):
        (tmp_path / "ls.json").write_text(json.dumps(tasks))
        return tmp_path / "ls.json"

    with pytest.raises(ValueError, match="task 4 has no annotations"):
        read_labelstudio(write([{"id": 4, "data": {"text": "abc"}, "annotations": []}]))
    with pytest.raises(ValueError, match="a Label Studio export is a list of tasks"):
        read_labelstudio(write({"id": 1}))
    (tmp_path / "bad.json").write_text("[{")
    with pytest.raises(ValueError, match=r"bad\.json: not JSON"):
        read_labelstudio(tmp_path / "bad.json")
    past = [{"id": 5, "data": {"text": "abc"}, "annotations": [{"completed_by": 1, "result": [
        {"type": "labels", "value": {"start": 2, "end": 4, "labels": ["X"]}}]}]}]
    with pytest.raises(ValueError, match="task 5, annotation 1, result 1: a span ends at 4, past the 3 characters"):
        read_labelstudio(write(past))


def test_jsonl_malformed_variants(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text('{"id": 1, "text": "Ada met", "label": [[0, 30, "PER"]]}\n')
    with pytest.raises(ValueError, match=r"line 1, label\[1\]: a span ends at 30, past the 7 characters"):
        read_jsonl(p, annotator="a")
    p.write_text('{"id": 1, "text": "Ada", "entities": [{"start_offset": 0, "label": "P"}]}\n')
    with pytest.raises(ValueError, match=r"line 1, entities\[1\]: a span needs start, end and label"):
        read_jsonl(p, annotator="a")
    p.write_text('{"id": 1, "text": "Ada", "label": []}\n')
    with pytest.raises(ValueError, match="line 1: no annotator"):
        read_jsonl(p)
    p.write_text('{"id": 1, "text": "Ada", "label": []}\n{"id": 1, "text": "Ada met", '
                 '"label": []}\n')
    with pytest.raises(ValueError, match="line 2: document 1 has 7 characters here and 3"):
        read_jsonl(p, annotator="a")


def test_character_readers_record_document_lengths(tmp_path):
    for who, ann in (("a", "T1\tPER 0 3\tAda\n"), ("b", "T1\tPER 0 3\tAda\n")):
        (tmp_path / who).mkdir()
        (tmp_path / who / "d.txt").write_text("Ada met Babbage.")
        (tmp_path / who / "d.ann").write_text(ann)
    from agreement.spans import Spans

    s = Spans.concat([read_brat(tmp_path / "a", annotator="a"),
                      read_brat(tmp_path / "b", annotator="b")])
    assert s.lengths == {"d": 16}
    # the gap after the last span counts: 13 characters agreed on as ∅ by both
    assert unitizing_alpha(s).coincidences.loc["∅", "∅"] == 26.0
    tasks = [{"id": 3, "data": {"text": "Ada met"}, "annotations": [
        {"completed_by": 1, "result": []}, {"completed_by": 2, "result": []}]}]
    (tmp_path / "ls.json").write_text(json.dumps(tasks))
    assert read_labelstudio(tmp_path / "ls.json").lengths == {3: 7}
    (tmp_path / "p.jsonl").write_text('{"text": "Ada met", "_input_hash": 9, '
                                      '"_annotator_id": "p", "spans": []}\n')
    assert read_jsonl(tmp_path / "p.jsonl").lengths == {9: 7}
