"""Reading span annotations: CoNLL/BIO columns, brat standoff, Label Studio, doccano, Prodigy.

Every reader returns :class:`~agreement.spans.Spans` and refuses malformed input
with a one-line :class:`ValueError` naming the file, the line (or task and
annotation), what it found and the shape it expected: offsets are whole numbers
(``Spans`` refuses fractional ones, so the readers do too, rather than truncate
them), labels are text, files are UTF-8.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from _goldnoise_lib.errors import GoldnoiseWarning
from _goldnoise_lib.messages import json_shape as _shape
from _goldnoise_lib.messages import utf8_text as _text
from agreement.spans._spans import MAX_OFFSET, Spans

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
    orphans: list[tuple[int, str]] = []
    foreign: list[tuple[int, str]] = []
    spans = _decode(tags, scheme, where, orphans, foreign)
    if foreign:
        warnings.warn(_foreign_message(where, foreign), GoldnoiseWarning, stacklevel=2)
    for i, tag in orphans:
        label = tag.partition("-")[2]
        warnings.warn(f"{where}: token {i + 1} ({tag}) continues no {label} span; read "
                      f"as B-{label}.", GoldnoiseWarning, stacklevel=2)
    return spans


def _foreign_message(where: str, foreign: list[tuple[int, str]]) -> str:
    i, tag = foreign[0]
    return (f"{where}: {len(foreign)} tag(s) of the BIOES scheme (first: token {i + 1}, "
            f"{tag}) read under the BIO scheme (S- as a one-token span, E- as a span's end); "
            "if the tags are BIOES, say so: `scheme='BIOES'`.")


def _decode(tags: Sequence[str], scheme: str, where: str,
            orphans: list[tuple[int, str]],
            foreign: list[tuple[int, str]] | None = None) -> list[tuple[int, int, str]]:
    """:func:`decode_tags` without its warnings: each ``I-``/``E-`` tag that continues
    no span is appended to ``orphans`` as ``(token index, tag)``, and with the BIO scheme
    each ``S-``/``E-`` tag (BIOES's) to ``foreign``."""
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
        if scheme == "BIO" and prefix in ("E", "S") and foreign is not None:
            foreign.append((i, tag))
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
                orphans.append((i, tag))
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


_TAG = re.compile(r"^(O|[BIESLU]-.+)$")


def _offset(value: Any, where: str, what: str = "an offset") -> int:
    """A whole, non-negative offset within :data:`MAX_OFFSET`; else a one-line refusal."""
    ok = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value) and value == math.floor(value))
    if not ok:
        raise ValueError(f"{where}: {what} is {_shape(value)}; expected a whole number of "
                         "characters (offsets are not rounded).")
    if not 0 <= value <= MAX_OFFSET:
        raise ValueError(f"{where}: {what} is {value:g}; expected a whole number from 0 to "
                         f"the length of the text.")
    return int(value)


def _label(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: a label is {_shape(value)}; expected a label name (text) "
                         "such as \"PER\".")
    return value


def _doc_id(value: Any, where: str, what: str = "the id") -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{where}: {what} is {_shape(value)}; expected a number or text.")
    return value


def _span(start: Any, end: Any, label: Any, where: str, text: str | None
          ) -> tuple[int, int, str]:
    s = _offset(start, where, "a span's start")
    e = _offset(end, where, "a span's end")
    lab = _label(label, where)
    if e <= s:
        raise ValueError(f"{where}: the span [{s}, {e}) is empty or reversed; a span ends "
                         "after it starts.")
    if text is not None and e > len(text):
        raise ValueError(f"{where}: a span ends at {e}, past the {len(text)} characters of "
                         "the text.")
    return s, e, lab


