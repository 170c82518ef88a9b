"""The one protocol of goldnoise's result objects.

Every public result is a frozen dataclass that derives from :class:`Result` and
names its headline field in ``_headline``. It then has, with one meaning everywhere:

``float(result)``
    the headline value;
``result.to_dict()``
    plain Python values (floats, ints, strings, lists, nested dicts), JSON-ready;
``result.to_frame()``
    a :class:`pandas.DataFrame`: one row of the scalar fields unless the class
    documents a table (one row per item, per annotator, per k, ...);
``result.summary()``
    a few lines of plain text for a person;
``result._repr_html_()``
    the notebook view (caption, the ``to_dict`` table and the first rows of a
    ``to_frame`` table);
``result.confidence_interval(confidence_level=...)``
    a :class:`ConfidenceInterval` ``(low, high)`` of the headline value -- defined
    only by the classes that have one interval: ``AgreementResult`` (default 0.95),
    ``KappaAuditResult``, ``DetectionResult``, ``DetectedErrorRateResult`` and
    ``BootstrapResult`` (default: the level the result was computed at; arrays of
    one interval per statistic for the bootstrap); ``DetectionResult.metric_interval``
    gives another metric's.

Each class documents the shape of its ``to_frame()`` in its docstring.

The base writes ``to_dict``, ``to_frame`` and ``summary`` from the dataclass fields
and a shape the class declares in class attributes (all optional):

``_keys`` and ``_omit``
    the keys of ``to_dict`` in order, each ``"name"`` (a field or property) or
    ``"key=path"`` (a dotted path of attributes, positions or dict keys, e.g.
    ``"low=interval.low"``, ``"n=draws.shape.0"``; a method on the path is called); a
    ``notes`` tuple is given as one ``"; "``-joined string (``"notes[]"``: as a list).
    Without ``_keys``: every field shown in the repr (as plain values) except those
    named in ``_omit``, then the ``_records`` and ``_nested`` fields the repr leaves out.
``_records``
    a name or a tuple of names of DataFrame fields that ``to_dict`` gives as a list
    of records (the index kept as a column when it is not the default 0..n-1).
``_nested``
    a name or a tuple of names of DataFrame keys that ``to_dict`` gives as
    ``{row label: {column: value}}``.
``_table``
    the DataFrame field that ``to_frame`` returns (a copy);
``_columns`` and ``_index``
    or the table ``to_frame`` builds: ``{"column": "path"}`` (a path whose value is
    ``None`` leaves its column out) with the index at ``_index`` (``"name=path"``
    names it).
``_rows``
    or a table of one row per label (a tuple of labels, or a dict of label to text):
    each ``_columns`` path reads the row's label where it says ``{}``
    (``"{}_interval.low"``; ``"_rows.{}"`` reads the dict's text;
    ``"metric_interval({}).low"`` calls a method with the label), ``"@"`` is the
    label itself, a value a label does not have (no such attribute or key) is None
    (NaN in a numeric column), and ``_index`` names the index of labels (without it
    the index is 0..n-1).
``_summary``
    the lines of ``summary``, each a template of :meth:`str.format` whose names are
    the result's fields, properties and methods without arguments (``"AUROC
    {auroc:.3f} [{auroc_interval.low:.3f}]"``; ``{rounds.iloc[-1][errors]}`` reads the
    last row). Beyond :meth:`str.format`:

    * ``g%`` writes ``0.95`` as ``95%``; NaN is written ``NaN``; ``.3table`` writes a
      DataFrame as its text, rounded (its lines indented as the template's first);
    * ``{passed:passes|fails}`` gives the text before or after ``|`` for a true/false
      value, ``{n:item|items}`` for a count (before ``|`` when it is 1), and
      ``{goal==width:...|...}`` compares a value's text (``==None``: is it None); the
      branch not taken is not read;
    * ``!n`` is the number of elements, ``!u`` the text in upper case, ``!l`` a list of
      the elements as text;
    * a part between ``((`` and ``))`` is left out when it names a value that is
      ``None`` or missing; a line naming a value that is ``None`` is left out.

    A pair ``(path, template)`` writes the template once per row of a DataFrame (its
    columns by name, the row's label as ``{name}``), once per element of a sequence
    (as ``{}``), or once if the value is true; a path ``"goal==width"`` (or ``!=``)
    writes it once when the value's text is (or is not) that.

Without a table ``to_frame`` is one row of the scalar values of ``to_dict`` (a list of
notes joined by ``"; "``), and without ``_summary`` ``summary`` lists them. A class
overrides a method only where
its output differs from these shapes. No key or column starts with ``_``.
"""

from __future__ import annotations

import _string
import dataclasses
import inspect
import math
import re
import string
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

import numpy as np

from _goldnoise_lib.html import result_html

__all__ = ["ConfidenceInterval", "Result", "plain_value"]


class ConfidenceInterval(NamedTuple):
    """A two-sided interval ``(low, high)``."""

    low: float
    high: float


