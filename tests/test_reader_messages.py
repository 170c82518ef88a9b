"""Malformed span and sequence files: one line naming the file, never a library's message.

Each case is a file a user could hand to a reader — a Label Studio export whose
``annotations`` is an object, doccano lines that are lists, Prodigy ``spans: null``,
fractional or huge offsets, Latin-1 bytes, ... — read through the Python reader (a
``ValueError``) and through the command line (exit status 1, one line on stderr,
no traceback). The messages must name the file and must not be a raw message of
Python, numpy, pandas or json (``unhashable type``, ``'NoneType' object is not
iterable``, ``invalid literal``, ``codec can't decode`` without the file).
"""

from __future__ import annotations

import json

import pytest

from agreement import Ratings
from agreement.spans import read_brat, read_conll, read_jsonl, read_labelstudio

RAW = ("unhashable type", "object is not iterable", "invalid literal", "codec can't decode",
       "object has no attribute", "not subscriptable", "Traceback", "object is not",
       "need at least one array", "cannot convert", "list index", "KeyError")


def _ls_task(**changes):
    task = {"id": 1, "data": {"text": "Ada met Babbage"}, "annotations": [
        {"completed_by": 1, "result": [{"type": "labels", "from_name": "ner", "value": {
            "start": 0, "end": 3, "labels": ["PER"]}}]},
        {"completed_by": 2, "result": []}]}
    task.update(changes)
    return task


def _ls_value(**value):
    v = {"start": 0, "end": 3, "labels": ["PER"]}
    v.update(value)
    return [_ls_task(annotations=[{"completed_by": 1, "result": [
        {"type": "labels", "value": v}]}])]


LATIN1 = "Peña B-PER\nmet O\n".encode("latin-1")

# (name, format, file name, content: JSON-able object, str or bytes)
LABELSTUDIO = [
    ("annotations-dict", "ls.json", [_ls_task(annotations={"completed_by": 1})]),
    ("labels-integers", "ls.json", _ls_value(labels=[1, 2])),
    ("labels-dict", "ls.json", _ls_value(labels=[{"PER": 1}])),
    ("data-string", "ls.json", [_ls_task(data="Ada met Babbage")]),
    ("task-number", "ls.json", [3]),
    ("result-dict", "ls.json", [_ls_task(annotations=[{"completed_by": 1, "result": {}}])]),
    ("value-string", "ls.json", [_ls_task(annotations=[{"completed_by": 1, "result": [
        {"type": "labels", "value": "0 3 PER"}]}])]),
    ("fractional-offsets", "ls.json", _ls_value(start=0.7, end=3.2)),
    ("huge-offsets", "ls.json", [{"id": 1, "annotations": [{"completed_by": 1, "result": [
        {"type": "labels", "value": {"start": 0, "end": 1e23, "labels": ["PER"]}}]}]}]),
    ("offset-text", "ls.json", _ls_value(start="zero")),
    ("completed-by-list", "ls.json", [_ls_task(annotations=[{"completed_by": [1],
                                                               "result": []}])]),
    ("task-id-list", "ls.json", [_ls_task(id=[1])]),
    ("top-object", "ls.json", {"tasks": []}),
    ("latin1", "ls.json", '[{"id": 1, "data": {"text": "Peña"}}]'.encode("latin-1")),
]

JSONL = [
    ("doccano-list-line", "doccano", "d.jsonl", '[1, "Ada met", [[0, 3, "PER"]]]\n'),
    ("doccano-entities-lists", "doccano", "d.jsonl",
     '{"id": 1, "text": "Ada met", "entities": [[0, 3, "PER"]], "relations": []}\n'
     '{"id": 2, "text": "Ada met", "entities": [0, 3]}\n'),
    ("doccano-fractional", "doccano", "d.jsonl",
     '{"id": 1, "text": "Ada met", "label": [[0.9, 3.9, "PER"]]}\n'),
    ("doccano-label-dict", "doccano", "d.jsonl",
     '{"id": 1, "text": "Ada met", "label": [[0, 3, {"name": "PER"}]]}\n'),
    ("doccano-unknown-key", "doccano", "d.jsonl",
     '{"id": 1, "text": "Ada met", "tags": [[0, 3, "PER"]]}\n'),
    ("doccano-id-list", "doccano", "d.jsonl", '{"id": [1], "text": "Ada", "label": []}\n'),
    ("doccano-huge", "doccano", "d.jsonl",
     '{"id": 1, "label": [[0, 100000000000000000000000, "PER"]]}\n'),
    ("doccano-text-number", "doccano", "d.jsonl", '{"id": 1, "text": 5, "label": []}\n'),
    ("doccano-latin1", "doccano", "d.jsonl",
     '{"id": 1, "text": "Peña", "label": []}\n'.encode("latin-1")),
    ("prodigy-spans-strings", "prodigy", "p.jsonl",
     '{"text": "Ada met", "_input_hash": 1, "_annotator_id": "a", "answer": "accept", '
     '"spans": ["PER"]}\n'),
    ("prodigy-spans-null", "prodigy", "p.jsonl",
     '{"text": "Ada met", "_input_hash": 1, "_annotator_id": "a", "answer": "accept", '
     '"spans": null}\n'),
    ("prodigy-offset-text", "prodigy", "p.jsonl",
     '{"text": "Ada met", "_input_hash": 1, "_annotator_id": "a", "answer": "accept", '
     '"spans": [{"start": "a", "end": 3, "label": "PER"}]}\n'),
    ("prodigy-annotator-dict", "prodigy", "p.jsonl",
     '{"text": "Ada met", "_input_hash": 1, "_annotator_id": {"a": 1}, "spans": []}\n'),
]

