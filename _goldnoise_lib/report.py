"""The report every ``goldnoise`` verb returns, and its four renderings.

A verb never prints. It returns a :class:`Report`: a title, some
parameters, and :class:`Section` objects in reading order. A section holds

* ``lines`` -- prose for people, every number in it already formatted;
* ``values`` -- the same numbers, unformatted, under stable keys (what the
  JSON carries: every number a line shows is also a value);
* ``tables`` -- :class:`Table` objects (columns with a format, rows as dicts);
* ``notes`` -- one-line remarks (conventions, warnings turned into words);
* ``status`` -- ``"ok"``, or ``"undefined"`` with a ``reason`` in words when
  the data do not allow the section (the section still prints, saying why).

:func:`render` turns a report into ``text``, ``markdown``, ``json`` or ``csv``.

The one place a result becomes a report section, for every verb: :func:`section_from_result`
builds a :class:`Section` from a result of the library (its values from the result's
``to_dict()``, all but ``exclude``, or from the names given, read off the result; its notes;
the verb's sentences), and :func:`report_table` turns the rows of a frame (a result's
``to_frame()`` or another of its frames) or a list of records into a :class:`Table` with its
display columns. A section the data do not allow says why (``undefined=``). The verbs of the
command line, the audit's sections and the judge audit's report build their sections and
tables with these two and nowhere else (a test scans every package), so that a section reads
the same way whatever verb writes it; they live here, in the shared layer, so that a package
below ``goldnoise`` (``noise_models.judge``) builds its report the same way.

The JSON schema (``"schema": "goldnoise.report/1"``)
----------------------------------------------------
::

    {
      "schema": "goldnoise.report/1",
      "goldnoise_version": str,
      "command": str,                      # the verb: "audit", "plan", ...
      "title": str,
      "parameters": {str: scalar},         # the options the numbers depend on
      "sections": {                        # in reading order
        KEY: {
          "title": str,
          "status": "ok" | "undefined",
          "reason": str | null,            # why, when undefined
          "values": {str: scalar | list | object},
          "tables": {KEY: {"title": str | null,
                            "columns": [str, ...],
                            "rows": [{column: scalar}, ...]}},
          "notes": [str, ...]
        }, ...
      },
      "notes": [str, ...]                  # remarks about the whole run
    }

Scalars are JSON numbers, strings, booleans or null; a number that is not
finite (NaN, inf) is written as null. :data:`REPORT_SCHEMA` is the same
schema as a JSON Schema document.

CSV is the report's main table (``Report.primary``: the coefficients of
``audit``, the per-k table of ``plan``, the per-item labels of ``fit``), or
``section,key,value`` rows of every scalar value when a report has no main
table; every other number is in the JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["REPORT_SCHEMA", "SCHEMA_ID", "Column", "Figure", "Report", "Section", "Table",
           "render", "render_html_fragment", "report_table", "section_from_result"]

SCHEMA_ID = "goldnoise.report/1"

_SCALAR = {"type": ["number", "string", "boolean", "null"]}
REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "goldnoise report",
    "type": "object",
    "required": ["schema", "goldnoise_version", "command", "title", "parameters", "sections",
                 "notes"],
    "additionalProperties": False,
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "goldnoise_version": {"type": "string"},
        "command": {"type": "string"},
        "title": {"type": "string"},
        "parameters": {"type": "object", "additionalProperties": _SCALAR},
        "notes": {"type": "array", "items": {"type": "string"}},
        "sections": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["title", "status", "reason", "values", "tables", "notes"],
                "additionalProperties": False,
                "properties": {
                    "title": {"type": "string"},
                    "status": {"enum": ["ok", "undefined"]},
                    "reason": {"type": ["string", "null"]},
                    "values": {"type": "object"},
                    "notes": {"type": "array", "items": {"type": "string"}},
                    "tables": {
                        "type": "object",
                        "additionalProperties": {
                            "type": "object",
                            "required": ["title", "columns", "rows"],
                            "additionalProperties": False,
                            "properties": {
                                "title": {"type": ["string", "null"]},
                                "columns": {"type": "array", "items": {"type": "string"}},
                                "rows": {"type": "array",
                                         "items": {"type": "object",
                                                   "additionalProperties": _SCALAR}},
                            },
                        },
                    },
                },
            },
        },
    },
}


def _plain(value: Any) -> Any:
    """A JSON-ready copy of ``value``: numpy scalars to Python, non-finite floats to None."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        try:
            value = value.item()  # numpy scalar
        except (ValueError, TypeError):
            return str(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return None
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    return str(value)


def fmt_number(value: Any, spec: str = ".4f") -> str:
    """``value`` formatted with ``spec``; missing or non-finite values as ``-``."""
    value = _plain(value)
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    return format(value, spec)


def column_decimals(values: Any, significant: int = 4) -> str:
    """A format spec (``".5f"``) that gives every value of a column the same decimals:
    ``significant`` digits of its largest absolute finite value (0 to 12 decimals; ``".4f"``
    without one). ``".4g"`` instead prints 0.08128 above 0.0806."""
    sizes = [abs(float(v)) for v in values]
    top = max((v for v in sizes if 0 < v < math.inf), default=None)
    if top is None:
        return ".4f"
    return f".{min(max(significant - 1 - math.floor(math.log10(top)), 0), 12)}f"


@dataclass
class Column:
    """A table column: ``key`` in the rows, ``label`` shown, ``fmt`` a format spec or callable."""

    key: str
    label: str | None = None
    fmt: str | Callable[[Any], str] | None = None
    align: str = ">"
    cell: Callable[[dict[str, Any]], str] | None = None  # text from the whole row
    data: bool = True  # False: a display-only column (its numbers are other keys of the row)

    def text(self, value: Any) -> str:
        if callable(self.fmt):
            return self.fmt(value)
        if isinstance(_plain(value), str) or self.fmt is None:
            plain = _plain(value)
            if plain is None:
                return "-"
            if isinstance(plain, float):
                return format(plain, ".4g")
            return str(plain) if not isinstance(plain, bool) else ("yes" if plain else "no")
        return fmt_number(value, self.fmt)


@dataclass
class Table:
    """Rows (dicts keyed by column key) with display formats."""

    key: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    title: str | None = None
    shown: int | None = None  # rows shown in text, markdown and HTML (JSON and CSV: all)

    def header(self) -> list[str]:
        return [c.label or c.key for c in self.columns]

    def cells(self, *, limit: bool = True) -> list[list[str]]:
        rows = self.rows[:self.shown] if limit and self.shown is not None else self.rows
        return [[c.cell(row) if c.cell is not None else c.text(row.get(c.key))
                 for c in self.columns] for row in rows]

    def hidden(self) -> int:
        """Rows left out of the text, markdown and HTML renderings."""
        return 0 if self.shown is None else max(len(self.rows) - self.shown, 0)

    def data_columns(self) -> list[str]:
        """The keys of the JSON/CSV rows: data columns first, then other keys of the rows."""
        keys = [c.key for c in self.columns if c.data]
        for row in self.rows:
            keys += [k for k in row if k not in keys]
        return [k for k in keys if k not in {c.key for c in self.columns if not c.data}]

    def to_json(self) -> dict[str, Any]:
        keys = self.data_columns()
        return {"title": self.title, "columns": keys,
                "rows": [{k: _plain(row.get(k)) for k in keys} for row in self.rows]}


@dataclass
class Figure:
    """A plot of a section: ``draw(fig)`` fills a matplotlib Figure."""

    key: str
    title: str
    draw: Callable[[Any], None]
    size: tuple[float, float] = (6.4, 4.0)


@dataclass
class Section:
    """One part of a report; see the module docstring."""

    key: str
    title: str
    lines: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    status: str = "ok"
    reason: str | None = None
    figures: list[Figure] = field(default_factory=list)

    def undefined(self, reason: str) -> Section:
        """Mark the section as not computable on these data, saying why."""
        self.status = "undefined"
        self.reason = reason
        return self

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "status": self.status, "reason": self.reason,
                "values": _plain(self.values),
                "tables": {t.key: t.to_json() for t in self.tables},
                "notes": [str(n) for n in self.notes]}


