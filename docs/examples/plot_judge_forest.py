"""
May a model replace an annotator? The judge's forest plot
=========================================================

Three human annotators and two candidate judges label 400 items. The *swap* test
replaces one human by the judge and asks whether agreement drops by more than the margin
δ; the *join* test adds the judge as a further annotator. Each line is the change of
agreement with its paired bootstrap interval (:func:`goldnoise.judge_audit`); a judge is
non-inferior when the whole interval lies right of −δ (the red line).
"""

import matplotlib.pyplot as plt
import numpy as np

import goldnoise as gn

rng = np.random.default_rng(0)
truth = rng.integers(0, 3, 400)


def noisy(p):
    return np.where(rng.random(400) < p, rng.integers(0, 3, 400), truth)


x = np.column_stack([noisy(0.2), noisy(0.2), noisy(0.2), noisy(0.15), noisy(0.7)])
r = gn.Ratings.from_wide(x, raters=["h1", "h2", "h3", "good", "poor"])
margin = 0.05
res = gn.judge_audit(r, ["good", "poor"], margin=margin, n_resamples=200, rng=1,
                     latent_resamples=0)

rows = []
for test, table in (("swap", res.swap), ("join", res.join)):
    for name, row in table.iterrows():
        label = name if isinstance(name, str) else " ".join(map(str, name))
        rows.append((f"{test}: {label}", row["difference"], row["low"], row["high"],
                     bool(row["non_inferior"])))

fig, ax = plt.subplots(figsize=(6.5, 1.5 + 0.5 * len(rows)))
for y, (_, diff, low, high, ok) in enumerate(reversed(rows)):
    color = "#1f5f9f" if ok else "#b8322a"
    ax.plot([low, high], [y, y], color=color, lw=2)
    ax.plot([diff], [y], "o", color=color)
ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)])
ax.axvline(0, color="grey", lw=0.8)
ax.axvline(-margin, color="#b8322a", ls="--", label=f"margin −δ = −{margin}")
ax.set_xlabel("change of agreement with the judge (95% paired bootstrap interval)")
ax.legend(loc="upper left", fontsize="small")
ax.grid(axis="x", alpha=0.3)
fig.tight_layout()
