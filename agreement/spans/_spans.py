"""The span container: who marked which stretch of which document, and with what label."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Spans", "check_spans"]

_COLUMNS = ["document", "start", "end", "label", "annotator"]

#: The largest offset read (2**53: every whole number up to it is exact as a float too).
MAX_OFFSET = 2**53


class Spans:
    """Spans marked by annotators: ``document``, ``start``, ``end`` (exclusive), ``label``,
    ``annotator``; nested and overlapping spans are kept as they are.

    Which documents each annotator annotated is explicit (``coverage``): an annotator
    who annotated a document and marked nothing in it disagrees with every span there,
    while one who never saw the document is left out of its comparisons.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per span with the five columns above (offsets: characters or tokens,
        as ``unit`` says).
    coverage : iterable of (annotator, document), optional
        The documents each annotator annotated (default: those where they marked a span).
    unit : {"char", "token"}, default "char"
    lengths : dict, optional
        Each document's length in ``unit`` (the CoNLL reader records token counts):
        token-level agreement needs it.
    tags : dict, optional
        ``{(annotator, document): tags}``: the tags as written, one per token (the CoNLL
        reader records them; ``token_ratings(..., tags="raw")`` reads them).
    sentences : dict, optional
        ``{document: (length of each sentence, ...)}`` in tokens (the CoNLL reader
        records them; the bootstrap over documents falls back to sentences with them).

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans
    >>> s = Spans(pd.DataFrame({"document": ["d1", "d1", "d1"], "start": [0, 0, 10],
    ...                         "end": [5, 5, 14], "label": ["PER", "PER", "ORG"],
    ...                         "annotator": ["a", "b", "b"]}))
    >>> s
    Spans(3 spans, 2 annotators, 1 documents, labels ['ORG', 'PER'], char offsets)
    """

    def __init__(self, frame: pd.DataFrame, *, coverage: Iterable[tuple[Any, Any]] | None = None,
                 unit: str = "char", lengths: dict[Any, int] | None = None,
                 tags: dict[tuple[Any, Any], Sequence[str]] | None = None,
                 sentences: dict[Any, Sequence[int]] | None = None) -> None:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"`frame` must be a DataFrame with columns {_COLUMNS}; got "
                            f"{type(frame).__name__}.")
        missing = [c for c in _COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"`frame` lacks the column(s) {missing}; it needs {_COLUMNS}.")
        if unit not in ("char", "token"):
            raise ValueError(f"`unit` must be 'char' or 'token'; got {unit!r}.")
        data = frame[_COLUMNS].copy()
        for col in ("document", "annotator", "label"):
            gone = data[col].isna().to_numpy()
            if gone.any():
                i = int(np.flatnonzero(gone)[0])
                fix = (" (spans without labels: give them one, e.g. "
                       "frame.fillna({'label': 'span'}))" if col == "label" else "")
                raise ValueError(f"`{col}` is missing in {int(gone.sum())} row(s) (first: row "
                                 f"{i}); every span needs its {col}{fix}.")
        for col in ("start", "end"):
            vals = pd.to_numeric(data[col], errors="coerce")
            bad = (vals.isna() | (vals != np.floor(vals))).to_numpy()
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"`{col}` must hold whole offsets; row {i} has "
                                 f"{data[col].iloc[i]!r}.")
            huge = (vals.abs() > MAX_OFFSET).to_numpy()
            if huge.any():
                i = int(np.flatnonzero(huge)[0])
                raise ValueError(f"`{col}` of row {i} is {data[col].iloc[i]!r}, beyond any "
                                 f"text (offsets up to {MAX_OFFSET:.0e}).")
            data[col] = vals.astype(np.int64)
        bad = data["end"] <= data["start"]
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"a span must end after it starts; row {i} is "
                             f"[{data['start'].iloc[i]}, {data['end'].iloc[i]}).")
        if (data["start"] < 0).any():
            raise ValueError("offsets must be ≥ 0.")
        self.frame = data.sort_values(_COLUMNS, kind="stable").reset_index(drop=True)
        pairs = set(map(tuple, self.frame[["annotator", "document"]].drop_duplicates()
                        .itertuples(index=False, name=None)))
        if coverage is not None:
            pairs |= {(a, d) for a, d in coverage}
        self.coverage = frozenset(pairs)
        self.unit = unit
        #: Length of each document in ``unit`` (tokens or characters), where known.
        self.lengths = dict(lengths or {})
        #: The tags as written of each (annotator, document), where a CoNLL file gave them.
        self.tags = {k: tuple(v) for k, v in (tags or {}).items()}
        #: The sentence lengths (tokens) of each document, where a CoNLL file gave them.
        self.sentences = {d: tuple(int(n) for n in v) for d, v in (sentences or {}).items()}

    @property
    def annotators(self) -> list[Any]:
        return sorted({a for a, _ in self.coverage}, key=str)

    @property
    def documents(self) -> list[Any]:
        return sorted({d for _, d in self.coverage}, key=str)

    @property
    def labels(self) -> list[Any]:
        return sorted(self.frame["label"].unique().tolist(), key=str)

    def __len__(self) -> int:
        return len(self.frame)

    def of(self, annotator: Any, document: Any) -> pd.DataFrame:
        """The spans one annotator marked in one document."""
        f = self.frame
        return f[(f["annotator"] == annotator) & (f["document"] == document)]

    def __repr__(self) -> str:
        return (f"Spans({len(self)} spans, {len(self.annotators)} annotators, "
                f"{len(self.documents)} documents, labels {self.labels[:8]}, {self.unit} offsets)")

    @classmethod
    def concat(cls, parts: Iterable[Spans]) -> Spans:
        """Spans of several readers (e.g. one file per annotator) as one container."""
        parts = list(parts)
        if not parts:
            raise ValueError("nothing to concatenate: give at least one Spans.")
        units = {p.unit for p in parts}
        if len(units) > 1:
            raise ValueError(f"the parts mix offsets in {sorted(units)}; read them alike.")
        frame = pd.concat([p.frame for p in parts], ignore_index=True)
        coverage = set().union(*(p.coverage for p in parts))
        lengths: dict[Any, int] = {}
        tags: dict[tuple[Any, Any], tuple[str, ...]] = {}
        sentences: dict[Any, tuple[int, ...]] = {}
        for p in parts:
            for doc, n in p.lengths.items():
                if lengths.setdefault(doc, n) != n:
                    raise ValueError(f"document {doc!r} has {lengths[doc]} {p.unit}s in one "
                                     f"part and {n} in another: the files do not align.")
            tags.update(p.tags)
            for doc, s in p.sentences.items():
                if sentences.setdefault(doc, s) != s:
                    sentences[doc] = ()  # the parts split it differently: no sentences
        return cls(frame, coverage=coverage, unit=units.pop(), lengths=lengths, tags=tags,
                   sentences={d: s for d, s in sentences.items() if s})


def check_spans(spans: Any, needs: str | None = None) -> Spans:
    """``spans`` if it is :class:`Spans` (with at least two annotators when ``needs``
    says what needs them, e.g. ``"unitizing α needs"``), else a one-line error."""
    if not isinstance(spans, Spans):
        raise TypeError(f"`spans` must be Spans (agreement.spans readers make them); got "
                        f"{type(spans).__name__}.")
    if needs is not None and len(spans.annotators) < 2:
        raise ValueError(f"{needs} at least two annotators; these spans have "
                         f"{len(spans.annotators)}.")
    return spans


def key_codes(frame: pd.DataFrame, columns: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each row's code of its key (the values of ``columns`` together), numbered by first
    appearance as ``pd.factorize`` numbers them, and the row where each key first appears.

    Factorising each column and combining the integer codes costs a fraction of
    factorising a ``MultiIndex`` (which builds one tuple a row). The columns hold no
    missing values (:class:`Spans` refuses them).
    """
    code = np.zeros(len(frame), dtype=np.int64)
    for col in columns:
        c, uniques = pd.factorize(frame[col])
        code = code * len(uniques) + c
    codes, uniques = pd.factorize(code)
    first = np.full(len(uniques), len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    return codes.astype(np.int64, copy=False), first
