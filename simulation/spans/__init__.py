"""Intervals of span statistics: the bootstrap over documents (SPEC §7).

span_intervals  -- span F1 (pooled and per label), Krippendorff's α_u, |u|α, cuα and the
                   token-level coefficients with intervals from the same resamples of
                   documents (the engine's multinomial draws; percentile, basic, BCa)
                                                                   -> BootstrapResult
                   (fewer than 10 documents: a CoNLL file's sentences are
                   resampled instead, with a warning; without them, refused)

Modules: ``_intervals``.
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.spans._intervals import span_intervals

__getattr__, __dir__ = lazy_package(__name__)

__all__ = ["span_intervals"]
