"""`goldnoise detect` and `goldnoise crosscheck`: model scores from files on the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from goldnoise._cli import main
from simulation import mix_protocols, simulate_annotations


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("detect")
    sim = simulate_annotations(300, 4, model="M2", error_rates=0.2, hard_share=0.0,
                               n_categories=3, categories=["a", "b", "c"], rng=0)
    ids = [f"t{i}" for i in range(300)]
    wide = sim.ratings.to_wide()
    wide.index = pd.Index(ids, name="id")
    wide.to_csv(d / "ratings.csv")
    noisy = mix_protocols({"dissenting_worker": 0.8, "dissenting_label": 0.2}, sim.ratings,
                          sim.true_labels, rate=0.1, rng=0)
    rng = np.random.default_rng(1)
    probs = {}
    for m in ("bert", "roberta"):
        z = rng.normal(size=(300, 3))
        z[np.arange(300), sim.true_class] += 2
        p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
        probs[m] = p
        perm = rng.permutation(300)  # rows shuffled: alignment is by id
        f = pd.DataFrame(p[perm], columns=["a", "b", "c"])
        f.insert(0, "id", np.asarray(ids)[perm])
        f.to_csv(d / f"{m}.csv", index=False)
    pd.DataFrame({"id": ids, "label": noisy.labels.to_numpy()}).to_csv(d / "labels.csv",
                                                                       index=False)
    pd.DataFrame({"id": ids, "is_error": noisy.changed}).to_csv(d / "errors.csv", index=False)
    return d, noisy, probs


def test_detect_ranks_by_the_ensemble_loss_and_scores_it(files, capsys):
    d, noisy, probs = files
    out = d / "ranking.csv"
    code = main(["detect", str(d / "ratings.csv"), str(d / "bert.csv"), str(d / "roberta.csv"),
                 "--item", "id", "--labels", str(d / "labels.csv"), "--truth",
                 str(d / "errors.csv"), "--resamples", "100", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    values = report["sections"]["detection"]["values"]
    p = (probs["bert"] + probs["roberta"]) / 2
    lab = pd.Index(["a", "b", "c"]).get_indexer(noisy.labels.to_numpy())
    loss = -np.log(p[np.arange(300), lab])
    assert values["average_precision"] == pytest.approx(
        average_precision_score(noisy.changed, loss), abs=1e-12)
    assert values["auroc"] == pytest.approx(roc_auc_score(noisy.changed, loss), abs=1e-12)
    assert values["average_precision_low"] <= values["average_precision"]
    code = main(["detect", str(d / "ratings.csv"), str(d / "bert.csv"), "--item", "id",
                 "--labels", str(d / "labels.csv"), "--method", "confident_learning",
                 "--out", str(out), "--quiet"])
    assert code == 0
    ranking = pd.read_csv(out)
    assert list(ranking.columns) == ["rank", "item", "label", "score", "flagged"]
    assert len(ranking) == 300 and ranking["rank"].tolist() == list(range(1, 301))
    assert ranking.flagged.iloc[0] and not ranking.flagged.iloc[-1]


def test_crosscheck_verb(files, capsys):
    d, _, _ = files
    code = main(["crosscheck", str(d / "ratings.csv"), str(d / "bert.csv"), "--item", "id",
                 "--labels", str(d / "labels.csv"), "--truth", str(d / "errors.csv"),
                 "--format", "json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    values = report["sections"]["crosscheck"]["values"]
    assert 0 <= values["auroc_posterior"] <= 1
    assert "γ" in values["verdict"]
    assert set(report["sections"]) == {"crosscheck", "detection", "items"}


def test_bad_score_files_are_one_line_errors(files, capsys):
    d, _, _ = files
    assert main(["detect", str(d / "ratings.csv"), str(d / "nope.csv"), "--item", "id"]) == 1
    assert "no such score file" in capsys.readouterr().err
    short = d / "short.csv"
    pd.read_csv(d / "bert.csv").iloc[:-2].to_csv(short, index=False)
    assert main(["detect", str(d / "ratings.csv"), str(short), "--item", "id"]) == 1
    err = capsys.readouterr().err
    assert "lacks 2 of the items" in err and len(err.strip().splitlines()) == 1
    assert main(["detect", str(d / "ratings.csv"), str(d / "bert.csv"), "--item", "id",
                 "--model", "gpt"]) == 2
    assert "--model 'gpt' is not among the models" in capsys.readouterr().err


def test_detect_through_the_console_script(files):
    d, _, _ = files
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-m", "goldnoise", "detect", str(d / "ratings.csv"),
                          str(d / "bert.csv"), "--item", "id", "--format", "csv"],
                         capture_output=True, text=True, check=True, env=env)
    assert out.stdout.splitlines()[0] == "rank,item,label,score"
