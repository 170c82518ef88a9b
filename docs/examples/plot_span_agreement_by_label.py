"""
Span agreement by label
=======================

Named-entity annotations of 100 simulated documents by three annotators, with boundary
errors, label confusions and missed spans. :func:`goldnoise.span_agreement` scores every
pair of annotators (pairwise F1, the usual agreement of spans): once with exact matching
(same start, end and label) and once counting overlapping spans of the same label. The gap
between the two bars of a label is what boundary disagreements cost it.
"""

import matplotlib.pyplot as plt
import numpy as np

import goldnoise as gn

sim = gn.simulate_spans(100, n_annotators=3, boundary_error=0.15, rng=0)
exact = gn.span_agreement(sim.spans, match="exact").by_label
overlap = gn.span_agreement(sim.spans, match="overlap").by_label

labels = list(exact.index)
y = np.arange(len(labels))
fig, ax = plt.subplots(figsize=(6.5, 3.5))
ax.barh(y + 0.2, exact["f1"], height=0.4, color="#1f5f9f", label="exact match")
ax.barh(y - 0.2, overlap.loc[labels, "f1"], height=0.4, color="#8fb3d9",
        label="overlap match")
ax.set_yticks(y, labels)
ax.set_xlim(0, 1)
ax.set_xlabel("pairwise F1 between annotators")
ax.legend(loc="lower right")
ax.grid(axis="x", alpha=0.3)
fig.tight_layout()
