"""The ``goldnoise`` command line: one module per verb, one output layer.

Verbs (in the order of :data:`~goldnoise._cli._main.VERBS` and ``goldnoise --help``)
-----
``audit``       -- what a set of annotations is worth (agreement, γ, the κ claim,
                   the chance margin, the latent-class fit, the agreed-error bracket)
``fit``         -- a latent-class model's label, posterior and hard posterior per item
``kappa``       -- what a reported κ implies: easy items, noise of the agreed items, γ
``bound``       -- γ from counts: ``goldnoise bound N D P``
``plan``        -- how many annotators to hire for a target γ
``study``       -- how many items an agreement study needs for an interval's width or a
                   test's power
``spans``       -- agreement of span annotations: F1 per label, pair and document;
                   γ of the agreed candidate spans and the spans most likely wrong
``consistency`` -- label consistency across subsets: span F1 of models trained under
                   several conditions, paired intervals of the differences, a verdict
``detect``      -- items ranked by how likely their label is wrong, from model scores
``crosscheck``  -- a model's label-error ranking beside the annotation model, a verdict
``judge``       -- may a model replace or join the annotators: swap and join tests with
                   paired intervals, the Alt-Test, the judge inside the latent-class fit
``next``        -- the items that get one more rating (re-annotation policies)
``verify``      -- items for expert checks: most likely wrong, and a random sample
``certify``     -- a bound on the wrong labels left, from expert-checked items
``simulate``    -- simulation studies: ``simulate coverage`` (how often γ or the
                   verified-sample bound holds), ``simulate noise`` (similarity-based
                   noisy labels), ``simulate voters`` (voter-pool soft labels),
                   ``simulate separability`` (how well a loss separates noisy items)
``examples``    -- the bundled data sets

How the pieces fit
------------------
* ``_main.py`` builds the parser from :data:`VERBS` and runs the chosen verb;
  errors become one line on stderr (exit 1 for data that cannot be used, 2 for
  usage errors; ``_errors.py``), Python warnings become notes of the report, a
  closed pipe ends quietly.
* :mod:`goldnoise.report` -- the :class:`~goldnoise.report.Report` a verb returns
  (sections of lines, values, tables, notes, figures) and its text, markdown,
  JSON and CSV renderings; its docstring is the JSON schema (``_report.py`` keeps
  the classes under their earlier private name).
* ``_output.py`` -- the output options every verb gets (``--format``,
  ``--out``, ``--json``, ``--quiet``, ``--plot DIR``, ``--report FILE.html``).
* ``_input.py`` -- the ratings options (``FILE``, ``--example``, ``--layout``,
  ``--item``, ``--rater``, ``--label``, ``--sep``, ``--transpose``, ``--gold``)
  and the hints for common mistakes, shared by every verb that reads ratings;
  ``_reading.py`` -- reading one table from a file (suffixes, separators, one-line errors).
* ``_scores.py`` -- the model-score options and loading shared by ``detect`` and
  ``crosscheck``; ``_dask.py`` -- ``audit --engine dask``; ``_common.py`` --
  argument types.
* ``_html.py``, ``_plots.py`` -- the HTML page and the PNG/SVG plots.

Adding a verb
-------------
1. Write ``goldnoise/_cli/<verb>.py`` with

   * ``HELP`` -- one line for ``goldnoise --help`` (and ``DESCRIPTION``, optional);
   * ``add_arguments(parser)`` -- the verb's own options, each with ``help=``
     (defaults are shown automatically); call
     :func:`~goldnoise._cli._input.add_ratings_arguments` if it reads ratings;
   * ``run(args) -> Report`` -- compute, and return a
     :class:`~goldnoise.report.Report`: never print, never call
     ``sys.exit``; raise :class:`~goldnoise._cli._errors.UsageError` or
     :class:`~goldnoise._cli._errors.DataError` with a one-line message for the
     user; a section the data do not allow is kept and marked with
     ``section.undefined("why, in words")``.

   Keep imports of numpy, pandas and the computing packages inside ``run``, so
   that ``goldnoise --help`` stays fast.
2. Add its name to :data:`VERBS` in ``_main.py`` (its place there is its place in ``--help``).
3. Test it through the console script (``tests/test_cli.py`` shows how).

A verb with sub-verbs (``goldnoise simulate coverage``) adds its own
subparsers in ``add_arguments`` and dispatches in ``run``.
"""

from __future__ import annotations

from goldnoise._cli._compile import KIND_MESSAGE, MESSAGE, MESSAGES, compile_notice
from goldnoise._cli._main import VERBS, build_parser, main

# The command line's face (tests drive the command through it): the verbs, the parser,
# ``main``, and the notice printed while kernels compile.
__all__ = ["KIND_MESSAGE", "MESSAGE", "MESSAGES", "VERBS", "build_parser", "compile_notice",
           "main"]
