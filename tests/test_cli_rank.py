"""``goldnoise rank`` and ``goldnoise preferences``: pairwise votes on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

PANDALM = Path(__file__).resolve().parent / "data" / "pandalm2023"


def _run(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _votes(tmp_path, *, both=True):
    g = np.random.default_rng(0)
    theta = {"x": 0.8, "y": 0.0, "z": -0.8}
    rows = []
    for u in range(90):
        a, b = [("x", "y"), ("y", "z"), ("x", "z")][u % 3]
        better = "a" if g.random() < 1 / (1 + np.exp(theta[b] - theta[a])) else "b"
        for h in ("h1", "h2", "h3"):
            w = better if g.random() < 0.9 else {"a": "b", "b": "a"}[better]
            rows.append((u, a, b, h, w, "ab", "human"))
        for order in (("ab", "ba") if both else ("ab",)):
            rows.append((u, a, b, "judge", better if g.random() < 0.8 else "a", order, "llm"))
    path = tmp_path / "votes.csv"
    pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "order",
                                "rater_kind"]).to_csv(path, index=False)
    return path


def test_rank_text_and_json(tmp_path, capsys):
    path = _votes(tmp_path)
    status, out, _ = _run(capsys, "rank", path)
    assert status == 0
    assert "top system x" in out and "drop-k (greedy): removing at most" in out
    status, out, _ = _run(capsys, "rank", path, "--json", "--no-drop-k")
    rows = json.loads(out)["sections"]["ranking"]["tables"]["systems"]["rows"]
    assert [r["system"] for r in rows] == ["x", "y", "z"]
    assert all(r["rank_low"] <= r["rank"] <= r["rank_high"] for r in rows)


def test_rank_with_judges(tmp_path, capsys):
    status, out, _ = _run(capsys, "rank", _votes(tmp_path), "--judges", "judge",
                          "--labelled-share", "0.3", "--seed", "1", "--no-drop-k")
    assert status == 0
    assert "PPI++" in out and "The same humans alone" in out


def test_preferences(tmp_path, capsys):
    status, out, _ = _run(capsys, "preferences", _votes(tmp_path), "--model", "one-coin",
                          "--resamples", "20")
    assert status == 0
    assert "both orders" in out and "Krippendorff" in out and "judge" in out


@pytest.mark.parametrize("change, message", [
    (lambda d: d.assign(b=d["a"]), "compare a system with itself"),
    (lambda d: d.assign(winner="q"), "neither system"),
    (lambda d: d.drop(columns="winner"), "--winner"),
])
def test_bad_votes_one_line(tmp_path, capsys, change, message):
    path = _votes(tmp_path)
    bad = tmp_path / "bad.csv"
    change(pd.read_csv(path)).to_csv(bad, index=False)
    status, _out, err = _run(capsys, "rank", bad)
    assert status == 1
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_pandalm_layout(capsys):
    status, out, _ = _run(capsys, "rank", PANDALM / "ratings.csv", "--items",
                          PANDALM / "items.csv", "--no-drop-k")
    assert status == 0 and "top system llama-7b" in out
