"""Instance dependence of label noise, from soft labels (SPEC §2.8).

SoftLabels                      -- per-instance label distributions + reference labels
                                   (from an array, voters' distributions, or Ratings)
noise_rate                      -- δ, mean of 1 − p̄_i(y_i)             -> NoiseRateResult
noise_transition_heterogeneity  -- nth and the class-mean transition rows
                                                                   -> TransitionHeterogeneityResult
tv_distance                     -- total-variation distance to reference distributions
                                                                   -> TVDistanceResult
attractor_class                 -- class with the largest gain in label share, its purity
                                                                   -> AttractorResult
label_entropy                   -- entropy of the class shares      -> LabelEntropyResult
sample_hard_labels              -- one voter per instance, uniformly (the CILN protocol)
instance_dependence_report      -- all of the above in one DataFrame

Larger than memory: δ, nth and TV as partial -> combine -> finalize
--------------------------------------------------------------------
soft_partial, soft_combine  -- per-class counts, means, M2 (Chan's update), TV moments
soft_finalize               -- NoiseRateResult, TransitionHeterogeneityResult, TVDistanceResult
SoftLabelSums               -- what soft_partial returns

Modules, one per statistic: ``_soft_labels`` (the input, its validation and the
helpers the statistics share), ``_noise_rate`` (δ), ``_nth`` (nth and the transition
rows), ``_tv_distance``, ``_attractor``, ``_label_entropy``, ``_sampling`` (the
one-voter protocol), ``_report`` (all of them in one table), ``_partial`` (δ, nth and
TV over chunks); ``_kernels`` holds their Numba kernels.
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from noise_models.instance._attractor import AttractorResult, attractor_class
    from noise_models.instance._label_entropy import LabelEntropyResult, label_entropy
    from noise_models.instance._noise_rate import NoiseRateResult, noise_rate
    from noise_models.instance._nth import (
        TransitionHeterogeneityResult,
        noise_transition_heterogeneity,
    )
    from noise_models.instance._partial import (
        SoftLabelSums,
        soft_combine,
        soft_finalize,
        soft_partial,
    )
    from noise_models.instance._report import instance_dependence_report
    from noise_models.instance._sampling import sample_hard_labels
    from noise_models.instance._soft_labels import SoftLabels
    from noise_models.instance._tv_distance import TVDistanceResult, tv_distance

__getattr__, __dir__, __all__ = lazy_package(__name__)
