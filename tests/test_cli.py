"""The `goldnoise` command line: the README's main job and its errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from goldnoise._cli import main
from goldnoise.datasets import load_fleiss1971


def test_audit_bundled_example(capsys):
    assert main(["audit", "--example", "fleiss1971"]) == 0
    out = capsys.readouterr().out
    assert "30 items, 6 annotators, 5 categories" in out
    assert "gamma =" in out
    assert "Fleiss" in out


def test_audit_json_matches_api(capsys):
    from agreement import Ratings
    from noise_models import noise_bound

    assert main(["audit", "--example", "fleiss1971", "--json", "--alpha", "0.9"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = noise_bound(Ratings.from_wide(load_fleiss1971()), alpha=0.9)
    assert report["sections"]["noise_bound"]["values"]["gamma"] == pytest.approx(expected.gamma, rel=1e-12)


def test_audit_file_wide_and_long(tmp_path, capsys):
    wide = load_fleiss1971(names=False)
    wide.to_csv(tmp_path / "wide.csv")
    assert main(["audit", str(tmp_path / "wide.csv"), "--item", "subject", "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    long = wide.reset_index().melt(id_vars="subject", var_name="rater", value_name="label")
    long.to_parquet(tmp_path / "long.parquet")
    assert main(["audit", str(tmp_path / "long.parquet"), "--layout", "long", "--item", "subject",
                 "--json"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert (a["sections"]["noise_bound"]["values"]["gamma"]
            == pytest.approx(b["sections"]["noise_bound"]["values"]["gamma"]))


def test_bound_worked_example(capsys):
    # SPEC §2.3: n = 1000, d = 100, p = 0.5, alpha = 0.95 -> 125 hidden, gamma = 125/900.
    assert main(["bound", "1000", "100", "0.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sections"]["noise_bound"]["values"]["gamma"] == pytest.approx(125 / 900)


@pytest.mark.parametrize(
    ("argv", "message", "status"),
    [
        (["audit"], "give a FILE of ratings or --example", 2),
        (["audit", "missing.csv"], "no such file", 1),
        (["audit", "x.xlsx"], "no such file", 1),
        (["bound", "10", "20", "0.5"], "D = 20", 2),
    ],
)
def test_errors_are_messages_not_tracebacks(argv, message, status, capsys):
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.startswith("goldnoise: error:") and message in err
    assert "Traceback" not in err


def test_bad_alpha_is_rejected_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--example", "fleiss1971", "--alpha", "1.5"])
    assert exc.value.code == 2
    assert "--alpha must be in (0, 1)" in capsys.readouterr().err


def test_unsupported_file_type(tmp_path, capsys):
    path = tmp_path / "ratings.xlsx"
    path.write_text("x")
    assert main(["audit", str(path)]) == 2
    assert "unsupported file type" in capsys.readouterr().err


def test_malformed_long_file(tmp_path, capsys):
    pd.DataFrame({"item": [1], "who": ["a"], "label": [1]}).to_csv(tmp_path / "l.csv", index=False)
    assert main(["audit", str(tmp_path / "l.csv"), "--layout", "long"]) == 1
    assert "say which columns hold the --rater" in capsys.readouterr().err


def test_console_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "goldnoise", "examples"], capture_output=True,
                         text=True, check=True)
    assert "fleiss1971" in out.stdout


def test_fleiss_example_is_a_count_table(capsys):
    # The six columns of Fleiss (1971) are rating slots, not six people: the audit
    # must not report annotator-level coefficients (Cohen, Conger, Light) for them.
    assert main(["audit", "--example", "fleiss1971"]) == 0
    out = capsys.readouterr().out
    assert "Conger's kappa not computed: needs annotator identity" in out
    assert "Fleiss' kappa                   0.4302" in out


def test_plan_matches_api(capsys):
    from noise_models import annotators_needed

    assert main(["plan", "1000", "--easy-fraction", "0.8", "--gamma", "0.05", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["sections"]["plan"]["values"]
    assert out["n_raters"] == annotators_needed(1000, easy_fraction=0.8, gamma=0.05).n_raters == 4
