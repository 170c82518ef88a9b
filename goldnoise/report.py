"""The report every ``goldnoise`` verb returns, and its four renderings (text, markdown,
JSON, CSV).

The model lives in ``_goldnoise_lib.report`` so that the results of every package
(``noise_models.judge_audit``'s among them) can build their reports without pointing up
at ``goldnoise``; this module is its public name. :class:`Report` holds a title, some
parameters and :class:`Section` objects (lines, values, :class:`Table` and
:class:`Figure` specs, notes); :func:`render` turns it into ``"text"``, ``"markdown"``,
``"json"`` or ``"csv"``; :data:`REPORT_SCHEMA` is the JSON's schema (``SCHEMA_ID``).
"""

from _goldnoise_lib.report import (
    REPORT_SCHEMA,
    SCHEMA_ID,
    Column,
    Figure,
    Report,
    Section,
    Table,
    _unique,  # noqa: F401 (the command line's own use)
    render,
    render_html_fragment,
    render_table_csv,  # noqa: F401 (the command line's own use)
)

__all__ = ["REPORT_SCHEMA", "SCHEMA_ID", "Column", "Figure", "Report", "Section", "Table",
           "render", "render_html_fragment"]
