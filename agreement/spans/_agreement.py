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
from agreement.spans._spans import Spans, check_spans, key_codes

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
    counts : pandas.DataFrame
        ``first``, ``second``, ``document``, ``label``, ``tp``, ``fp``, ``fn``: every
        pair's counts in every document and label where either marked a span (the
        rows the tables above add up; the bootstrap over documents resamples them).
    n_both_empty, n_one_empty : int
        Over every pair and every document both annotated: how often both marked
        nothing (they agree there is no entity), and how often one marked nothing and
        the other a span.
    no_entity_agreement : float
        Specific agreement on "no entity" over documents, ``2·n_both_empty /
        (2·n_both_empty + n_one_empty)``: F1's form with a document left empty as the
        positive; NaN when every document compared holds spans of both.
    notes : tuple of str
        Why F1 is undefined, when it is.

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
    counts: pd.DataFrame = field(repr=False, default=None)
    n_both_empty: int = 0
    n_one_empty: int = 0
    no_entity_agreement: float = float("nan")
    notes: tuple[str, ...] = ()

    _headline = "f1"
    _records = ("pairs", "by_label")
    _table = "pairs"
    _summary = (
        "Span agreement ({match}{match==iou:, IoU >= {threshold:g}|}): pooled F1 "
        "{f1==nan:undefined|{f1:.4f}} over {pairs!n} pair(s), {n_documents} documents",
        ("by_label", "  {name}: F1 {f1:.4f} (tp {tp:d}, fp {fp:d}, fn {fn:d})"),
        "  {no_entity_text}", ("notes", "  note: {}"))

    def no_entity_text(self) -> str:
        """One line: how the pairs agree on documents left without an entity."""
        either = self.n_both_empty + self.n_one_empty
        if not either:
            return ("no entity: every document compared holds spans of both annotators of "
                    "each pair")
        return (f"no entity: both annotators left the document empty in {self.n_both_empty} "
                f"of the {either} pair-document comparisons where either did (specific "
                f"agreement on no entity {self.no_entity_agreement:.4f})")

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
    annotators = check_spans(spans, "span agreement needs").annotators
    counts, n_docs = pair_counts(spans, match=match, threshold=threshold)
    pair_rows = []
    for (a, b), docs in n_docs.items():
        c = counts[(counts["first"] == a) & (counts["second"] == b)]
        tp, fp, fn = (int(c[k].sum()) for k in ("tp", "fp", "fn"))
        prec = tp / (tp + fp) if tp + fp else np.nan
        rec = tp / (tp + fn) if tp + fn else np.nan
        pair_rows.append({"first": a, "second": b, "documents": docs, "tp": tp, "fp": fp,
                          "fn": fn, "precision": prec, "recall": rec,
                          "f1": float(_f1(tp, fp, fn))})
    pairs = pd.DataFrame(pair_rows).set_index(["first", "second"])

    def table(name: str) -> pd.DataFrame:
        t = counts.groupby(name, sort=False)[["tp", "fp", "fn"]].sum().astype(np.int64)
        t["f1"] = _f1(t["tp"].to_numpy(), t["fp"].to_numpy(), t["fn"].to_numpy())
        t.index.name = name
        return t.sort_index(key=lambda ix: ix.map(str))

    tp, fp, fn = (int(pairs[c].sum()) for c in ("tp", "fp", "fn"))
    both_empty, one_empty = _empty_documents(spans)
    notes = []
    if tp + fp + fn == 0:
        shared = int(pairs["documents"].sum())
        notes.append("F1 is undefined: no pair of annotators marked a span in a document both "
                     "annotated (F1 counts spans; with none there is nothing to match)"
                     + (f"; they agree there is no entity in all {shared} pair-document "
                        "comparisons" if shared and both_empty == shared else ""))
    return SpanAgreementResult(
        f1=float(_f1(tp, fp, fn)), match=match,
        threshold=float(threshold) if match == "iou" else None,
        n_annotators=len(annotators), n_documents=len(spans.documents), pairs=pairs,
        by_label=table("label"), by_document=table("document"), counts=counts,
        n_both_empty=both_empty, n_one_empty=one_empty,
        no_entity_agreement=float(_f1(both_empty, one_empty, 0)), notes=tuple(notes))


