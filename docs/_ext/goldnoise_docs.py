"""Pages of the goldnoise site that are generated from the code at build time.

* :func:`write_api_pages` writes ``api/<package>.rst`` for each of the four
  packages from the package's ``__all__`` (and the ``__all__`` of its public
  subpackages), so a name added to an index appears in the reference without
  editing the docs. Each object is documented once, under the lowest package
  that exports it; the packages above list it with a link.
* ``.. goldnoise-cli::`` renders the command line's argparse parsers
  (``goldnoise._cli.build_parser``): one section per verb (and sub-verb), its
  description, usage and every option with its help and default.
* ``.. goldnoise-packages::`` renders the table of packages and topics: each
  public subpackage, the first line of its docstring and every name it exports,
  linked to the reference.
* :func:`write_benchmark_pages` splits ``benchmarks/RESULTS.md`` (which the
  benchmark scripts rewrite section by section) into ``benchmarks/<topic>.md``
  pages by the headings of its sections, and writes the index with a summary
  table first.
* Math is written as MathML at build time (``html_math_renderer = "mathml"``,
  docutils' LaTeX-to-MathML converter): no script, no CDN, rendered by the browser.
* A paragraph written after the entries of a numpydoc ``Parameters`` or
  ``Attributes`` section (``"``to_frame()``: the reliability table."``) would be
  read as one more entry and shown as raw text; it is moved to the ``Notes``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import pkgutil
import re
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx import addnodes

#: The packages of the API reference, bottom layer first.
PACKAGES = ("agreement", "noise_models", "simulation", "goldnoise")

GENERATED_NOTE = (".. This file is written by docs/_ext/goldnoise_docs.py at every build from\n"
                  "   the package's __all__; edit the package index, not this file.\n\n")


# -- the API reference ------------------------------------------------------------------------

def public_subpackages(package: str) -> list[str]:
    """The public subpackages and submodules of ``package`` (names without ``_``), sorted;
    deprecated alias modules (docstring starting "Deprecated") are left out."""
    module = importlib.import_module(package)
    return sorted(f"{package}.{info.name}" for info in pkgutil.iter_modules(module.__path__)
                  if not info.name.startswith("_") and not (importlib.import_module(
                      f"{package}.{info.name}").__doc__ or "").startswith("Deprecated"))


def _is_module(obj: object) -> bool:
    return type(obj).__name__ == "module"


def canonical_names() -> dict[int, str]:
    """``id(object) -> "package.name"``: where each public object is documented.

    Walks the packages bottom up; an object gets the first package that exports it,
    then names exported only by a public subpackage get that subpackage's path.
    """
    where: dict[int, str] = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if not _is_module(obj):
                where.setdefault(id(obj), f"{package}.{name}")
    for package in PACKAGES:
        for sub in public_subpackages(package):
            module = importlib.import_module(sub)
            for name in getattr(module, "__all__", ()):
                obj = getattr(module, name)
                if not _is_module(obj):
                    where.setdefault(id(obj), f"{sub}.{name}")
    return where


def _plain(text: str) -> str:
    """reST inline markup dropped (roles, double backquotes): for text shown as plain text."""
    return re.sub(r":[\w:]+:`~?([^`<]+?)(?: <[^>]+>)?`", r"\1", text).replace("``", "")


def _first_paragraph(module: str, plain: bool = False) -> str:
    """The first paragraph of a module's docstring, on one line (package indexes are plain
    text, not reST, so only their opening sentence is shown); ``plain``: its reST markup
    dropped, for a page that shows it as text."""
    doc = (importlib.import_module(module).__doc__ or "").strip().split("\n\n")[0]
    doc = " ".join(doc.split())
    return _plain(doc) if plain else doc


def _autosummary(module: str, names: list[str]) -> list[str]:
    if not names:
        return []
    return ["", ".. autosummary::", "   :toctree: generated", "   :nosignatures:", "",
            *[f"   ~{module}.{n}" for n in names], ""]


def _links(names: list[tuple[str, str]]) -> list[str]:
    """A list of names documented elsewhere: ``shown`` linked to ``target``."""
    if not names:
        return []
    rows = ["", ".. list-table::", "   :widths: 30 70", "   :header-rows: 1", "",
            "   * - name", "     - documented as"]
    for shown, target in names:
        rows += [f"   * - ``{shown}``", f"     - :py:obj:`{target}`"]
    return [*rows, ""]


def _heading(text: str, char: str) -> list[str]:
    return [text, char * len(text), ""]


def api_page(package: str, where: dict[int, str]) -> str:
    """The reST of ``api/<package>.rst``."""
    module = importlib.import_module(package)
    subs = public_subpackages(package)
    sub_all = {sub: list(getattr(importlib.import_module(sub), "__all__", ())) for sub in subs}
    lines = [f".. _api-{package}:", "", *_heading(f"``{package}``", "=")]
    lines += [_first_paragraph(package), ""]
    groups: dict[str, list[str]] = {sub: [] for sub in subs}
    groups[package] = []
    for name in module.__all__:
        obj = getattr(module, name)
        if _is_module(obj):
            continue
        home = next((sub for sub in subs if name in sub_all[sub]), package)
        groups[home].append(name)
    reexported: list[tuple[str, str]] = []
    for group in [package, *subs]:
        names = groups[group]
        own = [n for n in names if where[id(getattr(module, n))] == f"{package}.{n}"]
        elsewhere = [(n, where[id(getattr(module, n))]) for n in names if n not in own]
        only_sub = [n for n in sub_all.get(group, ()) if n not in module.__all__]
        if group == package:
            if not names:
                continue
            if own:
                lines += _heading("Names of the package itself" if subs else "Names", "-")
        else:
            lines += [f".. _api-{group}:", "", *_heading(f"``{group}``", "-")]
            lines += [_first_paragraph(group), ""]
            if group.rsplit(".", 1)[1] in module.__all__:
                lines += [f"``{package}.{group.rsplit('.', 1)[1]}`` is this module.", ""]
        lines += _autosummary(package, own)
        if only_sub:
            lines += [f"Importable from ``{group}`` only:", ""]
            lines += _autosummary(group, only_sub)
        if elsewhere and group != package:
            lines += ["Re-exported here, documented with the package that defines them:", ""]
            lines += _links(elsewhere)
        elif elsewhere:
            reexported = elsewhere
    if reexported:
        lines += _heading("Re-exported names", "-")
        lines += [f"``import {package}`` also gives these names of the packages below it; each "
                  "is documented with the package that defines it.", ""]
        lines += _links(reexported)
    return GENERATED_NOTE + "\n".join(lines) + "\n"


def write_api_pages(docs: Path) -> list[Path]:
    """Write ``docs/api/<package>.rst`` for every package; only rewrite what changed."""
    where = canonical_names()
    written = []
    for package in PACKAGES:
        path = docs / "api" / f"{package}.rst"
        text = api_page(package, where)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    return written


# -- the benchmark pages -----------------------------------------------------------------------

#: The topics of the benchmark pages, in the order of the summary table: (file name, title,
#: what is measured, against what, the RESULTS.md sections it takes). A section of
#: ``benchmarks/RESULTS.md`` is the text a benchmark script owns between its
#: ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` markers (matched by NAME, a pattern),
#: or a ``## `` section written by hand outside the markers (matched by its heading).
#: A section that matches no topic goes to the page "Other benchmarks".
BENCHMARK_TOPICS: tuple[tuple[str, str, str, str, str], ...] = (
    ("agreement", "Agreement coefficients and the bootstrap",
     "values, standard errors and speed of every coefficient; the bootstrap engine; "
     "Light's κ and Ratings.from_long at scale",
     "numpy, statsmodels, krippendorff, scikit-learn, scipy.stats.bootstrap, pandas",
     r"^(agreement|bootstrap|light_kappa|from_long)$"),
    ("noise-bound", "The noise bound and realistic noise",
     "the γ bound's speed at up to 1e9 items; instance dependence (nth); the seed "
     "noise constructions",
     "scipy.stats, direct numpy",
     r"^(noise_bound|instance)$|^## Seed noise"),
    ("latent-class", "Latent-class models and honest posteriors",
     "EM speed and memory at 1e6 items; calibration of the posteriors on real crowd sets "
     "with gold; the held-out check with many annotators",
     "crowd-kit",
     r"^(latent_class|heldout_check)$|^## Honest posteriors|^## Calibration of crowd"),
    ("detection", "Label-error detection",
     "errors found by the rankings under several noise protocols, their speed, and the "
     "cross-check of a ranking against the annotation model",
     "cleanlab", r"^(detection|crosscheck.*)$"),
    ("reannotation", "Re-annotation, expert checks and the stopping bound",
     "labels saved by each policy on real crowd sets; errors found by expert checks; "
     "coverage of the bound on the wrong labels left",
     "uniform re-annotation, random checks, CROWDLAB", r"^(reannotation.*|policies.*)$"),
    ("judge", "Judges, prediction-powered estimates and study planning",
     "the Alt-Test against its authors' values, the swap test on their data; PPI against "
     "ppi_py (values, coverage, gain); the study planner",
     "the Alt-Test authors' notebook, ppi_py",
     r"^(judge|ppi|study|swap_interval|judge_labels|judge_latent)$|^## Planning"),
    ("preferences", "Preferences and rankings",
     "PandaLM's models ranked by humans, judges and both; rank-set coverage and width; "
     "position bias; active human labels",
     "choix, brute-force drop-k", r"^preferences$"),
    ("scale", "Scale: Dask, spans, import and the first run",
     "1e7-1e8 ratings on Dask; span agreement at 1e6 tokens; import time; the first run "
     "on an empty kernel cache; the guard of the hot paths",
     "the in-memory path, pygamma-agreement",
     r"^(dask|spans|import|first_run|guard|audit_columns|ci_time)$|^## Guard"),
)

_MARKER = re.compile(r"^<!-- ([\w-]+):(start|end) -->\n?", flags=re.M)


def benchmark_sections(results: str) -> tuple[str, list[tuple[str, str]]]:
    """``(intro, [(key, text), ...])`` of RESULTS.md in file order: the text before the
    first section (its title line dropped), then each section -- a script's marked block
    (key: its NAME) or a hand-written ``## `` section (key: its heading line)."""
    units: list[tuple[str, str]] = []
    pos, owner = 0, None
    for m in [*_MARKER.finditer(results), None]:
        chunk = results[pos:m.start() if m else len(results)]
        if owner:
            units.append((owner, chunk))
        else:  # outside the markers: split at the ## headings
            parts = re.split(r"^(## .+)$", chunk, flags=re.M)
            if parts[0].strip():
                units.append(("", parts[0]))
            units += [(parts[i].strip(), parts[i] + parts[i + 1])
                      for i in range(1, len(parts), 2)]
        if m:
            owner = m.group(1) if m.group(2) == "start" else None
            pos = m.end()
    intro = ""
    if units and units[0][0] == "":
        intro = re.sub(r"^# .*\n", "", units.pop(0)[1]).strip()
    return intro, [(key, text) for key, text in units if text.strip()]


