"""Annotator reliability with intervals (SPEC §5).

annotator_intervals -- each annotator's accuracy (and the model's reliability parameters:
                       error rate, competence, per-class accuracy) with a bootstrap interval
                       over items: the engine's multinomial resamples, paired across
                       annotators, the model refitted on each   -> DataFrame

With gold labels, :meth:`noise_models.LatentClassFit.annotator_frame` gives the exact
(Clopper–Pearson) interval of each annotator's accuracy on the gold items instead.
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.reliability._intervals import annotator_intervals

__getattr__, __dir__ = lazy_package(__name__)

__all__ = ["annotator_intervals"]
