"""The plumbing of benchmarks/bench_policies.py on a tiny synthetic set (the replays on
the public crowd sets are the benchmark's, not the test suite's)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_policies",
                                                      BENCH / "bench_policies.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.path.remove(str(BENCH))


def _long(n: int, k: int, seed: int):
    g = np.random.default_rng(seed)
    truth = g.integers(0, 3, n)
    acc = g.uniform(0.55, 0.9, k)
    right = g.random((n, k)) < acc
    x = np.where(right, truth[:, None], (truth[:, None] + g.integers(1, 3, (n, k))) % 3)
    ii, jj = np.nonzero(np.ones((n, k), dtype=bool))
    return (pd.DataFrame({"item": ii, "worker": jj, "label": x[ii, jj]}),
            pd.DataFrame({"item": np.arange(n), "truth": truth}))


def _write_set(folder, n_items, n_workers, *, seed):
    """A crowd set as ../shared/data/crowd_gold lays one out: label.csv and truth.csv."""
    lab, truth = _long(n_items, n_workers, seed=seed)
    folder.mkdir(parents=True)
    lab.to_csv(folder / "label.csv", index=False)
    truth.to_csv(folder / "truth.csv", index=False)
    return lab, truth


def test_bench_policies_runs_on_a_tiny_set_and_skips_absent_ones(bench, tmp_path, capsys):
    from simulation.reannotation import _replay

    _write_set(tmp_path / "gold" / "bluebird", 60, 7, seed=0)
    # the collection's layout (a checkout): datasets/<folder>/answer.csv and truth.csv
    face = tmp_path / "coll" / "datasets" / bench.COLLECTION_SETS["face"]
    face.mkdir(parents=True)
    lab2, truth2 = _long(50, 6, seed=1)
    lab2.rename(columns={"item": "question", "label": "answer"}).to_csv(
        face / "answer.csv", index=False)
    truth2.rename(columns={"item": "question"}).to_csv(face / "truth.csv", index=False)
    real = _replay.next_batch
    body = bench.main(["--seeds", "2", "--sets", "bluebird", "face", "rte",
                       "--configs", "margin", "ActiveLab", "--batch-share", "0.5",
                       "--data", str(tmp_path / "gold"), "--collection",
                       str(tmp_path / "coll")])
    assert _replay.next_batch is real  # the ActiveLab stand-in is undone
    assert "absent, skipped: rte" in body
    for name in ("bluebird", "face"):
        assert f"**{name}**" in body and f"| {name} | " in body
    table = body.split("**bluebird**")[1].split("**face**")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert [row.split(" | ")[0] for row in rows] == ["| uniform", "| margin", "| ActiveLab"]
    # uniform's own saving is not shown; the others are percentages of uniform's ratings
    assert rows[0].rstrip().endswith("| — |") and "%" in rows[1] and "%" in rows[2]
    capsys.readouterr()
    assert bench.main(["--sets", "rte", "--data", str(tmp_path / "none")]) == ""
    assert "no crowd set found" in capsys.readouterr().err


def test_activelab_scores_choose_the_split_items(bench):
    from agreement import Ratings

    # items 0-4 unanimous, items 5-9 split: ActiveLab asks for the split ones first
    x = np.array([[0, 0, 0, 0]] * 5 + [[0, 1, 0, 1]] * 5, dtype=float)
    r = Ratings.from_wide(x)
    scores = bench._activelab_scores(r)
    assert scores[5:].max() < scores[:5].min()
    ok = np.ones(10, dtype=bool)
    ok[5] = False
    chosen = bench._activelab(r, None, ok, 3, np.random.default_rng(0))
    assert set(chosen) <= {6, 7, 8, 9} and len(chosen) == 3


def test_later_seeds_are_merged_from_the_cache(bench, tmp_path):
    _write_set(tmp_path / "gold" / "rte", 40, 6, seed=2)
    base = ["--sets", "rte", "--part", "replays", "--configs", "margin", "--batch-share",
            "0.5", "--data", str(tmp_path / "gold"), "--cache", str(tmp_path / "cache")]
    one = bench.main([*base, "--seeds", "1"])
    assert "seed 0;" in one
    bench.main([*base, "--seeds", "1", "--first-seed", "1"])
    both = bench.main([*base, "--seeds", "1"])  # seed 0 from the cache, seed 1 merged
    assert "seeds 0 – 1;" in both
    with pytest.raises(ValueError, match="other configurations"):
        bench.main([*base, "--seeds", "1", "--first-seed", "2", "--configs", "uncertainty"])
        bench.main([*base, "--seeds", "1"])


def test_the_replay_stopped_at_the_goal_spends_what_the_full_replay_records(bench, request):
    from agreement import Ratings
    from simulation import replay

    lab, truth = _long(80, 7, seed=3)
    r = Ratings.from_long(lab, item="item", rater="worker", label="label")
    truth = truth.set_index("item")["truth"]
    model = bench.refit_model()
    # The stopping rule is the policy's caller, the same for all: the default run checks a
    # model policy and the stand-in one, `pytest --slow` every configuration.
    every = request.config.getoption("--slow")
    for cfg in (("uniform", "margin", "hard", "random", "ActiveLab") if every
                else ("margin", "ActiveLab")):
        full = bench._run(r, truth, cfg, 0, 3, 8, None, model, goal=-1.0)  # never stops early
        assert full == 240.0  # the goal is met at the start
        ctx = (bench._stand_in_for(cfg))
        with ctx:
            whole = replay(r, truth=truth, policy=bench.CONFIGS[cfg][0],
                           posterior=bench.CONFIGS[cfg][1], start_ratings=3, batch_size=8,
                           model=model, rng=0)
        acc = whole.rounds["accuracy"].to_numpy()
        goal = float(np.sort(acc)[-2])  # reached after some rounds, not at the start
        assert bench._run(r, truth, cfg, 0, 3, 8, None, model, goal) == \
            whole.ratings_to_reach(goal)
        assert np.isnan(bench._run(r, truth, cfg, 0, 3, 8, 8, model, 1.01))  # never reached


def test_the_batch_share_per_set(bench):
    assert bench._shares(["0.05"]) == {None: [0.05]}
    assert bench._shares(["rte=0.2", "rte=0.05"]) == {None: [0.1], "rte": [0.2, 0.05]}
    with pytest.raises(SystemExit, match="must lie in"):
        bench._shares(["web=1.5"])


def test_duck_against_bluebird_finds_a_changed_rating(bench, tmp_path):
    lab, truth = _write_set(tmp_path / "gold" / "bluebird", 12, 4, seed=4)
    duck = tmp_path / "coll" / "datasets" / "d_Duck Identification"
    duck.mkdir(parents=True)
    # the same ratings under other ids, in the same order of ids
    d = lab.assign(item=lab["item"] * 7 + 100, worker=lab["worker"] + 50)
    d.rename(columns={"item": "question", "label": "answer"}).to_csv(duck / "answer.csv",
                                                                       index=False)
    t = truth.assign(item=truth["item"] * 7 + 100).rename(columns={"item": "question"})
    t.to_csv(duck / "truth.csv", index=False)
    said = bench.duck_against_bluebird(tmp_path / "gold", tmp_path / "coll")
    assert "48 of 48 ratings and 12 of 12 gold labels agree" in said and "the same set" in said
    d.loc[5, "label"] = 1 - d.loc[5, "label"] if d.loc[5, "label"] < 2 else 0
    d.rename(columns={"item": "question", "label": "answer"}).to_csv(duck / "answer.csv",
                                                                       index=False)
    said = bench.duck_against_bluebird(tmp_path / "gold", tmp_path / "coll")
    assert "47 of 48 ratings" in said and "not the same set" in said
    assert bench.duck_against_bluebird(tmp_path / "none", tmp_path / "coll") is None


def test_the_trec_set_keeps_judged_items_and_binarises_the_grades(bench, tmp_path):
    import bz2

    d = tmp_path / "gal" / "data" / "JeroenVuurens"
    d.mkdir(parents=True)
    (d / "votes").write_text("1\t5_docA\t7\t1\n2\t5_docA\t8\t0\n1\t5_docB\t7\t0\n"
                             "1\t5_docC\t7\t1\n")
    (d / "otherparticipantsvotes").write_text("5_docA\tworker_1  \t1\n5_docA\tworker_1  \t0\n"
                                              "5_docB\tworker_2\t1\n5_docD\tworker_2\t1\n")
    gold = ("SetId\tTopicId\tDocId\tG-Truth\tmore\n1\t5\tdocA\t2\tx\n1\t5\tdocB\t0\tx\n"
            "1\t5\tdocC\t-1\tx\n1\t5\tdocE\t1\tx\n")
    (d / "task1_unlabeled_g_truth_cons_public.txt.bz2").write_bytes(bz2.compress(gold.encode()))
    lab, truth = bench._read_gal(tmp_path / "gal", "trec")
    # docC unjudged (-1), docD without gold, docE without ratings: dropped
    assert truth.set_index("item")["truth"].to_dict() == {"5_docA": 1, "5_docB": 0}
    assert sorted(lab["item"].unique()) == ["5_docA", "5_docB"]
    # worker_1's second label of docA dropped; team workers kept apart from the others
    assert len(lab) == 5 and set(lab["worker"]) == {"team-7", "team-8", "worker_1",
                                                   "worker_2"}
    assert bench._read_gal(tmp_path / "none", "adult") is None


def test_a_set_run_at_two_batch_shares_gets_a_table_for_each(bench, tmp_path):
    _write_set(tmp_path / "gold" / "dog", 40, 6, seed=5)
    base = ["--sets", "dog", "--part", "replays", "--configs", "margin", "--data",
            str(tmp_path / "gold"), "--cache", str(tmp_path / "cache"), "--seeds", "1"]
    only = bench.main([*base, "--batch-share", "dog=0.5", "dog=0.25", "--cached-only"])
    assert "**dog" not in only  # nothing cached yet: nothing run
    bench.main([*base, "--batch-share", "0.5"])
    both = bench.main([*base, "--batch-share", "dog=0.5", "dog=0.25"])
    assert "**dog, 50% batches**" in both and "**dog, 25% batches**" in both
    assert "batches of 20 (50% of the items)" in both
    assert "batches of 10 (25% of the items)" in both