def _empty_documents(spans: Spans) -> tuple[int, int]:
    """Over pairs and shared documents: (both marked nothing, exactly one marked nothing)."""
    docs_of: dict[Any, set] = {}
    for a, d in spans.coverage:
        docs_of.setdefault(a, set()).add(d)
    marked = {a: set(g) for a, g in spans.frame.groupby("annotator")["document"]}
    both = one = 0
    for a, b in combinations(spans.annotators, 2):
        shared = docs_of.get(a, set()) & docs_of.get(b, set())
        ea = shared - marked.get(a, set())
        eb = shared - marked.get(b, set())
        both += len(ea & eb)
        one += len(ea ^ eb)
    return both, one


def pair_counts(spans: Spans, *, match: str = "exact", threshold: float = 0.5
                ) -> tuple[pd.DataFrame, dict[tuple[Any, Any], int]]:
    """True positives, false positives and false negatives of every annotator pair in
    every document both annotated, per label (rows where either marked a span).

    Returns the table (``first, second, document, label, tp, fp, fn``) and the number of
    documents each pair shares.
    """
    frame = spans.frame
    annotators = spans.annotators
    docs_of: dict[Any, set] = {}
    for a, d in spans.coverage:
        docs_of.setdefault(a, set()).add(d)
    # One key per (document, label): the unit matching works in.
    gcode, first = key_codes(frame, ["document", "label"])
    ann = frame["annotator"].to_numpy()
    start, end = frame["start"].to_numpy(), frame["end"].to_numpy()
    out, n_docs = [], {}
    for a, b in combinations(annotators, 2):
        shared = docs_of.get(a, set()) & docs_of.get(b, set())
        n_docs[(a, b)] = len(shared)
        in_shared = frame["document"].isin(shared).to_numpy()
        ia = np.flatnonzero((ann == a) & in_shared)
        ib = np.flatnonzero((ann == b) & in_shared)
        na = np.bincount(gcode[ia], minlength=len(first))
        nb = np.bincount(gcode[ib], minlength=len(first))
        tp = _group_matches(gcode, start, end, ia, ib, len(first), match, threshold)
        keep = np.flatnonzero((na + nb) > 0)
        out.append(pd.DataFrame({
            "first": a, "second": b,
            "document": frame["document"].array[first[keep]] if len(keep) else [],
            "label": frame["label"].array[first[keep]] if len(keep) else [],
            "tp": tp[keep], "fp": nb[keep] - tp[keep], "fn": na[keep] - tp[keep]}))
    counts = pd.concat(out, ignore_index=True) if out else pd.DataFrame(
        columns=["first", "second", "document", "label", "tp", "fp", "fn"])
    for c in ("tp", "fp", "fn"):
        counts[c] = counts[c].astype(np.int64)
    return counts, n_docs


def _group_matches(gcode: np.ndarray, start: np.ndarray, end: np.ndarray, ia: np.ndarray,
                   ib: np.ndarray, n_groups: int, match: str, threshold: float) -> np.ndarray:
    """Largest one-to-one matching of a's spans ``ia`` and b's ``ib`` within every group."""
    tp = np.zeros(n_groups, dtype=np.int64)
    if len(ia) == 0 or len(ib) == 0:
        return tp
    fa = pd.DataFrame({"g": gcode[ia], "s": start[ia], "e": end[ia], "i": np.arange(len(ia))})
    fb = pd.DataFrame({"g": gcode[ib], "s": start[ib], "e": end[ib], "j": np.arange(len(ib))})
    if match == "exact":
        ka = fa.groupby(["g", "s", "e"]).size()
        kb = fb.groupby(["g", "s", "e"]).size()
        both = ka.index.intersection(kb.index)
        m = np.minimum(ka.loc[both].to_numpy(), kb.loc[both].to_numpy())
        np.add.at(tp, both.get_level_values(0).to_numpy(), m)
        return tp
    # Candidate pairs within each group, then the edges a matching may use.
    cand = fa.merge(fb, on="g", suffixes=("a", "b"))
    inter = np.minimum(cand["ea"], cand["eb"]) - np.maximum(cand["sa"], cand["sb"])
    if match == "overlap":
        ok = inter.to_numpy() > 0
    else:
        union = np.maximum(cand["ea"], cand["eb"]) - np.minimum(cand["sa"], cand["sb"])
        ok = (inter / union).to_numpy() >= threshold
    edges = cand[ok]
    deg_a = edges["i"].map(edges["i"].value_counts()).to_numpy()
    deg_b = edges["j"].map(edges["j"].value_counts()).to_numpy()
    simple = (deg_a == 1) & (deg_b == 1)
    # A group whose edges all stand alone matches every edge; the others need the assignment.
    hard = np.unique(edges["g"].to_numpy()[~simple])
    easy = ~np.isin(edges["g"].to_numpy(), hard)
    np.add.at(tp, edges["g"].to_numpy()[easy], 1)
    if hard.size:
        sa = fa[fa["g"].isin(hard)].groupby("g")
        sb = dict(list(fb[fb["g"].isin(hard)].groupby("g")))
        for g, part in sa:
            tp[g] = _matches(part[["s", "e"]].to_numpy(), sb[g][["s", "e"]].to_numpy(), match,
                             threshold)
    return tp