CONLL = [
    ("conll-latin1", "c.conll", LATIN1),
    ("conll-bad-tag", "c.conll", "Ada PER\nmet O\n"),
    ("conll-ragged", "c.conll", "Ada B-PER B-PER\nmet O\n"),
]

BRAT = [
    ("brat-fractional", "T1\tPER 0.5 3\tAda\n"),
    ("brat-no-label", "T1\t 0 3\tAda\n"),
    ("brat-huge", "T1\tPER 0 100000000000000000000000\tAda\n"),
    ("brat-latin1", "T1\tPER 0 3\tPeña\n".encode("latin-1")),
]


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return path


def _assert_clear(message: str, name: str) -> None:
    assert "\n" not in message.strip(), message
    assert name in message, message
    for raw in RAW:
        assert raw not in message, message


@pytest.mark.parametrize("name, fname, content", LABELSTUDIO, ids=[c[0] for c in LABELSTUDIO])
def test_labelstudio_reader(tmp_path, name, fname, content):
    path = _write(tmp_path / fname, content)
    with pytest.raises(ValueError) as info:
        read_labelstudio(path)
    _assert_clear(str(info.value), fname)


@pytest.mark.parametrize("name, fmt, fname, content", JSONL, ids=[c[0] for c in JSONL])
def test_jsonl_reader(tmp_path, name, fmt, fname, content):
    path = _write(tmp_path / fname, content)
    with pytest.raises(ValueError) as info:
        read_jsonl(path, annotator="a")
    _assert_clear(str(info.value), fname)


@pytest.mark.parametrize("name, fname, content", CONLL, ids=[c[0] for c in CONLL])
def test_conll_reader(tmp_path, name, fname, content):
    path = _write(tmp_path / fname, content)
    with pytest.raises(ValueError) as info:
        read_conll(path)
    _assert_clear(str(info.value), fname)


@pytest.mark.parametrize("name, content", BRAT, ids=[c[0] for c in BRAT])
def test_brat_reader(tmp_path, name, content):
    (tmp_path / "doc.txt").write_text("Ada met Babbage.")
    _write(tmp_path / "doc.ann", content)
    with pytest.raises(ValueError) as info:
        read_brat(tmp_path, annotator="a")
    _assert_clear(str(info.value), "doc.ann")


def _cli(argv, capsys):
    from goldnoise._cli import main

    status = main(argv)
    err = capsys.readouterr().err
    return status, err


@pytest.mark.parametrize("name, fname, content", LABELSTUDIO, ids=[c[0] for c in LABELSTUDIO])
def test_command_line_spans_labelstudio(tmp_path, capsys, name, fname, content):
    path = _write(tmp_path / fname, content)
    status, err = _cli(["spans", str(path), "--from", "labelstudio"], capsys)
    assert status == 1, err
    assert err.startswith("goldnoise: error: ")
    _assert_clear(err, fname)


@pytest.mark.parametrize("name, fmt, fname, content", JSONL, ids=[c[0] for c in JSONL])
def test_command_line_spans_jsonl(tmp_path, capsys, name, fmt, fname, content):
    path = _write(tmp_path / fname, content)
    status, err = _cli(["spans", str(path), "--from", fmt], capsys)
    assert status == 1, err
    _assert_clear(err, fname)


