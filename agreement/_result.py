"""Result objects shared by every coefficient."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from _goldnoise_lib.results import ConfidenceInterval, Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    check_confidence_level,
    check_option,
    check_params,
    validate_params,
)

__all__ = ["AgreementResult", "ConfidenceInterval", "TestResult"]

_CI_METHODS = ("normal", "t")
_ALTERNATIVES = ("two-sided", "greater", "less")


class TestResult(NamedTuple):
    """A test of ``H0: coefficient = null`` (see :meth:`AgreementResult.test`).

    Attributes
    ----------
    statistic : float
        ``(value − null) / standard_error``.
    pvalue : float
        From the standard normal, or Student's t with ``n_items − 1``
        degrees of freedom (``distribution``).
    standard_error : float
        The standard error used: the variance under H0 where a published one
        exists, else the coefficient's analytic standard error.
    null : float
    method : str
        Which variance: e.g. ``"Fleiss-Cohen-Everitt (1969) under H0"``.
    distribution : {"normal", "t"}
    alternative : {"two-sided", "greater", "less"}
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    standard_error: float
    null: float
    method: str
    distribution: str
    alternative: str


@functools.lru_cache(maxsize=256)
def _quantile(level: float, method: str, n_items: int) -> float:
    # Cached: simulations and resampling ask for the same few quantiles many times.
    from scipy import stats  # imported here: scipy.stats doubles `import agreement`
    tail = 0.5 + level / 2.0
    if method == "t":
        return float(stats.t.ppf(tail, max(n_items - 1, 1)))
    return float(stats.norm.ppf(tail))


def with_clip_note(res: AgreementResult) -> AgreementResult:
    """``res`` with a note when its 95% interval is clipped to the coefficient's range."""
    if not res.clipped(0.95):
        return res
    lo, hi = res.value_range
    note = (f"95% interval clipped to the range [{lo:g}, {hi:g}] of the coefficient "
            "(the Wald interval left it)")
    return replace(res, notes=(*res.notes, note))