TAG_READINGS = ("spans", "raw")


def _as_bio(tag: str) -> str:
    """A tag as written, in BIO without repairs (BIOES/BILOU's S-, U- are B-; E-, L- are I-)."""
    tag = str(tag).strip()
    prefix, sep, label = tag.partition("-")
    if not sep:
        return tag
    p = {"S": "B", "U": "B", "E": "I", "L": "I"}.get(prefix.upper(), prefix.upper())
    return f"{p}-{label}"


def _raw_token_ratings(spans: Spans) -> Any:
    from agreement._ratings import Ratings

    annotators, documents = spans.annotators, spans.documents
    missing = [(a, d) for a in annotators for d in documents
               if (a, d) in spans.coverage and (a, d) not in spans.tags]
    if missing:
        raise ValueError(f"tags='raw' needs the tags as written, which CoNLL files give "
                         f"(read_conll); {len(missing)} annotator-document pair(s) have none, "
                         f"e.g. {missing[0]!r}.")
    n_tok = [spans.lengths[d] for d in documents]
    start = np.concatenate([[0], np.cumsum(n_tok)]).astype(np.int64)
    cats = pd.Index(sorted({str(t).strip() for v in spans.tags.values() for t in v}),
                    dtype=object, name="category")
    code = {t: i for i, t in enumerate(cats)}
    codes = np.full((int(start[-1]), len(annotators)), -1, dtype=np.int32)
    for j, a in enumerate(annotators):
        for k, d in enumerate(documents):
            if (a, d) in spans.coverage:
                codes[start[k]:start[k + 1], j] = [code[str(t).strip()]
                                                   for t in spans.tags[(a, d)]]
    return Ratings(codes.astype(np.int16) if len(cats) > 127 else codes.astype(np.int8), cats,
                   items=pd.RangeIndex(int(start[-1]), name="item"),
                   raters=pd.Index(annotators, name="rater"))


def tags_rewritten(spans: Spans, derived: Any = None) -> int:
    """Tokens whose BIO tag derived from the spans (``derived``: their
    :func:`token_ratings`) differs from the tag as written (read as BIO: an ``I-`` that
    continues no span is re-derived as ``B-``); 0 without tags."""
    if not spans.tags or spans.unit != "token":
        return 0
    if derived is None:
        derived = token_ratings(spans)
    wide = derived.codes
    cats = list(derived.categories)
    documents = spans.documents
    n_tok = [spans.lengths[d] for d in documents]
    start = np.concatenate([[0], np.cumsum(n_tok)]).astype(np.int64)
    cat_code = {c: i for i, c in enumerate(cats)}
    changed = 0
    for j, a in enumerate(spans.annotators):
        have = [k for k, d in enumerate(documents) if (a, d) in spans.tags]
        if not have:
            continue
        raw = [t for k in have for t in spans.tags[(a, documents[k])]]
        got = np.concatenate([wide[start[k]:start[k + 1], j] for k in have])
        codes, uniques = pd.factorize(pd.Series(raw, dtype=object))
        as_code = np.array([cat_code.get(_as_bio(u), -2) for u in uniques], dtype=np.int64)
        changed += int(np.count_nonzero(as_code[codes] != got))
    return changed


