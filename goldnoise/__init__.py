"""goldnoise: what your annotations are actually worth.

The public API of the four packages, re-exported:

* :mod:`agreement` -- rating data and agreement coefficients;
* :mod:`noise_models` -- the easy/hard noise model, γ, κ audits, planning;
* :mod:`simulation` -- generators, the bootstrap, calibration, model scores;
* :mod:`goldnoise.datasets` -- bundled real data sets.
"""

from agreement import *  # noqa: F403
from agreement import __all__ as _agreement_all

from goldnoise import datasets

__version__ = "0.1.0.dev0"

__all__ = [*_agreement_all, "datasets"]
