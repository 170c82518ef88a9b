"""The public coefficient functions: each chooses between its two implementations.

Given in-memory data (a :class:`~agreement.Ratings`, or anything
:func:`~agreement.as_ratings` wraps), a coefficient is computed by
:mod:`agreement._coefficients` (Krippendorff's α by :mod:`agreement._krippendorff`);
given a chunked ratings object (:class:`~agreement.ChunkedRatings`), by
partial → combine → finalize over its chunks (:mod:`agreement._partial`), with
the same result. This module imports both and sits above them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agreement._chunked import is_chunked
from agreement._coefficients import coefficient_in_memory
from agreement._krippendorff import alpha_in_memory
from agreement._partial import alpha_over_chunks, coefficient_over_chunks
from agreement._result import AgreementResult

__all__ = [
    "brennan_prediger",
    "cohen_kappa",
    "conger_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "krippendorff_alpha",
    "light_kappa",
    "percent_agreement",
    "scott_pi",
]


def _coefficient(ratings: Any) -> Callable[..., AgreementResult]:
    """The implementation of a coefficient for these ratings: over chunks or in memory."""
    return coefficient_over_chunks if is_chunked(ratings) else coefficient_in_memory


_PARAMS = """
    Parameters
    ----------
    ratings : Ratings or array_like, shape (n_items, n_raters)
        The ratings; a raw items × annotators array or DataFrame (NaN/None
        missing) is wrapped with :func:`~agreement.as_ratings`.{counts}
    weights : None, str or array_like, shape (m, m), optional
        Agreement weights (Gwet 2014, as irrCAC): ``None`` (or ``"identity"``)
        counts only identical ratings; ``"linear"``, ``"quadratic"``,
        ``"ordinal"``, ``"radical"``, ``"ratio"``, ``"circular"`` and
        ``"bipolar"`` are computed from the categories' numeric values (or
        their declared order ``1..m``) over the declared categories (formulas
        in :func:`~agreement.named_weights`; the notes state the values used).
        A matrix must have ones on the diagonal and values in [0, 1], and be
        symmetric (only :func:`cohen_kappa` accepts a non-symmetric one).
    n_population : float, optional
        Size of the population of items the sample was drawn from; applies
        the finite-population correction ``1 − n / N`` to the variance.
        Default: infinite.

    Returns
    -------
    AgreementResult
        ``value``, ``observed`` (PA), ``expected`` (PE), counts, the analytic
        ``standard_error`` and ``.confidence_interval()``.

    Raises
    ------
    ValueError
        If no item has two ratings{raters}, or for invalid ``weights``.
    TypeError
        If ``weights`` or ``n_population`` has the wrong type.

    Warns
    -----
    DegenerateDataWarning
        When chance agreement is 1 (e.g. one category only): the value is
        NaN.

