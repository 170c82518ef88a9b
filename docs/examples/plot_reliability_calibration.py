"""
A reliability diagram before and after calibration
==================================================

A latent-class model says how sure it is of each item's label. On data where some items
are hard (the annotators are right 55% of the time on them, 85% on the others) the
one-coin model is overconfident: of the labels it gives with 99% confidence, far fewer
than 99% are right. With 300 items checked by an expert, :func:`goldnoise.calibration`
measures the gap (the expected calibration error, ECE) and fits a temperature that
shrinks the confidences; the right panel is the same check after it.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import goldnoise as gn

g = np.random.default_rng(3)
n = 1500
truth = g.integers(0, 2, n)
accuracy = np.where(g.random(n) < 0.4, 0.55, 0.85)[:, None]
x = np.where(g.random((n, 5)) < accuracy, truth[:, None], 1 - truth[:, None])
fit = gn.LatentClassModel("one-coin", rng=0).fit(x)
verified = pd.Series(truth[:300], index=range(300))  # the expert's answers
cal = gn.calibration(fit, verified, rng=0)

right = fit.label_codes[:300] == truth[:300]
edges = np.linspace(0.5, 1.0, 6)


def diagram(ax, confidence, title):
    which = np.clip(np.digitize(confidence, edges) - 1, 0, len(edges) - 2)
    mid = (edges[:-1] + edges[1:]) / 2
    acc = [right[which == b].mean() if (which == b).any() else np.nan for b in range(len(mid))]
    conf = [confidence[which == b].mean() if (which == b).any() else np.nan
            for b in range(len(mid))]
    ax.plot([0.5, 1], [0.5, 1], color="grey", ls=":", label="perfect calibration")
    ax.bar(mid, acc, width=0.1, color="#1f5f9f", alpha=0.6, edgecolor="white",
           label="verified accuracy")
    ax.plot(conf, acc, "o-", color="#b8322a", label="mean confidence")
    ax.set_xlim(0.5, 1)
    ax.set_ylim(0.4, 1)
    ax.set_xlabel("confidence of the model's label")
    ax.set_title(title)


fig, (before, after) = plt.subplots(1, 2, figsize=(9, 4.2), sharey=True)
diagram(before, fit.label_posterior[:300], f"as fitted: ECE {cal.ece:.3f}")
diagram(after, cal.recalibrated_label_posterior[:300],
        f"temperature-scaled: ECE {cal.ece_recalibrated:.3f}")
before.set_ylabel("share right (of the 300 verified)")
before.legend(loc="upper left", fontsize="small")
fig.tight_layout()
