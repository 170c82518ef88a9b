"""A one-minute guard of the hot paths: has any ratio to its anchor got worse?

Each case times a goldnoise hot path and an anchor on the same data in the same run
(the reference packages of the ``bench`` extra, or a NumPy read of the same array),
and prints ``ratio = goldnoise time / anchor time`` beside the ratio committed in
``benchmarks/RESULTS.md`` (the block between ``<!-- guard:start -->`` and
``<!-- guard:end -->``). A case whose ratio got more than 1.5× worse is flagged.

It is not a test (tests never assert on time): run it before resolving an issue.

    python benchmarks/guard.py            # compare with the committed ratios
    python benchmarks/guard.py --write    # store this run's ratios as the baseline
    python benchmarks/guard.py --strict   # exit 1 when a case regressed

Sizes are chosen so that the whole run takes about a minute on 2 cores; ratios, not
times, are compared, so a busy machine moves both sides of each ratio.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).with_name("RESULTS.md")
START, END = "<!-- guard:start -->", "<!-- guard:end -->"
#: A ratio this many times the committed one is a regression.
TOLERANCE = 1.5
#: A time this many times its committed one (or that fraction of it) has moved.
MOVED = 1.1


def _median(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm: compile and cache
    times: list[float] = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        if sum(times) > 3.0 and len(times) >= 3:  # slow anchors: three runs are enough
            break
    return float(np.median(times))


def _labels(n: int, k: int, m: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, m, n)
    follow = rng.random((n, k)) < 0.7
    return np.where(follow, truth[:, None], rng.integers(0, m, (n, k))).astype(np.int64)


def cases() -> list[tuple[str, str, Callable[[], object], Callable[[], object]]]:
    """(name, anchor, goldnoise call, anchor call) for every hot path."""
    import agreement as ag
    from agreement import bootstrap
    from noise_models import LatentClassModel, noise_bound
    from simulation import detection_metrics, load_scores

    out = []
    lab = _labels(1_000_000, 5, 5)
    coded = ag.Ratings.from_wide(lab.astype(np.int8))
    codes = np.ascontiguousarray(coded.codes)

    from statsmodels.stats import inter_rater

    def sm_fleiss():
        table, _ = inter_rater.aggregate_raters(lab)
        return inter_rater.fleiss_kappa(table)

    out.append(("Fleiss' κ from labels, 1e6 × 5 × 5", "statsmodels",
                lambda: ag.fleiss_kappa(ag.Ratings.from_wide(lab)), sm_fleiss))
    two = _labels(1_000_000, 2, 5, seed=1)
    from sklearn.metrics import cohen_kappa_score

    out.append(("Cohen's κ from labels, 1e6", "scikit-learn",
                lambda: ag.cohen_kappa(ag.Ratings.from_wide(two)),
                lambda: cohen_kappa_score(two[:, 0], two[:, 1])))
    for name, fn in (("Fleiss' κ", ag.fleiss_kappa), ("Conger's κ", ag.conger_kappa),
                     ("Light's κ", ag.light_kappa), ("Gwet's AC1", ag.gwet_ac1),
                     ("Krippendorff's α", ag.krippendorff_alpha)):
        out.append((f"{name} on coded ratings, 1e6 × 5", "codes.sum()",
                    lambda fn=fn: fn(coded), lambda: codes.sum()))
    small = _labels(20_000, 5, 5, seed=2).astype(float)
    small[np.random.default_rng(3).random(small.shape) < 0.1] = np.nan
    import krippendorff

    out.append(("Krippendorff's α from labels, 2e4 × 5, 10% missing", "krippendorff",
                lambda: ag.krippendorff_alpha(ag.Ratings.from_wide(small)),
                lambda: krippendorff.alpha(reliability_data=small.T,
                                           level_of_measurement="nominal")))
    out.append(("γ noise bound from coded ratings, 1e6 × 5", "codes.sum()",
                lambda: noise_bound(coded), lambda: codes.sum()))
    em_lab = _labels(20_000, 5, 3, seed=4)
    em_r = ag.Ratings.from_wide(em_lab)
    import pandas as pd

    long = em_r.to_long().rename(columns={"item": "task", "rater": "worker"})

    def ours_em():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return LatentClassModel("confusion", max_iter=50, tol=0.0, n_starts=1).fit(em_r)

    def crowdkit_em():
        from crowdkit.aggregation import DawidSkene

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return DawidSkene(n_iter=50, tol=-1.0).fit(long)

    out.append(("Dawid–Skene EM, 50 iterations, 2e4 × 5 × 3", "crowd-kit", ours_em,
                crowdkit_em))
    boot_r = ag.Ratings.from_wide(_labels(10_000, 5, 5, seed=5))
    from scipy import stats

    per_item = (boot_r.counts * (boot_r.counts - 1)).sum(axis=1) / 20.0

    out.append(("bootstrap of Fleiss' κ, B = 1,000, 1e4 × 5", "scipy.stats.bootstrap (mean)",
                lambda: bootstrap("fleiss_kappa", boot_r, n_resamples=1000, rng=0),
                lambda: stats.bootstrap((per_item,), np.mean, n_resamples=1000,
                                        method="percentile", random_state=0)))
    judge_lab = _labels(10_000, 7, 3, seed=7).astype(float)
    judge_lab[np.random.default_rng(8).random(judge_lab.shape) < 0.1] = np.nan
    judge_r = ag.Ratings.from_wide(judge_lab, raters=["h1", "h2", "h3", "h4", "h5", "a", "b"])

    def judge():
        from goldnoise import judge_audit

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return judge_audit(judge_r, ["a", "b"], margin=0.05, n_resamples=1000, rng=0)

    out.append(("judge_audit with its defaults (swap + join + 100 latent-class refits), "
                "B = 1,000, 1e4 × (5 + 2)", "krippendorff α, once",
                judge, lambda: krippendorff.alpha(reliability_data=judge_lab[:, :5].T,
                                                  level_of_measurement="nominal")))
    rng = np.random.default_rng(6)
    is_err = rng.random(1_000_000) < 0.05
    scores = rng.normal(size=1_000_000) + is_err
    from sklearn.metrics import average_precision_score, roc_auc_score

    out.append(("detection metrics (AP, AUROC, P/R/F1@k), 1e6", "scikit-learn AP + AUROC",
                lambda: detection_metrics(scores, is_err, n_resamples=0),
                lambda: (average_precision_score(is_err, scores),
                         roc_auc_score(is_err, scores))))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import dataclasses

    from bench_reannotation import _crowd_pool, _crowdlab

    from simulation import verification_batch

    crowd, _ = _crowd_pool(20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        crowd_fit = LatentClassModel("spam", rng=0, calibrate="held-out").fit(crowd)
    # a fresh copy of the fit per call: the second model of the ensemble is fitted each time
    out.append(("verification_batch, ensemble ranking of a given fit, 2e4 × 5 of 60",
                "cleanlab CROWDLAB",
                lambda: verification_batch(dataclasses.replace(crowd_fit), size=1000,
                                           random_share=0.0, rng=0),
                lambda: _crowdlab(crowd)))

    wide = ag.Ratings.from_wide(_labels(10, 5000, 2, seed=7).astype(np.int8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wide_fit = LatentClassModel("spam", rng=0).fit(wide)
    from noise_models import posterior_check

    out.append(("held-out check, 10 × 5,000 annotators (5e4 ratings)", "Light's κ, same ratings",
                lambda: posterior_check(wide_fit, rng=0), lambda: ag.light_kappa(wide)))
    tmp = Path(tempfile.mkdtemp())
    ids = np.arange(200_000)
    probs = rng.dirichlet(np.ones(10), size=200_000)
    frame = pd.DataFrame(probs, columns=[str(c) for c in range(10)])
    frame.insert(0, "id", ids)
    frame.to_parquet(tmp / "scores.parquet", index=False)
    out.append(("load_scores, parquet 2e5 × 10", "pandas.read_parquet",
                lambda: load_scores(tmp / "scores.parquet", items=ids),
                lambda: pd.read_parquet(tmp / "scores.parquet")))
    out.extend(_scale_cases(tmp))
    return out


def _scale_cases(tmp: Path) -> list:
    """Long files, the Dask reader and confident learning (issue 34)."""
    import pandas as pd

    from agreement import Ratings

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_detection import cl_problem
    from bench_from_long import factorize_all, frame

    out = []
    for ids, labels in (("string", "categorical"), ("int", "int")):
        long = frame(1_000_000, ids, labels)
        out.append((f"Ratings.from_long, 1e6 shuffled rows, {ids} ids, {labels} labels",
                    "pd.factorize × 3", lambda long=long: Ratings.from_long(long),
                    lambda long=long: factorize_all(long)))
    try:
        from goldnoise.dask import read_ratings
    except ImportError:  # the dask extra is not installed
        read_ratings = None
    if read_ratings is not None:
        folder = tmp / "long"
        folder.mkdir()
        long = frame(1_000_000, "int", "int").astype({"rater": np.int16, "label": np.int8})
        bounds = np.linspace(0, len(long), 9).astype(int)
        for f in range(8):
            long.iloc[bounds[f]:bounds[f + 1]].to_parquet(folder / f"part-{f}.parquet",
                                                           index=False)
        out.append(("goldnoise.dask.read_ratings, 1e6 ratings in 8 files, synchronous",
                    "pd.read_parquet + Ratings.from_long",
                    lambda: read_ratings(str(folder), scheduler="synchronous"),
                    lambda: Ratings.from_long(pd.read_parquet(folder))))
        from agreement import agreement_table

        count_rows = ["percent_agreement", "fleiss_kappa", "brennan_prediger", "gwet_ac1",
                      "krippendorff_alpha"]
        lazy = read_ratings(str(folder), scheduler="synchronous")
        mem = Ratings.from_long(pd.read_parquet(folder))
        out.append(("Dask count-table rows of agreement_table (from the counts), 1e6 ratings",
                    "the same rows in memory",
                    lambda: agreement_table(lazy, coefficients=count_rows),
                    lambda: agreement_table(mem, coefficients=count_rows)))
    from cleanlab.filter import find_label_issues

    from simulation import label_error_ranking
    from simulation.scores import ModelScores

    labels_cl, probs = cl_problem(100_000, 100)
    scores_cl = ModelScores.from_arrays(probs, kind="probs")
    out.append(("confident learning, 1e5 × 100", "cleanlab find_label_issues",
                lambda: label_error_ranking(scores_cl, labels_cl, method="confident_learning"),
                lambda: find_label_issues(labels_cl, probs, filter_by="prune_by_noise_rate")))
    return out


def _baseline_rows() -> list[list[str]]:
    """The committed block's table rows, as cells (case, anchor, ms, ms, ratio)."""
    text = RESULTS.read_text() if RESULTS.exists() else ""
    if START not in text:
        return []
    rows = ([c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.split(START, 1)[1].split(END, 1)[0].splitlines())
    return [c for c in rows if len(c) >= 5 and re.fullmatch(r"[0-9.]+", c[-1] or "x")]


def committed() -> dict[str, float]:
    """The committed ratio of each case."""
    return {c[0]: float(c[-1]) for c in _baseline_rows()}


def committed_times() -> dict[str, tuple[float, float]]:
    """The committed (goldnoise, anchor) times in seconds, by case."""
    return {c[0]: (float(c[2]) / 1e3, float(c[3]) / 1e3) for c in _baseline_rows()}


def which_side(ours: float, theirs: float, old_ours: float, old_theirs: float) -> str:
    """Which side of a flagged ratio moved: goldnoise slower, or the anchor faster.

    Times are in seconds; a ratio can worsen because the anchor got faster (a new
    version, another machine) while goldnoise did not change. A side "moved" when its
    time changed by more than :data:`MOVED` (timing noise stays below). Absolute times
    move with the machine, so this is a hint for the reader, not a verdict.

    >>> which_side(0.0023, 1.0, 0.0039, 2.5)
    'goldnoise 2.3 ms (committed 3.9), anchor 1e+03 ms (committed 2.5e+03): the anchor got faster'
    """
    slower, faster = ours > MOVED * old_ours, theirs * MOVED < old_theirs
    why = ("goldnoise got slower and the anchor faster" if slower and faster
           else "goldnoise got slower" if slower
           else "the anchor got faster" if faster else "neither time moved alone")
    return (f"goldnoise {ours * 1e3:.2g} ms (committed {old_ours * 1e3:.2g}), anchor "
            f"{theirs * 1e3:.2g} ms (committed {old_theirs * 1e3:.2g}): {why}")


def write(rows: list[tuple[str, str, float, float, float]]) -> None:
    lines = [START, "",
             f"Baseline of `benchmarks/guard.py` (ratio = goldnoise time / anchor time, medians; "
             f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores when written).",
             "", "| case | anchor | goldnoise ms | anchor ms | ratio |", "|---|---|---|---|---|"]
    for name, anchor, ours, theirs, ratio in rows:
        lines.append(f"| {name} | {anchor} | {ours * 1e3:.3g} | {theirs * 1e3:.3g} | "
                     f"{ratio:.4g} |")
    lines += ["", END]
    text = RESULTS.read_text()
    block = "\n".join(lines)
    if START in text:
        head, rest = text.split(START, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## Guard of the hot paths (`benchmarks/guard.py`)\n\n" \
            + block + "\n"
    RESULTS.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help="store this run's ratios in RESULTS.md as the baseline")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when a case got more than 1.5x worse")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per side")
    args = parser.parse_args(argv)
    base, times = committed(), committed_times()
    rows, flagged = [], []
    print(f"{'case':58} {'anchor':28} {'ratio':>9} {'committed':>10}")
    for name, anchor, ours, theirs in cases():
        t_ours = _median(ours, args.repeat)
        t_theirs = _median(theirs, args.repeat)
        ratio = t_ours / t_theirs
        rows.append((name, anchor, t_ours, t_theirs, ratio))
        old = base.get(name)
        mark = ""
        if old is not None and ratio > TOLERANCE * old:
            mark = f"  REGRESSION ({ratio / old:.2f}x worse)"
            if name in times:
                mark += "; " + which_side(t_ours, t_theirs, *times[name])
            flagged.append(name)
        print(f"{name:58} {anchor:28} {ratio:9.4g} "
              f"{'-' if old is None else format(old, '.4g'):>10}{mark}", flush=True)
    if args.write:
        write(rows)
        print(f"wrote the baseline to {RESULTS}")
    if flagged:
        print(f"{len(flagged)} case(s) more than {TOLERANCE}x worse than committed: "
              + "; ".join(flagged))
    else:
        print("no regression beyond 1.5x" + ("" if base else " (no committed baseline yet)"))
    return 1 if (flagged and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
