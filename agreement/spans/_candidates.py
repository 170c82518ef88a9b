"""Candidate spans as items: the ratings table on which every label-noise model runs (SPEC §7).

The annotators' spans of a document are merged into *candidates* under a matching rule;
each candidate is an item, each annotator a rater, and the categories are the labels
plus "no entity". An annotator who annotated the document but marked nothing at the
candidate rated it "no entity"; one who never saw the document is missing. The latent-
class models, γ of the agreed spans and the label-error rankings then run unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import Option, Probability, check_params, validate_params
from agreement.spans._agreement import MATCHES
from agreement.spans._spans import Spans, check_spans

__all__ = ["NO_ENTITY", "SpanRatings", "candidate_ratings"]

#: The category of an annotator who saw a candidate's document and marked nothing there.
NO_ENTITY = "no entity"

def _fits(anchor_start: np.ndarray, anchor_end: np.ndarray, start: int, end: int,
          match: str, threshold: float) -> np.ndarray:
    """IoU of a span with each candidate's anchor, 0 where the rule does not match them."""
    inter = np.maximum(0, np.minimum(anchor_end, end) - np.maximum(anchor_start, start))
    union = np.maximum(anchor_end, end) - np.minimum(anchor_start, start)
    iou = inter / union
    if match == "exact":
        return np.where((anchor_start == start) & (anchor_end == end), 1.0, 0.0)
    if match == "overlap":
        return np.where(inter > 0, iou, 0.0)
    return np.where(iou >= threshold, iou, 0.0)


def _merge_document(doc: pd.DataFrame, match: str, threshold: float) -> list[dict]:
    """The candidates of one document: ``{"start", "end", "members": {annotator: row}}``.

    Spans are taken most-supported boundaries first (the number of annotators who
    marked exactly that start and end; then by start, end, annotator, label): the
    order depends on the spans' content only, never on their order in the input. A
    span joins the matching candidate with the largest IoU of its anchor (the
    boundaries of the span that founded it) that has no span of its annotator yet,
    else it founds a candidate. Matching against the anchor, not against any member,
    keeps chains of overlaps (a–b, b–c) from merging spans that do not match.
    """
    support = doc.groupby(["start", "end"])["annotator"].transform("nunique")
    order = pd.DataFrame({"s": -support.to_numpy(), "start": doc["start"].to_numpy(),
                          "end": doc["end"].to_numpy(),
                          "a": doc["annotator"].map(str).to_numpy(),
                          "l": doc["label"].map(str).to_numpy()})
    rows = doc.iloc[np.lexsort([order[c].to_numpy() for c in ("l", "a", "end", "start", "s")])]
    cands: list[dict] = []
    a_start = np.empty(0, dtype=np.int64)
    a_end = np.empty(0, dtype=np.int64)
    for start, end, label, annotator in rows[["start", "end", "label", "annotator"]].itertuples(
            index=False, name=None):
        score = _fits(a_start, a_end, start, end, match, threshold)
        taken = np.fromiter((annotator in c["members"] for c in cands), dtype=bool,
                            count=len(cands))
        score[taken] = 0.0
        if score.size and score.max() > 0:
            c = cands[int(np.argmax(score))]  # ties: the earlier candidate
        else:
            c = {"start": int(start), "end": int(end), "members": {}}
            cands.append(c)
            a_start = np.append(a_start, start)
            a_end = np.append(a_end, end)
        c["members"][annotator] = (int(start), int(end), label)
    return cands


