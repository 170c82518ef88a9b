"""Candidate rankings of the expert-check stratum on the five crowd sets (SPEC §6).

Run: ``python benchmarks/explore_check_rankings.py [--seeds 10] [--boot 0]
[--skip web]`` (the crowd sets are read from ``$GOLDNOISE_SHARED_DATA/crowd_gold``).
Prints, per set and candidate, the errors among the top 5% of the items with a true
label over what a random 5% finds in expectation, with every rating and (median over
seeds) at 3 random ratings per item. The published labels are always the default
fit's (spam, ``calibrate="held-out"``); every candidate scores P(that label wrong),
except the entropy (of the default fit's posterior) and the minority share of the
ratings. Ties are broken in a seeded random order, as ``verification_batch`` does
(not with the same draws, so a ratio may differ from bench_reannotation's by a tie).

This is how ``verification_batch``'s default ``rank="ensemble"`` was chosen; it is not
part of RESULTS.md (``--boot`` fits 2 × B models per scoring and is slow on web).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_reannotation import SETS, _data_dir, _subsample, load


def _models():
    from noise_models import LatentClassModel

    return {"spam, held-out (rank=\"fit\")": LatentClassModel("spam", rng=0, calibrate="held-out"),
            "spam": LatentClassModel("spam", rng=0),
            "Dawid–Skene": LatentClassModel("confusion", rng=0),
            "Dawid–Skene, held-out": LatentClassModel("confusion", rng=0,
                                                      calibrate="held-out"),
            "one-coin": LatentClassModel("one-coin", rng=0)}


def _boot_posterior(model, r, n_boot: int, seed: int) -> np.ndarray:
    """Class posterior averaged over fits to bootstrap resamples of the items."""
    from agreement import Ratings
    from noise_models.latent_class._em import fit_tables
    from noise_models.latent_class._tempering import state_log_posterior

    g = np.random.default_rng(seed)
    codes, n, m = r.codes, r.n_items, r.n_categories
    acc = np.zeros((n, m))
    for _ in range(n_boot):
        idx = g.integers(0, n, n)
        fb = model.fit(Ratings(codes[idx], r.categories, items=pd.Index(np.arange(n)),
                               raters=r.raters))
        logtab, logw = fit_tables(fb)
        pl = state_log_posterior(codes, logtab, logw)[:, :m]
        acc += np.exp(pl - logsumexp(pl, axis=1, keepdims=True))
    return acc / n_boot


def scores(r, n_boot: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    from simulation.reannotation._ensemble import ensemble_posterior

    models = _models()
    fits = {name: m.fit(r) for name, m in models.items()}
    base = fits["spam, held-out (rank=\"fit\")"]
    lab = np.asarray(base.label_codes)
    rows = np.arange(lab.size)

    def p_wrong(post):
        return 1.0 - np.asarray(post, float)[rows, lab]

    s = {name: p_wrong(f.class_posterior) for name, f in fits.items()}
    s["ensemble: spam + DS, held-out (default)"] = p_wrong(ensemble_posterior(base))
    s["mean: spam held-out + DS"] = (s["spam, held-out (rank=\"fit\")"] + s["Dawid–Skene"]) / 2
    s["mean: spam + DS + one-coin"] = (s["spam, held-out (rank=\"fit\")"] + s["Dawid–Skene"]
                                       + s["one-coin"]) / 3
    c = r.codes
    s["minority share of the ratings"] = 1 - (c == lab[:, None]).sum(1) / np.maximum(
        (c >= 0).sum(1), 1)
    post = np.clip(np.asarray(base.class_posterior, float), 1e-300, 1)
    s["entropy (spam, held-out)"] = -(post * np.log(post)).sum(1)
    if n_boot:
        bs = p_wrong(_boot_posterior(models["spam"], r, n_boot, 1))
        bd = p_wrong(_boot_posterior(models["Dawid–Skene"], r, n_boot, 1))
        s[f"bootstrap spam (B={n_boot})"] = bs
        s[f"bootstrap DS (B={n_boot})"] = bd
        s[f"bootstrap mean spam + DS (B={n_boot})"] = (bs + bd) / 2
    return lab, s


def ratio(lab, score, pos, truth_codes, k) -> tuple[float, int, float]:
    wrong = lab[pos] != truth_codes
    order = np.lexsort((np.random.default_rng(0).random(len(pos)), -score[pos]))
    found = int(wrong[order[:k]].sum())
    return found / (k * wrong.mean()), found, k * wrong.mean()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--boot", type=int, default=0)
    ap.add_argument("--skip", nargs="*", default=[], choices=SETS)
    a = ap.parse_args()
    if _data_dir() is None:
        sys.exit("(crowd_gold not found: set GOLDNOISE_SHARED_DATA)")
    warnings.simplefilter("ignore")
    print("| set | candidate | all ratings: found / random (×) | 3 per item: × median |")
    print("|---|---|---|---|")
    for name in (s for s in SETS if s not in a.skip):
        t0 = time.perf_counter()
        r, truth = load(name)
        pos = r.items.get_indexer(truth.index)
        tc = r.categories.get_indexer(truth.to_numpy())
        k = int(np.ceil(0.05 * len(pos)))
        lab, s = scores(r, a.boot)
        sub: dict[str, list[float]] = {c: [] for c in s}
        for seed in range(a.seeds):
            lab2, s2 = scores(_subsample(r, 3, seed), a.boot)
            for c, v in s2.items():
                sub[c].append(ratio(lab2, v, pos, tc, k)[0])
        for c, v in s.items():
            x, found, exp = ratio(lab, v, pos, tc, k)
            med = f"{np.median(sub[c]):.2f}×" if sub[c] else "—"
            print(f"| {name} | {c} | {found} / {exp:.1f} ({x:.2f}×) | {med} |", flush=True)
        print(f"# {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
