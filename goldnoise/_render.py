"""The one place a result becomes a report section, for every verb.

:func:`section_from_result` builds a :class:`~goldnoise.report.Section` from a result of
the library: its values from the result's ``to_dict()`` (all but ``exclude``) or from the
names given (read off the result), its notes, the verb's sentences; :func:`report_table` turns
the rows of a frame (a result's ``to_frame()`` or another of its frames) or a list of
records into a :class:`~goldnoise.report.Table` with its display columns. A section the
data do not allow says why (``undefined=``). The verbs of the command line and the
audit's sections build their sections here and nowhere else (a test scans them), so
that a section reads the same way whatever verb writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from goldnoise.report import Column, Figure, Section, Table

__all__ = ["report_table", "section_from_result"]


def report_table(key: str, columns: Sequence[Column], rows: Any, title: str | None = None,
                 shown: int | None = None) -> Table:
    """A table of ``rows``: a list of records, or a DataFrame (its records, index dropped:
    reset the index first to show it)."""
    if hasattr(rows, "to_dict") and not isinstance(rows, Mapping):
        rows = rows.to_dict(orient="records")
    return Table(key, list(columns), list(rows), title=title, shown=shown)


def section_from_result(result: Any, key: str, title: str, *,
                        values: Mapping[str, Any] | Sequence[str] = (),
                        exclude: Iterable[str] | None = None, lines: Iterable[str] = (),
                        tables: Iterable[Table] = (), figures: Iterable[Figure] = (),
                        notes: Iterable[str] = (), undefined: str | None = None) -> Section:
    """The section ``key`` of a report, built from ``result``.

    Parameters
    ----------
    result : Result or None
        A result of the library (the result protocol: ``to_dict()``, ``to_frame()``,
        ``summary()``), or None for a section built from values alone.
    key, title : str
        The section's key (JSON) and title.
    values : mapping or sequence of str
        Values to record: a mapping as it is, or names read off ``result`` (in that
        order). Added after those of ``exclude``.
    exclude : iterable of str, optional
        Record ``result.to_dict()``, less these keys (``()``: all of it).
    lines, tables, figures, notes
        The verb's sentences, its tables (:func:`report_table`), figures and notes.
    undefined : str, optional
        The section is not defined on these data, for this reason (what is given
        besides is kept).

    Returns
    -------
    Section
    """
    s = Section(key, title)
    if exclude is not None:
        dropped = set(exclude)
        s.values.update({k: v for k, v in result.to_dict().items() if k not in dropped})
    if isinstance(values, Mapping):
        s.values.update(values)
    else:
        s.values.update({name: getattr(result, name) for name in values})
    s.lines += list(lines)
    s.tables += list(tables)
    s.figures += list(figures)
    s.notes += list(notes)
    return s if undefined is None else s.undefined(undefined)
