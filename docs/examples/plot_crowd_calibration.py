"""
How sure is a crowd aggregator? Reliability diagrams of P(label right)
=======================================================================

On crowd data some items are hard for everyone: their annotators' errors go together, which a
model that multiplies an item's ratings as if annotators erred independently cannot express,
so its ``P(label right)`` is too sure exactly where the crowd splits. The labels here are
simulated that way: 1,500 items of 3 classes, 5 of 30 annotators each (error rates 5–35%);
30% of the items are hard, and each hard item draws its own label distribution (a
Dirichlet–multinomial item term, concentration 1.5), from which 80% of its ratings come, so
its annotators tend to agree on the same wrong label.

The left panel grades three answers against the true classes: MACE's spam model
(``LatentClassModel("spam")``, goldnoise's default before the item-difficulty model), the
default (``LatentClassModel("spam", "difficulty")``: the same labels, with hard items whose
annotators know the class less well), and the plain vote shares. The hard items here follow
neither model's form; the default model moves most of the way from the spam model's
overconfidence toward the vote shares, which are the best calibrated on these data (as on
some public crowd sets; the table of nine sets is on the benchmark page of latent-class
models). The right panel is what a verified random sample of 5% of the items (75 checked by
an expert) does: :func:`goldnoise.calibration` fits a temperature map on them (averaged
over its slope's posterior), and both
diagrams are drawn on the other 95% of the items. Points are 10 equal-width bins of the
claimed probability, sized by their number of items; the expected calibration error (ECE)
is the items-weighted mean gap to the diagonal.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import goldnoise as gn
from simulation import simulate_annotations

g = np.random.default_rng(1)
error_rates = g.uniform(0.05, 0.35, 30)
sim = simulate_annotations(1500, 30, model="M2", n_categories=3, error_rates=error_rates,
                           hard_share=0.3, hardness=0.8, hard_concentration=1.5,
                           raters_per_item=5, rng=1)
truth = sim.true_class
spam = gn.LatentClassModel("spam", rng=0).fit(sim.ratings)
default = gn.LatentClassModel("spam", "difficulty", rng=0).fit(sim.ratings)
counts = sim.ratings.counts
shares = counts / counts.sum(axis=1, keepdims=True)

verified_items = g.choice(1500, 75, replace=False)  # the expert checks a random 5%
verified = pd.Series(truth[verified_items], index=verified_items)
cal = gn.calibration(default, verified, rng=0)
others = np.setdiff1d(np.arange(1500), verified_items)


def diagram(ax, confidence, right, label, color, marker):
    """One reliability curve (10 equal-width bins); returns its ECE."""
    bins = np.minimum((confidence * 10).astype(int), 9)
    n = np.bincount(bins, minlength=10)
    full = n > 0
    claimed = np.bincount(bins, weights=confidence, minlength=10)[full] / n[full]
    share = np.bincount(bins, weights=right, minlength=10)[full] / n[full]
    ece = float(np.sum(n[full] * np.abs(claimed - share)) / n.sum())
    ax.plot(claimed, share, color=color, lw=1.2, marker=None)
    ax.scatter(claimed, share, s=12 + 300 * n[full] / n.sum(), color=color, marker=marker,
               alpha=0.8, label=f"{label}: ECE {ece:.3f}", zorder=3)
    return ece


fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.8), sharey=True)
for ax in (left, right):
    ax.plot([0, 1], [0, 1], color="grey", ls=":", lw=1)
    ax.set_xlim(0.25, 1.02)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("claimed P(label right)")
    ax.grid(alpha=0.3)
vote_label = shares.argmax(axis=1)
diagram(left, spam.label_posterior, spam.label_codes == truth,
        "spam (MACE, the former default)", "#b8322a", "s")
diagram(left, default.label_posterior, default.label_codes == truth,
        "spam + difficulty (default)", "#1f5f9f", "o")
diagram(left, shares.max(axis=1), vote_label == truth, "vote shares", "#6a8f3a", "^")
left.set_title(f"no gold (accuracy {np.mean(default.label_codes == truth):.3f}, "
               f"vote shares {np.mean(vote_label == truth):.3f})", fontsize=10)
left.set_ylabel("share of labels right")
left.legend(loc="upper left", fontsize=8)

right_others = default.label_codes[others] == truth[others]
diagram(right, default.label_posterior[others], right_others, "default, as fitted",
        "#1f5f9f", "o")
diagram(right, cal.recalibrated_label_posterior[others], right_others,
        f"recalibrated on 75 verified (log-odds x {cal.slope:.2f})", "#7b4ea3", "D")
right.set_title("the other 1,425 items, before and after calibration", fontsize=10)
right.legend(loc="upper left", fontsize=8)
fig.tight_layout()
