"""The Dask path equals the in-memory path, statistic by statistic, to 1e-12.

Data: long-format ratings with missing ratings, written as several Parquet
files with every item's ratings scattered over the files (as a distributed
job writes them), read back with ``goldnoise.dask.read_ratings`` under the
synchronous scheduler and under a two-process ``LocalCluster``, with several
numbers of partitions. The reference is the same statistic on
``Ratings.from_long`` of the whole table.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe", reason="the Dask path needs the `dask` extra "
                    "(pip install 'goldnoise[dask]')")
pytest.importorskip("distributed", reason="the Dask path needs the `dask` extra "
                    "(pip install 'goldnoise[dask]')")

import agreement
from agreement import Ratings, agreement_table, bootstrap
from goldnoise.dask import read_ratings
from noise_models import LatentClassModel, noise_bound
from simulation import simulate_annotations

RTOL = 1e-12
COEFFICIENTS = ["percent_agreement", "fleiss_kappa", "conger_kappa", "light_kappa",
                "brennan_prediger", "gwet_ac1"]
LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def _long(n_items=400, k=5, m=4, seed=7, missing=0.25):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, m + 1, size=n_items)
    labels = np.where(rng.random((n_items, k)) < 0.7, truth[:, None],
                      rng.integers(1, m + 1, size=(n_items, k)))
    keep = rng.random((n_items, k)) >= missing
    ii, jj = np.nonzero(keep)
    frame = pd.DataFrame({"item": 1000 + ii, "rater": np.array([f"r{j}" for j in range(k)])[jj],
                          "label": labels[ii, jj].astype(np.int64)})
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # scattered


def _write(frame, path, n_files):
    path.mkdir()
    bounds = np.linspace(0, len(frame), n_files + 1).astype(int)
    for f in range(n_files):
        frame.iloc[bounds[f]:bounds[f + 1]].to_parquet(path / f"part-{f:03d}.parquet",
                                                       index=False)
    return str(path / "*.parquet")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    frame = _long()
    glob = _write(frame, tmp_path_factory.mktemp("long") / "ratings", 5)
    return frame, glob, Ratings.from_long(frame)


def _same(a, b):
    assert a.coefficient == b.coefficient
    for field in ("value", "observed", "expected", "standard_error"):
        x, y = getattr(a, field), getattr(b, field)
        assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=RTOL, abs=1e-14)
    assert (a.n_items, a.n_pairable, a.n_categories) == (b.n_items, b.n_pairable,
                                                          b.n_categories)
    assert a.notes == b.notes
    assert a.ci_method == b.ci_method


def _check_all(lazy, mem):
    for name in COEFFICIENTS:
        fn = getattr(agreement, name)
        for weights in (None, "quadratic"):
            _same(fn(lazy, weights=weights), fn(mem, weights=weights))
    for level in LEVELS:
        _same(agreement.krippendorff_alpha(lazy, level=level),
              agreement.krippendorff_alpha(mem, level=level))


@pytest.mark.parametrize("npartitions", [1, 3, 8])
def test_synchronous_equals_in_memory(data, npartitions):
    frame, glob, mem = data
    lazy = read_ratings(glob, npartitions=npartitions, scheduler="synchronous")
    assert (lazy.n_items, lazy.n_ratings) == (mem.n_items, mem.n_ratings)
    rep = lazy.shuffle_report
    assert rep.shuffled and rep.rows == len(frame) and rep.partitions_in == 5
    # Scattered rows: almost every item had ratings in several files.
    assert rep.items_split > 0.9 * mem.n_items
    assert 0 < rep.rows_moved <= rep.rows
    _check_all(lazy, mem)


def test_two_annotator_coefficients(tmp_path):
    frame = _long(n_items=300, k=2, missing=0.1, seed=3)
    mem = Ratings.from_long(frame)
    lazy = read_ratings(_write(frame, tmp_path / "two", 4), npartitions=3,
                        scheduler="synchronous")
    for name in ("cohen_kappa", "scott_pi", "fleiss_kappa"):
        fn = getattr(agreement, name)
        _same(fn(lazy, weights="linear"), fn(mem, weights="linear"))
    # complete data: Cohen's κ takes the Fleiss-Cohen-Everitt SE, normal interval
    full = frame[frame.groupby("item")["rater"].transform("size") == 2]
    lazy = read_ratings(full, npartitions=4, scheduler="synchronous")
    _same(agreement.cohen_kappa(lazy), agreement.cohen_kappa(Ratings.from_long(full)))


def test_agreement_table_equals_in_memory(data):
    _, glob, mem = data
    lazy = read_ratings(glob, npartitions=4, scheduler="synchronous")
    got = agreement_table(lazy, weights="linear")
    want = agreement_table(mem, weights="linear")
    assert list(got.index) == list(want.index)
    # Scott's π is refused on both; in memory the reason names the first item with
    # three ratings, which depends on the item order.
    assert got.loc["Scott's pi", "notes"].startswith("not computed: `scott_pi` is defined")
    got.loc["Scott's pi", "notes"] = want.loc["Scott's pi", "notes"]
    pd.testing.assert_frame_equal(got, want, rtol=RTOL, atol=1e-14)


def test_grouped_files_are_not_shuffled(tmp_path):
    frame = _long(n_items=200, seed=11).sort_values("item")
    path = tmp_path / "grouped"
    path.mkdir()
    items = frame["item"].unique()
    for f, block in enumerate(np.array_split(items, 4)):
        frame[frame["item"].isin(block)].to_parquet(path / f"g{f}.parquet", index=False)
    lazy = read_ratings(str(path), scheduler="synchronous")
    assert not lazy.shuffle_report.shuffled
    assert lazy.shuffle_report.rows_moved == 0
    assert "no shuffle" in str(lazy.shuffle_report)
    _same(agreement.fleiss_kappa(lazy), agreement.fleiss_kappa(Ratings.from_long(frame)))


def test_unshuffled_split_items_are_detected(data):
    frame, _, mem = data
    # "auto" sees that items span partitions and shuffles; the result is exact.
    lazy = read_ratings(frame, npartitions=6, scheduler="synchronous")
    assert lazy.shuffle_report.shuffled
    _same(agreement.gwet_ac1(lazy), agreement.gwet_ac1(mem))


def test_degenerate_and_refusals_as_in_memory():
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                          "label": ["x", "x", "x", "x"]})
    lazy = read_ratings(frame, npartitions=2, scheduler="synchronous")
    with pytest.warns(agreement.DegenerateDataWarning, match="undefined") as rec:
        res = agreement.fleiss_kappa(lazy)
    assert math.isnan(res.value)
    assert rec[0].filename == __file__  # the warning points at the caller
    with pytest.warns(agreement.DegenerateDataWarning, match="D_e is 0"):
        agreement.krippendorff_alpha(lazy)
    three = pd.DataFrame({"item": [1, 1, 1], "rater": ["a", "b", "c"], "label": [1, 2, 2]})
    with pytest.raises(ValueError, match="exactly two annotators"):
        agreement.cohen_kappa(read_ratings(three, scheduler="synchronous"))
    with pytest.raises(ValueError, match="at most two ratings per item"):
        agreement.scott_pi(read_ratings(three, scheduler="synchronous"))


def test_reader_validation(tmp_path):
    frame = _long(n_items=10)
    with pytest.raises(KeyError, match="not in the data"):
        read_ratings(frame, item="unit", scheduler="synchronous")
    with pytest.raises(ValueError, match="`shuffle` must be one of"):
        read_ratings(frame, shuffle="yes", scheduler="synchronous")
    with pytest.raises(ValueError, match="`npartitions` must be a positive integer"):
        read_ratings(frame, npartitions=0, scheduler="synchronous")
    with pytest.raises(ValueError, match="three different columns"):
        read_ratings(frame, rater="item", scheduler="synchronous")
    with pytest.raises(TypeError, match="`path_or_glob` must be"):
        read_ratings(3.5, scheduler="synchronous")
    dup = pd.concat([frame.iloc[:1], frame.iloc[:1]])
    with pytest.raises(ValueError, match="more than once"):
        read_ratings(dup, scheduler="synchronous")


@pytest.fixture(scope="module")
def cluster_client():
    import dask

    distributed = pytest.importorskip("distributed")
    # Generous timeouts: the machine running the suite may be busy.
    with dask.config.set({"distributed.comm.timeouts.connect": "120s",
                          "distributed.deploy.lost-worker-timeout": "120s"}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=":0", silence_logs=50,
                                     timeout="180s") as cluster, \
            distributed.Client(cluster, timeout="180s") as client:
        # Both worker processes registered before any test (a busy machine starts them late).
        client.wait_for_workers(2, timeout=180)
        yield client


def test_local_cluster_equals_in_memory(data, cluster_client):
    _, glob, mem = data
    lazy = read_ratings(glob, npartitions=3)
    assert lazy.n_items == mem.n_items
    assert len(cluster_client.scheduler_info()["workers"]) == 2
    _check_all(lazy, mem)


def test_goldnoise_imports_no_dask():
    import subprocess
    import sys

    code = ("import sys, goldnoise, agreement, noise_models, simulation; "
            "print(any(m == 'dask' or m.startswith(('dask.', 'distributed')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------- γ and the latent-class EM
def _simulated(missing=0.0, seed=1, n=1500):
    sim = simulate_annotations(n, 5, model="M2", n_categories=3,
                               error_rates=[0.1, 0.15, 0.2, 0.25, 0.3],
                               class_shares=[0.5, 0.3, 0.2], hard_share=0.1, missing=missing,
                               rng=seed)
    return sim.ratings.to_long().sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _same_bound(a, b):
    assert (a.gamma, a.t0, a.n, a.d, a.method, a.notes) == (b.gamma, b.t0, b.n, b.d, b.method,
                                                            b.notes)
    assert a.p == pytest.approx(b.p, rel=RTOL)
    assert a.chance.q.equals(b.chance.q.loc[a.chance.q.index])


@pytest.mark.parametrize("missing", [0.0, 0.3])
@pytest.mark.parametrize("npartitions", [1, 4])
def test_noise_bound_equals_in_memory(missing, npartitions):
    long = _simulated(missing)
    lazy = read_ratings(long, npartitions=npartitions, scheduler="synchronous")
    _same_bound(noise_bound(lazy), noise_bound(Ratings.from_long(long)))


def test_noise_bound_without_disagreement_warns_as_in_memory():
    long = pd.DataFrame({"item": [1, 1, 2, 2, 3], "rater": ["a", "b", "a", "b", "a"],
                         "label": ["x", "x", "y", "y", "x"]})
    lazy = read_ratings(long, npartitions=2, scheduler="synchronous")
    with pytest.warns(agreement.EstimationWarning, match="no disagreed items") as rec:
        got = noise_bound(lazy)
    assert rec[0].filename == __file__
    with pytest.warns(agreement.EstimationWarning):
        _same_bound(got, noise_bound(Ratings.from_long(long)))


def _same_fit(a, b):
    assert (a.n_iter, a.converged) == (b.n_iter, b.converged)
    np.testing.assert_allclose(b.phi, a.phi, rtol=RTOL, atol=1e-14)
    for name in ("q", "error_rate", "confusion", "competence", "spam_distribution"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(y, x, rtol=1e-11, atol=1e-13)
    assert b.log_likelihood == pytest.approx(a.log_likelihood, rel=RTOL)
    np.testing.assert_allclose(b.loglik, a.loglik, rtol=RTOL)
    np.testing.assert_allclose(b.start_objectives, a.start_objectives, rtol=RTOL)
    fa, fb = a.to_frame(), b.to_frame().loc[a.to_frame().index]
    assert (fa["label"] == fb["label"]).all()
    np.testing.assert_allclose(fb["label_posterior"], fa["label_posterior"], rtol=1e-11,
                               atol=1e-13)


MODELS = [("confusion", None), ("perfect", "free"), ("spam", None), ("one-coin", "marginal")]


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize(("annotators", "hard"), MODELS)
def test_latent_class_fit_equals_in_memory(annotators, hard, merge):
    # merge=True: few distinct rows, the EM runs on them as in memory (bit-identical);
    # merge=False: one map-reduce per EM iteration over the chunks, against the
    # in-memory per-item engine.
    long = _simulated(missing=0.2, seed=3)
    lazy = read_ratings(long, npartitions=3, scheduler="synchronous")
    model = LatentClassModel(annotators, hard, rng=0, n_starts=3)
    model._merge_rows = merge
    _same_fit(model.fit(Ratings.from_long(long)), model.fit(lazy))


def test_latent_class_fit_crowd_data_iterates_over_chunks():
    # 40 annotators, 4 ratings per item: nearly every row of labels is distinct, so
    # both paths visit every item in each iteration.
    rng = np.random.default_rng(2)
    n, k = 600, 40
    truth = rng.integers(0, 3, size=n)
    raters = np.array([rng.choice(k, size=4, replace=False) for _ in range(n)])
    right = rng.random((n, 4)) < 0.75
    labels = np.where(right, truth[:, None], rng.integers(0, 3, size=(n, 4)))
    long = pd.DataFrame({"item": np.repeat(np.arange(n), 4), "rater": raters.ravel(),
                         "label": labels.ravel()}).sample(frac=1.0, random_state=0)
    lazy = read_ratings(long, npartitions=4, scheduler="synchronous")
    model = LatentClassModel("one-coin", rng=1, n_starts=2)
    _same_fit(model.fit(Ratings.from_long(long)), model.fit(lazy))


def test_cluster_bound_and_fit(cluster_client):
    long = _simulated(missing=0.2, seed=5)
    mem = Ratings.from_long(long)
    lazy = read_ratings(long, npartitions=3)
    _same_bound(noise_bound(lazy), noise_bound(mem))
    model = LatentClassModel("confusion", rng=0, n_starts=2)
    _same_fit(model.fit(mem), model.fit(lazy))


# ------------------------------------------------------------------ the Poisson bootstrap
BOOT = ["fleiss_kappa", "conger_kappa", "gwet_ac1", "krippendorff_alpha"]


def _same_boot(a, b):
    assert a.statistics == b.statistics and a.n_items == b.n_items and a.notes == b.notes
    np.testing.assert_allclose(b.estimate, a.estimate, rtol=RTOL)
    np.testing.assert_allclose(b.bootstrap_distribution, a.bootstrap_distribution, rtol=RTOL,
                               atol=1e-14)
    np.testing.assert_allclose(np.asarray(b.interval), np.asarray(a.interval), rtol=RTOL,
                               atol=1e-14)
    np.testing.assert_allclose(b.standard_error, a.standard_error, rtol=1e-10)


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("npartitions", [1, 5])
def test_poisson_bootstrap_equals_in_memory(method, npartitions):
    long = _simulated(missing=0.2, seed=4, n=800)
    lazy = read_ratings(long, npartitions=npartitions, scheduler="synchronous")
    kw = {"scheme": "poisson", "rng": 11, "n_resamples": 300, "method": method}
    _same_boot(bootstrap(BOOT, Ratings.from_long(long), **kw), bootstrap(BOOT, lazy, **kw))


def test_bootstrap_of_chunks_needs_poisson():
    lazy = read_ratings(_simulated(n=50), npartitions=2, scheduler="synchronous")
    with pytest.raises(ValueError, match="scheme='poisson'"):
        bootstrap("fleiss_kappa", lazy, n_resamples=10)


def test_cluster_bootstrap(cluster_client):
    long = _simulated(missing=0.2, seed=6, n=600)
    kw = {"scheme": "poisson", "rng": 2, "n_resamples": 200}
    _same_boot(bootstrap(BOOT, Ratings.from_long(long), **kw),
               bootstrap(BOOT, read_ratings(long, npartitions=3), **kw))


# ------------------------------------------------------------------------- the CLI
def test_cli_audit_engine_dask_equals_in_memory(tmp_path, cluster_client, capsys):
    import json

    from goldnoise._cli import main

    long = _simulated(missing=0.1, seed=8, n=400)
    path = tmp_path / "parts"
    path.mkdir()
    bounds = np.linspace(0, len(long), 4).astype(int)
    for f in range(3):
        long.iloc[bounds[f]:bounds[f + 1]].to_parquet(path / f"p{f}.parquet", index=False)
    long.to_parquet(tmp_path / "all.parquet", index=False)
    address = cluster_client.scheduler.address
    assert main(["audit", str(path / "*.parquet"), "--engine", "dask", "--scheduler", address,
                 "--json", "--no-latent"]) == 0
    lazy = json.loads(capsys.readouterr().out)
    assert main(["audit", str(tmp_path / "all.parquet"), "--layout", "long", "--json",
                 "--no-latent"]) == 0
    mem = json.loads(capsys.readouterr().out)
    got = lazy["sections"]["agreement"]["tables"]["coefficients"]["rows"]
    want = mem["sections"]["agreement"]["tables"]["coefficients"]["rows"]
    assert [r["coefficient"] for r in got] == [r["coefficient"] for r in want]
    for a, b in zip(got, want, strict=True):
        for key in ("value", "standard_error", "ci_low", "ci_high"):
            assert a[key] == pytest.approx(b[key], rel=RTOL)
    for key in ("gamma", "t0", "n", "d"):
        assert lazy["sections"]["noise_bound"]["values"][key] == \
            mem["sections"]["noise_bound"]["values"][key]
    assert lazy["sections"]["data"]["values"]["shuffle"]["shuffled"] is True


def test_cli_engine_dask_usage_errors(capsys):
    from goldnoise._cli import main

    assert main(["audit", "--example", "fleiss1971", "--engine", "dask"]) == 2
    assert "long-format Parquet" in capsys.readouterr().err
    assert main(["audit", "--example", "fleiss1971", "--scheduler", "tcp://x:1"]) == 2
    assert "--scheduler goes with --engine dask" in capsys.readouterr().err


# ----------------------------------------- the crash a new user met (issue: exit 139)
@pytest.mark.slow
@pytest.mark.parametrize("cache", ["warm", "fresh"])
def test_cli_transpose_then_dask_audits_do_not_crash(cache, tmp_path):
    # The reported sequence, each command in a fresh process: an audit with --transpose,
    # then two Dask audits of a folder of Parquet files (a local cluster of worker
    # processes). The data are large enough for the parallel E-step of the latent-class
    # fit (items x annotators >= the parallel threshold), which compiled code no longer
    # calls: only Python calls parallel kernels. "warm": the Numba cache the test run has
    # filled (where the second Dask run crashed); "fresh": an empty cache directory, then
    # the same commands again on the cache they left (minutes of compiling on 2 cores: run
    # with GOLDNOISE_FRESH_CACHE=1).
    import os
    import subprocess
    import sys
    from pathlib import Path

    from _goldnoise_lib.threads import PARALLEL_THRESHOLD
    from goldnoise._cli import KIND_MESSAGE, MESSAGE

    if cache == "fresh" and not os.environ.get("GOLDNOISE_FRESH_CACHE"):
        pytest.skip("compiles every kernel in an empty cache (minutes on 2 cores); "
                    "run with GOLDNOISE_FRESH_CACHE=1")
    sim = simulate_annotations(26_000, 8, n_categories=3, rng=5).ratings
    assert sim.codes.size >= PARALLEL_THRESHOLD
    sim.to_wide().head(200).T.to_csv(tmp_path / "coders_by_units.csv")
    glob = _write(sim.to_long(), tmp_path / "parts", 3)
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root),
                                                        os.environ.get("PYTHONPATH", "")])}
    if cache == "fresh":
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")
    runs = [["audit", str(tmp_path / "coders_by_units.csv"), "--transpose", "-q"],
            ["audit", glob, "--engine", "dask", "-q"],
            ["audit", glob, "--engine", "dask", "-q"]]
    for rerun in ([False, True] if cache == "fresh" else [True]):
        for args in runs:
            done = subprocess.run([sys.executable, "-m", "goldnoise", *args], env=env,
                                  capture_output=True, text=True, cwd=tmp_path)
            assert done.returncode == 0, (cache, args, done.returncode, done.stderr[-2000:])
            if cache == "fresh" and not rerun and args is runs[0]:
                assert MESSAGE in done.stderr  # the first run says it is compiling
            if cache == "fresh" and rerun:
                assert MESSAGE not in done.stderr, (args, done.stderr)  # all cached now
                assert KIND_MESSAGE not in done.stderr, (args, done.stderr)


def test_files_whose_label_types_differ_get_one_line(tmp_path, capsys):
    # Dask's shuffle failed deep inside ("P2P ... failed during unpack phase") when one file
    # stored the labels as integers and another as strings: refused up front, by name.
    from goldnoise._cli import main

    folder = tmp_path / "mixed"
    folder.mkdir()
    pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "label": [1, 2, 1]}).to_parquet(
        folder / "a.parquet", index=False)
    pd.DataFrame({"item": [2, 3, 3], "rater": ["b", "a", "b"],
                  "label": ["1", "2", "2"]}).to_parquet(folder / "b.parquet", index=False)
    with pytest.raises(ValueError, match=r"the column .label. holds int64 in .*a.parquet but "
                                          ".*string in .*b.parquet"):
        read_ratings(str(folder / "*.parquet"))
    assert main(["audit", str(folder / "*.parquet"), "--engine", "dask"]) == 1
    err = capsys.readouterr().err
    assert "every file must store it with one type" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_several_senders_and_receivers_equal_in_memory(data, monkeypatch):
    # Small splitting tasks: every input partition is its own sender, pieces cross over.
    from goldnoise.dask import _reader

    monkeypatch.setattr(_reader, "ROWS_PER_SPLIT", 250)
    _frame, glob, mem = data
    lazy = read_ratings(glob, npartitions=4, scheduler="synchronous")
    rep = lazy.shuffle_report
    assert rep.shuffled and (rep.partitions_in, rep.partitions_out) == (5, 4)
    assert (lazy.n_items, lazy.n_ratings) == (mem.n_items, mem.n_ratings)
    assert rep.items_split > 0.9 * mem.n_items
    _check_all(lazy, mem)


def test_ids_of_mixed_integer_widths_and_text_ids(tmp_path, monkeypatch):
    # One file stores the item ids as int32, another as int64: a hash that depended on
    # the width would split an item in two (more items than in memory).
    from goldnoise.dask import _reader

    monkeypatch.setattr(_reader, "ROWS_PER_SPLIT", 200)
    frame = _long(n_items=150, seed=5)
    folder = tmp_path / "widths"
    folder.mkdir()
    half = len(frame) // 2
    frame.iloc[:half].astype({"item": np.int32}).to_parquet(folder / "a.parquet", index=False)
    frame.iloc[half:].to_parquet(folder / "b.parquet", index=False)
    mem = Ratings.from_long(frame)
    lazy = read_ratings(str(folder), npartitions=3, scheduler="synchronous")
    assert (lazy.n_items, lazy.n_ratings) == (mem.n_items, mem.n_ratings)
    _same(agreement.fleiss_kappa(lazy), agreement.fleiss_kappa(mem))
    text = frame.assign(item="item-" + frame["item"].astype(str))
    lazy = read_ratings(text, npartitions=3, scheduler="synchronous")
    assert lazy.n_items == mem.n_items
    _same(agreement.conger_kappa(lazy), agreement.conger_kappa(Ratings.from_long(text)))


# --------------------------- the count-table statistics: a tree reduction, no shuffle
COUNT_TABLE = ["percent_agreement", "fleiss_kappa", "scott_pi", "brennan_prediger", "gwet_ac1",
               "krippendorff_alpha"]


def test_count_statistics_move_no_rating(data):
    # Fleiss, Brennan-Prediger, Gwet and α come from the per-item category counts summed up
    # a tree: the ratings are not brought together by item (no item chunk is built).
    frame, glob, mem = data
    lazy = read_ratings(glob, npartitions=3, scheduler="synchronous")
    assert not lazy.partitioned_by_item
    assert (lazy.n_items, lazy.n_ratings) == (mem.n_items, mem.n_ratings)
    for name in ("percent_agreement", "fleiss_kappa", "brennan_prediger", "gwet_ac1"):
        fn = getattr(agreement, name)
        _same(fn(lazy, weights="quadratic"), fn(mem, weights="quadratic"))
    for level in LEVELS:
        _same(agreement.krippendorff_alpha(lazy, level=level),
              agreement.krippendorff_alpha(mem, level=level))
    got = agreement_table(lazy, coefficients=COUNT_TABLE[:2] + COUNT_TABLE[3:])
    want = agreement_table(mem, coefficients=COUNT_TABLE[:2] + COUNT_TABLE[3:])
    pd.testing.assert_frame_equal(got, want, rtol=RTOL, atol=1e-14)
    assert not lazy.partitioned_by_item
    # An annotator-identity statistic brings each item's ratings together, once.
    _same(agreement.conger_kappa(lazy), agreement.conger_kappa(mem))
    assert lazy.partitioned_by_item
    chunks = lazy._chunks
    assert lazy.shuffle_report.shuffled and lazy.shuffle_report.rows == len(frame)
    _same(agreement.light_kappa(lazy), agreement.light_kappa(mem))
    assert lazy._chunks is chunks  # reused, not rebuilt


def test_count_chunks_are_per_item_counts(data):
    _frame, glob, mem = data
    lazy = read_ratings(glob, npartitions=4, scheduler="synchronous")
    import dask

    chunks = dask.compute(*lazy._count_chunks, scheduler="synchronous")
    assert all(c.codes is None for c in chunks)
    got = pd.concat([pd.DataFrame(c.counts, index=c.items) for c in chunks]).sort_index()
    want = pd.DataFrame(mem.counts, index=mem.items).sort_index()
    assert got.index.is_unique
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())


def test_repeated_rating_in_two_files_is_refused(tmp_path):
    # The same annotator rated item 1 in two files: the counts alone would count it twice.
    folder = tmp_path / "dup"
    folder.mkdir()
    pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": ["x", "y"]}).to_parquet(
        folder / "a.parquet", index=False)
    pd.DataFrame({"item": [1, 2, 1], "rater": ["a", "b", "b"], "label": ["y", "y", "x"]}
                 ).to_parquet(folder / "b.parquet", index=False)
    with pytest.raises(ValueError, match="more than once"):
        read_ratings(str(folder), scheduler="synchronous")


def test_many_annotators_count_statistics_use_item_chunks():
    # Beyond 64 annotators the count reduction cannot rule out a repeated rating: the
    # count-table statistics run on the item chunks, still equal to memory.
    rng = np.random.default_rng(4)
    n, k = 300, 70
    raters = np.array([rng.choice(k, size=5, replace=False) for _ in range(n)])
    long = pd.DataFrame({"item": np.repeat(np.arange(n), 5), "rater": raters.ravel(),
                         "label": rng.integers(0, 3, size=5 * n)}
                        ).sample(frac=1.0, random_state=1)
    lazy = read_ratings(long, npartitions=3, scheduler="synchronous")
    assert lazy._count_chunks is None and lazy.n_items == n
    mem = Ratings.from_long(long)
    _same(agreement.fleiss_kappa(lazy), agreement.fleiss_kappa(mem))
    assert lazy.partitioned_by_item
    dup = pd.concat([long, long.iloc[:1]])
    with pytest.raises(ValueError, match="more than once"):
        agreement.fleiss_kappa(read_ratings(dup, npartitions=2, scheduler="synchronous"))


def test_cluster_count_statistics_without_shuffle(data, cluster_client):
    # On a LocalCluster (two worker processes): the count-table statistics from the tree
    # of counts, then γ and the annotator statistics on the item chunks built once.
    _frame, glob, mem = data
    lazy = read_ratings(glob, npartitions=3)
    got = agreement_table(lazy, coefficients=COUNT_TABLE[:2] + COUNT_TABLE[3:])
    pd.testing.assert_frame_equal(
        got, agreement_table(mem, coefficients=COUNT_TABLE[:2] + COUNT_TABLE[3:]),
        rtol=RTOL, atol=1e-14)
    assert not lazy.partitioned_by_item
    assert lazy.partition_by_item() is lazy and lazy.partitioned_by_item
    _same(agreement.conger_kappa(lazy), agreement.conger_kappa(mem))
    _same_bound(noise_bound(lazy), noise_bound(mem))


@pytest.mark.parametrize("k", [12, 40])  # the annotator bits in 16 and 64 bits
def test_count_chunks_of_wider_masks_equal_memory_and_refuse_repeats(k):
    rng = np.random.default_rng(k)
    n = 200
    raters = np.array([rng.choice(k, size=4, replace=False) for _ in range(n)])
    long = pd.DataFrame({"item": np.repeat(np.arange(n), 4), "rater": raters.ravel(),
                         "label": rng.integers(0, 3, size=4 * n)}
                        ).sample(frac=1.0, random_state=2)
    lazy = read_ratings(long, npartitions=3, scheduler="synchronous")
    assert lazy._count_chunks is not None
    _same(agreement.fleiss_kappa(lazy), agreement.fleiss_kappa(Ratings.from_long(long)))
    assert not lazy.partitioned_by_item
    dup = pd.concat([long, long.iloc[:1].assign(label=(long["label"].iloc[0] + 1) % 3)])
    with pytest.raises(ValueError, match="more than once"):
        read_ratings(dup.sample(frac=1.0, random_state=3), npartitions=3,
                     scheduler="synchronous")
