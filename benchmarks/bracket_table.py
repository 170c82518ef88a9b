"""The error bracket of the agreed labels beside the error measured against gold.

For Snow et al.'s (2008) RTE and temporal-ordering crowd data (10 workers per
item, expert gold), draw 3 or 5 of each item's workers, 20 times; keep the
items whose drawn workers all agree; and set the measured share of wrong
agreed labels beside the bracket of :func:`noise_models.agreed_error_bracket`
(optimistic: the spam model's expected error; pessimistic: γ at α = 0.95),
beside the bound on wrong agreed labels under the item-difficulty model's posterior
(``posterior_bound=True``, α = 0.95, 100 bootstrap refits) and how often it covers the
measured share, and beside what a verified random sample of 100 agreed items would prove.

Run:  python benchmarks/bracket_table.py [path/to/shared/data]
Prints the markdown table used in docs/guide/bracket.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from agreement import Ratings
from noise_models import agreed_error_bracket, verified_sample_bound

DATA = Path(sys.argv[1]) if len(sys.argv) > 1 else \
    Path(__file__).resolve().parents[2] / "shared" / "data"
DRAWS = 20
SAMPLE = 100


def one_draw(df: pd.DataFrame, workers: int, seed: int) -> dict[str, float]:
    keep = df.sample(frac=1.0, random_state=seed).groupby("item", sort=False).head(workers)
    r = Ratings.from_long(keep, item="item", rater="worker", label="response")
    gold = keep.groupby("item", sort=False)["gold"].first().reindex(r.items).to_numpy()
    counts = np.asarray(r.counts)
    agreed = counts.max(axis=1) == counts.sum(axis=1)
    wrong = r.categories[counts[agreed].argmax(axis=1)] != gold[agreed]
    b = agreed_error_bracket(r, alpha=0.95, posterior_bound=True, rng=seed)
    # A verified sample: 100 agreed items checked against the gold standard.
    rng = np.random.default_rng(seed)
    picked = rng.choice(wrong.size, size=min(SAMPLE, wrong.size), replace=False)
    v = verified_sample_bound(int(wrong.size), picked.size, int(wrong[picked].sum()))
    return {"agreed": wrong.size, "wrong": wrong.mean(), "optimistic": b.optimistic,
            "pessimistic": b.pessimistic, "inside": b.optimistic <= wrong.mean() <= b.pessimistic,
            "posterior": b.posterior_upper, "covers": wrong.mean() <= b.posterior_upper,
            "verified": v.max_share}


def table() -> str:
    rows = []
    for name, label in (("rte", "RTE"), ("temp", "temp")):
        df = pd.read_csv(DATA / f"snow2008_{name}_long.csv")
        for workers in (3, 5):
            res = pd.DataFrame([one_draw(df, workers, seed) for seed in range(DRAWS)])
            rows.append(
                f"| {label} ({df['item'].nunique()} items) | {workers} | "
                f"{res['agreed'].mean():.0f} | "
                f"{res['wrong'].mean():.1%} ({res['wrong'].min():.1%}–{res['wrong'].max():.1%}) | "
                f"{res['optimistic'].mean():.1%} | {res['pessimistic'].mean():.1%} | "
                f"{int(res['inside'].sum())}/{DRAWS} | {res['posterior'].mean():.1%} | "
                f"{int(res['covers'].sum())}/{DRAWS} | {res['verified'].mean():.1%} |"
            )
    head = (
        "| data | workers per item | agreed items | wrong against gold, mean (range) | "
        "optimistic (spam model) | pessimistic (γ, α = 0.95) | gold inside bracket | "
        "posterior bound (item difficulty, α = 0.95) | it covers gold | "
        f"verified sample of {SAMPLE}: at most |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    return head + "\n" + "\n".join(rows)


if __name__ == "__main__":
    print(table())
