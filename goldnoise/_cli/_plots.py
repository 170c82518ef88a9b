"""Plots of a report: PNG files for ``--plot DIR``, inline SVG for the HTML page.

Each :class:`~goldnoise.report.Figure` of a report draws itself on a
matplotlib ``Figure``; matplotlib (the ``plot`` extra) is imported only here,
with the Agg canvas and no pyplot, so nothing depends on a display.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from goldnoise.report import Figure, Report

__all__ = ["DPI", "PLOT_HINT", "figures_available", "render_png", "render_svg", "write_pngs"]

DPI = 100
PLOT_HINT = "plots need matplotlib: pip install 'goldnoise[plot]'"


def figures_available() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(spec: Figure) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=spec.size, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    spec.draw(fig)
    fig.suptitle(spec.title, fontsize=11)
    return fig


def render_png(spec: Figure) -> bytes:
    """The figure as PNG bytes (``size`` inches at :data:`DPI`)."""
    buf = io.BytesIO()
    _figure(spec).savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def render_svg(spec: Figure) -> str:
    """The figure as an SVG element (no XML prolog, no external references)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": spec.key}):
        _figure(spec).savefig(buf, format="svg")
    text = buf.getvalue()
    start = text.find("<svg")
    return text[start:] if start >= 0 else text


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def write_pngs(report: Report, folder: Path) -> list[Path]:
    """Write every figure of ``report`` into ``folder`` as PNG; the paths written."""
    from goldnoise._cli._errors import DataError
    from goldnoise._cli._files import make_folder

    if not figures_available():
        raise ImportError(PLOT_HINT)
    try:
        make_folder(folder)
    except OSError as exc:
        raise DataError(f"could not create {folder}: {exc.strerror or exc}") from None
    paths = []
    for section, spec in report.figures():
        path = folder / f"{report.command}_{_slug(spec.key)}.png"
        try:
            path.write_bytes(render_png(spec))
        except OSError as exc:
            raise DataError(f"could not write {path}: {exc.strerror or exc}") from None
        paths.append(path)
        del section
    return paths
