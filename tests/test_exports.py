"""Item-level exports of annotation tools: Label Studio, Prodigy, MTurk (``--from``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from agreement import GoldnoiseWarning, Ratings, fleiss_kappa

# Three annotators label four items; the same table written by each tool.
TABLE = {  # item -> labels of annotators a, b, c (None: not labelled)
    1: ["pos", "pos", "pos"], 2: ["neg", "pos", None], 3: ["neg", "neg", "neg"],
    4: ["pos", "neg", "neg"],
}
WHO = ["a", "b", "c"]


def _expected() -> Ratings:
    wide = pd.DataFrame(TABLE, index=WHO).T
    wide.index.name = "item"
    return Ratings.from_wide(wide)


def _labelstudio(path, extra_control=False, multi=False, cancelled=False):
    tasks = []
    for item, labels in TABLE.items():
        anns = []
        for who, lab in zip(WHO, labels, strict=True):
            if lab is None:
                continue
            choices = [lab, "neg"] if multi and item == 4 and who == "a" else [lab]
            result = [{"type": "choices", "from_name": "mood", "to_name": "text",
                       "value": {"choices": choices}}]
            if extra_control:
                result.append({"type": "choices", "from_name": "topic", "to_name": "text",
                               "value": {"choices": ["sport"]}})
            anns.append({"completed_by": {"id": who, "email": f"{who}@x.org"},
                         "result": result})
        if cancelled:
            anns.append({"completed_by": 9, "was_cancelled": True, "result": []})
        tasks.append({"id": item, "data": {"text": f"text {item}"}, "annotations": anns})
    path.write_text(json.dumps(tasks))
    return path


def _prodigy(path, binary=False):
    lines = []
    for item, labels in TABLE.items():
        for who, lab in zip(WHO, labels, strict=True):
            if lab is None:
                continue
            if binary:
                lines.append({"text": f"text {item}", "label": "POSITIVE", "_input_hash": item,
                              "_task_hash": 100 + item, "answer": "accept" if lab == "pos"
                              else "reject", "_annotator_id": f"set-{who}"})
            else:
                lines.append({"text": f"text {item}", "options": [{"id": "pos"}, {"id": "neg"}],
                              "accept": [lab], "answer": "accept", "_input_hash": item,
                              "_task_hash": 100 + item, "_annotator_id": f"set-{who}"})
    lines.append({"text": "skipped", "answer": "ignore", "_input_hash": 99,
                  "_annotator_id": "set-a"})
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def _mturk(path, two_answers=False, rejected=False):
    rows = []
    for item, labels in TABLE.items():
        for who, lab in zip(WHO, labels, strict=True):
            if lab is None:
                continue
            row = {"HITId": f"H{item}", "WorkerId": who, "AssignmentStatus": "Approved",
                   "Input.text": f"text {item}", "Input.id": item, "Answer.sentiment": lab}
            if two_answers:
                row["Answer.comment"] = ""
            rows.append(row)
    if rejected:
        rows.append({"HITId": "H1", "WorkerId": "spammer", "AssignmentStatus": "Rejected",
                     "Input.text": "text 1", "Input.id": 1, "Answer.sentiment": "neg"})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _same(r: Ratings, expected: Ratings) -> None:
    # The same (item, annotator, label) triples: items by their number ("H2", 2), annotators
    # by their letter ("set-b", "b@x.org", "b").
    assert r.n_items == expected.n_items and sorted(r.categories) == sorted(expected.categories)
    assert fleiss_kappa(r).value == pytest.approx(fleiss_kappa(expected).value, abs=1e-12)

    def triples(x: Ratings) -> set:
        return {(str(i)[-1], str(w).removeprefix("set-")[0], lab)
                for i, w, lab in x.to_long().itertuples(index=False)}

    assert triples(r) == triples(expected)


def test_labelstudio_choices(tmp_path):
    with pytest.warns(GoldnoiseWarning, match=r"ls.json: 4 annotation\(s\) marked skipped"):
        r = Ratings.from_export(_labelstudio(tmp_path / "ls.json", cancelled=True),
                                "labelstudio")
    _same(r, _expected())
    assert len(r.raters) == 3  # the cancelled annotations are left out


def test_cli_audit_says_how_many_skipped_annotations_it_left_out(tmp_path, capsys):
    path = _labelstudio(tmp_path / "ls.json", cancelled=True)
    status, out, err = _cli(capsys, "audit", path, "--from", "labelstudio", "--no-latent",
                            "--json")
    assert status == 0, err
    notes = json.loads(out)["sections"]["data"]["notes"]
    assert any("4 annotation(s) marked skipped (was_cancelled) are left out" in n
               for n in notes), notes
    status, out, err = _cli(capsys, "audit", _labelstudio(tmp_path / "all.json"), "--from",
                            "labelstudio", "--no-latent", "--json")
    assert not any("skipped" in n for n in json.loads(out)["sections"]["data"]["notes"])


def test_labelstudio_several_controls_and_multiple_choices(tmp_path):
    path = _labelstudio(tmp_path / "ls.json", extra_control=True)
    with pytest.raises(ValueError, match=r"several choices controls .*mood, topic"):
        Ratings.from_export(path, "labelstudio")
    _same(Ratings.from_export(path, "labelstudio", label="mood"), _expected())
    with pytest.raises(ValueError, match=r"task 4, annotator a@x.org: 2 choices selected"):
        Ratings.from_export(_labelstudio(tmp_path / "m.json", multi=True), "labelstudio")


def test_prodigy_choice_and_binary(tmp_path):
    _same(Ratings.from_export(_prodigy(tmp_path / "p.jsonl"), "prodigy"), _expected())
    binary = Ratings.from_export(_prodigy(tmp_path / "b.jsonl", binary=True), "prodigy")
    assert sorted(binary.categories) == ["accept", "reject"] and binary.n_items == 4
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "x", "answer": "accept", "_input_hash": 1}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl, line 1: no _annotator_id"):
        Ratings.from_export(bad, "prodigy")


def test_mturk_batch_results(tmp_path):
    r = Ratings.from_export(_mturk(tmp_path / "batch.csv", rejected=True), "mturk")
    _same(r, _expected())
    assert "spammer" not in list(r.raters)
    by_input = Ratings.from_export(tmp_path / "batch.csv", "mturk", item="Input.id")
    assert sorted(map(str, by_input.items)) == ["1", "2", "3", "4"]
    two = _mturk(tmp_path / "two.csv", two_answers=True)
    with pytest.raises(ValueError, match=r"2 Answer.\* columns .*--label"):
        Ratings.from_export(two, "mturk")
    _same(Ratings.from_export(two, "mturk", label="Answer.sentiment"), _expected())


def _cli(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_from_each_tool_and_hints_without_it(tmp_path, capsys):
    want = fleiss_kappa(_expected()).value
    files = {"labelstudio": _labelstudio(tmp_path / "ls.json"),
             "prodigy": _prodigy(tmp_path / "p.jsonl"), "mturk": _mturk(tmp_path / "b.csv")}
    for tool, path in files.items():
        status, out, err = _cli(capsys, "audit", path, "--from", tool, "--no-latent", "--json")
        assert status == 0, err
        rows = json.loads(out)["sections"]["agreement"]["tables"]["coefficients"]["rows"]
        assert {r["coefficient"]: r["value"] for r in rows}["Fleiss' kappa"] == \
            pytest.approx(want, abs=1e-12)
        status, out, err = _cli(capsys, "audit", path)
        assert status == 1 and f"add --from {tool}" in err and "Traceback" not in err
    status, out, err = _cli(capsys, "audit", _labelstudio(tmp_path / "m.json", multi=True),
                            "--from", "labelstudio")
    assert status == 1 and "2 choices selected" in err and len(err.strip().splitlines()) == 1
    status, out, err = _cli(capsys, "audit", files["mturk"], "--from", "mturk", "--layout",
                            "long")
    assert status == 2 and "--from reads the tool's own layout" in err
    status, out, err = _cli(capsys, "audit", tmp_path / "none.json", "--from", "prodigy")
    assert status == 1 and "no such file" in err


def test_inputs_are_not_changed(tmp_path):
    path = _mturk(tmp_path / "b.csv")
    before = path.read_bytes()
    Ratings.from_export(path, "mturk")
    assert path.read_bytes() == before
    assert np.isfinite(fleiss_kappa(Ratings.from_export(path, "mturk")).value)