"""
_COUNTS_OK = ("\n        A count table (:meth:`Ratings.from_counts`) works too: this "
              "coefficient needs\n        no annotator identity.")
_NEEDS_RATERS = ("\n        Annotator identity is needed: count tables are refused. "
                 "Annotators\n        without any rating are ignored.")


def _doc(counts_ok: bool, raters: str = ""):
    def deco(fn):
        fn.__doc__ = fn.__doc__.replace(
            "    {params}\n",
            _PARAMS.format(counts=_COUNTS_OK if counts_ok else _NEEDS_RATERS,
                           raters=raters).lstrip("\n"))
        return fn
    return deco


@_doc(True)
def percent_agreement(ratings: Any, *, weights: Any = None,
                      n_population: float | None = None) -> AgreementResult:
    """Observed agreement ``PA``: the mean share of agreeing pairs of ratings.

    {params}
    Notes
    -----
    ``PA = mean_i Σ_c a_ic (Σ_l w_cl a_il − 1) / (r_i (r_i − 1))`` over the
    items with ``r_i ≥ 2`` ratings (SPEC §1); ``expected`` is 0. The notes
    give the share of unanimous items. Standard error: Gwet (2014), t
    interval with ``n − 1`` degrees of freedom.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.).
    Advanced Analytics. ISBN 978-0970806284.

    Examples
    --------
    >>> from agreement import percent_agreement
    >>> res = percent_agreement([["a", "a", "a"], ["a", "b", "b"], ["b", "b", None]])
    >>> round(res.value, 4)
    0.7778
    >>> res.notes[0]
    'unanimous items: 2 of 3 (66.7%)'
    >>> res.confidence_interval().high, res.clipped()  # the t interval is clipped at 1
    (1.0, True)
    """
    return _coefficient(ratings)("percent_agreement", ratings, weights=weights,
                                 n_population=n_population)


@_doc(True)
def fleiss_kappa(ratings: Any, *, weights: Any = None,
                 n_population: float | None = None) -> AgreementResult:
    """Fleiss' κ (Fleiss 1971; Siegel & Castellan's K), with Gwet's weights.

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl π_c π_l`` with ``π_c`` the item-average of
    ``a_ic / r_i``; with complete data and no weights this is Fleiss' (1971)
    κ (statsmodels' ``fleiss_kappa``). Standard error: Gwet's linearised
    variance (Gwet 2008, 2014; irrCAC ``fleiss.kappa.raw``), t interval.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    *Psychological Bulletin* 76(5), 378–382. https://doi.org/10.1037/h0031619

    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in
    the presence of high agreement. *British Journal of Mathematical and
    Statistical Psychology* 61, 29–48. https://doi.org/10.1348/000711006X126600

    Examples
    --------
    The standard worked example (Wikipedia, "Fleiss' kappa"): 10 subjects,
    14 annotators, 5 categories, as a count table; κ = 0.210.

    >>> from agreement import Ratings, fleiss_kappa
    >>> table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...          [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...          [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    >>> res = fleiss_kappa(Ratings.from_counts(table))
    >>> round(res.value, 3)
    0.21
    """
    return _coefficient(ratings)("fleiss_kappa", ratings, weights=weights,
                                 n_population=n_population)


@_doc(True, " or an item has more than two ratings")
def scott_pi(ratings: Any, *, weights: Any = None,
             n_population: float | None = None) -> AgreementResult:
    """Scott's π: Fleiss' κ for at most two ratings per item (Scott 1955).

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl π_c π_l`` with the pooled marginals of both ratings.
    Standard error: Gwet's linearised variance (t interval); irrCAC's
    ``scott2.table`` divides the same sum of squares by ``n`` instead of
    ``n − 1``.

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: The case of nominal
    scale coding. *Public Opinion Quarterly* 19(3), 321–325.
    https://doi.org/10.1086/266577

    Examples
    --------
    >>> from agreement import scott_pi
    >>> round(scott_pi([[1, 1], [1, 2], [2, 2], [2, 2]]).value, 4)
    0.4667
    """
    return _coefficient(ratings)("scott_pi", ratings, weights=weights,
                                 n_population=n_population)


@_doc(False, ", or the ratings do not have exactly two annotators")
def cohen_kappa(ratings: Any, *, weights: Any = None,
                n_population: float | None = None) -> AgreementResult:
    """Cohen's κ for two annotators, weighted κ (Cohen 1968) with ``weights``.

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl p_1c p_2l`` from each annotator's own marginals.
    Standard error: Fleiss, Cohen & Everitt (1969), the asymptotic variance
    SAS PROC FREQ, R's vcd and irrCAC's ``kappa2.table`` report, with a
    normal interval by default (``result.confidence_interval(method="t")``
    for irrCAC's t interval). With missing ratings the estimate follows Gwet
    (2014) — ``PA`` over the items both rated, each annotator's marginals
    over the items they rated — and the standard error is Gwet's linearised
    variance (as :func:`conger_kappa` on the same two annotators), t
    interval. A contingency table is read with
    :meth:`Ratings.from_contingency`.

    ``weights`` may be a non-symmetric matrix (Cohen 1968: when the two
    annotators' roles differ, e.g. one is the criterion): rows are the first
    annotator's categories, columns the second's; this needs complete data.
    ``result.test()`` tests κ = 0 with the Fleiss–Cohen–Everitt variance
    under H0 (SAS PROC FREQ's "ASE under H0") when the data are complete.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales.
    *Educational and Psychological Measurement* 20(1), 37–46.
    https://doi.org/10.1177/001316446002000104

    Cohen, J. (1968). Weighted kappa. *Psychological Bulletin* 70(4), 213–220.
    https://doi.org/10.1037/h0026256

    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard
    errors of kappa and weighted kappa. *Psychological Bulletin* 72(5),
    323–327. https://doi.org/10.1037/h0028106

    Examples
    --------
    The SAS PROC FREQ documentation example (κ 0.4842, ASE 0.1380, 95% CI
    0.2137–0.7547):

    >>> from agreement import Ratings, cohen_kappa
    >>> table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    >>> res = cohen_kappa(Ratings.from_contingency(table))
    >>> round(res.value, 4), round(res.standard_error, 4)
    (0.4842, 0.138)
    >>> [round(x, 4) for x in res.confidence_interval(0.95)]
    [0.2137, 0.7547]
    >>> round(res.test().standard_error, 4)  # ASE under H0
    0.1484
    """
    return _coefficient(ratings)("cohen_kappa", ratings, weights=weights,
                                 n_population=n_population)


@_doc(False, ", fewer than two annotators rated anything")
def conger_kappa(ratings: Any, *, weights: Any = None,
                 n_population: float | None = None) -> AgreementResult:
    """Conger's κ: Cohen's κ generalised to many annotators (Conger 1980).

    {params}
    Notes
    -----
    ``PE`` is the mean over ordered pairs of distinct annotators ``g ≠ h`` of
    ``Σ_cl w_cl p_gc p_hl``, each annotator's marginals ``p_g`` taken over the
    items that annotator rated (Gwet 2014). Standard error: Gwet's linearised
    variance (irrCAC ``conger.kappa.raw``), t interval.

    References
    ----------
    Conger, A. J. (1980). Integration and generalization of kappas for
    multiple raters. *Psychological Bulletin* 88(2), 322–328.
    https://doi.org/10.1037/0033-2909.88.2.322

    Examples
    --------
    >>> from agreement import conger_kappa
    >>> res = conger_kappa([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2]])
    >>> round(res.observed, 4), round(res.expected, 4), round(res.value, 4)  # 5/13
    (0.6667, 0.4583, 0.3846)
    """
    return _coefficient(ratings)("conger_kappa", ratings, weights=weights,
                                 n_population=n_population)


@_doc(False, ", fewer than two annotators rated anything")
def light_kappa(ratings: Any, *, weights: Any = None,
                n_population: float | None = None) -> AgreementResult:
    """Light's κ: the mean of Cohen's κ over all pairs of annotators (Light 1971).

    {params}
    Notes
    -----
    Each pair's κ follows :func:`cohen_kappa` (with missing ratings: ``PA``
    over the items both rated, each annotator's marginals over the items they
    rated). Pairs whose κ is undefined (no item rated by both, or chance
    agreement 1) are left out of the mean. ``observed`` and ``expected`` are
    the mean ``PA`` and ``PE`` of the pairs. Standard error: the mean over
    pairs of each pair's Gwet linearisation (delta method), t interval. The
    cost grows with the number of annotator pairs.

    References
    ----------
    Light, R. J. (1971). Measures of response agreement for qualitative data:
    Some generalizations and alternatives. *Psychological Bulletin* 76(5),
    365–377. https://doi.org/10.1037/h0031643

    Examples
    --------
    >>> from agreement import light_kappa

    The pairs' κ are 0.5, 0.2 and 0.5:

    >>> round(light_kappa([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2]]).value, 4)
    0.4
    """
    return _coefficient(ratings)("light_kappa", ratings, weights=weights,
                                 n_population=n_population)


@_doc(True)
def brennan_prediger(ratings: Any, *, weights: Any = None,
                     n_population: float | None = None) -> AgreementResult:
    """Brennan–Prediger's coefficient (Bennett's S): chance agreement ``Σ w / m²``.

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl / m²`` over the declared categories (``1/m`` unweighted):
    declaring unused categories changes the value. Standard error: Gwet's
    linearised variance (irrCAC ``bp.coeff.raw``), t interval.

    References
    ----------
    Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: Some uses,
    misuses, and alternatives. *Educational and Psychological Measurement*
    41(3), 687–699. https://doi.org/10.1177/001316448104100307

    Examples
    --------
    >>> from agreement import brennan_prediger
    >>> round(brennan_prediger([[1, 1], [1, 2], [2, 2], [2, 2]]).value, 4)
    0.5
    """
    return _coefficient(ratings)("brennan_prediger", ratings, weights=weights,
                                 n_population=n_population)


@_doc(True)
def gwet_ac1(ratings: Any, *, weights: Any = None,
             n_population: float | None = None) -> AgreementResult:
    """Gwet's AC1, and AC2 when weighted (Gwet 2008, 2014).

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl / (m (m − 1)) · Σ_c π_c (1 − π_c)`` with ``π_c`` the
    item-average of ``a_ic / r_i`` over the declared categories. Standard
    error: Gwet's linearised variance (irrCAC ``gwet.ac1.raw``), t interval.
    With one declared category AC1 is undefined (NaN and a warning).

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in
    the presence of high agreement. *British Journal of Mathematical and
    Statistical Psychology* 61, 29–48. https://doi.org/10.1348/000711006X126600

    Examples
    --------
    >>> from agreement import gwet_ac1
    >>> res = gwet_ac1([[1, 1], [1, 2], [2, 3], [3, 3]], weights="linear")
    >>> res.coefficient, round(res.observed, 4), round(res.expected, 6), round(res.value, 4)
    ("Gwet's AC2", 0.75, 0.546875, 0.4483)
    """
    return _coefficient(ratings)("gwet_ac1", ratings, weights=weights,
                                 n_population=n_population)


def krippendorff_alpha(ratings: Any, *, level: str | None = None,
                       weights: Any = None) -> AgreementResult:
    r"""Krippendorff's α reliability coefficient, with his metrics or Gwet's weights.

    Parameters
    ----------
    ratings : Ratings, array_like or pandas.DataFrame, shape (n_items, n_raters)
        The labels (anything :func:`agreement.as_ratings` accepts, or count-table
        Ratings). Missing ratings are allowed.
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        Level of measurement, i.e. Krippendorff's metric δ². Matched exactly.
        Default ``"nominal"`` (when ``weights`` is not given either).
    weights : str or array_like, shape (m, m), optional
        Gwet's (2014) agreement weights instead of a level, as irrCAC's
        ``krippen.alpha.raw(weights=...)``: ``"identity"``, ``"linear"``,
        ``"quadratic"``, ``"ordinal"``, ``"radical"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"`` (formulas in
        :func:`agreement.named_weights`, over ``Ratings.category_values``), or
        a symmetric matrix; the metric is then ``δ = 1 − w``. Gwet's
        ``"ordinal"`` weights depend on the categories' ranks only, whereas
        Krippendorff's ``level="ordinal"`` metric depends on how often each
        value occurs: the two give different α.

    Returns
    -------
    AgreementResult
        ``value`` = α; ``observed`` = ``1 − D_o/δ²_max`` and ``expected`` =
        ``1 − D_e/δ²_max`` (so ``value = (observed − expected)/(1 − expected)``;
        for ``"nominal"`` δ²_max = 1); ``n_items`` = ``n_pairable`` = pairable
        units; ``weights`` = the level; ``standard_error`` = Gwet's linearised SE.

    Raises
    ------
    TypeError
        If ``level`` is not a string, or ``weights`` is neither a name nor a matrix.
    ValueError
        If both ``level`` and ``weights`` are given; if ``level`` or the weights'
        name is unknown or the matrix is invalid; if no unit has two or more ratings; if a level
        other than nominal is asked of unordered categories; if ``"ratio"`` meets
        a negative value; if every rating is missing.

    Warns
    -----
    DegenerateDataWarning
        When every pairable value is the same category: ``D_e = 0``, α is
        undefined and NaN is returned (as are its SE and interval). Also when
        only one unit is pairable: the SE is then NaN.

    Notes
    -----
    Only *pairable* units, those with at least two ratings, enter α
    (Krippendorff's definition); a unit's ratings count as a whole, every
    ordered pair of its ratings carrying weight ``1/(r_u − 1)``. With the
    coincidence matrix ``o_ck`` of these pairs, its marginals ``n_c`` and
    ``n = Σ n_c`` (Krippendorff 2011):

    .. math::

        \alpha = 1 - (n - 1)\,\frac{\sum_{c,k} o_{ck}\,\delta^2_{ck}}
                               {\sum_{c,k} n_c\, n_k\, \delta^2_{ck}}

    with the metrics, over the categories' numeric values ``v``
    (``Ratings.category_values``: the labels themselves when numeric, else the
    declared order 1..m):

    * nominal: ``δ² = [c ≠ k]``;
    * ordinal: ``δ_ck = Σ_{g=c..k} n_g − (n_c + n_k)/2`` — Krippendorff's
      rank-based metric over the pairable values' marginal frequencies, *not*
      Gwet's ordinal weights; categories are ranked by their values;
    * interval: ``δ² = (v_c − v_k)²`` (quadratic weights);
    * ratio: ``δ² = ((v_c − v_k)/(v_c + v_k))²`` (values must be ≥ 0; 0/0 = 0).

    Declared but unused categories have ``n_c = 0`` and so change neither α
    nor its SE, at any level; they only widen δ²_max, the scale of
    ``observed`` and ``expected``.

    Computation: a unit enters only through its vector of category counts.
    When k annotators and m categories allow at most 2^17 such vectors (e.g. 5
    annotators and 5 categories, 20 and 5), one Numba pass over the codes counts
    the items per vector (exact integers, so the result is the same for any
    number of threads) and α, D_o, D_e and the SE are exact arithmetic on those
    few vectors. Otherwise (many categories, e.g. continuous values, or many
    annotators) each unit's contribution is summed from its own ratings in a
    streaming pass, plus one pass for the SE (and one for ordinal's marginals);
    interval and ordinal use centred sums of values, so thousands of distinct
    values cost O(n k + m) time and O(m) memory (O(m²) time for the ratio
    metric's ``D_e``). No units × values × values array is ever built.

    The standard error is Gwet's (2014, ch. on Krippendorff's α) linearised
    variance as his R package irrCAC (``krippen.alpha.raw``, version 1.0)
    computes it, with the metric as a fixed weight matrix ``1 − δ²/δ²_max``
    (for the ordinal level the marginals are thus treated as fixed):
    ``var = Σ_u (α*_u − α')² / (n_u (n_u − 1))`` over the ``n_u`` pairable
    units, where ``α*_u`` are the units' linearised terms and ``α'`` is α
    without the factor ``(n − 1)/n`` on ``D_o`` (n pairable values); in the
    per-unit correction term irrCAC uses ``p_a = (1 − ε) p'_a + ε`` with
    ``ε = 1/n``, and so does goldnoise. It reproduces irrCAC's printed SE for
    Krippendorff's example C (0.14557, the irrCAC vignette). The default
    interval is Student's t with ``n_items − 1`` degrees of freedom,
    ``n_items`` being the pairable units, as irrCAC's ``krippen.alpha.raw``;
    like irrCAC it is clipped at 1 (the result's notes say so). No
    finite-population correction is applied.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
    Departmental Papers (ASC) 43, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
    reliability measure for coding data. Communication Methods and Measures,
    1(1), 77–89. https://doi.org/10.1080/19312450709336664

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.).
    Advanced Analytics, LLC. ISBN 978-0970806284.

    Examples
    --------
    Krippendorff's (2011) example C: 4 coders, 12 units, values 1–5, gaps.

    >>> import numpy as np
    >>> from agreement import krippendorff_alpha
    >>> nan = np.nan
    >>> coders_by_units = np.array([
    ...     [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...     [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
    >>> res = krippendorff_alpha(coders_by_units.T, level="ordinal")
    >>> round(res.value, 3), res.n_items
    (0.815, 11)
    >>> for level in ("nominal", "interval", "ratio"):
    ...     print(level, round(krippendorff_alpha(coders_by_units.T, level=level).value, 3))
    nominal 0.743
    interval 0.849
    ratio 0.797
    """
    return (alpha_over_chunks if is_chunked(ratings) else alpha_in_memory)(
        ratings, level=level, weights=weights)