def benchmark_topic(key: str) -> str:
    """The file name of the topic page a section of RESULTS.md goes to."""
    for name, *_, pattern in BENCHMARK_TOPICS:
        if re.search(pattern, key):
            return name
    return "other"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def write_benchmark_pages(docs: Path) -> list[Path]:
    """Write ``docs/benchmarks/index.md`` (a summary table first) and one page per topic
    of ``benchmarks/RESULTS.md``; only rewrite what changed."""
    results = (docs.parent / "benchmarks" / "RESULTS.md").read_text()
    intro, sections = benchmark_sections(results)
    pages: dict[str, list[str]] = {}
    headings: dict[str, list[str]] = {}
    for key, text in sections:
        topic = benchmark_topic(key)
        pages.setdefault(topic, []).append(text.strip() + "\n")
        headings.setdefault(topic, []).extend(re.findall(r"^## (.+)$", text, flags=re.M))
    titles = {name: title for name, title, *_ in BENCHMARK_TOPICS}
    titles["other"] = "Other benchmarks"
    order = [name for name, *_ in BENCHMARK_TOPICS if name in pages]
    order += ["other"] if "other" in pages else []
    out: dict[str, str] = {}
    note = ("<!-- Written by docs/_ext/goldnoise_docs.py at every build from "
            "benchmarks/RESULTS.md; edit that file (or the benchmark script that writes "
            "it), not this one. -->\n\n")
    for name in order:
        out[name] = (f"{note}# {titles[name]}\n\n"
                     f"Sections of `benchmarks/RESULTS.md`, each written by the benchmark "
                     f"script it names.\n\n" + "\n".join(pages[name]))
    rows = ["| topic | what is measured | against | its sections |",
            "| --- | --- | --- | --- |"]
    info = {name: (what, against) for name, _, what, against, _ in BENCHMARK_TOPICS}
    for name in order:
        what, against = info.get(name, ("", ""))
        parts = "; ".join(re.sub(r"\s*\(`[^)]*`\)", "", h) for h in headings[name])
        rows.append(f"| [{_md_cell(titles[name])}]({name}.md) | {_md_cell(what)} | "
                    f"{_md_cell(against)} | {_md_cell(parts)} |")
    out["index"] = (f"{note}# Benchmark results\n\n"
                    "Speed against the reference packages, values against published and "
                    "reference results, coverage of the intervals and bounds, and what the "
                    "re-annotation policies save on real crowd data: one page per topic.\n\n"
                    + "\n".join(rows) + "\n\n" + intro + "\n\n"
                    "```{toctree}\n:hidden:\n:maxdepth: 2\n\n" + "\n".join(order)
                    + "\n```\n")
    folder = docs / "benchmarks"
    folder.mkdir(exist_ok=True)
    written = []
    for name, text in out.items():
        path = folder / f"{name}.md"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    for old in folder.glob("*.md"):  # a topic that no longer has a section
        if old not in written:
            old.unlink()
    return written