@dataclass
class Report:
    """What a verb returns: title, parameters, sections, run-wide notes."""

    command: str
    title: str
    sections: list[Section] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    primary: str | None = None  # "section_key/table_key" of the CSV table
    companions: list[str] = field(default_factory=list)  # tables written beside --out x.csv
    header: list[str] = field(default_factory=list)  # lines under the title (text only)

    def add(self, section: Section) -> Section:
        self.sections.append(section)
        return section

    def section(self, key: str) -> Section:
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(key)

    def table(self, path: str) -> Table:
        skey, tkey = path.split("/")
        for t in self.section(skey).tables:
            if t.key == tkey:
                return t
        raise KeyError(path)

    def figures(self) -> list[tuple[Section, Figure]]:
        return [(s, f) for s in self.sections for f in s.figures]

    def _repr_html_(self) -> str:
        return render_html_fragment(self)

    def to_json(self) -> dict[str, Any]:
        from _goldnoise_lib.version import __version__

        return {"schema": SCHEMA_ID, "goldnoise_version": __version__,
                "command": self.command, "title": self.title,
                "parameters": _plain(self.parameters),
                "sections": {s.key: s.to_json() for s in self.sections},
                "notes": [str(n) for n in _unique(self.notes)]}


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


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


# ---------------------------------------------------------------- renderers
def _text_table(table: Table, indent: str = "  ") -> list[str]:
    header = table.header()
    cells = table.cells()
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    aligns = [c.align for c in table.columns]

    def line(values: list[str]) -> str:
        return indent + "  ".join(f"{v:{a}{w}}" for v, a, w in zip(values, aligns, widths,
                                                                   strict=True)).rstrip()

    out = [f"{indent}{table.title}"] if table.title else []
    out.append(line([f"{h:{a}{w}}" for h, a, w in zip(header, aligns, widths, strict=True)]))
    out += [line(r) for r in cells]
    if table.hidden():
        out.append(f"{indent}... {table.hidden()} more rows (all of them with --format json "
                   "or csv)")
    return out


