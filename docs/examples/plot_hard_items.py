"""
Which items are hard: the easy/hard model's posterior
=====================================================

The easy/hard latent-class model (:class:`goldnoise.EasyHardModel`) gives each item a posterior probability of being
hard: labelled by coin-flips rather than by the annotators' knowledge. On the Dawid &
Skene (1979) anaesthesia data (5 observers, 45 patients) most patients are clearly easy;
the few in the middle are the ones to look at again.
"""

import matplotlib.pyplot as plt

import goldnoise as gn

long = gn.datasets.load_dawid_skene1979()
first = long[long["replicate"] == 1]
ratings = gn.Ratings.from_long(first, item="patient", rater="observer", label="rating")
fit = gn.EasyHardModel(rng=0).fit(ratings)

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.hist(fit.posterior_hard, bins=20, range=(0, 1), color="#1f5f9f", alpha=0.8)
ax.set_xlabel("posterior probability that the patient is hard")
ax.set_ylabel("patients")
ax.set_title(f"Dawid & Skene (1979): {ratings.n_items} patients, {ratings.n_raters} observers")
fig.tight_layout()