# -- the command line reference ---------------------------------------------------------------

def _paragraphs(text: str) -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for block in (text or "").strip().split("\n\n"):
        if block.strip():
            if any(line.startswith("  ") for line in block.split("\n")[1:]):
                out.append(nodes.literal_block(block, block))
            else:
                out.append(nodes.paragraph("", " ".join(block.split())))
    return out


def _help_text(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The option's help as ``--help`` prints it (defaults filled in), on one line."""
    text = parser._get_formatter()._expand_help(action) if action.help else ""
    return " ".join(text.split())


def _invocation(action: argparse.Action) -> str:
    if not action.option_strings:
        return action.metavar or action.dest.upper() if not isinstance(action.metavar, tuple) \
            else " ".join(action.metavar)
    metavar = ""
    if action.nargs != 0:
        if action.metavar is not None:
            metavar = " ".join(action.metavar) if isinstance(action.metavar, tuple) else action.metavar
        elif action.choices:
            metavar = "{" + ",".join(map(str, action.choices)) + "}"
        else:
            metavar = action.dest.upper()
        if action.nargs in ("+", "*"):
            metavar += " ..."
    return ", ".join(f"{o} {metavar}".rstrip() for o in action.option_strings)


def _options(parser: argparse.ArgumentParser) -> list[nodes.Node]:
    """Each argument group of ``parser`` (as ``--help`` groups them): a rubric, then its
    options as a definition list."""
    out: list[nodes.Node] = []
    for group in parser._action_groups:
        actions = [a for a in group._group_actions
                   if not isinstance(a, argparse._SubParsersAction)
                   and a.help != argparse.SUPPRESS]
        if not actions:
            continue
        if len(parser._action_groups) > 2 or group.title not in ("options",
                                                                 "positional arguments"):
            out.append(nodes.rubric("", group.title))
        dl = nodes.definition_list()
        for action in actions:
            item = nodes.definition_list_item()
            term = nodes.term()
            term += nodes.literal("", _invocation(action))
            item += term
            definition = nodes.definition()
            definition += nodes.paragraph("", _help_text(parser, action))
            item += definition
            dl += item
        out.append(dl)
    return out


def _section(document, title: str, ident: str) -> nodes.section:
    section = nodes.section(ids=[ident], names=[ident])
    section += nodes.title("", "", nodes.literal("", title))
    document.note_explicit_target(section)
    return section


def _verb_sections(document, parser: argparse.ArgumentParser, path: str) -> list[nodes.Node]:
    out: list[nodes.Node] = []
    sub_actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for sub in sub_actions:
        helps = {c.dest: c.help for c in sub._choices_actions}
        for name, child in sub.choices.items():
            title = f"{path} {name}"
            section = _section(document, title, "cli-" + title.replace(" ", "-"))
            section += _paragraphs(child.description or helps.get(name, ""))
            usage = " ".join(child.format_usage().split())
            section += nodes.literal_block(usage, usage)
            section += _options(child)
            if child.epilog:
                section += _paragraphs(child.epilog)
            section += _verb_sections(document, child, title)
            out.append(section)
    return out


def verb_parsers() -> dict[str, argparse.ArgumentParser]:
    """Each verb of the ``goldnoise`` command and its parser, in the order of ``--help``."""
    from goldnoise._cli import build_parser

    parser = build_parser()
    return {name: child for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)
            for name, child in action.choices.items()}