@dataclass(frozen=True, repr=False)
class AgreementResult(Result):
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
        ``None`` (nominal), the name of the weights (``"linear"``,
        ``"quadratic"``, ``"ordinal"``, ...), ``"custom"``, or Krippendorff's
        level.
    notes : tuple of str
        Conventions applied and anything the user should know.
    null_standard_error : float
        Standard error under ``H0: coefficient = 0`` where a published one
        exists (Fleiss, Cohen & Everitt 1969 for Cohen's κ with complete
        data; Fleiss, Nee & Landis 1979 for Fleiss' κ with equal numbers of
        ratings per item), else NaN; used by :meth:`test` with ``null=0``.
    value_range : (float, float)
        The coefficient's possible range; intervals are clipped to it.

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict` (``value_range`` and ``notes`` as in :meth:`to_dict`, the range left out).
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
    # The SE under H0, or a function computing it on first use (only `.test()` needs it,
    # so a second pass over the data is not paid on every call); see null_standard_error.
    _null_se: Any = field(default=math.nan, repr=False, compare=False)
    value_range: tuple[float, float] = (-1.0, 1.0)

    @property
    def null_standard_error(self) -> float:
        """Standard error under ``H0: coefficient = 0`` (computed on first use), or NaN."""
        value = self._null_se
        if callable(value):
            value = float(value())
            object.__setattr__(self, "_null_se", value)  # cache; the result stays frozen
        return value

    def __getstate__(self) -> dict[str, Any]:
        # Pickled with the null SE computed (a function of the data does not travel).
        state = dict(self.__dict__)
        state["_null_se"] = self.null_standard_error
        return state

    @validate_params(confidence_level=ConfidenceLevel(),
                     method=Option(_CI_METHODS, optional=True))
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
            ``(low, high)``, clipped to :attr:`value_range` (as irrCAC clips at
            1); ``(nan, nan)`` when the standard error is undefined.
            :meth:`clipped` says whether clipping happened.
        """
        check_params(AgreementResult.confidence_interval, locals())
        level = check_confidence_level(confidence_level)
        method = self.ci_method if method is None else method
        check_option(method, "method", _CI_METHODS)
        if not (math.isfinite(self.value) and math.isfinite(self.standard_error)):
            return ConfidenceInterval(math.nan, math.nan)
        half = _quantile(level, method, self.n_items) * self.standard_error
        lo, hi = self.value_range
        return ConfidenceInterval(max(self.value - half, lo), min(self.value + half, hi))

    @validate_params(confidence_level=ConfidenceLevel(), method=Option(_CI_METHODS, optional=True))
    def clipped(self, confidence_level: float = 0.95, *, method: str | None = None) -> bool:
        """Whether the Wald interval at this level left :attr:`value_range` and was clipped."""
        check_params(AgreementResult.clipped, locals())
        level = check_confidence_level(confidence_level)
        method = self.ci_method if method is None else method
        check_option(method, "method", _CI_METHODS)
        if not (math.isfinite(self.value) and math.isfinite(self.standard_error)):
            return False
        half = _quantile(level, method, self.n_items) * self.standard_error
        lo, hi = self.value_range
        return self.value - half < lo or self.value + half > hi

    def test(self, null: float = 0.0, *, alternative: str = "two-sided") -> TestResult:
        """Test ``H0: coefficient = null``.

        Parameters
        ----------
        null : float, default 0.0
            The value under the null hypothesis.
        alternative : {"two-sided", "greater", "less"}, default "two-sided"

        Returns
        -------
        TestResult
            With ``null = 0`` and a published variance under H0
            (:attr:`null_standard_error`: Fleiss–Cohen–Everitt for Cohen's κ,
            as SAS PROC FREQ and R's vcd print it; Fleiss–Nee–Landis for
            Fleiss' κ), a z test with that standard error. Otherwise a Wald
            test with the analytic :attr:`standard_error`, referred to the
            coefficient's own distribution (:attr:`ci_method`).

        Raises
        ------
        TypeError, ValueError
            For a non-numeric ``null`` or an unknown ``alternative``.

        Examples
        --------
        SAS PROC FREQ's agreement example (H0 ASE 0.1484, Z 3.2626):

        >>> from agreement import Ratings, cohen_kappa
        >>> res = cohen_kappa(Ratings.from_contingency([[0, 4, 1], [0, 8, 0], [0, 1, 5]]))
        >>> t = res.test()
        >>> round(t.standard_error, 4), round(t.statistic, 4)
        (0.1484, 3.2626)
        """
        if isinstance(null, (str, bytes, bool)) or not isinstance(null, (int, float)):
            raise TypeError(f"`null` must be a number; got {null!r}.")
        null = float(null)
        if not math.isfinite(null):
            raise ValueError(f"`null` must be finite; got {null}.")
        if alternative not in _ALTERNATIVES:
            raise ValueError(f"`alternative` must be one of {_ALTERNATIVES}; got {alternative!r}.")
        if null == 0.0 and math.isfinite(self.null_standard_error):
            se, dist = self.null_standard_error, "normal"
            method = ("Fleiss, Cohen & Everitt (1969) variance under H0"
                      if self.coefficient.startswith("Cohen") else
                      "Fleiss, Nee & Landis (1979) variance under H0")
        else:
            se, dist = self.standard_error, self.ci_method
            method = "Wald test with the analytic standard error"
        if not (math.isfinite(self.value) and math.isfinite(se)) or se <= 0:
            return TestResult(math.nan, math.nan, se, null, method, dist, alternative)
        z = (self.value - null) / se
        from scipy import stats
        ref = stats.norm if dist == "normal" else stats.t(max(self.n_items - 1, 1))
        if alternative == "two-sided":
            p = 2.0 * float(ref.sf(abs(z)))
        elif alternative == "greater":
            p = float(ref.sf(z))
        else:
            p = float(ref.cdf(z))
        return TestResult(float(z), min(p, 1.0), float(se), null, method, dist, alternative)

    def __repr__(self) -> str:
        ci = self.confidence_interval()
        w = f", weights={self.weights}" if self.weights else ""
        return (
            f"AgreementResult({self.coefficient}{w}: {self.value:.4f}, SE {self.standard_error:.4f}, "
            f"95% CI ({self.ci_method}) [{ci.low:.4f}, {ci.high:.4f}]; observed "
            f"{self.observed:.4f}, expected {self.expected:.4f}; {self.n_items} items, "
            f"{self.n_raters} raters, {self.n_categories} categories)"
        )

    _headline = "value"
    _keys = ("coefficient", "value", "observed", "expected", "n_items", "n_pairable", "n_raters",
             "n_categories", "standard_error", "ci_method", "weights", "notes",
             "null_standard_error", "value_range")
