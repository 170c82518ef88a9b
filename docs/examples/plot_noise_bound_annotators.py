"""
The noise bound against the number of annotators
================================================

How many of the items the annotators agreed on may still be coin-flips? The noise bound
γ (Beigman Klebanov & Beigman's easy/hard model) falls as more annotators must agree: a
hard item survives *k* independent coin-flips only with probability about 2·0.5^k. The
curves are :func:`goldnoise.annotators_needed` for three levels of the annotators' κ on
1,000 items; the dotted line is the 5% target.
"""

import matplotlib.pyplot as plt

import goldnoise as gn

fig, ax = plt.subplots(figsize=(6.5, 4))
for kappa in (0.4, 0.6, 0.8):
    plan = gn.annotators_needed(1000, kappa=kappa, gamma=0.05, max_raters=8)
    t = plan.table
    ax.plot(t["k"], t["gamma"], marker="o", label=f"κ = {kappa} (hire {plan.n_raters})")
ax.axhline(0.05, color="grey", ls=":", label="target γ = 0.05")
ax.set_xlabel("annotators per item k")
ax.set_ylabel("noise bound γ of the agreed items")
ax.set_yscale("log")
ax.grid(alpha=0.3)
ax.legend()
ax.set_title("Fewer hidden coin-flips as more annotators must agree")