class GoldnoiseCli(Directive):
    """``.. goldnoise-cli::`` -- the command's own usage and options (the page of the
    command); ``.. goldnoise-cli:: VERB`` -- one verb's reference (a page per verb):
    its description, usage, every option, and its sub-verbs as sections."""

    has_content = False
    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        from goldnoise._cli import build_parser

        if not self.arguments:
            parser = build_parser()
            out: list[nodes.Node] = _paragraphs(parser.description)
            usage = " ".join(parser.format_usage().split())
            out.append(nodes.literal_block(usage, usage))
            out += _options(parser)
            out += _paragraphs(parser.epilog)
            return out
        verb = self.arguments[0]
        parsers = verb_parsers()
        if verb not in parsers:
            raise self.error(f"goldnoise has no verb {verb!r}; its verbs: {', '.join(parsers)}")
        child = parsers[verb]
        out = _paragraphs(child.description or "")
        usage = " ".join(child.format_usage().split())
        out.append(nodes.literal_block(usage, usage))
        out += _options(child)
        if child.epilog:
            out += _paragraphs(child.epilog)
        out += _verb_sections(self.state.document, child, f"goldnoise {verb}")
        return out


# -- the table of packages and topics ---------------------------------------------------------

def _xref(target: str, shown: str) -> nodes.Node:
    ref = addnodes.pending_xref("", refdomain="py", reftype="obj", reftarget=target,
                                refexplicit=True, refwarn=False)
    ref += nodes.literal("", shown)
    return ref


