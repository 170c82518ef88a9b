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
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
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


def _first_paragraph(module: str) -> str:
    """The first paragraph of a module's docstring, on one line (package indexes are plain
    text, not reST, so only their opening sentence is shown)."""
    doc = (importlib.import_module(module).__doc__ or "").strip().split("\n\n")[0]
    return " ".join(doc.split())


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


class GoldnoiseCli(Directive):
    """``.. goldnoise-cli::`` -- the reference of every verb, from the parsers."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from goldnoise._cli import build_parser

        parser = build_parser()
        out: list[nodes.Node] = _paragraphs(parser.description)
        usage = " ".join(parser.format_usage().split())
        out.append(nodes.literal_block(usage, usage))
        out += _options(parser)
        out += _paragraphs(parser.epilog)
        out += _verb_sections(self.state.document, parser, "goldnoise")
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
                doc = _first_paragraph(name).split(". ")[0].rstrip(".") + "."
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


def setup(app):
    app.connect("autodoc-process-docstring", _data_docstring)
    app.add_directive("goldnoise-verbs", GoldnoiseVerbs)
    app.add_directive("goldnoise-cli", GoldnoiseCli)
    app.add_directive("goldnoise-packages", GoldnoisePackages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
