"""
How many hard items hide among the agreed ones
==============================================

On 1,000 items two annotators disagreed on 100. Every disagreement is a hard item, and
hard items agree by chance half of the time, so about as many hard items hide among the
900 agreed ones. :func:`goldnoise.noise_bound` gives the posterior of the number of hard
items *H*; the red line is *t0*, the count not exceeded with confidence 0.95, from which
γ = (t0 − d) / agreed.
"""

import matplotlib.pyplot as plt
import numpy as np

import goldnoise as gn

res = gn.noise_bound(1000, 100, 0.5)
h = np.arange(res.d, res.t0 + 60)
pmf = res.posterior.pmf(h)

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.bar(h, pmf, width=1.0, color="#1f5f9f", alpha=0.8)
ax.axvline(res.d - 0.5, color="grey", ls="--", label=f"d = {res.d} disagreed (all hard)")
ax.axvline(res.t0 + 0.5, color="#b8322a", lw=1.5,
           label=f"t0 = {res.t0}: γ = {res.gamma:.3f}")
ax.set_xlabel("number of hard items H")
ax.set_ylabel("posterior probability")
ax.legend()
ax.set_title("Posterior of the hard items (1,000 items, 2 annotators)")