class GoldnoisePackages(Directive):
    """``.. goldnoise-packages::`` -- one row per package and public subpackage."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"package": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        where = canonical_names()
        table = nodes.table(classes=["goldnoise-packages", "colwidths-given"])
        group = nodes.tgroup(cols=3)
        table += group
        for width in (18, 37, 45):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        body = nodes.tbody()
        group += body
        row = nodes.row()
        for text in ("package", "what", "names"):
            row += nodes.entry("", nodes.paragraph("", text))
        head += row
        for package in PACKAGES:
            module = importlib.import_module(package)
            subs = public_subpackages(package)
            sub_all = {s: list(getattr(importlib.import_module(s), "__all__", ())) for s in subs}
            in_subs = {n for names in sub_all.values() for n in names}
            own = [n for n in module.__all__ if n not in in_subs
                   and not _is_module(getattr(module, n))]
            for name, names in [(package, own), *sub_all.items()]:
                doc = _first_paragraph(name, plain=True).split(". ")[0].rstrip(".") + "."
                row = nodes.row()
                link = addnodes.pending_xref("", refdomain="std", reftype="ref",
                                             reftarget=f"api-{name}", refexplicit=True,
                                             refwarn=True)
                link += nodes.literal("", name)
                row += nodes.entry("", nodes.paragraph("", "", link))
                row += nodes.entry("", nodes.paragraph("", doc))
                cell = nodes.paragraph()
                src = importlib.import_module(name)
                for i, n in enumerate(names):
                    if i:
                        cell += nodes.Text(", ")
                    cell += _xref(where.get(id(getattr(src, n)), f"{name}.{n}"), n)
                row += nodes.entry("", cell)
                body += row
        return [table]


class GoldnoiseVerbs(Directive):
    """``.. goldnoise-verbs::`` -- one row per verb: its one-line help, linked to its reference."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from goldnoise._cli._main import verb_modules

        table = nodes.table(classes=["goldnoise-verbs"])
        group = nodes.tgroup(cols=2)
        table += group
        group += nodes.colspec(colwidth=20)
        group += nodes.colspec(colwidth=80)
        head = nodes.thead()
        row = nodes.row()
        for text in ("verb", "what it answers"):
            row += nodes.entry("", nodes.paragraph("", text))
        head += row
        group += head
        body = nodes.tbody()
        group += body
        for name, module in verb_modules().items():
            row = nodes.row()
            link = addnodes.pending_xref("", refdomain="std", reftype="ref",
                                         reftarget=f"cli-goldnoise-{name}", refexplicit=True,
                                         refwarn=True)
            link += nodes.literal("", f"goldnoise {name}")
            row += nodes.entry("", nodes.paragraph("", "", link))
            row += nodes.entry("", nodes.paragraph("", module.HELP))
            body += row
        return [table]


def index_line(module: str, name: str) -> str | None:
    """``NAME -- text`` of a package index (its docstring), continuation lines joined."""
    doc = importlib.import_module(module).__doc__ or ""
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        head = line.strip().split("--", 1)
        if len(head) == 2 and head[0].strip() == name:
            text = [head[1].strip()]
            indent = line.index("--") + 2
            for more in lines[i + 1:]:
                if more.strip() and len(more) - len(more.lstrip()) >= indent \
                        and "--" not in more:
                    text.append(more.strip())
                else:
                    break
            return " ".join(text)
    return None


