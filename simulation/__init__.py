"""Simulation, the bootstrap and model cross-checks (SPEC §3).

One public subpackage per topic; every public name is also importable from here.

Generators (simulation.generators)
----------------------------------
simulate_annotations  -- labels under the easy/hard model M1 or M2 with the hidden truth
                         (hard items, classes, annotator biases and errors, missing ratings)
                                                                   -> SimulatedAnnotations

Bootstrap (simulation.bootstrap)
--------------------------------
bootstrap        -- intervals of any coefficients from the same resamples of items:
                    percentile, basic, BCa; multinomial or Poisson keyed by item id
                                                                   -> BootstrapResult

Calibration (simulation.calibration)
------------------------------------
gamma_coverage            -- how often the true hard share of the agreed items is ≤ γ,
                             per true hard count                           -> DataFrame
verified_sample_coverage  -- the same for verified_sample_bound             -> DataFrame
"""

from simulation.bootstrap import BootstrapResult, bootstrap
from simulation.calibration import gamma_coverage, verified_sample_coverage
from simulation.generators import SimulatedAnnotations, simulate_annotations

__all__: list[str] = [
    "BootstrapResult",
    "SimulatedAnnotations",
    "bootstrap",
    "gamma_coverage",
    "simulate_annotations",
    "verified_sample_coverage",
]