def plain_value(value: Any) -> Any:
    """``value`` as plain Python: NumPy scalars and arrays, tuples, Series, nested dicts."""
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: plain_value(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain_value(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain_value(value.tolist())
    if hasattr(value, "to_dict") and hasattr(value, "index") and not isinstance(value, type):
        return plain_value(value.to_dict())  # pandas Series / DataFrame
    if isinstance(value, np.generic):
        return value.item()
    return value


def _called(value: Any) -> Any:
    """A method met on a path is called (``draws.shape``, ``width_goal``, ``to_frame``)."""
    return value() if inspect.ismethod(value) or inspect.isbuiltin(value) else value


class _Absent(Exception):
    """A template names a value that is ``None`` (or missing): its line is left out."""


class _Names:
    """The names a summary template reads: a row's columns first, then the result's."""

    def __init__(self, result: Any, row: Any = None) -> None:
        self.result, self.row = result, row

    def __getitem__(self, key: str) -> Any:
        if self.row is not None and key in self.row:
            return self.row[key]
        return _called(getattr(self.result, key))


def _split_choice(spec: str) -> tuple[str, str]:
    """``"a|b"`` split at its first ``|`` outside braces (``b`` may hold fields too)."""
    depth = 0
    for i, ch in enumerate(spec):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            return spec[:i], spec[i + 1:]
    raise ValueError(f"no '|' in {spec!r}")


def _is_nan(value: Any) -> bool:
    return isinstance(value, (float, np.floating)) and math.isnan(value)


class _Template(string.Formatter):
    """``str.format`` with the summary's additions (see the module docstring)."""

    def render(self, template: str, names: Any, args: tuple = ()) -> str:
        out = []
        for literal, field, spec, conversion in self.parse(template):
            out.append(literal)
            if field is None:
                continue
            value = self.get_field(field, args, names)[0]
            value = self.convert_field(value, conversion)
            if "|" in spec and isinstance(value, (bool, np.bool_, int, np.integer)):
                first, second = _split_choice(spec)  # "if true|if false", "if one|if not"
                pick = value if isinstance(value, (bool, np.bool_)) else value == 1
                out.append(self.render(first if pick else second, names, args))
                continue
            out.append(self.format_field(value, self.render(spec, names, args)))
        return "".join(out)

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if "==" in field_name:  # {goal==width:...|...}: true when the value reads so
            path, _, want = field_name.partition("==")
            try:
                value = self.get_field(path, args, kwargs)[0]
            except _Absent:
                value = None
            return (value is None if want == "None" else str(value) == want), path
        first, rest = _string.formatter_field_name_split(field_name)
        value = self.get_value(first, args, kwargs)
        for is_attr, key in rest:  # as str.format, and [-1] is the last element
            if value is None:
                raise _Absent
            if is_attr:
                value = getattr(value, key)
                value = _called(value)
            else:
                value = value[int(key) if str(key).lstrip("-").isdigit() else key]
        if value is None:
            raise _Absent
        return value, first

    def get_value(self, key: Any, args: Any, kwargs: Any) -> Any:
        return args[key or 0] if isinstance(key, int) or key == "" else kwargs[key]

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "n":  # the number of elements
            return len(value)
        if conversion == "u":  # upper case
            return str(value).upper()
        if conversion == "l":  # a list of the elements as text
            return str([str(v) for v in value])
        return super().convert_field(value, conversion)

    def format_field(self, value: Any, spec: str) -> Any:
        if spec.endswith("table"):  # a DataFrame as its text (".3table": rounded)
            digits = spec[1:-5]
            return (value.round(int(digits)) if digits else value).to_string()
        if _is_nan(value):
            return "NaN"
        if spec.endswith("g%"):  # 0.95 as "95%"
            return format(100 * value, spec[:-1]) + "%"
        if spec.endswith("d") and isinstance(value, float) and math.isfinite(value):
            value = int(value)
        return format(value, spec)


_OPTIONAL = re.compile(r"\(\((.*?)\)\)(?!\))")


def _fill(template: str, names: _Names, *args: Any) -> list[str]:
    """The template filled in, as one line (or none when it names a missing value)."""
    out = []
    try:
        for i, part in enumerate(_OPTIONAL.split(template)):
            if not i % 2:  # outside (( )): a missing value leaves the whole line out
                out.append(_Template().render(part, names, args))
                continue
            try:
                out.append(_Template().render(part, names, args))
            except (_Absent, AttributeError, KeyError):
                pass
    except _Absent:
        return []
    text = "".join(out)
    indent = template[:len(template) - len(template.lstrip())]
    return [text.replace("\n", "\n" + indent)]


def _names(names: str | tuple[str, ...]) -> tuple[str, ...]:
    return (names,) if isinstance(names, str) else names


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Result:
    """Base of every result class (see the module docstring for the protocol)."""

    #: Name of the field that ``float(result)`` returns.
    _headline: ClassVar[str] = ""
    #: The declared shape (see the module docstring).
    _keys: ClassVar[tuple[str, ...] | None] = None
    _omit: ClassVar[str | tuple[str, ...]] = ()
    _records: ClassVar[str | tuple[str, ...]] = ()
    _nested: ClassVar[str | tuple[str, ...]] = ()
    _table: ClassVar[str] = ""
    _columns: ClassVar[dict[str, str]] = {}
    _index: ClassVar[str] = ""
    _rows: ClassVar[tuple[str, ...] | dict[str, str]] = ()
    _summary: ClassVar[tuple[str | tuple[str, str], ...]] = ()

    def _path(self, path: str, label: Any = None) -> Any:
        value: Any = self
        for name in path.split("."):
            if name.endswith("({})"):  # a method called with the row's label
                value = getattr(value, name[:-4])(label)
                continue
            name = name.format(label) if "{}" in name else name
            value = (None if value is None else value[name] if isinstance(value, Mapping)
                     else value[int(name)] if name.isdigit() else getattr(value, name))
            value = _called(value)
        return value

    def _row_value(self, path: str, label: Any) -> Any:
        if path == "@":
            return label
        try:
            return self._path(path, label)
        except (AttributeError, KeyError):  # a value this label does not have
            return None

    def _plain_field(self, name: str, value: Any) -> Any:
        if name in _names(self._nested) and value is not None:
            return plain_value(value.to_dict(orient="index"))
        if name in _names(self._records) and value is not None:
            import pandas as pd

            if not (isinstance(value.index, pd.RangeIndex)
                    and value.index.name is None and value.index.start == 0
                    and value.index.step == 1):
                value = value.reset_index()
            return plain_value(value.to_dict(orient="records"))
        return plain_value(value)

    def __float__(self) -> float:
        if not self._headline:
            raise TypeError(f"{type(self).__name__} has no single headline value.")
        return float(getattr(self, self._headline))

    def to_dict(self) -> dict[str, Any]:
        """The declared keys as plain Python values (arrays as lists), ready for JSON."""
        if self._keys is None:  # the shown fields, then the tables kept out of the repr
            names = [f.name for f in dataclasses.fields(self)
                     if f.repr and f.name not in _names(self._omit)]
            names += [n for n in (*_names(self._records), *_names(self._nested))
                      if n not in names]
            return {n: self._plain_field(n, getattr(self, n)) for n in names}
        out = {}
        for spec in self._keys:
            key, _, path = spec.partition("=")
            value = self._path(path or key.removesuffix("[]"))
            if key == "notes" and isinstance(value, (tuple, list)):
                value = "; ".join(value)
            out[key.removesuffix("[]")] = self._plain_field(key, value)
        return out

    def to_frame(self) -> Any:
        """The declared table, or one row of the scalar values of :meth:`to_dict`."""
        import pandas as pd

        if self._table:
            return self._path(self._table).copy()
        if self._rows:  # one row per label, the label's columns read through "{}"
            cols = {c: [self._row_value(p, label) for label in self._rows]
                    for c, p in self._columns.items()}
            return pd.DataFrame(cols, index=pd.Index(list(self._rows), name=self._index)
                                if self._index else None)
        if self._columns:
            cols = {c: self._path(p) for c, p in self._columns.items()}
            name, _, path = self._index.rpartition("=")
            index = pd.Index(self._path(path), name=name) if name else (
                self._path(path) if path else None)
            return pd.DataFrame({c: v for c, v in cols.items() if v is not None},
                                index=index)
        row = {k: "; ".join(v) if k == "notes" and isinstance(v, list) else v
               for k, v in self.to_dict().items()}
        return pd.DataFrame([{k: v for k, v in row.items()
                              if v is None or isinstance(v, (int, float, str, bool))}])

    def summary(self) -> str:
        """A few lines of text: the declared lines, or the class name and the scalar fields."""
        if self._summary:
            return "\n".join(self._summary_lines())
        lines = [type(self).__name__]
        for k, v in self.to_dict().items():
            if isinstance(v, float):
                lines.append(f"  {k}: {'NaN' if math.isnan(v) else f'{v:.6g}'}")
            elif v is None or isinstance(v, (int, str, bool)):
                lines.append(f"  {k}: {v}")
        return "\n".join(lines)

    def _summary_lines(self) -> list[str]:
        lines, names = [], _Names(self)
        for spec in self._summary:
            if isinstance(spec, str):
                lines += _fill(spec, names)
                continue
            path, template = spec
            if "==" in path or "!=" in path:  # once if the value reads so (or not)
                lhs, op, want = re.split(r"(==|!=)", path)
                value = self._path(lhs)
                same = value is None if want == "None" else str(value) == want
                lines += _fill(template, names) if same == (op == "==") else []
                continue
            value = self._path(path)
            if hasattr(value, "iterrows"):
                for label, row in value.iterrows():
                    lines += _fill(template, _Names(self, {"name": label, **row}))
            elif isinstance(value, (tuple, list)):
                for v in value:
                    lines += _fill(template, names, v)
            elif value:
                lines += _fill(template, names)
        return lines

    def _repr_html_(self) -> str:
        return result_html(self)