def read_conll(paths: str | Path | Sequence[str | Path], *, annotators: Sequence[Any] | None = None,
               scheme: str = "BIO", token_column: int = 0,
               tag_column: int | Sequence[int] | None = None) -> Spans:
    """CoNLL-style files: one token per line, blank lines between sentences.

    Which columns are annotators:

    * ``tag_column`` given: those columns (0 is the first; ``-1`` the last), one
      annotator each, in every file.
    * several files: the last column of each file, one annotator a file (CoNLL-2003's
      ``token POS chunk NER`` files read as their NER tags).
    * one file: each column after ``token_column`` is one annotator's tags — unless
      one name is given in ``annotators``, or the file has CoNLL-2003's four columns
      (token, POS, chunk, NER: three columns after the token, the first of which
      holds no tag such as ``O`` or ``B-X``); then the file is one annotation, in its
      last column.

    A ``-DOCSTART-`` line starts a new document; without any, each sentence is a
    document. Offsets are token positions within the document; tags are decoded
    sentence by sentence (:func:`decode_tags`), so no span crosses a blank line, as
    CoNLL's evaluation reads them. An ``I-`` tag that continues no span starts one:
    the IOB1 tagging of the original CoNLL-2003 files reads as published (one warning
    a file says how many such tags it holds). The tags as written and the sentences'
    lengths are kept (``Spans.tags``, ``Spans.sentences``).

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
    >>> q = p.with_name("conll2003.txt")    # token, POS, chunk, NER
    >>> _ = q.write_text("-DOCSTART- -X- -X- O\\n\\nEU NNP B-NP B-ORG\\nrejects VBZ B-VP O\\n")
    >>> read_conll(q).frame[["start", "end", "label", "annotator"]]
       start  end label annotator
    0      0    1   ORG conll2003
    """
    files = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    cols_given = _tag_columns_iv(tag_column, len(files))
    if annotators is not None and len(files) > 1 and len(annotators) != len(files):
        raise ValueError(f"{len(annotators)} annotator name(s) for {len(files)} files.")
    parts = []
    for fi, path in enumerate(files):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file.")
        docs, doc_sents, width, first_line = _conll_documents(path, token_column)
        tag_cols, names = _conll_columns(path, docs, width, first_line, token_column,
                                         cols_given, len(files) > 1,
                                         None if annotators is None else list(annotators), fi)
        rows = []
        coverage = []
        lengths = {}
        tags_of = {}
        seen_tags: dict[str, str] = {}  # one string object per distinct tag
        sentences = {}
        orphans: dict[Any, tuple[int, int, str]] = {}
        orphan_count: dict[Any, int] = {}
        foreign_first: dict[Any, tuple[int, int, str]] = {}
        foreign_count: dict[Any, int] = {}
        for di, doc in enumerate(docs):
            doc_id = f"{path.stem}:{di + 1}" if len(files) == 1 else di + 1
            lengths[doc_id] = len(doc)
            sentences[doc_id] = tuple(doc_sents[di])
            for name, col in zip(names, tag_cols, strict=True):
                coverage.append((name, doc_id))
                tags = [r[col] for r in doc]
                tags_of[(name, doc_id)] = tuple(map(seen_tags.setdefault, tags, tags))
                found: list[tuple[int, str]] = []
                offset = 0
                for n_tok in doc_sents[di]:  # a span never crosses a sentence boundary
                    part: list[tuple[int, str]] = []
                    alien: list[tuple[int, str]] = []
                    for start, end, label in _decode(tags[offset:offset + n_tok], scheme,
                                                     f"{path}, document {di + 1}", part,
                                                     alien):
                        rows.append((doc_id, offset + start, offset + end, label, name))
                    found += [(offset + i, tag) for i, tag in part]
                    if alien and name not in foreign_first:
                        foreign_first[name] = (di + 1, offset + alien[0][0], alien[0][1])
                    foreign_count[name] = foreign_count.get(name, 0) + len(alien)
                    offset += n_tok
                if found and name not in orphans:
                    orphans[name] = (di + 1, *found[0])
                orphan_count[name] = orphan_count.get(name, 0) + len(found)
        _warn_conll(path, len(names) > 1, orphans, orphan_count, foreign_first, foreign_count)
        frame = pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"])
        parts.append(Spans(frame, coverage=coverage, unit="token", lengths=lengths,
                           tags=tags_of, sentences=sentences))
    return Spans.concat(parts)


