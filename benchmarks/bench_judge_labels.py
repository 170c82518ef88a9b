"""The judge audit on free-text labels: time and memory bounded by the ratings (issue 46).

1,500 labels (declared; the 1,200 ratings use about 600 of them) on 300 items × 4 raters
(3 humans and a judge; each item's true label one of 1,500, each rater keeps it with
probability 0.6, else writes one of the 1,500 at random): ``judge_audit`` with its defaults
(1,000 resamples, the latent-class intervals from 100 refits) and with
``latent_resamples=0``, in a fresh process each, wall time and peak resident memory
(``ru_maxrss``). Target: ≤ 30 s and < 1 GB.

Run: ``python benchmarks/bench_judge_labels.py [--write]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
sys.path.insert(0, {root!r})
import goldnoise as gn
n_items, n_labels, latent = {n_items}, {n_labels}, {latent}
g = np.random.default_rng(0)
words = np.array([f"label {{k:04d}}" for k in range(n_labels)], dtype=object)
truth = g.integers(0, n_labels, n_items)
cols = [words[np.where(g.random(n_items) < 0.6, truth, g.integers(0, n_labels, n_items))]
        for _ in range(4)]
r = gn.Ratings.from_wide(np.column_stack(cols), raters=["h1", "h2", "h3", "judge"],
                         categories=list(words))
t0 = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    res = gn.judge_audit(r, "judge", margin=0.05, rng=0, latent_resamples=latent)
wall = time.perf_counter() - t0
print(json.dumps({{"seconds": wall, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "distinct": int(r.n_categories), "confusion_rows": int(len(res.confusion)),
                  "verdict": res.verdicts["verdict"].iloc[0]}}))
"""


def measure(n_items: int, n_labels: int, latent: int) -> dict:
    code = CHILD.format(root=str(ROOT), n_items=n_items, n_labels=n_labels, latent=latent)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    rows = []
    for latent in (100, 0):
        m = measure(300, 1500, latent)
        rows.append((latent, m))
        print(latent, m, flush=True)
    lines = ["| `judge_audit` (1,000 resamples) | distinct labels | time | peak memory | "
             "confusion rows |", "|---|---|---|---|---|"]
    for latent, m in rows:
        what = "defaults (100 latent-class refits)" if latent else "`latent_resamples=0`"
        lines.append(f"| {what} | {m['distinct']:,} | {m['seconds']:.1f} s | "
                     f"{m['peak_mb']:.0f} MB | {m['confusion_rows']:,} |")
    body = ("## The judge audit on free-text labels (`benchmarks/bench_judge_labels.py`)\n\n"
            "1,500 labels (declared) on 300 items × 4 raters (3 humans and a judge), each in a "
            "fresh process (peak resident memory includes the interpreter and the imports). "
            "Target: ≤ 30 s and < 1 GB.\n\n" + "\n".join(lines) + "\n")
    print(body)
    if args.write:
        from _results import write_section

        write_section("judge_labels", body)


if __name__ == "__main__":
    main()
