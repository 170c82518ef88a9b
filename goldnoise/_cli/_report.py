"""The report classes under their earlier private name (the verbs import :mod:`goldnoise.report`)."""

from goldnoise.report import (  # noqa: F401
    REPORT_SCHEMA,
    SCHEMA_ID,
    Column,
    Figure,
    Report,
    Section,
    Table,
    _plain,
    _unique,
    fmt_number,
    render,
    render_table_csv,
)
