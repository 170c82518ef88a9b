"""goldnoise: what your annotations are actually worth.

The public API of the three packages below it, re-exported in one namespace
(layered agreement <- noise_models <- simulation <- goldnoise):

* :mod:`agreement` -- rating data (:class:`Ratings`), every agreement coefficient
  with its standard error and interval, per-category κ, the agreement of spans and
  tokens with readers for CoNLL, brat, Label Studio and doccano/Prodigy
  (:mod:`agreement.spans`), and per-item statistics and partial -> combine ->
  finalize sums for ratings larger than memory;
* :mod:`noise_models` -- models of label noise: the easy/hard model's answers from
  counts (the noise bound γ, κ audits, planning, chance margins), the latent-class
  family fitted by EM (the paper's easy/hard model, Dawid–Skene, MACE) with its
  held-out check, calibration, the agreed-error bracket and verified samples, the
  instance dependence of noise read from soft labels, and prediction-powered
  estimates from a judge on every item and humans on some (``judge_estimate``,
  ``ppi_mean``), which items humans should label (``active_sample``), and pairwise
  preferences: Bradley–Terry rankings with rank-sets and drop-k (``rank_systems``),
  position bias and the preference audit (``preference_audit``);
* :mod:`simulation` -- generators of labels with known truth, the bootstrap engine,
  coverage calibration of γ and of the verified-sample bound, model scores from
  files, noising protocols, label-error detection, the cross-check of a model
  against the annotation model, study planning (``judge_plan`` once a judge labels
  every item), and re-annotation with expert checks and the stopping bound;
* :func:`audit` -- every section of ``goldnoise audit`` as one
  :class:`AuditResult` (its ``to_dict()`` is the JSON report of
  :mod:`goldnoise.report`, whose schema is a documented contract);
* :func:`judge_audit` -- may a model (an LLM judge, a classifier) replace or join
  the human annotators: the swap and join tests with paired bootstrap intervals,
  the Alt-Test beside them, the judge inside the latent-class fit
  (:class:`JudgeAuditResult`);
* :mod:`goldnoise.datasets` -- bundled real data sets;
* :mod:`goldnoise.dask` -- the statistics over partitioned Parquet on Dask (the
  ``dask`` extra; imported only on request).

The ``goldnoise`` command (``goldnoise audit --example fleiss1971``; ``goldnoise
--help`` lists its verbs) is the front door for people who do not write Python.

Examples
--------
>>> import goldnoise as gn
>>> ratings = gn.Ratings.from_wide(gn.datasets.load_fleiss1971())
>>> round(gn.fleiss_kappa(ratings).value, 3)
0.43
>>> gn.noise_bound(1000, 100, 0.5).gamma  # SPEC §2.3: 125 of 900 agreed items
0.1388888888888889
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package
from _goldnoise_lib.version import __version__

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from agreement import *  # noqa: F403
    from goldnoise import datasets, report
    from goldnoise._audit import AuditResult, audit
    from noise_models import *  # noqa: F403
    from simulation import *  # noqa: F403

__getattr__, __dir__, __all__ = lazy_package(__name__)