def _tag_columns_iv(tag_column: Any, n_files: int) -> list[int] | None:
    """``tag_column`` as a list of column numbers (None: not given), checked."""
    if tag_column is None:
        return None
    cols_given = [tag_column] if isinstance(tag_column, int) else list(tag_column)
    if not cols_given or any(isinstance(c, bool) or not isinstance(c, int)
                             for c in cols_given):
        raise ValueError(f"`tag_column` must be a column number (0 the first, -1 the "
                         f"last) or a list of them; got {tag_column!r}.")
    if n_files > 1 and len(cols_given) != 1:
        raise ValueError("with one file per annotator, `tag_column` names one column.")
    return cols_given


def _conll_documents(path: Path, token_column: int
                     ) -> tuple[list[list[list[str]]], list[list[int]], int, int]:
    """A CoNLL file's documents (each a list of token rows, a row its columns), each
    document's sentence lengths, the number of columns and the first token line."""
    docs: list[list[list[str]]] = []  # documents of tag rows (one list of columns a token)
    doc_rows: list[list[str]] = []
    doc_sents: list[list[int]] = []
    sents: list[int] = []
    sentence_docs = True
    width = None
    first_line = 0
    lines = _text(path).splitlines()

    def end_sentence(doc_rows: list, sents: list[int], sent_start: list[int]) -> None:
        n = len(doc_rows) - sent_start[0]
        if n:
            sents.append(n)
            sent_start[0] = len(doc_rows)

    sent_start = [0]  # tokens of the document before the current sentence
    for ln, line in enumerate(lines, 1):
        cols = line.split()
        if not cols:
            if doc_rows and sentence_docs:
                docs.append(doc_rows)
                doc_sents.append([len(doc_rows)])
                doc_rows, sents, sent_start[0] = [], [], 0
            elif doc_rows:
                end_sentence(doc_rows, sents, sent_start)
            continue
        if cols[0] == "-DOCSTART-":
            sentence_docs = False
            if doc_rows:
                end_sentence(doc_rows, sents, sent_start)
                docs.append(doc_rows)
                doc_sents.append(sents)
            doc_rows, sents, sent_start[0] = [], [], 0
            continue
        if width is None:
            width, first_line = len(cols), ln
            if width < token_column + 2:
                raise ValueError(f"{path}, line {ln}: a token and at least one tag column "
                                 f"are needed; the line has {width} column(s).")
        elif len(cols) != width:
            raise ValueError(f"{path}, line {ln}: {len(cols)} columns where the file's "
                             f"first token line has {width} (a ragged column).")
        doc_rows.append(cols)
    if doc_rows:
        if not sentence_docs:
            end_sentence(doc_rows, sents, sent_start)
        docs.append(doc_rows)
        doc_sents.append(sents if not sentence_docs else [len(doc_rows)])
    if width is None:
        raise ValueError(f"{path}: no token lines.")
    return docs, doc_sents, width, first_line


