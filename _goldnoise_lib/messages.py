"""Helpers of error messages about input: a few offending values, a JSON value's shape,
a file's text refused with the line and byte that are not UTF-8.

Used by the readers of every package (score files, span files, annotation exports), so
that a message names the problem the same way wherever the input came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["few", "json_shape", "utf8_text"]

# How many offending ids or rows an error message names.
SHOWN = 5


def few(values: Sequence[Any] | np.ndarray, total: int | None = None) -> str:
    """A short list of offending ids or rows for an error message."""
    vals = list(values[:SHOWN])
    total = len(values) if total is None else total
    text = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in vals)
    more = f" and {total - len(vals)} more" if total > len(vals) else ""
    return f"{text}{more}"


def utf8_text(path: Path) -> str:
    """The file's text; a file that is not UTF-8 is refused naming its line and byte."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raw = path.read_bytes()
        line = raw[:exc.start].count(b"\n") + 1
        raise ValueError(f"{path}, line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                         "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8).") from None


def json_shape(value: Any) -> str:
    """A short description of a JSON value for messages: ``5 (a number)``, ``a list``."""
    kinds = {dict: "an object", list: "a list", str: "text", bool: "true/false",
             type(None): "null", int: "a number", float: "a number"}
    kind = kinds.get(type(value), type(value).__name__)
    if isinstance(value, (dict, list)):
        return kind
    short = not isinstance(value, str) or len(value) < 40
    text = repr(value) if short else repr(value[:37]) + "…"
    return f"{text} ({kind})"
