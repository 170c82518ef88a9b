"""``goldnoise judge``: the report, the forest plot, and one line for each bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest


def _run(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _file(tmp_path, *, n=120, humans=3, no_overlap=False):
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, n)
    rows = []
    raters = [(f"h{j}", "human", 0.2) for j in range(humans)] + [("judge", "llm", 0.3),
                                                                 ("other", "llm", 0.5)]
    for name, kind, p in raters:
        labels = np.where(rng.random(n) < p, rng.integers(0, 3, n), truth)
        for i in range(n):
            if no_overlap and ((name == "judge") == (i < n // 2)):
                continue
            rows.append((i, name, int(labels[i]), kind))
    frame = pd.DataFrame(rows, columns=["item", "rater", "label", "rater_kind"])
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    return path


ARGS = ("--item", "item", "--rater", "rater", "--label", "label", "--resamples", "100",
        "--latent-resamples", "0")


def test_report_json_and_plot(tmp_path, capsys):
    path = _file(tmp_path)
    status, out, err = _run(capsys, "judge", path, *ARGS, "--candidates", "judge",
                            "--margin", "0.05", "--epsilon", "0.1", "--kind-column",
                            "rater_kind", "--format", "json", "--plot", tmp_path / "figs")
    assert status == 0, err
    report = json.loads(out)
    assert report["command"] == "judge"
    assert set(report["sections"]) == {"humans", "verdicts", "swap", "alt_test", "agreement",
                                       "latent"}
    assert report["sections"]["verdicts"]["values"]["verdicts"]["judge"] in (
        "replace", "join", "neither")
    rows = report["sections"]["swap"]["tables"]["swap"]["rows"]
    assert [r["test"] for r in rows] == ["swap", "join"]
    assert any("other" in n and "left out" in n for n in report["notes"])  # not a human
    png = tmp_path / "figs" / "judge_forest.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_text_report_says_the_verdict(tmp_path, capsys):
    path = _file(tmp_path)
    status, out, err = _run(capsys, "judge", path, *ARGS, "--candidates", "judge", "other",
                            "--margin", "0.05")
    assert status == 0, err
    assert "May a candidate replace a human, join them, or neither?" in out
    assert "judge: " in out and "other: " in out


@pytest.mark.parametrize(("extra", "message", "kw"), [
    (("--candidates", "gpt", "--margin", "0.05"), "--candidates 'gpt' is not a rater", {}),
    (("--candidates", "judge", "--margin", "0.05", "--kind-column", "rater_kind"),
     "needs two or more humans", {"humans": 1}),
    (("--candidates", "judge", "--margin", "0.05", "--kind-column", "rater_kind"),
     "candidate 'judge' rated no item the humans rated", {"no_overlap": True}),
    (("--candidates", "judge", "--margin", "1.5"), "--margin must be in [0, 1]", {}),
    (("--candidates", "judge", "--margin", "-0.1"), "--margin must be in [0, 1]", {}),
    (("--candidates", "judge", "--margin", "0.05", "--epsilon", "1"),
     "--epsilon must be in [0, 1)", {}),
    (("--candidates", "judge", "--margin", "0.05", "--kind-column", "kind"),
     "--kind-column 'kind' is not a column", {}),
])
def test_bad_input_is_one_line(tmp_path, capsys, extra, message, kw):
    path = _file(tmp_path, **kw)
    status, out, err = _run(capsys, "judge", path, *ARGS, *extra)
    assert status in (1, 2)
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert out == ""


def test_margin_is_required(tmp_path, capsys):
    path = _file(tmp_path)
    with pytest.raises(SystemExit) as exc:
        _run(capsys, "judge", path, *ARGS, "--candidates", "judge")
    assert exc.value.code == 2
    assert "--margin" in capsys.readouterr().err


def test_a_rater_kind_column_is_used_without_the_option(tmp_path, capsys):
    path = _file(tmp_path)
    status, out, err = _run(capsys, "judge", path, *ARGS, "--candidates", "judge",
                            "--margin", "0.05", "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    assert report["sections"]["humans"]["values"]["humans"] == ["h0", "h1", "h2"]
    assert any("rater_kind is 'human'" in n for n in report["notes"])
    assert any("left out: other" in n for n in report["notes"])


# --estimate: judge_estimate's prediction-powered prevalence, per candidate.

EST = ("--candidates", "judge", "--margin", "0.05", "--kind-column", "rater_kind",
       "--estimate", "1")


def _python_estimate(path, labelled, truth="mean"):
    from noise_models import judge_estimate

    frame = pd.read_csv(path)
    wide = frame.pivot(index="item", columns="rater", values="label")
    return judge_estimate(wide, "judge", category=1, truth=truth, labelled=labelled,
                          humans=["h0", "h1", "h2"])


def _estimate_row(out):
    section = json.loads(out)["sections"]["estimate"]
    (row,) = section["tables"]["estimate"]["rows"]
    return section, row


def _same(row, res):
    for key in ("estimate", "low", "high", "classical_estimate", "classical_low",
                "classical_high", "sample_size_gain", "effective_n", "correlation"):
        assert row[key] == getattr(res, key), key  # the same call: bit-identical
    assert (row["n_labelled"], row["n_unlabelled"]) == (res.n_labelled, res.n_unlabelled)


def test_estimate_from_a_labelled_file_equals_the_python_call(tmp_path, capsys):
    path = _file(tmp_path)
    ids = list(range(0, 120, 4))  # 30 human-labelled items
    (tmp_path / "labelled.txt").write_text("\n".join(map(str, ids)) + "\n")
    status, out, err = _run(capsys, "judge", path, *ARGS, *EST, "--labelled",
                            tmp_path / "labelled.txt", "--truth", "majority",
                            "--format", "json")
    assert status == 0, err
    section, row = _estimate_row(out)
    res = _python_estimate(path, ids, truth="majority")
    _same(row, res)
    assert (row["n_labelled"], row["n_unlabelled"]) == (30, 90)
    assert section["values"]["truth"] == "majority"


def test_estimate_from_a_labelled_share_equals_the_python_call(tmp_path, capsys):
    path = _file(tmp_path)
    status, out, err = _run(capsys, "judge", path, *ARGS, *EST, "--labelled-share", "0.25",
                            "--seed", "3", "--format", "json")
    assert status == 0, err
    _, row = _estimate_row(out)
    # the documented draw: round(S * human-rated items), without replacement, from --seed
    pick = np.sort(np.random.default_rng(3).choice(120, size=30, replace=False))
    _same(row, _python_estimate(path, list(pick)))


def test_estimate_in_every_format(tmp_path, capsys):
    path = _file(tmp_path)
    common = (*ARGS, *EST, "--labelled-share", "0.25")
    for fmt, needle in (("text", "Prediction-powered estimate: prevalence of 1"),
                        ("markdown", "Prediction-powered estimate: prevalence of 1"),
                        ("html", "Prediction-powered estimate: prevalence of 1"),
                        ("json", '"estimate"')):
        status, out, err = _run(capsys, "judge", path, *common, "--format", fmt)
        assert status == 0, err
        assert needle in out, fmt
    status, _, err = _run(capsys, "judge", path, *common, "--out", tmp_path / "o.csv")
    assert status == 0, err
    table = pd.read_csv(tmp_path / "o.estimate.csv")
    assert list(table["candidate"]) == ["judge"]
    assert {"estimate", "low", "high", "classical_low", "classical_high",
            "sample_size_gain"} <= set(table.columns)


def test_a_weak_judge_is_a_note_not_a_warning(tmp_path, capsys):
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 400)
    rows = [(i, f"h{j}", int(truth[i] if rng.random() < 0.9 else 1 - truth[i]), "human")
            for j in range(3) for i in range(400)]
    rows += [(i, "judge", int(rng.integers(0, 2)), "llm") for i in range(400)]  # a coin
    path = tmp_path / "weak.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label", "rater_kind"]).to_csv(path,
                                                                               index=False)
    status, out, err = _run(capsys, "judge", path, *ARGS, *EST, "--labelled-share", "0.3",
                            "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    assert report["sections"]["estimate"]["tables"]["estimate"]["rows"][0]["weak_judge"]
    assert any(n.startswith("judge: the judge is too weakly correlated") for n in
               report["notes"])


@pytest.mark.parametrize(("extra", "message"), [
    ((), "every item 'judge' rated has human labels"),
    (("--labelled-share", "0.2", "--labelled", "ids.txt"), "not both"),
    (("--labelled-share", "0.01"), "the estimate needs 2 or more"),
    (("--labelled", "ids.txt"), "names items that are not in the ratings, e.g. 999"),
    (("--labelled", "missing.txt"), "--labelled missing.txt: cannot read it"),
])
def test_estimate_bad_input_is_one_line(tmp_path, capsys, monkeypatch, extra, message):
    path = _file(tmp_path)
    (tmp_path / "ids.txt").write_text("1\n2\n999\n")
    monkeypatch.chdir(tmp_path)
    status, out, err = _run(capsys, "judge", path, *ARGS, *EST, *extra)
    assert status in (1, 2)
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert out == ""
    if not extra:
        assert "--labelled-share" in err and "--labelled FILE" in err


def test_estimate_of_a_label_that_is_not_there(tmp_path, capsys):
    path = _file(tmp_path)
    status, out, err = _run(capsys, "judge", path, *ARGS, "--candidates", "judge",
                            "--margin", "0.05", "--estimate", "7", "--labelled-share", "0.2")
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and "--estimate '7' is not a label of the file" in err


def test_readme_estimate_example_is_what_the_command_prints():
    # README, "Can a model replace my annotators?": the --estimate example on PandaLM's set
    # (tests/data/pandalm2023, Apache-2.0) shows the lines the command prints, in order.
    import os
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "README.md").read_text()
    command = next(line for line in text.splitlines()
                   if line.startswith("goldnoise judge tests/data") and "--estimate" in line)
    shown = text.split("prints, after the audit:\n\n```text\n", 1)[1].split("```", 1)[0]
    out = subprocess.run([sys.executable, "-m", *shlex.split(command)], capture_output=True,
                         text=True, cwd=root, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert out.returncode == 0, out.stderr
    printed = out.stdout.splitlines()
    at = 0
    for line in shown.splitlines():
        if line == "...":
            continue
        at = printed.index(line, at) + 1  # ValueError: not printed (in this order)


def test_rating_scale_note_names_the_level_option(tmp_path, capsys):
    # the judge audit's note on numeric labels under level 'auto' (read at the interval
    # level) names --level on the command line (the Python note names `level=`)
    frame = pd.read_csv(_file(tmp_path))
    frame["label"] = frame["label"] + frame["item"] % 2 * 3 + 1  # labels 1..6
    frame.to_csv(tmp_path / "scale.csv", index=False)
    status, out, err = _run(capsys, "judge", tmp_path / "scale.csv", *ARGS, "--candidates",
                            "judge", "--margin", "0.05", "--kind-column", "rater_kind")
    assert status == 0, err
    assert "alpha at the interval level, as for a rating scale" in out
    assert "--level nominal treats them as unordered categories" in out
    assert "level='nominal'" not in out
