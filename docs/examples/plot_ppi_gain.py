"""
A judge on every item, humans on some: prediction-powered intervals
===================================================================

A judge (a classifier, an LLM) that is right 90% of the time labels 10,000 items; humans
label a sample. :func:`goldnoise.ppi_mean` estimates the prevalence from both: the human
mean corrected by the judge's error on the labelled sample (PPI++). Its interval is
narrower than the humans' alone at every sample size, and it stays valid however wrong
the judge is (only the gain shrinks).
"""

import matplotlib.pyplot as plt
import numpy as np

import goldnoise as gn

rng = np.random.default_rng(0)
N = 10_000
truth = rng.random(N) < 0.3
judge = np.where(rng.random(N) < 0.9, truth, ~truth)

sizes = [50, 100, 200, 400, 800, 1600]
ppi, human = [], []
for n in sizes:
    res = gn.ppi_mean(truth[:n], judge[:n], judge[n:])
    ppi.append(res.high - res.low)
    human.append(res.classical_high - res.classical_low)

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot(sizes, human, marker="o", label="humans only")
ax.plot(sizes, ppi, marker="s", label="humans + judge (PPI++)")
ax.set_xscale("log")
ax.set_xlabel("items labelled by humans")
ax.set_ylabel("width of the 95% interval of the prevalence")
ax.legend()
ax.grid(alpha=0.3)
fig.tight_layout()