def _data_docstring(app, what, name, obj, options, lines) -> None:
    """A constant (a tuple, a dict) has no docstring of its own: autodoc shows its type's.
    Use the line of the package index that describes it instead."""
    if what not in ("data", "attribute") or not lines:
        return
    doc = getattr(type(obj), "__doc__", None)
    own = doc.strip().splitlines() if isinstance(doc, str) else []
    first = next((line.strip() for line in lines if line.strip()), "")
    if not own or first != own[0].strip():
        return
    module, _, short = name.rpartition(".")
    text = index_line(module, short) if module else None
    if text:
        lines[:] = [text[0].upper() + text[1:].rstrip(".") + "."]


# -- the API index by task ---------------------------------------------------------------------

def _public_objects() -> dict[str, object]:
    """``{documented path: object}`` of every public name of the packages and their public
    subpackages."""
    where = canonical_names()
    out: dict[str, object] = {}
    for package in PACKAGES:
        modules = [package, *public_subpackages(package)]
        for name in modules:
            module = importlib.import_module(name)
            for short in getattr(module, "__all__", ()):
                obj = getattr(module, short)
                if not _is_module(obj) and id(obj) in where:
                    out.setdefault(where[id(obj)], obj)
    return out


def resolve_api_name(token: str, objects: dict[str, object]) -> str:
    """The documented path of ``token`` (a short name such as ``fleiss_kappa``, or a dotted
    tail such as ``report.Report``)."""
    found = [path for path in objects if path == token or path.endswith("." + token)]
    if len(found) != 1:
        raise ValueError(f"the API index names {token!r}, which is "
                         + (f"ambiguous ({', '.join(found)}): write more of its path"
                            if found else "no public name of the packages: remove it or "
                            "fix its spelling"))
    return found[0]


def _summary_line(path: str, obj: object) -> str:
    """The first paragraph of the object's docstring, or for a constant (a tuple, a dict:
    its docstring is its type's) the line of its package index."""
    if callable(obj) or isinstance(obj, type):
        doc = getattr(obj, "__doc__", None) or ""
    else:
        module, _, short = path.rpartition(".")
        doc = index_line(module, short) or ""
    first = _plain(" ".join(doc.strip().split("\n\n")[0].split()))
    return first[:1].upper() + first[1:]


class GoldnoiseApi(Directive):
    """``.. goldnoise-api::`` -- a table of public names (one per line of the content:
    short names or dotted tails), each linked to its page with the first line of its
    docstring. ``:results:``, ``:warnings:`` or ``:rest:`` instead list, of the names not
    yet listed on the page, the result classes, the warnings and errors, or all."""

    has_content = True
    option_spec: ClassVar[dict[str, Any]] = {"results": directives.flag,
                                             "warnings": directives.flag,
                                             "rest": directives.flag}

    def run(self) -> list[nodes.Node]:
        from _goldnoise_lib.results import ConfidenceInterval, Result

        env = self.state.document.settings.env
        listed: set[str] = env.temp_data.setdefault("goldnoise_api_listed", set())
        objects = _public_objects()
        if "results" in self.options or "warnings" in self.options or "rest" in self.options:
            def wanted(obj):
                if "rest" in self.options:
                    return True
                if not isinstance(obj, type):
                    return False
                if "warnings" in self.options:
                    return issubclass(obj, BaseException)
                return issubclass(obj, (Result, ConfidenceInterval)) \
                    or obj.__name__.endswith("Result")
            paths = sorted((p for p, o in objects.items() if p not in listed and wanted(o)),
                           key=lambda p: p.rsplit(".", 1)[1].lower())
        else:
            try:
                paths = [resolve_api_name(line.strip(), objects)
                         for line in self.content if line.strip()]
            except ValueError as err:
                raise self.error(str(err)) from err
        listed.update(paths)
        if not paths:
            return [nodes.paragraph("", "None.")]
        table = nodes.table(classes=["goldnoise-api"])
        group = nodes.tgroup(cols=2)
        table += group
        group += nodes.colspec(colwidth=30)
        group += nodes.colspec(colwidth=70)
        body = nodes.tbody()
        group += body
        for path in paths:
            row = nodes.row()
            shown = path.split(".", 1)[1] if path.count(".") > 1 else path.rsplit(".", 1)[1]
            row += nodes.entry("", nodes.paragraph("", "", _xref(path, shown)))
            row += nodes.entry("", nodes.paragraph("", _summary_line(path, objects[path])))
            body += row
        return [table]


# -- the papers each method implements ----------------------------------------------------------

