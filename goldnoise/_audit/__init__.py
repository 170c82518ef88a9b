"""The audit as a public function, and the report sections it is made of (private).

* :func:`audit` -- every section of ``goldnoise audit`` as one :class:`AuditResult`;
* :class:`AuditResult` -- γ as headline; ``to_dict()`` is the JSON report
  (:mod:`goldnoise.report`), ``summary()`` its text.

The private modules build the sections: ``_sections`` (data, agreement, noise
bound, κ reading, margin), ``_latent`` (latent-class fit, hard items, bracket,
gold; shared with ``goldnoise fit``), ``_bootstrap``, ``_dask`` (the audit over
Dask partitions), ``_figures`` (plot specs), ``_text`` (formatting),
``_progress`` (progress bars).
"""

from goldnoise._audit._audit import AuditResult, audit

__all__ = ["AuditResult", "audit"]
