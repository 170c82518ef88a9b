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