@pytest.mark.parametrize("name, fname, content", CONLL, ids=[c[0] for c in CONLL])
def test_command_line_spans_conll(tmp_path, capsys, name, fname, content):
    path = _write(tmp_path / fname, content)
    status, err = _cli(["spans", str(path), "--from", "conll"], capsys)
    assert status == 1, err
    _assert_clear(err, fname)


@pytest.mark.parametrize("name, content", BRAT, ids=[c[0] for c in BRAT])
def test_command_line_spans_brat(tmp_path, capsys, name, content):
    (tmp_path / "doc.txt").write_text("Ada met Babbage.")
    _write(tmp_path / "doc.ann", content)
    status, err = _cli(["spans", str(tmp_path), "--from", "brat"], capsys)
    assert status == 1, err
    _assert_clear(err, "doc.ann")


def _choices(**changes):
    ann = {"completed_by": 1, "result": [{"type": "choices", "from_name": "mood",
                                          "value": {"choices": ["pos"]}}]}
    ann.update(changes)
    return ann


AUDIT_LABELSTUDIO = [
    ("annotations-dict", [{"id": 1, "annotations": _choices()}]),
    ("choices-integers", [{"id": 1, "annotations": [_choices(result=[
        {"type": "choices", "from_name": "mood", "value": {"choices": [[1]]}}])]}]),
    ("choices-dict", [{"id": 1, "annotations": [_choices(result=[
        {"type": "choices", "from_name": "mood", "value": {"choices": [{"pos": 1}]}}])]}]),
    ("value-string", [{"id": 1, "annotations": [_choices(result=[
        {"type": "choices", "from_name": "mood", "value": "pos"}])]}]),
    ("data-string", [{"id": 1, "data": "text", "annotations": [_choices()]}]),
    ("result-dict", [{"id": 1, "annotations": [_choices(result={"type": "choices"})]}]),
    ("annotation-number", [{"id": 1, "annotations": [5]}]),
    ("completed-by-list", [{"id": 1, "annotations": [_choices(completed_by=[1])]}]),
    ("task-id-dict", [{"id": {"a": 1}, "annotations": [_choices()]}]),
    ("latin1", '[{"id": 1, "data": {"text": "Peña"}, "annotations": []}]'.encode("latin-1")),
]


@pytest.mark.parametrize("name, content", AUDIT_LABELSTUDIO, ids=[c[0] for c in AUDIT_LABELSTUDIO])
def test_labelstudio_classification_reader(tmp_path, capsys, name, content):
    path = _write(tmp_path / "export.json", content)
    with pytest.raises(ValueError) as info:
        Ratings.from_export(path, "labelstudio")
    _assert_clear(str(info.value), "export.json")
    status, err = _cli(["audit", str(path), "--from", "labelstudio"], capsys)
    assert status == 1, err
    _assert_clear(err, "export.json")


def _choice(**changes):
    eg = {"text": "x", "options": [{"id": "pos"}, {"id": "neg"}], "accept": ["pos"],
          "answer": "accept", "_input_hash": 1, "_annotator_id": "a"}
    eg.update(changes)
    return json.dumps(eg)


def _binary(**changes):
    eg = {"text": "x", "label": "POS", "answer": "accept", "_input_hash": 1, "_task_hash": 7,
          "_annotator_id": "a"}
    eg.update(changes)
    return json.dumps(eg)


#: Malformed Prodigy classification answers (``Ratings.from_export(..., "prodigy")``).
AUDIT_PRODIGY = [
    ("annotator-dict", _choice(_annotator_id={"name": "a"})),
    ("annotator-list", _binary(_annotator_id=["a"])),
    ("accepted-option-dict", _choice(accept=[{"id": "pos"}])),
    ("accepted-option-null", _choice(accept=[None])),
    ("input-hash-list", _choice(_input_hash=[1, 2])),
    ("no-input", _choice(_input_hash=None, text=None)),
    ("label-list", _binary(label=["POS"])),
    ("task-hash-dict", _binary(_task_hash={"h": 7})),
    ("record-list", "[1, 2]"),
    ("latin1", _choice(text="Peña").encode("latin-1")),
]


