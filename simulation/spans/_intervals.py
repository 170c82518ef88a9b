"""Span statistics with bootstrap intervals, documents the resampled unit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Probability,
    Resamples,
    Rng,
    check_params,
    validate_params,
)
from agreement.spans import MATCHES, Spans, document_statistics
from simulation.bootstrap import BootstrapResult, _resample
from simulation.bootstrap._intervals import METHODS
from simulation.bootstrap._result import result_from_sums

__all__ = ["span_intervals"]


@validate_params(match=Option(MATCHES), threshold=Probability(open_low=True),
                 n_resamples=Resamples(1), method=Option(METHODS),
                 confidence_level=ConfidenceLevel(), rng=Rng())
def span_intervals(spans: Spans, statistics: Sequence[str] | None = None, *,
                   match: str = "exact", threshold: float = 0.5, n_resamples: int = 999,
                   method: str = "percentile", confidence_level: float = 0.95,
                   rng: Any = None) -> BootstrapResult:
    """Span statistics with bootstrap intervals, resampling documents.

    Documents are drawn with replacement (the bootstrap engine's multinomial counts);
    every statistic is recomputed on each resample from the documents' rows
    (:func:`agreement.spans.document_statistics`): span F1 from the resampled true and
    false positives and negatives, α_u from the resampled coincidences (its expected
    disagreement included), a token coefficient from its resampled per-token sums. All
    statistics share the resamples (paired: :meth:`BootstrapResult.difference`).
    Documents, not spans or tokens, are the unit: spans of one document are not
    independent (same annotator, same text), and resampling documents keeps them
    together.

    Parameters
    ----------
    spans : Spans
    statistics : sequence of str, optional
        Names as in :func:`agreement.spans.document_statistics` (default: span F1
        pooled and per label, α_u, ``|u|α``, cuα and, with token offsets, three token
        coefficients).
    match : {"exact", "overlap", "iou"}, default "exact"
    threshold : float, default 0.5
        Span F1's matching (as :func:`agreement.spans.span_agreement`).
    n_resamples : int, default 999
    method : {"percentile", "basic", "bca"}, default "percentile"
    confidence_level : float, default 0.95
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BootstrapResult
        ``n_items`` is the number of documents; a statistic undefined on a resample
        (no span of a label drawn, no expected disagreement) is left out of its
        interval and counted in ``n_degenerate``.

    Notes
    -----
    Coverage of the 95% percentile interval on simulated annotators
    (:func:`simulation.simulate_spans`, 60 documents of 100 tokens, three annotators):
    measured in the test suite (``tests/test_spans_intervals.py``), at least 0.93 for
    span F1, α_u and token κ.

    Examples
    --------
    >>> from simulation import simulate_spans, span_intervals
    >>> sim = simulate_spans(100, n_annotators=2, rng=0)
    >>> res = span_intervals(sim.spans, ["span_f1", "unitizing_alpha"], n_resamples=500,
    ...                      rng=1)
    >>> res.to_frame()[["estimate", "low", "high"]].round(2)
                     estimate   low  high
    statistic
    span_f1              0.72  0.70  0.74
    unitizing_alpha      0.84  0.82  0.86
    """
    check_params(span_intervals, locals())
    ds = document_statistics(spans, statistics, match=match, threshold=threshold)
    rows = np.ascontiguousarray(ds.values)
    freq = np.ones(rows.shape[0], dtype=np.int64)
    seeds = _resample.replicate_seeds(rng, n_resamples)
    sums = _resample.multinomial_sums(freq, rows, seeds)
    return result_from_sums(ds.statistics, ds.finalize, rows, freq, sums, method=method,
                            confidence_level=confidence_level, scheme="multinomial",
                            n_items=int(rows.shape[0]), notes=[], stacklevel=2)
