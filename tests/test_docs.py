"""The documentation site builds with warnings as errors, offline, and is complete.

The site (docs/) is built once per session with ``sphinx-build -W`` into a temporary
folder; the tests then read the HTML: every public name of the four packages has its entry
in the API reference, every verb and option is on its page of the command-line reference,
every benchmark section and bundled data set is on its page, the gallery's scripts ran and
drew their figures, math is MathML (no script from a CDN), and no page shows raw reST. The
examples of the guide pages are run by tests/test_readme.py.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PACKAGES = ("agreement", "noise_models", "simulation", "goldnoise")

# One build for the module (pytest-xdist runs a file in one worker: `--dist loadfile`).

pytest.importorskip("sphinx", reason="the docs extra is not installed (pip install -e '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    # The build writes pages into its source folder (the API stubs, the gallery, the
    # benchmark pages): it builds a copy, so that nothing else that reads or writes docs/
    # meanwhile meets a half-written file (the gallery's thumbnails were seen to vanish).
    out = tmp_path_factory.mktemp("site")
    src = out / "src"
    shutil.copytree(DOCS, src / "docs", ignore=shutil.ignore_patterns(
        "_build", "gallery", "generated", "sg_execution_times.rst"))
    for name in ("goldnoise", "benchmarks"):  # pages include ../goldnoise/data, ../benchmarks
        (src / name).symlink_to(ROOT / name, target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html",
         "-d", str(out / "doctrees"), str(src / "docs"), str(out / "html")],
        capture_output=True, text=True, env=env, timeout=900, cwd=src)
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
    importlib.import_module("goldnoise")  # before the patch: its names are read at import

    def brand_new_statistic():
        """A statistic added after the docs were written."""

    monkeypatch.setattr(agreement, "brand_new_statistic", brand_new_statistic, raising=False)
    monkeypatch.setattr(agreement, "__all__", [*agreement.__all__, "brand_new_statistic"])
    page = goldnoise_docs.api_page("agreement", goldnoise_docs.canonical_names())
    assert "~agreement.brand_new_statistic" in page
    front = goldnoise_docs.api_page("goldnoise", goldnoise_docs.canonical_names())
    assert "brand_new_statistic" not in front  # not exported by goldnoise: not listed there


def _article(path: Path) -> str:
    """The text of the page's article (no navigation, no sidebars)."""
    html = path.read_text().split("<article", 1)[1].split("</article>", 1)[0]
    return re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">")