@pytest.mark.parametrize("name, content", AUDIT_PRODIGY, ids=[c[0] for c in AUDIT_PRODIGY])
def test_prodigy_classification_reader(tmp_path, capsys, name, content):
    path = tmp_path / "answers.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content.replace(b"\\u00f1", "ñ".encode("latin-1")) + b"\n")
    else:
        path.write_text(content + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        Ratings.from_export(path, "prodigy")
    _assert_clear(str(info.value), "answers.jsonl")
    assert "line 1" in str(info.value)
    status, err = _cli(["audit", str(path), "--from", "prodigy"], capsys)
    assert status == 1, err
    _assert_clear(err, "answers.jsonl")


@pytest.mark.parametrize("which", ["gold", "scores", "conll-predictions"])
def test_command_line_consistency_names_a_file_that_is_not_utf8(tmp_path, capsys, which):
    gold = tmp_path / "probe.conll"
    gold.write_text("x O\nAda B-PER\n\nx O\nBob B-PER\n")
    scores = "document,token,O,B-PER\n1,0,1,0\n1,1,0,1\n2,0,1,0\n2,1,0,1\n"
    (tmp_path / "A.csv").write_text(scores)
    (tmp_path / "B.csv").write_text(scores)
    (tmp_path / "A.conll").write_text("x O\nAda B-PER\n\nx O\nBob B-PER\n")
    (tmp_path / "B.conll").write_text("x O\nAda B-PER\n\nx O\nBob B-PER\n")
    bad = {"gold": gold, "scores": tmp_path / "B.csv",
           "conll-predictions": tmp_path / "B.conll"}[which]
    bad.write_bytes(bad.read_bytes().replace(b"O", "É".encode("latin-1"), 1))
    files = ([str(tmp_path / "A.conll"), str(tmp_path / "B.conll"), "--predictions", "conll"]
             if which == "conll-predictions" else [str(tmp_path / "A.csv"),
                                                   str(tmp_path / "B.csv")])
    status, err = _cli(["consistency", *files, "--gold", str(gold), "--resamples", "10"],
                       capsys)
    assert status == 1, err
    _assert_clear(err, bad.name)
    assert "line 1" in err


# Property: any JSON value at any place of a valid record is read or refused in one line
# naming the file — never another exception type, never a library's message.
from budget import examples  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**25, 10**25)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6)

_LS_PLACES = [("id",), ("data",), ("data", "text"), ("annotations",), ("annotations", 0),
              ("annotations", 0, "completed_by"), ("annotations", 0, "result"),
              ("annotations", 0, "result", 0), ("annotations", 0, "result", 0, "value"),
              ("annotations", 0, "result", 0, "value", "start"),
              ("annotations", 0, "result", 0, "value", "end"),
              ("annotations", 0, "result", 0, "value", "labels"),
              ("annotations", 0, "result", 0, "value", "labels", 0),
              ("annotations", 0, "was_cancelled"), ("drafts",), ("predictions",)]

_JSONL_RECORDS = [{"id": 1, "text": "Ada met", "label": [[0, 3, "PER"]]},
                  {"id": 1, "text": "Ada met", "entities": [
                      {"start_offset": 0, "end_offset": 3, "label": "PER"}]},
                  {"_input_hash": 1, "text": "Ada met", "_annotator_id": "a",
                   "answer": "accept", "spans": [{"start": 0, "end": 3, "label": "PER"}]}]
_JSONL_PLACES = [("id",), ("text",), ("label",), ("label", 0), ("label", 0, 0), ("label", 0, 2),
                 ("entities",), ("entities", 0), ("entities", 0, "start_offset"),
                 ("spans",), ("spans", 0), ("spans", 0, "end"), ("spans", 0, "label"),
                 ("_annotator_id",), ("_input_hash",), ("answer",)]


def _put(obj, place, value):
    """``obj`` with ``value`` at ``place`` (a path of keys and indexes); None if absent."""
    import copy

    out = copy.deepcopy(obj)
    at = out
    for key in place[:-1]:
        try:
            at = at[key]
        except (KeyError, IndexError, TypeError):
            return None
    if isinstance(at, dict) or (isinstance(at, list) and place[-1] < len(at)):
        at[place[-1]] = value
        return out
    return None


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(_LS_PLACES), _JSON)
def test_any_value_anywhere_in_a_labelstudio_task(tmp_path, place, value):
    task = _put(_ls_task(), place, value)
    if task is None:
        return
    path = _write(tmp_path / "fuzz.json", [task])
    try:
        read_labelstudio(path)
    except ValueError as exc:
        _assert_clear(str(exc), "fuzz.json")
    except Warning:
        pass


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(_JSONL_RECORDS), st.sampled_from(_JSONL_PLACES), _JSON)
def test_any_value_anywhere_in_a_jsonl_record(tmp_path, record, place, value):
    rec = _put(record, place, value)
    if rec is None:
        return
    path = _write(tmp_path / "fuzz.jsonl", json.dumps(rec) + "\n")
    try:
        read_jsonl(path, annotator="a")
    except ValueError as exc:
        _assert_clear(str(exc), "fuzz.jsonl")
