"""The seed benchmarks' noise constructions (SPEC §9): separability on digits, and speed.

Run: ``python benchmarks/bench_seed_noise.py [--speed-only]``. Prints Markdown for
benchmarks/RESULTS.md:

1. NoisywikiHow's Fig. 3 on scikit-learn's digits: noisy labels at rates 0.1–0.6 by
   uniform perturbation and by ``perturb_similar`` (pixel vectors as embeddings),
   out-of-fold probabilities (5-fold ``cross_val_predict``) of three models trained on
   the noisy labels, and how well the loss separates noisy from clean items (AUROC and
   overlap, 95% stratified bootstrap intervals).
2. ``perturb_similar`` at 1e5 items × 768 dimensions: time and peak memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import warnings

import numpy as np


def separability_table() -> None:
    from sklearn.datasets import load_digits
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier

    from simulation import loss_separability, perturb_similar, perturb_uniform

    warnings.simplefilter("ignore", ConvergenceWarning)  # the MLP on noisy labels
    x, y = load_digits(return_X_y=True)
    models = {"kNN (k=15)": lambda: KNeighborsClassifier(15),
              "Gaussian NB": lambda: GaussianNB(),
              "MLP (64)": lambda: MLPClassifier(hidden_layer_sizes=(64,), max_iter=300,
                                                random_state=0)}
    print("| model | rate | uniform AUROC | similar AUROC | uniform overlap | similar overlap |")
    print("|---|---:|---|---|---|---|")
    for mname, make in models.items():
        for rate in (0.1, 0.2, 0.4, 0.6):
            cells = {}
            for name in ("uniform", "similar"):
                noisy = (perturb_uniform(y.reshape(-1, 1), y, rate=rate, rng=0)
                         if name == "uniform" else perturb_similar(y, x + 1e-9, rate=rate,
                                                                   method="in-data", rng=0))
                given = noisy.labels.to_numpy().astype(int)
                probs = cross_val_predict(make(), x / 16.0, given, cv=5,
                                          method="predict_proba")
                cells[name] = loss_separability(probs, given, noisy.changed,
                                                n_resamples=500, rng=0)
            u, s = cells["uniform"], cells["similar"]

            def iv(r, what):
                v, ci = getattr(r, what), getattr(r, f"{what}_interval")
                return f"{v:.3f} [{ci.low:.3f}, {ci.high:.3f}]"

            print(f"| {mname} | {rate} | {iv(u, 'auroc')} | {iv(s, 'auroc')} | "
                  f"{iv(u, 'overlap')} | {iv(s, 'overlap')} |")


def speed() -> None:
    from simulation import perturb_similar

    rng = np.random.default_rng(0)
    n, d = 100_000, 768
    emb = rng.normal(size=(n, d)).astype(np.float64)
    labels = rng.integers(0, 158, n)  # NoisywikiHow has 158 classes
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    noisy = perturb_similar(labels, emb, rate=0.2, method="in-data", rng=0)
    took = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"perturb_similar, {n:,} items × {d} dimensions, 158 classes, rate 0.2: "
          f"{took:.1f} s, {noisy.n_changed:,} changed; peak resident memory "
          f"{peak / 1024:.0f} MB (the embeddings alone: {emb.nbytes / 2**20:.0f} MB; before "
          f"the call {before / 1024:.0f} MB); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--speed-only", action="store_true")
    args = parser.parse_args()
    if not args.speed_only:
        separability_table()
        print()
    speed()


if __name__ == "__main__":
    main()
