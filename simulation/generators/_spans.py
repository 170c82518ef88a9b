"""Simulated span annotations with a known truth: boundary, label and missed-span errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Count,
    Probability,
    Rng,
    check_params,
    check_rng,
    validate_params,
)
from agreement.spans import Spans

__all__ = ["SimulatedSpans", "simulate_spans"]


@dataclass(frozen=True, repr=False, eq=False)
class SimulatedSpans(Result):
    """Simulated span annotations and the true spans they were copied from.

    Attributes
    ----------
    spans : Spans
        Every annotator's spans (token offsets, every document's length known, every
        annotator covering every document).
    truth : Spans
        The true spans (annotator ``"truth"``).
    boundary_error, label_error, miss_rate : float
        Per annotator and true span: the probability of moving a boundary, of giving
        another label, of leaving the span out.
    independent : bool
        Whether each annotator drew spans of their own instead of copying the truth.

    ``to_frame()``: the annotators' spans (``Spans.frame``).
    """
    _table = "spans.frame"

    spans: Spans = field(repr=False)
    truth: Spans = field(repr=False)
    boundary_error: float
    label_error: float
    miss_rate: float
    independent: bool
    n_documents: int
    n_annotators: int

    def __repr__(self) -> str:
        return (f"SimulatedSpans({len(self.spans)} spans by {self.n_annotators} annotators in "
                f"{self.n_documents} documents; {len(self.truth)} true spans)")


def _draw_truth(gen: np.random.Generator, n_docs: int, per_doc: int, tokens: int,
                max_length: int) -> tuple[np.ndarray, ...]:
    """Non-overlapping spans, ``per_doc`` a document: one in each of ``per_doc`` equal slots,
    at least one token of gap after each (so that BIO tags keep them apart)."""
    slot = tokens // per_doc
    doc = np.repeat(np.arange(n_docs), per_doc)
    k = np.tile(np.arange(per_doc), n_docs)
    longest = min(max_length, slot - 1)
    length = np.minimum(gen.geometric(0.5, size=doc.size), longest)
    start = k * slot + (gen.random(doc.size) * (slot - length)).astype(np.int64)
    return doc, start, start + length, k * slot, (k + 1) * slot - 1


@validate_params(n_documents=Count(1), n_annotators=Count(2), tokens_per_document=Count(2),
                 spans_per_document=Count(1), boundary_error=Probability(),
                 label_error=Probability(), miss_rate=Probability(), rng=Rng())
def simulate_spans(n_documents: int, *, n_annotators: int = 3, tokens_per_document: int = 100,
                   spans_per_document: int = 10, labels: Sequence[Any] = ("PER", "ORG", "LOC"),
                   boundary_error: float = 0.1, label_error: float = 0.05,
                   miss_rate: float = 0.05, max_length: int = 4, independent: bool = False,
                   rng: Any = None) -> SimulatedSpans:
    """Annotators who copy true spans with boundary, label and missed-span errors.

    Each document has ``tokens_per_document`` tokens and ``spans_per_document`` true
    spans, one in each equal slot of the document, of geometric length (p = 1/2, at
    most ``max_length`` and the slot less one token), with a label drawn uniformly.
    Each annotator, for each true span independently: leaves it out with probability
    ``miss_rate``; else moves its start or its end (one of the two, equally likely) by
    one token in or out with probability ``boundary_error`` (within the span's slot,
    never empty); and gives it another label, drawn uniformly, with probability
    ``label_error``. With ``independent=True`` each annotator draws true spans of their
    own instead (annotators unrelated to each other: agreement near chance).

    Parameters
    ----------
    n_documents : int
    n_annotators : int, default 3
    tokens_per_document : int, default 100
    spans_per_document : int, default 10
        At most ``tokens_per_document // 2`` (a slot needs a token and a gap).
    labels : sequence, default ("PER", "ORG", "LOC")
    boundary_error, label_error, miss_rate : float in [0, 1]
    max_length : int, default 4
    independent : bool, default False
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SimulatedSpans

    Examples
    --------
    >>> from simulation import simulate_spans
    >>> sim = simulate_spans(50, n_annotators=2, boundary_error=0.0, label_error=0.0,
    ...                      miss_rate=0.0, rng=0)
    >>> sim
    SimulatedSpans(1000 spans by 2 annotators in 50 documents; 500 true spans)
    >>> from agreement.spans import span_agreement
    >>> span_agreement(sim.spans).f1
    1.0
    """
    check_params(simulate_spans, locals())
    labels = list(labels)
    if len(labels) < 1 or len(set(labels)) != len(labels):
        raise ValueError(f"`labels` must name at least one label, each once; got {labels!r}.")
    if spans_per_document > tokens_per_document // 2:
        raise ValueError(f"`spans_per_document` must be at most tokens_per_document // 2 "
                         f"({tokens_per_document // 2}); got {spans_per_document}.")
    if not isinstance(max_length, (int, np.integer)) or max_length < 1:
        raise ValueError(f"`max_length` must be a whole number ≥ 1; got {max_length!r}.")
    gen = check_rng(rng)
    n_lab = len(labels)
    doc, start, end, lo, hi = _draw_truth(gen, n_documents, spans_per_document,
                                          tokens_per_document, max_length)
    true_lab = gen.integers(0, n_lab, size=doc.size)
    parts = []
    for j in range(n_annotators):
        if independent:
            d, s, e, lo_j, hi_j = _draw_truth(gen, n_documents, spans_per_document,
                                              tokens_per_document, max_length)
            lab = gen.integers(0, n_lab, size=d.size)
        else:
            d, s, e, lab = doc, start.copy(), end.copy(), true_lab.copy()
        n = d.size
        move = gen.random(n) < boundary_error
        which_end = gen.random(n) < 0.5
        step = np.where(gen.random(n) < 0.5, -1, 1)
        if not independent:
            new_s = np.where(move & ~which_end, s + step, s)
            new_e = np.where(move & which_end, e + step, e)
            ok = (new_s >= lo) & (new_e <= hi) & (new_e > new_s)
            s, e = np.where(ok, new_s, s), np.where(ok, new_e, e)
            relabel = gen.random(n) < label_error
            if n_lab > 1:
                shift = gen.integers(1, n_lab, size=n)
                lab = np.where(relabel, (lab + shift) % n_lab, lab)
        kept = gen.random(n) >= (0.0 if independent else miss_rate)
        parts.append(pd.DataFrame({"document": d[kept], "start": s[kept], "end": e[kept],
                                   "label": np.asarray(labels, dtype=object)[lab[kept]],
                                   "annotator": f"ann{j + 1}"}))
    lengths = dict.fromkeys(range(n_documents), tokens_per_document)
    coverage = [(f"ann{j + 1}", d) for j in range(n_annotators) for d in range(n_documents)]
    spans = Spans(pd.concat(parts, ignore_index=True), coverage=coverage, unit="token",
                  lengths=lengths)
    truth = Spans(pd.DataFrame({"document": doc, "start": start, "end": end,
                                "label": np.asarray(labels, dtype=object)[true_lab],
                                "annotator": "truth"}),
                  coverage=[("truth", d) for d in range(n_documents)], unit="token",
                  lengths=lengths)
    return SimulatedSpans(spans, truth, float(boundary_error), float(label_error),
                          float(miss_rate), bool(independent), int(n_documents),
                          int(n_annotators))
