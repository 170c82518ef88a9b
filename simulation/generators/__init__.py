"""Labels with a known truth (SPEC §3, "Generators").

simulate_annotations  -- labels under the easy/hard model M1 or M2 with the hidden truth
                         (hard items, classes, annotator biases and errors, missing ratings)
                                                                   -> SimulatedAnnotations

simulate_spans        -- span annotations copied from true spans with boundary, label and
                         missed-span errors (or drawn independently)   -> SimulatedSpans

Modules: ``_annotations`` (the generator and its result), ``_spans`` (spans).
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.generators._annotations import SimulatedAnnotations, simulate_annotations
    from simulation.generators._spans import SimulatedSpans, simulate_spans

__getattr__, __dir__, __all__ = lazy_package(__name__)