def _reference_entries(obj: object) -> list[str]:
    """The entries of the References section of ``obj``'s numpydoc docstring, one line each."""
    import inspect

    from numpydoc.docscrape import NumpyDocString

    doc = inspect.getdoc(obj)
    if not doc:
        return []
    try:
        lines = NumpyDocString(doc)["References"]
    except Exception:  # a docstring numpydoc cannot read has no section to give
        return []
    entries, current = [], []
    for line in [*lines, ""]:
        starts = bool(current and current[-1].endswith(".")
                      and re.match(r"^[A-Z][\w'’ .&,-]*\(\d{4}", line.strip()))
        if not line.strip() or line.lstrip().startswith(".. [") or starts:
            if current:
                entries.append(" ".join(current))
            current = []
        if line.strip():
            current.append(re.sub(r"^\.\. \[\w+\]\s*", "", line.strip()))
    return [" ".join(e.replace("*", "").split()) for e in entries]


def references() -> list[tuple[str, list[str]]]:
    """``[(reference, [documented name, ...]), ...]``: every paper cited in the References
    of a public name's docstring, once (by authors and year), with the names citing it,
    sorted by the reference."""
    where = canonical_names()
    seen: dict[str, tuple[str, list[str]]] = {}
    names = sorted(set(where.values()))
    objects = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if not _is_module(obj):
                objects[where[id(obj)]] = obj
    for name in names:
        if name not in objects:
            continue
        for entry in _reference_entries(objects[name]):
            head = re.match(r"^(.*?\(\d{4}[a-z]?\))", entry)
            key = " ".join((head.group(1) if head else entry[:60]).lower().split())
            text = re.sub(r",\s*(§|eq\.|ch\.|section)[^.]*\.$", ".", entry)
            if key not in seen:
                seen[key] = (text, [])
            if name not in seen[key][1]:
                seen[key][1].append(name)
    return sorted(seen.values(), key=lambda pair: pair[0].lower())


class GoldnoiseReferences(Directive):
    """``.. goldnoise-references::`` -- every paper the docstrings cite, with the public
    names that implement it (each linked to its page)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        out = nodes.bullet_list()
        for text, names in references():
            item = nodes.list_item()
            para = nodes.paragraph()
            para += nodes.Text(text + " ")
            para += nodes.emphasis("", "Implemented in: ")
            for i, name in enumerate(names):
                if i:
                    para += nodes.Text(", ")
                para += _xref(name, name.rsplit(".", 1)[1])
            para += nodes.Text(".")
            item += para
            out += item
        return [out]


# -- the gallery's order ---------------------------------------------------------------------

#: The gallery's examples in reading order: the card's three questions first (how noisy,
#: does a κ claim hold, how many annotators and items), then the models, the judge and
#: re-annotation. An example not listed goes last, by name.
GALLERY_ORDER = (
    "plot_noise_bound_annotators.py", "plot_hard_count_posterior.py",
    "plot_max_disagreements.py", "plot_kappa_claim.py", "plot_coefficient_forest.py",
    "plot_category_kappas.py", "plot_study_width.py", "plot_judge_forest.py",
    "plot_ppi_gain.py", "plot_annotator_accuracy.py", "plot_hard_items.py",
    "plot_reliability_calibration.py", "plot_reannotation_policies.py",
    "plot_loss_separability.py", "plot_span_agreement_by_label.py")


class GalleryOrder:
    """sphinx-gallery's ``within_subsection_order``: the place in :data:`GALLERY_ORDER`."""

    def __init__(self, src_dir: str) -> None:
        self.src_dir = src_dir

    def __call__(self, filename: str) -> tuple[int, str]:
        name = Path(filename).name
        return (GALLERY_ORDER.index(name) if name in GALLERY_ORDER else len(GALLERY_ORDER),
                name)

    def __repr__(self) -> str:
        return "GalleryOrder"


# -- numpydoc sections: stray paragraphs to the Notes -----------------------------------------

#: The sections whose entries are ``name : type`` lines; text that is not an entry does
#: not belong in them.
_ENTRY_SECTIONS = {"Parameters", "Attributes", "Other Parameters"}
_ENTRY = re.compile(r"^\*{0,2}[A-Za-z_][\w.]*(\s*,\s*\*{0,2}[A-Za-z_][\w.]*)*\s*(:.*)?$")


def _section_starts(lines: list[str]) -> list[int]:
    """Indices of numpydoc section titles (a line underlined by dashes of its length)."""
    return [i for i in range(len(lines) - 1)
            if lines[i].strip() and not lines[i].startswith(" ")
            and set(lines[i + 1].strip()) == {"-"}
            and len(lines[i + 1].strip()) == len(lines[i].strip())]


