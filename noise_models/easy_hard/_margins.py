"""Chance-difference margins: comparing two systems on a noisy test set (SPEC §2.7).

A gold standard of L items holds up to R hard (coin-flip) items. Two systems
equally good on the easy items differ on the hard ones by
``S = Σ_{i=1..R} X_i``, ``X_i ∈ {−1, 0, +1}`` with probabilities 1/4, 1/2,
1/4, so ``σ = sqrt(R/2)`` (Beigman Klebanov & Beigman 2009, §4.1).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Alpha,
    Count,
    Option,
    Probability,
    check_alpha,
    check_count,
    check_params,
    check_probability,
    validate_params,
)
from noise_models.easy_hard._bound import NoiseBoundResult
from noise_models.easy_hard._posterior import _first_true

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
special = lazy_module("scipy.special")

__all__ = ["ChanceMarginResult", "chance_margin"]

_METHODS = ("auto", "chebyshev", "normal", "exact")


@dataclass(frozen=True, repr=False)
class ChanceMarginResult(Result):
    """The difference in correct answers that coin-flip items alone can produce.

    Attributes
    ----------
    margin : float
        Differences up to this many items can be attributed to chance with
        probability α (an integer for ``method="exact"``).
    share : float or None
        ``margin / L``, the margin as a share of the gold standard; None when
        ``L`` is unknown.
    sigma : float
        ``sqrt(R/2)``, the standard deviation of the chance difference.
    R : int
        Hard (coin-flip) items in the gold standard.
    L : int or None
        Items in the gold standard.
    alpha : float
        Probability that the chance difference stays within the margin.
    method : {"chebyshev", "normal", "exact"}
        The bound the margin comes from (``method="auto"`` resolves to
        ``"chebyshev"`` or ``"exact"``).
    notes : tuple of str
        Why the bound differs from the one asked for (empty otherwise).

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    margin: float
    share: float | None
    sigma: float
    R: int
    L: int | None
    alpha: float
    method: str
    notes: tuple[str, ...] = ()

    _headline = "margin"
    _summary = ("{_line}", ("notes", "  note: {}"))  # the repr's line, a note per line

    def is_beyond_chance(self, difference: Any) -> bool:
        """Whether an observed difference of ``difference`` correct answers exceeds the margin.

        Parameters
        ----------
        difference : int or float
            Difference in the number of correct answers of the two systems
            (sign ignored).

        Returns
        -------
        bool
            ``|difference| > margin``.
        """
        if isinstance(difference, (bool, np.bool_)) or not isinstance(difference, numbers.Real):
            raise TypeError(f"`difference` must be a number of items; got {difference!r}.")
        diff = float(difference)
        if not math.isfinite(diff):
            raise ValueError(f"`difference` must be finite; got {difference!r}.")
        return abs(diff) > self.margin

    def _line(self, notes: str = "") -> str:
        share = f" ({100 * self.share:.2f}% of L={self.L})" if self.share is not None else ""
        return (f"ChanceMarginResult(margin={self.margin:.4g} items{share}, sigma="
                f"{self.sigma:.4g}, R={self.R}, alpha={self.alpha:g}, method={self.method!r}"
                f"{notes})")

    def __repr__(self) -> str:
        return self._line("".join(f"; note: {n}" for n in self.notes))


def _exact_margin(R: int, alpha: float) -> int:
    """Smallest s with P(|S| <= s) >= alpha, S + R ~ Binomial(2R, 1/2)."""
    if R == 0:
        return 0
    # P(|S| > s) = 2·F(R - s - 1) by symmetry, F the Binomial(2R, 1/2) CDF (a regularised
    # incomplete beta: exact at any R, so no kernel is needed).
    tail = (1.0 - alpha) / 2.0

    def ok(s: int) -> bool:
        x = R - s - 1
        if x < 0:
            return True
        return float(special.bdtr(x, 2 * R, 0.5)) <= tail

    guess = math.floor(special.ndtri(0.5 + alpha / 2.0) * math.sqrt(R / 2.0))
    return _first_true(ok, 0, R, guess)


@validate_params(L=Count(1, optional=True), gamma=Probability(optional=True), alpha=Alpha(),
                 method=Option(_METHODS))
