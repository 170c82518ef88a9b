"""Reading span annotations: CoNLL/BIO columns, brat standoff, Label Studio, doccano, Prodigy.

Every reader returns :class:`~agreement.spans.Spans` and refuses malformed input
with a message naming the file, the line (or task) and the problem.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from _goldnoise_lib.errors import GoldnoiseWarning
from agreement.spans._spans import Spans

__all__ = ["decode_tags", "read_brat", "read_conll", "read_jsonl", "read_labelstudio"]

_SCHEMES = ("BIO", "BIOES", "IO")


def decode_tags(tags: Sequence[str], *, scheme: str = "BIO", where: str = "tags"
                ) -> list[tuple[int, int, str]]:
    """Token spans ``(start, end, label)`` (end exclusive) from one sentence's tags.

    ``BIO`` (IOB2), ``BIOES`` (also read as BILOU: L = E, U = S) and ``IO``. An ``I-``
    tag that does not continue a span of its label starts one, as CoNLL's evaluation
    does (with a warning naming ``where``).

    Examples
    --------
    >>> from agreement.spans import decode_tags
    >>> decode_tags(["B-PER", "I-PER", "O", "B-LOC"])
    [(0, 2, 'PER'), (3, 4, 'LOC')]
    >>> decode_tags(["S-ORG", "B-PER", "E-PER"], scheme="BIOES")
    [(0, 1, 'ORG'), (1, 3, 'PER')]
    """
    if scheme not in _SCHEMES:
        raise ValueError(f"`scheme` must be one of {_SCHEMES}; got {scheme!r}.")
    spans: list[tuple[int, int, str]] = []
    cur: list[Any] | None = None  # [start, label]
    for i, raw in enumerate(tags):
        tag = str(raw).strip()
        if tag in ("O", ""):
            if cur is not None:
                spans.append((cur[0], i, cur[1]))
                cur = None
            continue
        prefix, sep, label = tag.partition("-")
        if not sep or not label:
            raise ValueError(f"{where}: token {i + 1} has the tag {tag!r}; expected O or "
                             f"a prefix and a label such as B-PER ({scheme}).")
        prefix = {"L": "E", "U": "S"}.get(prefix.upper(), prefix.upper())
        if scheme == "IO" or prefix == "I" or prefix == "E":
            allowed = {"I"} if scheme == "IO" else {"I", "E", "B", "S"}
            if prefix not in allowed:
                raise ValueError(f"{where}: token {i + 1} has the tag {tag!r}, not of the "
                                 f"{scheme} scheme.")
            if cur is not None and cur[1] == label:
                if prefix == "E":
                    spans.append((cur[0], i + 1, label))
                    cur = None
                continue
            if scheme != "IO":
                warnings.warn(f"{where}: token {i + 1} ({tag}) continues no {label} span; read "
                              f"as B-{label}.", GoldnoiseWarning, stacklevel=2)
            if cur is not None:
                spans.append((cur[0], i, cur[1]))
            if prefix == "E":
                spans.append((i, i + 1, label))
                cur = None
            else:
                cur = [i, label]
        elif prefix == "B":
            if cur is not None:
                spans.append((cur[0], i, cur[1]))
            cur = [i, label]
        elif prefix == "S":
            if cur is not None:
                spans.append((cur[0], i, cur[1]))
                cur = None
            spans.append((i, i + 1, label))
        else:
            raise ValueError(f"{where}: token {i + 1} has the tag {tag!r}; the {scheme} scheme "
                             "knows B-, I-" + (", E-, S-" if scheme == "BIOES" else "") + ".")
    if cur is not None:
        spans.append((cur[0], len(tags), cur[1]))
    return spans


def read_conll(paths: str | Path | Sequence[str | Path], *, annotators: Sequence[Any] | None = None,
               scheme: str = "BIO", token_column: int = 0) -> Spans:
    """CoNLL-style files: one token per line, blank lines between sentences.

    Either one file per annotator (the tag in the last column) or one file with one
    tag column per annotator (the columns after ``token_column``). A ``-DOCSTART-``
    line starts a new document; without any, each sentence is a document. Offsets are
    token positions within the document.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from agreement.spans import read_conll
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "two.conll"
    >>> _ = p.write_text("John B-PER B-PER\\nSmith I-PER O\\nruns O O\\n")
    >>> read_conll(p, annotators=["a", "b"]).frame[["start", "end", "label", "annotator"]]
       start  end label annotator
    0      0    1   PER         b
    1      0    2   PER         a
    """
    files = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    parts = []
    for fi, path in enumerate(files):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file.")
        docs: list[list[list[str]]] = []  # documents of tag rows (one list of columns a token)
        doc_rows: list[list[str]] = []
        sentence_docs = True
        width = None
        lines = path.read_text(encoding="utf-8").splitlines()
        for ln, line in enumerate(lines, 1):
            cols = line.split()
            if not cols:
                if doc_rows and sentence_docs:
                    docs.append(doc_rows)
                    doc_rows = []
                continue
            if cols[0] == "-DOCSTART-":
                sentence_docs = False
                if doc_rows:
                    docs.append(doc_rows)
                doc_rows = []
                continue
            if width is None:
                width = len(cols)
                if width < token_column + 2:
                    raise ValueError(f"{path}, line {ln}: a token and at least one tag column "
                                     f"are needed; the line has {width} column(s).")
            elif len(cols) != width:
                raise ValueError(f"{path}, line {ln}: {len(cols)} columns where the file's "
                                 f"first token line has {width} (a ragged column).")
            doc_rows.append(cols)
        if doc_rows:
            docs.append(doc_rows)
        if width is None:
            raise ValueError(f"{path}: no token lines.")
        n_tags = width - token_column - 1
        if len(files) > 1:
            names = [annotators[fi] if annotators is not None else path.stem]
            tag_cols = [width - 1]
        else:
            names = list(annotators) if annotators is not None else [
                f"annotator{j + 1}" for j in range(n_tags)]
            if len(names) != n_tags:
                raise ValueError(f"{path}: {n_tags} tag column(s) for {len(names)} annotator "
                                 "name(s).")
            tag_cols = list(range(token_column + 1, width))
        rows = []
        coverage = []
        lengths = {}
        for di, doc in enumerate(docs):
            doc_id = f"{path.stem}:{di + 1}" if len(files) == 1 else di + 1
            lengths[doc_id] = len(doc)
            for name, col in zip(names, tag_cols, strict=True):
                coverage.append((name, doc_id))
                tags = [r[col] for r in doc]
                for start, end, label in decode_tags(tags, scheme=scheme,
                                                     where=f"{path}, document {di + 1}"):
                    rows.append((doc_id, start, end, label, name))
        frame = pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"])
        parts.append(Spans(frame, coverage=coverage, unit="token", lengths=lengths))
    return Spans.concat(parts)


def read_brat(folder: str | Path, *, annotator: Any) -> Spans:
    """brat standoff: ``NAME.ann`` files (with ``NAME.txt`` beside) of one annotator.

    ``T`` lines (``T1<TAB>Label start end<TAB>text``) are spans; a discontinuous span
    (``start end;start end``) becomes one span per fragment. Other annotation lines
    (relations, events, notes) are skipped. Offsets are characters; a span beyond the
    end of its ``.txt`` is refused.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from agreement.spans import read_brat
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "doc1.txt").write_text("Ada Lovelace met Babbage.")
    >>> _ = (d / "doc1.ann").write_text("T1\\tPER 0 12\\tAda Lovelace\\nT2\\tPER 17 24\\tBabbage\\n")
    >>> read_brat(d, annotator="ann1").frame[["document", "start", "end", "label"]]
      document  start  end label
    0     doc1      0   12   PER
    1     doc1     17   24   PER
    """
    folder = Path(folder)
    anns = sorted(folder.glob("*.ann"))
    if not anns:
        raise ValueError(f"{folder}: no .ann files.")
    rows, coverage, lengths = [], [], {}
    for ann in anns:
        doc = ann.stem
        txt = ann.with_suffix(".txt")
        length = len(txt.read_text(encoding="utf-8")) if txt.is_file() else None
        if length is not None:
            lengths[doc] = length
        coverage.append((annotator, doc))
        seen: set[str] = set()
        for ln, line in enumerate(ann.read_text(encoding="utf-8").splitlines(), 1):
            if not line.startswith("T"):
                continue
            parts = line.split("\t")
            if len(parts) < 2:
                raise ValueError(f"{ann}, line {ln}: a T line needs an id, a tab, then "
                                 "'Label start end'.")
            tid = parts[0]
            if tid in seen:
                raise ValueError(f"{ann}, line {ln}: the id {tid} is used twice.")
            seen.add(tid)
            label, _, offsets = parts[1].partition(" ")
            for frag in offsets.split(";"):
                try:
                    start, end = (int(v) for v in frag.split())
                except ValueError:
                    raise ValueError(f"{ann}, line {ln}: offsets {frag!r} are not two "
                                     "whole numbers.") from None
                if length is not None and end > length:
                    raise ValueError(f"{ann}, line {ln}: the span ends at {end}, past the "
                                     f"{length} characters of {txt.name}.")
                if end <= start:
                    raise ValueError(f"{ann}, line {ln}: the span [{start}, {end}) is empty.")
                rows.append((doc, start, end, label, annotator))
    frame = pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"])
    return Spans(frame, coverage=coverage, unit="char", lengths=lengths)


def read_labelstudio(path: str | Path) -> Spans:
    """A Label Studio JSON export: tasks, each with its annotators' ``annotations``.

    Span results (``type`` "labels", ``value`` with ``start``, ``end``, ``labels``) of
    every annotation count; the annotator is ``completed_by`` (its ``email`` or ``id``).
    A task without annotations is refused with its id (an export of unfinished work).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from agreement.spans import read_labelstudio
    >>> task = {"id": 7, "data": {"text": "Ada met Babbage"}, "annotations": [
    ...     {"completed_by": 1, "result": [{"type": "labels", "value": {
    ...         "start": 0, "end": 3, "labels": ["PER"]}}]},
    ...     {"completed_by": 2, "result": []}]}
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "export.json"
    >>> _ = p.write_text(json.dumps([task]))
    >>> s = read_labelstudio(p)
    >>> len(s), s.annotators
    (1, [1, 2])
    """
    path = Path(path)
    try:
        tasks = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg}, line {exc.lineno}).") from None
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: a Label Studio export is a list of tasks.")
    rows, coverage, lengths = [], [], {}
    for t, task in enumerate(tasks):
        tid = task.get("id", t + 1)
        anns = task.get("annotations") or task.get("completions")
        if not anns:
            raise ValueError(f"{path}: task {tid} has no annotations (export completed tasks "
                             "only, or drop it).")
        text = (task.get("data") or {}).get("text")
        if isinstance(text, str):
            lengths[tid] = len(text)
        for ann in anns:
            who = ann.get("completed_by")
            if isinstance(who, dict):
                who = who.get("email") or who.get("id")
            coverage.append((who, tid))
            for res in ann.get("result", []):
                if res.get("type") not in ("labels", None):
                    continue
                v = res.get("value", {})
                if "start" not in v or "end" not in v:
                    continue
                start, end = int(v["start"]), int(v["end"])
                if text is not None and end > len(text):
                    raise ValueError(f"{path}: task {tid}: a span ends at {end}, past the "
                                     f"{len(text)} characters of its text.")
                for label in v.get("labels", []):
                    rows.append((tid, start, end, label, who))
    frame = pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"])
    return Spans(frame, coverage=coverage, unit="char", lengths=lengths)


def read_jsonl(path: str | Path, *, annotator: Any = None) -> Spans:
    """doccano or Prodigy JSONL: one document a line.

    doccano: ``{"id", "text", "label": [[start, end, label], ...]}`` (or
    ``"entities"``: ``{"start_offset", "end_offset", "label"}``), one file per
    annotator (``annotator``). Prodigy: ``{"text", "spans": [{"start", "end",
    "label"}], "_annotator_id", "_input_hash", "answer"}``; rejected or ignored
    answers are skipped.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from agreement.spans import read_jsonl
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "doccano.jsonl"
    >>> _ = p.write_text('{"id": 1, "text": "Ada met Babbage", "label": [[0, 3, "PER"]]}\\n')
    >>> read_jsonl(p, annotator="ann1").frame.values.tolist()
    [[1, 0, 3, 'PER', 'ann1']]
    """
    path = Path(path)
    rows, coverage, lengths = [], [], {}
    for ln, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}, line {ln}: not JSON ({exc.msg}).") from None
        if rec.get("answer", "accept") != "accept":
            continue
        doc = rec.get("id", rec.get("_input_hash", ln))
        who = rec.get("_annotator_id", annotator)
        if who is None:
            raise ValueError(f"{path}, line {ln}: no annotator (no _annotator_id); pass "
                             "`annotator=`.")
        coverage.append((who, doc))
        text = rec.get("text")
        if isinstance(text, str):
            if lengths.setdefault(doc, len(text)) != len(text):
                raise ValueError(f"{path}, line {ln}: document {doc!r} has {len(text)} "
                                 f"characters here and {lengths[doc]} on an earlier line.")
        spans = []
        if "spans" in rec:
            spans = [(s.get("start"), s.get("end"), s.get("label")) for s in rec["spans"]]
        elif "label" in rec and isinstance(rec["label"], list):
            spans = [tuple(x) for x in rec["label"]]
        elif "entities" in rec:
            spans = [(e.get("start_offset"), e.get("end_offset"), e.get("label"))
                     for e in rec["entities"]]
        for s in spans:
            if len(s) != 3 or s[0] is None or s[1] is None:
                raise ValueError(f"{path}, line {ln}: a span needs start, end and label; got "
                                 f"{s!r}.")
            start, end, label = int(s[0]), int(s[1]), s[2]
            if text is not None and end > len(text):
                raise ValueError(f"{path}, line {ln}: a span ends at {end}, past the "
                                 f"{len(text)} characters of the text.")
            rows.append((doc, start, end, label, who))
    frame = pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"])
    return Spans(frame, coverage=coverage, unit="char", lengths=lengths)
