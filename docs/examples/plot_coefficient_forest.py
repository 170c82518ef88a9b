"""
Every agreement coefficient with its interval
=============================================

Fleiss (1971): six psychiatrists of 43 assigned each of 30 patients to one of five
diagnoses. :func:`goldnoise.agreement_table` computes the common coefficients with their
standard errors and 95% intervals on the same ratings. They differ in how they count
chance agreement, so they differ in value; the intervals show how little 30 items settle.
"""

import matplotlib.pyplot as plt

import goldnoise as gn

ratings = gn.Ratings.from_wide(gn.datasets.load_fleiss1971())
table = gn.agreement_table(ratings)
table = table[table["value"].notna()]
print(table[["value", "ci_low", "ci_high"]].round(3))

fig, ax = plt.subplots(figsize=(6.5, 1.2 + 0.45 * len(table)))
ys = range(len(table))[::-1]
for y, (_, row) in zip(ys, table.iterrows(), strict=True):
    ax.plot([row["ci_low"], row["ci_high"]], [y, y], color="#1f5f9f", lw=2)
    ax.plot([row["value"]], [y], "o", color="#1f5f9f")
ax.set_yticks(list(ys), list(table.index))
ax.axvline(0, color="grey", lw=0.8)
ax.set_xlabel("value with its 95% interval")
ax.set_title("Fleiss (1971): 30 patients, 6 psychiatrists each")
ax.grid(axis="x", alpha=0.3)
fig.tight_layout()