def _conll_columns(path: Path, docs: list, width: int, first_line: int, token_column: int,
                   cols_given: list[int] | None, several_files: bool,
                   annotators: list[Any] | None, fi: int) -> tuple[list[int], list[Any]]:
    """The tag columns of file number ``fi`` and their annotators' names (see
    :func:`read_conll` for which columns are annotators)."""
    after = list(range(token_column + 1, width))
    if cols_given is not None:
        tag_cols = []
        for c in cols_given:
            if not -width <= c < width or c % width == token_column:
                raise ValueError(f"{path}: `tag_column` {c} is not a tag column of the "
                                 f"file's {width} columns (token in column "
                                 f"{token_column}; line {first_line}).")
            tag_cols.append(c % width)
    elif several_files:
        tag_cols = [width - 1]
    elif annotators is not None and len(annotators) == 1:
        tag_cols = [width - 1]
    elif width - token_column == 4 and not any(
            _TAG.match(r[token_column + 1]) for d in docs for r in d):
        tag_cols = [width - 1]  # CoNLL-2003: token, POS, chunk, NER
    else:
        tag_cols = after
    if several_files:
        names = [annotators[fi] if annotators is not None else path.stem]
    elif annotators is not None:
        names = list(annotators)
    elif len(tag_cols) == 1:
        names = [path.stem]
    else:
        names = [f"annotator{j + 1}" for j in range(len(tag_cols))]
    if len(names) != len(tag_cols):
        raise ValueError(f"{path}: {len(tag_cols)} tag column(s) for {len(names)} annotator "
                         "name(s) (name one per tag column, or choose the columns with "
                         "`tag_column`).")
    return tag_cols, names


def _warn_conll(path: Path, several: bool, orphans: dict, orphan_count: dict,
                foreign_first: dict, foreign_count: dict) -> None:
    """One warning a tag column for its I- tags that continue no span, and one for its
    tags of the BIOES scheme read under BIO."""
    for name, (doc_no, i, tag) in orphans.items():
        label = tag.partition("-")[2]
        who = f" (tag column of {name!r})" if several else ""
        warnings.warn(
            f"{path}{who}: {orphan_count[name]} I- tag(s) continue no span of their "
            f"label (first: document {doc_no}, token {i + 1}, {tag}); each is read as "
            f"the start of a span (B-{label}), as CoNLL's evaluation reads them — the "
            "IOB1 tagging of the original CoNLL-2003 files, where B- only separates "
            "two adjacent spans of one label, is read correctly this way.",
            GoldnoiseWarning, stacklevel=3)
    for name, (doc_no, i, tag) in foreign_first.items():
        who = f" (tag column of {name!r})" if several else ""
        warnings.warn(
            f"{path}{who}: {foreign_count[name]} tag(s) of the BIOES scheme (first: "
            f"document {doc_no}, token {i + 1}, {tag}) read under the BIO scheme (S- as a "
            "one-token span, E- as a span's end); if the tags are BIOES, say so: "
            "`scheme='BIOES'`.", GoldnoiseWarning, stacklevel=3)


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
        length = len(_text(txt)) if txt.is_file() else None
        if length is not None:
            lengths[doc] = length
        coverage.append((annotator, doc))
        seen: set[str] = set()
        for ln, line in enumerate(_text(ann).splitlines(), 1):
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
            if not label.strip() or (label.isdigit() and len(offsets.split()) == 1):
                raise ValueError(f"{ann}, line {ln}: no label before the offsets "
                                 f"({parts[1]!r}); a T line is 'T1<TAB>Label start end'.")
            for frag in offsets.split(";"):
                try:
                    start, end = (int(v) for v in frag.split())
                except ValueError:
                    raise ValueError(f"{ann}, line {ln}: offsets {frag!r} are not two "
                                     "whole numbers.") from None
                for v, what in ((start, "the start"), (end, "the end")):
                    if v > MAX_OFFSET:
                        raise ValueError(f"{ann}, line {ln}: {what} {v} is beyond any text; "
                                         "offsets are characters of the .txt.")
                if length is not None and end > length:
                    raise ValueError(f"{ann}, line {ln}: the span ends at {end}, past the "
                                     f"{length} characters of {txt.name}.")
                if end <= start:
                    raise ValueError(f"{ann}, line {ln}: the span [{start}, {end}) is empty.")
                rows.append((doc, start, end, label, annotator))
    frame = pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"])
    return Spans(frame, coverage=coverage, unit="char", lengths=lengths)


_LS_SOURCES = ("annotations", "drafts", "predictions")


