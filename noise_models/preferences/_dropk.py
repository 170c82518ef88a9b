"""Drop-k robustness: the fewest votes whose removal changes the top system (SPEC §11).

The Bradley–Terry fit of votes depends on the votes only through their counts per
*type* (pair of systems, outcome), so votes of one type are interchangeable and a
removal is a vector of counts per type. The exact search tries every removal of
``k = 1, 2, ...`` votes (multisets of types) until the top system changes or the
number of refits would pass ``max_fits``; beyond that a greedy search removes, one
at a time, the vote whose removal narrows the top system's lead most to first order
(the influence ``H⁻¹ x (y − σ)`` of one vote), refitting after each, and its count is
an upper bound (the answer is at most that). Huang et al. (ICLR 2026) found 2 of
57,477 votes enough to change a public leaderboard's top model.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from noise_models.preferences._bt import PRIOR, design, fit_scores, needs_prior, sigmoid

__all__ = ["drop_k_search", "vote_types"]


def vote_types(lo: np.ndarray, hi: np.ndarray, y: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Votes grouped by (lo, hi, lo's score): the types' lo, hi, score and counts."""
    keys = np.stack([lo, hi, np.rint(2 * y).astype(np.int64)], axis=1)
    uniq, counts = np.unique(keys, axis=0, return_counts=True)
    return uniq[:, 0], uniq[:, 1], uniq[:, 2] / 2.0, counts.astype(np.int64)


class _Fitter:
    """Refits of the types' counts, warm-started; the prior checked only when a type empties."""

    def __init__(self, lo, hi, y, counts, k, prior):
        self.lo, self.hi, self.y, self.counts, self.k = lo, hi, y, counts, k
        self.prior = prior
        self.base_rho = self._rho(counts)
        self.start = fit_scores(lo, hi, counts * y, counts.astype(np.float64), k,
                                prior=self.base_rho)

    def _rho(self, n):
        if self.prior:
            return self.prior
        keep = n > 0
        bad = needs_prior(self.lo[keep], self.hi[keep], (n * self.y)[keep],
                          (n * (1 - self.y))[keep], self.k)
        return PRIOR if bad else 0.0

    def fit(self, n):
        emptied = ((n == 0) & (self.counts > 0)).any()
        rho = self._rho(n) if emptied else self.base_rho
        return fit_scores(self.lo, self.hi, n * self.y, n.astype(np.float64), self.k,
                          prior=rho, start=self.start, tol=1e-9)


def drop_k_search(lo: np.ndarray, hi: np.ndarray, y: np.ndarray, counts: np.ndarray, k: int,
                  *, prior: float = 0.0, max_fits: int = 20000, max_k: int | None = None
                  ) -> tuple[int | None, str, np.ndarray]:
    """(fewest removals changing the top, "exact" | "greedy", removal counts per type).

    ``None`` when no removal up to ``max_k`` votes (default: all) changes the top.
    """
    fitter = _Fitter(lo, hi, y, counts, k, prior)
    top = int(np.argmax(fitter.start))
    total = int(counts.sum())
    limit = total if max_k is None else min(max_k, total)
    t = counts.size
    fits = 0
    for size in range(1, limit + 1):
        if fits + comb(t + size - 1, size) > max_fits:
            break
        for combo in itertools.combinations_with_replacement(range(t), size):
            r = np.bincount(np.asarray(combo), minlength=t)
            if (r > counts).any():
                continue
            fits += 1
            if int(np.argmax(fitter.fit(counts - r))) != top:
                return size, "exact", r
    x = design(lo, hi, k)
    r = np.zeros(t, dtype=np.int64)
    theta = fitter.start
    for size in range(1, limit + 1):
        n = counts - r
        s = sigmoid(x @ theta)
        h = (x * (n * s * (1 - s))[:, None]).T @ x + fitter.base_rho * np.eye(k)
        hp = np.linalg.pinv(h, rcond=1e-12, hermitian=True)
        rival = int(np.argmax(np.where(np.arange(k) == top, -np.inf, theta)))
        # removing one vote of type t moves θ by −H⁺ x_t (y_t − σ_t); the lead θ_top − θ_rival
        delta = -(x * (y - s)[:, None]) @ hp
        gain = delta[:, top] - delta[:, rival]
        gain[n == 0] = np.inf
        best = int(np.argmin(gain))
        if not np.isfinite(gain[best]):
            break
        r[best] += 1
        theta = fitter.fit(counts - r)
        if int(np.argmax(theta)) != top:
            return size, "greedy", r
    return None, "greedy", r
