"""
Can a model's loss find the wrong labels?
=========================================

Confident-learning style detectors rank items by the loss of their given label. Whether
that can work depends on how far the losses of the wrong (noisy) labels sit from those of
the right ones. :func:`goldnoise.loss_separability` measures it (AUROC and the overlap of
the two histograms, with bootstrap intervals); :meth:`SeparabilityResult.plot` draws the
two histograms.
"""

import matplotlib.pyplot as plt
import numpy as np

import goldnoise as gn

rng = np.random.default_rng(0)
noisy = np.arange(2000) < 300
loss = np.where(noisy, rng.gamma(3.0, 1.0, 2000), rng.gamma(1.0, 0.6, 2000))
res = gn.loss_separability(loss, None, noisy, n_resamples=200, rng=0)

fig, ax = plt.subplots(figsize=(6.5, 4))
res.plot(ax=ax)
fig.tight_layout()