def _pages(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.html"))


def test_every_verb_and_option_is_in_the_cli_reference(site):
    from goldnoise._cli import build_parser

    html = "".join(p.read_text() for p in _pages(site / "cli"))
    text = "".join(_text(p) for p in _pages(site / "cli"))
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
    text = "".join(_text(p) for p in _pages(site / "benchmarks"))
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


def test_every_verb_has_its_page_in_the_cli_index(site):
    from goldnoise._cli import VERBS

    index = (DOCS / "cli" / "index.md").read_text()
    toctree = index.split("```{toctree}", 1)[1].split("```", 1)[0]
    listed = [line.strip() for line in toctree.splitlines()
              if line.strip() and not line.startswith(":")]
    assert sorted(listed) == sorted(VERBS)
    for verb in VERBS:
        page = site / "cli" / f"{verb}.html"
        assert page.exists(), verb
        assert f'id="cli-goldnoise-{verb}"' in page.read_text(), verb
        # its page holds its own reference, not every verb's
        others = [v for v in VERBS if v != verb and f'id="cli-goldnoise-{v}"'
                  in page.read_text()]
        assert not others, (verb, others)


def test_benchmarks_are_split_by_topic_with_a_summary_table_first(site):
    pages = {p.stem for p in _pages(site / "benchmarks")}
    assert "index" in pages and len(pages) >= 6
    assert "other" not in pages, "a RESULTS.md section matches no topic of BENCHMARK_TOPICS"
    index = (site / "benchmarks" / "index.html").read_text()
    main = index.split('<article', 1)[1]
    assert main.index("<table") < main.index("<p>Medians of warm runs")
    for page in pages - {"index"}:
        assert f'href="{page}.html"' in main, page


def test_the_gallery_ran_and_drew_at_least_twelve_figures(site):
    examples = sorted((DOCS / "examples").glob("plot_*.py"))
    assert len(examples) >= 12
    drawn = []
    for script in examples:
        page = site / "gallery" / f"{script.stem}.html"
        assert page.exists(), script.name
        figures = re.findall(rf'src="[^"]*sphx_glr_{script.stem}_\d+\.png"', page.read_text())
        assert figures, f"{script.name} drew no figure"
        assert (site / "_images" / f"sphx_glr_{script.stem}_001.png").stat().st_size > 5000
        drawn.append(script.stem)
    assert len(drawn) >= 12
    index = (site / "gallery" / "index.html").read_text()
    assert index.count("sphx-glr-thumbcontainer") >= 12


def test_the_gallery_uses_only_public_names_and_bundled_or_simulated_data():
    for script in (DOCS / "examples").glob("plot_*.py"):
        code = script.read_text()
        assert "shared" not in code and "read_csv" not in code, script.name
        for module in re.findall(r"^\s*(?:from|import) ([\w.]+)", code, flags=re.M):
            assert not any(part.startswith("_") for part in module.split(".")), (script.name,
                                                                               module)


RAW = re.compile(r":(?:meth|func|class|attr|mod|data|obj|math|ref|doc):`|``\w|\\\(|\\\[")


def test_no_page_shows_raw_markup_and_math_is_mathml(site):
    shown, scripts = [], []
    for page in site.rglob("*.html"):
        html = page.read_text()
        if "mathjax" in html.lower():
            scripts.append(str(page.relative_to(site)))
        body = html.split('<article', 1)[-1]
        body = re.sub(r"<!--.*?-->|<pre.*?</pre>|<script.*?</script>|<math.*?</math>", "",
                      body, flags=re.S)
        text = re.sub(r"<[^>]+>", "", body)
        hit = RAW.search(text)
        if hit:
            where = text[max(hit.start() - 40, 0):hit.end() + 40]
            shown.append(f"{page.relative_to(site)}: {where!r}")
    assert not scripts, scripts
    assert not shown, shown[:10]
    alt = (site / "api" / "generated" / "agreement.alt_test.html").read_text()
    assert "<math" in alt


def test_result_pages_list_their_inherited_methods(site):
    from _goldnoise_lib.results import Result

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import goldnoise_docs
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    missing = []
    for path in goldnoise_docs.canonical_names().values():
        package, _, name = path.partition(".")
        obj = getattr(importlib.import_module(package), name.split(".")[-1], None) \
            if "." not in name else None
        if not (isinstance(obj, type) and issubclass(obj, Result)):
            continue
        html = (site / "api" / "generated" / f"{path}.html").read_text()
        for method in ("to_dict", "to_frame", "summary"):
            if f'id="{path}.{method}"' not in html:
                missing.append(f"{path}.{method}")
    assert not missing, missing


def test_the_api_index_is_grouped_by_task_coefficients_first_results_last(site):
    text = _article(site / "api" / "index.html")
    order = ["Agreement coefficients", "The noise bound", "Latent-class models", "Judges",
             "Planning", "Result classes", "Warnings and errors"]
    where = [text.index(title) for title in order]
    assert where == sorted(where)
    assert text.index("fleiss_kappa") < text.index("noise_bound") < text.index("NoiseBoundResult")


def test_citation_file_and_the_cite_and_glossary_pages(site):
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"].startswith("1.2")
    assert "goldnoise" in cff["title"]
    assert any("Beigman" in a["family-names"] for r in cff["references"]
               for a in r["authors"] if "family-names" in a)
    cite = _text(site / "cite.html")
    for paper in ("Beigman Klebanov", "Dawid", "Calderon", "Krippendorff", "Fleiss"):
        assert paper in cite, paper
    glossary = (site / "glossary.html").read_text()
    for term in ("easy item", "hard item", "agreed subset", "latent class", "posterior", "ECE",
                 "PPI", "swap test", "Alt-Test", "margin δ", "γ"):
        assert re.search(rf'<dt id="term-[^"]*">{re.escape(term)}<', glossary), term


def test_the_guide_opens_with_the_three_questions(site):
    text = _article(site / "guide" / "index.html")
    questions = ["How noisy is my gold standard?", "Does this κ claim hold up?",
                 "How many annotators do I need?"]
    where = [text.find(q) for q in questions]
    assert -1 not in where and where == sorted(where)
    assert where[-1] < text.find("Every page")
    judge = _article(site / "guide" / "judge.html")
    assert "How to choose the margin δ" in judge
