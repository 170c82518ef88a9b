"""
How many items for a given interval width
=========================================

Before collecting labels: how many items must three annotators label for Fleiss' κ
(expected near 0.6, three categories) to be known within ±0.1? :func:`goldnoise.study_size_for_width`
simulates studies of growing size, doubling and then searching, and :meth:`StudyPlan.plot`
draws the mean half-width of the 95% interval against the number of items. The width
shrinks as one over the square root of the items: halving it costs four times the labels.
"""

import matplotlib.pyplot as plt

import goldnoise as gn

plan = gn.study_size_for_width("fleiss_kappa", target=0.1, expected=0.6, n_raters=3,
                               n_categories=3, n_sims=40, n_bootstrap_sims=0, rng=0)
fig, ax = plt.subplots(figsize=(6.5, 4))
plan.plot(ax=ax)
fig.tight_layout()
