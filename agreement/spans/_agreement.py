"""Span agreement: pairwise and pooled F1 (positive specific agreement) under a matching rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Probability,
    check_params,
    validate_params,
)
from agreement.spans._spans import Spans

__all__ = ["MATCHES", "SpanAgreementResult", "span_agreement", "token_agreement",
           "token_ratings"]

MATCHES = ("exact", "overlap", "iou")


def _matches(a: np.ndarray, b: np.ndarray, match: str, threshold: float) -> int:
    """Largest one-to-one matching of spans ``a`` and ``b`` (rows ``start, end``)."""
    if len(a) == 0 or len(b) == 0:
        return 0
    if match == "exact":
        ka = pd.Series(1, index=pd.MultiIndex.from_arrays([a[:, 0], a[:, 1]])).groupby(
            level=[0, 1]).size()
        kb = pd.Series(1, index=pd.MultiIndex.from_arrays([b[:, 0], b[:, 1]])).groupby(
            level=[0, 1]).size()
        both = ka.index.intersection(kb.index)
        return int(np.minimum(ka.loc[both].to_numpy(), kb.loc[both].to_numpy()).sum())
    from scipy.optimize import linear_sum_assignment

    inter = np.maximum(0, np.minimum(a[:, None, 1], b[None, :, 1]) -
                       np.maximum(a[:, None, 0], b[None, :, 0]))
    if match == "overlap":
        ok = inter > 0
        weight = ok.astype(np.float64)
    else:
        union = (np.maximum(a[:, None, 1], b[None, :, 1]) -
                 np.minimum(a[:, None, 0], b[None, :, 0]))
        iou = inter / union
        ok = iou >= threshold
        weight = ok.astype(np.float64)
    rows, cols = linear_sum_assignment(weight, maximize=True)
    return int(ok[rows, cols].sum())


@dataclass(frozen=True, eq=False, repr=False)
class SpanAgreementResult(Result):
    """Span agreement of several annotators (see :func:`span_agreement`).

    Attributes
    ----------
    f1 : float
        Pooled F1 over every pair of annotators and every document both annotated:
        ``2·TP / (2·TP + FP + FN)``, which is positive specific agreement (Hripcsak &
        Rothschild 2005) — the headline; NaN when no pair marked a span.
    match : str
    threshold : float or None
    pairs : pandas.DataFrame
        Per annotator pair: ``documents`` compared, ``tp``, ``fp``, ``fn``,
        ``precision`` (the second against the first), ``recall``, ``f1``.
    by_label, by_document : pandas.DataFrame
        ``tp``, ``fp``, ``fn``, ``f1`` pooled over the pairs.

    ``to_frame()``: the pairs table.
    """

    f1: float
    match: str
    threshold: float | None
    n_annotators: int
    n_documents: int
    pairs: pd.DataFrame = field(repr=False)
    by_label: pd.DataFrame = field(repr=False)
    by_document: pd.DataFrame = field(repr=False)

    _headline = "f1"

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["pairs"] = self.pairs.reset_index().to_dict(orient="records")
        d["by_label"] = self.by_label.reset_index().to_dict(orient="records")
        return d

    def to_frame(self) -> pd.DataFrame:
        return self.pairs.copy()

    def summary(self) -> str:
        lines = [f"Span agreement ({self.match}"
                 + (f", IoU >= {self.threshold:g}" if self.match == "iou" else "")
                 + f"): pooled F1 {self.f1:.4f} over {len(self.pairs)} pair(s), "
                 f"{self.n_documents} documents"]
        for label, row in self.by_label.iterrows():
            lines.append(f"  {label}: F1 {row['f1']:.4f} (tp {int(row['tp'])}, fp "
                         f"{int(row['fp'])}, fn {int(row['fn'])})")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"SpanAgreementResult(f1={self.f1:.4f}, match={self.match!r}, "
                f"{self.n_annotators} annotators, {self.n_documents} documents)")


def _f1(tp: Any, fp: Any, fn: Any) -> Any:
    den = 2 * tp + fp + fn
    return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), np.nan)


@validate_params(match=Option(MATCHES), threshold=Probability(open_low=True))
def span_agreement(spans: Spans, *, match: str = "exact", threshold: float = 0.5
                   ) -> SpanAgreementResult:
    """Pairwise and pooled span F1 of annotators, per label and per document.

    For each pair of annotators and each document both annotated, the spans of the
    same label are matched one to one — ``"exact"``: same start and end;
    ``"overlap"``: any shared offset; ``"iou"``: intersection over union ≥
    ``threshold`` — by the largest matching (Hungarian algorithm), so the result does
    not depend on the order of the spans. Labels match only themselves (``name``
    and ``name.first`` are different labels). Matched spans are true positives;
    the first annotator's unmatched spans false negatives, the second's false
    positives. F1 = 2·TP / (2·TP + FP + FN) is symmetric in the pair and equals
    positive specific agreement.

    Parameters
    ----------
    spans : Spans
    match : {"exact", "overlap", "iou"}, default "exact"
    threshold : float in (0, 1], default 0.5
        The IoU a match needs (``match="iou"``).

    Returns
    -------
    SpanAgreementResult

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans, span_agreement
    >>> s = Spans(pd.DataFrame({
    ...     "document": ["d"] * 5, "start": [0, 10, 0, 11, 20], "end": [5, 14, 5, 14, 25],
    ...     "label": ["PER", "ORG", "PER", "ORG", "LOC"],
    ...     "annotator": ["a", "a", "b", "b", "b"]}))
    >>> round(span_agreement(s).f1, 4)          # PER matches; ORG off by one; LOC only b
    0.4
    >>> round(span_agreement(s, match="overlap").f1, 4)
    0.8
    """
    check_params(span_agreement, locals())
    if not isinstance(spans, Spans):
        raise TypeError(f"`spans` must be Spans (agreement.spans readers make them); got "
                        f"{type(spans).__name__}.")
    annotators = spans.annotators
    if len(annotators) < 2:
        raise ValueError("span agreement needs at least two annotators; these spans have "
                         f"{len(annotators)}.")
    frame = spans.frame
    groups = {key: g[["start", "end"]].to_numpy() for key, g in
              frame.groupby(["annotator", "document", "label"], sort=False)}
    labels = spans.labels
    pair_rows, label_acc, doc_acc = [], {}, {}
    for a, b in combinations(annotators, 2):
        docs = sorted({d for (x, d) in spans.coverage if x == a} &
                      {d for (x, d) in spans.coverage if x == b}, key=str)
        tp = fp = fn = 0
        for d in docs:
            for lab in labels:
                sa = groups.get((a, d, lab), np.empty((0, 2)))
                sb = groups.get((b, d, lab), np.empty((0, 2)))
                if len(sa) == 0 and len(sb) == 0:
                    continue
                m = _matches(sa, sb, match, threshold)
                t, p, n = m, len(sb) - m, len(sa) - m
                tp, fp, fn = tp + t, fp + p, fn + n
                for acc, key in ((label_acc, lab), (doc_acc, d)):
                    cur = acc.setdefault(key, [0, 0, 0])
                    cur[0] += t
                    cur[1] += p
                    cur[2] += n
        prec = tp / (tp + fp) if tp + fp else np.nan
        rec = tp / (tp + fn) if tp + fn else np.nan
        pair_rows.append({"first": a, "second": b, "documents": len(docs), "tp": tp, "fp": fp,
                          "fn": fn, "precision": prec, "recall": rec,
                          "f1": float(_f1(tp, fp, fn))})
    pairs = pd.DataFrame(pair_rows).set_index(["first", "second"])

    def table(acc: dict, name: str) -> pd.DataFrame:
        t = pd.DataFrame([(k, *v) for k, v in acc.items()], columns=[name, "tp", "fp", "fn"])
        t["f1"] = _f1(t["tp"].to_numpy(), t["fp"].to_numpy(), t["fn"].to_numpy())
        return t.set_index(name).sort_index(key=lambda ix: ix.map(str))

    tp, fp, fn = (int(pairs[c].sum()) for c in ("tp", "fp", "fn"))
    return SpanAgreementResult(
        f1=float(_f1(tp, fp, fn)), match=match,
        threshold=float(threshold) if match == "iou" else None,
        n_annotators=len(annotators), n_documents=len(spans.documents), pairs=pairs,
        by_label=table(label_acc, "label"), by_document=table(doc_acc, "document"))


def token_ratings(spans: Spans) -> Any:
    """The tokens as items: each annotator's BIO tag of every token of the documents it saw.

    A token outside every span is ``O``; the first token of a span ``B-label``, the
    others ``I-label``. Where an annotator's spans overlap, the span that starts first
    (then the longer) tags the shared tokens. Tokens of documents an annotator did not
    annotate are missing for that annotator. Needs token offsets and the documents'
    lengths (``read_conll`` records both).

    Returns
    -------
    Ratings
        Items ``(document, token)``, one rater column per annotator.

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans, token_ratings
    >>> s = Spans(pd.DataFrame({"document": ["d", "d"], "start": [0, 0], "end": [2, 1],
    ...                         "label": ["PER", "PER"], "annotator": ["a", "b"]}),
    ...           unit="token", lengths={"d": 3})
    >>> token_ratings(s).to_wide().values.tolist()
    [['B-PER', 'B-PER'], ['I-PER', 'O'], ['O', 'O']]
    """
    from agreement._ratings import Ratings

    if spans.unit != "token":
        raise ValueError("token agreement needs token offsets (read_conll gives them); these "
                         f"spans have {spans.unit} offsets.")
    missing = [d for d in spans.documents if d not in spans.lengths]
    if missing:
        raise ValueError(f"the length of {len(missing)} document(s) is unknown "
                         f"({', '.join(map(str, missing[:3]))}): build Spans with `lengths=`.")
    annotators = spans.annotators
    columns = {}
    index = [(d, t) for d in spans.documents for t in range(spans.lengths[d])]
    offset, pos = 0, {}
    for d in spans.documents:
        pos[d] = offset
        offset += spans.lengths[d]
    frame = spans.frame.sort_values(["start", "end"], ascending=[True, False], kind="stable")
    for a in annotators:
        tags = np.full(offset, None, dtype=object)
        for d in spans.documents:
            if (a, d) in spans.coverage:
                tags[pos[d]:pos[d] + spans.lengths[d]] = "O"
        mine = frame[frame["annotator"] == a]
        taken = np.zeros(offset, dtype=bool)
        for d, start, end, label in mine[["document", "start", "end", "label"]].itertuples(
                index=False, name=None):
            if end > spans.lengths[d]:
                raise ValueError(f"a span of {a!r} in document {d!r} ends at token {end}, past "
                                 f"its {spans.lengths[d]} tokens.")
            lo, hi = pos[d] + start, pos[d] + end
            free = ~taken[lo:hi]
            seg = np.array([f"B-{label}"] + [f"I-{label}"] * (hi - lo - 1), dtype=object)
            tags[lo:hi][free] = seg[free]
            taken[lo:hi] = True
        columns[a] = tags
    wide = pd.DataFrame(columns, index=pd.MultiIndex.from_tuples(index,
                                                                  names=["document", "token"]))
    return Ratings.from_wide(wide.reset_index(drop=True))


@validate_params(confidence_level=ConfidenceLevel())
def token_agreement(spans: Spans, *, confidence_level: float = 0.95) -> pd.DataFrame:
    """Every agreement coefficient of SPEC §1 over tokens as items (BIO tags as categories).

    Parameters
    ----------
    spans : Spans
        Token offsets with the documents' lengths (``read_conll``).
    confidence_level : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        :func:`agreement.agreement_table` of :func:`token_ratings`.

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans, token_agreement
    >>> s = Spans(pd.DataFrame({"document": ["d", "d", "d"], "start": [0, 0, 3],
    ...                         "end": [2, 1, 4], "label": ["PER", "PER", "LOC"],
    ...                         "annotator": ["a", "b", "b"]}), unit="token",
    ...           lengths={"d": 5})
    >>> round(float(token_agreement(s).loc["Cohen's kappa", "value"]), 4)  # (0.6 - 0.4) / 0.6
    0.3333
    """
    check_params(token_agreement, locals())
    from agreement._table import agreement_table

    return agreement_table(token_ratings(spans), confidence_level=confidence_level)
