"""
What a κ claim implies for the agreed items
===========================================

A paper reports κ = 0.8 between two annotators on 1,000 items and calls the agreed items
gold. Under the easy/hard model a κ of *k* means about a share *k* of the items are easy;
the hard rest agree by chance half of the time. :func:`goldnoise.audit_kappa` turns a claim
into the expected hard items among the agreed ones (point) and the noise bound γ (95%):
even κ = 0.8 leaves about one agreed item in nine a coin-flip.
"""

import matplotlib.pyplot as plt
import numpy as np

import goldnoise as gn

kappas = np.linspace(0.4, 0.95, 12)
audits = [gn.audit_kappa(float(k), n=1000, n_raters=2, p=0.5) for k in kappas]

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot(kappas, [a.point_noise for a in audits], marker="o", label="expected share (point)")
ax.plot(kappas, [a.gamma for a in audits], marker="s", label="noise bound γ (95%)")
ax.axvline(0.8, color="grey", ls=":", lw=1)
ax.set_xlabel("claimed κ (two annotators, 1,000 items)")
ax.set_ylabel("hard items among the agreed ones")
ax.legend()
ax.grid(alpha=0.3)
fig.tight_layout()
