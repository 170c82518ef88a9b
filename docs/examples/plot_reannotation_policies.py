"""
Labels saved by re-annotation policy
====================================

300 items, each labelled by up to six annotators (30% of the items hard). Instead of
buying all six ratings of every item, a policy buys them in batches of 30: *uniform*
spreads them evenly, *uncertainty* asks for more ratings where the latent-class model is
least sure. :func:`goldnoise.compare_policies` replays each policy on the existing
ratings with three seeds; :meth:`PolicyComparisonResult.plot` shows accuracy against
ratings spent; the dotted line is the accuracy with every rating, the dashed one the
goal (one point below it), and the title says how many ratings the better policy saves
to reach it (:meth:`PolicyComparisonResult.ratings_to_reach`).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import goldnoise as gn

g = np.random.default_rng(0)
truth = g.integers(0, 2, 300)
accuracy = np.where(g.random(300) < 0.3, 0.6, 0.9)[:, None]
x = np.where(g.random((300, 6)) < accuracy, truth[:, None], 1 - truth[:, None])
cmp = gn.compare_policies(x, truth=pd.Series(truth), policies=["uniform", "uncertainty"],
                          seeds=3, batch_size=30, model=gn.LatentClassModel("one-coin", rng=0))
reach = cmp.ratings_to_reach()
print(reach[["median", "low", "high", "saving"]].round(3))

fig, ax = plt.subplots(figsize=(6.5, 4))
cmp.plot(ax=ax)
goal = reach.attrs["accuracy"]
ax.axhline(goal, color="black", lw=0.8, ls="--")
ax.set_title(f"ratings to reach accuracy {goal:.3f}: uncertainty saves "
             f"{reach.loc['uncertainty', 'saving']:.0%} of uniform's")
fig.tight_layout()