@dataclass(frozen=True, eq=False, repr=False)
class SpanRatings(Result):
    """Candidate spans as items (see :func:`candidate_ratings`).

    Attributes
    ----------
    ratings : Ratings
        Items = candidate ids ``0..n-1``, one rater column per annotator; categories
        the labels plus :attr:`none_label`; missing where the annotator did not
        annotate the candidate's document.
    candidates : pandas.DataFrame
        Indexed by candidate id: ``document``, ``start``, ``end`` (the anchor: the
        boundaries of the most-marked span of the candidate), ``n_marked`` (annotators
        who marked a span there), ``n_rated`` (annotators who annotated the document).
    spans : pandas.DataFrame
        Each annotator's span with its ``candidate``: ``candidate``, ``document``,
        ``start``, ``end``, ``label``, ``annotator``.
    match : str
    threshold : float or None
    none_label : str

    ``to_frame()``: the candidates with one column per annotator (their rating).
    """

    ratings: Any
    candidates: pd.DataFrame = field(repr=False)
    spans: pd.DataFrame = field(repr=False)
    match: str
    threshold: float | None
    none_label: str
    n_candidates: int

    _headline = "n_candidates"
    _keys = ("n_candidates", "match", "threshold", "none_label", "n_agreed=ratings.agreed.sum",
             "n_annotators=ratings.n_raters")
    _summary = ("{n_candidates} candidate spans ({match}{match==iou:, IoU >= {threshold:g}|}) "
                "rated by {ratings.n_raters} annotators; categories {ratings.categories!l}; "
                "{ratings.agreed.sum:d} agreed",)

    def to_frame(self) -> pd.DataFrame:
        wide = self.ratings.to_wide()
        wide.index = self.candidates.index
        return pd.concat([self.candidates, wide], axis=1)

    def likely_wrong(self, fit: Any, *, top: int | None = None) -> pd.DataFrame:
        """Every span (and every "no entity" rating), most likely wrong first, from a fit.

        Parameters
        ----------
        fit : LatentClassFit
            A latent-class fit of :attr:`ratings` (e.g.
            ``noise_models.LatentClassModel("spam").fit(res.ratings)``).
        top : int, optional
            Keep the first ``top`` rows.

        Returns
        -------
        pandas.DataFrame
            One row per rating of a candidate: ``candidate``, ``document``,
            ``start``, ``end`` (the annotator's own span, or the candidate's anchor
            for a "no entity" rating), ``annotator``, ``label`` (the annotator's),
            ``fitted`` (the fit's label of the candidate) and ``p_wrong`` = 1 − the
            fit's posterior that the candidate is an easy item of class ``label``;
            sorted by ``p_wrong``, highest first (ties by candidate and annotator).

        Examples
        --------
        >>> import pandas as pd
        >>> from agreement.spans import Spans, candidate_ratings
        >>> from noise_models import LatentClassModel
        >>> rows = [("d%d" % i, 0, 4, "PER", a) for i in range(30) for a in "abc"]
        >>> rows += [("d0", 6, 9, "ORG", "c")]
        >>> res = candidate_ratings(Spans(pd.DataFrame(rows, columns=[
        ...     "document", "start", "end", "label", "annotator"])))
        >>> fit = LatentClassModel("one-coin", rng=0).fit(res.ratings)
        >>> res.likely_wrong(fit, top=1)[["document", "start", "end", "annotator", "label"]]
          document  start  end annotator label
        0       d0      6    9         c   ORG
        """
        r = self.ratings
        fitted_ratings = getattr(fit, "ratings", None)
        if fitted_ratings is None or not hasattr(fit, "class_posterior"):
            raise TypeError(f"`fit` must be a latent-class fit of these ratings; got "
                            f"{type(fit).__name__}.")
        if (fitted_ratings.n_items != r.n_items or not fitted_ratings.items.equals(r.items)
                or list(fitted_ratings.categories) != list(r.categories)):
            raise ValueError("`fit` was fitted to other ratings than these candidates'; fit "
                             "`SpanRatings.ratings`.")
        codes = fitted_ratings.codes
        post = np.asarray(fit.class_posterior, dtype=np.float64)
        item, rater = np.nonzero(codes >= 0)
        label_code = codes[item, rater]
        cand = self.candidates
        raters = list(fitted_ratings.raters)
        own = self.spans.set_index(["candidate", "annotator"])[["start", "end"]]
        starts = cand["start"].to_numpy()[item].copy()
        ends = cand["end"].to_numpy()[item].copy()
        keys = list(zip(cand.index[item], [raters[j] for j in rater], strict=True))
        found = own.reindex(pd.MultiIndex.from_tuples(keys))
        has = found["start"].notna().to_numpy()
        starts[has] = found["start"].to_numpy()[has]
        ends[has] = found["end"].to_numpy()[has]
        out = pd.DataFrame({
            "candidate": cand.index[item], "document": cand["document"].to_numpy()[item],
            "start": starts.astype(np.int64), "end": ends.astype(np.int64),
            "annotator": [raters[j] for j in rater],
            "label": r.categories[label_code], "fitted": r.categories[fit.label_codes[item]],
            "p_wrong": np.clip(1.0 - post[item, label_code], 0.0, 1.0)})
        out = out.iloc[np.lexsort([rater, item, -out["p_wrong"].to_numpy()])]
        out = out.reset_index(drop=True)
        return out if top is None else out.head(int(top))

    def __repr__(self) -> str:
        return (f"SpanRatings({self.n_candidates} candidates, {self.ratings.n_raters} "
                f"annotators, match={self.match!r})")


def _checked_frame(spans: Any, none_label: Any) -> pd.DataFrame:
    """The spans' frame once ``spans`` and ``none_label`` are checked (spans to rate, and a
    ``none_label`` that no span carries)."""
    check_spans(spans)
    if not isinstance(none_label, str) or not none_label:
        raise TypeError(f"`none_label` must be a non-empty string; got {none_label!r}.")
    frame = spans.frame
    if len(frame) == 0:
        raise ValueError("there are no spans: no candidate to rate.")
    if (frame["label"].map(str) == none_label).any():
        raise ValueError(f"a span has the label {none_label!r}, which is `none_label`, the "
                         "category of an annotator who marked nothing; pass another "
                         "`none_label=`.")
    return frame