class _Tally:
    """What a Label Studio reader left out, for one warning at the end."""

    def __init__(self) -> None:
        self.cancelled = 0
        self.empty = {"drafts": 0, "predictions": 0}
        self.unread = {"drafts": 0, "predictions": 0}

    def warn(self, path: Path) -> None:
        said = []
        if self.cancelled:
            said.append(f"{self.cancelled} annotation(s) marked skipped (was_cancelled) are "
                        "left out: a skipped task was not annotated")
        for kind in ("drafts", "predictions"):
            if self.unread[kind]:
                said.append(f"{self.unread[kind]} {kind[:-1]}(s) with spans are not read (not "
                            f"an annotator's submitted work; include=(..., {kind!r}) reads "
                            "them)")
            if self.empty[kind]:
                said.append(f"{self.empty[kind]} empty {kind[:-1]}(s) are left out")
        if said:
            warnings.warn(f"{path}: " + "; ".join(said) + ".", GoldnoiseWarning, stacklevel=3)


def _ls_task(task: Any, where: str, include: tuple[str, ...], tally: _Tally, rows: list,
             coverage: list, lengths: dict, default_id: Any, *, line: bool = False) -> None:
    """One Label Studio task (a JSON export's element, or a JSONL ``line``) into rows."""
    if not isinstance(task, dict):
        raise ValueError(f"{where}: a task is {_shape(task)}; expected an object with 'data' "
                         "and 'annotations'.")
    tid = _doc_id(task.get("id", default_id), where, "the task id")
    if line:
        where = f"{where} (task {tid})"
    data = task.get("data", {})
    if not isinstance(data, dict):
        raise ValueError(f"{where}: 'data' is {_shape(data)}; expected an object such as "
                         "{\"text\": \"...\"}.")
    text = data.get("text")
    if text is not None and not isinstance(text, str):
        raise ValueError(f"{where}: data.text is {_shape(text)}; expected the task's text.")
    if text is not None:
        lengths[tid] = len(text)
    found = False
    for source in _LS_SOURCES:
        keys = ("annotations", "completions") if source == "annotations" else (source,)
        anns = next((task[k] for k in keys if task.get(k)), None)
        if anns is None:
            continue
        if not isinstance(anns, list):
            raise ValueError(f"{where}: '{source}' is {_shape(anns)}; expected a list of "
                             "objects, each with 'completed_by' and 'result'.")
        for k, ann in enumerate(anns, 1):
            at = f"{where}, {source[:-1]} {k}"
            if not isinstance(ann, dict):
                raise ValueError(f"{at}: {_shape(ann)}; expected an object with "
                                 "'completed_by' and 'result'.")
            result = ann.get("result", [])
            if result is None:
                result = []
            if not isinstance(result, list):
                raise ValueError(f"{at}: 'result' is {_shape(result)}; expected a list of "
                                 "results.")
            if source == "annotations":
                if ann.get("was_cancelled"):
                    tally.cancelled += 1
                    continue
                who = ann.get("completed_by")
            else:
                if not result:
                    tally.empty[source] += 1
                    continue
                if source not in include:
                    tally.unread[source] += 1
                    continue
                if source == "drafts":
                    who = f"{ann.get('user', ann.get('completed_by'))} (draft)"
                else:
                    who = f"{ann.get('model_version') or 'model'} (prediction)"
            if isinstance(who, dict):
                who = who.get("email") or who.get("id")
            if who is None or isinstance(who, bool) or not isinstance(who, (int, str)):
                raise ValueError(f"{at}: 'completed_by' is {_shape(who)}; expected the "
                                 "annotator's id or {\"email\": ...}.")
            found = True
            coverage.append((who, tid))
            for r, res in enumerate(result, 1):
                rat = f"{at}, result {r}"
                if not isinstance(res, dict):
                    raise ValueError(f"{rat}: {_shape(res)}; expected an object with 'type' "
                                     "and 'value'.")
                kind = res.get("type")
                if kind not in ("labels", None):
                    continue
                v = res.get("value", {})
                if not isinstance(v, dict):
                    raise ValueError(f"{rat}: 'value' is {_shape(v)}; expected an object with "
                                     "'start', 'end' and 'labels'.")
                if "start" not in v or "end" not in v:
                    if kind == "labels":
                        raise ValueError(f"{rat}: a labels result without 'start' and 'end'; "
                                         "expected character offsets into data.text.")
                    continue
                for label in _labels(v.get("labels", []), rat):
                    rows.append((tid, *_span(v["start"], v["end"], label, rat, text), who))
    if not found and not any(task.get(k) for k in ("annotations", "completions")):
        raise ValueError(f"{where} has no annotations (export completed tasks only, or drop "
                         "it; drafts and predictions are read only with include=).")


