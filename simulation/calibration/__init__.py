"""Calibration: how often the bounds hold, by simulation (SPEC §3, "Calibration of γ").

gamma_coverage            -- coverage of the noise bound γ across true hard counts
                             (p known or estimated; model M1, or M2 with errors on easy
                             items)                                         -> DataFrame
verified_sample_coverage  -- coverage of verified_sample_bound across true error counts
                                                                            -> DataFrame
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.calibration._gamma import gamma_coverage
    from simulation.calibration._verified import verified_sample_coverage

__getattr__, __dir__, __all__ = lazy_package(__name__)