@validate_params(match=Option(MATCHES), threshold=Probability(open_low=True))
def candidate_ratings(spans: Spans, *, match: str = "exact", threshold: float = 0.5,
                      none_label: str = NO_ENTITY) -> SpanRatings:
    """Candidate spans as items rated by the annotators (labels plus "no entity").

    In each document the annotators' spans are merged into candidates by the
    matching rule — ``"exact"``: same start and end; ``"overlap"``: a shared offset;
    ``"iou"``: intersection over union ≥ ``threshold`` — whatever their labels (a
    candidate whose spans carry different labels is an item the annotators disagree
    on). Each annotator has at most one span in a candidate: a nested or overlapping
    span of the same annotator founds a candidate of its own. Each candidate is an
    item; an annotator who marked a span in it rated it with the span's label, one
    who annotated the document (``Spans.coverage``) and marked nothing there rated it
    ``none_label``, and one who did not annotate the document is missing.

    Parameters
    ----------
    spans : Spans
    match : {"exact", "overlap", "iou"}, default "exact"
    threshold : float in (0, 1], default 0.5
        The IoU a match needs (``match="iou"``).
    none_label : str, default "no entity"
        The category of "annotated the document, marked nothing here".

    Returns
    -------
    SpanRatings
        ``ratings`` (a :class:`Ratings` of candidates × annotators), ``candidates``
        (document, start, end of each candidate id) and ``spans`` (each span's
        candidate).

    Raises
    ------
    TypeError
        If ``spans`` is not a :class:`Spans`.
    ValueError
        If there is no span, or a label is ``none_label``.

    Notes
    -----
    Candidates are formed greedily, the spans whose exact boundaries most
    annotators marked first; a span joins the candidate whose founding span (its
    *anchor*) it matches with the largest IoU and in which its annotator has no
    span yet. The order of that pass depends on the spans only (support, start,
    end, annotator, label), so the table does not depend on the order of the
    input rows. Every item has at least one rating that is not ``none_label``;
    the candidates are the items of the latent-class models (SPEC §7, "Noise"),
    and the agreed ones — every annotator of the document gave the same label —
    are the agreed subset whose noise γ bounds.

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans, candidate_ratings
    >>> s = Spans(pd.DataFrame({
    ...     "document": ["d"] * 5, "start": [0, 10, 0, 11, 20], "end": [5, 14, 5, 14, 25],
    ...     "label": ["PER", "ORG", "PER", "LOC", "LOC"],
    ...     "annotator": ["a", "a", "b", "b", "b"]}))
    >>> res = candidate_ratings(s, match="overlap")
    >>> res.to_frame()
              document  start  end  n_marked  n_rated          a    b
    candidate
    0                d      0    5         2        2        PER  PER
    1                d     10   14         2        2        ORG  LOC
    2                d     20   25         1        2  no entity  LOC
    """
    check_params(candidate_ratings, locals())
    from agreement._ratings import Ratings

    frame = _checked_frame(spans, none_label)
    annotators = spans.annotators
    rows, member_rows = [], []
    for document, doc in frame.groupby("document", sort=False):
        for c in _merge_document(doc, match, float(threshold)):
            rows.append((document, c["start"], c["end"], c["members"]))
    # candidate ids in the order (document, start, end): independent of the input order
    rows.sort(key=lambda t: (str(t[0]), t[1], t[2], sorted(map(str, t[3]))))
    covered = {a: {d for (x, d) in spans.coverage if x == a} for a in annotators}
    table = np.full((len(rows), len(annotators)), None, dtype=object)
    cand = []
    for i, (document, start, end, members) in enumerate(rows):
        for j, a in enumerate(annotators):
            if a in members:
                table[i, j] = members[a][2]
                member_rows.append((i, document, *members[a], a))
            elif document in covered[a]:
                table[i, j] = none_label
        cand.append((document, start, end, len(members),
                     sum(document in covered[a] for a in annotators)))
    candidates = pd.DataFrame(cand, columns=["document", "start", "end", "n_marked", "n_rated"],
                              index=pd.RangeIndex(len(rows), name="candidate"))
    ratings = Ratings.from_wide(table, items=candidates.index, raters=annotators)
    members = pd.DataFrame(member_rows, columns=["candidate", "document", "start", "end",
                                                 "label", "annotator"])
    return SpanRatings(ratings, candidates, members, match,
                       float(threshold) if match == "iou" else None, none_label, len(rows))
