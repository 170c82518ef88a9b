"""The data model a study plan simulates: agreement by a latent "easy" share.

Each item is easy with probability λ: its annotators all give the item's class, drawn
from the category shares π. Otherwise every annotator draws a label from π on their
own. Every annotator's marginal is then π, the chance-free agreement of a pair is
``p_o = λ + (1 − λ) Σπ²``, and the population value of Fleiss' κ, Scott's π,
Cohen's, Conger's and Light's κ and Krippendorff's α (any level: an easy pair
has no disagreement, an independent pair the expected one) is exactly λ. The
other coefficients follow from ``p_o``: percent agreement is ``p_o``,
Brennan–Prediger ``(p_o − 1/q) / (1 − 1/q)``, Gwet's AC1 ``(p_o − p_e)/(1 − p_e)``
with ``p_e = (1 − Σπ²)/(q − 1)``. This is the easy/hard model of SPEC §2 with
hard items answered by the prevalence, so an expected coefficient is read as an
easy share.

With ``chance="uniform"`` a hard item's annotators choose uniformly among the q
categories instead (Gwet's 2008 and 2016 simulation design: the easy share is his
"agreement for cause", the shares are the true classes' prevalence); the
coefficient's population value is then a function of λ that is solved for λ
numerically (Krippendorff's α at the nominal level only).

Two annotators with different marginals (one row of shares per annotator) and two
categories are drawn from the joint table that κ and the margins fix.

Draws use one random stream per (simulation, quantity) spawned from the seed,
and items are drawn in order, so the first n items of a larger draw are the
draw at size n: every size is evaluated on common random numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["COEFFICIENTS", "KAPPA_LIKE", "Design"]

#: Coefficients a study can plan for (the names of ``agreement``'s functions).
COEFFICIENTS = ("percent_agreement", "fleiss_kappa", "scott_pi", "cohen_kappa", "conger_kappa",
                "light_kappa", "brennan_prediger", "gwet_ac1", "krippendorff_alpha")
#: Those whose population value under the design is the easy share λ itself.
KAPPA_LIKE = ("fleiss_kappa", "scott_pi", "cohen_kappa", "conger_kappa", "light_kappa",
              "krippendorff_alpha")


@dataclass(frozen=True)
class Design:
    """What one simulated study draws (see the module docstring)."""

    coefficient: str
    n_raters: int
    shares: np.ndarray          # (q,) common marginals, or (2, 2) one row per annotator
    missing: float
    seed: int
    chance: str = "shares"
    level: str | None = None

    @property
    def n_categories(self) -> int:
        return int(self.shares.shape[-1])

    def easy_share(self, value: float) -> float:
        """λ that gives the coefficient the population value ``value`` (ValueError if none)."""
        if self.shares.ndim == 2:
            return value  # the joint-table design takes κ itself
        if self.chance == "uniform":
            return self._uniform_easy_share(value)
        s2 = float(self.shares @ self.shares)
        q = self.n_categories
        if self.coefficient in KAPPA_LIKE:
            lam = value
        else:
            if self.coefficient == "percent_agreement":
                po = value
            elif self.coefficient == "brennan_prediger":
                po = value * (1 - 1 / q) + 1 / q
            else:  # gwet_ac1
                pe = (1 - s2) / (q - 1)
                po = value * (1 - pe) + pe
            lam = (po - s2) / (1 - s2)
        if not -1e-12 <= lam <= 1 + 1e-12:
            raise ValueError(
                f"{self.coefficient} = {value:g} is outside what raters who agree beyond chance "
                f"can reach with these category shares (easy share {lam:.4f} not in [0, 1]); "
                "give a value that is at least the coefficient's chance level.")
        return float(min(max(lam, 0.0), 1.0))

    def value_at(self, lam: float) -> float:
        """The coefficient's population value at easy share λ (``chance="uniform"``)."""
        q = self.n_categories
        marg = lam * self.shares + (1 - lam) / q
        po = lam + (1 - lam) / q
        name = self.coefficient
        if name == "percent_agreement":
            return po
        if name == "brennan_prediger":
            return (po - 1 / q) / (1 - 1 / q)
        if name == "gwet_ac1":
            pe = float(marg @ (1 - marg)) / (q - 1)
        else:
            pe = float(marg @ marg)
        return (po - pe) / (1 - pe)

    def _uniform_easy_share(self, value: float) -> float:
        from scipy.optimize import brentq

        lo, hi = self.value_at(0.0), self.value_at(1.0)
        if not min(lo, hi) - 1e-12 <= value <= max(lo, hi) + 1e-12:
            raise ValueError(
                f"{self.coefficient} = {value:g} is not reachable with chance='uniform' and "
                f"these shares: the design gives values from {lo:.4f} to {hi:.4f}.")
        if abs(value - lo) < 1e-12:
            return 0.0
        if abs(value - hi) < 1e-12:
            return 1.0
        return float(brentq(lambda t: self.value_at(t) - value, 0.0, 1.0, xtol=1e-13))

    def draw(self, sim: int, n: int, value: float) -> np.ndarray:
        """Labels (n, n_raters) as float codes 0..q−1, NaN for a missing rating."""
        streams = [np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(sim, k)))
                   for k in range(4)]
        m = self.n_raters
        if self.shares.ndim == 2:
            from simulation.study._closed_form import cohen_table

            table = cohen_table(value, self.shares[0], self.shares[1]).ravel()
            cell = np.searchsorted(np.cumsum(table), streams[0].random(n), side="right")
            cell = np.minimum(cell, 3)
            labels = np.stack([cell // 2, cell % 2], axis=1).astype(float)
        else:
            lam = self.easy_share(value)
            cum = np.cumsum(self.shares)
            cum[-1] = 1.0
            easy = streams[0].random(n) < lam
            truth = np.searchsorted(cum, streams[1].random(n), side="right")
            if self.chance == "uniform":
                own = np.minimum((streams[2].random((n, m)) * len(cum)).astype(np.int64),
                                 len(cum) - 1)
            else:
                own = np.searchsorted(cum, streams[2].random((n, m)), side="right")
            labels = np.where(easy[:, None], truth[:, None], own).astype(float)
        if self.missing > 0:
            labels[streams[3].random((n, m)) < self.missing] = np.nan
        return labels
