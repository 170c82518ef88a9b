"""Reading one table from a file for a verb: the suffixes it knows (``.csv``, ``.tsv``,
``.txt``, each optionally compressed; ``.parquet``; ``.jsonl``/``.ndjson``), the separator,
and every failure (missing, empty, binary, not UTF-8, malformed JSON lines) as a
:class:`~goldnoise._cli._errors.DataError` in one line.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from goldnoise._cli._errors import DataError, UsageError

__all__ = ["SUFFIXES", "not_utf8", "read_table"]

SUFFIXES = ".csv, .tsv, .txt (each also .gz), .parquet, .jsonl or .ndjson"


def _compression_free_suffix(path: Path) -> tuple[str, str | None]:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zst", ".zip"):
        return (suffixes[-2] if len(suffixes) > 1 else ""), suffixes[-1]
    return (suffixes[-1] if suffixes else ""), None


def _sep_of(text: str | None) -> str | None:
    if text is None:
        return None
    return {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(text, text)


def read_table(path: Path, *, sep: str | None = None) -> Any:
    """Read ``path`` into a DataFrame; every failure is a :class:`DataError` in one line."""
    import pandas as pd

    if not path.exists():
        raise DataError(f"no such file: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a file of ratings")
    suffix, compression = _compression_free_suffix(path)
    if path.stat().st_size == 0:
        raise DataError(f"{path} is empty")
    if suffix in (".csv", ".tsv", ".txt", ".jsonl", ".ndjson") and compression is None:
        with open(path, "rb") as fh:
            head = fh.read(8192)
        if b"\x00" in head:
            raise DataError(f"{path} is not a text table (it holds binary data)")
    sep = _sep_of(sep)
    try:
        if suffix == ".parquet":
            return pd.read_parquet(path)
        if suffix in (".jsonl", ".ndjson"):
            _check_json_lines(path)
            return pd.read_json(path, lines=True)
        if suffix in (".csv", ".tsv", ".txt"):
            default = {".csv": ",", ".tsv": "\t", ".txt": None}[suffix]
            use = sep if sep is not None else default
            frame = _read_csv(path, use)
            if sep is None and use is not None:
                _separator_hint(frame, path, use)
            return frame
    except pd.errors.EmptyDataError:
        raise DataError(f"{path} has no columns (is it empty?)") from None
    except UnicodeDecodeError as exc:
        raise DataError(not_utf8(path, exc)) from None
    except pd.errors.ParserError as exc:
        raise DataError(f"could not read {path}: {_ragged_hint(_one_line(exc))}") from None
    except EOFError:
        raise DataError(f"could not read {path}: the compressed file ends early (truncated "
                        "download or copy?); fetch it again") from None
    except (ValueError, OSError, ImportError) as exc:
        raise DataError(f"could not read {path}: {_one_line(exc)}") from None
    raise UsageError(f"unsupported file type {suffix or path.name!r}: use {SUFFIXES}")


def _ragged_hint(text: str) -> str:
    """pandas' "Expected 3 fields in line 4, saw 4" as what is wrong there and the fix."""
    found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", text)
    if not found:
        return text
    want, line, saw = found.groups()
    return (f"line {line} has {saw} fields where the header has {want}: quote a value "
            "that holds the separator (\"a, b\") or remove the stray separator on that "
            "line (or pass --sep if the file uses another separator)")


def _read_csv(path: Path, sep: str | None) -> Any:
    """``pd.read_csv`` that refuses a first data line with more fields than the header.

    pandas would take the extra leading fields as row names and shift every column's
    values one name along (a stray separator, or row names without a header); later lines
    with too many fields are its own ParserError (see :func:`_ragged_hint`).
    """
    import warnings

    import pandas as pd

    kw = {"sep": None, "engine": "python"} if sep is None else {"sep": sep}
    with warnings.catch_warnings():
        # pandas' words for it under index_col=False (it would drop the extra fields);
        # its other parser warnings (a separator only its Python engine reads) stay warnings
        warnings.filterwarnings("error", message="Length of header or names does not match",
                                category=pd.errors.ParserWarning)
        try:
            return pd.read_csv(path, index_col=False, **kw)
        except pd.errors.ParserWarning:
            want = len(pd.read_csv(path, nrows=0, **kw).columns)
            raise DataError(f"could not read {path}: its first data line has more fields than "
                            f"the {want} of the header: quote a value that holds the "
                            "separator (\"a, b\"), remove the stray separator, or name every "
                            "column in the header (row names too; or pass --sep if the file "
                            "uses another separator)") from None


def _separator_hint(frame: Any, path: Path, used: str) -> None:
    """One column whose name holds another separator: the file is split by that one."""
    if frame.shape[1] != 1:
        return
    name = str(frame.columns[0])
    for other, say in ((";", "';'"), ("\t", "'\\t'"), ("|", "'|'"), (",", ",")):
        if other != used and other in name:
            raise DataError(f"{path} reads as one column named {name[:40]!r}: its fields "
                            f"look separated by {other!r}, not {used!r}; add --sep {say}")


def not_utf8(path: Path, exc: UnicodeDecodeError) -> str:
    """Where a file stops being UTF-8 text, as a line and column, and how to convert it."""
    where = ""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        data.decode("utf-8")
    except UnicodeDecodeError as first:  # the first undecodable byte of the whole file
        at = first.start
        line = data.count(b"\n", 0, at) + 1
        col = at - (data.rfind(b"\n", 0, at) + 1) + 1
        where = f" (byte 0x{data[at:at + 1].hex()} on line {line}, column {col})"
    except OSError:
        pass
    return (f"{path} is not UTF-8 text{where}: save it as UTF-8 (from Latin-1: iconv -f "
            f"latin1 -t utf-8 {shlex.quote(str(path))} > new{path.suffix})")


def _check_json_lines(path: Path) -> None:
    """One JSON object per line, or a one-line error naming the line."""
    import json

    with open(path, encoding="utf-8") as fh:
        for number, text in enumerate(fh, 1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except ValueError:
                raise DataError(f"{path}, line {number}: not JSON (expected one JSON object "
                                f"per line): {text.strip()[:40]!r}") from None
            if not isinstance(record, dict):
                raise DataError(f"{path}, line {number}: a JSON {type(record).__name__}, not an "
                                "object (expected one {\"column\": value, ...} per line)")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    text = re.sub(r"^Error tokenizing data\. C error: ", "", text)
    return text[:300]
