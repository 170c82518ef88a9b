"""
Which categories the annotators agree on
========================================

One κ for the whole table can hide that some categories are easy and others are not.
:func:`goldnoise.category_kappas` splits Fleiss' κ of the Fleiss (1971) diagnoses by
category (each category against all the others), with its standard error: the
psychiatrists agree on schizophrenia and "other" far more than on depression or on
personality disorders.
"""

import matplotlib.pyplot as plt

import goldnoise as gn

ratings = gn.Ratings.from_wide(gn.datasets.load_fleiss1971())
per = gn.category_kappas(ratings).sort_values("kappa")
overall = gn.fleiss_kappa(ratings).value

fig, ax = plt.subplots(figsize=(6.5, 3.5))
ax.barh(per["category"], per["kappa"], xerr=1.96 * per["standard_error"], color="#1f5f9f",
        alpha=0.8, capsize=3)
ax.axvline(overall, color="#b8322a", ls="--", label=f"Fleiss' κ of the table ({overall:.2f})")
ax.set_xlabel("κ of the category against the others (±1.96 standard errors)")
ax.legend(loc="lower right", fontsize="small")
ax.grid(axis="x", alpha=0.3)
fig.tight_layout()
