"""`goldnoise audit --bootstrap` and `goldnoise simulate coverage`: the numbers are the API's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreement import Ratings, bootstrap
from goldnoise._cli import MESSAGES, main
from goldnoise.datasets import load_fleiss1971
from simulation import gamma_coverage, verified_sample_coverage

ROOT = Path(__file__).resolve().parents[1]


def _without_notice(err: str) -> str:
    """stderr without the one compiling line (an empty cache, or a new kind of data)."""
    for message in MESSAGES:
        err = err.replace(message + "\n", "", 1)
    return err


def _wide(tmp_path):
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, size=60)
    x = np.where(rng.random((60, 3)) < 0.7, truth[:, None], rng.integers(0, 3, size=(60, 3)))
    path = tmp_path / "ratings.csv"
    pd.DataFrame(x, columns=["a", "b", "c"]).to_csv(path, index=False)
    return path, x


def test_audit_bootstrap_matches_the_api(tmp_path, capsys):
    path, x = _wide(tmp_path)
    argv = ["audit", str(path), "--bootstrap", "300", "--seed", "4", "--no-latent", "--json"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    # no progress bar off a terminal (only, on an empty kernel cache, the compiling notice)
    assert _without_notice(cap.err) == ""
    section = json.loads(cap.out)["sections"]["bootstrap"]
    rows = {r["coefficient"]: r for r in section["tables"]["intervals"]["rows"]}
    assert section["values"]["n_resamples"] == 300 and section["values"]["seed"] == 4
    names = ["percent_agreement", "fleiss_kappa", "conger_kappa", "light_kappa",
             "brennan_prediger", "gwet_ac1"]
    shown = ["Percent agreement", "Fleiss' kappa", "Conger's kappa", "Light's kappa",
             "Brennan-Prediger", "Gwet's AC1"]
    res = bootstrap(names, Ratings.from_wide(x), n_resamples=300, rng=4)
    for i, name in enumerate(shown):
        assert rows[name]["bootstrap_se"] == pytest.approx(res.standard_error[i], abs=1e-12)
        assert rows[name]["percentile_low"] == pytest.approx(res.interval.low[i],
                                                             abs=1e-12)
    bca = bootstrap("krippendorff_alpha", Ratings.from_wide(x), n_resamples=300, rng=4,
                    method="bca")
    alpha = rows["Krippendorff's alpha (nominal)"]
    assert alpha["bca_high"] == pytest.approx(bca.interval.high[0], abs=1e-12)
    assert alpha["analytic_se"] > 0
    # same seed, same report
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)["sections"]["bootstrap"]
    assert again == section


def test_audit_bootstrap_text_on_a_count_table(capsys):
    assert main(["audit", "--example", "fleiss1971", "--bootstrap", "200", "--no-latent"]) == 0
    out = capsys.readouterr().out
    assert "Bootstrap over items (200 resamples, seed 0)" in out
    assert "percentile 95%" in out and "BCa 95%" in out
    assert "Cohen's kappa" not in out.split("Bootstrap over items")[1].split("\n\n")[0]


def test_simulate_coverage_matches_the_api(capsys):
    assert main(["simulate", "coverage", "300", "--hard", "0", "30", "300", "--sims", "200",
                 "--seed", "5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = report["sections"]["coverage"]["tables"]["coverage"]["rows"]
    tab = gamma_coverage(300, [0, 30, 300], n_sims=200, rng=5)
    assert [r["coverage"] for r in rows] == pytest.approx(list(tab["coverage"]), abs=1e-15)
    assert report["parameters"]["hard"] == "0 30 300"
    assert any("coverage below 0.95" in n for n in report["sections"]["coverage"]["notes"])


def test_simulate_coverage_verified_csv(capsys):
    assert main(["simulate", "coverage", "1000", "--bound", "verified", "--sample-size", "80",
                 "--errors", "0", "50", "--sims", "100", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("error_count,coverage,")
    tab = verified_sample_coverage(1000, [0, 50], sample_size=80, n_sims=100, rng=0)
    assert float(out.splitlines()[2].split(",")[1]) == pytest.approx(tab["coverage"].iloc[1])


@pytest.mark.parametrize(("argv", "message"), [
    (["simulate", "coverage", "100", "--bound", "verified"], "needs --sample-size"),
    (["simulate", "coverage", "100", "--hard", "101"], "at most N = 100"),
    (["simulate", "coverage", "100", "--error-rate", "0.1"], "applies to --model M2"),
    (["simulate", "coverage", "100", "--bound", "verified", "--sample-size", "101"],
     "at most N = 100"),
])
def test_simulate_usage_errors(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_progress_bar_only_on_a_terminal(monkeypatch, capsys):
    # `goldnoise simulate coverage` (as the audit's bootstrap) shows a tqdm bar on stderr
    # only when stderr is a terminal, after a delay (short runs stay silent); the bar is
    # made to show at once here by a tqdm that ignores the delay.
    import tqdm

    bars = []

    class Immediate(tqdm.tqdm):
        def __init__(self, *args, **kwargs):
            bars.append(dict(kwargs))
            super().__init__(*args, **{**kwargs, "delay": 0.0})

    monkeypatch.setattr(tqdm, "tqdm", Immediate)
    monkeypatch.delenv("GOLDNOISE_PROGRESS", raising=False)
    argv = ["simulate", "coverage", "50", "--sims", "20", "--hard", "5"]
    assert main(argv) == 0  # pytest's stderr is not a terminal: no bar
    assert bars == []

    class Tty:
        def __init__(self):
            self.text = []

        def isatty(self):
            return True

        def write(self, s):
            self.text.append(s)

        def flush(self):
            pass

    fake = Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    assert main(argv) == 0
    assert [(b["total"], b["desc"], b["file"]) for b in bars] == [(20, "coverage", fake)]
    assert bars[0]["delay"] > 0  # a short run stays silent
    assert "coverage" in "".join(fake.text)
    capsys.readouterr()


def test_no_progress_holds_for_its_own_command_only(monkeypatch, capsys):
    # --no-progress switched the bars off for the rest of the process (a notebook calling
    # main twice lost its bars); the switch is now put back as it was
    monkeypatch.delenv("GOLDNOISE_PROGRESS", raising=False)
    argv = ["simulate", "coverage", "50", "--sims", "5", "--hard", "5"]
    assert main([*argv, "--no-progress"]) == 0
    assert "GOLDNOISE_PROGRESS" not in os.environ
    monkeypatch.setenv("GOLDNOISE_PROGRESS", "1")
    assert main([*argv, "--no-progress"]) == 0
    assert os.environ["GOLDNOISE_PROGRESS"] == "1"
    capsys.readouterr()


def test_console_script_runs_simulate():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "goldnoise", "simulate", "coverage", "50",
                          "--sims", "20", "--hard", "5"], capture_output=True, text=True,
                         env=env, check=True)
    # nothing on stderr but, on an empty kernel cache, the one-line compiling notice
    assert "true hard" in out.stdout
    assert _without_notice(out.stderr) == ""


def test_fleiss_rows_unchanged_by_bootstrap(capsys):
    # the analytic table is the same with and without --bootstrap
    assert main(["audit", "--example", "fleiss1971", "--no-latent", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)["sections"]["agreement"]
    assert main(["audit", "--example", "fleiss1971", "--no-latent", "--json",
                 "--bootstrap", "50"]) == 0
    assert json.loads(capsys.readouterr().out)["sections"]["agreement"] == plain
    assert load_fleiss1971().shape[0] == 30