def render_text(report: Report) -> str:
    lines = [report.title, *(f"  {h}" for h in report.header)]
    for s in report.sections:
        lines += ["", s.title]
        if s.status != "ok":
            lines.append(f"  not computed: {s.reason}")
        lines += [f"  {x}" for x in s.lines]
        for t in s.tables:
            lines += _text_table(t)
        lines += [f"  * {n}" for n in _unique(s.notes)]
    if report.notes:
        lines += ["", "Notes", *(f"  * {n}" for n in _unique(report.notes))]
    return "\n".join(lines) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report: Report) -> str:
    out = [f"# {report.title}", ""]
    out += [f"{h}  " for h in report.header]
    for s in report.sections:
        out += ["", f"## {s.title}", ""]
        if s.status != "ok":
            out += [f"*Not computed:* {s.reason}", ""]
        out += [f"{x}  " for x in s.lines]
        for t in s.tables:
            out.append("")
            if t.title:
                out += [f"**{t.title}**", ""]
            out.append("| " + " | ".join(_md_escape(h) for h in t.header()) + " |")
            out.append("|" + "|".join("---:" if c.align == ">" else "---"
                                      for c in t.columns) + "|")
            out += ["| " + " | ".join(_md_escape(v) for v in row) + " |" for row in t.cells()]
            if t.hidden():
                out += ["", f"... {t.hidden()} more rows (all of them with --format json or "
                            "csv)"]
        if s.notes:
            out.append("")
            out += [f"- {_md_escape(n)}" for n in _unique(s.notes)]
    if report.notes:
        out += ["", "## Notes", "", *(f"- {n}" for n in _unique(report.notes))]
    return "\n".join(out).rstrip() + "\n"


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def render_table_csv(table: Table) -> str:
    """One table as CSV: every row, the data columns."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    keys = table.data_columns()
    writer.writerow(keys)
    for row in table.rows:
        writer.writerow(["" if (v := _plain(row.get(k))) is None else v for k in keys])
    return buf.getvalue()


def render_csv(report: Report) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if report.primary is not None:
        return render_table_csv(report.table(report.primary))
    writer.writerow(["section", "key", "value"])
    for s in report.sections:
        for key, value in s.values.items():
            plain = _plain(value)
            if isinstance(plain, (list, dict)):
                plain = json.dumps(plain)
            writer.writerow([s.key, key, "" if plain is None else plain])
    return buf.getvalue()


def render_html_fragment(report: Report, *, rows: int = 20) -> str:
    """The report as an HTML fragment for a notebook: prose, tables (first ``rows``), notes.

    Figures are left out (``goldnoise ... --report page.html`` draws them).
    """
    import html

    esc = html.escape
    out = [f"<div><h3>{esc(report.title)}</h3>"]
    for s in report.sections:
        out.append(f"<h4>{esc(s.title)}</h4>")
        if s.status != "ok":
            out.append(f"<p><em>Not computed:</em> {esc(s.reason or '')}</p>")
        out += [f"<p>{esc(x)}</p>" for x in s.lines]
        for t in s.tables:
            head = "".join(f"<th>{esc(h)}</th>" for h in t.header())
            body = "".join("<tr>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>"
                           for row in Table(t.key, t.columns, t.rows[:rows]).cells())
            more = (f"<p>... {len(t.rows) - rows} more rows</p>" if len(t.rows) > rows else "")
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                       + more)
        if s.notes:
            out.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in _unique(s.notes))
                       + "</ul>")
    if report.notes:
        out.append("<h4>Notes</h4><ul>" + "".join(f"<li>{esc(n)}</li>"
                                                  for n in _unique(report.notes)) + "</ul>")
    return "".join(out) + "</div>"


RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text, "markdown": render_markdown, "json": render_json, "csv": render_csv,
}


def render(report: Report, fmt: str) -> str:
    """The report as ``fmt``: ``"text"``, ``"markdown"``, ``"json"`` or ``"csv"``."""
    try:
        return RENDERERS[fmt](report)
    except KeyError:
        raise ValueError(f"unknown format {fmt!r}; choose one of {sorted(RENDERERS)}.") from None
