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
    one interval per statistic for the bootstrap). Where an older spelling meant
    something else it keeps working: ``BootstrapResult.confidence_interval.low``
    reads the stored intervals (the field is now ``interval``), and
    ``DetectionResult.confidence_interval("auroc")`` is
    ``DetectionResult.metric_interval("auroc")``.

Each class documents the shape of its ``to_frame()`` in its docstring.

The base writes ``to_dict``, ``to_frame`` and ``summary`` from the dataclass fields
and a shape the class declares in class attributes (all optional):

``_keys`` and ``_omit``
    the keys of ``to_dict`` in order, each ``"name"`` (a field or property) or
    ``"key=path"`` (a dotted path of attributes, e.g. ``"low=interval.low"``); a
    ``notes`` tuple is given as one ``"; "``-joined string. Without ``_keys``:
    every field shown in the repr (as plain values) except those named in
    ``_omit``, then the ``_records`` fields the repr leaves out.
``_records``
    a name or a tuple of names of DataFrame fields that ``to_dict`` gives as a list
    of records (the index kept as a column when it is not the default 0..n-1).
``_table``
    the DataFrame field that ``to_frame`` returns (a copy);
``_columns`` and ``_index``
    or the table ``to_frame`` builds: ``{"column": "path"}`` (a path whose value is
    ``None`` leaves its column out) with the index at ``_index``.

Without a table ``to_frame`` is one row of the scalar values of ``to_dict``, and
``summary`` lists them. A class overrides a method only where its output differs
from these shapes (usually ``summary`` for a readable text). No key or column
starts with ``_``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar, NamedTuple

import numpy as np

from _goldnoise_lib.html import result_html

__all__ = ["CallableInterval", "ConfidenceInterval", "Result", "plain_value"]


class ConfidenceInterval(NamedTuple):
    """A two-sided interval ``(low, high)``."""

    low: float
    high: float


class CallableInterval(ConfidenceInterval):
    """A :class:`ConfidenceInterval` that can also be called with a level.

    For a result whose interval used to be a *field* named ``confidence_interval``
    (read as ``res.confidence_interval.low``): the attribute keeps reading that
    way, and ``res.confidence_interval(0.9)`` gives the interval at another level,
    as every other result's method does.
    """

    def __new__(cls, low: Any, high: Any, at_level: Any = None) -> CallableInterval:
        self = super().__new__(cls, low, high)
        self._at_level = at_level
        return self

    def __repr__(self) -> str:  # printed as the plain interval it stands for
        return f"ConfidenceInterval(low={self.low!r}, high={self.high!r})"

    def __call__(self, confidence_level: float | None = None) -> ConfidenceInterval:
        if confidence_level is None or self._at_level is None:
            if confidence_level is not None:
                from _goldnoise_lib.validation import check_confidence_level
                check_confidence_level(confidence_level)
            return ConfidenceInterval(self.low, self.high)
        return self._at_level(confidence_level)


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
    _table: ClassVar[str] = ""
    _columns: ClassVar[dict[str, str]] = {}
    _index: ClassVar[str] = ""

    def _path(self, path: str) -> Any:
        value: Any = self
        for name in path.split("."):
            value = None if value is None else getattr(value, name)
        return value

    def _plain_field(self, name: str, value: Any) -> Any:
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
            names += [n for n in _names(self._records) if n not in names]
            return {n: self._plain_field(n, getattr(self, n)) for n in names}
        out = {}
        for spec in self._keys:
            key, _, path = spec.partition("=")
            value = self._path(path or key)
            if key == "notes" and isinstance(value, (tuple, list)):
                value = "; ".join(value)
            out[key] = self._plain_field(key, value)
        return out

    def to_frame(self) -> Any:
        """The declared table, or one row of the scalar values of :meth:`to_dict`."""
        import pandas as pd

        if self._table:
            return self._path(self._table).copy()
        if self._columns:
            cols = {c: self._path(p) for c, p in self._columns.items()}
            index = self._path(self._index) if self._index else None
            return pd.DataFrame({c: v for c, v in cols.items() if v is not None},
                                index=index)
        row = {k: v for k, v in self.to_dict().items()
               if v is None or isinstance(v, (int, float, str, bool))}
        return pd.DataFrame([row])

    def summary(self) -> str:
        """A few lines of text: the class name and the scalar fields."""
        lines = [type(self).__name__]
        for k, v in self.to_dict().items():
            if isinstance(v, float):
                lines.append(f"  {k}: {'NaN' if math.isnan(v) else f'{v:.6g}'}")
            elif v is None or isinstance(v, (int, str, bool)):
                lines.append(f"  {k}: {v}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return result_html(self)
