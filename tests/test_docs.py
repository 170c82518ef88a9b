"""The documentation site builds with warnings as errors, offline, and is complete.

The site (docs/) is built once per session with ``sphinx-build -W`` into a temporary
folder; the tests then read the HTML: every public name of the four packages has its entry
in the API reference, every verb and option is in the command-line reference, every
benchmark section and bundled data set is on its page. The examples of the guide pages are
run by tests/test_readme.py.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PACKAGES = ("agreement", "noise_models", "simulation", "goldnoise")

# One build, in one worker: sphinx's autosummary writes its stub pages into docs/api, so two
# builds at once (one per pytest-xdist worker) would write the same files.
pytestmark = pytest.mark.xdist_group("docs")

pytest.importorskip("sphinx", reason="the docs extra is not installed (pip install -e '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html",
         "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        capture_output=True, text=True, env=env, timeout=900)
    assert run.returncode == 0, run.stderr[-5000:]
    assert "WARNING" not in run.stderr and "ERROR" not in run.stderr, run.stderr[-5000:]
    return out / "html"


def _text(path: Path) -> str:
    """The page's text: tags dropped, entities of the names we look for undone."""
    html = path.read_text()
    return re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">")


def test_the_build_needs_no_network():
    # No extension that fetches (intersphinx inventories) or executes notebooks.
    import ast

    tree = ast.parse((DOCS / "conf.py").read_text())
    extensions = next(ast.literal_eval(node.value) for node in tree.body
                      if isinstance(node, ast.Assign)
                      and any(getattr(t, "id", "") == "extensions" for t in node.targets))
    assert "myst_parser" in extensions
    assert not {"sphinx.ext.intersphinx", "myst_nb", "nbsphinx", "jupyter_sphinx"} & set(extensions)


def test_every_public_name_is_in_the_api_reference(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import goldnoise_docs
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    where = goldnoise_docs.canonical_names()
    missing = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        page = site / "api" / f"{package}.html"
        html = page.read_text()
        for name in module.__all__:
            obj = getattr(module, name)
            if type(obj).__name__ == "module":
                # a public submodule: its own section on the package's page
                if f'id="{package}-{name}"' not in html and f">{package}.{name}<" not in html:
                    missing.append(f"{package}.{name} (section)")
                continue
            if f'<span class="pre">{name}</span>' not in html:
                missing.append(f"{package}.{name} (on {page.name})")
            target = where[id(obj)]
            if not (site / "api" / "generated" / f"{target}.html").exists():
                missing.append(f"{package}.{name} (its page {target}.html)")
    assert not missing, missing


def test_names_of_public_subpackages_are_in_the_api_reference(site):
    # e.g. goldnoise.report.Report, goldnoise.datasets.load_fleiss1971, agreement.spans.MATCHES
    missing = []
    for package in PACKAGES:
        html = (site / "api" / f"{package}.html").read_text()
        parent = importlib.import_module(package)
        for info in __import__("pkgutil").iter_modules(parent.__path__):
            if info.name.startswith("_"):
                continue
            sub = importlib.import_module(f"{package}.{info.name}")
            for name in getattr(sub, "__all__", ()):
                if f'<span class="pre">{name}</span>' not in html:
                    missing.append(f"{package}.{info.name}.{name}")
    assert not missing, missing


def test_a_name_added_to_an_index_appears_without_editing_the_docs(monkeypatch):
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import goldnoise_docs
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    import agreement

    def brand_new_statistic():
        """A statistic added after the docs were written."""

    monkeypatch.setattr(agreement, "brand_new_statistic", brand_new_statistic, raising=False)
    monkeypatch.setattr(agreement, "__all__", [*agreement.__all__, "brand_new_statistic"])
    page = goldnoise_docs.api_page("agreement", goldnoise_docs.canonical_names())
    assert "~agreement.brand_new_statistic" in page
    goldnoise = goldnoise_docs.api_page("goldnoise", goldnoise_docs.canonical_names())
    assert "brand_new_statistic" not in goldnoise  # not exported by goldnoise: not listed there


def test_every_verb_and_option_is_in_the_cli_reference(site):
    from goldnoise._cli import build_parser

    html = (site / "cli.html").read_text()
    text = _text(site / "cli.html")
    parser = build_parser()

    def walk(p, path):
        for action in p._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for name, child in action.choices.items():
                    title = f"{path} {name}"
                    assert f'id="cli-{title.replace(" ", "-")}"' in html, title
                    walk(child, title)
            else:
                for option in action.option_strings:
                    assert option in text, f"{path}: {option}"

    walk(parser, "goldnoise")
    # option strings keep their two hyphens (no typographic dashes)
    assert "–example" not in text and "--example fleiss1971" in text


def test_the_packages_table_lists_every_name(site):
    text = _text(site / "guide" / "packages.html")
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            if type(getattr(module, name)).__name__ != "module":
                assert name in text, f"{package}.{name}"
    from goldnoise._cli import VERBS

    for verb in VERBS:
        assert f"goldnoise {verb}" in text, verb


def test_benchmarks_and_data_sets_pages(site):
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    text = _text(site / "benchmarks.html")
    for heading in re.findall(r"^## (.+)$", results, flags=re.M):
        plain = re.sub(r"`([^`]*)`", r"\1", heading).replace("&", "&amp;")
        assert plain.replace("&amp;", "&") in text.replace("&amp;", "&"), heading
    data = _text(site / "datasets.html")
    import goldnoise

    for loader in goldnoise.datasets.__all__:
        assert loader in data, loader
    for row in re.findall(r"^\| (\w+\.csv) \|", (ROOT / "goldnoise" / "data" / "README.md")
                          .read_text(), flags=re.M):
        assert row in data, row


def test_every_guide_page_is_in_the_guide_index():
    index = (DOCS / "guide" / "index.md").read_text()
    toctree = index.split("```{toctree}", 1)[1].split("```", 1)[0]
    listed = {line.strip() for line in toctree.splitlines() if line.strip()
              and not line.startswith(":")}
    pages = {p.stem for p in (DOCS / "guide").glob("*.md")} - {"index"}
    assert pages == listed