def chance_margin(R: Any = None, *, L: Any = None, gamma: Any = None, alpha: float = 0.95,
                  method: str = "auto") -> ChanceMarginResult:
    """Margin a difference between two systems must exceed to beat coin-flip noise (SPEC §2.7).

    Parameters
    ----------
    R : int or NoiseBoundResult, optional
        Hard (coin-flip) items in the gold standard. A
        :class:`NoiseBoundResult` gives ``R = hidden_hard`` and
        ``L = agreed``. Give ``R``, or ``L`` and ``gamma``.
    L : int, optional
        Items in the gold standard (for the margin's share; with ``gamma``
        for ``R``).
    gamma : float, optional
        Noise rate of the gold standard; ``R = ceil(gamma · L)`` (rounding
        noise of 1e-9 ignored).
    alpha : float, default 0.95
        Probability that a chance difference stays within the margin, in (0, 1).
    method : {"auto", "chebyshev", "normal", "exact"}, default "auto"
        ``"auto"``: the paper's Chebyshev margin, or the exact one where
        Chebyshev's exceeds ``R`` (two systems cannot differ on more than the
        R coin-flip items; e.g. ``noise_bound(10, 9, 0.5)`` leaves R = 1 and a
        Chebyshev margin of 3.2 items, 316% of the agreed item): the result's
        ``method`` says which, and its ``notes`` why -- the rule ``goldnoise
        bound``/``audit`` apply;
        ``"chebyshev"``: ``σ / sqrt(1 − α)`` (the paper's, ≈ 4.5σ at 95%);
        ``"normal"``: ``z_{(1+α)/2} · σ`` (≈ 2σ, the paper's footnote 9);
        ``"exact"``: the smallest integer s with ``P(|S| <= s) >= α``.

    Returns
    -------
    ChanceMarginResult
        ``margin`` (items), ``share`` (of L), ``sigma`` and
        ``is_beyond_chance(difference)``.

    Raises
    ------
    TypeError
        If neither ``R`` nor (``L``, ``gamma``) is given, or both.
    ValueError
        If ``method`` is unknown, ``R > L``, or a value is out of range.

    Notes
    -----
    ``X_i = A_i − B_i`` with ``A_i, B_i`` independent fair coins (each system
    "right" on a coin-flip item with probability 1/2), so ``S + R`` is
    exactly Binomial(2R, 1/2); the exact margin uses its CDF (a regularised
    incomplete beta function, exact at any R). Chebyshev's bound holds for any
    distribution with that variance; the normal is the large-R approximation.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503, §4.1.
    doi:10.1162/coli.2009.35.4.35402

    Examples
    --------
    The paper's example: L = 900, R = 125 gives a margin of about 35 items
    (3.9% of the gold standard).

    >>> from noise_models import chance_margin
    >>> m = chance_margin(125, L=900)
    >>> round(m.margin, 2), round(m.share, 4)
    (35.36, 0.0393)
    >>> m.is_beyond_chance(30), m.is_beyond_chance(36)
    (False, True)
    >>> chance_margin(125, L=900, method="exact").margin
    15.0
    """
    check_params(chance_margin, locals())
    if not isinstance(method, str) or method not in _METHODS:
        raise ValueError(f"`method` must be one of {_METHODS}; got {method!r}.")
    alpha = check_alpha(alpha)
    R_, L_ = _hard_and_gold(R, L, gamma)
    sigma = math.sqrt(R_ / 2.0)
    notes: tuple[str, ...] = ()
    if method in ("chebyshev", "auto"):
        # Chebyshev: P(|S| > kσ) <= 1/k², so k = 1/sqrt(1 − α).
        margin = sigma / math.sqrt(1.0 - alpha)
        if method == "auto":
            method = "chebyshev"
            if margin > R_:
                notes = (f"the Chebyshev margin ({margin:.1f} items) exceeds the {R_} hard "
                         "item(s) two systems can differ on; the exact binomial margin is "
                         "given",)
                method, margin = "exact", float(_exact_margin(R_, alpha))
    elif method == "normal":
        margin = float(special.ndtri(0.5 + alpha / 2.0)) * sigma
    else:
        margin = float(_exact_margin(R_, alpha))
    share = None if L_ is None else margin / L_
    return ChanceMarginResult(margin=margin, share=share, sigma=sigma, R=R_, L=L_, alpha=alpha,
                              method=method, notes=notes)


def _hard_and_gold(R: Any, L: Any, gamma: Any) -> tuple[int, int | None]:
    """``(R, L)``: the hard items and the gold-standard items (None if not given), from a
    :class:`NoiseBoundResult`, from ``R`` (and ``L``), or from ``L`` and ``gamma``."""
    if isinstance(R, NoiseBoundResult):
        if L is not None or gamma is not None:
            raise TypeError("a NoiseBoundResult gives both R and L; do not pass `L` or `gamma`.")
        R_, L_ = R.hidden_hard, R.agreed
    elif R is not None:
        if gamma is not None:
            raise TypeError("give `R`, or `L` and `gamma`, not both.")
        R_ = check_count(R, "R")
        L_ = None if L is None else check_count(L, "L", minimum=1)
        if L_ is not None and R_ > L_:
            raise ValueError(f"`R` (hard items) cannot exceed `L` (gold-standard items); got "
                             f"R={R_} > L={L_}.")
    else:
        if L is None or gamma is None:
            raise TypeError("give `R` (hard items), or both `L` (gold-standard items) and "
                            "`gamma` (its noise rate).")
        L_ = check_count(L, "L", minimum=1)
        g = check_probability(gamma, "gamma")
        x = g * L_
        R_ = round(x) if abs(x - round(x)) <= 1e-9 * max(1.0, x) else math.ceil(x)
    return R_, L_
