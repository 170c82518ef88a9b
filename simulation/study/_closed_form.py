"""Closed-form study sizes, each reproduced in its own published scope.

- Cohen's κ, two annotators, a binary outcome: the asymptotic variance of κ̂ of
  Fleiss, Cohen & Everitt (1969) evaluated at the planned κ with the annotators'
  marginals fixed, as Cantor (1996) uses it for power (the formula behind R
  irr's ``N.cohen.kappa``) and, by the same variance, for an interval's
  half-width.
- Krippendorff's α, nominal: Bloch & Kraemer's (1989, eq. 3.7) size as
  Krippendorff (2004, §11.4.4) tabulates it for a smallest acceptable α and a
  significance level, ``m · z² · [(1+α)(3−α) / (4 (1−α) p_c (1−p_c)) − α]``
  for m coders (the table's m = 2) and the smallest category share p_c.
- The intraclass correlation ICC(1,1), k ratings per item: Walter, Eliasziw &
  Donner's (1998, eq. 7) items for the F test of ρ = ρ₀ against ρ = ρ₁,
  ``n = 1 + 2 k (z_a + z_power)² / ((k − 1) (ln C₀)²)``, ``C₀ = (1 + k θ₀) / (1 + k θ₁)``,
  ``θ = ρ / (1 − ρ)``; the exact power of that F test at any n (Donner &
  Eliasziw 1987) checks it.

References
----------
Cantor, A. B. (1996). Sample-size calculations for Cohen's kappa. Psychological
Methods 1(2), 150–153. https://doi.org/10.1037/1082-989X.1.2.150
Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of
kappa and weighted kappa. Psychological Bulletin 72(5), 323–327.
https://doi.org/10.1037/h0028106
Bloch, D. A. & Kraemer, H. C. (1989). 2 x 2 kappa coefficients: measures of
agreement or association. Biometrics 45(1), 269–287. https://doi.org/10.2307/2531653
Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology
(2nd ed.), §11.4.4. Sage.
Walter, S. D., Eliasziw, M. & Donner, A. (1998). Sample size and optimal designs for
reliability studies. Statistics in Medicine 17(1), 101–110.
https://doi.org/10.1002/(SICI)1097-0258(19980115)17:1<101::AID-SIM727>3.0.CO;2-E
Donner, A. & Eliasziw, M. (1987). Sample size requirements for reliability studies.
Statistics in Medicine 6(4), 441–448. https://doi.org/10.1002/sim.4780060404
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["bloch_kraemer_size", "cantor_power_size", "cantor_width_size", "cohen_table",
           "fce_unit_variance", "icc_f_power", "walter_icc_size"]


def _z(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def cohen_table(kappa: float, rater1: np.ndarray, rater2: np.ndarray) -> np.ndarray:
    """The 2 × 2 joint table of two annotators with marginals ``rater1``, ``rater2`` and κ.

    With two categories the margins and κ fix the table:
    ``p_o = κ (1 − p_e) + p_e``, ``p_11 = (p_o − 1 + a_1 + b_1) / 2``.
    Raises ValueError when a cell would be negative (κ not reachable).
    """
    a, b = np.asarray(rater1, float), np.asarray(rater2, float)
    pe = float(a @ b)
    po = kappa * (1.0 - pe) + pe
    p11 = (po - 1.0 + a[0] + b[0]) / 2.0
    table = np.array([[p11, a[0] - p11], [b[0] - p11, 1.0 - a[0] - b[0] + p11]])
    if np.any(table < -1e-12):
        lo, hi = _kappa_limits(a, b)
        raise ValueError(f"κ = {kappa:g} is not reachable by two annotators with marginals "
                         f"{a.tolist()} and {b.tolist()}: κ must lie in [{lo:.4f}, {hi:.4f}].")
    return np.clip(table, 0.0, 1.0)


def _kappa_limits(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    pe = float(a @ b)
    # p11 ranges over [max(0, a1 + b1 − 1), min(a1, b1)]; p_o = 2 p11 + 1 − a1 − b1.
    lo11, hi11 = max(0.0, a[0] + b[0] - 1.0), min(a[0], b[0])
    to_k = lambda p11: ((2 * p11 + 1 - a[0] - b[0]) - pe) / (1 - pe)  # noqa: E731
    return to_k(lo11), to_k(hi11)


def fce_unit_variance(table: np.ndarray) -> float:
    """``n · Var(κ̂)`` of Fleiss, Cohen & Everitt (1969) for the joint table ``table``.

    ``Q = [Σ_i p_ii (1 − (p_i. + p_.i)(1 − κ))² + (1 − κ)² Σ_{i≠j} p_ij (p_.i + p_j.)²
    − (κ − p_e (1 − κ))²] / (1 − p_e)²`` (Cantor 1996, eq. 2).
    """
    p = np.asarray(table, float)
    row, col = p.sum(axis=1), p.sum(axis=0)
    pe = float(row @ col)
    po = float(np.trace(p))
    k = (po - pe) / (1.0 - pe)
    diag = sum(p[i, i] * (1.0 - (row[i] + col[i]) * (1.0 - k)) ** 2 for i in range(len(p)))
    off = sum(p[i, j] * (col[i] + row[j]) ** 2
              for i in range(len(p)) for j in range(len(p)) if i != j)
    return float((diag + (1.0 - k) ** 2 * off - (k - pe * (1.0 - k)) ** 2) / (1.0 - pe) ** 2)


def cantor_power_size(expected: float, null: float, power: float, significance: float,
                      rater1: np.ndarray, rater2: np.ndarray, alternative: str
                      ) -> tuple[float, dict]:
    """Cantor's (1996) items for a test of κ = ``null`` against κ = ``expected``.

    ``n = [(z_{1−a} √Q₀ + z_{power} √Q₁) / (κ₁ − κ₀)]²`` with ``a`` the significance
    (halved for a two-sided test) and Q the FCE unit variance at κ₀ and κ₁.
    """
    q0 = fce_unit_variance(cohen_table(null, rater1, rater2))
    q1 = fce_unit_variance(cohen_table(expected, rater1, rater2))
    a = significance / 2.0 if alternative == "two-sided" else significance
    n = ((_z(1.0 - a) * math.sqrt(q0) + _z(power) * math.sqrt(q1)) / (expected - null)) ** 2
    return n, {"Q0": q0, "Q1": q1, "formula": "Cantor (1996): n = [(z_(1-a) sqrt(Q0) + "
               "z_power sqrt(Q1)) / (kappa1 - kappa0)]^2, Q of Fleiss, Cohen & Everitt (1969)"}


def cantor_width_size(expected: float, target: float, confidence_level: float,
                      rater1: np.ndarray, rater2: np.ndarray) -> tuple[float, dict]:
    """Items for an asymptotic interval half-width ``target``: ``n = (z √Q₁ / target)²``."""
    q1 = fce_unit_variance(cohen_table(expected, rater1, rater2))
    z = _z(0.5 + confidence_level / 2.0)
    return (z * math.sqrt(q1) / target) ** 2, {
        "Q1": q1, "formula": "n = (z sqrt(Q1) / half-width)^2, Q of Fleiss, Cohen & Everitt "
                             "(1969) at the expected kappa"}


def bloch_kraemer_size(minimum: float, significance: float, smallest_share: float,
                       n_raters: int) -> tuple[float, dict]:
    """Bloch & Kraemer (1989, eq. 3.7) as Krippendorff (2004, §11.4.4) tabulates it.

    ``N = m z_{1−p}² [(1 + α_min)(3 − α_min) / (4 (1 − α_min) p_c (1 − p_c)) − α_min]``
    with m coders (Krippendorff's table: m = 2), one-sided ``p``, and ``p_c`` the
    smallest category share (1/k for k equiprobable categories).
    """
    z2 = _z(1.0 - significance) ** 2
    pc = smallest_share
    inner = (1 + minimum) * (3 - minimum) / (4 * (1 - minimum) * pc * (1 - pc)) - minimum
    return n_raters * z2 * inner, {
        "formula": "Bloch & Kraemer (1989, eq. 3.7) as Krippendorff (2004) tabulates it: "
                   "N = m z^2 [(1+a)(3-a) / (4 (1-a) p_c (1-p_c)) - a]", "p_c": pc}


def _c0(expected: float, null: float, n_raters: int) -> float:
    theta0, theta1 = null / (1.0 - null), expected / (1.0 - expected)
    return (1.0 + n_raters * theta0) / (1.0 + n_raters * theta1)


def walter_icc_size(expected: float, null: float, power: float, significance: float,
                    n_raters: int, alternative: str) -> tuple[float, dict]:
    """Walter, Eliasziw & Donner (1998, eq. 7): items for the F test of ICC(1,1).

    ``n = 1 + 2 k (z_{1−a} + z_{power})² / ((k − 1) (ln C₀)²)`` with
    ``C₀ = (1 + k θ₀) / (1 + k θ₁)``, ``θ = ρ / (1 − ρ)``, ``a`` the significance
    (halved for a two-sided test).
    """
    k = n_raters
    a = significance / 2.0 if alternative == "two-sided" else significance
    c0 = _c0(expected, null, k)
    n = 1.0 + 2.0 * k * (_z(1.0 - a) + _z(power)) ** 2 / ((k - 1.0) * math.log(c0) ** 2)
    return n, {"C0": c0, "formula": "Walter, Eliasziw & Donner (1998): n = 1 + 2k (z_(1-a) + "
               "z_power)^2 / ((k-1) (ln C0)^2), C0 = (1 + k theta0) / (1 + k theta1)"}


def icc_f_power(n_items: int, expected: float, null: float, significance: float,
                n_raters: int, alternative: str) -> float:
    """Exact power of the one-way F test of ρ = ρ₀ when ρ = ``expected`` (Donner & Eliasziw 1987).

    MSR/MSW is ``(1 + k θ) F(n − 1, n(k − 1))``, so the test that rejects above
    ``(1 + k θ₀) F_{1−a}`` has power ``P(F > C₀ F_{1−a})`` (``< C₀ F_a`` for a
    smaller ρ); two-sided: both tails at a/2.
    """
    from scipy import stats

    k, n = n_raters, n_items
    d1, d2 = n - 1.0, n * (k - 1.0)
    c0 = _c0(expected, null, k)
    a = significance / 2.0 if alternative == "two-sided" else significance
    upper = float(stats.f.sf(c0 * stats.f.ppf(1.0 - a, d1, d2), d1, d2))
    lower = float(stats.f.cdf(c0 * stats.f.ppf(a, d1, d2), d1, d2))
    if alternative == "greater":
        return upper
    if alternative == "less":
        return lower
    return upper + lower
