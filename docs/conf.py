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
goldnoise_docs.write_benchmark_pages(DOCS)

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
    "sphinx_gallery.gen_gallery",
    "goldnoise_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "api/generated/*.md", "examples/*", "gallery/*.ipynb", "gallery/*.py",
                    "gallery/*.zip", "gallery/*.json"]
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

# The gallery: docs/examples/plot_*.py run at every build (Agg backend, no
# network); their figures and printed output go into docs/gallery/ (not in git).
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "goldnoise_docs.GalleryOrder",
    "abort_on_example_error": True,
    "run_stale_examples": True,
    "download_all_examples": False,
    "backreferences_dir": None,
    "doc_module": (),
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "remove_config_comments": True,
    "min_reported_time": 3600,
    "show_memory": False,
    "show_signature": False,
    "write_computation_times": False,
    "first_notebook_cell": None,
    "capture_repr": ("__repr__",),
}

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
html_sidebars = {name: [] for name in ("index", "datasets", "glossary", "cite", "changelog")}

# Math as MathML written at build time (docs/_ext/goldnoise_docs.py): no MathJax, no CDN.
html_math_renderer = "mathml"
