"""
Each annotator's accuracy, with an interval
===========================================

Four annotators with error rates of 5%, 15%, 30% and 45% label 300 items; nobody knows
the truth. The one-coin latent-class model (:class:`goldnoise.LatentClassModel`)
estimates each annotator's accuracy from the pattern of their agreements, and
:func:`goldnoise.annotator_intervals` gives each a bootstrap interval. The crosses are
the true accuracies, known here because the labels are simulated.
"""

import matplotlib.pyplot as plt

import goldnoise as gn

errors = [0.05, 0.15, 0.3, 0.45]
sim = gn.simulate_annotations(300, 4, model="M2", n_categories=2, hard_share=0.0,
                              error_rates=errors, rng=2)
fit = gn.LatentClassModel("one-coin", rng=0).fit(sim.ratings)
table = gn.annotator_intervals(fit, n_resamples=100, rng=1)

fig, ax = plt.subplots(figsize=(6.5, 3.2))
ys = range(len(table))[::-1]
for y, (_, row) in zip(ys, table.iterrows(), strict=True):
    ax.plot([row["accuracy_low"], row["accuracy_high"]], [y, y], color="#1f5f9f", lw=2)
    ax.plot([row["accuracy"]], [y], "o", color="#1f5f9f")
ax.plot([1 - e for e in errors], list(ys), "x", color="#b8322a", ms=9, label="true accuracy")
ax.set_yticks(list(ys), [f"annotator {n}" for n in table.index])
ax.set_xlabel("estimated accuracy with its 95% bootstrap interval")
ax.legend(loc="upper left", fontsize="small")
ax.grid(axis="x", alpha=0.3)
fig.tight_layout()
