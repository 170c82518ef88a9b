"""goldnoise: what your annotations are actually worth.

The public API of the four packages, re-exported in one namespace:

* :mod:`agreement` -- rating data (:class:`Ratings`) and every agreement
  coefficient with its standard error and interval;
* :mod:`noise_models` -- the easy/hard model: the noise bound γ, κ audits,
  planning, chance-difference margins, latent-class fits, instance dependence;
* :mod:`simulation` -- labels with known truth (generators, noising protocols,
  realistic noise), the bootstrap engine, model scores from files, label-error
  detection, the cross-check, study planning;
* :func:`audit` -- every section of ``goldnoise audit`` as one
  :class:`AuditResult` (its ``to_dict()`` is the JSON report of
  :mod:`goldnoise.report`, whose schema is a documented contract);
* :mod:`goldnoise.datasets` -- bundled real data sets.

The ``goldnoise`` command (``goldnoise audit --example fleiss1971``) is the
front door for people who do not write Python.

Examples
--------
>>> import goldnoise as gn
>>> ratings = gn.Ratings.from_wide(gn.datasets.load_fleiss1971())
>>> round(gn.fleiss_kappa(ratings).value, 3)
0.43
>>> gn.noise_bound(1000, 100, 0.5).gamma  # SPEC §2.3: 125 of 900 agreed items
0.1388888888888889
"""

from agreement import *  # noqa: F403
from agreement import __all__ as _agreement_all
from goldnoise import datasets, report
from goldnoise._audit import AuditResult, audit
from goldnoise._version import __version__  # noqa: F401
from noise_models import *  # noqa: F403
from noise_models import __all__ as _noise_models_all
from simulation import *  # noqa: F403
from simulation import __all__ as _simulation_all

__all__ = [*_agreement_all, *_noise_models_all, *_simulation_all, "AuditResult", "audit",
           "datasets", "report"]
