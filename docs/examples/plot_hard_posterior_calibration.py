"""
How far to trust P(hard): its reliability on simulated crowd labels
===================================================================

The default crowd model (``LatentClassModel("spam", "difficulty")``) gives every item a
posterior probability of being hard. On real crowd data nobody knows which items are hard;
on simulated data they are known, so the posterior can be graded. Both panels have 3,000
items, each rated by 10 of 30 annotators (error rates 5–30% on easy items), and 25% hard
items, fitted with the defaults and no knowledge of the truth:

* left, hard items of the model's kind: on a hard item each rating is, with the item's own
  probability (0.4, 0.7 or 1), a coin flip of the annotator's, otherwise as on an easy item.
  The annotators' errors pile up on the item, but not on one label;
* right, over-dispersed hard items: each hard item draws its own label distribution
  (Dirichlet, two pseudo-counts) and its flipped ratings come from it, so a quarter of the
  hard items get ratings that nearly all agree — often on the wrong label.

The model's hard state lowers an annotator's accuracy on the item; it cannot produce a hard
item whose ratings agree, so on the right it calls those items easy: its lowest bin, the
items it is surest are easy, holds several times the hard items it claims, the hard share
π̂ falls under the truth, and the ECE misses 0.05 (over 20 replicates 0.086 on average;
on the left 0.023). Which of the two kinds real crowd data have cannot be told from the
ratings alone. Points are 10 equal-width bins of P(hard), sized by their number of items; the
expected calibration error (ECE) is the items-weighted mean gap to the diagonal.
"""

import matplotlib.pyplot as plt
import numpy as np

import goldnoise as gn
from simulation import simulate_annotations

g = np.random.default_rng(3)
error_rates = g.uniform(0.05, 0.3, 30)
designs = {
    "hard items of the model's kind": None,
    "over-dispersed hard items (Dirichlet, s = 2)": 2.0,
}

fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), sharey=True)
for ax, (title, concentration) in zip(axes, designs.items(), strict=True):
    sim = simulate_annotations(3000, 30, model="M2", hard_share=0.25, error_rates=error_rates,
                               raters_per_item=10, hardness=(0.4, 0.7, 1.0),
                               hard_concentration=concentration, rng=1)
    fit = gn.LatentClassModel("spam", "difficulty", rng=0).fit(sim.ratings)
    p_hard = np.asarray(fit.posterior_hard)
    bins = np.minimum((p_hard * 10).astype(int), 9)
    n = np.bincount(bins, minlength=10)
    full = n > 0
    claimed = np.bincount(bins, weights=p_hard, minlength=10)[full] / n[full]
    share = np.bincount(bins, weights=sim.is_hard, minlength=10)[full] / n[full]
    ece = float(np.sum(n[full] * np.abs(claimed - share)) / n.sum())
    ax.plot([0, 1], [0, 1], color="grey", ls=":", lw=1)
    ax.plot(claimed, share, color="#1f5f9f", lw=1.2)
    ax.scatter(claimed, share, s=12 + 300 * n[full] / n.sum(), color="#1f5f9f", zorder=3)
    ax.set_title(f"{title}\nECE {ece:.3f}; π̂ {fit.pi:.2f} (truth {sim.is_hard.mean():.2f})",
                 fontsize=10)
    ax.set_xlabel("P(hard), 10 bins")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
axes[0].set_ylabel("share of the bin's items that are hard")
fig.tight_layout()
