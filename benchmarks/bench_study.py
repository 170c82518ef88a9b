"""How long a study plan takes (SPEC §8): closed forms and simulation plans.

Run: ``python benchmarks/bench_study.py``; prints a Markdown table (medians of
``--repeat`` runs) for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

CASES = [
    ("Cohen's κ, Cantor closed form (power), checked by 500 + 200 simulated studies",
     "cohen_kappa", dict(expected=0.85, null=0.7, power=0.8, method="closed-form")),
    ("Fleiss' κ, 5 raters × 4 categories, half-width 0.1 (simulation)",
     "fleiss_kappa", dict(expected=0.6, target=0.1, n_raters=5, n_categories=4)),
    ("Fleiss' κ, 5 raters × 4 categories, 20% missing, power 0.8 against 0.4",
     "fleiss_kappa", dict(expected=0.6, null=0.4, power=0.8, n_raters=5, n_categories=4,
                          missing=0.2)),
    ("Krippendorff's α interval, 3 raters × 5 categories, half-width 0.08",
     "krippendorff_alpha", dict(expected=0.7, target=0.08, n_raters=3, n_categories=5,
                                level="interval")),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from simulation import study_size_for_power, study_size_for_width

    study_size_for_width("fleiss_kappa", expected=0.6, target=0.2, n_sims=20,
                         n_bootstrap_sims=5, n_resamples=9, rng=0)  # compile the kernels first
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| plan | n_items | recommended interval | median s (min–max) |")
    print("|---|---:|---|---:|")
    for label, coefficient, kw in CASES:
        times, plan = [], None
        for r in range(args.repeat):
            t = time.perf_counter()
            entry = study_size_for_width if "target" in kw else study_size_for_power
            plan = entry(coefficient, rng=r, **kw)
            times.append(time.perf_counter() - t)
        print(f"| {label} | {plan.n_items} | {plan.recommended_interval} | "
              f"{statistics.median(times):.2f} ({min(times):.2f}–{max(times):.2f}) |")


if __name__ == "__main__":
    main()