def token_ratings(spans: Spans, *, tags: str = "spans") -> Any:
    """The tokens as items: each annotator's BIO tag of every token of the documents it saw.

    ``tags="spans"`` (default): the tags are derived from the spans. A token outside
    every span is ``O``; the first token of a span ``B-label``, the others
    ``I-label``. Where an annotator's spans overlap, the span that starts first (then
    the longer) tags the shared tokens. A CoNLL ``I-`` tag that continues no span was
    read as the start of one, so it becomes ``B-`` here. ``tags="raw"``: the tags as
    the CoNLL file wrote them (``Spans.tags``), every distinct tag a category.
    Tokens of documents an annotator did not annotate are missing for that
    annotator. Needs token offsets and the documents' lengths (``read_conll``
    records both).

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
    from agreement.spans._unitizing import _units

    if tags not in TAG_READINGS:
        raise ValueError(f"`tags` must be one of {TAG_READINGS}; got {tags!r}.")
    if spans.unit != "token":
        raise ValueError("token agreement needs token offsets (read_conll gives them); these "
                         f"spans have {spans.unit} offsets.")
    missing = [d for d in spans.documents if d not in spans.lengths]
    if missing:
        raise ValueError(f"the length of {len(missing)} document(s) is unknown "
                         f"({', '.join(map(str, missing[:3]))}): build Spans with `lengths=`.")
    if tags == "raw":
        return _raw_token_ratings(spans)
    annotators = spans.annotators
    documents = spans.documents
    n_tok = np.array([spans.lengths[d] for d in documents], dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(n_tok)])
    pos = dict(zip(documents, offset[:-1].tolist(), strict=True))
    units, _ = _units(spans)
    too_long = units["end"].to_numpy() > units["document"].map(spans.lengths).to_numpy()
    if too_long.any():
        bad = units[too_long].iloc[0]
        raise ValueError(f"a span of {bad['annotator']!r} in document {bad['document']!r} ends "
                         f"at token {bad['end']}, past its {spans.lengths[bad['document']]} "
                         "tokens.")
    labels = spans.labels
    observed = {"O"} if spans.coverage else set()
    observed |= {f"B-{lab}" for lab in units.loc[~units["cut"], "label"].unique()}
    observed |= {f"I-{lab}" for lab in units.loc[units["cut"] | (units["end"] - units["start"]
                                                                  > 1), "label"].unique()}
    cats = pd.Index(sorted(observed), dtype=object, name="category")
    code = {t: i for i, t in enumerate(cats)}
    b_code = np.array([code.get(f"B-{lab}", -1) for lab in labels], dtype=np.int16)
    i_code = np.array([code.get(f"I-{lab}", -1) for lab in labels], dtype=np.int16)
    lab_idx = pd.Categorical(units["label"], categories=labels).codes
    g_start = units["document"].map(pos).to_numpy().astype(np.int64) + units["start"].to_numpy()
    g_len = (units["end"] - units["start"]).to_numpy()
    who = units["annotator"].to_numpy()
    codes = np.full((int(offset[-1]), len(annotators)), -1, dtype=np.int16)
    for j, a in enumerate(annotators):
        for d in documents:
            if (a, d) in spans.coverage:
                codes[pos[d]:pos[d] + spans.lengths[d], j] = code["O"]
        mine = np.flatnonzero(who == a)
        ln = g_len[mine]
        first = np.repeat(g_start[mine] - np.concatenate([[0], np.cumsum(ln)[:-1]]), ln)
        codes[np.arange(ln.sum()) + first, j] = np.repeat(i_code[lab_idx[mine]], ln)
        head = mine[~units["cut"].to_numpy()[mine]]
        codes[g_start[head], j] = b_code[lab_idx[head]]
    return Ratings(codes if len(cats) > 127 else codes.astype(np.int8), cats,
                   items=pd.RangeIndex(int(offset[-1]), name="item"),
                   raters=pd.Index(annotators, name="rater"))


@validate_params(tags=Option(TAG_READINGS), confidence_level=ConfidenceLevel())
def token_agreement(spans: Spans, *, tags: str = "spans",
                    confidence_level: float = 0.95) -> pd.DataFrame:
    """Every agreement coefficient of SPEC §1 over tokens as items (BIO tags as categories).

    Parameters
    ----------
    spans : Spans
        Token offsets with the documents' lengths (``read_conll``).
    tags : {"spans", "raw"}, default "spans"
        The tags derived from the spans, or the tags as the CoNLL file wrote them
        (:func:`token_ratings`). The two differ where an ``I-`` continues no span
        (derived: ``B-``); the ``notes`` column says how many tokens, when any do.
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

    ratings = token_ratings(spans, tags=tags)
    table = agreement_table(ratings, confidence_level=confidence_level)
    changed = tags_rewritten(spans, ratings) if tags == "spans" else 0
    if changed:
        note = (f"{changed} token tag(s) differ from the tags as written: an I- that continues "
                "no span starts one (as CoNLL's evaluation reads it) and is counted as B- "
                "here; tags='raw' computes the coefficients on the tags as written")
        table["notes"] = [f"{n}; {note}" if isinstance(n, str) and n else note
                          for n in table["notes"]]
    return table
