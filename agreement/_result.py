"""Result objects shared by every coefficient."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from agreement._repr_html import result_html

__all__ = ["AgreementResult", "ConfidenceInterval"]

_CI_METHODS = ("normal", "t")


class ConfidenceInterval(NamedTuple):
    """A two-sided confidence interval."""

    low: float
    high: float


def _check_confidence_level(confidence_level: Any) -> float:
    if isinstance(confidence_level, (str, bytes, bool)) or not isinstance(
        confidence_level, (int, float)
    ):
        raise TypeError(
            f"`confidence_level` must be a number in (0, 1); got {confidence_level!r}."
        )
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"`confidence_level` must be in (0, 1); got {confidence_level!r}.")
    return level


@dataclass(frozen=True, repr=False)
class AgreementResult:
    """An agreement coefficient with its parts and its analytic standard error.

    Attributes
    ----------
    coefficient : str
        Name of the coefficient, e.g. ``"Fleiss' kappa"``.
    value : float
        The coefficient, ``(observed - expected) / (1 - expected)`` for the
        chance-corrected ones; NaN (with a warning) when undefined.
    observed : float
        Observed agreement ``PA`` (weighted where weights apply; for
        Krippendorff's α, ``1 - D_o``).
    expected : float
        Chance agreement ``PE`` (for Krippendorff's α, ``1 - D_e``).
    n_items : int
        Items that entered the coefficient (items with at least one rating;
        pairable items for Krippendorff's α).
    n_pairable : int
        Items with two or more ratings (those carrying observed agreement).
    n_raters : int
        Annotators.
    n_categories : int
        Categories, declared ones included.
    standard_error : float
        Analytic standard error (Fleiss–Cohen–Everitt for Cohen's κ; Gwet's
        linearised variance otherwise); NaN where none is defined.
    ci_method : {"normal", "t"}
        Default interval: ``"t"`` (Student's t, ``n_items - 1`` degrees of
        freedom, as Gwet's irrCAC) or ``"normal"`` (as SAS PROC FREQ and vcd).
    weights : str or None
        ``None`` (nominal), ``"linear"``, ``"quadratic"``, ``"custom"``, or
        Krippendorff's level.
    notes : tuple of str
        Conventions applied and anything the user should know.
    """

    coefficient: str
    value: float
    observed: float
    expected: float
    n_items: int
    n_pairable: int
    n_raters: int
    n_categories: int
    standard_error: float = math.nan
    ci_method: str = "t"
    weights: str | None = None
    notes: tuple[str, ...] = field(default=())

    def confidence_interval(
        self, confidence_level: float = 0.95, *, method: str | None = None
    ) -> ConfidenceInterval:
        """Wald interval ``value ± q · standard_error``.

        Parameters
        ----------
        confidence_level : float, default 0.95
            In (0, 1).
        method : {"t", "normal"}, optional
            Quantile of Student's t with ``n_items - 1`` degrees of freedom
            (Gwet 2014) or of the standard normal (SAS, vcd). Default: the
            coefficient's own, :attr:`ci_method`.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; ``(nan, nan)`` when the standard error is
            undefined. Not clipped to the coefficient's range.
        """
        level = _check_confidence_level(confidence_level)
        method = self.ci_method if method is None else method
        if method not in _CI_METHODS:
            raise ValueError(f"`method` must be one of {_CI_METHODS}; got {method!r}.")
        if not (math.isfinite(self.value) and math.isfinite(self.standard_error)):
            return ConfidenceInterval(math.nan, math.nan)
        from scipy import stats  # imported here: scipy.stats doubles `import agreement`
        tail = 0.5 + level / 2.0
        if method == "t":
            q = float(stats.t.ppf(tail, max(self.n_items - 1, 1)))
        else:
            q = float(stats.norm.ppf(tail))
        half = q * self.standard_error
        return ConfidenceInterval(self.value - half, self.value + half)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields (for a DataFrame row)."""
        out = asdict(self)
        out["notes"] = "; ".join(self.notes)
        return out

    _repr_html_ = result_html

    def __repr__(self) -> str:
        ci = self.confidence_interval()
        w = f", weights={self.weights}" if self.weights else ""
        return (
            f"AgreementResult({self.coefficient}{w}: {self.value:.4f}, SE {self.standard_error:.4f}, "
            f"95% CI ({self.ci_method}) [{ci.low:.4f}, {ci.high:.4f}]; observed "
            f"{self.observed:.4f}, expected {self.expected:.4f}; {self.n_items} items, "
            f"{self.n_raters} raters, {self.n_categories} categories)"
        )

    def __float__(self) -> float:
        return float(self.value)
