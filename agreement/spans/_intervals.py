"""Span statistics with bootstrap intervals, documents the resampled unit."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import GoldnoiseWarning
from _goldnoise_lib.resampling import BootstrapResult, bootstrap_sums
from _goldnoise_lib.resampling.intervals import METHODS
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Probability,
    Resamples,
    Rng,
    check_params,
    validate_params,
)
from agreement.spans._agreement import MATCHES
from agreement.spans._documents import document_statistics
from agreement.spans._spans import Spans

__all__ = ["MIN_DOCUMENTS", "span_intervals"]

#: Fewest documents the bootstrap over documents resamples: with fewer, a resample
#: repeats a handful of documents and the interval is too narrow to mean anything (one
#: document gives the zero-width interval of its own statistic).
MIN_DOCUMENTS = 10


def _by_sentence(spans: Spans) -> Spans | None:
    """The spans with each sentence of each document as a document ``(document, k)``,
    offsets within it; None when the sentences are unknown or a span crosses one."""
    docs = spans.documents
    if not docs or any(d not in spans.sentences or d not in spans.lengths for d in docs):
        return None
    bounds = {d: np.concatenate([[0], np.cumsum(spans.sentences[d])]) for d in docs}
    if any(b[-1] != spans.lengths[d] for d, b in bounds.items()):
        return None
    f = spans.frame
    rows = []
    for doc, start, end, label, who in f.itertuples(index=False, name=None):
        b = bounds[doc]
        k = int(np.searchsorted(b, start, side="right")) - 1
        if end > b[k + 1]:
            return None
        rows.append(((doc, k + 1), start - int(b[k]), end - int(b[k]), label, who))
    frame = pd.DataFrame(rows, columns=list(f.columns))
    coverage = [(a, (d, k + 1)) for a, d in spans.coverage
                for k in range(len(spans.sentences[d]))]
    lengths = {(d, k + 1): int(n) for d in docs for k, n in enumerate(spans.sentences[d])}
    return Spans(frame, coverage=coverage, unit=spans.unit, lengths=lengths)


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
        ``n_items`` is the number of documents (or sentences, see below); a statistic
        undefined on a resample (no span of a label drawn, no expected disagreement) is
        left out of its interval and counted in ``n_degenerate``.

    Raises
    ------
    ValueError
        With fewer than ``MIN_DOCUMENTS`` (10) documents when their sentences are
        unknown: a resample of so few documents repeats them, and the interval says
        little (one document gives the zero-width interval of its own statistic).

    Warns
    -----
    GoldnoiseWarning
        With fewer than 10 documents whose sentences the CoNLL reader recorded (e.g.
        a Label Studio CoNLL export with one ``-DOCSTART-``), and at least 10
        sentences, no span crossing one: the sentences are resampled instead, and the
        result's ``notes`` say so. Sentences of one document share its annotators and
        its text, so these intervals may be too narrow.

    Notes
    -----
    Coverage of the 95% percentile interval on simulated annotators
    (:func:`simulation.simulate_spans`, 60 documents of 100 tokens, three annotators):
    measured in the test suite (``tests/test_spans_intervals.py``), at least 0.93 for
    span F1, α_u and token κ.

    Examples
    --------
    >>> from agreement import span_intervals
    >>> from simulation import simulate_spans
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
    notes = []
    n_docs = len(spans.documents) if isinstance(spans, Spans) else MIN_DOCUMENTS
    if n_docs < MIN_DOCUMENTS:
        split = _by_sentence(spans)
        n_sent = len(split.documents) if split is not None else 0
        if n_sent < MIN_DOCUMENTS:
            had = (f" and {n_sent} sentences" if split is not None else
                   " and their sentences are not known (the CoNLL reader records them)")
            raise ValueError(f"the bootstrap over documents needs at least {MIN_DOCUMENTS} "
                             f"documents; these spans have {n_docs}{had}: a resample of so "
                             "few repeats them and its interval says little (with one "
                             "document, none). A CoNLL export with one -DOCSTART- is one "
                             "document; mark its documents, or report the estimates without "
                             "intervals.")
        msg = (f"only {n_docs} document(s): the bootstrap resamples their {n_sent} sentences "
               "instead (sentences of one document share its annotators and text, so the "
               "intervals may be too narrow)")
        warnings.warn(msg + ".", GoldnoiseWarning, stacklevel=2)
        notes.append(msg)
        spans = split
    ds = document_statistics(spans, statistics, match=match, threshold=threshold)
    return bootstrap_sums(ds.values, ds.finalize, names=ds.statistics, n_resamples=n_resamples,
                          rng=rng, method=method, confidence_level=confidence_level,
                          notes=notes, stacklevel=2)
