"""Variances under H0 (κ = 0) and Cohen's κ from a contingency table.

* Fleiss, Cohen & Everitt (1969) for Cohen's (weighted) κ, as SAS PROC FREQ
  and R's vcd print it ("ASE under H0"): with the joint shares ``p_ab`` of
  the first annotator's category ``a`` and the second's ``b``, marginals
  ``p_a·``, ``p_·b``, ``w̄_a· = Σ_b p_·b w_ab`` and ``w̄_·b = Σ_a p_a· w_ab``,

      var₀(κ_w) = [Σ_ab p_a· p_·b (w_ab − (w̄_a· + w̄_·b))² − P_e²] / (n (1 − P_e)²),

  and the variance at the estimate

      var(κ_w) = [Σ_ab p_ab (w_ab − (w̄_a· + w̄_·b)(1 − κ))² − (κ − P_e (1 − κ))²]
                 / (n (1 − P_e)²).

  Neither needs ``w`` symmetric, so both serve Cohen's (1968) asymmetric
  weights.
* Fleiss, Nee & Landis (1979) for Fleiss' κ with ``n`` ratings on each of
  ``N`` items, categories' shares ``p_j`` and ``q_j = 1 − p_j``:

      var₀(κ) = 2 / (N n (n − 1)) · [(Σ p_j q_j)² − Σ p_j q_j (q_j − p_j)] / (Σ p_j q_j)²,

  and for the per-category κ_j (category j against the rest)
  ``var₀(κ_j) = 2 / (N n (n − 1))``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["cohen_from_table", "cohen_null_from_sums", "contingency", "fleiss_null_se"]


def contingency(codes: np.ndarray, m: int) -> np.ndarray:
    """``m × m`` counts of the items both annotators (the two columns) rated."""
    a, b = codes[:, 0].astype(np.int64), codes[:, 1].astype(np.int64)
    both = (a >= 0) & (b >= 0)
    return np.bincount(a[both] * m + b[both], minlength=m * m).reshape(m, m).astype(np.float64)


def cohen_from_table(table: np.ndarray, w: np.ndarray) -> tuple[float, float, float, float, float]:
    """``(κ, P_o, P_e, SE, SE under H0)`` of Cohen's weighted κ (Fleiss, Cohen & Everitt 1969)."""
    n = float(table.sum())
    p = table / n
    p1, p2 = p.sum(axis=1), p.sum(axis=0)
    po = float((w * p).sum())
    pe = float(p1 @ w @ p2)
    q = 1.0 - pe
    if q <= 1e-12:
        return math.nan, po, pe, math.nan, math.nan
    kappa = (po - pe) / q
    wa = w @ p2  # w̄_a· = Σ_b p_·b w_ab
    wb = p1 @ w  # w̄_·b = Σ_a p_a· w_ab
    s = wa[:, None] + wb[None, :]
    var = ((p * (w - s * (1.0 - kappa)) ** 2).sum() - (kappa - pe * (1.0 - kappa)) ** 2) / (n * q * q)
    var0 = ((np.outer(p1, p2) * (w - s) ** 2).sum() - pe * pe) / (n * q * q)
    return kappa, po, pe, math.sqrt(max(var, 0.0)), math.sqrt(max(var0, 0.0))


def cohen_null_from_sums(sums: np.ndarray, k: int, m: int, w: np.ndarray) -> float:
    """Cohen's SE under H0 from the rater-family column sums (complete data).

    ``var₀`` needs only the two annotators' marginals ``p_a·`` and ``p_·b`` and
    ``n``, which the sums carry (``x[j, c]`` summed over items); with complete
    data they are the contingency table's margins, so no second pass is needed.
    """
    s = np.asarray(sums, dtype=np.float64)
    x = s[3:3 + k * m].reshape(k, m)
    rows = x[x.sum(axis=1) > 0]
    n = float(s[0])
    if rows.shape[0] != 2 or n <= 0:
        return math.nan
    p1, p2 = rows[0] / n, rows[1] / n
    pe = float(p1 @ w @ p2)
    q = 1.0 - pe
    if q <= 1e-12:
        return math.nan
    t = (w @ p2)[:, None] + (p1 @ w)[None, :]
    var0 = ((np.outer(p1, p2) * (w - t) ** 2).sum() - pe * pe) / (n * q * q)
    return math.sqrt(max(var0, 0.0))


def fleiss_null_se(counts: np.ndarray) -> float:
    """Fleiss, Nee & Landis (1979) SE of Fleiss' κ under H0; NaN unless every rated
    item has the same number (≥ 2) of ratings."""
    a = np.asarray(counts, dtype=np.float64)
    r = a.sum(axis=1)
    a = a[r > 0]
    r = r[r > 0]
    if a.shape[0] < 1 or r.min() != r.max() or r[0] < 2:
        return math.nan
    n_items, n = float(a.shape[0]), float(r[0])
    p = a.sum(axis=0) / (n_items * n)
    pq = p * (1.0 - p)
    spq = float(pq.sum())
    if spq <= 0:
        return math.nan
    var0 = 2.0 / (n_items * n * (n - 1.0)) * (spq ** 2 - float((pq * (1.0 - 2.0 * p)).sum())) / spq ** 2
    return math.sqrt(max(var0, 0.0))
