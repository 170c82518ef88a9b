"""
How many disagreements a data set can afford
============================================

The other direction of the noise bound: for a target γ, how many items may the
annotators disagree on before the agreed ones hold more than γ hidden coin-flips?
:func:`goldnoise.max_disagreements` answers for each data-set size; as a share of the
items it approaches γ from below, a little lower for small sets (the 95% bound pays for
their uncertainty), and below some size no amount of agreement shows a small γ.
"""

import matplotlib.pyplot as plt
import numpy as np

import goldnoise as gn

sizes = np.array([100, 200, 500, 1000, 2000, 5000, 10000])
fig, ax = plt.subplots(figsize=(6.5, 4))
for gamma in (0.02, 0.05, 0.1):
    d = []
    for n in sizes:
        try:
            d.append(gn.max_disagreements(int(n), 0.5, gamma=gamma))
        except ValueError:  # too few items: even full agreement cannot show this γ
            d.append(np.nan)
    ax.plot(sizes, np.array(d) / sizes, marker="o", label=f"γ = {gamma}")
ax.set_xscale("log")
ax.set_xlabel("items (two annotators, chance agreement 0.5)")
ax.set_ylabel("largest share of items disagreed on")
ax.legend()
ax.grid(alpha=0.3)
fig.tight_layout()
