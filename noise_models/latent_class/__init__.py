"""Which items are hard, which labels are wrong: the latent-class family (SPEC §2.4).

Every model here is fitted to the ratings by one EM engine. The paper's easy/hard
model M1 is one member, ``EasyHardModel = LatentClassModel("perfect", "free")``, so
it lives here and not in :mod:`noise_models.easy_hard`, which holds the closed-form
answers from counts (chance agreement, γ, κ audits, planning, margins) and which
this package imports for a fit's γ (``LatentClassFit.noise_bound``).

Models and fits
---------------
LatentClassModel      -- the latent-class family, one EM engine: annotators "perfect" |
                         "one-coin" | "confusion" (Dawid–Skene) | "spam" (MACE), hard
                         "free" | "marginal" | "uniform" | None    -> LatentClassFit
EasyHardModel         -- the paper's M1, LatentClassModel("perfect", "free")
LatentClassFit        -- labels, per-item posteriors, parameters; .noise_bound(alpha)
                                                                   -> FitNoiseBoundResult
LatentClassFit.annotator_frame -- per annotator: ratings, accuracy (every model), the
                         parameters, accuracy on gold                -> DataFrame
LatentClassFit.hard_items -- the items most likely hard (or hidden among the
                         unanimous ones); .expected_wrong_labels, .label_agreement,
                         .label_accuracy(gold): what a report reads -> DataFrame
annotator_intervals   -- each annotator's accuracy and reliability parameters with a
                         bootstrap interval over items (the fit refitted per resample by
                         the resampling core, ``_goldnoise_lib.resampling``) -> DataFrame

How sure the fit should be (SPEC §5)
------------------------------------
LatentClassModel(..., calibrate="held-out")  -- posteriors tempered by held-out ratings
posterior_check       -- predict held-out ratings: log score, reliability, ECE against two
                         baselines                                 -> PosteriorCheckResult
calibration           -- the fit against verified labels: ECE, claimed vs verified accuracy
                         (exact interval), recalibrated posteriors -> CalibrationResult

How wrong the agreed labels may be
----------------------------------
agreed_error_bracket  -- optimistic (labels-only model) to pessimistic (γ) error of the
                         unanimous labels                          -> ErrorBracketResult
verified_sample_bound -- exact hypergeometric bound from a verified sample
                                                                   -> VerifiedSampleBoundResult
sample_size_needed    -- verified sample that can support a target error share -> int

Spans (named entities) as items (SPEC §7)
-----------------------------------------
span_noise            -- candidate spans as items: γ of the agreed spans, the spans most
                         likely wrong under a fit                  -> SpanNoiseResult

Larger than memory: the EM as one map-reduce per iteration
----------------------------------------------------------
em_partial, em_combine  -- E-step sums of a chunk of items, for every running start
em_finalize             -- the M-step and convergence test from the sums of all chunks
EMState, EStepSums      -- the starts' state, the E-step sums
(LatentClassModel.fit accepts a chunked ratings object and loops them)

Modules: ``_model`` (the model classes, ``EasyHardModel`` included; ``fit`` chooses
between ``_em``, the EM driver in memory, and ``_partial``, the EM over chunks),
``_fit`` (the fit and its γ bound), ``_tempering`` (held-out tempering of the
posteriors), ``_check`` (posterior_check, calibration), ``_bracket``, ``_verified``,
``_spans`` (span_noise), ``_accuracy`` (the annotators' accuracy), ``_intervals``
(annotator_intervals);
``_kernels`` holds the EM engine's Numba kernels. Imports run ``_kernels`` <- ``_fit``
<- ``_tempering`` <- ``_em`` <- ``_partial`` <- ``_model`` <- ``_bracket``, and
``_em`` <- ``_check``.
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from noise_models.latent_class._bracket import ErrorBracketResult, agreed_error_bracket
    from noise_models.latent_class._check import (
        CalibrationResult,
        PosteriorCheckResult,
        calibration,
        posterior_check,
    )
    from noise_models.latent_class._fit import LatentClassFit
    from noise_models.latent_class._fit_bound import FitNoiseBoundResult
    from noise_models.latent_class._intervals import annotator_intervals
    from noise_models.latent_class._model import EasyHardModel, LatentClassModel
    from noise_models.latent_class._partial import (
        EMState,
        EStepSums,
        em_combine,
        em_finalize,
        em_partial,
    )
    from noise_models.latent_class._spans import SpanNoiseResult, span_noise
    from noise_models.latent_class._verified import (
        VerifiedSampleBoundResult,
        sample_size_needed,
        verified_sample_bound,
    )

__getattr__, __dir__, __all__ = lazy_package(__name__)