def _labels(value: Any, where: str) -> list[str]:
    """A result's labels: a list of names, or one name as text (taken as one label)."""
    if isinstance(value, str):
        return [_label(value, where)]
    if not isinstance(value, list):
        raise ValueError(f"{where}: 'labels' is {_shape(value)}; expected a list of label "
                         "names such as [\"PER\"].")
    return [_label(x, where) for x in value]


def _check_include(include: Any) -> tuple[str, ...]:
    inc = (include,) if isinstance(include, str) else tuple(include)
    bad = [x for x in inc if x not in _LS_SOURCES]
    if bad or "annotations" not in inc:
        raise ValueError(f"`include` must list 'annotations' and any of 'drafts', "
                         f"'predictions'; got {include!r}.")
    return inc


def read_labelstudio(path: str | Path, *, include: Sequence[str] = ("annotations",)) -> Spans:
    """A Label Studio JSON export: tasks, each with its annotators' ``annotations``.

    Span results (``type`` "labels", ``value`` with ``start``, ``end``, ``labels``) of
    every annotation count; the annotator is ``completed_by`` (its ``email`` or ``id``).
    ``labels`` given as one name (``"PER"``) is that one label. Annotations marked
    skipped (``was_cancelled``) are left out, with a warning saying how many: a
    skipped task was not annotated, which is not "annotated, nothing marked". Drafts
    and predictions are not annotators' submitted work: they are read only when
    ``include`` names them (then as annotators "<user> (draft)" and "<model_version>
    (prediction)"), and empty ones never. A task without annotations is refused with
    its id (an export of unfinished work).

    Parameters
    ----------
    path : str or path
    include : sequence of {"annotations", "drafts", "predictions"}, default ("annotations",)

    Raises
    ------
    ValueError
        For a file that is not UTF-8 JSON of the export's shape, naming the file, the
        task, the annotation and result, and the shape expected.

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
    inc = _check_include(include)
    try:
        tasks = json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg}, line {exc.lineno}).") from None
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: the file holds {_shape(tasks)}; a Label Studio export is "
                         "a list of tasks.")
    rows, coverage, lengths = [], [], {}
    tally = _Tally()
    for t, task in enumerate(tasks):
        tid = task.get("id", t + 1) if isinstance(task, dict) else t + 1
        _ls_task(task, f"{path}: task {tid!r}" if not isinstance(tid, (int, str))
                 else f"{path}: task {tid}", inc, tally, rows, coverage, lengths, t + 1)
    tally.warn(path)
    frame = pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"])
    return Spans(frame, coverage=coverage, unit="char", lengths=lengths)


_JSONL_KEYS = ("spans", "label", "labels", "entities", "annotations")


def _jsonl_spans(rec: dict, key: str, where: str, text: str | None) -> list[tuple]:
    """The spans of a doccano, Prodigy or Label Studio (JSON-MIN) record's ``key``."""
    value = rec[key]
    expected = ("a list of spans, each [start, end, label] (doccano) or {start, end, label} "
                "(Prodigy, doccano entities) or {start, end, labels} (Label Studio)")
    if not isinstance(value, list):
        raise ValueError(f"{where}: '{key}' is {_shape(value)}; expected {expected}.")
    out = []
    for i, s in enumerate(value, 1):
        at = f"{where}, {key}[{i}]"
        if isinstance(s, list):
            if len(s) != 3:
                raise ValueError(f"{at}: a span needs start, end and label; got {s!r} "
                                 f"({len(s)} value(s)).")
            out.append(_span(s[0], s[1], s[2], at, text))
        elif isinstance(s, dict):
            start = s.get("start", s.get("start_offset"))
            end = s.get("end", s.get("end_offset"))
            if start is None or end is None or not ({"label", "labels"} & s.keys()):
                raise ValueError(f"{at}: a span needs start, end and label; got the keys "
                                 f"{sorted(s)}.")
            labels = _labels(s["labels"], at) if "labels" in s else [s["label"]]
            out.extend(_span(start, end, lab, at, text) for lab in labels)
        else:
            raise ValueError(f"{at}: {_shape(s)}; expected {expected}.")
    return out


