"""Sphinx configuration of the goldnoise documentation (``sphinx-build -W docs OUT``).

Offline: no intersphinx, no notebook execution. The API pages are written from the
packages' ``__all__`` at every build (``_ext/goldnoise_docs.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(ROOT), str(DOCS / "_ext")]

import goldnoise_docs  # noqa: E402

from _goldnoise_lib.version import __version__  # noqa: E402

goldnoise_docs.write_api_pages(DOCS)

project = "goldnoise"
author = "goldnoise developers"
copyright = "goldnoise developers, BSD-3-Clause"
release = __version__
version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "goldnoise_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "api/generated/*.md"]
templates_path = ["_templates"]

# Options are written with two hyphens: no smart dashes or quotes anywhere.
smartquotes = False

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = f"goldnoise {release}"
html_static_path = ["_static"]
html_css_files = ["goldnoise.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
# Pages outside the guide and the API reference have no section navigation to show.
html_sidebars = {name: [] for name in ("index", "cli", "benchmarks", "datasets", "changelog")}