def move_stray_paragraphs(lines: list[str]) -> list[str]:
    """``lines`` of a numpydoc docstring with the text after the entries of a
    Parameters/Attributes section moved to the start of its Notes (made if absent)."""
    starts = _section_starts(lines)
    bounds = [*starts, len(lines)]
    stray: list[str] = []
    keep = list(range(len(lines)))
    for k, start in enumerate(starts):
        if lines[start].strip() not in _ENTRY_SECTIONS:
            continue
        i, end = start + 2, bounds[k + 1]
        while i < end:
            line = lines[i]
            if line.strip() and not line.startswith(" ") and not _ENTRY.match(line):
                j = i
                while j < end and not (j > i and lines[j].strip()
                                       and not lines[j].startswith(" ")
                                       and _ENTRY.match(lines[j])):
                    j += 1
                stray += [*lines[i:j], ""]
                keep = [n for n in keep if not i <= n < j]
                i = j
            else:
                i += 1
    if not stray:
        return lines
    while stray and not stray[-1].strip():
        stray.pop()
    out = [lines[n] for n in keep]
    starts = _section_starts(out)
    notes = next((i for i in starts if out[i].strip() == "Notes"), None)
    if notes is not None:
        return [*out[:notes + 2], *stray, "", *out[notes + 2:]]
    after = [i for i in starts if out[i].strip() not in
             _ENTRY_SECTIONS | {"Returns", "Yields", "Receives", "Raises", "Warns", "Warnings",
                                "See Also", "Methods"}]
    at = after[0] if after else len(out)
    block = ["Notes", "-----", *stray, ""]
    if at and out[at - 1].strip():
        block.insert(0, "")
    return [*out[:at], *block, *out[at:]]


def _stray_paragraphs(app, what, name, obj, options, lines) -> None:
    lines[:] = move_stray_paragraphs(lines)


# -- math as MathML -----------------------------------------------------------------------------

#: Unicode symbols written into formulas of the docstrings, as the TeX that docutils'
#: converter reads.
_TEX_OF = {"∩": r"\cap ", "∪": r"\cup ", "−": "-", "×": r"\times ", "·": r"\cdot ",
           "≤": r"\le ", "≥": r"\ge ", "≠": r"\ne ", "∅": r"\emptyset ", "ℓ": r"\ell ",
           "Σ": r"\Sigma ", "δ": r"\delta ", "α": r"\alpha ", "κ": r"\kappa ", "γ": r"\gamma ",
           "ε": r"\varepsilon ", "π": r"\pi ", "∈": r"\in ", "…": r"\dots "}


def _mathml(latex: str, display: bool) -> str:
    from docutils.utils.math import latex2mathml

    tex = "".join(_TEX_OF.get(c, c) for c in latex)
    try:
        return latex2mathml.tex2mathml(tex, as_block=display)
    except Exception as err:  # a formula docutils cannot convert: fail the build, naming it
        raise ValueError(f"cannot render the formula {latex!r} as MathML: {err}") from err


def _visit_math(self, node) -> None:
    self.body.append(f'<span class="math">{_mathml(node.astext(), False)}</span>')
    raise nodes.SkipNode


def _visit_displaymath(self, node) -> None:
    latex = node["latex"] if "latex" in node else node.astext()
    self.body.append(self.starttag(node, "div", CLASS="math"))
    self.body.append(_mathml(latex, True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def _freeze_heap(app):
    # sphinx-gallery runs gc.collect() before each example; over Sphinx's whole heap that
    # is about 0.2 s an example. Objects alive before the gallery runs are moved out of
    # the collector's reach (gc.freeze), and handed back once it has run.
    gc.freeze()


def _unfreeze_heap(app, env, docnames):
    gc.unfreeze()


def setup(app):
    app.connect("builder-inited", _freeze_heap, priority=100)
    app.connect("env-before-read-docs", _unfreeze_heap)
    app.add_html_math_renderer("mathml", (_visit_math, None), (_visit_displaymath, None))
    app.connect("autodoc-process-docstring", _stray_paragraphs, priority=400)
    app.connect("autodoc-process-docstring", _data_docstring)
    app.add_directive("goldnoise-verbs", GoldnoiseVerbs)
    app.add_directive("goldnoise-cli", GoldnoiseCli)
    app.add_directive("goldnoise-packages", GoldnoisePackages)
    app.add_directive("goldnoise-references", GoldnoiseReferences)
    app.add_directive("goldnoise-api", GoldnoiseApi)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
