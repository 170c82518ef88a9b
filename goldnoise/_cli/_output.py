"""The one output layer: every verb's report goes out through :func:`emit`.

Options added to every verb by :func:`add_output_arguments`: ``--format``,
``--out``, ``--json`` (short for ``--format json``), ``--plot DIR`` and
``--report FILE.html``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from goldnoise._cli._errors import DataError, UsageError
from goldnoise._cli._files import make_folder
from goldnoise.report import Report, render, render_table_csv

__all__ = ["FORMATS", "add_output_arguments", "emit"]

FORMATS = ("text", "json", "markdown", "csv", "html")
_BY_SUFFIX = {".txt": "text", ".json": "json", ".md": "markdown", ".markdown": "markdown",
              ".csv": "csv", ".html": "html", ".htm": "html", ".parquet": "parquet"}


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """The output options of every verb."""
    g = parser.add_argument_group("output")
    g.add_argument("--format", choices=FORMATS, default=None,
                   help="how to write the report: text for people, json (every number, one "
                        "schema), markdown, csv (the main table), html (a self-contained page). "
                        "Default: text, or what --out's suffix says")
    g.add_argument("--json", action="store_const", const="json", dest="format",
                   help="same as --format json")
    g.add_argument("--out", metavar="FILE",
                   help="also write the report to FILE, in the format its suffix names "
                        "(.txt, .json, .md, .csv, .parquet, .html; else --format); stdout still "
                        "shows the report (--format, default text) unless --quiet")
    g.add_argument("--quiet", "-q", action="store_true",
                   help="with --out, --plot or --report: print nothing on stdout")
    g.add_argument("--plot", metavar="DIR",
                   help="write the report's plots as PNG files into DIR (needs matplotlib: "
                        "pip install 'goldnoise[plot]')")
    g.add_argument("--report", metavar="FILE.html",
                   help="write one self-contained HTML page: the tables, the plots as inline "
                        "SVG, the same numbers as the JSON")
    g.add_argument("--no-progress", action="store_true",
                   help="no progress bars (they appear only on a terminal, for work that "
                        "takes more than a second)")


def _write(path: Path, text: str) -> None:
    try:
        make_folder(path.parent)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise DataError(f"could not write {path}: {exc.strerror or exc}") from None


def _write_table(report: Report, table_path: str | None, path: Path) -> None:
    """``--out x.parquet``: a table of the report (by default its main one) as Parquet."""
    import pandas as pd

    if table_path is None:
        raise UsageError(f"`goldnoise {report.command}` has no main table to write as "
                         "Parquet; use .json, .csv, .md or .txt")
    table = report.table(table_path)
    frame = pd.DataFrame(table.to_json()["rows"], columns=table.data_columns())
    try:
        make_folder(path.parent)
        frame.to_parquet(path, index=False)
    except (OSError, ValueError, ImportError) as exc:
        raise DataError(f"could not write {path}: {exc}") from None


def _render_any(report: Report, fmt: str) -> str:
    if fmt == "html":
        from goldnoise._cli._html import render_html

        return render_html(report)
    return render(report, fmt)


_OUTPUT_OPTIONS = ("out", "report", "plot")


def input_files(args: argparse.Namespace) -> list[Path]:
    """Every existing file a verb's arguments name (ratings, scores, labels, gold, ...), as
    given."""
    found = []
    for key, value in vars(args).items():
        if key.startswith("_") or key in _OUTPUT_OPTIONS:
            continue
        for v in (value if isinstance(value, list) else [value]):
            if isinstance(v, (str, Path)) and str(v) and Path(v).is_file():
                found.append(Path(v))
    return found


def _input_paths(args: argparse.Namespace) -> list[Path]:
    """:func:`input_files`, resolved."""
    return [p.resolve() for p in input_files(args)]


def _is_input(path: Path | str, inputs: list[Path]) -> bool:
    """Whether ``path`` is one of ``inputs``: the same path, or the same file under another
    name (a hard link, which resolved paths do not reveal)."""
    import os

    target = Path(path)
    if target.resolve() in inputs:
        return True
    if not target.exists():
        return False
    for p in inputs:
        try:
            if os.path.samefile(target, p):
                return True
        except OSError:
            continue
    return False


def check_outputs(args: argparse.Namespace) -> None:
    """Before any work: refuse an output that would overwrite an input, or whose format
    cannot be told from its suffix."""
    inputs = _input_paths(args)
    out = getattr(args, "out", None)
    for key in ("out", "report"):
        value = getattr(args, key, None)
        if value is not None and _is_input(value, inputs):
            raise UsageError(f"--{key} {value} is one of the input files: it would be "
                             "overwritten; write the output to another file")
    plot = getattr(args, "plot", None)
    if plot is not None and _is_input(plot, inputs):
        raise UsageError(f"--plot {plot} is an input file; give a folder for the plots")
    if out is not None and _BY_SUFFIX.get(Path(out).suffix.lower()) is None \
            and getattr(args, "format", None) is None:
        raise UsageError(f"cannot tell the format of --out {out!r} from its suffix; add "
                         f"--format {{{','.join(FORMATS)}}}")


def emit(report: Report, args: argparse.Namespace, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> None:
    """Write ``report`` as the output options in ``args`` ask."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    fmt = getattr(args, "format", None)
    out = getattr(args, "out", None)
    side_outputs = bool(out or getattr(args, "plot", None) or getattr(args, "report", None))
    if out is not None:
        path = Path(out)
        # The file's own suffix decides its format; --format only when the suffix says nothing.
        out_fmt = _BY_SUFFIX.get(path.suffix.lower()) or fmt
        if out_fmt is None:
            raise UsageError(f"cannot tell the format of --out {out!r} from its suffix; add "
                             f"--format {{{','.join(FORMATS)}}}")
        besides = []
        if out_fmt in ("csv", "parquet") and report.primary is not None:
            besides = [(table_path, path.with_name(f"{path.name.removesuffix(path.suffix)}."
                                                   f"{table_path.split('/')[1]}{path.suffix}"))
                       for table_path in report.companions]
        inputs = _input_paths(args)
        for _, beside in besides:  # before writing anything
            if _is_input(beside, inputs):
                raise UsageError(f"--out {out} would also write {beside}, one of the input "
                                 "files, beside it; write the output to another name")
        if out_fmt == "parquet":
            _write_table(report, report.primary, path)
        else:
            _write(path, _render_any(report, out_fmt))
        print(f"goldnoise: wrote {path} ({out_fmt})", file=stderr)
        if besides:
            for table_path, beside in besides:
                if out_fmt == "csv":
                    _write(beside, render_table_csv(report.table(table_path)))
                else:
                    _write_table(report, table_path, beside)
                print(f"goldnoise: wrote {beside} ({out_fmt})", file=stderr)
    if getattr(args, "report", None):
        path = Path(args.report)
        _write(path, _render_any(report, "html"))
        print(f"goldnoise: wrote {path} (html)", file=stderr)
    if getattr(args, "plot", None):
        from goldnoise._cli._plots import PLOT_HINT, figures_available, write_pngs

        if not figures_available():
            print(f"goldnoise: no plots written: {PLOT_HINT}", file=stderr)
        elif not report.figures():
            print(f"goldnoise: `goldnoise {report.command}` has no plots for these data",
                  file=stderr)
        else:
            for path in write_pngs(report, Path(args.plot)):
                print(f"goldnoise: wrote {path}", file=stderr)
    if side_outputs and getattr(args, "quiet", False):
        return
    stdout_fmt = fmt or "text"
    stdout.write(_render_any(report, stdout_fmt))
    stdout.flush()

