"""The report as one self-contained HTML page (``--report FILE.html``, ``--format html``).

Tables, the figures as inline SVG, and the report's JSON (the same numbers as
``--format json``) in a ``<script type="application/json">`` block. Nothing is
loaded from outside the file: no scripts, style sheets, fonts or images by
reference.
"""

from __future__ import annotations

import dataclasses
import html
import json

from goldnoise.report import Report, Table, _unique

__all__ = ["HTML_ROWS", "render_html"]

#: Rows of a long table shown in the page (the JSON block holds all of them).
HTML_ROWS = 200

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto;
       max-width: 64rem; padding: 0 1rem; color: #1d1d1f; line-height: 1.45; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
p { margin: .3rem 0; }
.meta { color: #555; font-size: .9rem; }
.undefined { color: #8a4b00; background: #fff5e6; padding: .3rem .6rem; border-radius: 4px; }
table { border-collapse: collapse; margin: .6rem 0; font-size: .88rem; }
th, td { padding: .2rem .6rem; border-bottom: 1px solid #e5e5e5; }
th { text-align: left; background: #f5f5f7; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
ul.notes { color: #444; font-size: .85rem; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
.more { color: #666; font-size: .85rem; }
"""


def _table(t: Table) -> str:
    rows = t.rows[:max(t.shown or 0, HTML_ROWS)]
    limited = dataclasses.replace(t, rows=rows, shown=None)  # a copy, rendered here
    out = []
    if t.title:
        out.append(f"<p><strong>{html.escape(t.title)}</strong></p>")
    out.append(f'<table id="table-{html.escape(t.key)}"><thead><tr>')
    out += [f"<th>{html.escape(h)}</th>" for h in t.header()]
    out.append("</tr></thead><tbody>")
    for cells in limited.cells(limit=False):
        out.append("<tr>" + "".join(
            f'<td class="{"num" if c.align == ">" else "txt"}">{html.escape(v)}</td>'
            for c, v in zip(t.columns, cells, strict=True)) + "</tr>")
    out.append("</tbody></table>")
    if len(t.rows) > len(rows):
        out.append(f'<p class="more">... {len(t.rows) - len(rows)} more rows: all of them are '
                   "in the JSON block of this page and in --format json or csv.</p>")
    return "".join(out)


def _figures_html(report: Report) -> dict[int, list[str]]:
    """SVG of each section's figures (empty, with a note, without matplotlib)."""
    from goldnoise._cli._plots import PLOT_HINT, figures_available, render_svg

    out: dict[int, list[str]] = {}
    if not figures_available():
        if report.figures():
            report.notes.append(f"the page has no plots: {PLOT_HINT}")
        return out
    for i, section in enumerate(report.sections):
        out[i] = [f'<figure id="figure-{html.escape(f.key)}">{render_svg(f)}'
                  f"<figcaption>{html.escape(f.title)}</figcaption></figure>"
                  for f in section.figures]
    return out


def render_html(report: Report) -> str:
    """The whole page as a string."""
    figures = _figures_html(report)
    body = [f"<h1>{html.escape(report.title)}</h1>"]
    body += [f'<p class="meta">{html.escape(h)}</p>' for h in report.header]
    params = ", ".join(f"{k} = {v}" for k, v in report.parameters.items() if v is not None)
    if params:
        body.append(f'<p class="meta">{html.escape(params)}</p>')
    for i, s in enumerate(report.sections):
        body.append(f'<section id="{html.escape(s.key)}"><h2>{html.escape(s.title)}</h2>')
        if s.status != "ok":
            body.append(f'<p class="undefined">Not computed: {html.escape(s.reason or "")}</p>')
        body += [f"<p>{html.escape(x)}</p>" for x in s.lines]
        body += [_table(t) for t in s.tables]
        body += figures.get(i, [])
        if s.notes:
            body.append('<ul class="notes">' + "".join(
                f"<li>{html.escape(n)}</li>" for n in _unique(s.notes)) + "</ul>")
        body.append("</section>")
    if report.notes:
        body.append('<section id="notes"><h2>Notes</h2><ul class="notes">' + "".join(
            f"<li>{html.escape(n)}</li>" for n in _unique(report.notes)) + "</ul></section>")
    data = json.dumps(report.to_json(), ensure_ascii=True, allow_nan=False)
    data = data.replace("</", "<\\/")  # never close the script element early
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(report.title)}</title>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) +
            f'\n<script type="application/json" id="goldnoise-report">{data}</script>'
            "\n</body></html>\n")
