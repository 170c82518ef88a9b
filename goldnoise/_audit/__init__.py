"""The audit as a public function, and the report sections it is made of (private).

* :func:`audit` -- every section of ``goldnoise audit`` as one :class:`AuditResult`;
* :class:`AuditResult` -- γ as headline; ``to_dict()`` is the JSON report
  (:mod:`goldnoise.report`), ``summary()`` its text.

The private modules build the sections: ``_sections`` (data, agreement, noise
bound, κ reading, margin), ``_latent`` (latent-class fit, hard items, bracket,
gold; shared with ``goldnoise fit``), ``_bootstrap``, ``_options`` (the options as one
object passed through the paths), ``_dask`` (the audit over
Dask partitions), ``_figures`` (plot specs), ``_text`` (formatting),
``_progress`` (progress bars).

The face the command line uses (``goldnoise._cli`` imports these, never the modules):
``LEVELS``, ``MODELS``, ``fit_report``, ``posterior_figure``, ``gamma_by_k``, ``progress``
and the text helpers ``capped_margin``, ``capture_notes``, ``p_text``, ``pct``, ``plural``.
"""

from goldnoise._audit._audit import LEVELS, AuditResult, audit
from goldnoise._audit._figures import gamma_by_k
from goldnoise._audit._latent import MODELS, fit_report
from goldnoise._audit._progress import progress
from goldnoise._audit._sections import posterior_figure
from goldnoise._audit._text import capped_margin, capture_notes, p_text, pct, plural

__all__ = ["LEVELS", "MODELS", "AuditResult", "audit", "capped_margin", "capture_notes",
           "fit_report", "gamma_by_k", "p_text", "pct", "plural", "posterior_figure",
           "progress"]