def read_jsonl(path: str | Path, *, annotator: Any = None,
               include: Sequence[str] = ("annotations",)) -> Spans:
    """doccano, Prodigy or Label Studio JSONL: one document (or task) a line.

    Recognised shapes, by the key that holds the spans:

    * doccano: ``{"id", "text", "label": [[start, end, label], ...]}`` (older
      versions: ``"labels"``; with relations: ``"entities"``: ``{"start_offset",
      "end_offset", "label"}``), one file per annotator (``annotator``).
    * Prodigy: ``{"text", "spans": [{"start", "end", "label"}], "_annotator_id",
      "_input_hash", "answer"}``; rejected or ignored answers are skipped.
    * Label Studio: its JSON-MIN records (``"label": [{"start", "end", "labels"}]``,
      ``"annotator"``) or one full task a line (``"annotations"``, as
      :func:`read_labelstudio`).

    A record with none of these keys is refused, naming the keys it has (a record
    read as "no spans" would count as an annotator who saw the text and marked
    nothing).

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
    inc = _check_include(include)
    rows, coverage, lengths = [], [], {}
    tally = _Tally()
    for ln, line in enumerate(_text(path).splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}, line {ln}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not JSON ({exc.msg}).") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{where}: the line holds {_shape(rec)}; expected one record, a "
                             "JSON object such as {\"id\": 1, \"text\": \"...\", \"label\": "
                             "[[0, 3, \"PER\"]]}.")
        if "annotations" in rec or "completions" in rec:
            _ls_task(rec, where, inc, tally, rows, coverage, lengths, ln, line=True)
            continue
        if rec.get("answer", "accept") != "accept":
            continue
        key = next((k for k in _JSONL_KEYS if k in rec), None)
        if key is None:
            raise ValueError(f"{where}: no spans under a key this reader knows ("
                             f"{', '.join(_JSONL_KEYS)}); the record has the keys "
                             f"{', '.join(map(str, rec)) or 'none'}.")
        doc = _doc_id(rec.get("id", rec.get("_input_hash", ln)), where, "the document id")
        who = rec.get("_annotator_id", rec.get("annotator", annotator))
        if who is None:
            raise ValueError(f"{where}: no annotator (no _annotator_id); pass "
                             "`annotator=`.")
        if isinstance(who, bool) or not isinstance(who, (int, str)):
            raise ValueError(f"{where}: the annotator is {_shape(who)}; expected a name or id.")
        text = rec.get("text")
        if text is not None and not isinstance(text, str):
            raise ValueError(f"{where}: 'text' is {_shape(text)}; expected the document's "
                             "text.")
        if isinstance(text, str):
            if lengths.setdefault(doc, len(text)) != len(text):
                raise ValueError(f"{where}: document {doc!r} has {len(text)} characters "
                                 f"here and {lengths[doc]} on an earlier line.")
        coverage.append((who, doc))
        for start, end, label in _jsonl_spans(rec, key, where, text):
            rows.append((doc, start, end, label, who))
    tally.warn(path)
    frame = pd.DataFrame(rows, columns=["document", "start", "end", "label", "annotator"])
    return Spans(frame, coverage=coverage, unit="char", lengths=lengths)
