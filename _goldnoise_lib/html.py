"""``_repr_html_`` of the result objects: a notebook shows them as HTML tables.

One function serves every result class: a caption with the object's ``repr``
(its one-line summary), a two-column table of :meth:`to_dict`, and, when
:meth:`to_frame` is a table of several rows (a per-k plan, per-class rates,
per-item labels), that table too (its first rows).
"""

from __future__ import annotations

import html
import math
from typing import Any

__all__ = ["result_html"]

#: Rows of a result's table shown in a notebook.
MAX_ROWS = 20


def _cell(value: Any) -> str:
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        try:
            value = value.item()
        except (ValueError, TypeError):
            pass
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def result_html(self: Any) -> str:
    """The result as an HTML table (the ``_repr_html_`` of the result classes).

    Examples
    --------
    >>> import dataclasses
    >>> from _goldnoise_lib.results import Result
    >>> @dataclasses.dataclass(frozen=True)
    ... class Bound(Result):
    ...     _headline = "gamma"
    ...     gamma: float
    >>> page = Bound(0.138889)._repr_html_()
    >>> "<table" in page and "0.138889" in page
    True
    """
    fields = self.to_dict()
    # Nested entries (one per statistic, say) are the rows of to_frame(), shown below.
    nested = {k for k, v in fields.items() if isinstance(v, dict)}
    rows = "".join(
        f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
        f"<td style='text-align:left'>{html.escape(_cell(v))}</td></tr>"
        for k, v in fields.items() if k not in nested)
    out = [f"<div><p><code>{html.escape(repr(self))}</code></p><table>{rows}</table>"]
    to_frame = getattr(self, "to_frame", None)
    if to_frame is not None:
        frame = to_frame()
        if len(frame) > 1 or nested:
            out.append(frame.to_html(max_rows=MAX_ROWS, float_format=lambda v: f"{v:.6g}"))
    out.append("</div>")
    return "".join(out)
