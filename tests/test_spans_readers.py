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
    with pytest.raises(ValueError, match="task 5, annotation 1, result 1: a span ends at 4, "
                                         "past the 3 characters"):
        read_labelstudio(write(past))


def test_jsonl_malformed_variants(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text('{"id": 1, "text": "Ada met", "label": [[0, 30, "PER"]]}\n')
    with pytest.raises(ValueError, match=r"line 1, label\[1\]: a span ends at 30, past the 7 "
                                         "characters"):
        read_jsonl(p, annotator="a")
    p.write_text('{"id": 1, "text": "Ada", "entities": [{"start_offset": 0, "label": "P"}]}\n')
    with pytest.raises(ValueError, match=r"line 1, entities\[1\]: a span needs start, end "
                                         "and label"):
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


def _ls(tmp_path, tasks, name="ls.json"):
    (tmp_path / name).write_text(json.dumps(tasks))
    return tmp_path / name


def _ann(who, *spans, **extra):
    return {"completed_by": who, "result": [
        {"type": "labels", "value": {"start": s, "end": e, "labels": [lab]}}
        for s, e, lab in spans], **extra}


def test_labelstudio_skipped_annotations_are_not_annotations(tmp_path):
    from agreement.spans import span_agreement

    # a and b agree on both tasks; c skipped task 2 (was_cancelled, no result)
    tasks = [{"id": 1, "data": {"text": "Ada met Babbage"}, "annotations": [
                 _ann("a", (0, 3, "PER")), _ann("b", (0, 3, "PER")), _ann("c", (0, 3, "PER"))]},
             {"id": 2, "data": {"text": "Bob met Eve"}, "annotations": [
                 _ann("a", (0, 3, "PER")), _ann("b", (0, 3, "PER")),
                 _ann("c", was_cancelled=True)]}]
    with pytest.warns(UserWarning, match=r"1 annotation\(s\) marked skipped \(was_cancelled\)"):
        s = read_labelstudio(_ls(tmp_path, tasks))
    assert ("c", 2) not in s.coverage and ("c", 1) in s.coverage
    # read as "annotated, nothing marked", c's skip would count as two misses (F1 10/12);
    # left out, every pair agrees on every span it shares
    assert span_agreement(s).f1 == 1.0


def test_labelstudio_drafts_and_predictions_only_when_asked(tmp_path):
    task = {"id": 1, "data": {"text": "Ada met Babbage"},
            "annotations": [_ann("a", (0, 3, "PER")), _ann("b", (0, 3, "PER"))],
            "drafts": [{"user": "c", "result": [
                {"type": "labels", "value": {"start": 8, "end": 15, "labels": ["PER"]}}]},
                {"user": "d", "result": []}],
            "predictions": [{"model_version": "v1", "result": []}]}
    with pytest.warns(UserWarning, match=r"1 draft\(s\) with spans are not read.*1 empty "
                                         r"draft\(s\).*1 empty prediction\(s\)"):
        s = read_labelstudio(_ls(tmp_path, [task]))
    assert s.annotators == ["a", "b"]
    with pytest.warns(UserWarning, match=r"1 empty draft"):
        s = read_labelstudio(_ls(tmp_path, [task]), include=("annotations", "drafts"))
    assert s.annotators == ["a", "b", "c (draft)"]
    with pytest.raises(ValueError, match="`include` must list 'annotations'"):
        read_labelstudio(_ls(tmp_path, [task]), include=("drafts",))


def test_labelstudio_labels_given_as_one_name(tmp_path):
    from agreement.spans import span_agreement

    tasks = [{"id": 1, "data": {"text": "Ada met"}, "annotations": [
        {"completed_by": 1, "result": [{"type": "labels", "value": {
            "start": 0, "end": 3, "labels": "PER"}}]}, _ann(2, (0, 3, "PER"))]}]
    s = read_labelstudio(_ls(tmp_path, tasks))
    assert s.labels == ["PER"]   # not P, E, R
    assert span_agreement(s).f1 == 1.0


@pytest.mark.parametrize("offsets", [(0.7, 3.2), (0.0, 3.5), (1e23, 1e23 + 5)])
def test_readers_refuse_fractional_and_huge_offsets(tmp_path, offsets):
    s, e = offsets
    tasks = [{"id": 1, "annotations": [{"completed_by": 1, "result": [
        {"type": "labels", "value": {"start": s, "end": e, "labels": ["PER"]}}]}]}]
    with pytest.raises(ValueError, match=r"ls\.json: task 1, annotation 1, result 1: a span's "):
        read_labelstudio(_ls(tmp_path, tasks))
    p = tmp_path / "d.jsonl"
    p.write_text(json.dumps({"id": 1, "label": [[s, e, "PER"]]}) + "\n")
    with pytest.raises(ValueError, match=r"d\.jsonl, line 1, label\[1\]: a span's "):
        read_jsonl(p, annotator="a")
    # whole numbers written as floats are whole offsets
    p.write_text(json.dumps({"id": 1, "label": [[0.0, 3.0, "PER"]]}) + "\n")
    assert read_jsonl(p, annotator="a").frame[["start", "end"]].values.tolist() == [[0, 3]]


def test_brat_without_a_label_and_with_huge_offsets(tmp_path):
    (tmp_path / "d.txt").write_text("Ada met Babbage.")
    (tmp_path / "d.ann").write_text("T1\t 0 3\tAda\n")
    with pytest.raises(ValueError, match=r"d\.ann, line 1: no label before the offsets"):
        read_brat(tmp_path, annotator="x")
    (tmp_path / "d.txt").unlink()
    (tmp_path / "d.ann").write_text("T1\tPER 0 100000000000000000000000\tAda\n")
    with pytest.raises(ValueError, match=r"d\.ann, line 1: the end 1000.* is beyond any text"):
        read_brat(tmp_path, annotator="x")


def test_container_refuses_offsets_beyond_int64():
    import pandas as pd

    from agreement.spans import Spans

    with pytest.raises(ValueError, match="beyond any text"):
        Spans(pd.DataFrame({"document": ["d"], "start": [0], "end": [1e23], "label": ["X"],
                            "annotator": ["a"]}))


def test_jsonl_shapes_of_doccano_prodigy_and_labelstudio(tmp_path):
    p = tmp_path / "x.jsonl"
    want = [[1, 0, 3, "PER", "a"]]
    shapes = [
        {"id": 1, "text": "Ada met", "label": [[0, 3, "PER"]]},              # doccano
        {"id": 1, "text": "Ada met", "labels": [[0, 3, "PER"]]},             # doccano, older
        {"id": 1, "text": "Ada met", "entities": [{"id": 9, "label": "PER", "start_offset": 0,
                                                   "end_offset": 3}], "relations": []},
        {"id": 1, "text": "Ada met", "label": [{"start": 0, "end": 3, "text": "Ada",
                                                "labels": ["PER"]}]},       # LS JSON-MIN
        {"_input_hash": 1, "text": "Ada met", "spans": [{"start": 0, "end": 3,
                                                         "label": "PER"}]},  # Prodigy
    ]
    for rec in shapes:
        p.write_text(json.dumps(rec) + "\n")
        assert read_jsonl(p, annotator="a").frame.values.tolist() == want, rec
    # Label Studio tasks, one a line
    p.write_text(json.dumps({"id": 1, "data": {"text": "Ada met"}, "annotations": [
        _ann("a", (0, 3, "PER"))]}) + "\n")
    assert read_jsonl(p).frame.values.tolist() == want
    # a record whose spans sit under an unknown key is refused, naming its keys
    p.write_text(json.dumps({"id": 1, "text": "Ada met", "tags": [[0, 3, "PER"]]}) + "\n")
    with pytest.raises(ValueError, match=r"x\.jsonl, line 1: no spans under a key this reader "
                                         r"knows .*the record has the keys id, text, tags"):
        read_jsonl(p, annotator="a")


def test_conll_2003_four_columns_read_as_one_annotation(tmp_path):
    # the first lines of CoNLL-2003's eng.testa: token, POS, chunk, NER (IOB1 NER tags there;
    # the IOB2 version here)
    text = ("-DOCSTART- -X- -X- O\n\n"
            "CRICKET NNP B-NP O\n- : O O\nLEICESTERSHIRE NNP B-NP B-ORG\nTAKE NNP I-NP O\n"
            "OVER IN B-PP O\nAT NNP B-NP O\nTOP NNP I-NP O\nAFTER NNP I-NP O\n"
            "INNINGS NNP I-NP O\nVICTORY NN I-NP O\n. . O O\n\n"
            "LONDON NNP B-NP B-LOC\n1996-08-30 CD I-NP O\n")
    (tmp_path / "probe.conll").write_text(text)
    s = read_conll(tmp_path / "probe.conll")
    assert s.annotators == ["probe"]
    assert s.frame[["start", "end", "label"]].values.tolist() == [[2, 3, "ORG"], [11, 12, "LOC"]]
    assert s.sentences == {"probe:1": (11, 2)}
    assert read_conll(tmp_path / "probe.conll", annotators=["gold"]).annotators == ["gold"]
    # the chunk column as the tags, by its number
    chunks = read_conll(tmp_path / "probe.conll", tag_column=2)
    assert chunks.labels == ["NP", "PP"]
    with pytest.raises(ValueError, match=r"`tag_column` 7 is not a tag column of the file's 4"):
        read_conll(tmp_path / "probe.conll", tag_column=7)
    # three annotators' tag columns stay three annotators
    (tmp_path / "three.conll").write_text("Ada B-PER B-PER O\nmet O O O\n")
    assert read_conll(tmp_path / "three.conll").annotators == ["annotator1", "annotator2",
                                                               "annotator3"]


def test_command_line_labelstudio_skips_drafts_predictions_and_jsonl(tmp_path, capsys):
    from goldnoise._cli import main

    task = {"id": 1, "data": {"text": "Ada met Babbage"},
            "annotations": [_ann("a", (0, 3, "PER")), _ann("b", (0, 3, "PER")),
                            _ann("c", was_cancelled=True)],
            "drafts": [{"user": "d", "result": [
                {"type": "labels", "value": {"start": 8, "end": 15, "labels": ["PER"]}}]}]}
    path = _ls(tmp_path, [task])
    assert main(["spans", str(path), "--from", "labelstudio", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sections"]["agreement"]["values"]["f1"] == 1.0
    assert report["sections"]["agreement"]["values"]["n_annotators"] == 2
    notes = " ".join(report["notes"])
    assert "1 annotation(s) marked skipped" in notes and "1 draft(s) with spans" in notes
    assert main(["spans", str(path), "--from", "labelstudio", "--include", "drafts",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sections"]["agreement"]["values"]["n_annotators"] == 3
    (tmp_path / "ls.jsonl").write_text(json.dumps(task) + "\n")
    assert main(["spans", str(tmp_path / "ls.jsonl"), "--from", "labelstudio", "--format",
                 "json"]) == 0
    assert json.loads(capsys.readouterr().out)["sections"]["agreement"]["values"]["f1"] == 1.0
    assert main(["spans", str(path), "--from", "conll", "--include", "drafts"]) == 2
    assert "--include is for --from labelstudio" in capsys.readouterr().err


def test_brat_line_whose_label_is_missing_before_the_offsets(tmp_path):
    (tmp_path / "d.txt").write_text("Ada met Babbage.")
    (tmp_path / "d.ann").write_text("T1\t0 3\tAda\n")
    with pytest.raises(ValueError, match=r"d\.ann, line 1: no label before the offsets"):
        read_brat(tmp_path, annotator="x")
