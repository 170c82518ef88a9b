"""Krippendorff's α for unitizing (α_u) and its split into boundaries and labels.

Every quantity is a sum over documents of per-document rows (:func:`unitizing_rows`)
followed by a finalize step (:func:`unitizing_finalize`), so that a bootstrap over
documents is ``finalize(counts @ rows)`` — the same contract as the coefficients'
per-item statistics.

How the coincidences are computed: within a document the boundaries of every
annotator's units cut the continuum into elementary pieces; on a piece of length
``w`` where ``n_c`` of the document's ``m`` annotators have the value ``c`` (a label
or the gap ∅), the ordered pairs of annotators contribute ``w (n_c n_k − δ_ck n_c) /
(m − 1)`` to the coincidence ``ℓ_ck``. That equals the definition's sum over pairs of
intersecting segments ``|g ∩ h| / (m − 1)`` (the tests check it against a reference
written from the definition), in O(pieces × labels) numpy operations.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import DegenerateDataWarning, GoldnoiseWarning
from _goldnoise_lib.results import Result
from agreement.spans._spans import Spans, check_spans, key_codes

__all__ = ["UnitizingAlphaResult", "unitizing_alpha", "unitizing_finalize", "unitizing_rows"]

GAP = "∅"


def _div(a: Any, b: Any) -> Any:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)


def _units(spans: Spans) -> tuple[pd.DataFrame, int]:
    """Each annotator's units with overlaps resolved: the span that starts first (then the
    longer) keeps the shared offsets; the rest of a later span stays a unit of its own.

    Returns the units (with ``cut``: whether the start moved) and how many spans were
    cut or dropped.
    """
    f = spans.frame.sort_values(["annotator", "document", "start", "end"],
                                ascending=[True, True, True, False], kind="stable")
    f = f.reset_index(drop=True)
    if f.empty:
        return f.assign(cut=np.zeros(0, dtype=bool)), 0
    codes = key_codes(f, ["annotator", "document"])[0]
    ends = f["end"].to_numpy()
    reach = pd.Series(ends).groupby(codes).cummax().to_numpy()
    prev = np.empty_like(reach)
    prev[0] = -1
    prev[1:] = reach[:-1]
    first = np.ones(len(f), dtype=bool)
    first[1:] = codes[1:] != codes[:-1]
    prev[first] = -1
    starts = f["start"].to_numpy()
    new_start = np.maximum(starts, prev)
    cut = int(np.count_nonzero(new_start != starts))
    keep = new_start < ends
    out = f.assign(start=new_start, cut=new_start != starts)[keep].reset_index(drop=True)
    return out, cut


def _layout(spans: Spans, units: pd.DataFrame, documents: list[Any]
            ) -> tuple[dict[Any, int], np.ndarray, np.ndarray, int]:
    """Document lengths (given, else the last end of any span) and offsets on one line."""
    last = units.groupby("document")["end"].max().to_dict() if len(units) else {}
    guessed = 0
    lengths = np.empty(len(documents), dtype=np.int64)
    for i, d in enumerate(documents):
        if d in spans.lengths:
            lengths[i] = spans.lengths[d]
        else:
            lengths[i] = last.get(d, 0)
            guessed += 1
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return dict(zip(documents, range(len(documents)), strict=True)), lengths, offsets, guessed


def unitizing_rows(spans: Spans) -> tuple[list[Any], list[Any], np.ndarray, dict[str, Any]]:
    """Per-document rows of α_u's sums.

    Returns
    -------
    documents : list
        The documents annotated by at least two annotators (the pairable ones), in the
        order of the rows.
    labels : list
        The labels, in the order of the label columns.
    rows : ndarray, shape (n_documents, 6 V + 4)
        With ``V`` labels and value 0 the gap ∅: ``diag[0..V]`` (``ℓ_cc``),
        ``marg[0..V]`` (``ℓ_c.``), ``corr[0..V]`` (``Σ l`` over gaps, ``Σ l²`` over
        units), ``ℓ_UU`` (the label × label block), ``marg*[1..V]`` (row sums of that
        block) and ``corr*[1..V]`` (``Σ`` over units of their pairable length squared).
    info : dict
        ``coincidences`` ((V+1) × (V+1) over every document), ``n_cut`` (spans cut or
        dropped where an annotator's spans overlap), ``n_guessed`` (documents whose
        length was taken from their last span), ``n_unpaired`` (documents with fewer
        than two annotators).
    """
    labels = spans.labels
    V = len(labels)
    cover = pd.DataFrame(sorted(spans.coverage, key=lambda p: (str(p[1]), str(p[0]))),
                         columns=["annotator", "document"])
    m_by_doc = cover.groupby("document", sort=False).size()
    all_docs = sorted(m_by_doc.index.tolist(), key=str)
    docs = [d for d in all_docs if m_by_doc[d] >= 2]
    units, n_cut = _units(spans)
    units = units[units["document"].isin(set(docs))]
    pos, lengths, offsets, guessed = _layout(spans, units, docs)
    n_docs = len(docs)
    width = 6 * V + 4
    info = {"n_cut": n_cut, "n_guessed": guessed, "n_unpaired": len(all_docs) - n_docs,
            "coincidences": np.zeros((V + 1, V + 1))}
    if n_docs == 0:
        return docs, labels, np.zeros((0, width)), info
    m_doc = m_by_doc.reindex(docs).to_numpy().astype(np.float64)
    doc_idx = units["document"].map(pos).to_numpy().astype(np.int64)
    if len(units) and np.any(units["end"].to_numpy() > lengths[doc_idx]):
        bad = units[units["end"].to_numpy() > lengths[doc_idx]].iloc[0]
        raise ValueError(f"a span of {bad['annotator']!r} in document {bad['document']!r} ends "
                         f"at {bad['end']}, past the document's {lengths[pos[bad['document']]]} "
                         f"{spans.unit}s.")
    lab_code = pd.Categorical(units["label"], categories=labels).codes.astype(np.int64)
    g_start = offsets[doc_idx] + units["start"].to_numpy()
    g_end = offsets[doc_idx] + units["end"].to_numpy()
    # Elementary pieces: every boundary of every unit and document, on one line.
    cuts = np.unique(np.concatenate([offsets, g_start, g_end]))
    n_pieces = cuts.size - 1
    w = np.diff(cuts).astype(np.float64)
    piece_doc = np.searchsorted(offsets, cuts[:-1], side="right") - 1
    i0 = np.searchsorted(cuts, g_start)
    i1 = np.searchsorted(cuts, g_end)
    # n[p, c]: annotators whose unit of label c covers piece p (difference array, then cumsum).
    diff = np.zeros((n_pieces + 1, max(V, 1)))
    np.add.at(diff, (i0, lab_code), 1.0)
    np.add.at(diff, (i1, lab_code), -1.0)
    n_lab = np.cumsum(diff[:-1], axis=0)[:, :V]
    m_p = m_doc[piece_doc]
    n_u = n_lab.sum(axis=1)
    n_all = np.column_stack([m_p - n_u, n_lab])  # value 0 is the gap
    scale = w / (m_p - 1.0)

    def per_doc(values: np.ndarray) -> np.ndarray:
        if values.ndim == 1:
            values = values[:, None]
        if values.shape[1] == 0:  # no label: nobody marked a unit
            return np.zeros((n_docs, 0))
        return np.stack([np.bincount(piece_doc, weights=values[:, j], minlength=n_docs)
                         for j in range(values.shape[1])], axis=1)

    diag = per_doc(scale[:, None] * n_all * (n_all - 1.0))
    marg = per_doc(w[:, None] * n_all)
    uu = per_doc(scale * n_u * (n_u - 1.0))
    marg_star = per_doc(scale[:, None] * n_lab * (n_u - 1.0)[:, None])[:, :V]
    # Corrections: gaps are divisible (Σ l = the gap length, per position), units not (Σ l²).
    lens = (g_end - g_start).astype(np.float64)
    corr = np.zeros((n_docs, V + 1))
    corr[:, 0] = marg[:, 0]
    np.add.at(corr, (doc_idx, lab_code + 1), lens**2)
    # A unit's pairable part: where at least one other annotator has a unit (n_U ≥ 2).
    cum = np.concatenate([[0.0], np.cumsum(w * (n_u >= 2))])
    pairable = cum[i1] - cum[i0]
    corr_star = np.zeros((n_docs, max(V, 1)))
    np.add.at(corr_star, (doc_idx, lab_code), pairable**2)
    rows = np.concatenate([diag, marg, corr, uu, marg_star, corr_star[:, :V]], axis=1)
    info["coincidences"] = (n_all * scale[:, None]).T @ n_all - np.diag(scale @ n_all)
    return docs, labels, rows, info


def unitizing_finalize(sums: np.ndarray, n_labels: int) -> dict[str, np.ndarray]:
    """α_u, |u|α, cuα and the split of 1 − α_u from column sums (…, 6 V + 4)."""
    V = n_labels
    s = np.asarray(sums, dtype=np.float64)
    diag, marg, corr = s[..., :V + 1], s[..., V + 1:2 * V + 2], s[..., 2 * V + 2:3 * V + 3]
    uu = s[..., 3 * V + 3]
    marg_s, corr_s = s[..., 3 * V + 4:4 * V + 4], s[..., 4 * V + 4:5 * V + 4]
    total = marg.sum(axis=-1)
    denom = total**2 - corr.sum(axis=-1)
    # Krippendorff et al. (2016), expected coincidences: ℓ..(ℓ_c.ℓ_k. − δ_ck corr_c) / (ℓ..² − Σ corr)
    e_diag = total[..., None] * (marg**2 - corr) / np.where(denom > 0, denom, np.nan)[..., None]
    d_o = total - diag.sum(axis=-1)
    d_e = total - e_diag.sum(axis=-1)
    alpha = 1.0 - _div(d_o, d_e)
    # |u|α: every label one value "unit" against the gap (units stay the units they are).
    m_u = marg[..., 1:].sum(axis=-1)
    c_u = corr[..., 1:].sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        e_uu = total * (m_u**2 - c_u) / np.where(denom > 0, denom, np.nan)
    d_o_b = total - diag[..., 0] - uu
    d_e_b = total - e_diag[..., 0] - e_uu
    binary = 1.0 - _div(d_o_b, d_e_b)
    # cuα: the label × label block of the coincidences, units where they meet other units.
    tot_s = marg_s.sum(axis=-1)
    den_s = tot_s**2 - corr_s.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        e_s = tot_s[..., None] * (marg_s**2 - corr_s) / np.where(den_s > 0, den_s,
                                                                  np.nan)[..., None]
    d_o_c = uu - diag[..., 1:].sum(axis=-1)
    d_e_c = tot_s - e_s.sum(axis=-1)
    coding = 1.0 - _div(d_o_c, d_e_c)
    return {"alpha": alpha, "binary_alpha": binary, "coding_alpha": coding,
            "boundary_disagreement": _div(d_o_b, d_e), "label_disagreement": _div(d_o_c, d_e),
            "observed": _div(d_o, total), "expected": _div(d_e, total)}


@dataclass(frozen=True, eq=False, repr=False)
class UnitizingAlphaResult(Result):
    """Krippendorff's α for unitizing and its parts (see :func:`unitizing_alpha`).

    Attributes
    ----------
    alpha : float
        α_u: agreement on where the units are and what label they carry — the headline.
    binary_alpha : float
        ``|u|α``: agreement on where the units are, irrespective of their labels (the
        boundary part).
    coding_alpha : float
        cuα: agreement on the labels where units of different annotators meet (the
        label part); NaN with a single label.
    boundary_disagreement, label_disagreement : float
        The split of ``1 − α_u``: observed disagreement of a unit against a gap, and of
        one label against another, each over α_u's expected disagreement (they add up
        to ``1 − α_u``).
    observed, expected : float
        α_u's observed and expected disagreement (shares of the pairable length).
    n_annotators, n_documents : int
        Annotators, and documents annotated by at least two of them.
    length : int
        Pairable length: Σ over those documents of their length × their annotators.
    coincidences : pandas.DataFrame
        The values × values coincidence matrix ``ℓ_ck`` (the gap is ``"∅"``).
    notes : tuple of str

    ``to_frame()``: one row per coefficient (``alpha``, ``binary_alpha``,
    ``coding_alpha``) with its observed disagreement share.
    """

    alpha: float
    binary_alpha: float
    coding_alpha: float
    boundary_disagreement: float
    label_disagreement: float
    observed: float
    expected: float
    n_annotators: int
    n_documents: int
    length: int
    coincidences: pd.DataFrame = field(repr=False)
    notes: tuple[str, ...] = ()

    _headline = "alpha"
    _nested = "coincidences"
    _rows = ("alpha", "binary_alpha", "coding_alpha")
    _columns: ClassVar[dict[str, str]] = {"value": "{}"}
    _index = "coefficient"
    _summary = ("Krippendorff's unitizing alpha: {alpha:.4f} ({n_annotators} annotators, "
                "{n_documents} documents, pairable length {length})",
                "  where the units are (|u|alpha, labels ignored): {binary_alpha:.4f}",
                "  which label, where units meet (cu-alpha):       {coding_alpha:.4f}",
                "  1 - alpha_u = {boundary_disagreement:.4f} (unit vs gap) + "
                "{label_disagreement:.4f} (label vs label)", ("notes", "  note: {}"))

    def __repr__(self) -> str:
        return (f"UnitizingAlphaResult(alpha={self.alpha:.4f}, binary_alpha="
                f"{self.binary_alpha:.4f}, coding_alpha={self.coding_alpha:.4f})")


def unitizing_alpha(spans: Spans) -> UnitizingAlphaResult:
    r"""Krippendorff's α for unitizing, α_u, and its boundary and label parts.

    Each annotator's spans, with the gaps between them, partition every document they
    annotated. Two annotators' segments that intersect are a pair of values (a label or
    the gap ∅) with the weight of their intersection; α_u compares how often values
    differ with how often they would by chance (Krippendorff 2013, §12.6, with the
    definition for more than two annotators of Krippendorff et al. 2016).

    Parameters
    ----------
    spans : Spans
        Character or token offsets. Documents of known length (``Spans(lengths=)``;
        the readers record them) end there; others end at their last span (a note
        says so). Documents annotated by fewer than two annotators are left out.

    Returns
    -------
    UnitizingAlphaResult

    Raises
    ------
    TypeError
        If ``spans`` is not :class:`Spans`.
    ValueError
        If fewer than two annotators, or a span ends past its document's length.

    Warns
    -----
    DegenerateDataWarning
        When no document has two annotators, or no disagreement is expected (every
        value the same): α_u is then NaN.
    GoldnoiseWarning
        When an annotator's own spans overlap: α_u needs each annotator's units to
        partition the text, so the span that starts first (then the longer) keeps the
        shared offsets and the rest of the other stays a unit of its own (the same rule
        as :func:`token_ratings`).

    Notes
    -----
    In a document annotated by ``m_d`` annotators, annotator ``i``'s segments ``g``
    (units with their label, gaps with ∅) and annotator ``j``'s segments ``h`` give
    the coincidences (Krippendorff et al. 2016, eq. for ``ℓ_ck``)

    .. math:: ℓ_{ck} = \sum_d \frac{1}{m_d - 1} \sum_{i \ne j} \sum_{g, h}
              |g ∩ h| \, [v_g = c][v_h = k],

    with marginals ``ℓ_c.`` and total ``ℓ.. = Σ_d m_d L_d``. A unit cannot pair with
    itself but a gap is divisible, so the expected coincidences are

    .. math:: e_{ck} = ℓ_{..} \frac{ℓ_{c.} ℓ_{k.} − δ_{ck} \, \mathrm{corr}_c}
              {ℓ_{..}^2 − \sum_c \mathrm{corr}_c}, \quad
              \mathrm{corr}_c = \sum_{\text{segments of value } c}
              \begin{cases} l & c = ∅ \\ l^2 & \text{else} \end{cases}

    and ``α_u = 1 − D_o / D_e`` with ``D_o = ℓ.. − Σ_c ℓ_cc``, ``D_e = ℓ.. − Σ_c e_cc``
    (nominal difference: any two distinct values differ by 1). Documents are concatenated
    (none pairs across a document's end); documents with ``m_d < 2`` have no pairable
    value (as missing values in α).

    The split (Krippendorff et al. 2016):

    * ``binary_alpha`` (``|u|α``) — the same matrices with every label merged into one
      value "unit": agreement on where units are, irrespective of labels;
    * ``coding_alpha`` (cuα) — the label × label block ``ℓ*`` of the coincidences
      (where units of two annotators meet), with expected coincidences as above from
      its marginals and ``corr*_c = Σ`` over units of their pairable part squared (the
      part of the unit that meets another annotator's unit): agreement on labels given
      the units;
    * ``1 − α_u = boundary_disagreement + label_disagreement``: α_u's observed
      disagreement split into unit-against-gap pairs and label-against-label pairs,
      each over ``D_e`` — how much of the shortfall each kind of disagreement causes.

    When every unit has length 1 the corrections of units and gaps agree, and α_u is
    Krippendorff's nominal α with each position an item and ∅ a category (tested).

    References
    ----------
    Krippendorff, K. (1995). On the reliability of unitizing continuous data.
    Sociological Methodology, 25, 47–76. https://doi.org/10.2307/271061

    Krippendorff, K. (2013). Content Analysis: An Introduction to Its Methodology
    (3rd ed.), §12.6. Sage.

    Krippendorff, K., Mathet, Y., Bouvry, S., & Widlöcher, A. (2016). On the reliability
    of unitizing textual continua: Further developments. Quality & Quantity, 50(6),
    2347–2364. https://doi.org/10.1007/s11135-015-0266-1

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans, unitizing_alpha
    >>> rows = [("d", 0, 3, "PER", "a"), ("d", 10, 14, "ORG", "a"),
    ...         ("d", 0, 3, "PER", "b"), ("d", 11, 14, "LOC", "b")]
    >>> s = Spans(pd.DataFrame(rows, columns=["document", "start", "end", "label",
    ...                                       "annotator"]), lengths={"d": 20})
    >>> res = unitizing_alpha(s)
    >>> round(res.alpha, 4), round(res.binary_alpha, 4), round(res.coding_alpha, 4)
    (0.6222, 0.891, 0.4)
    >>> round(res.boundary_disagreement + res.label_disagreement, 4) == round(1 - res.alpha, 4)
    True
    """
    check_spans(spans, "unitizing α needs")
    docs, labels, rows, info = unitizing_rows(spans)
    notes = []
    if info["n_cut"]:
        msg = (f"{info['n_cut']} span(s) overlap an earlier span of the same annotator: the "
               "earlier keeps the shared offsets")
        warnings.warn(msg + " (α_u needs each annotator's units to partition the text).",
                      GoldnoiseWarning, stacklevel=2)
        notes.append(msg)
    if info["n_guessed"]:
        notes.append(f"{info['n_guessed']} document(s) of unknown length end at their last "
                     "span")
    if info["n_unpaired"]:
        notes.append(f"{info['n_unpaired']} document(s) annotated by fewer than two "
                     "annotators are left out")
    out = unitizing_finalize(rows.sum(axis=0), len(labels))
    if not np.isfinite(out["alpha"]):
        why = ("no document is annotated by two annotators" if not docs
               else "no annotator marked a unit: every annotator left every document empty, "
               "so there is no unit to agree or disagree on (they agree there is none)"
               if not labels else "no disagreement is expected (every value the same)")
        warnings.warn(f"unitizing α is undefined: {why}.", DegenerateDataWarning, stacklevel=2)
        notes.append(f"α_u undefined: {why}")
    values = [GAP, *labels]
    V = len(labels)
    return UnitizingAlphaResult(
        alpha=float(out["alpha"]), binary_alpha=float(out["binary_alpha"]),
        coding_alpha=float(out["coding_alpha"]),
        boundary_disagreement=float(out["boundary_disagreement"]),
        label_disagreement=float(out["label_disagreement"]),
        observed=float(out["observed"]), expected=float(out["expected"]),
        n_annotators=len(spans.annotators), n_documents=len(docs),
        length=round(rows[:, V + 1:2 * V + 2].sum()) if len(docs) else 0,
        coincidences=pd.DataFrame(info["coincidences"], index=values, columns=values),
        notes=tuple(notes))
