"""Every span statistic as ``finalize(Σ_d rows_d)`` over documents: the bootstrap's input.

Span F1 adds its true positives, false positives and false negatives over
documents; α_u its coincidences and corrections (:mod:`._unitizing`); a token-level
coefficient its per-token rows (:func:`agreement.item_statistics`) summed within each
document. Resampling documents with multiplicities ``c`` is then ``finalize(c @ rows)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from _goldnoise_lib.validation import Option, Probability, check_params, validate_params
from agreement.spans._agreement import MATCHES, pair_counts, token_ratings
from agreement.spans._spans import Spans, check_spans
from agreement.spans._unitizing import unitizing_finalize, unitizing_rows

__all__ = ["DocumentStatistics", "document_statistics"]

UNITIZING = ("unitizing_alpha", "unitizing_alpha_binary", "unitizing_alpha_coding")
_UNITIZING_KEYS = {"unitizing_alpha": "alpha", "unitizing_alpha_binary": "binary_alpha",
                   "unitizing_alpha_coding": "coding_alpha"}
TOKEN_COEFFICIENTS = ("percent_agreement", "fleiss_kappa", "scott_pi", "cohen_kappa",
                      "conger_kappa", "light_kappa", "brennan_prediger", "gwet_ac1",
                      "krippendorff_alpha")


@dataclass(frozen=True, eq=False)
class DocumentStatistics:
    """Per-document rows of span statistics and the step that turns their sums into values.

    Attributes
    ----------
    statistics : tuple of str
        The statistics, in the order of :meth:`finalize`'s last axis.
    documents : list
        The documents, in the order of the rows (every document of the spans).
    values : ndarray of float64, shape (n_documents, n_columns)
        One row per document; the statistics are ``finalize(values.sum(axis=0))``.
    """

    statistics: tuple[str, ...]
    documents: list[Any] = field(repr=False)
    values: np.ndarray = field(repr=False)
    _parts: tuple[tuple[slice, Callable[[np.ndarray], np.ndarray]], ...] = field(repr=False)

    def finalize(self, sums: Any) -> np.ndarray:
        """The statistics (…, S) from column sums (…, n_columns); NaN where undefined."""
        s = np.asarray(sums, dtype=np.float64)
        out = [np.asarray(f(s[..., sl]), dtype=np.float64).reshape((*s.shape[:-1], -1))
               for sl, f in self._parts]
        return np.concatenate(out, axis=-1)

    def estimate(self) -> np.ndarray:
        """The statistics on every document: ``finalize(values.sum(axis=0))``."""
        return self.finalize(self.values.sum(axis=0))


def _f1(sums: np.ndarray) -> np.ndarray:
    tp, fp, fn = sums[..., 0::3], sums[..., 1::3], sums[..., 2::3]
    den = 2 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1.0), np.nan)


def _statistics_iv(spans: Spans, statistics: Sequence[str] | None) -> list[str]:
    labels = [str(lab) for lab in spans.labels]
    tokens = spans.unit == "token" and all(d in spans.lengths for d in spans.documents)
    if statistics is None:
        names = ["span_f1", *(f"span_f1[{lab}]" for lab in labels), *UNITIZING]
        if tokens:
            kappa = "cohen_kappa" if len(spans.annotators) == 2 else "fleiss_kappa"
            names += [f"token_{c}" for c in (kappa, "krippendorff_alpha", "gwet_ac1")]
        return names
    if isinstance(statistics, str):
        statistics = [statistics]
    names = list(statistics)
    allowed = (["span_f1", *(f"span_f1[{lab}]" for lab in labels), *UNITIZING]
               + [f"token_{c}" for c in TOKEN_COEFFICIENTS])
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"`statistics` must name statistics as strings; got {n!r}.")
        if n not in allowed:
            raise ValueError(f"`statistics` names {n!r}, not one of {allowed}.")
        if n.startswith("token_") and not tokens:
            raise ValueError(f"{n} needs token offsets and the documents' lengths "
                             "(read_conll gives both).")
    if len(set(names)) != len(names):
        raise ValueError(f"`statistics` names a statistic twice: {names}.")
    if not names:
        raise ValueError("`statistics` must name at least one statistic.")
    return names


@validate_params(match=Option(MATCHES), threshold=Probability(open_low=True))
def document_statistics(spans: Spans, statistics: Sequence[str] | None = None, *,
                        match: str = "exact", threshold: float = 0.5) -> DocumentStatistics:
    """Per-document rows of span statistics, for resampling documents.

    Parameters
    ----------
    spans : Spans
    statistics : sequence of str, optional
        ``"span_f1"`` (pooled over pairs and labels, as :func:`span_agreement`),
        ``"span_f1[LABEL]"`` (one label), ``"unitizing_alpha"``,
        ``"unitizing_alpha_binary"``, ``"unitizing_alpha_coding"`` (α_u, ``|u|α``, cuα of
        :func:`unitizing_alpha`) and ``"token_<coefficient>"`` for every coefficient
        of :func:`agreement.item_statistics` over tokens (token offsets and the
        documents' lengths needed). Default: span F1 pooled and per label, the three
        α_u and, with tokens, Cohen's κ (two annotators) or Fleiss' κ, Krippendorff's α
        and Gwet's AC1 over tokens.
    match, threshold
        Span F1's matching (as :func:`span_agreement`).

    Returns
    -------
    DocumentStatistics

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans, document_statistics, span_agreement
    >>> rows = [("d1", 0, 4, "X", "a"), ("d1", 0, 4, "X", "b"), ("d2", 0, 2, "X", "a"),
    ...         ("d2", 1, 3, "X", "b")]
    >>> s = Spans(pd.DataFrame(rows, columns=["document", "start", "end", "label",
    ...                                       "annotator"]), lengths={"d1": 9, "d2": 9})
    >>> ds = document_statistics(s, ["span_f1", "unitizing_alpha"])
    >>> ds.values.shape[0], float(ds.estimate()[0]) == span_agreement(s).f1
    (2, True)
    >>> float(ds.finalize(ds.values[0])[0])      # document d1 alone
    1.0
    """
    check_params(document_statistics, locals())
    check_spans(spans, "span statistics need")
    names = _statistics_iv(spans, statistics)
    documents = spans.documents
    row_of = {d: i for i, d in enumerate(documents)}
    n = len(documents)
    blocks: list[np.ndarray] = []
    parts: list[tuple[slice, Callable]] = []
    width = 0

    def add(block: np.ndarray, finalize: Callable) -> None:
        nonlocal width
        blocks.append(block)
        parts.append((slice(width, width + block.shape[1]), finalize))
        width += block.shape[1]

    f1_names = [x for x in names if x.startswith("span_f1")]
    if f1_names:
        counts, _ = pair_counts(spans, match=match, threshold=threshold)
        idx = counts["document"].map(row_of).to_numpy()
        label_str = counts["label"].astype(str).to_numpy()
        for name in f1_names:
            sel = np.ones(len(counts), dtype=bool) if name == "span_f1" else (
                label_str == name[len("span_f1["):-1])
            block = np.zeros((n, 3))
            for j, c in enumerate(("tp", "fp", "fn")):
                block[:, j] = np.bincount(idx[sel], weights=counts[c].to_numpy()[sel],
                                          minlength=n)
            add(block, _f1)
    u_names = [x for x in names if x in UNITIZING]
    if u_names:
        docs, labels, rows, _ = unitizing_rows(spans)
        block = np.zeros((n, rows.shape[1]))
        block[[row_of[d] for d in docs]] = rows
        keys = [_UNITIZING_KEYS[x] for x in u_names]
        n_lab = len(labels)
        add(block, lambda s, keys=keys, v=n_lab: np.stack(
            [unitizing_finalize(s, v)[k] for k in keys], axis=-1))
    t_names = [x for x in names if x.startswith("token_")]
    if t_names:
        for block, finalize in _token_blocks(spans, documents, t_names):
            add(block, finalize)
    order = {x: i for i, x in enumerate(f1_names + u_names + t_names)}
    values = np.concatenate(blocks, axis=1) if blocks else np.zeros((n, 0))
    ds = DocumentStatistics(tuple(f1_names + u_names + t_names), documents, values,
                            tuple(parts))
    if list(ds.statistics) == names:
        return ds
    # the caller's order
    perm = np.array([order[x] for x in names])

    def reorder(s: np.ndarray, inner: DocumentStatistics = ds) -> np.ndarray:
        return inner.finalize(s)[..., perm]

    return DocumentStatistics(tuple(names), documents, values,
                              ((slice(0, values.shape[1]), reorder),))


def _token_blocks(spans: Any, documents: Any, t_names: list[str]
                  ) -> list[tuple[np.ndarray, Callable]]:
    """The per-document columns of the token statistics ``t_names`` and their finalize
    steps: each document's counts of the distinct token rows, times the rows' columns."""
    from agreement._item_stats import item_statistics

    n = len(documents)
    r = token_ratings(spans)
    lengths = np.array([spans.lengths[d] for d in documents], dtype=np.int64)
    doc_of_token = np.repeat(np.arange(n), lengths)
    codes = r.codes.astype(np.int64) + 1
    base = r.n_categories + 1
    if codes.shape[1] * np.log2(base) < 62:
        key = codes @ (base ** np.arange(codes.shape[1], dtype=np.int64))
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(codes, axis=0, return_index=True,
                                      return_inverse=True)
    per_doc = np.zeros((n, first.size))
    np.add.at(per_doc, (doc_of_token, inverse.ravel()), 1.0)
    rep = r.take(first)
    out = []
    for name in t_names:
        st = item_statistics(rep, name[len("token_"):])
        out.append((per_doc @ st.values, lambda s, st=st: st.finalize(s).value))
    return out
